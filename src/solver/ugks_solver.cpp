// The UGKS single-sweep step on the CPU backend (docs/formulation.md section 10): the CPU schedules
// (OpenMP over cells and faces, SIMD over the velocities of a block) of the kernel functions in
// include/ugks/solver/kernels/ and physics/kinetic.hpp, which the CUDA backend calls as well.
#include "ugks/solver/ugks_solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "cpu_kernels.hpp"
#include "ugks/core/error.hpp"
#include "ugks/core/timer.hpp"
#include "ugks/solver/implicit_ops.hpp"
#include "ugks/solver/kernels/bc_diffuse_wall.hpp"
#include "ugks/solver/kernels/bc_pressure.hpp"
#include "ugks/solver/kernels/bc_symmetry.hpp"
#include "ugks/solver/kernels/face_input.hpp"
#include "ugks/solver/kernels/periodic_jump.hpp"
#include "ugks/solver/kernels/time_step.hpp"
#include "ugks/solver/raw_moments.hpp"
#include "ugks/solver/step_common.hpp"
#include "ugks/solver/step_phases.hpp"

namespace ugks {
namespace {

inline double dot3(const double* a, const double* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/// Call fn(D, SB) with compile-time constants for the runtime velocity dimension and stored b.
template <class Fn>
void dispatch_dsb(int D, bool store_b, Fn&& fn) {
    using T = std::true_type;
    using F = std::false_type;
    auto by_b = [&](auto d) {
        if (store_b)
            fn(d, T{});
        else
            fn(d, F{});
    };
    if (D == 1) by_b(std::integral_constant<int, 1>{});
    if (D == 2) by_b(std::integral_constant<int, 2>{});
    if (D == 3) by_b(std::integral_constant<int, 3>{});
}

/// Call fn(DM) with a compile-time constant for the runtime mesh dimension (1, 2 or 3).
template <class Fn>
void with_mesh_dim(int dim, Fn&& fn) {
    if (dim == 1) fn(std::integral_constant<int, 1>{});
    if (dim == 2) fn(std::integral_constant<int, 2>{});
    if (dim == 3) fn(std::integral_constant<int, 3>{});
}

}  // namespace

UgksSolver::UgksSolver(const CaseSetup& setup, const LocalMesh& local,
                       const PhaseSpaceLayout& layout, const VelocityGrid& grid,
                       const VelocityBlocks& blocks)
    : m_setup(setup),
      m_local(local),
      m_mesh(local.mesh),
      m_layout(layout),
      m_blocks(blocks),
      m_s(make_solver_static(setup, local, layout, grid, blocks)) {
    m_gas = gas_params(setup, grid.dim);
    const index_t ns = m_s.ns;
    for (index_t f = 0; f < m_s.nf; ++f)
        if (m_s.face_kind[f] == kDiffuseWall || m_s.face_kind[f] == kSymmetry)
            m_wall.push_back({f, {0, 0, 0}, 0.0});
    m_sym_h.assign(m_s.nsym * ns, 0.0);
    if (m_s.store_b) m_sym_b.assign(m_s.nsym * ns, 0.0);
    const index_t nspec = static_cast<index_t>(m_s.spec_rows.size());
    m_spec_h.assign(nspec * m_s.spec_ns, 0.0);
    m_spec_gh.assign(nspec * m_s.spec_ns, 0.0);
    if (m_s.store_b) {
        m_spec_b.assign(nspec * m_s.spec_ns, 0.0);
        m_spec_gb.assign(nspec * m_s.spec_ns, 0.0);
    }

    m_W.assign(5 * m_s.nc, 0.0);
    m_Wold.assign(5 * m_s.nc, 0.0);
    m_gradW.assign(15 * m_s.nc, 0.0);
    m_q.assign(3 * m_s.nc, 0.0);
    m_tau.assign(m_s.nc, 0.0);
    m_prim.assign(m_s.nc, phys::Prim{});
    m_stress.assign(6 * m_s.no, 0.0);
    const bool fp32 = setup.numerics.fp32_storage;
    m_h.assign(static_cast<std::size_t>(m_s.nc) * ns, fp32);
    m_b.assign(m_s.store_b ? static_cast<std::size_t>(m_s.nc) * ns : 0, fp32);
    if (fp32) {
        m_hw.assign(static_cast<std::size_t>(m_s.nc) * m_s.B, 0.0);
        if (m_s.store_b) m_bw.assign(m_hw.size(), 0.0);
    }
    m_fc.assign(m_s.nf, phys::FaceCoeffs{});
    m_Facc.assign(5 * m_s.nf, 0.0);
    m_rho_wall.assign(m_s.nf, 0.0);
    m_gh.assign(m_setup.numerics.order >= 2 ? 3 * static_cast<std::size_t>(m_s.B) * m_s.nc : 0,
                0.0);
    m_gb.assign(m_setup.numerics.order >= 2 && m_s.store_b
                    ? 3 * static_cast<std::size_t>(m_s.B) * m_s.nc
                    : 0,
                0.0);
    m_phi_h.assign(static_cast<std::size_t>(m_s.nf) * m_s.B, 0.0);
    m_phi_b.assign(m_s.store_b ? static_cast<std::size_t>(m_s.nf) * m_s.B : 0, 0.0);
    m_Fsum.assign(5 * static_cast<std::size_t>(m_s.nf), 0.0);
    m_mom.assign(17 * static_cast<std::size_t>(m_s.no), 0.0);
    m_cell_eq.assign(m_s.no, phys::EqConst{});
    // Per ghost face (far field, inflow, pressure inlet/outlet): the ghost state and its
    // Maxwellian; the fixed ones now, the pressure faces' in every cell_states (ghost_states).
    m_pressure_faces = fixed_ghost_states(setup, m_s, m_gas, m_ghost_W, m_ghost_eq);
    m_halo = HaloExchange(layout.comm_x, local.halo);
    m_local_dt = setup.time.steady();
    if (m_local_dt) {
        m_dtc.assign(m_s.nc, 0.0);
        m_dtf.assign(m_s.nf, 0.0);
    }
    m_implicit = setup.time.implicit();
    m_force = phys::has_force(m_gas);
    if (m_implicit) {
        // the flux residual in the storage precision (as h and b)
        m_res_h.assign(static_cast<std::size_t>(m_s.nc) * ns, m_h.fp32());
        if (m_s.store_b) m_res_b.assign(static_cast<std::size_t>(m_s.nc) * ns, m_h.fp32());
        implicit_ordering();
    }
}

UgksSolver::~UgksSolver() = default;

void UgksSolver::initialize() {
    for (index_t c = 0; c < m_s.nc; ++c) {
        const InitialState st = initial_state_at(m_setup, m_mesh.cell_centroid[c]);
        phys::Prim p;
        p.rho = st.rho;
        for (int d = 0; d < 3; ++d) p.U[d] = st.U[d];
        p.lambda = 1.0 / st.T;
        phys::prim_to_cons(p, m_gas.N, &m_W[5 * c]);
    }
    compute_prims();
    const double zero_q[3] = {0, 0, 0};
    const index_t ns = static_cast<index_t>(m_s.nblk) * m_s.B;
#pragma omp parallel for schedule(static)
    for (index_t c = 0; c < m_s.nc; ++c) {
        for (int m = 0; m < m_s.nblk; ++m) {
            for (int v = 0; v < m_s.B; ++v) {
                const index_t s = static_cast<index_t>(m) * m_s.B + v;
                const index_t k = (static_cast<index_t>(m) * m_s.nc + c) * m_s.B + v;
                double hp, bp;
                phys::shakhov_equilibrium(m_prim[c], zero_q, m_gas, &m_s.u[3 * s], hp, bp);
                m_h.set(k, hp);
                if (m_s.store_b) m_b.set(k, bp);
            }
        }
    }
    (void)ns;
    stage2_and_moments(-1.0);  // moments only: q and stress of the initial distributions
    if (m_local_dt) {
        // Closed domain (walls, symmetry planes, periodic faces only): the total mass is an
        // invariant of the transient scheme that local time steps would not keep (docs/steady.md).
        int open = 0;
        for (index_t f = 0; f < m_s.nf; ++f)
            if (m_s.face_kind[f] == kGhostMaxwellian || m_s.face_kind[f] == kOutflow) open = 1;
        MPI_Allreduce(MPI_IN_PLACE, &open, 1, MPI_INT, MPI_MAX, m_layout.world);
        traffic_add(Traffic::ReduceWorld, m_layout.world, sizeof(int));
        m_closed = open == 0;
    }
}

void UgksSolver::total_mass(double& before, double& after) const {
    double m[2] = {0.0, 0.0};
    for (index_t i = 0; i < m_s.no; ++i) {
        m[0] += m_Wold[5 * i] * m_mesh.cell_volume[i];
        m[1] += m_W[5 * i] * m_mesh.cell_volume[i];
    }
    MPI_Allreduce(MPI_IN_PLACE, m, 2, MPI_DOUBLE, MPI_SUM, m_layout.comm_x);
    traffic_add(Traffic::ReduceX, m_layout.comm_x, sizeof(m));
    // every velocity rank must scale by the same bits (W is replicated over comm_v)
    MPI_Bcast(m, 2, MPI_DOUBLE, 0, m_layout.comm_v);
    traffic_add(Traffic::ReduceV, m_layout.comm_v, sizeof(m));
    before = m[0];
    after = m[1];
}

double UgksSolver::compute_local_dt() {
    // The rule of compute_dt, per cell: dt_i = CFL * 2 V_i / sum_f S_f s_f,i.
    double dtmin = HUGE_VAL;
    for (index_t i = 0; i < m_s.no; ++i) {
        m_dtc[i] = m_setup.numerics.cfl * cfl_ratio(i);
        dtmin = std::min(dtmin, m_dtc[i]);
    }
    {
        ScopedTimer t("mpi_halo");
        exchange(m_dtc.data(), 1, false);
    }
    // Face step: the smaller of its two cells' steps (a boundary face: its cell's), the same on
    // every rank that holds the face.
    for (index_t f = 0; f < m_s.nf; ++f) {
        const index_t L = m_mesh.face_owner[f], R = m_mesh.face_neighbour[f];
        m_dtf[f] = R >= 0 ? std::min(m_dtc[L], m_dtc[R]) : m_dtc[L];
    }
    MPI_Allreduce(MPI_IN_PLACE, &dtmin, 1, MPI_DOUBLE, MPI_MIN, m_layout.world);
    traffic_add(Traffic::ReduceWorld, m_layout.world, sizeof(double));
    return dtmin;
}

void UgksSolver::compute_prims() {
#pragma omp parallel for schedule(static)
    for (index_t c = 0; c < m_s.nc; ++c) {
        m_prim[c] = phys::cons_to_prim(&m_W[5 * c], m_gas.N);
        m_tau[c] = phys::relaxation_time(m_prim[c], m_gas);
    }
}

void UgksSolver::cell_tables() {
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < m_s.no; ++i) {
        m_cell_eq[i] = phys::eq_const(m_prim[i], &m_q[3 * i], m_gas);
    }
}

cpu::BlockVel UgksSolver::block_vel(int m) const {
    const index_t s0 = static_cast<index_t>(m) * m_s.B;
    return {m_s.ux.data() + s0, m_s.uy.data() + s0, m_s.uz.data() + s0, m_s.w.data() + s0};
}

double UgksSolver::cfl_ratio(index_t i) const {
    return kern::cfl_ratio(m_prim[i], m_gas.N, m_s.umax_axis, m_mesh.cell_volume[i],
                           m_mesh.cell_face_offsets[i], m_mesh.cell_face_offsets[i + 1],
                           m_mesh.cell_faces.data(), m_s.normal.data(), m_mesh.face_area.data());
}

double UgksSolver::compute_dt() const {
    double ratio = HUGE_VAL;
    for (index_t i = 0; i < m_s.no; ++i) ratio = std::min(ratio, cfl_ratio(i));
    double dt = m_setup.numerics.cfl * ratio;
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MIN, m_layout.world);
    traffic_add(Traffic::ReduceWorld, m_layout.world, sizeof(double));
    if (m_setup.time.end_time > 0) dt = std::min(dt, m_setup.time.end_time - m_time);
    return dt;
}

