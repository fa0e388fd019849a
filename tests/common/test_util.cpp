#include "test_util.hpp"

#include <mpi.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "ugks/core/error.hpp"

namespace ugks::test {

std::string temp_dir(const std::string& tag) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char buf[4096] = {0};
    if (rank == 0) {
        const char* base = std::getenv("TMPDIR");
        std::string tmpl = std::string(base ? base : "/tmp") + "/ugks_" + tag + "_XXXXXX";
        std::snprintf(buf, sizeof buf, "%s", tmpl.c_str());
        if (!mkdtemp(buf)) buf[0] = 0;
    }
    MPI_Bcast(buf, sizeof buf, MPI_CHAR, 0, MPI_COMM_WORLD);
    return buf;
}

void write_file(const std::string& path, const std::string& text) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        std::filesystem::create_directories(std::filesystem::path(path).parent_path());
        std::ofstream(path) << text;
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

std::string data_path(const std::string& name) {
    return std::string(UGKS_TEST_DATA_DIR) + "/" + name;
}

int run_command(const std::string& cmd, std::string& output) {
    output.clear();
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    if (!p) return -1;
    std::array<char, 4096> buf{};
    while (fgets(buf.data(), buf.size(), p)) output += buf.data();
    const int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::string input_error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "<no InputError>";
}

}  // namespace ugks::test
