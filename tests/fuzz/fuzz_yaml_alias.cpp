// libFuzzer target: YAML anchors and aliases in case files (issue 23). The bytes drive a small
// generator of case files rich in anchors (&a), aliases (*a), merge keys (<<: *a), nested flow and
// block collections, self-references and alias chains ("billion laughs"), so that the fuzzer works
// in that space from the start instead of waiting to stumble on '&' and '*'. An input that starts
// with '#' is YAML text taken as it is (the seeds in tests/fuzz/corpus/yaml_alias). The case then
// goes through the case-file parse path: it must parse or raise InputError; any other exception, a
// crash, a sanitizer report or a slow input is a bug. With UGKS_FUZZ_PRINT=1 each case and its
// outcome are printed (to turn a found input into a readable regression file).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_common.hpp"

namespace {

constexpr std::size_t kMaxText = 32768;  // stop growing the case here
constexpr int kMaxDepth = 10;            // generator nesting (the alias expansion goes deeper)

const char* const kKeys[] = {
    "name",    "gas",       "mesh",  "velocity",   "boundaries", "time",   "numerics", "output",
    "initial", "parallel",  "mode",  "forces",     "checkpoint", "<<",     "source",   "box",
    "dim",     "cells",     "lo",    "hi",         "type",       "counts", "Kn",       "Pr",
    "omega",   "steps",     "cfl",   "limiter",    "probes",     "points", "from",     "to",
    "T",       "U",         "rho",   "xmin",       "xmax",       "ymin",   "ymax",     "file",
    "regions", "directory", "order", "block_size", "a",          "b"};
const char* const kSections[] = {"name",   "gas",        "mesh",   "velocity", "boundaries",
                                 "time",   "numerics",   "output", "initial",  "parallel",
                                 "forces", "checkpoint", "mode",   "overset",  "<<"};
const char* const kScalars[] = {"seed",
                                "0.1",
                                "1",
                                "2",
                                "3",
                                "4",
                                "8",
                                "-1",
                                "0",
                                "1e308",
                                "1e400",
                                ".inf",
                                "-.inf",
                                ".nan",
                                "true",
                                "no",
                                "~",
                                "null",
                                "''",
                                "\"\"",
                                "box",
                                "gauss_hermite",
                                "diffuse_wall",
                                "ugks",
                                "steady",
                                "x",
                                "[]",
                                "{}",
                                "\"\\xff\"",
                                "!!str 1",
                                "!!int x",
                                "'&a'",
                                "\"*a\""};
// Syntax around anchors that the generator would not write itself.
const char* const kRaw[] = {
    "&",    "*", "&&a", "*a*", "<<",      "? ",      "!!map ",       "!!seq ", "!t ",  "|\n",
    ">-\n", "'", "\"",  "#",   "\n---\n", "\n...\n", "%YAML 1.2\n",  ",",      "[",    "]",
    "{",    "}", ": ",  "- ",  "\t",      "\xff",    "\xef\xbb\xbf", "&a &b ", "*a: ", "&a: "};

template <class T, std::size_t N>
constexpr std::size_t count(const T (&)[N]) {
    return N;
}

class Generator {
public:
    Generator(const std::uint8_t* data, std::size_t size) : m_data(data), m_size(size) {}

    std::string document() {
        std::vector<std::string> used;
        for (int entry = 0; entry < 24 && !exhausted() && m_out.size() < kMaxText; ++entry) {
            std::string key = kSections[pick(count(kSections))];
            const bool again = std::find(used.begin(), used.end(), key) != used.end();
            if (again && pick(8) != 0) continue;  // duplicate keys end the parse early
            used.push_back(key);
            switch (pick(12)) {
                case 0:
                case 1:
                case 2:
                case 3:  // a real section, its values maybe anchored or replaced by aliases
                    m_out += key + ": " + maybe_anchor() + real_section(key) + "\n";
                    break;
                case 4:
                case 5:
                    m_out += key + ": " + flow(0) + "\n";
                    break;
                case 6:
                    m_out += key + ":";
                    block_value(0, 0);
                    break;
                case 7:
                    m_out += key + ": " + chain() + "\n";
                    break;
                case 8:
                    m_out += key + ": " + self_reference() + "\n";
                    break;
                case 9:
                    m_out += key + ": " + merge(0) + "\n";
                    break;
                case 10:
                    m_out += key + ": " + alias() + "\n";
                    break;
                default: {
                    const std::string before = raw();
                    const std::string value = flow(1);
                    m_out += key + ": " + before + value + raw() + "\n";
                    break;
                }
            }
        }
        return m_out;
    }

private:
    unsigned byte() { return m_pos < m_size ? m_data[m_pos++] : 0u; }
    bool exhausted() const { return m_pos >= m_size; }
    std::size_t pick(std::size_t n) { return byte() % n; }

