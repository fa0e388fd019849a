#include "ugks/core/config.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "ugks/core/error.hpp"

namespace ugks {
namespace {

// ---- key paths ---------------------------------------------------------------------------------

std::vector<std::string> split_path(const std::string& path) {
    std::vector<std::string> segs;
    if (path.empty()) return segs;
    std::size_t start = 0;
    while (true) {
        const std::size_t dot = path.find('.', start);
        if (dot == std::string::npos) {
            segs.push_back(path.substr(start));
            return segs;
        }
        segs.push_back(path.substr(start, dot - start));
        start = dot + 1;
    }
}

bool valid_path(const std::string& path) {
    if (path.empty()) return false;
    for (const auto& s : split_path(path))
        if (s.empty()) return false;
    return true;
}

std::string parent_of(const std::string& path) {
    const auto dot = path.rfind('.');
    return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

std::string join(const std::string& parent, const std::string& seg) {
    return parent.empty() ? seg : parent + "." + seg;
}

std::string join(const std::string& parent, std::size_t index) {
    return join(parent, std::to_string(index));
}

// Is `path` equal to `prefix` or below it?
bool is_under(const std::string& path, const std::string& prefix) {
    return path.compare(0, prefix.size(), prefix) == 0 &&
           (path.size() == prefix.size() || path[prefix.size()] == '.');
}

bool parse_index(const std::string& seg, std::size_t& idx) {
    if (seg.empty() || seg.size() > 9) return false;
    for (char c : seg)
        if (c < '0' || c > '9') return false;
    idx = static_cast<std::size_t>(std::stoul(seg));
    return true;
}

// Erase `path` and everything below it from a map or set keyed by path.
template <class Container>
void erase_subtree(Container& c, const std::string& path) {
    auto it = c.lower_bound(path);
    while (it != c.end()) {
        const std::string& key = [&]() -> const std::string& {
            if constexpr (std::is_same_v<typename Container::key_type,
                                         typename Container::value_type>)
                return *it;
            else
                return it->first;
        }();
        if (key.compare(0, path.size(), path) != 0) break;
        if (is_under(key, path))
            it = c.erase(it);
        else
            ++it;  // e.g. "a-b" sorts between "a" and "a.b"
    }
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return {};
    const auto e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// ---- text of values ---------------------------------------------------------------------------

// Shortest %g text that reads back to the same double.
std::string format_double(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[40];
    for (int prec = 15; prec <= 17; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (std::strtod(buf, nullptr) == v) break;
    }
    return buf;
}

std::string yaml_double(double v) {
    if (std::isnan(v)) return ".nan";
    if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
    return format_double(v);
}

std::string describe(const YAML::Node& n) {
    switch (n.Type()) {
        case YAML::NodeType::Map:
            return "a map";
        case YAML::NodeType::Sequence:
            return "a list";
        case YAML::NodeType::Scalar: {
            std::string s = n.Scalar();
            if (s.size() > 60) s = s.substr(0, 57) + "...";
            return "'" + s + "'";
        }
        default:
            return "an empty value";
    }
}

// Levenshtein distance with adjacent transpositions counted as one edit (optimal string alignment):
// "fiel" is one typo away from "file".
std::size_t edit_distance(const std::string& a, const std::string& b) {
    const std::size_t m = a.size(), n = b.size();
    std::vector<std::size_t> d((m + 1) * (n + 1));
    auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * (n + 1) + j]; };
    for (std::size_t i = 0; i <= m; ++i) at(i, 0) = i;
    for (std::size_t j = 0; j <= n; ++j) at(0, j) = j;
    for (std::size_t i = 1; i <= m; ++i) {
        for (std::size_t j = 1; j <= n; ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
        }
    }
    return at(m, n);
}

// The candidate closest to `word` (case-insensitive edit distance), if it is close enough to be a
// typo: a case change always; otherwise 1 edit for names of 3-4 characters, 2 up to 11, 3 beyond (a
// one-letter name differing in its letter is another name, not a typo).
std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
    const std::string w = lower(word);
    const std::size_t limit = w.size() <= 2 ? 0 : w.size() <= 4 ? 1 : w.size() < 12 ? 2 : 3;
    std::size_t best = std::numeric_limits<std::size_t>::max();
    std::string found;
    for (const auto& c : candidates) {
        if (c == word) continue;
        const std::size_t d = edit_distance(w, lower(c));
        if (d < best) {
            best = d;
            found = c;
        }
    }
    return best <= limit ? found : std::string();
}

// ---- walking the tree -------------------------------------------------------------------------
// yaml-cpp nodes are handles: `a = b` on a bound node overwrites a's content in the tree, so
// handles are re-pointed with reset() throughout.

struct WalkResult {
    bool found = false;
    YAML::Node node{YAML::NodeType::Undefined};  // the node at the path, when found
    std::string stop;                            // deepest existing path on the way ("" = root)
    YAML::Node stop_node{YAML::NodeType::Undefined};
};

WalkResult walk(const YAML::Node& root, const std::string& path) {
    WalkResult r;
    YAML::Node cur(root);
    std::string at;
    for (const auto& seg : split_path(path)) {
        YAML::Node next(YAML::NodeType::Undefined);
        bool ok = false;
        if (cur.IsMap()) {
            for (auto it = cur.begin(); it != cur.end(); ++it) {
                if (it->first.IsScalar() && it->first.Scalar() == seg) {
                    next.reset(it->second);
                    ok = true;
                    break;
                }
            }
        } else if (cur.IsSequence()) {
            std::size_t idx = 0;
            if (parse_index(seg, idx) && idx < cur.size()) {
                const YAML::Node& ccur = cur;
                next.reset(ccur[idx]);
                ok = true;
            }
        }
        if (!ok) {
            r.stop = at;
            r.stop_node.reset(cur);
            return r;
        }
        cur.reset(next);
        at = join(at, seg);
    }
    r.found = true;
    r.node.reset(cur);
    r.stop = at;
    r.stop_node.reset(cur);
    return r;
}

// ---- typed conversion -------------------------------------------------------------------------

enum class Parse { kOk, kSyntax, kRange };

Parse parse_integer(const std::string& s, long long& out) {
    std::size_t i = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (i == s.size()) return Parse::kSyntax;
    for (std::size_t k = i; k < s.size(); ++k)
        if (s[k] < '0' || s[k] > '9') return Parse::kSyntax;
    errno = 0;
    out = std::strtoll(s.c_str(), nullptr, 10);
    return errno == ERANGE ? Parse::kRange : Parse::kOk;
}

// Decimal numbers as YAML writes them, plus [+-](.)inf; NaN is never a valid input.
Parse parse_number(const std::string& s, double& out) {
    std::size_t i = 0;
    const bool neg = !s.empty() && s[0] == '-';
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) ++i;
    const std::string body = lower(s.substr(i));
    if (body == ".inf" || body == "inf" || body == "infinity") {
        out = neg ? -std::numeric_limits<double>::infinity()
                  : std::numeric_limits<double>::infinity();
        return Parse::kOk;
    }
    std::size_t k = 0, digits = 0;
    while (k < body.size() && std::isdigit(static_cast<unsigned char>(body[k]))) ++k, ++digits;
    if (k < body.size() && body[k] == '.') {
        ++k;
        while (k < body.size() && std::isdigit(static_cast<unsigned char>(body[k]))) ++k, ++digits;
    }
    if (digits == 0) return Parse::kSyntax;
    if (k < body.size() && body[k] == 'e') {
        ++k;
        if (k < body.size() && (body[k] == '+' || body[k] == '-')) ++k;
        std::size_t exp_digits = 0;
        while (k < body.size() && std::isdigit(static_cast<unsigned char>(body[k])))
            ++k, ++exp_digits;
        if (exp_digits == 0) return Parse::kSyntax;
    }
    if (k != body.size()) return Parse::kSyntax;
    errno = 0;
    out = std::strtod(s.c_str(), nullptr);
    // Underflow to a subnormal or zero is accepted; overflow is not.
    if (errno == ERANGE && std::isinf(out)) return Parse::kRange;
    return Parse::kOk;
}