void UgksSolver::gradients_W() {
    std::fill(m_gradW.begin(), m_gradW.end(), 0.0);
    if (m_setup.numerics.order < 2) return;
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < m_s.no; ++i)
        kern::gradient_W_cell(i, m_W.data(), m_s.lsq_off.data(), m_s.lsq_nbr.data(), m_s.lsq.data(),
                              m_s.slot_dx.data(), m_s.limiter, m_s.kd3[i], &m_gradW[15 * i],
                              m_lim_mode, m_lim_mode ? &m_psi_W[5 * i] : nullptr);
    exchange(m_gradW.data(), 15);
}

void UgksSolver::face_precompute(double dt) {
#pragma omp parallel for schedule(dynamic, 64)
    for (index_t f = 0; f < m_s.nf; ++f) {
        const int kind = m_s.face_kind[f];
        if (is_kinetic_boundary(kind)) continue;
        phys::FaceInput in{};
        kern::face_input(kind, f, m_mesh.face_owner[f], m_mesh.face_neighbour[f], m_W.data(),
                         m_gradW.data(), m_q.data(), m_s.cell_centroid.data(),
                         m_s.face_centroid.data(), m_s.normal.data(), m_s.face_dxR.data(),
                         kind == kGhostMaxwellian ? &m_ghost_W[5 * m_s.ghost_index[f]] : nullptr,
                         in);
        phys::face_equilibrium(in, m_gas, m_local_dt ? m_dtf[f] : dt, m_fc[f]);
    }
    jump_face_coeffs(dt);
}

