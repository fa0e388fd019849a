#include "ugks/core/error.hpp"

#include <mpi.h>

#include <cstdio>

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
