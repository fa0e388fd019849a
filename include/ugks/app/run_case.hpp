#pragma once
#include <string>
#include <vector>

namespace ugks {

/// Command-line options of ugks_solver (docs/architecture.md section 2).
struct CommandLine {
    std::string case_file;
    std::vector<std::string> overrides;  ///< --set key.path=value
    std::string restart;                 ///< --restart FILE | latest
    bool new_run = false;  ///< --new-run: a new run id even over other runs' checkpoints
    bool check = false;    ///< --check: validate, print decomposition and estimates, write nothing
    bool quiet = false;
    /// --profile-steps N: after one warm-up step, the next N time steps lie between
    /// cudaProfilerStart and cudaProfilerStop (CPU backend: only marked in the log); 0: off.
    long profile_steps = 0;
};

/// How a run (or the command line) ended. exit_code() is the one place where an outcome becomes
/// the exit code of ugks_solver (docs/usage.md): 0 success (also --check, --help, --version), 2 bad
/// input, 3 numerical failure, 4 stopped by a signal after a checkpoint, 1 any other failure.
enum class RunOutcome {
    Success,
    BadInput,
    NumericalFailure,
    StoppedBySignal,
    NotConverged,
    Failure
};
int exit_code(RunOutcome outcome);

/// Run a case on MPI_COMM_WORLD. Every rank returns the same exit code (0, 2 input, 3 numerical,
/// 4 signal, 1 other); error messages are printed once, by rank 0, on stderr.
int run_case(const CommandLine& cl);

}  // namespace ugks