void UgksSolver::wall_densities() {
    const index_t ns = static_cast<index_t>(m_s.nblk) * m_s.B;
    // Diffuse walls (decision U7): incident mass flux from cell values at t^n, reduced over C_v.
    std::vector<double> sums(2 * m_wall.size(), 0.0);
    for (std::size_t iw = 0; iw < m_wall.size(); ++iw) {
        const index_t f = m_wall[iw].local_face;
        const auto& B = m_setup.boundaries[m_s.face_bc[f]];
        const index_t i = m_mesh.face_owner[f];
        const auto& n = m_mesh.face_normal[f];
        if (B.reflects()) {  // symmetry planes and partly specular walls: owner values at t^n
            const index_t row = m_s.sym_index[f];
            for (int m = 0; m < m_s.nblk; ++m)
                for (int v = 0; v < m_s.B; ++v) {
                    const index_t s = static_cast<index_t>(m) * m_s.B + v;
                    const index_t k = (static_cast<index_t>(m) * m_s.nc + i) * m_s.B + v;
                    m_sym_h[row * ns + s] = m_h.get(k);
                    if (m_s.store_b) m_sym_b[row * ns + s] = m_b.get(k);
                }
        }
        if (B.type == "symmetry") continue;
        const phys::EqConst unit = kern::wall_const(1.0, m_s.wall_T[f], &m_s.wall_U[3 * f], m_gas);
        double num = 0.0, den = 0.0;
        phys::detail::with_dim(m_gas.D, [&](auto Dc) {
            constexpr int D = decltype(Dc)::value;
            for (int m = 0; m < m_s.nblk; ++m)
                for (int v = 0; v < m_s.B; ++v) {
                    const index_t s = static_cast<index_t>(m) * m_s.B + v;
                    const double* u = &m_s.u[3 * s];
                    kern::wall_density_terms<D>(
                        unit, m_s.w[s], u, dot3(u, n.data()),
                        m_h.get((static_cast<index_t>(m) * m_s.nc + i) * m_s.B + v), num, den);
                }
        });
        sums[2 * iw] = num;
        sums[2 * iw + 1] = den;
    }
    specular_rows();
    {
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_DOUBLE, MPI_SUM,
                      m_layout.comm_v);
        traffic_add(Traffic::ReduceV, m_layout.comm_v, sizeof(double) * sums.size());
    }
    for (std::size_t iw = 0; iw < m_wall.size(); ++iw)
        if (sums[2 * iw + 1] > 0) {
            const index_t f = m_wall[iw].local_face;
            m_rho_wall[f] = kern::wall_density(m_setup.boundaries[m_s.face_bc[f]].accommodation,
                                               sums[2 * iw], sums[2 * iw + 1]);
        }
}