template <class T, class Enable = void>
struct Convert;

template <class T>
struct Convert<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
    static constexpr const char* kPlural = "integers";
    static T read(const Config& cfg, const std::string& path, const YAML::Node& n) {
        if (!n.IsScalar()) cfg.fail(path, "expected an integer, got " + describe(n));
        long long v = 0;
        const Parse st = parse_integer(n.Scalar(), v);
        if (st == Parse::kSyntax) cfg.fail(path, "expected an integer, got " + describe(n));
        if (st == Parse::kRange || v < static_cast<long long>(std::numeric_limits<T>::min()) ||
            (v > 0 && static_cast<unsigned long long>(v) >
                          static_cast<unsigned long long>(std::numeric_limits<T>::max())))
            cfg.fail(path, "expected an integer between " +
                               std::to_string(std::numeric_limits<T>::min()) + " and " +
                               std::to_string(std::numeric_limits<T>::max()) + ", got " +
                               describe(n));
        return static_cast<T>(v);
    }
    static YAML::Node encode(T v) { return YAML::Node(std::to_string(v)); }
};

template <>
struct Convert<bool> {
    static constexpr const char* kPlural = "booleans";
    static bool read(const Config& cfg, const std::string& path, const YAML::Node& n) {
        bool b = false;
        if (!n.IsScalar() || !YAML::convert<bool>::decode(n, b))
            cfg.fail(path, "expected true or false, got " + describe(n));
        return b;
    }
    static YAML::Node encode(bool v) { return YAML::Node(std::string(v ? "true" : "false")); }
};

template <>
struct Convert<double> {
    static constexpr const char* kPlural = "numbers";
    static double read(const Config& cfg, const std::string& path, const YAML::Node& n) {
        double v = 0;
        const Parse st = n.IsScalar() ? parse_number(n.Scalar(), v) : Parse::kSyntax;
        if (st == Parse::kSyntax) cfg.fail(path, "expected a number, got " + describe(n));
        if (st == Parse::kRange)
            cfg.fail(path, "number " + describe(n) + " is out of double range");
        return v;
    }
    static YAML::Node encode(double v) { return YAML::Node(yaml_double(v)); }
};

template <>
struct Convert<std::string> {
    static constexpr const char* kPlural = "strings";
    static std::string read(const Config& cfg, const std::string& path, const YAML::Node& n) {
        if (!n.IsScalar()) cfg.fail(path, "expected a string, got " + describe(n));
        return n.Scalar();
    }
    static YAML::Node encode(const std::string& v) { return YAML::Node(v); }
};

