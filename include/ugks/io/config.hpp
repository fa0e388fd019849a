#pragma once
#include <yaml-cpp/yaml.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ugks/core/types.hpp"

namespace ugks {

/// Strict YAML case file (style.md b5). Wraps a yaml-cpp tree; every key read is recorded, and after
/// set-up check_unused() turns any key never read into an InputError naming the key path and line.
///
/// Key paths are dot-separated; a numeric segment indexes a sequence ("output.probes.0.name").
/// Every error message names the key path and where the value came from: "case.yaml:12" or
/// "--set time.steps=abc".
class Config {
public:
    /// Read a case file. Missing/unreadable file or YAML syntax error (with its line) -> InputError.
    static Config from_file(const std::string& path);
    /// Parse YAML text; `name` is used in messages in place of the file name.
    static Config from_string(const std::string& text, const std::string& name = "<string>");

    /// Apply a command-line override "a.b.c=value". The value is parsed as YAML (scalar, [flow list] or
    /// {flow map}); intermediate maps are created. Malformed assignment -> InputError.
    void apply_override(const std::string& assignment);

    /// Required key of type T (bool, int, int64_t, double, std::string, std::vector<double|int|std::string>,
    /// Vec3). Missing key or wrong type -> InputError with path and location.
    template <class T>
    T get(const std::string& path) const;
    /// Optional key; when absent, `def` is written into the resolved tree and returned.
    template <class T>
    T get_or(const std::string& path, const T& def);

    /// Required/optional string restricted to `allowed`; otherwise InputError with a "did you mean" hint.
    std::string get_enum(const std::string& path, const std::vector<std::string>& allowed) const;
    std::string get_enum_or(const std::string& path, const std::vector<std::string>& allowed,
                            const std::string& def);

    /// Range checks for a value already read: throw InputError "key 'a.b' (file:line): value X is out of
    /// range [lo, hi]" (use +-inf for an open side; `lo_open`/`hi_open` exclude the bound).
    void check_range(const std::string& path, double value, double lo, double hi, bool lo_open = false,
                     bool hi_open = false) const;

    bool has(const std::string& path) const;
    /// Is the node at path a map / a sequence?
    bool is_map(const std::string& path) const;
    bool is_sequence(const std::string& path) const;
    /// Child keys of a map in file order (marks the map itself as read, not its children).
    std::vector<std::string> keys(const std::string& path) const;
    /// Number of entries of a sequence (0 when absent).
    std::size_t sequence_size(const std::string& path) const;

    /// "case.yaml:12" for a key from the file, "--set a.b=c" for an override, "default" otherwise.
    std::string location(const std::string& path) const;
    /// Throw an InputError "<location>: key 'path': <what>".
    [[noreturn]] void fail(const std::string& path, const std::string& what) const;

    /// Every leaf key that was never read -> InputError naming the first one (file order), its line and
    /// the closest known key. Call after all modules have parsed their sections.
    void check_unused() const;

    /// The resolved configuration (file + overrides + defaults) as YAML text.
    std::string resolved_yaml() const;
    /// The case file path ("" for from_string).
    const std::string& file() const { return m_file; }
    const YAML::Node& root() const { return m_root; }

private:
    YAML::Node lookup(const std::string& path) const;  // invalid node when absent
    void mark_read(const std::string& path) const;
    std::string m_file;
    std::string m_name;
    YAML::Node m_root;
    std::map<std::string, std::string> m_override_source;  // path -> "--set ..."
    std::set<std::string> m_defaulted;                     // paths filled from defaults
    mutable std::set<std::string> m_read;                  // paths read (leaves and maps)
};

}  // namespace ugks