void UgksSolver::specular_rows() {
    const index_t nr = static_cast<index_t>(m_s.spec_rows.size());
    if (nr == 0) return;
    ScopedTimer timer("specular_rows");
    const index_t ns = m_s.ns, NS = m_s.spec_ns, g0 = m_s.spec_g0;
    const bool SB = m_s.store_b;
    for (index_t j = 0; j < nr; ++j)
        for (index_t s = 0; s < ns; ++s) {
            m_spec_h[j * NS + g0 + s] = m_sym_h[m_s.spec_rows[j] * ns + s];
            if (SB) m_spec_b[j * NS + g0 + s] = m_sym_b[m_s.spec_rows[j] * ns + s];
        }
    allgather_slot_rows(m_layout.comm_v, m_s, nr, m_spec_h.data());
    if (SB) allgather_slot_rows(m_layout.comm_v, m_s, nr, m_spec_b.data());
#pragma omp parallel for schedule(static)
    for (index_t k = 0; k < nr * NS; ++k) {
        m_spec_gh[k] = kern::specular_log(m_spec_h[k]);
        if (SB) m_spec_gb[k] = kern::specular_log(m_spec_b[k]);
    }
    const kern::SpecularGrid G =
        specular_grid(m_s, m_s.axis_x.data(), m_s.spec_w.data(), m_s.spec_slot.data());
    const index_t nv = G.size();
    const index_t* self = &m_s.mirror[kern::kInterpolatedMirror * ns];
#pragma omp parallel for schedule(dynamic, 1)
    for (index_t j = 0; j < nr; ++j) {
        const index_t f = m_s.spec_faces[j], row = m_s.spec_rows[j];
        const double* n = &m_s.normal[3 * f];
        const double* rh = &m_spec_h[j * NS];
        const double* rb = SB ? &m_spec_b[j * NS] : nullptr;
        const double* gh = &m_spec_gh[j * NS];
        const double* gb = SB ? &m_spec_gb[j * NS] : nullptr;
        double out = 0.0, in = 0.0;
        for (index_t k = 0; k < nv; ++k) {
            double u[3], w;
            kern::specular_grid_point(G, k, u, w);
            kern::specular_mass_terms(G, rh, gh, n, w, u, G.slot[k], out, in);
        }
        const double c = kern::specular_scale(out, in);
        for (index_t s = 0; s < ns; ++s) {
            const double* u = &m_s.u[3 * s];
            double hs = 0.0, bs = 0.0;
            if (self[s] >= 0 && dot3(u, n) < 0) {
                if (SB)
                    kern::specular_raw<true>(G, rh, rb, gh, gb, n, u, hs, bs);
                else
                    kern::specular_raw<false>(G, rh, nullptr, gh, nullptr, n, u, hs, bs);
            }
            m_sym_h[row * ns + s] = c * hs;
            if (SB) m_sym_b[row * ns + s] = c * bs;
        }
    }
}

void UgksSolver::gradient_block(const double* f1, double* grad1, std::uint16_t* code1,
                                const double* f2, double* grad2, std::uint16_t* code2) const {
    const int B = m_s.B;
    const int kind = m_s.limiter;
    const int mode = m_lim_mode;
    // h and b (f2) in one parallel loop: one fork and join fewer per block (each costs about 0.2 ms
    // on a virtual machine whose idle CPU must be woken, docs/performance.md)
    const index_t n = f2 ? 2 * m_s.no : m_s.no;
#pragma omp parallel for schedule(static)
    for (index_t ii = 0; ii < n; ++ii) {
        // (h and b of a cell next to each other: a thread's cells are the same in the flux loop)
        const bool second = f2 && (ii & 1);
        const index_t i = f2 ? ii / 2 : ii;
        const double* f = second ? f2 : f1;
        double* grad = second ? grad2 : grad1;
        std::uint16_t* code = second ? code2 : code1;
        const index_t slot = m_s.lsq_off[i];
        const int nf = static_cast<int>(m_s.lsq_off[i + 1] - slot);
        const index_t* nbr = &m_s.lsq_nbr[slot];
        const double* c = &m_s.lsq[3 * slot];
        const double* dx = &m_s.slot_dx[3 * slot];
        double* g = grad + 3 * B * i;
        std::uint16_t* ci = mode ? code + static_cast<std::size_t>(B) * i : nullptr;
        with_mesh_dim(m_s.dim, [&](auto DMc) {
            constexpr int DM = decltype(DMc)::value;
            if (kind == kern::kVenkatakrishnan)
                cpu::gradient_limited_cell<kern::kVenkatakrishnan, DM>(B, f, i, nbr, nf, c, dx,
                                                                       m_s.kd3[i], g, mode, ci);
            else if (kind == kern::kBarthJespersen)
                cpu::gradient_limited_cell<kern::kBarthJespersen, DM>(B, f, i, nbr, nf, c, dx,
                                                                      m_s.kd3[i], g, mode, ci);
            else
                cpu::gradient_limited_cell<kern::kNoLimiter, DM>(B, f, i, nbr, nf, c, dx,
                                                                 m_s.kd3[i], g, mode, ci);
        });
    }
}