template <class T>
struct Convert<std::vector<T>> {
    static std::vector<T> read(const Config& cfg, const std::string& path, const YAML::Node& n) {
        if (!n.IsSequence())
            cfg.fail(path, std::string("expected a list of ") + Convert<T>::kPlural + ", got " +
                               describe(n));
        std::vector<T> out;
        out.reserve(n.size());
        for (std::size_t i = 0; i < n.size(); ++i)
            out.push_back(Convert<T>::read(cfg, join(path, i), n[i]));
        return out;
    }
    static YAML::Node encode(const std::vector<T>& v) {
        YAML::Node seq(YAML::NodeType::Sequence);
        for (const auto& x : v) seq.push_back(Convert<T>::encode(x));
        seq.SetStyle(YAML::EmitterStyle::Flow);
        return seq;
    }
};

template <>
struct Convert<Vec3> {
    static Vec3 read(const Config& cfg, const std::string& path, const YAML::Node& n) {
        if (!n.IsSequence())
            cfg.fail(path, "expected a list of 1 to 3 numbers, got " + describe(n));
        if (n.size() < 1 || n.size() > 3)
            cfg.fail(path, "expected a list of 1 to 3 numbers, got " + std::to_string(n.size()) +
                               " entries");
        Vec3 v{0.0, 0.0, 0.0};
        for (std::size_t i = 0; i < n.size(); ++i)
            v[i] = Convert<double>::read(cfg, join(path, i), n[i]);
        return v;
    }
    static YAML::Node encode(const Vec3& v) {
        return Convert<std::vector<double>>::encode(std::vector<double>(v.begin(), v.end()));
    }
};

// First path under `n` (file order) that was never read, or "" when everything was.
// A key none of whose descendants was looked at is reported itself (a whole unknown section).
std::string first_unread(const YAML::Node& n, const std::string& path,
                         const std::set<std::string>& read, const std::set<std::string>& seen,
                         const std::set<std::string>& touched) {
    if (!path.empty()) {
        if (read.count(path)) return {};
        if (!touched.count(path)) return path;
    }
    if (n.IsMap()) {
        for (auto it = n.begin(); it != n.end(); ++it) {
            std::string r =
                first_unread(it->second, join(path, it->first.Scalar()), read, seen, touched);
            if (!r.empty()) return r;
        }
        return {};
    }
    if (n.IsSequence()) {
        for (std::size_t i = 0; i < n.size(); ++i) {
            std::string r = first_unread(n[i], join(path, i), read, seen, touched);
            if (!r.empty()) return r;
        }
        return {};
    }
    // A value that was only looked at (is_map etc.) still has to be read, unless it is empty.
    if (n.IsNull() && seen.count(path)) return {};
    return path;
}

}  // namespace

// ---- construction -----------------------------------------------------------------------------

Config::Config() : m_name("<empty>"), m_root(YAML::NodeType::Map) {}

Config::Config(const Config& other)
    : m_file(other.m_file),
      m_name(other.m_name),
      m_root(YAML::Clone(other.m_root)),
      m_line(other.m_line),
      m_override_source(other.m_override_source),
      m_defaulted(other.m_defaulted),
      m_read(other.m_read),
      m_seen(other.m_seen),
      m_queried(other.m_queried) {}

Config& Config::operator=(const Config& other) {
    if (this != &other) {
        Config tmp(other);
        *this = std::move(tmp);
    }
    return *this;
}

Config::Config(Config&& other) noexcept
    : m_file(std::move(other.m_file)),
      m_name(std::move(other.m_name)),
      m_root(other.m_root),
      m_line(std::move(other.m_line)),
      m_override_source(std::move(other.m_override_source)),
      m_defaulted(std::move(other.m_defaulted)),
      m_read(std::move(other.m_read)),
      m_seen(std::move(other.m_seen)),
      m_queried(std::move(other.m_queried)) {
    other.m_root.reset(YAML::Node(YAML::NodeType::Map));
}

Config& Config::operator=(Config&& other) noexcept {
    if (this != &other) {
        m_file = std::move(other.m_file);
        m_name = std::move(other.m_name);
        m_root.reset(other.m_root);  // re-point; plain assignment would overwrite the old tree
        other.m_root.reset(YAML::Node(YAML::NodeType::Map));
        m_line = std::move(other.m_line);
        m_override_source = std::move(other.m_override_source);
        m_defaulted = std::move(other.m_defaulted);
        m_read = std::move(other.m_read);
        m_seen = std::move(other.m_seen);
        m_queried = std::move(other.m_queried);
    }
    return *this;
}

Config Config::from_file(const std::string& path) {
    namespace fs = std::filesystem;
    // A FIFO would block in open() without a writer, a device like /dev/zero never ends.
    if (const std::string why = input_file_problem(path); !why.empty())
        UGKS_INPUT_ERROR("case file '" << path << "' " << why);
    std::error_code ec;
    constexpr std::uintmax_t kMaxBytes = 64u << 20;
    const std::uintmax_t bytes = fs::file_size(path, ec);
    if (!ec && bytes > kMaxBytes)
        UGKS_INPUT_ERROR("case file '" << path << "' has " << bytes << " bytes; a case file holds "
                                       << "at most " << kMaxBytes
                                       << " (meshes and velocity lists go in files of their own)");
    std::ifstream in(path, std::ios::binary);
    if (!in) UGKS_INPUT_ERROR("cannot open case file '" << path << "': " << std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) UGKS_INPUT_ERROR("cannot read case file '" << path << "'");
    Config cfg;
    cfg.m_file = path;
    cfg.m_name = path;
    cfg.load_text(text.str());
    return cfg;
}

Config Config::from_string(const std::string& text, const std::string& name) {
    Config cfg;
    cfg.m_name = name;
    cfg.load_text(text);
    return cfg;
}