    std::string key() {
        if (pick(16) == 0) {  // a key of the input's own bytes: '.', ':', quotes, invalid UTF-8
            std::string k;
            for (std::size_t n = 1 + pick(6); n > 0; --n) k += static_cast<char>(byte());
            return "\"" + k + "\"";
        }
        return kKeys[pick(count(kKeys))];
    }
    std::string scalar() { return kScalars[pick(count(kScalars))]; }
    std::string raw() { return pick(32) == 0 ? kRaw[pick(count(kRaw))] : ""; }

    // Define an anchor; it is known before its content is written, so the content may refer to it.
    std::string anchor() {
        std::string name = "a" + std::to_string(pick(8));
        m_anchors.push_back(name);
        return "&" + name + " ";
    }
    std::string maybe_anchor() { return pick(2) == 0 ? anchor() : ""; }
    std::string alias() {
        if (m_anchors.empty()) return scalar();
        if (pick(64) == 0) return "*u" + std::to_string(pick(4));  // an undefined anchor
        return "*" + m_anchors[pick(m_anchors.size())];
    }

    // The section as a valid case has it; each value between '(' and ')' is kept, anchored, or
    // replaced by an alias or another value (a replaced value takes its inner ones with it).
    std::string real_section(const std::string& key) {
        const char* t = nullptr;
        if (key == "name") t = "(seed)";
        if (key == "gas") t = "{Kn: (0.1)}";
        if (key == "mesh") t = "{source: (box), box: ({dim: (2), cells: ([(4), 4])})}";
        if (key == "velocity") t = "{type: (gauss_hermite), counts: ([8, (8)])}";
        if (key == "time") t = "{steps: (3)}";
        if (key == "numerics") t = "{cfl: (0.5)}";
        if (key == "initial") t = "{rho: (1), U: ([0, 0]), T: (1), regions: [({lo: ([0, 0])})]}";
        if (key == "boundaries")
            t = "{xmin: ({type: (diffuse_wall), T: (1)}), ymax: {type: diffuse_wall, U: ([0.1, "
                "0])}}";
        if (key == "output") t = "{probes: [({name: p, from: ([0, 0]), to: [1, 1], points: 3})]}";
        if (t == nullptr) return flow(1);
        std::string out;
        int open = 0, skip_from = -1;  // holes open; the depth of the replaced one (-1: none)
        for (const char* c = t; *c; ++c) {
            if (*c == ')') {
                if (--open == skip_from) skip_from = -1;
            } else if (*c == '(') {
                if (skip_from < 0) {
                    switch (pick(6)) {
                        case 3:
                            out += anchor();
                            break;
                        case 4:
                            out += alias();
                            skip_from = open;
                            break;
                        case 5:
                            out += flow(2);
                            skip_from = open;
                            break;
                        default:
                            break;
                    }
                }
                ++open;
            } else if (skip_from < 0) {
                out += *c;
            }
        }
        return out;
    }