void UgksSolver::sweep(double dt) {
    const int B = m_s.B;
    const index_t ns = static_cast<index_t>(m_s.nblk) * B;
    const bool second = m_setup.numerics.order >= 2;
    std::fill(m_Facc.begin(), m_Facc.end(), 0.0);
    std::vector<double>& gh = m_gh;
    std::vector<double>& gb = m_gb;
    std::vector<double>& phi_h = m_phi_h;
    std::vector<double>& phi_b = m_phi_b;

    const bool fp32 = m_h.fp32();
    const std::size_t nob = static_cast<std::size_t>(m_s.no) * B;
    for (int m = 0; m < m_s.nblk; ++m) {
        // fp32 storage: the block's owned rows in double (the ghost rows come with the halo),
        // stored back after stage 1
        const std::size_t at = static_cast<std::size_t>(m) * m_s.nc * B;
        double* h = fp32 ? m_hw.data() : m_h.f64(at);
        double* b = !m_s.store_b ? nullptr : fp32 ? m_bw.data() : m_b.f64(at);
        if (fp32) {
            m_h.load(at, nob, h);
            if (b) m_b.load(at, nob, b);
        }
        const index_t s0 = static_cast<index_t>(m) * B;
        {
            ScopedTimer t("mpi_halo");
            exchange(h, B, true, fp32);
            if (b) exchange(b, B, true, fp32);
        }
        if (second) {
            ScopedTimer t("reconstruction");
            gradient_block(h, gh.data(), m_lim_mode ? &m_psi_h[at] : nullptr, b,
                           b ? gb.data() : nullptr, b && m_lim_mode ? &m_psi_b[at] : nullptr);
            ScopedTimer t2("mpi_halo");
            exchange(gh.data(), 3 * B);
            if (b) exchange(gb.data(), 3 * B);
        }

        // Face fluxes of this block (face-flux cache) and the block's share of the macroscopic
        // flux.
        timers().start("flux");
        const cpu::BlockVel V = block_vel(m);
        dispatch_dsb(m_gas.D, m_s.store_b, [&](auto Dc, auto SBc) {
            constexpr int D = decltype(Dc)::value;
            constexpr bool SB = decltype(SBc)::value;
            decltype(&cpu::flux_interior<D, D, SB, true>) interior = nullptr;
            with_mesh_dim(m_s.dim, [&](auto DMc) {
                constexpr int DM = decltype(DMc)::value < D ? decltype(DMc)::value : D;
                interior = second ? &cpu::flux_interior<D, DM, SB, true>
                                  : &cpu::flux_interior<D, DM, SB, false>;
            });
#pragma omp parallel for schedule(static)
            for (index_t f = 0; f < m_s.nf; ++f) {
                const index_t L = m_mesh.face_owner[f];
                const index_t R = m_mesh.face_neighbour[f];
                const double* n = &m_s.normal[3 * f];
                const int kind = m_s.face_kind[f];
                double acc[5] = {0, 0, 0, 0, 0};
                if (kind == kInterior) {
                    const std::size_t gL = 3 * static_cast<std::size_t>(B) * L;
                    const std::size_t gR = 3 * static_cast<std::size_t>(B) * R;
                    interior(B, m_fc[f], n, &m_s.face_dxL[3 * f], &m_s.face_dxR[3 * f], V,
                             h + B * L, h + B * R, SB ? b + B * L : nullptr,
                             SB ? b + B * R : nullptr, second ? gh.data() + gL : nullptr,
                             second ? gh.data() + gR : nullptr,
                             second && SB ? gb.data() + gL : nullptr,
                             second && SB ? gb.data() + gR : nullptr, &phi_h[f * B],
                             SB ? &phi_b[f * B] : nullptr, acc);
                    for (int e = 0; e < 5; ++e) m_Facc[5 * f + e] += acc[e];
                    continue;
                }
                const BoundaryCondition& BC = m_setup.boundaries[m_s.face_bc[f]];
                if (is_kinetic_boundary(kind)) {
                    // diffuse wall (its Maxwellian at the density of wall_densities) or symmetry
                    // plane (the owner's state at t^n at the mirrored slot)
                    const bool wall = kind == kDiffuseWall;
                    const double dtw = m_local_dt ? m_dtf[f] : dt;
                    const phys::EqConst Ew = wall ? kern::wall_const(m_rho_wall[f], m_s.wall_T[f],
                                                                     &m_s.wall_U[3 * f], m_gas)
                                                  : phys::EqConst{};
                    const index_t row = m_s.sym_index[f];  // -1: a fully diffuse wall
                    const index_t* mir = &m_s.mirror[BC.mirror_row() * ns];
                    const double* sh = row >= 0 ? &m_sym_h[row * ns] : nullptr;
                    const double* sb = row >= 0 && SB ? &m_sym_b[row * ns] : nullptr;
                    for (int v = 0; v < B; ++v) {
                        const index_t s = s0 + v;
                        const double* u = &m_s.u[3 * s];
                        const double un = dot3(u, n);
                        double hin = 0.0, bin = 0.0;
                        if (un <= 0 && wall)
                            kern::wall_incident<D, SB>(Ew, u, BC.accommodation, mir[s], sh, sb, hin,
                                                       bin);
                        else if (un <= 0)
                            kern::symmetry_incident<SB>(mir[s], sh, sb, hin, bin);
                        double ph, pb;
                        kern::kinetic_boundary_flux<SB>(dtw, un, h[B * L + v],
                                                        SB ? b[B * L + v] : 0.0, hin, bin, ph, pb);
                        phi_h[f * B + v] = ph;
                        if (SB) phi_b[f * B + v] = pb;
                        kern::add_flux_moments<D, SB>(m_s.w[s], u, dot3(u, u), ph, pb, acc);
                    }
                } else {
                    // far field / inflow (the ghost Maxwellian, zero gradient) or outflow (the
                    // owner's state, zero gradient) on the incoming side
                    const phys::FaceCoeffs& fc = m_fc[f];
                    const bool ghost_maxwellian = kind == kGhostMaxwellian;
                    const phys::EqConst& Eg =
                        ghost_maxwellian ? m_ghost_eq[m_s.ghost_index[f]] : phys::EqConst{};
                    const double* dxL = &m_s.face_dxL[3 * f];
                    for (int v = 0; v < B; ++v) {
                        const index_t s = s0 + v;
                        const double* u = &m_s.u[3 * s];
                        const double un = dot3(u, n);
                        double hf, bf = 0.0, ugh = 0.0, ugb = 0.0;
                        if (un > 0) {
                            const double* g = second ? &gh[3 * B * L + v] : nullptr;
                            hf = h[B * L + v];
                            if (SB) bf = b[B * L + v];
                            if (second) {
                                kern::upwind_value(hf, g[0], g[B], g[2 * B], dxL[0], dxL[1], dxL[2],
                                                   u[0], u[1], u[2], hf, ugh);
                                if (SB) {
                                    const double* e = &gb[3 * B * L + v];
                                    kern::upwind_value(bf, e[0], e[B], e[2 * B], dxL[0], dxL[1],
                                                       dxL[2], u[0], u[1], u[2], bf, ugb);
                                }
                            }
                        } else if (ghost_maxwellian) {
                            phys::maxwellian_pair<D, SB>(Eg, u, hf, bf);
                        } else {
                            hf = h[B * L + v];
                            if (SB) bf = b[B * L + v];
                        }
                        double u2 = 0.0;
                        for (int d = 0; d < D; ++d) u2 += u[d] * u[d];
                        double ph, pb, fmh, fmb;
                        phys::micro_flux_lane<D, SB>(fc.eq, un > 0 ? fc.aL : fc.aR, fc.A, fc.tc, u,
                                                     u2, un, phys::maxwellian_H<D>(fc.eq, u), hf,
                                                     bf, ugh, ugb, ph, pb, fmh, fmb);
                        phi_h[f * B + v] = ph;
                        if (SB) phi_b[f * B + v] = pb;
                        kern::add_flux_moments<D, SB>(m_s.w[s], u, u2, fmh, fmb, acc);
                    }
                }
                for (int e = 0; e < 5; ++e) m_Facc[5 * f + e] += acc[e];
            }
            // partner faces of jump faces: the jump face's flux and the pressure jump
            for (std::size_t k = 0; k < m_s.jump_f.size(); ++k) {
                const index_t f = m_s.jump_f[k], g = m_s.jump_fp[k];
                const double dtf = m_local_dt ? m_dtf[f] : dt;
                for (int v = 0; v < B; ++v) {
                    double qb;
                    kern::jump_partner_flux<D, SB>(
                        m_fc[f].eq, m_s.jump_d[k], dtf, &m_s.normal[3 * f], &m_s.u[3 * (s0 + v)],
                        phi_h[f * B + v], SB ? phi_b[f * B + v] : 0.0, phi_h[g * B + v], qb);
                    if (SB) phi_b[g * B + v] = qb;
                }
            }
        });
        timers().stop("flux");

        // Stage 1 (section 6.3), in place: f* = f - (1/V) sum sigma S Phi + (dt/2)(f+^n -
        // f^n)/tau^n.
        ScopedTimer t("update");
#pragma omp parallel for schedule(static)
        for (index_t i = 0; i < m_s.no; ++i) {
            double rbuf[2 * 1024];
            double* rh = rbuf;
            double* rb = rh + B;
            for (int v = 0; v < 2 * B; ++v) rbuf[v] = 0.0;
            for (index_t k = m_mesh.cell_face_offsets[i]; k < m_mesh.cell_face_offsets[i + 1];
                 ++k) {
                const index_t f = m_mesh.cell_faces[k];
                double sS = m_s.cf_sarea[k];
                if (m_local_dt) sS *= m_dtc[i] / m_dtf[f];  // rate Phi_f / dt_f times dt_i
                for (int v = 0; v < B; ++v) rh[v] += sS * phi_h[f * B + v];
                if (b)
                    for (int v = 0; v < B; ++v) rb[v] += sS * phi_b[f * B + v];
            }
            const double invV = 1.0 / m_mesh.cell_volume[i];
            if (m_implicit) {
                // implicit steady iteration: keep the flux residual rate for the microscopic update
                // (micro_relax) (rh was accumulated with the factor dt_i / dt_f: divide by dt_i)
                const double sc = -invV / m_dtc[i];
                const std::size_t k = (static_cast<std::size_t>(m) * m_s.nc + i) * B;
                for (int v = 0; v < B; ++v) m_res_h.set(k + v, sc * rh[v]);
                if (b)
                    for (int v = 0; v < B; ++v) m_res_b.set(k + v, sc * rb[v]);
                continue;
            }
            const double dti = m_local_dt ? m_dtc[i] : dt;
            const double c = 0.5 * dti / m_tau[i];
            const phys::Slope aF =
                phys::force_slope(m_cell_eq[i].U, m_cell_eq[i].lambda, m_gas.acc);
            dispatch_dsb(m_gas.D, m_s.store_b, [&](auto Dc, auto SBc) {
                cpu::stage1_cell<decltype(Dc)::value, decltype(SBc)::value>(
                    B, m_cell_eq[i], V, h + B * i, b ? b + B * i : nullptr, rh, rb, invV, c,
                    m_force ? &aF : nullptr, 0.5 * dti);
            });
        }
        if (fp32 && !m_implicit) {
            m_h.store(at, nob, h);
            if (b) m_b.store(at, nob, b);
        }
    }
    ScopedTimer t("mpi_reduction");
    MPI_Allreduce(MPI_IN_PLACE, m_Facc.data(), static_cast<int>(m_Facc.size()), MPI_DOUBLE, MPI_SUM,
                  m_layout.comm_v);
    traffic_add(Traffic::ReduceV, m_layout.comm_v, sizeof(double) * m_Facc.size());
    for (std::size_t k = 0; k < m_s.jump_f.size(); ++k)
        for (int e = 0; e < 5; ++e) m_Facc[5 * m_s.jump_fp[k] + e] = -m_Facc[5 * m_s.jump_f[k] + e];
}

