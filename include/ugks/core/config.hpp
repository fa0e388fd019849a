#pragma once
#include <yaml-cpp/yaml.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ugks/core/types.hpp"

namespace ugks {

/// Strict YAML case file (docs/style.md b5). Wraps a yaml-cpp tree; every key read is recorded, and
/// after set-up check_unused() turns any key never read into an InputError naming path and line.
///
/// Key paths are dot-separated; a numeric segment indexes a sequence ("output.probes.0.name").
/// Every error message names the key path and where the value came from: "case.yaml:12" or
/// "--set time.steps=abc".
class Config {
public:
    /// An empty configuration (a root map without keys), named "<empty>" in messages.
    Config();
    /// Copies are deep: the copy owns its own tree and read record (yaml-cpp nodes alias on copy).
    Config(const Config& other);
    Config& operator=(const Config& other);
    Config(Config&& other) noexcept;
    Config& operator=(Config&& other) noexcept;
    ~Config() = default;

    /// Read a case file (UTF-8 text). Missing/unreadable file, bytes that are not UTF-8 or a NUL
    /// (line:column and byte offset), YAML syntax error (line:column), duplicate key (both lines),
    /// a key containing '.', or a root that is not a map -> InputError. Every place an alias refers
    /// to gets a copy of its own: an override or default written there changes that place only.
    static Config from_file(const std::string& path);
    /// Parse YAML text; `name` is used in messages in place of the file name.
    static Config from_string(const std::string& text, const std::string& name = "<string>");

    /// Limits on a case file and on each override value, each an InputError when passed: nesting
    /// levels (an alias inside the node it refers to is refused at once), nodes, the nodes that
    /// aliases add (each place an alias refers to gets a copy of its own; "billion laughs" are
    /// refused), and the bytes of all key paths (long names nested deep).
    static constexpr int kMaxDepth = 64;
    static constexpr std::size_t kMaxNodes = 500000;
    static constexpr std::size_t kMaxAliasNodes = 10000;
    static constexpr std::size_t kMaxPathBytes = std::size_t{16} << 20;

    /// Apply a command-line override "a.b.c=value". The value is parsed as YAML (scalar, [flow
    /// list] or {flow map}); intermediate maps are created; a numeric segment indexes an existing
    /// list entry (or appends when it equals the list size). Later errors on the key name "--set
    /// a.b.c=value". Malformed assignment (no '=', empty key or segment, YAML error in the value,
    /// bytes that are not UTF-8, more than kMaxDepth levels) -> InputError.
    /// `--set a.b.c=null` (or `~`) removes the key a.b.c that the case file sets (its default, if
    /// it has one, applies again); a key the case does not set -> InputError naming the --set.
    void apply_override(const std::string& assignment);

    /// Mark the key and everything below it as used without reading it (check_unused then does not
    /// report it): a key the case holds that does not apply to this run. Absent key: nothing.
    void ignore(const std::string& path) const;

    /// Required key of type T: bool, int, long, long long (int64_t/index_t), double, std::string,
    /// std::vector<double|int|long|std::string>, Vec3 (a list of 1..3 numbers, missing entries 0).
    /// Integers must be integer literals; doubles accept .inf/inf but not NaN; bools take what
    /// yaml-cpp accepts (true/false/yes/no/on/off). Missing key or wrong type -> InputError with
    /// path and location.
    template <class T>
    T get(const std::string& path) const;
    /// Optional key; when absent, `def` is written into the resolved tree (location "default") and
    /// returned. An empty (null) parent section is turned into a map.
    template <class T>
    T get_or(const std::string& path, const T& def);
    /// get_or for a string literal default (avoids T = char[N]).
    std::string get_or(const std::string& path, const char* def);

    /// Required/optional string restricted to `allowed`; otherwise InputError listing them, with
    /// a "did you mean" hint for a near miss.
    std::string get_enum(const std::string& path, const std::vector<std::string>& allowed) const;
    std::string get_enum_or(const std::string& path, const std::vector<std::string>& allowed,
                            const std::string& def);

    /// Range check for a value already read: throw InputError "case.yaml:9: key 'numerics.cfl':
    /// value 1.7 is out of range (0, 1]" (use +-inf for an unbounded side; `lo_open`/`hi_open`
    /// exclude the bound). NaN is always out of range.
    void check_range(const std::string& path, double value, double lo, double hi,
                     bool lo_open = false, bool hi_open = false) const;

    /// Does the key exist (a null value counts)? Does not mark the key as read. "" is the root.
    bool has(const std::string& path) const;
    /// Is the node at path a map / a sequence? (false when absent; marks the node as seen, which
    /// only keeps an empty map/list or null value from being reported by check_unused()).
    bool is_map(const std::string& path) const;
    bool is_sequence(const std::string& path) const;
    /// Child keys of a map in file order ({} when absent or null; "" is the root). Marks the map
    /// itself as seen, not its children. A value that is not a map -> InputError.
    std::vector<std::string> keys(const std::string& path) const;
    /// Number of entries of a sequence (0 when absent or null); not a list -> InputError.
    std::size_t sequence_size(const std::string& path) const;

    /// "case.yaml:12" for a key from the file, "--set a.b=c" for an override, "default" otherwise.
    std::string location(const std::string& path) const;
    /// Throw an InputError "<location>: key 'path': <what>".
    [[noreturn]] void fail(const std::string& path, const std::string& what) const;

    /// The first key never read (file order) -> InputError "case.yaml:14: unknown key 'a.b' (did
    /// you mean 'a.c'?)"; a key nothing below which was read is reported as a whole, an override
    /// with its "--set" text. Call after all modules have parsed their sections.
    void check_unused() const;

    /// The resolved configuration (file + overrides + defaults) as YAML text.
    std::string resolved_yaml() const;
    /// The case file path ("" for from_string).
    const std::string& file() const { return m_file; }
    /// The name used in messages: the file path, or from_string's `name`.
    const std::string& name() const { return m_name; }
    /// The resolved tree. Read only: yaml-cpp nodes alias, so do not modify copies of it.
    const YAML::Node& root() const { return m_root; }

private:
    YAML::Node lookup(const std::string& path) const;  // invalid node when absent
    void mark_read(const std::string& path) const;
    // --set key=null: remove `path` from the tree (InputError naming `source` when absent).
    void remove_key(const std::string& path, const std::string& source);
    void load_text(const std::string& text);
    // Validate keys (scalar, no '.', no duplicates) under `node`, the value at `path`; record file
    // lines when `lines`. Bounded (kMaxDepth, kMaxNodes, kMaxAliasNodes, kMaxPathBytes); a node
    // that aliases share is walked once, so the cost follows the text, not the expansion.
    void scan(const YAML::Node& node, const std::string& path, const std::string& origin,
              bool lines);
    // Set `value` at `path`, creating maps; new nodes take the provenance `source` ("": default).
    void set_value(const std::string& path, const YAML::Node& value, const std::string& source);
    [[noreturn]] void fail_missing(const std::string& path) const;
    std::string hint_for(const std::string& path) const;
    std::string m_file;
    std::string m_name;
    YAML::Node m_root;
    std::map<std::string, int> m_line;                     // path -> 1-based line in the file
    std::map<std::string, std::string> m_override_source;  // path -> "--set ..."
    std::set<std::string> m_defaulted;                     // paths filled from defaults
    mutable std::set<std::string> m_read;                  // paths whose whole value was read
    mutable std::set<std::string> m_seen;                  // maps/lists looked at via keys() etc.
    mutable std::set<std::string> m_queried;               // every path asked for (hints only)
};

}  // namespace ugks
