// parallel.block_size / velocity_ranks auto: the candidates measured at the start of the run
// (include/ugks/app/auto_tune.hpp, docs/decisions.md "Automatic B_v and P_v").
#include "ugks/app/auto_tune.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "ugks/core/log.hpp"
#include "ugks/core/timer.hpp"
#include "ugks/device/capabilities.hpp"

namespace ugks {

std::vector<int> block_size_candidates() {
    if (device::capabilities().gpu) return {32, 64, 128, 256};
    return {16, 32, 64, 128, 256};
}

namespace {

constexpr double kNotRun = std::numeric_limits<double>::infinity();

/// What one candidate measured: seconds per step (the slower rank's, the better of two timed
/// steps), or why it was not run.
struct Trial {
    int B = 0, P_v = 0;
    double seconds = kNotRun;
    std::string skipped;  ///< "" when measured
};

/// One candidate: decompose, check the memory, build and initialise a solver, one step to warm up,
/// two timed. Collective.
Trial measure(Problem& pb, int B, int P_v) {
    Trial t{B, P_v, kNotRun, ""};
    redecompose(pb, B, P_v);
    if (!fits_memory(pb)) {
        t.skipped = "does not fit the memory";
        return t;
    }
    StepSolver solver(pb.setup, pb.local, pb.layout, pb.vel, pb.blocks);
    run_collective(MPI_COMM_WORLD, [&] { solver.initialize(); });
    // one step to warm up, then timed steps until kMinSeconds of them (at least two, at most
    // kMaxSteps): the fastest one counts (the noise of a shared machine only adds time)
    constexpr double kMinSeconds = 0.25;
    constexpr int kMaxSteps = 20;
    double best = kNotRun, timed = 0.0;
    for (int k = 0; k <= kMaxSteps && (k < 3 || timed < kMinSeconds); ++k) {
        MPI_Barrier(MPI_COMM_WORLD);
        const auto t0 = std::chrono::steady_clock::now();
        const StepResult r = solver.step();
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r.failed) {  // agreed over the ranks by the step
            t.skipped = "its trial step failed";
            return t;
        }
        if (k == 0) continue;
        best = std::min(best, s);
        timed += s;
    }
    t.seconds = best;
    return t;
}

/// The divisors of n (ascending).
std::vector<int> divisors(int n) {
    std::vector<int> d;
    for (int k = 1; k <= n; ++k)
        if (n % k == 0) d.push_back(k);
    return d;
}

/// The number of velocity blocks of block size B (padding included).
long blocks_of(const Problem& pb, int B) { return (static_cast<long>(pb.vel.size()) + B - 1) / B; }

nlohmann::json trials_json(const std::vector<Trial>& trials, bool by_block) {
    nlohmann::json j = nlohmann::json::object();
    for (const Trial& t : trials) {
        const std::string key = std::to_string(by_block ? t.B : t.P_v);
        if (t.skipped.empty())
            j[key] = t.seconds;
        else
            j[key] = t.skipped;
    }
    return j;
}

/// The fastest measured trial (ties: the first), or none.
const Trial* fastest(const std::vector<Trial>& trials) {
    const Trial* best = nullptr;
    for (const Trial& t : trials)
        if (t.skipped.empty() && (!best || t.seconds < best->seconds)) best = &t;
    return best;
}

std::string trials_text(const std::vector<Trial>& trials, bool by_block, const Trial* best) {
    std::vector<std::string> parts;
    for (const Trial& t : trials) {
        const int v = by_block ? t.B : t.P_v;
        if (!t.skipped.empty())
            parts.push_back(fmt::format("{} {}", v, t.skipped));
        else
            parts.push_back(
                fmt::format("{} {:.4g} s{}", v, t.seconds, &t == best ? " (fastest)" : ""));
    }
    return fmt::format("{}", fmt::join(parts, ", "));
}

/// The fastest of `trials` (by_block: a B_v sweep at fixed P_v, else a P_v sweep at fixed B_v),
/// logged and recorded in pb.tuning; an InputError naming the key when no candidate ran.
const Trial& settle(Problem& pb, const std::vector<Trial>& trials, bool by_block) {
    const std::string key = by_block ? "block_size" : "velocity_ranks";
    const Trial* best = fastest(trials);
    if (!best)
        UGKS_INPUT_ERROR(fmt::format("parallel.{}: auto: no candidate could run ({})", key,
                                     trials_text(trials, by_block, nullptr)));
    const int chosen = by_block ? best->B : best->P_v, other = by_block ? best->P_v : best->B;
    log::info("parallel.{} auto ({} {}): seconds per step for {} = {}; chosen {}", key,
              by_block ? "P_v" : "B_v", other, by_block ? "B_v" : "P_v",
              trials_text(trials, by_block, best), chosen);
    pb.tuning[key] = {{"seconds_per_step", trials_json(trials, by_block)},
                      {by_block ? "velocity_ranks" : "block_size", other},
                      {"chosen", chosen}};
    return *best;
}

}  // namespace

void tune_decomposition(Problem& pb) {
    ParallelConfig& par = pb.setup.parallel;
    if (!par.block_size_auto && !par.velocity_ranks_auto) return;
    const auto timed_before = timers().all();  // the trials' timers are not the run's
    const auto t_start = std::chrono::steady_clock::now();
    int B = par.block_size, P_v = par.velocity_ranks;
    pb.tuning = nlohmann::json::object();
    if (par.velocity_ranks_auto) {
        std::vector<Trial> trials;
        for (const int d : divisors(pb.world_size)) {
            if (pb.world_size / d > pb.mesh.n_cells()) {
                trials.push_back({B, d, kNotRun, "has more physical-space ranks than cells"});
                continue;
            }
            if (d > blocks_of(pb, B)) {
                trials.push_back({B, d, kNotRun, "has more ranks than velocity blocks"});
                continue;
            }
            trials.push_back(measure(pb, B, d));
        }
        P_v = settle(pb, trials, false).P_v;
    }
    if (par.block_size_auto) {
        std::vector<Trial> trials;
        long last_blocks = -1;
        for (const int b : block_size_candidates()) {
            // once one block holds every velocity, a larger one only adds padding
            if (last_blocks == 1) continue;
            if (P_v > blocks_of(pb, b)) {
                trials.push_back({b, P_v, kNotRun, "leaves a velocity rank without a block"});
                continue;
            }
            last_blocks = blocks_of(pb, b);
            trials.push_back(measure(pb, b, P_v));
        }
        B = settle(pb, trials, true).B;
    }
    redecompose(pb, B, P_v);
    const double spent =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    pb.tuning["seconds"] = spent;
    timers().reset_to(timed_before);
    timers().add("auto_tune", spent);
}

}  // namespace ugks