void UgksSolver::macro_update(double dt, StepResult& r) {
    m_Wold = m_W;
    std::vector<double>& F = m_Fsum;  // the face fluxes (the wall data below)
    for (index_t f = 0; f < m_s.nf; ++f) {
        const bool kinetic = is_kinetic_boundary(m_s.face_kind[f]);
        for (int e = 0; e < 5; ++e)
            F[5 * f + e] = m_Facc[5 * f + e] + (kinetic ? 0.0 : m_fc[f].F[e]);
    }
    double res[5] = {0, 0, 0, 0, 0}, absW[5] = {0, 0, 0, 0, 0}, mom_scale = 0.0;
    std::vector<double> Rm, dWi;
    if (m_implicit) {
        // Steady residual rates (the same face rates and sums as below, divided by dt_i), then
        // the implicit macroscopic prediction (docs/steady.md section 7).
        Rm.assign(5 * static_cast<std::size_t>(m_s.no), 0.0);
        for (index_t i = 0; i < m_s.no; ++i) {
            double dW[5];
            kern::cell_flux_sum(i, m_mesh.cell_face_offsets.data(), m_mesh.cell_faces.data(),
                                m_mesh.face_owner.data(), m_mesh.face_area.data(),
                                m_s.face_kind.data(), m_Facc.data(), m_fc.data(), m_dtc.data(),
                                m_dtf.data(), true, m_mesh.cell_volume[i], dW);
            if (m_force) kern::add_force_rate(&m_W[5 * i], m_gas.acc, dW);
            for (int e = 0; e < 5; ++e) Rm[5 * i + e] = dW[e];
        }
        implicit_macro(Rm, dWi);
        m_Rm = Rm;
    }
    for (index_t i = 0; i < m_s.no && m_implicit; ++i) {
        // Positivity: scale the cell's increment down (halving) until rho and p keep at least
        // half their values (docs/steady.md section 7.2); at convergence dW -> 0 and it is
        // inactive.
        const double theta = implicit::positive_fraction(2.0 / m_gas.N, &m_W[5 * i], &dWi[5 * i]);
        for (int e = 0; e < 5; ++e) {
            m_W[5 * i + e] += theta * dWi[5 * i + e];
            res[e] += Rm[5 * i + e] * Rm[5 * i + e];
            absW[e] += std::abs(m_W[5 * i + e]);
        }
        mom_scale += kern::momentum_scale(&m_W[5 * i], m_gas.N);
    }
    for (index_t i = 0; i < m_s.no && !m_implicit; ++i) {
        double dW[5];
        kern::cell_flux_sum(i, m_mesh.cell_face_offsets.data(), m_mesh.cell_faces.data(),
                            m_mesh.face_owner.data(), m_mesh.face_area.data(), m_s.face_kind.data(),
                            m_Facc.data(), m_fc.data(), m_dtc.data(),
                            m_local_dt ? m_dtf.data() : nullptr, false, m_mesh.cell_volume[i], dW);
        const double dti = m_local_dt ? m_dtc[i] : dt;
        if (m_force) kern::add_force_increment(&m_W[5 * i], m_gas.acc, dti, dW);
        for (int e = 0; e < 5; ++e) {
            m_W[5 * i + e] += dW[e];
            res[e] += (dW[e] / dti) * (dW[e] / dti);
            absW[e] += std::abs(m_W[5 * i + e]);
        }
        mom_scale += kern::momentum_scale(&m_W[5 * i], m_gas.N);
    }
    for (auto& wd : m_wall) {
        const index_t f = wd.local_face;
        wall_data_from_flux(&F[5 * f], m_local_dt ? m_dtf[f] : dt, &m_s.wall_U[3 * f], wd);
    }
    const double parts[7] = {res[0],  res[1] + res[2] + res[3],   res[4], absW[0], mom_scale,
                             absW[4], static_cast<double>(m_s.no)};
    residual_norms(m_layout, parts, r);
    // Failure check: non-finite W or non-positive density / temperature.
    index_t bad = -1;
    for (index_t i = 0; i < m_s.no && bad < 0; ++i)
        if (!kern::cell_state_ok(&m_W[5 * i], m_gas.N)) bad = i;
    const std::string msg =
        bad < 0 ? std::string()
                : invalid_cell_message(m_step + 1, m_local.global_cell[bad],
                                       m_mesh.cell_centroid[bad], &m_W[5 * bad], m_gas.N);
    if (agree_on_failure(m_layout, bad >= 0, msg, r)) {
        m_W = m_Wold;
        return;
    }
    if (m_local_dt && m_closed) {
        // Closed domain with local steps: sum_i V_i dW_i = -sum_f S_f F_f/dt_f (dt_L - dt_R) is
        // not zero, so the mass drifts during the transient; scale the whole state back to the
        // mass before this update (W, f* before stage 2, q: the equilibria are linear in that
        // scaling). At a fixed point the factor is exactly 1 (docs/steady.md). No stored
        // reference mass: a restart continues bit-for-bit.
        double before = 0, after = 0;
        total_mass(before, after);
        const double alpha = before / after;
        for (index_t i = 0; i < m_s.no; ++i) {
            for (int e = 0; e < 5; ++e) m_W[5 * i + e] *= alpha;
            for (int d = 0; d < 3; ++d) m_q[3 * i + d] *= alpha;
        }
        scale_distributions(alpha);
    }
}

