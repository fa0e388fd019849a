// ugks_solver: command-line entry point. See docs/usage.md for the contract.
#include <mpi.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ugks/app/run_case.hpp"
#include "ugks/app/step_observers.hpp"
#include "ugks/core/log.hpp"
#include "ugks/core/version.hpp"

namespace {

/// The options of ugks_solver into cl (and --version into version, --profile-steps as given into
/// profile_steps: parse_profile_steps checks it).
void add_options(CLI::App& app, ugks::CommandLine& cl, bool& version, std::string& profile_steps) {
    app.add_option("case", cl.case_file, "YAML case file")->type_name("CASE.yaml");
    app.add_option("--set", cl.overrides,
                   "override a case-file key, e.g. --set time.steps=100 (repeatable)")
        ->type_name("KEY.PATH=VALUE")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_option("--restart", cl.restart, "restart from a checkpoint file, or 'latest'")
        ->type_name("FILE");
    app.add_flag("--new-run", cl.new_run,
                 "start a new run (a new run id) even where output.directory holds checkpoints "
                 "of an earlier run; they are kept (a run prunes only its own checkpoints)");
    app.add_flag(
        "--check", cl.check,
        "validate the case and mesh, print the decomposition, memory and time-step estimates; "
        "write nothing");
    app.add_flag("--quiet", cl.quiet, "print only warnings and errors");
    app.add_option("--profile-steps", profile_steps,
                   "after one warm-up step, wrap the next N time steps in "
                   "cudaProfilerStart/Stop (nsys profile --capture-range=cudaProfilerApi); the "
                   "CPU backend only marks them in the log")
        ->type_name("N");
    app.add_flag("--version", version, "print the version and build information");
}

/// OpenMP threads that wait passively at the end of a parallel loop (docs/decisions.md, "OpenMP
/// wait policy"): with the runtime's default (spin, then sleep) two threads on a machine with one
/// other busy process took 2x the wall time of one thread; passive waiting costs nothing measurable
/// on a quiet machine. The runtime reads OMP_WAIT_POLICY when it is loaded, before main, so when
/// the user has set neither it nor GOMP_SPINCOUNT the process sets it and executes itself again,
/// once (UGKS_OMP_WAIT_SET marks the second start). A failed exec leaves the default in place.
void prefer_passive_omp_wait(char** argv) {
#ifdef _OPENMP
    if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT") ||
        std::getenv("UGKS_OMP_WAIT_SET"))
        return;
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    setenv("UGKS_OMP_WAIT_SET", "1", 1);
    execv("/proc/self/exe", argv);
    unsetenv("OMP_WAIT_POLICY");  // exec failed: the runtime keeps the policy it started with
#else
    (void)argv;
#endif
}

/// The value of --profile-steps: a whole number of steps >= 1; -1 for anything else.
long parse_profile_steps(const std::string& text) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return -1;
    std::size_t used = 0;
    long n = -1;
    try {
        n = std::stol(text, &used);
    } catch (const std::exception&) {
        return -1;
    }
    return used == text.size() && n >= 1 ? n : -1;
}

/// A process started without an MPI launcher (a singleton) needs no Open MPI support daemon: the
/// solver never spawns processes, and starting the daemon took 0.2 of the 0.45 s of a small run's
/// start-up (docs/usage.md "Signals and batch systems"). Only when no launcher's rank variable is
/// set and the user has not chosen; other MPI libraries ignore the variable.
void isolated_singleton() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE",
                          "OMPI_MCA_ess_singleton_isolated"})
        if (std::getenv(v)) return;
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
}

}  // namespace

int main(int argc, char** argv) {
    isolated_singleton();
    prefer_passive_omp_wait(argv);
    // Before MPI_Init, which can take long on a loaded cluster: a SIGTERM then is not lost.
    ugks::install_stop_handlers();
    // The threads MPI and OpenMP start inherit blocked stop signals, so that a signal always
    // reaches the main thread; in particular while GKlib (inside METIS) has its own SIGTERM handler
    // in place, which may only run on the thread that called METIS (src/parallel/partition.cpp).
    ugks::block_stop_signals(true);
    MPI_Init(&argc, &argv);
#pragma omp parallel
    {  // start the OpenMP thread pool now (the threads are kept for the later parallel loops)
    }
    ugks::block_stop_signals(false);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ugks::log::state().rank = rank;

    ugks::CommandLine cl;
    bool version = false;
    CLI::App app{
        "ugks_solver: unified gas-kinetic scheme solver for rarefied to continuum gas flows.\n"
        "Run with mpirun/srun; exit codes: 0 success, 2 bad input, 3 numerical failure "
        "(also a diverging, blown-up or stagnating steady iteration), 4 stopped by a signal after "
        "a "
        "checkpoint, 5 steady state not reached within time.steps, 1 other failure.",
        "ugks_solver"};
    std::string profile_steps;
    add_options(app, cl, version, profile_steps);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help is a "successful" parse error; everything else is bad input (exit 2).
        if (rank == 0) app.exit(e);
        MPI_Finalize();
        return ugks::exit_code(e.get_exit_code() == 0 ? ugks::RunOutcome::Success
                                                      : ugks::RunOutcome::BadInput);
    }
    if (version) {
        if (rank == 0)
            std::printf("ugks_solver %s (commit %s, backend %s, %s build)\n", ugks::version_string,
                        ugks::git_commit, ugks::backend_name, ugks::build_type);
        MPI_Finalize();
        return ugks::exit_code(ugks::RunOutcome::Success);
    }
    if (app.count("--profile-steps") > 0) cl.profile_steps = parse_profile_steps(profile_steps);
    if (cl.profile_steps < 0) {
        if (rank == 0)
            std::fprintf(stderr,
                         "ugks_solver: error: --profile-steps: expected a whole number of time "
                         "steps >= 1, got '%s'\n",
                         profile_steps.c_str());
        MPI_Finalize();
        return ugks::exit_code(ugks::RunOutcome::BadInput);
    }
    if (cl.case_file.empty()) {
        if (rank == 0)
            std::fprintf(
                stderr,
                "ugks_solver: error: missing the case file argument (CASE.yaml); see --help\n");
        MPI_Finalize();
        return ugks::exit_code(ugks::RunOutcome::BadInput);
    }
    ugks::log::state().quiet = cl.quiet;
    const int code = ugks::run_case(cl);
    MPI_Finalize();
    return code;
}
