// Host-side parts of the step shared by the CPU and CUDA backends.
#include "ugks/solver/step_common.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <cmath>
#include <vector>

#include "ugks/core/error.hpp"
#include "ugks/core/timer.hpp"
#include "ugks/physics/kinetic.hpp"
#include "ugks/solver/kernels/bc_pressure.hpp"
#include "ugks/solver/kernels/reconstruct.hpp"

namespace ugks {

void wall_data_from_flux(const double* F, double dtw, const double* Uw, WallFaceData& wd) {
    for (int d = 0; d < 3; ++d) wd.P[d] = F[1 + d] / dtw;
    wd.qw = F[4] / dtw - (Uw[0] * wd.P[0] + Uw[1] * wd.P[1] + Uw[2] * wd.P[2]);
}

kern::SpecularGrid specular_grid(const SolverStatic& S, const double* x, const double* w,
                                 const index_t* slot) {
    kern::SpecularGrid G;
    for (int d = 0; d < 3; ++d) {
        G.n[d] = (d < 2 ? S.axis_off[d + 1] : S.ntab) - S.axis_off[d];
        G.x[d] = x + S.axis_off[d];
        G.w[d] = w + S.axis_off[d];
    }
    G.slot = slot;
    return G;
}

void allgather_slot_rows(MPI_Comm comm_v, const SolverStatic& S, index_t rows, double* full) {
    int P = 1;
    MPI_Comm_size(comm_v, &P);
    if (P == 1 || rows == 0) return;
    ScopedTimer t("mpi_reduction");
    long mine[2] = {static_cast<long>(S.spec_g0), static_cast<long>(S.ns)};
    std::vector<long> ranges(2 * static_cast<std::size_t>(P));
    MPI_Allgather(mine, 2, MPI_LONG, ranges.data(), 2, MPI_LONG, comm_v);
    traffic_add(Traffic::ReduceV, comm_v, sizeof(mine));
    std::vector<int> counts(P), displs(P);
    long total = 0;
    for (int q = 0; q < P; ++q) {
        const long c = rows * ranges[2 * q + 1];
        UGKS_REQUIRE(total + c <= 0x7fffffffL, "specular rows too large for MPI_Allgatherv");
        counts[q] = static_cast<int>(c);
        displs[q] = static_cast<int>(total);
        total += c;
    }
    std::vector<double> send(static_cast<std::size_t>(rows * S.ns)), recv(total);
    for (index_t j = 0; j < rows; ++j)
        for (index_t s = 0; s < S.ns; ++s) send[j * S.ns + s] = full[j * S.spec_ns + S.spec_g0 + s];
    MPI_Allgatherv(send.data(), static_cast<int>(send.size()), MPI_DOUBLE, recv.data(),
                   counts.data(), displs.data(), MPI_DOUBLE, comm_v);
    traffic_add(Traffic::ReduceV, comm_v, sizeof(double) * send.size());
    for (int q = 0; q < P; ++q) {
        const long g0 = ranges[2 * q], ns = ranges[2 * q + 1];
        for (index_t j = 0; j < rows; ++j)
            for (long s = 0; s < ns; ++s)
                full[j * S.spec_ns + g0 + s] = recv[displs[q] + j * ns + s];
    }
}

bool fixed_ghost_states(const CaseSetup& setup, const SolverStatic& S, const phys::GasParams& gas,
                        std::vector<double>& W, std::vector<phys::EqConst>& eq) {
    const std::size_t ng = S.ghost_face.size();
    W.assign(5 * ng, 0.0);
    eq.assign(ng, phys::EqConst{});
    bool pressure = false;
    for (std::size_t k = 0; k < ng; ++k) {
        const BoundaryCondition& bc = setup.boundaries[S.face_bc[S.ghost_face[k]]];
        if (bc.ghost_mode() != kern::kGhostFixed) {
            pressure = true;
            continue;
        }
        phys::Prim g;
        g.rho = bc.rho;
        for (int d = 0; d < 3; ++d) g.U[d] = bc.U[d];
        g.lambda = 1.0 / bc.T;
        kern::ghost_state(g, gas, &W[5 * k], eq[k]);
    }
    return pressure;
}

void residual_norms(const PhaseSpaceLayout& layout, const double parts[7], StepResult& r) {
    double glob[7];
    for (int k = 0; k < 7; ++k) glob[k] = parts[k];
    {
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, glob, 7, MPI_DOUBLE, MPI_SUM, layout.comm_x);
        traffic_add(Traffic::ReduceX, layout.comm_x, sizeof(glob));
    }
    for (int k = 0; k < 3; ++k) {
        r.residual[k] = std::sqrt(glob[6] * glob[k]) / (glob[3 + k] + 1e-300);
        r.scale[k] = glob[3 + k] / glob[6];
    }
}

std::string invalid_cell_message(long step, index_t global_cell, const Vec3& x, const double W[5],
                                 int N) {
    const phys::Prim p = phys::cons_to_prim(W, N);
    return fmt::format("step {}: cell {} at ({:.6g}, {:.6g}, {:.6g}) has rho = {:.6g}, T = {:.6g}",
                       step, global_cell, x[0], x[1], x[2], p.rho, 1.0 / p.lambda);
}

bool agree_on_failure(const PhaseSpaceLayout& layout, bool mine_bad, std::string msg,
                      StepResult& r) {
    int flag = mine_bad ? 1 : 0;
    ScopedTimer t("mpi_reduction");
    MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_MAX, layout.world);
    traffic_add(Traffic::ReduceWorld, layout.world, sizeof(int));
    if (!flag) return false;
    int first = mine_bad ? layout.world_rank : layout.world_size;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, layout.world);
    int len = static_cast<int>(msg.size());
    MPI_Bcast(&len, 1, MPI_INT, first, layout.world);
    msg.resize(len);
    MPI_Bcast(msg.data(), len, MPI_CHAR, first, layout.world);
    traffic_add(Traffic::ReduceWorld, layout.world,
                2 * sizeof(int) + static_cast<std::uint64_t>(len));
    r.failed = true;
    r.failure = msg;
    return true;
}

FrozenLimiter frozen_limiter_export(long step, const std::vector<double>& W,
                                    const std::vector<std::uint16_t>& h,
                                    const std::vector<std::uint16_t>& b) {
    FrozenLimiter f;
    f.step = step;
    f.W = W;
    auto values = [](const std::vector<std::uint16_t>& c, std::vector<double>& v) {
        v.resize(c.size());
        for (std::size_t k = 0; k < c.size(); ++k) v[k] = kern::limiter_value(c[k]);
    };
    values(h, f.h);
    values(b, f.b);
    return f;
}

void frozen_limiter_import(const FrozenLimiter& f, std::vector<double>& W,
                           std::vector<std::uint16_t>& h, std::vector<std::uint16_t>& b) {
    W = f.W;
    auto codes = [](const std::vector<double>& v, std::vector<std::uint16_t>& c) {
        c.resize(v.size());
        for (std::size_t k = 0; k < v.size(); ++k) c[k] = kern::limiter_code(v[k]);
    };
    codes(f.h, h);
    codes(f.b, b);
}

}  // namespace ugks
