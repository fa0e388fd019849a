#pragma once
// Shared by the libFuzzer targets: the input bytes as a file (the readers under test take paths),
// and the case-file parse path that the program runs on a case before the mesh is built.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "ugks/app/case_setup.hpp"
#include "ugks/core/config.hpp"
#include "ugks/core/error.hpp"
#include "ugks/mesh/sources.hpp"

namespace ugks::fuzz {

/// A temporary file holding the fuzz input, removed on destruction.
class InputFile {
public:
    InputFile(const std::uint8_t* data, std::size_t size, const char* suffix) {
        char name[] = "/tmp/ugks_fuzz_XXXXXX";
        const int fd = mkstemp(name);
        if (fd < 0) return;
        std::size_t done = 0;
        while (done < size) {
            const ssize_t n = write(fd, data + done, size - done);
            if (n <= 0) break;
            done += static_cast<std::size_t>(n);
        }
        close(fd);
        m_path = std::string(name) + suffix;
        if (std::rename(name, m_path.c_str()) != 0) m_path = name;
    }
    ~InputFile() {
        if (!m_path.empty()) std::remove(m_path.c_str());
    }
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;
    const std::string& path() const { return m_path; }
    bool ok() const { return !m_path.empty(); }

private:
    std::string m_path;
};

/// The section parsers of a case, as `ugks_solver --check` runs them: every section, the mesh
/// section, then the velocity section and the unknown-key check for mesh dimensions 1 to 3 (each on
/// a copy). Returns for how many of the dimensions the velocity section and the whole case were
/// accepted. Throws InputError for bad input; anything else escaping is a bug.
inline int parse_case(Config& cfg) {
    CaseSetup setup;
    parse_case_sections(cfg, setup);
    const MeshConfig mc = parse_mesh_config(cfg);
    (void)mc;
    int accepted = 0;
    for (int dim = 1; dim <= 3; ++dim) {
        Config c = cfg;
        CaseSetup s = setup;
        try {
            parse_velocity_section(c, s, dim);
            c.check_unused();
            ++accepted;
        } catch (const InputError&) {
        }
    }
    return accepted;
}

}  // namespace ugks::fuzz