namespace {

// ---- text checks ------------------------------------------------------------------------------

// Length of the valid UTF-8 sequence starting at s[i] (1 to 4), or 0: a stray continuation byte, an
// overlong form, a surrogate, a code point above U+10FFFF or a sequence cut short.
std::size_t utf8_sequence(const std::string& s, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned c = byte(i);
    if (c < 0x80) return 1;
    std::size_t n = 0;
    unsigned lo = 0x80, hi = 0xbf;  // the range of the second byte
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0) lo = 0xa0;  // overlong
        if (c == 0xed) hi = 0x9f;  // surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0) lo = 0x90;  // overlong
        if (c == 0xf4) hi = 0x8f;  // above U+10FFFF
    } else {
        return 0;
    }
    if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
    return n;
}

// Offset of the first byte of `s` that is not valid UTF-8 or is a NUL, or npos.
std::size_t first_bad_byte(const std::string& s) {
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = utf8_sequence(s, i);
        if (n == 0 || s[i] == '\0') return i;
        i += n;
    }
    return std::string::npos;
}

// `s` for a message: bytes that are not valid UTF-8 and control characters as \xNN.
std::string escape_bytes(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = utf8_sequence(s, i);
        const auto c = static_cast<unsigned char>(s[i]);
        if (n == 0 || c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
            i += 1;
        } else {
            out.append(s, i, n);
            i += n;
        }
    }
    return out;
}

// ---- checking the tree ------------------------------------------------------------------------

/// The walk of Config::scan. yaml-cpp gives an aliased node to every place that refers to it, so a
/// node met again is not walked again: its size and height from the first visit are added, which
/// makes an alias bomb cost its text rather than its expansion; a node met again while it is still
/// being walked is an alias inside the node it refers to.
class ScanWalk {
public:
    ScanWalk(const std::string& name, const std::string& origin, std::map<std::string, int>* lines)
        : m_name(name), m_origin(origin), m_lines(lines) {}

    struct Extent {
        std::size_t nodes = 1;  // the node and everything below it, aliases expanded
        int height = 0;         // levels below it
    };

    Extent run(const YAML::Node& node, const std::string& path, int depth) {
        const std::string where0 = m_lines && node.Mark().line >= 0
                                       ? m_name + ":" + std::to_string(node.Mark().line + 1)
                                       : m_origin;
        if (depth > Config::kMaxDepth) too_deep(where0, path);
        const bool collection = node.IsMap() || node.IsSequence();
        Visit* visit = nullptr;
        if (collection) {
            const auto range = m_visits.equal_range(node.Mark().pos);
            for (auto it = range.first; it != range.second && !visit; ++it)
                if (it->second.node.is(node)) visit = &it->second;
            if (visit) {
                if (!visit->done)
                    UGKS_INPUT_ERROR(where0 << ": '" << path
                                            << "': a YAML alias inside the node it refers to (the "
                                               "value would nest without end)");
                if (depth + visit->extent.height > Config::kMaxDepth) too_deep(where0, path);
                count(visit->extent.nodes, where0, path);
                m_alias_nodes += visit->extent.nodes;
                if (m_alias_nodes > Config::kMaxAliasNodes)
                    UGKS_INPUT_ERROR(where0 << ": the case's aliases expand to more than "
                                            << Config::kMaxAliasNodes
                                            << " YAML nodes (aliases that repeat aliases?); at '"
                                            << path << "'");
                return visit->extent;
            }
            // unordered_multimap keeps references to its elements valid on insertion
            visit = &m_visits.emplace(node.Mark().pos, Visit{node, {}, false})->second;
        }
        count(1, where0, path);
        Extent e;
        auto add = [&](const Extent& child) {
            e.nodes += child.nodes;
            e.height = std::max(e.height, child.height + 1);
        };
        if (node.IsMap()) {
            std::map<std::string, int> first_line;
            for (auto it = node.begin(); it != node.end(); ++it) {
                const YAML::Node key = it->first;  // a copy: it-> returns a temporary proxy
                const int line = key.Mark().line + 1;
                const std::string where = m_lines ? m_name + ":" + std::to_string(line) : m_origin;
                const std::string under =
                    path.empty() ? "at the top level" : "under '" + path + "'";
                if (!key.IsScalar() || key.Scalar().empty())
                    UGKS_INPUT_ERROR(where << ": a key " << under << " must be a plain name, got "
                                           << describe(key));
                const std::string& name = key.Scalar();
                const std::string child = join(path, name);
                if (name.find('.') != std::string::npos)
                    UGKS_INPUT_ERROR(
                        where << ": key '" << child
                              << "': '.' is not allowed in key names (it separates key paths)");
                const auto [pos, inserted] = first_line.emplace(name, line);
                if (!inserted) {
                    if (m_lines)
                        UGKS_INPUT_ERROR(where << ": duplicate key '" << child
                                               << "' (first defined at line " << pos->second
                                               << ")");
                    UGKS_INPUT_ERROR(where << ": duplicate key '" << child << "'");
                }
                record(child, line, where);
                add(run(it->second, child, depth + 1));
            }
        } else if (node.IsSequence()) {
            for (std::size_t i = 0; i < node.size(); ++i) {
                const std::string child = join(path, i);
                record(child, node[i].Mark().line + 1, where0);
                add(run(node[i], child, depth + 1));
            }
        }
        if (visit) {
            visit->extent = e;
            visit->done = true;
        }
        return e;
    }

private:
    struct Visit {
        YAML::Node node;
        Extent extent;
        bool done;  // false while the node is being walked
    };

