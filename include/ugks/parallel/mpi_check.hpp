#pragma once
/// MPI error checking (docs/style.md b3). The solver's communicators carry MPI_ERRORS_RETURN, so
/// MPI calls return their error code; UGKS_MPI_CHECK turns a failure into "[rank r] file:line: MPI
/// call ... failed: <MPI_Error_string>" and MPI_Abort (an internal error, not an input error).
#include <mpi.h>

#include "ugks/core/error.hpp"

namespace ugks::detail {
/// Report a failed MPI call and abort all ranks (never returns).
[[noreturn]] void mpi_check_fail(int err, const char* expr, const char* file, int line);
}  // namespace ugks::detail

#ifndef UGKS_MPI_CHECK
#define UGKS_MPI_CHECK(expr)                                                          \
    do {                                                                              \
        const int ugks_mpi_err_ = (expr);                                             \
        if (ugks_mpi_err_ != MPI_SUCCESS)                                             \
            ::ugks::detail::mpi_check_fail(ugks_mpi_err_, #expr, __FILE__, __LINE__); \
    } while (0)
#endif
