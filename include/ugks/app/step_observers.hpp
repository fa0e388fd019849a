#pragma once
// The duties of the time loop of a UGKS-mode run, one StepObserver each (docs/usage.md,
// "Outputs"): history.csv, the progress line, field output, checkpoints with the stop on a signal,
// the steady-state rules, the probes and the wall surface output. run_case_driver.cpp calls them
// in a fixed order; every call is made on every rank (collective where the duty is).
#include <chrono>
#include <cmath>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ugks/app/output_units.hpp"
#include "ugks/app/run_stages.hpp"
#include "ugks/app/steady_monitor.hpp"
#include "ugks/io/reports.hpp"
#include "ugks/io/surface_io.hpp"

namespace ugks {

/// One duty of the time loop.
class StepObserver {
public:
    virtual ~StepObserver() = default;
    /// Before the first step.
    virtual void on_start(const RunContext&) {}
    /// After every successful step; true stops the loop at once (the observers after this one do
    /// not see the step).
    virtual bool on_step(const RunContext&, const StepResult&) { return false; }
    /// After the loop, also after a failed step; called in the reverse order of on_step, so that
    /// the states written last in a step (the checkpoint) are also written first at the end.
    virtual void on_end(const RunContext&, const LoopEnd&) {}
    /// Its entries of summary.json (rank 0).
    virtual void summarize(nlohmann::json&) const {}
};

/// Stop request of SIGTERM, SIGINT or SIGUSR1 (Slurm's --signal warning): the handler only sets a
/// flag; the checkpoint observer agrees on it collectively after every step, writes a checkpoint
/// and stops the loop (exit code 4). Repeated SIGTERM/SIGUSR1 (launchers may deliver one signal
/// twice) are absorbed; a second SIGINT (Ctrl-C) takes the default action, so an interactive run
/// can still be killed at once. main() installs them before MPI_Init, so that a signal during
/// start-up is not lost (it is acted on by check_stop_during_startup or after the first step);
/// installing again keeps a signal already received.
void install_stop_handlers();
/// Block (true) or unblock (false) the stop signals in the calling thread. main() blocks them
/// before MPI_Init and the OpenMP thread pool exist and unblocks them afterwards in the main thread
/// only: the threads of the libraries inherit the block, so a stop signal always reaches the main
/// thread (the METIS partition blocks SIGTERM there too: src/parallel/partition.cpp).
void block_stop_signals(bool block);
/// "SIGTERM", "SIGINT", "SIGUSR1" ("a signal" for any other).
const char* signal_name(int sig);
/// The default actions again (overset mode and --check, which have no checkpoint to write); a stop
/// signal received before is raised again, so that the process ends as the signal asks.
void restore_default_stop_handlers();

/// A stop signal that arrived during start-up, before the first step (check_stop_during_startup):
/// exit 4 with nothing written.
class StoppedDuringStartup : public std::runtime_error {
public:
    StoppedDuringStartup(int sig, const std::string& stage)
        : std::runtime_error(std::string(signal_name(sig)) + " received during start-up (" + stage +
                             ")"),
          m_signal(sig) {}
    int signal() const { return m_signal; }

private:
    int m_signal;
};
/// Collective over MPI_COMM_WORLD: when any rank has received a stop signal, every rank throws
/// StoppedDuringStartup naming `stage` (the set-up step just finished).
void check_stop_during_startup(const char* stage);

/// The reference of the wall coefficients: the free stream (first far_field / inflow condition,
/// else the initial state; a lid's speed when it is at rest), output.surface's geometry and the
/// symmetry planes of the body (output.surface.symmetry: auto) from the global mesh.
SurfaceReference surface_reference(const CaseSetup& s, const Mesh& mesh);

/// history.csv (rank 0 writes): step, time, dt, residuals, wall time, force on the diffuse walls
/// and their heat load. A restart keeps the rows up to its step.
class HistoryObserver final : public StepObserver {
public:
    void on_start(const RunContext& ctx) override;
    bool on_step(const RunContext& ctx, const StepResult& r) override;

private:
    CsvWriter m_csv;
    SurfaceReference m_ref;  ///< in the output units
    OutputUnits m_units;
};

/// The progress line (rank 0, not with --quiet): at the first step, then at most every
/// output.progress_seconds of wall time, and at the last step of time.steps. Shows the wall time
/// per step since the loop began and the time left, bounded by time.steps and time.end_time ("<="
/// when a steady tolerance may stop the run earlier).
class ProgressObserver final : public StepObserver {
public:
    void on_start(const RunContext& ctx) override;
    bool on_step(const RunContext& ctx, const StepResult& r) override;

private:
    long m_first = 0;
    std::chrono::steady_clock::time_point m_start, m_last;
};

/// fields_NNNNNN.h5 every output.every steps, fields_final.h5 at the end (also after a failed
/// step: the last good state).
/// The mesh is written once, to mesh.h5, at the start; every fields file links to it, and
/// fields.xdmf (the time series of the run's numbered files and the final one) is rewritten after
/// each. A restart's series starts with the numbered files of the same run up to its step.
class FieldOutputObserver final : public StepObserver {
public:
    void on_start(const RunContext& ctx) override;
    bool on_step(const RunContext& ctx, const StepResult& r) override;
    void on_end(const RunContext& ctx, const LoopEnd& end) override;

private:
    void write(const RunContext& ctx, const std::string& name);
    std::vector<SeriesEntry> m_series;  ///< rank 0's list for fields.xdmf
};

/// Checkpoints every checkpoint.every steps, every checkpoint.every_minutes of wall time (rank 0's
/// clock decides) and on a stop signal, which then stops the loop; a last one at the end when
/// checkpoints are on and no step failed.
class CheckpointObserver final : public StepObserver {
public:
    void on_start(const RunContext& ctx) override;
    bool on_step(const RunContext& ctx, const StepResult& r) override;
    void on_end(const RunContext& ctx, const LoopEnd& end) override;
    void summarize(nlohmann::json& j) const override;
    /// The signal that stopped the run (0: none).
    int stop_signal() const { return m_signal; }

private:
    void write(const RunContext& ctx);
    long m_last_step = -1;
    std::chrono::steady_clock::time_point m_last_wall;
    std::string m_last_path;
    int m_signal = 0;
};

/// The steady-state rules (time.steady_tolerance on the residuals, the convergence monitor of
/// time.monitor_* on the wall forces and the probe values, issue 8): stops the loop when they hold.
class SteadyStateObserver final : public StepObserver {
public:
    explicit SteadyStateObserver(const CaseSetup& setup);
    void on_start(const RunContext& ctx) override;
    bool on_step(const RunContext& ctx, const StepResult& r) override;
    /// A stop rule was set but not met when time.steps / time.end_time ended the run: summary.json
    /// steady.converged false, and with time.mode steady a warning on stderr.
    void on_end(const RunContext& ctx, const LoopEnd& end) override;
    void summarize(nlohmann::json& j) const override;
    /// time.mode steady: why the iteration was stopped as diverging or stagnating (empty: it was
    /// not); the run then exits 3.
    const std::string& failure() const { return m_failure; }
    /// time.mode steady with a stop rule: time.steps ended the run before the rule was met (exit
    /// 5).
    bool not_converged() const { return m_unconverged; }

private:
    /// Divergence and stagnation of a steady iteration (time.divergence_factor,
    /// time.stagnation_window) from the largest of the three residuals; true: stop.
    bool diverging(const RunContext& ctx, const StepResult& r);
    /// A state that blew up while staying finite and positive: in one step a normalization of the
    /// residuals (mean |rho|, momentum scale, mean |rho E|) grew by more than kBlowUp and the
    /// residual fell by more than kBlowUp (the normalization hides the growth: a blown-up state
    /// would pass any residual tolerance); true: stop (divergence, exit 3). Checked from step
    /// kWarmup of the run on, before the tolerance.
    bool blown_up(const RunContext& ctx, const StepResult& r);
    static constexpr double kBlowUp = 1e3;
    /// Limiter freezing (time.limiter_freeze, docs/steady.md section 7.10): after step N, or
    /// (auto) once the smallest residual fell by less than 10 % (kFreezeFall) over the last
    /// time.limiter_freeze_window steps (a limit cycle); at most once per run.
    void freeze_rule(const RunContext& ctx);
    static constexpr double kFreezeFall = 0.9;

