// run_case: the pipeline of a run. The case file is read once; mode overset goes to
// overset_driver.cpp, mode ugks through the stages of run_stages.hpp: build the problem, check the
// resources, (--check ends here) prepare the outputs, start the solver, the time loop with its
// observers (step_observers.hpp), the summary. What a run's end means for the exit code is decided
// in exit_code() and guarded() below, nowhere else.
#include <mpi.h>

#include <algorithm>
#include <chrono>

#include "ugks/app/auto_tune.hpp"
#include "ugks/app/overset_driver.hpp"
#include "ugks/app/run_case.hpp"
#include "ugks/app/run_stages.hpp"
#include "ugks/app/step_observers.hpp"
#include "ugks/core/error.hpp"
#include "ugks/core/log.hpp"
#include "ugks/core/timer.hpp"
#include "ugks/core/traffic.hpp"
#include "ugks/device/device.hpp"

namespace ugks {

int exit_code(RunOutcome outcome) {
    switch (outcome) {
        case RunOutcome::Success:
            return kExitSuccess;
        case RunOutcome::BadInput:
            return kExitInput;
        case RunOutcome::NumericalFailure:
            return kExitNumerical;
        case RunOutcome::StoppedBySignal:
            return kExitSignal;
        case RunOutcome::NotConverged:
            return kExitNotConverged;
        case RunOutcome::Failure:
            break;
    }
    return kExitFailure;
}

namespace {

/// The outcome of body(); an exception it throws is reported (once, by rank 0, on stderr) and
/// becomes the outcome of its class: InputError bad input, NumericalError numerical failure,
/// anything else failure.
template <class Body>
RunOutcome guarded(Body&& body) {
    try {
        return body();
    } catch (const StoppedDuringStartup& e) {
        log::error(
            "ugks_solver: stopped by {}: {}, before the first step of this run; nothing was "
            "written (run the same command again to start)",
            signal_name(e.signal()), e.what());
        return RunOutcome::StoppedBySignal;
    } catch (const InputError& e) {
        log::error("ugks_solver: input error: {}", e.what());
        return RunOutcome::BadInput;
    } catch (const NumericalError& e) {
        log::error("ugks_solver: numerical failure: {}", e.what());
        return RunOutcome::NumericalFailure;
    } catch (const std::exception& e) {
        log::error("ugks_solver: error: {}", e.what());
        return RunOutcome::Failure;
    }
}

/// The start of a run: wall clock and resident set before anything is read, the "total" and
/// "setup" timers (build_problem stops "setup").
RunStart begin_run() {
    RunStart start{std::chrono::steady_clock::now(), process_memory()};
    timers().start("total");
    timers().start("setup");
    return start;
}

/// The case file with the --set overrides, read once for both modes (every rank reads it; errors
/// agree).
Config load_case(const CommandLine& cl) {
    Config cfg;
    run_collective(MPI_COMM_WORLD, [&] {
        cfg = Config::from_file(cl.case_file);
        for (const auto& o : cl.overrides) cfg.apply_override(o);
    });
    return cfg;
}

/// Another step is due: below time.steps and, with time.end_time, before it.
bool step_due(const RunContext& ctx) {
    const TimeConfig& tc = ctx.pb.setup.time;
    return ctx.solver.step_count() < tc.steps &&
           (tc.end_time <= 0 || ctx.solver.time() < tc.end_time * (1 - 1e-14));
}

/// --profile-steps N: the capture range of the profiler around the N steps after the first of this
/// run (the warm-up step); on the CPU backend only the log marks them.
class ProfileWindow {
public:
    explicit ProfileWindow(const RunContext& ctx) : m_ctx(ctx), m_n(ctx.cl.profile_steps) {}
    /// Before the step that follows `done` steps of this run.
    void before_step(long done) {
        if (m_n <= 0 || done != 1 || m_open) return;
        m_gpu = device::profiler_start();
        m_open = true;
        m_first = m_ctx.solver.step_count() + 1;
        if (m_gpu)
            log::info("profile: cudaProfilerStart before step {} ({} steps, after 1 warm-up step)",
                      m_first, m_n);
        else
            log::info(
                "profile: steps {}..{} are the profiled steps (CPU backend: no profiler capture "
                "range, only this mark)",
                m_first, m_first + m_n - 1);
    }
    /// After a step; `done` steps of this run so far.
    void after_step(long done) {
        if (m_open && done == 1 + m_n) close();
    }
    /// The end of the loop: a range still open closes here (fewer steps than asked).
    void finish() {
        if (m_n <= 0) return;
        if (!m_open && m_first < 0) {
            log::info(
                "profile: --profile-steps {}: the run ended before a step after the warm-up "
                "step; nothing profiled",
                m_n);
            return;
        }
        if (m_open) close();
    }

private:
    void close() {
        if (m_gpu) device::profiler_stop();
        m_open = false;
        const long last = m_ctx.solver.step_count();
        const long got = last - m_first + 1;
        log::info("profile: {} after step {} ({} of {} steps profiled)",
                  m_gpu ? "cudaProfilerStop" : "end of the profiled steps", last, got, m_n);
    }
    const RunContext& m_ctx;
    long m_n = 0, m_first = -1;
    bool m_open = false, m_gpu = false;
};

/// The time loop: steps until time.steps or time.end_time, a failed step, or an observer's stop.
/// The bytes moved inside the steps are summed into end.step_traffic.
LoopEnd time_loop(const RunContext& ctx, const std::vector<StepObserver*>& observers) {
    for (StepObserver* o : observers) o->on_start(ctx);
    LoopEnd end;
    ProfileWindow profile(ctx);
    const auto t_loop = std::chrono::steady_clock::now();
    while (step_due(ctx)) {
        profile.before_step(end.steps);
        const TrafficCounts before = traffic_snapshot();
        const StepResult r = ctx.solver.step();
        end.step_traffic += traffic_snapshot() - before;
        if (r.failed) {
            end.failure = r.failure;
            break;
        }
        end.last = r;
        ++end.steps;
        profile.after_step(end.steps);
        if (std::any_of(observers.begin(), observers.end(),
                        [&](StepObserver* o) { return o->on_step(ctx, r); }))
            break;
    }
    profile.finish();
    end.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_loop).count();
    for (auto o = observers.rbegin(); o != observers.rend(); ++o) (*o)->on_end(ctx, end);
    return end;
}

/// Stages 4 to 6 of mode ugks: outputs, solver, time loop, summary.
RunOutcome run_loop(const CommandLine& cl, Problem& pb, const Resources& res,
                    const RunStart& start) {
    prepare_output_directory(pb);
    StepSolver solver(pb.setup, pb.local, pb.layout, pb.vel, pb.blocks);
    run_collective(MPI_COMM_WORLD, [&] { solver.initialize(); });
    const RunOrigin origin = restart_solver(solver, pb, cl);
    check_stop_during_startup("after the initial state");
    const RunContext ctx{
        cl, pb, solver, pb.setup.output.directory, origin.checkpoint, origin.run_id, start};
    // on_step in this order, on_end in the reverse one (step_observers.hpp)
    SurfaceOutputObserver surface;
    ProbeOutputObserver probes;
    HistoryObserver history;
    ProgressObserver progress;
    FieldOutputObserver fields;
    CheckpointObserver checkpoints;
    SteadyStateObserver steady(pb.setup);
    const std::vector<StepObserver*> observers{&surface, &probes,      &history, &progress,
                                               &fields,  &checkpoints, &steady};
    const LoopEnd end = time_loop(ctx, observers);
    if (!end.failure.empty())
        throw NumericalError(end.failure + " (fields_final.h5 holds the last good state)");
    nlohmann::json entries = nlohmann::json::object();
    for (const StepObserver* o : observers) o->summarize(entries);
    write_summary(ctx, res, end, entries);
    RunOutcome outcome = RunOutcome::Success;
    if (const int sig = checkpoints.stop_signal()) {
        log::error("ugks_solver: stopped by {} after step {}; continue with --restart latest",
                   signal_name(sig), solver.step_count());
        outcome = RunOutcome::StoppedBySignal;
    } else if (!steady.failure().empty()) {
        log::error("ugks_solver: numerical failure: {}", steady.failure());
        outcome = RunOutcome::NumericalFailure;
    } else if (steady.not_converged()) {
        outcome = RunOutcome::NotConverged;
    }
    free_layout(pb.layout);
    return outcome;
}

/// Mode ugks: stages 1 to 3, then (without --check) the run.
RunOutcome run_ugks_case(const CommandLine& cl, Config cfg, const RunStart& start) {
    if (cl.check)
        restore_default_stop_handlers();
    else
        install_stop_handlers();
    Problem pb = build_problem(std::move(cfg));
    if (!cl.check) check_stop_during_startup("after reading the case and the mesh");
    const ParallelConfig& par = pb.setup.parallel;
    if (cl.check && (par.block_size_auto || par.velocity_ranks_auto))
        log::info(
            "parallel.block_size / velocity_ranks auto: measured at the start of the run; the "
            "estimates below are for B_v {} and P_v {}",
            par.block_size, par.velocity_ranks);
    if (!cl.check) tune_decomposition(pb);
    log_start(pb, cl);
    const Resources res = check_resources(pb);
    if (!cl.check) check_stop_during_startup("after the resource checks");
    if (!cl.check) return run_loop(cl, pb, res, start);
    log::info("check passed: nothing written");
    free_layout(pb.layout);
    return RunOutcome::Success;
}

}  // namespace

int run_case(const CommandLine& cl) {
    const RunOutcome outcome = guarded([&] {
        const RunStart start = begin_run();
        Config cfg = load_case(cl);
        if (is_overset_case(cfg)) {
            restore_default_stop_handlers();   // no checkpoints: a stop signal ends the process
            return run_overset_case(cl, cfg);  // overset_driver.cpp
        }
        return run_ugks_case(cl, std::move(cfg), start);
    });
    // Every rank leaves together, after rank 0 has written summary.json (callers may read it at
    // once).
    MPI_Barrier(MPI_COMM_WORLD);
    return exit_code(outcome);
}

}  // namespace ugks
