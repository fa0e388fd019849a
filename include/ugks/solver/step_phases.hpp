#pragma once
/// The phase list of one UGKS step and of the implicit microscopic update, written once for both
/// backends (docs/architecture.md section 7, "One time step"). Each backend supplies the phases
/// (its schedule and storage: UgksSolver on the CPU, UgksSolverDevice::Impl on the GPU); the order,
/// the branches and the bookkeeping live only here.
///
/// A backend `B` provides:
///   auto phase(const char* name)     scope of a named phase: a timer (CPU), an NVTX range (CUDA)
///   void exchange_macro()            halo exchange of W (5 per cell) and q (3 per cell)
///   void cell_states()               primitive state, tau and equilibrium constants per cell
///   bool local_steps() const         time.mode: steady (per-cell time steps)
///   double compute_dt(), compute_local_dt()
///   void gradients_W(), face_precompute(dt), wall_densities(), sweep(dt)
///   void macro_update(dt, StepResult&)   sets StepResult::failed (all ranks agree)
///   bool implicit_steps() const      time.steady_method: implicit
///   void stage2_and_moments(dt)      dt < 0: moments only (q and stress from f)
///   void micro_relax()               implicit: f += df for every local velocity and the conserved
///                                    moments Q of the new microscopic residual (local velocities)
///   void sum_micro_moments()         implicit: Q summed over the velocity ranks
///   void rescale_mass_f()            implicit, closed domain: f^{n+1} scaled so that the total
///                                    mass of the microscopic residual is zero (Q updated)
///   void moment_correction()         implicit: W += theta tau (Rm - Q) (kern::moment_correction)
///   bool closed_domain() const       no far-field, inflow or outflow face anywhere
///   void rescale_mass_W()            closed domain: W back to the mass before the step
///   void end_of_step()               wait for the queued work and flush the timers (CUDA)
///   void advance(dt)                 step count + 1, time + dt
#include "ugks/solver/ugks_solver.hpp"

namespace ugks {

/// The implicit microscopic update of docs/steady.md section 7.3-7.4: the equilibrium and tau of
/// the predicted W* (q^n), micro_sweeps symmetric Gauss-Seidel pairs for every local velocity, the
/// moment-consistency correction of W (not conservative: a closed domain is rescaled to the mass
/// before the step), then q and the stress from the new f.
template <class B>
void run_implicit_micro(B& b) {
    b.cell_states();
    b.micro_relax();
    b.sum_micro_moments();
    if (b.closed_domain()) b.rescale_mass_f();
    b.moment_correction();
    if (b.closed_domain()) b.rescale_mass_W();
    b.cell_states();
    b.stage2_and_moments(-1.0);
}

/// One step (docs/formulation.md section 10): macroscopic halos, cell states, time step,
/// gradients, face coefficients, wall densities, the velocity-block sweep, the macroscopic update
/// (which may report a failure: the step then ends there and is not counted), then stage 2 and
/// the moments, or the implicit microscopic update.
template <class B>
StepResult run_step(B& b) {
    StepResult r;
    {
        auto p = b.phase("mpi_halo");
        b.exchange_macro();
    }
    b.cell_states();
    const double dt = b.local_steps() ? b.compute_local_dt() : b.compute_dt();
    r.dt = dt;
    {
        auto p = b.phase("reconstruction");
        b.gradients_W();
    }
    {
        auto p = b.phase("flux");
        b.face_precompute(dt);
    }
    b.wall_densities();
    b.sweep(dt);
    {
        auto p = b.phase("update");
        b.macro_update(dt, r);
    }
    if (!r.failed) {
        if (b.implicit_steps()) {
            auto p = b.phase("implicit");
            run_implicit_micro(b);
        } else {
            auto p = b.phase("update");
            b.stage2_and_moments(dt);
        }
    }
    b.end_of_step();
    if (!r.failed) b.advance(dt);
    return r;
}

}  // namespace ugks