    [[noreturn]] static void too_deep(const std::string& where, const std::string& path) {
        UGKS_INPUT_ERROR(where << ": '" << path << "': nested more than " << Config::kMaxDepth
                               << " levels deep (a YAML alias that refers to itself?)");
    }
    void count(std::size_t nodes, const std::string& where, const std::string& path) {
        m_nodes += nodes;
        if (m_nodes > Config::kMaxNodes)
            UGKS_INPUT_ERROR(where << ": the case expands to more than " << Config::kMaxNodes
                                   << " YAML nodes (aliases that repeat aliases?); at '" << path
                                   << "'");
    }
    // The line of a key path, kept for messages; the paths kept are bounded in bytes (long key
    // names nested deep would otherwise take memory quadratic in the text).
    void record(const std::string& child, int line, const std::string& where) {
        m_path_bytes += child.size();
        if (m_path_bytes > Config::kMaxPathBytes)
            UGKS_INPUT_ERROR(where << ": the key paths of the case add up to more than "
                                   << Config::kMaxPathBytes
                                   << " bytes (long key names nested deep?)");
        if (m_lines) (*m_lines)[child] = line;
    }

    const std::string& m_name;
    const std::string& m_origin;
    std::map<std::string, int>* m_lines;           // null: no lines to record (an override)
    std::unordered_multimap<int, Visit> m_visits;  // maps and lists walked, by start position
    std::size_t m_nodes = 0;
    std::size_t m_alias_nodes = 0;  // nodes that aliases add
    std::size_t m_path_bytes = 0;
};

// Fill the null node `out`, already in its place, with a copy of `n` in which every place that an
// alias refers to has nodes of its own, so that an override or a default written there changes
// that place only. Tags and styles are kept. Built from the top: each new node joins the memory of
// the copy, where building from the leaves would merge every subtree's memory again at each level.
void fill_unshared(YAML::Node& out, const YAML::Node& n) {
    if (n.IsMap()) {
        out = YAML::Node(YAML::NodeType::Map);
        for (auto it = n.begin(); it != n.end(); ++it) {
            YAML::Node value(YAML::NodeType::Null);
            out.force_insert(it->first.Scalar(), value);  // keys are plain names (Config::scan)
            fill_unshared(value, it->second);
        }
    } else if (n.IsSequence()) {
        out = YAML::Node(YAML::NodeType::Sequence);
        for (std::size_t i = 0; i < n.size(); ++i) {
            YAML::Node value(YAML::NodeType::Null);
            out.push_back(value);
            fill_unshared(value, n[i]);
        }
    } else if (n.IsScalar()) {
        out = n.Scalar();
    } else {
        return;
    }
    out.SetTag(n.Tag());
    out.SetStyle(n.Style());
}

YAML::Node unshared(const YAML::Node& n) {
    YAML::Node out(YAML::NodeType::Null);
    fill_unshared(out, n);
    return out;
}

/// Records, per YAML document, the position of its first node with content (scalar, sequence, map,
/// alias; a document holding only a null has none) and the position where the document started;
/// whether there are aliases; and refuses more than Config::kMaxNodes nodes in the text before
/// yaml-cpp builds a tree of them (a 64 MiB case file could hold 30 million).
class DocumentProbe : public YAML::EventHandler {
public:
    explicit DocumentProbe(const std::string& name) : m_name(name) {}
    YAML::Mark start, content;
    bool has_content = false;
    bool has_alias = false;  // in any document so far
    void reset() { has_content = false; }
    void OnDocumentStart(const YAML::Mark& m) override { start = m; }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
    void OnAlias(const YAML::Mark& m, YAML::anchor_t) override {
        seen(m);
        has_alias = true;
    }
    void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  const std::string&) override {
        seen(m);
        node(m);
    }
    void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {
        seen(m);
        node(m);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {
        seen(m);
        node(m);
    }
    void OnMapEnd() override {}

private:
    void seen(const YAML::Mark& m) {
        if (!has_content) content = m;
        has_content = true;
    }
    void node(const YAML::Mark& m) {
        if (++m_nodes > Config::kMaxNodes)
            UGKS_INPUT_ERROR(m_name << ":" << m.line + 1 << ": more than " << Config::kMaxNodes
                                    << " YAML nodes (a case file holds hundreds; meshes and "
                                       "velocity lists go in files of their own)");
    }
    const std::string& m_name;
    std::size_t m_nodes = 0;
};
}  // namespace