    /// The first steps of an iteration from an initial state may raise the residual by orders
    /// of magnitude (a wall starting to move, a pressure difference switched on): the smallest
    /// residual (m_min) is taken from step kWarmup of this run on.
    static constexpr long kWarmup = 10;
    bool m_rule = false;            ///< time.steady_tolerance or time.monitor_tolerance set
    bool m_unconverged = false;     ///< see not_converged()
    std::string m_failure;          ///< see failure()
    long m_steps = 0;               ///< steps of this run (after a restart: since it)
    double m_min = HUGE_VAL;        ///< smallest residual after the first kWarmup steps
    StepResult m_prev;              ///< the previous step's residuals and scales (blown_up)
    long m_seen = 0;                ///< steps seen by blown_up
    long m_min_step = 0;            ///< its step
    std::deque<double> m_min_hist;  ///< m_min after each of the last stagnation_window steps
    bool m_reached = false;         ///< the stop rule was met
    std::string m_stop = "signal";  ///< what ended an unconverged run
    StepResult m_last;              ///< the last step's result (its residuals)
    SteadyMonitor m_monitor;
    std::optional<ProbeSampler> m_probes;
    std::vector<std::string> m_walls;  ///< the diffuse-wall patches
    double m_change = HUGE_VAL;        ///< the monitor's last change
    std::deque<double> m_freeze_hist;  ///< m_min after each of the last limiter_freeze_window steps
    bool m_freeze_tried = false;       ///< freeze_rule has asked the solver
    long m_frozen_step = -1;           ///< the step of the frozen limiter factors (-1: live)
};

/// probes_<name>.csv of the final state (rank 0 writes).
class ProbeOutputObserver final : public StepObserver {
public:
    void on_end(const RunContext& ctx, const LoopEnd& end) override;
};

/// surface_final.h5/.csv of the diffuse walls after the last step, and their totals (summary.json
/// "walls").
class SurfaceOutputObserver final : public StepObserver {
public:
    void on_end(const RunContext& ctx, const LoopEnd& end) override;
    void summarize(nlohmann::json& j) const override;

private:
    SurfaceTotals m_totals;
    SurfaceReference m_ref;
};

}  // namespace ugks