void UgksSolver::scale_distributions(double alpha) {
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < m_s.no; ++i)
        for (int m = 0; m < m_s.nblk; ++m) {
            const std::size_t k = (static_cast<std::size_t>(m) * m_s.nc + i) * m_s.B;
            for (int v = 0; v < m_s.B; ++v) m_h.set(k + v, m_h.get(k + v) * alpha);
            if (m_s.store_b)
                for (int v = 0; v < m_s.B; ++v) m_b.set(k + v, m_b.get(k + v) * alpha);
        }
}

void UgksSolver::stage2_and_moments(double dt) {
    // dt < 0: moments only (initialization).
    const int B = m_s.B;
    std::vector<double>& mom = m_mom;
    if (dt > 0) {
        compute_prims();
        cell_tables();
    }
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < m_s.no; ++i) {
        double M[17] = {0};
        const double dti = m_local_dt ? m_dtc[i] : dt;
        const double c = dt > 0 ? 0.5 * dti / m_tau[i] : 0.0;
        const phys::Slope aF = phys::force_slope(m_cell_eq[i].U, m_cell_eq[i].lambda, m_gas.acc);
        const phys::Slope* aFp = m_force ? &aF : nullptr;
        dispatch_dsb(m_gas.D, m_s.store_b, [&](auto Dc, auto SBc) {
            constexpr int D = decltype(Dc)::value;
            constexpr bool SB = decltype(SBc)::value;
            const bool fp32 = m_h.fp32();
            double wbuf[2 * 1024];  // fp32 storage: the cell's row of one block in double
            for (int m = 0; m < m_s.nblk; ++m) {
                const std::size_t at = (static_cast<std::size_t>(m) * m_s.nc + i) * B;
                double* h = fp32 ? wbuf : m_h.f64(at);
                double* b = !SB ? nullptr : fp32 ? wbuf + B : m_b.f64(at);
                if (fp32) {
                    m_h.load(at, B, h);
                    if (SB) m_b.load(at, B, b);
                }
                const cpu::BlockVel V = block_vel(m);
                if (dt > 0)
                    cpu::stage2_cell<D, SB, true>(B, m_cell_eq[i], V, h, b, c, aFp, 0.5 * dti, M);
                else
                    cpu::stage2_cell<D, SB, false>(B, m_cell_eq[i], V, h, b, c, nullptr, 0.0, M);
                if (fp32 && dt > 0) {
                    m_h.store(at, B, h);
                    if (SB) m_b.store(at, B, b);
                }
            }
        });
        for (int k = 0; k < 17; ++k) mom[17 * i + k] = M[k];
    }
    {
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, mom.data(), static_cast<int>(mom.size()), MPI_DOUBLE, MPI_SUM,
                      m_layout.comm_v);
        traffic_add(Traffic::ReduceV, m_layout.comm_v, sizeof(double) * mom.size());
    }
    for (index_t i = 0; i < m_s.no; ++i)
        q_stress_from_raw(&mom[17 * i], m_prim[i], m_gas.D, &m_q[3 * i], &m_stress[6 * i]);
}