void Config::load_text(const std::string& text) {
    // yaml-cpp passes bytes that are not UTF-8 through into keys and values, and reads a text that
    // starts with FF FE, FE FF or a NUL byte as UTF-16 or UTF-32.
    if (const std::size_t bad = first_bad_byte(text); bad != std::string::npos) {
        const std::size_t line_start = text.rfind('\n', bad == 0 ? 0 : bad - 1);
        const std::size_t from = line_start == std::string::npos || bad == 0 ? 0 : line_start + 1;
        std::size_t column = 1;
        for (std::size_t i = from; i < bad; i += utf8_sequence(text, i)) ++column;
        const auto line =
            1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n');
        const bool nul = text[bad] == '\0';
        const bool bom =
            bad == 0 && text.size() >= 2 &&
            (text.compare(0, 2, "\xff\xfe") == 0 || text.compare(0, 2, "\xfe\xff") == 0);
        UGKS_INPUT_ERROR(
            m_name << ":" << line << ":" << column << ": "
                   << (nul ? std::string("a NUL byte")
                           : "not valid UTF-8: byte " + escape_bytes(text.substr(bad, 1)))
                   << " at byte offset " << bad
                   << (bom   ? " (a UTF-16 or UTF-32 byte-order mark)"
                       : nul ? " (a UTF-16 or UTF-32 file?)"
                             : "")
                   << "; a case file is UTF-8 text");
    }
    std::vector<YAML::Node> docs;
    bool aliases = false;
    try {
        // The document structure first, with the event parser and a bounded loop: yaml-cpp 0.7's
        // LoadAll never returns on some malformed input (a ',' at document level makes the parser
        // yield empty documents forever without consuming it; found by tests/fuzz).
        std::istringstream in(text);
        YAML::Parser parser(in);
        DocumentProbe probe(m_name);
        for (int n = 0;; ++n) {
            probe.reset();
            if (!parser.HandleNextDocument(probe)) break;
            if (n >= 1 && probe.has_content)  // a trailing "---" alone is harmless
                UGKS_INPUT_ERROR(m_name
                                 << ":" << probe.content.line + 1
                                 << ": a second YAML document starts here; a case file holds one");
            if (n >= 64)
                UGKS_INPUT_ERROR(m_name << ":" << probe.start.line + 1 << ":"
                                        << probe.start.column + 1
                                        << ": YAML syntax error: the parser cannot continue here "
                                           "(a stray ',' or flow indicator?)");
        }
        aliases = probe.has_alias;
        docs.push_back(YAML::Load(text));  // the (single) document
    } catch (const YAML::ParserException& e) {
        if (e.mark.is_null()) UGKS_INPUT_ERROR(m_name << ": YAML syntax error: " << e.msg);
        UGKS_INPUT_ERROR(m_name << ":" << e.mark.line + 1 << ":" << e.mark.column + 1
                                << ": YAML syntax error: " << e.msg);
    } catch (const YAML::Exception& e) {
        UGKS_INPUT_ERROR(m_name << ": YAML error: " << e.msg);
    }
    if (docs.empty() || docs[0].IsNull()) {
        m_root.reset(YAML::Node(YAML::NodeType::Map));
    } else if (!docs[0].IsMap()) {
        UGKS_INPUT_ERROR(m_name << ":" << docs[0].Mark().line + 1
                                << ": a case file must be a map of sections (name: value), got "
                                << describe(docs[0]));
    } else {
        m_root.reset(docs[0]);
    }
    scan(m_root, "", m_name, true);
    if (aliases) m_root.reset(unshared(m_root));  // bounded by the scan
}

void Config::scan(const YAML::Node& node, const std::string& path, const std::string& origin,
                  bool lines) {
    ScanWalk walk(m_name, origin, lines ? &m_line : nullptr);
    walk.run(node, path, static_cast<int>(split_path(path).size()));
}

// ---- overrides and defaults -------------------------------------------------------------------

void Config::apply_override(const std::string& assignment) {
    const auto eq = assignment.find('=');
    if (const std::size_t bad = first_bad_byte(assignment); bad != std::string::npos) {
        const bool nul = assignment[bad] == '\0';
        UGKS_INPUT_ERROR("--set " << escape_bytes(assignment) << ": the "
                                  << (eq != std::string::npos && bad > eq ? "value" : "key")
                                  << (nul ? " holds a NUL byte"
                                          : " is not valid UTF-8 (byte " +
                                                escape_bytes(assignment.substr(bad, 1)))
                                  << " at offset " << bad << " of the argument"
                                  << (nul ? "" : ")"));
    }
    const std::string source = "--set " + assignment;
    if (eq == std::string::npos) UGKS_INPUT_ERROR(source << ": expected key.path=value");
    const std::string key = trim(assignment.substr(0, eq));
    if (!valid_path(key))
        UGKS_INPUT_ERROR(
            source << ": expected key.path=value with a key path like 'numerics.cfl', got '" << key
                   << "'");
    if (const std::size_t levels = split_path(key).size(); levels > kMaxDepth)
        UGKS_INPUT_ERROR(source.substr(0, 80)
                         << "...: the key path has " << levels << " levels; at most " << kMaxDepth);
    if (const std::string text = trim(assignment.substr(eq + 1)); text == "null" || text == "~") {
        remove_key(key, source);
        return;
    }
    YAML::Node value;
    try {
        value.reset(YAML::Load(assignment.substr(eq + 1)));
    } catch (const YAML::Exception& e) {
        UGKS_INPUT_ERROR(source << ": YAML syntax error in the value: " << e.msg);
    }
    scan(value, key, source, false);
    set_value(key, unshared(value), source);
}

