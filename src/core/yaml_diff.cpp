// Differences between two YAML documents, leaf by leaf (yaml_diff.hpp): what a restart compares
// between the configuration stored in a checkpoint and the case it is continued with.
#include "ugks/core/yaml_diff.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <utility>

#include "ugks/core/error.hpp"

namespace ugks {
namespace {

/// Leaves of `node` under `path` into `out` (in document order), their text as written.
void flatten(const YAML::Node& node, const std::string& path,
             std::vector<std::pair<std::string, std::string>>& out, int depth = 0) {
    if (depth > 64) UGKS_INPUT_ERROR("'" << path << "': nested more than 64 levels deep");
    auto child = [&](const std::string& key) { return path.empty() ? key : path + "." + key; };
    if (node.IsMap() && node.size() > 0) {
        for (const auto& kv : node) flatten(kv.second, child(kv.first.Scalar()), out, depth + 1);
    } else if (node.IsSequence() && node.size() > 0) {
        for (std::size_t i = 0; i < node.size(); ++i)
            flatten(node[i], child(std::to_string(i)), out, depth + 1);
    } else if (node.IsMap()) {
        out.push_back({path, "{}"});
    } else if (node.IsSequence()) {
        out.push_back({path, "[]"});
    } else if (node.IsNull()) {
        out.push_back({path, "null"});
    } else {
        out.push_back({path, node.Scalar()});
    }
}

std::vector<std::pair<std::string, std::string>> leaves(const std::string& text,
                                                        const std::string& what) {
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        UGKS_INPUT_ERROR(what << ": not YAML: " << e.what());
    }
    std::vector<std::pair<std::string, std::string>> out;
    flatten(root, "", out);
    return out;
}

bool as_number(const std::string& s, double& v) {
    if (s.empty()) return false;
    char* end = nullptr;
    errno = 0;
    v = std::strtod(s.c_str(), &end);
    return end && *end == '\0' && errno == 0 && !std::isnan(v);
}

bool same_value(const std::string& a, const std::string& b) {
    if (a == b) return true;
    double x = 0, y = 0;
    return as_number(a, x) && as_number(b, y) && x == y;
}

}  // namespace

std::vector<YamlChange> yaml_changes(const std::string& before, const std::string& after,
                                     const std::string& what) {
    const auto a = leaves(before, what), b = leaves(after, what);
    std::map<std::string, std::string> in_a(a.begin(), a.end()), in_b(b.begin(), b.end());
    std::vector<YamlChange> out;
    for (const auto& [path, value] : b) {
        const auto it = in_a.find(path);
        if (it == in_a.end())
            out.push_back({path, "(absent)", value});
        else if (!same_value(it->second, value))
            out.push_back({path, it->second, value});
    }
    for (const auto& [path, value] : a)
        if (!in_b.count(path)) out.push_back({path, value, "(absent)"});
    return out;
}

}  // namespace ugks
