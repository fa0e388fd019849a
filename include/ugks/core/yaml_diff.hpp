#pragma once
#include <string>
#include <vector>

namespace ugks {

/// One value that differs between two YAML documents: its key path (dot-separated, sequence
/// entries by index, as Config names keys) and its text before and after ("(absent)" where one side
/// lacks the key).
struct YamlChange {
    std::string path, before, after;
};

/// The leaves (scalars, empty maps and lists) that differ between YAML texts `before` and
/// `after`, in the order of `after` then the keys only `before` has. Scalars that both read as
/// numbers compare as numbers (1 equals 1.0); other scalars compare as text. A text that does not
/// parse -> InputError naming `what`.
std::vector<YamlChange> yaml_changes(const std::string& before, const std::string& after,
                                     const std::string& what);

}  // namespace ugks