void Config::set_value(const std::string& path, const YAML::Node& value,
                       const std::string& source) {
    const auto segs = split_path(path);
    auto blocked = [&](const std::string& at, const std::string& what) {
        if (source.empty()) fail(at, what);
        UGKS_INPUT_ERROR(source << ": key '" << at << "': " << what);
    };
    std::vector<std::string> created;
    YAML::Node cur(m_root);
    std::string at;
    for (std::size_t k = 0; k < segs.size(); ++k) {
        const std::string& seg = segs[k];
        const bool last = k + 1 == segs.size();
        const std::string here = join(at, seg);
        if (cur.IsNull()) cur = YAML::Node(YAML::NodeType::Map);  // an empty section becomes a map
        if (cur.IsSequence()) {
            const std::size_t n = cur.size();
            std::size_t idx = 0;
            if (!parse_index(seg, idx) || idx > n)
                blocked(at, "is a list of " + std::to_string(n) + " entries; '" + seg +
                                "' is not an index from 0 to " + std::to_string(n));
            if (idx == n) {  // append
                cur.push_back(last ? value : YAML::Node(YAML::NodeType::Map));
                created.push_back(here);
            } else if (last) {
                YAML::Node element = cur[idx];
                element = value;  // overwrite the entry in place
            }
            if (!last) {
                YAML::Node child = cur[idx];
                cur.reset(child);
            }
        } else if (cur.IsMap()) {
            bool exists = false;
            for (auto it = cur.begin(); it != cur.end() && !exists; ++it)
                exists = it->first.Scalar() == seg;
            if (last) {
                cur[seg] = value;
            } else {
                if (!exists) cur[seg] = YAML::Node(YAML::NodeType::Map);
                YAML::Node child = cur[seg];
                cur.reset(child);
            }
            if (!exists) created.push_back(here);
        } else {
            blocked(at, "expected a section (map) holding '" + seg + "', got " + describe(cur));
        }
        at = here;
    }
    erase_subtree(m_line, path);
    erase_subtree(m_override_source, path);
    erase_subtree(m_defaulted, path);
    if (std::find(created.begin(), created.end(), path) == created.end()) created.push_back(path);
    for (const auto& p : created) {
        if (source.empty())
            m_defaulted.insert(p);
        else
            m_override_source[p] = source;
    }
}

// ---- reading ----------------------------------------------------------------------------------

YAML::Node Config::lookup(const std::string& path) const {
    WalkResult w = walk(m_root, path);
    return w.found ? w.node : YAML::Node(YAML::NodeType::Undefined);
}

void Config::ignore(const std::string& path) const {
    if (has(path)) mark_read(path);
}

void Config::remove_key(const std::string& path, const std::string& source) {
    const auto segs = split_path(path);
    // const lookups: a non-const operator[] of yaml-cpp would add the key it looks for
    YAML::Node cur(m_root);
    for (std::size_t k = 0; k + 1 < segs.size(); ++k) {
        const YAML::Node& c = cur;
        if (!c.IsMap() || !c[segs[k]])
            UGKS_INPUT_ERROR(source << ": the case sets no key '" << path << "' to remove");
        cur.reset(c[segs[k]]);
    }
    const YAML::Node& c = cur;
    if (!c.IsMap() || !c[segs.back()])
        UGKS_INPUT_ERROR(source << ": the case sets no key '" << path
                                << "' to remove (a list entry cannot be removed)");
    cur.remove(segs.back());
}

void Config::mark_read(const std::string& path) const {
    m_read.insert(path);
    m_queried.insert(path);
}

void Config::fail_missing(const std::string& path) const {
    const WalkResult w = walk(m_root, path);
    const auto segs = split_path(path);
    if (w.stop.empty()) {
        if (segs.size() == 1)
            UGKS_INPUT_ERROR("key '" << path << "' is required (not in " << m_name << ")");
        UGKS_INPUT_ERROR("key '" << path << "' is required (no section '" << segs[0] << "' in "
                                 << m_name << ")");
    }
    const YAML::Node& n = w.stop_node;
    if (n.IsSequence())
        UGKS_INPUT_ERROR("key '" << path << "' is required (list '" << w.stop << "' at "
                                 << location(w.stop) << " has " << n.size() << " entries)");
    if (n.IsMap() || n.IsNull())
        UGKS_INPUT_ERROR("key '" << path << "' is required (section '" << w.stop << "' at "
                                 << location(w.stop) << ")");
    const std::string next = segs[split_path(w.stop).size()];
    fail(w.stop, "expected a section (map) holding '" + next + "', got " + describe(n));
}

template <class T>
T Config::get(const std::string& path) const {
    UGKS_REQUIRE(valid_path(path), "invalid key path '" << path << "'");
    m_queried.insert(path);
    const YAML::Node n = lookup(path);
    if (!n.IsDefined()) fail_missing(path);
    mark_read(path);
    return Convert<T>::read(*this, path, n);
}

template <class T>
T Config::get_or(const std::string& path, const T& def) {
    UGKS_REQUIRE(valid_path(path), "invalid key path '" << path << "'");
    if (lookup(path).IsDefined()) return get<T>(path);
    set_value(path, Convert<T>::encode(def), "");
    mark_read(path);
    return def;
}

std::string Config::get_or(const std::string& path, const char* def) {
    return get_or<std::string>(path, std::string(def));
}