    std::string flow(int depth) {
        if (m_out.size() > kMaxText || depth >= kMaxDepth) return pick(2) ? scalar() : alias();
        switch (pick(12)) {
            case 0:
            case 1:
            case 2:
                return scalar();
            case 3:
            case 4:
                return alias();
            case 5:
                return anchor() + flow(depth + 1);
            case 6:
                return "!!seq " + anchor() + list(depth);
            case 7:
            case 8:
                return list(depth);
            case 9:
                return merge(depth);
            case 10:
                return raw() + map(depth) + raw();
            default:
                return map(depth);
        }
    }
    std::string list(int depth) {
        std::string s = "[";
        for (std::size_t n = pick(6); n > 0; --n)
            s += flow(depth + 1) + (n > 1 ? ", " : (pick(8) == 0 ? "," : ""));
        return s + "]";
    }
    std::string map(int depth) {
        std::string s = "{";
        for (std::size_t n = pick(5); n > 0; --n)
            s += key() + ": " + flow(depth + 1) + (n > 1 ? ", " : "");
        return s + "}";
    }
    // A map with merge keys: one alias, a list of aliases, or an inline map.
    std::string merge(int depth) {
        std::string m;
        switch (pick(3)) {
            case 0:
                m = alias();
                break;
            case 1:
                m = "[" + alias() + ", " + alias() + "]";
                break;
            default:
                m = map(depth + 1);
                break;
        }
        std::string s = "{<<: " + m;
        for (std::size_t n = pick(3); n > 0; --n) s += ", " + key() + ": " + flow(depth + 1);
        return s + "}";
    }
    // Levels of lists, each repeating the level before: 1e8 nodes for 8 levels of 10.
    std::string chain() {
        const std::size_t levels = 1 + pick(10), repeat = 1 + pick(12);
        const std::string base = "c" + std::to_string(pick(4));
        std::string s = "[&" + base + "0 [x]";
        for (std::size_t l = 1; l < levels; ++l) {
            s += ", &" + base + std::to_string(l) + " [";
            for (std::size_t r = 0; r < repeat; ++r)
                s += (r ? ", *" : "*") + base + std::to_string(l - 1);
            s += "]";
        }
        m_anchors.push_back(base + std::to_string(levels - 1));
        return s + "]";
    }
    // A node that contains itself, directly or a few levels down, as a list or as a map value.
    std::string self_reference() {
        const std::string a = anchor();
        const std::string name = a.substr(1, a.size() - 2);
        std::string inner = "*" + name;
        for (std::size_t n = pick(4); n > 0; --n)
            inner = pick(2) ? "[" + inner + "]" : "{" + key() + ": " + inner + "}";
        return pick(2) ? a + "[" + flow(kMaxDepth - 1) + ", " + inner + "]"
                       : a + "{" + key() + ": " + inner + "}";
    }

    // Value after "key:" in block style: a flow value, a block map or a block list (one level
    // deeper), maybe anchored.
    void block_value(int indent, int depth) {
        if (depth >= 4 || m_out.size() > kMaxText || pick(3) == 0) {
            m_out += " " + flow(depth + 2) + "\n";
            return;
        }
        m_out += (pick(3) == 0 ? " " + anchor() : std::string()) + "\n";
        const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
        const std::size_t n = 1 + pick(4);
        if (pick(2)) {
            for (std::size_t k = 0; k < n; ++k) {
                m_out += pad + key() + ":";
                block_value(indent + 2, depth + 1);
            }
        } else {
            for (std::size_t k = 0; k < n; ++k) m_out += pad + "- " + flow(depth + 2) + "\n";
        }
    }

    const std::uint8_t* m_data;
    std::size_t m_size;
    std::size_t m_pos = 0;
    std::string m_out;
    std::vector<std::string> m_anchors;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = size > 0 && data[0] == '#'
                                 ? std::string(reinterpret_cast<const char*>(data), size)
                                 : Generator(data, size).document();
    static const bool print = std::getenv("UGKS_FUZZ_PRINT") != nullptr;
    if (print) std::fprintf(stderr, "---- case\n%s\n", text.c_str());
    try {
        ugks::Config cfg = ugks::Config::from_string(text, "fuzz.yaml");
        const int dims = ugks::fuzz::parse_case(cfg);
        if (print) std::fprintf(stderr, "---- accepted (for %d of 3 mesh dimensions)\n", dims);
    } catch (const ugks::InputError& e) {
        if (print) std::fprintf(stderr, "---- InputError: %s\n", e.what());
    }
    return 0;
}