StepResult UgksSolver::step() { return run_step(*this); }

bool UgksSolver::freeze_limiter() {
    if (m_lim_mode != kern::kLimiterLive || m_setup.numerics.order < 2 ||
        m_s.limiter == kern::kNoLimiter)
        return false;
    m_psi_W.assign(5 * static_cast<std::size_t>(m_s.nc), 1.0);
    m_psi_h.assign(m_h.size(), kern::limiter_code(1.0));
    m_psi_b.assign(m_b.size(), kern::limiter_code(1.0));
    m_lim_mode = kern::kLimiterFrozen;
    m_lim_step = m_step;
    return true;
}

void UgksSolver::exchange_macro() {
    exchange(m_W.data(), 5);
    exchange(m_q.data(), 3);
}

void UgksSolver::exchange(double* data, int width, bool scaled, bool fp32_values) {
    m_halo.exchange(data, width);
    const index_t n = static_cast<index_t>(m_s.img_dst.size());
    for (index_t k = 0; k < n; ++k)
        for (int j = 0; j < width; ++j)
            if (fp32_values)
                kern::fill_image<float>(data, width, k, j, m_s.img_src.data(), m_s.img_dst.data(),
                                        m_s.img_scale.data(), scaled);
            else
                kern::fill_image(data, width, k, j, m_s.img_src.data(), m_s.img_dst.data(),
                                 m_s.img_scale.data(), scaled);
}

void UgksSolver::jump_face_coeffs(double dt) {
    for (std::size_t k = 0; k < m_s.jump_f.size(); ++k) {
        const index_t f = m_s.jump_f[k], g = m_s.jump_fp[k];
        const double dtf = m_local_dt ? m_dtf[f] : dt;
        kern::jump_partner_F(m_fc[f].p0, m_s.jump_d[k], dtf, &m_s.normal[3 * f], m_fc[f].F,
                             m_fc[g].F);
    }
}

void UgksSolver::cell_states() {
    compute_prims();
    if (m_pressure_faces) ghost_states();
    cell_tables();
}

void UgksSolver::ghost_states() {
    for (std::size_t k = 0; k < m_s.ghost_face.size(); ++k) {
        const index_t f = m_s.ghost_face[k];
        const BoundaryCondition& bc = m_setup.boundaries[m_s.face_bc[f]];
        const int mode = bc.ghost_mode();
        if (mode == kern::kGhostFixed) continue;
        const phys::Prim g = kern::pressure_ghost(mode, bc.p, bc.T, m_prim[m_mesh.face_owner[f]]);
        kern::ghost_state(g, m_gas, &m_ghost_W[5 * k], m_ghost_eq[k]);
    }
}

void UgksSolver::advance(double dt) {
    ++m_step;
    m_time += dt;
}

std::vector<CellField> UgksSolver::fields() const {
    return cell_output_fields(m_s.no, m_W.data(), m_q.data(), m_stress, m_gas.N, m_gas.omega,
                              m_setup.gas.Kn);
}

std::array<double, 5> UgksSolver::totals() const {
    std::array<double, 5> t{0, 0, 0, 0, 0};
    for (index_t i = 0; i < m_s.no; ++i)
        for (int e = 0; e < 5; ++e) t[e] += m_W[5 * i + e] * m_mesh.cell_volume[i];
    MPI_Allreduce(MPI_IN_PLACE, t.data(), 5, MPI_DOUBLE, MPI_SUM, m_layout.comm_x);
    traffic_add(Traffic::ReduceX, m_layout.comm_x, sizeof(double) * 5);
    return t;
}

}  // namespace ugks

namespace ugks {

SolverState UgksSolver::state_export() const {
    SolverState s{m_step, m_time, m_W, m_q, m_stress, m_h.to_double(), m_b.to_double(), {}};
    s.fp32 = m_h.fp32();
    if (m_lim_mode == kern::kLimiterFrozen)
        s.limiter = frozen_limiter_export(m_lim_step, m_psi_W, m_psi_h, m_psi_b);
    return s;
}

void UgksSolver::state_import(const SolverState& s) {
    UGKS_REQUIRE(s.W.size() == m_W.size() && s.q.size() == m_q.size() &&
                     s.stress.size() == m_stress.size() && s.h.size() == m_h.size() &&
                     s.b.size() == m_b.size(),
                 "state_import: state sizes do not match this solver");
    m_step = s.step;
    m_time = s.time;
    m_W = s.W;
    m_q = s.q;
    m_stress = s.stress;
    m_h.from_double(s.h);  // rounded to float with fp32 storage (a checkpoint of fp64 storage)
    m_b.from_double(s.b);
    m_lim_mode = kern::kLimiterLive;
    m_lim_step = -1;
    if (s.limiter.step >= 0 && freeze_limiter()) {
        UGKS_REQUIRE(s.limiter.W.size() == m_psi_W.size() && s.limiter.h.size() == m_h.size() &&
                         s.limiter.b.size() == m_b.size(),
                     "state_import: frozen limiter sizes do not match this solver");
        frozen_limiter_import(s.limiter, m_psi_W, m_psi_h, m_psi_b);
        m_lim_step = s.limiter.step;
    }
    compute_prims();
}

}  // namespace ugks