std::string Config::get_enum(const std::string& path,
                             const std::vector<std::string>& allowed) const {
    const std::string v = get<std::string>(path);
    if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return v;
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    const std::string hint = closest(v, allowed);
    fail(path, "'" + v + "' is not one of: " + list +
                   (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
}

std::string Config::get_enum_or(const std::string& path, const std::vector<std::string>& allowed,
                                const std::string& def) {
    UGKS_REQUIRE(std::find(allowed.begin(), allowed.end(), def) != allowed.end(),
                 "default '" << def << "' of key '" << path << "' is not an allowed value");
    if (lookup(path).IsDefined()) return get_enum(path, allowed);
    return get_or<std::string>(path, def);
}

void Config::check_range(const std::string& path, double value, double lo, double hi, bool lo_open,
                         bool hi_open) const {
    // An infinite bound is always open: "(-inf" admits every finite value and no infinite one.
    lo_open = lo_open || std::isinf(lo);
    hi_open = hi_open || std::isinf(hi);
    const bool ok = (lo_open ? value > lo : value >= lo) && (hi_open ? value < hi : value <= hi);
    if (ok) return;
    fail(path, "value " + format_double(value) + " is out of range " + (lo_open ? "(" : "[") +
                   format_double(lo) + ", " + format_double(hi) + (hi_open ? ")" : "]"));
}

bool Config::has(const std::string& path) const {
    m_queried.insert(path);
    return path.empty() || walk(m_root, path).found;
}

// Structural queries mark only containers and null values as seen: a scalar still has to be read,
// and marking it would make its ancestors count as looked at.
bool Config::is_map(const std::string& path) const {
    m_queried.insert(path);
    const YAML::Node n = lookup(path);
    if (n.IsMap() || n.IsSequence() || n.IsNull()) m_seen.insert(path);
    return n.IsMap();
}

bool Config::is_sequence(const std::string& path) const {
    m_queried.insert(path);
    const YAML::Node n = lookup(path);
    if (n.IsMap() || n.IsSequence() || n.IsNull()) m_seen.insert(path);
    return n.IsSequence();
}

std::vector<std::string> Config::keys(const std::string& path) const {
    m_queried.insert(path);
    const YAML::Node n = lookup(path);
    if (!n.IsDefined()) return {};
    if (!n.IsMap() && !n.IsNull()) fail(path, "expected a section (map), got " + describe(n));
    m_seen.insert(path);
    if (n.IsNull()) return {};
    std::vector<std::string> out;
    for (auto it = n.begin(); it != n.end(); ++it) out.push_back(it->first.Scalar());
    return out;
}

std::size_t Config::sequence_size(const std::string& path) const {
    m_queried.insert(path);
    const YAML::Node n = lookup(path);
    if (!n.IsDefined()) return 0;
    if (!n.IsSequence() && !n.IsNull()) fail(path, "expected a list, got " + describe(n));
    m_seen.insert(path);
    return n.IsNull() ? 0 : n.size();
}

// ---- messages ---------------------------------------------------------------------------------

std::string Config::location(const std::string& path) const {
    if (path.empty()) return m_name;
    for (std::string p = path; !p.empty(); p = parent_of(p)) {
        if (auto it = m_override_source.find(p); it != m_override_source.end()) return it->second;
        if (m_defaulted.count(p)) return "default";
        if (auto it = m_line.find(p); it != m_line.end())
            return m_name + ":" + std::to_string(it->second);
    }
    return "default";
}

void Config::fail(const std::string& path, const std::string& what) const {
    throw InputError(location(path) + ": key '" + path + "': " + what);
}

std::string Config::hint_for(const std::string& path) const {
    std::set<std::string> known;
    for (const auto* s : {&m_read, &m_seen, &m_queried})
        for (std::string p : *s)
            for (; !p.empty() && known.insert(p).second; p = parent_of(p)) {
            }
    const auto segs = split_path(path);
    const std::string parent = parent_of(path);
    std::vector<std::string> siblings;   // last segments of known keys next to `path`
    std::vector<std::string> elsewhere;  // known keys of the same depth under another parent
    for (const auto& k : known) {
        if (is_under(k, path) || is_under(path, k)) continue;
        if (parent_of(k) == parent)
            siblings.push_back(k.substr(parent.empty() ? 0 : parent.size() + 1));
        else if (split_path(k).size() == segs.size())
            elsewhere.push_back(k);
    }
    std::string hint = closest(segs.back(), siblings);
    if (!hint.empty()) hint = join(parent, hint);
    std::size_t idx = 0;
    if (hint.empty() && !parse_index(segs.back(), idx)) {
        // The same name in another section ("time.cfl" for "numerics.cfl").
        for (const auto& k : elsewhere) {
            if (split_path(k).back() == segs.back()) {
                hint = k;
                break;
            }
        }
    }
    return hint.empty() ? std::string() : " (did you mean '" + hint + "'?)";
}

void Config::check_unused() const {
    std::set<std::string> touched;
    for (const auto* s : {&m_read, &m_seen})
        for (std::string p : *s)
            for (; !p.empty() && touched.insert(p).second; p = parent_of(p)) {
            }
    const std::string p = first_unread(m_root, "", m_read, m_seen, touched);
    if (p.empty()) return;
    throw InputError(location(p) + ": unknown key '" + p + "'" + hint_for(p));
}

std::string Config::resolved_yaml() const {
    YAML::Emitter out;
    out << m_root;
    return std::string(out.c_str()) + "\n";
}

// ---- explicit instantiations ------------------------------------------------------------------

#define UGKS_CONFIG_INSTANTIATE(T)                       \
    template T Config::get<T>(const std::string&) const; \
    template T Config::get_or<T>(const std::string&, const T&);

using VecDouble = std::vector<double>;
using VecInt = std::vector<int>;
using VecLong = std::vector<long>;
using VecString = std::vector<std::string>;
UGKS_CONFIG_INSTANTIATE(bool)
UGKS_CONFIG_INSTANTIATE(int)
UGKS_CONFIG_INSTANTIATE(long)
UGKS_CONFIG_INSTANTIATE(long long)
UGKS_CONFIG_INSTANTIATE(double)
UGKS_CONFIG_INSTANTIATE(std::string)
UGKS_CONFIG_INSTANTIATE(VecDouble)
UGKS_CONFIG_INSTANTIATE(VecInt)
UGKS_CONFIG_INSTANTIATE(VecLong)
UGKS_CONFIG_INSTANTIATE(VecString)
UGKS_CONFIG_INSTANTIATE(Vec3)
#undef UGKS_CONFIG_INSTANTIATE

}  // namespace ugks
