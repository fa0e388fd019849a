#include "ugks/core/error.hpp"

#include <mpi.h>

#include <cstdio>
#include <filesystem>

namespace ugks {

std::string input_file_problem(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec && ec != std::errc::no_such_file_or_directory)
        return "cannot be examined: " + ec.message();
    if (!fs::exists(st)) return "does not exist";
    if (fs::is_directory(st)) return "is a directory";
    if (fs::is_regular_file(st)) return "";
    return std::string("is not a regular file (") +
           (fs::is_fifo(st)             ? "a FIFO"
            : fs::is_character_file(st) ? "a character device"
            : fs::is_block_file(st)     ? "a block device"
            : fs::is_socket(st)         ? "a socket"
                                        : "not a file") +
           ")";
}

}  // namespace ugks

namespace ugks::detail {

[[noreturn]] void internal_fail(const std::string& msg, const char* file, int line) {
    int rank = 0;
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "[rank %d] %s:%d: %s\n", rank, file, line, msg.c_str());
    std::fflush(stderr);
    if (initialized) MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();
}

}  // namespace ugks::detail
