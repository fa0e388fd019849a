#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace ugks {

/// Exit codes of ugks_solver (docs/architecture.md section 2).
enum ExitCode : int {
    kExitSuccess = 0,
    kExitFailure = 1,       ///< anything else (internal error)
    kExitInput = 2,         ///< bad input: case file, mesh, velocity file, command line, checkpoint
    kExitNumerical = 3,     ///< non-finite value or non-positive density/temperature; a steady
                            ///< iteration that diverges or stagnates
    kExitSignal = 4,        ///< stopped by a signal after writing a checkpoint
    kExitNotConverged = 5,  ///< time.mode steady: time.steps ended the run before the stop rule
};

/// Bad user input. The message names the key path / file and line. main() turns it into exit
/// code 2.
class InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& msg) : std::runtime_error(msg) {}
};

/// Numerical failure (exit code 3): the message names the cell, its coordinates and the step.
class NumericalError : public std::runtime_error {
public:
    explicit NumericalError(const std::string& msg) : std::runtime_error(msg) {}
};

/// Why `path` cannot be read as an input file, one `stat`, nothing opened: empty for a regular
/// file; else the words that follow the file's name in a message: "does not exist", "is a
/// directory", "is not a regular file (a FIFO)" (a device, a socket), or "cannot be examined: "
/// and the system's message (e.g. a symlink loop: "Too many levels of symbolic links").
std::string input_file_problem(const std::string& path);

namespace detail {
[[noreturn]] void internal_fail(const std::string& msg, const char* file, int line);
}  // namespace detail

}  // namespace ugks

/// Always-on check of an internal invariant; on failure prints file:line and aborts all ranks.
#define UGKS_REQUIRE(cond, msg)                                                \
    do {                                                                       \
        if (!(cond)) {                                                         \
            std::ostringstream ugks_os_;                                       \
            ugks_os_ << "requirement failed: " #cond ": " << msg;              \
            ::ugks::detail::internal_fail(ugks_os_.str(), __FILE__, __LINE__); \
        }                                                                      \
    } while (0)

/// Throw an InputError built from a stream expression: UGKS_INPUT_ERROR("key 'a.b': " << x).
#define UGKS_INPUT_ERROR(msg)                     \
    do {                                          \
        std::ostringstream ugks_os_;              \
        ugks_os_ << msg;                          \
        throw ::ugks::InputError(ugks_os_.str()); \
    } while (0)

#ifndef NDEBUG
#define UGKS_ASSERT(cond) UGKS_REQUIRE(cond, "debug assertion")
#else
#define UGKS_ASSERT(cond) ((void)0)
#endif
