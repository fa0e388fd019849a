#pragma once
/// Host-side parts of the step that both backends share: the wall data of a face from its flux,
/// the residual norms, the failure message and the agreement of all ranks on a failure.
#include <cstdint>
#include <string>
#include <vector>

#include "ugks/core/traffic.hpp"  // traffic_add next to the solvers' MPI calls
#include "ugks/core/types.hpp"
#include "ugks/parallel/layout.hpp"
#include "ugks/solver/kernels/bc_specular.hpp"
#include "ugks/solver/solver_static.hpp"
#include "ugks/solver/ugks_solver.hpp"

namespace ugks {

/// Wall data from the face flux F (5, time-integrated over the face step dtw, per unit area):
/// P = momentum flux / dt, q_w = energy flux / dt - U_w . P (docs/formulation.md section 9).
void wall_data_from_flux(const double* F, double dtw, const double* Uw, WallFaceData& wd);

/// The ghost states of the fixed ghost faces (far field, inflow) per ghost slot of S
/// (S.ghost_face): W (5 per slot) and the Maxwellian constants; pressure inlet/outlet slots are
/// left for kern::pressure_ghost each step. Returns whether there is a pressure slot.
bool fixed_ghost_states(const CaseSetup& setup, const SolverStatic& S, const phys::GasParams& gas,
                        std::vector<double>& W, std::vector<phys::EqConst>& eq);

/// The kern::SpecularGrid of S over copies of S.axis_x, S.spec_w, S.spec_slot at x, w, slot
/// (host or device memory).
kern::SpecularGrid specular_grid(const SolverStatic& S, const double* x, const double* w,
                                 const index_t* slot);

/// Interpolated reflections with velocity ranks: rows `full` [rows][S.spec_ns] hold this rank's
/// slots [S.spec_g0, S.spec_g0 + S.ns); the slots of the other ranks of comm_v are filled in
/// (MPI_Allgatherv; nothing to do on one velocity rank).
void allgather_slot_rows(MPI_Comm comm_v, const SolverStatic& S, index_t rows, double* full);

/// Residual norms of a step from the sums over the owned cells (summed here over comm_x):
/// parts = {sum (drho/dt)^2, sum |d(rho U)/dt|^2, sum (d(rho E)/dt)^2, sum |rho|, sum rho (|U| +
/// sqrt(T)), sum |rho E|, owned cells}; residual_k = sqrt(n parts_k) / scale_k (the UGKS codes'
/// norms; momentum as a vector, normalized so that a gas at rest does not divide by zero).
void residual_norms(const PhaseSpaceLayout& layout, const double parts[7], StepResult& r);

/// The message of a cell whose state the step cannot continue from.
std::string invalid_cell_message(long step, index_t global_cell, const Vec3& x, const double W[5],
                                 int N);

/// Collective over the world: true when any rank found an invalid cell (mine_bad); then r.failed
/// is set and r.failure holds the message of the lowest failing rank, on every rank.
bool agree_on_failure(const PhaseSpaceLayout& layout, bool mine_bad, std::string msg,
                      StepResult& r);

/// The frozen limiter factors of a solver (kern::LimiterMode) for a checkpoint: the W factors as
/// they are, the distributions' codes as the values they stand for (kern::limiter_value).
FrozenLimiter frozen_limiter_export(long step, const std::vector<double>& W,
                                    const std::vector<std::uint16_t>& h,
                                    const std::vector<std::uint16_t>& b);
/// The inverse of frozen_limiter_export (sizes checked by the caller): exact for every code.
void frozen_limiter_import(const FrozenLimiter& f, std::vector<double>& W,
                           std::vector<std::uint16_t>& h, std::vector<std::uint16_t>& b);

}  // namespace ugks
