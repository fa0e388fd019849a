#pragma once
// Shared by the libFuzzer targets: the input bytes as a file (the readers under test take paths).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

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

}  // namespace ugks::fuzz
