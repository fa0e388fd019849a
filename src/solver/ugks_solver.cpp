// The UGKS single-sweep step on the CPU backend (ugks-formulation.md section 10, decisions U1-U10).
#include "ugks/solver/ugks_solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "cpu_kernels.hpp"
#include "ugks/core/error.hpp"
#include "ugks/core/timer.hpp"
#include "ugks/solver/implicit_ops.hpp"
#include "ugks/solver/raw_moments.hpp"

namespace ugks {
namespace {

constexpr double kPi = 3.14159265358979323846;

inline double dot3(const double* a, const double* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/// Venkatakrishnan / Barth-Jespersen limiter factor for one face (section 4.3).
inline double limiter_face(int kind, double d1max, double d1min, double d2, double eps2) {
    if (kind == 0) {  // venkatakrishnan
        if (d2 == 0.0) return 1.0;
        const double d1 = d2 > 0 ? d1max : d1min;
        const double num = (d1 * d1 + eps2) + 2.0 * d1 * d2;
        const double den = d1 * d1 + 2.0 * d2 * d2 + d1 * d2 + eps2;
        return std::min(1.0, num / den);
    }
    if (kind == 1) {  // barth_jespersen
        if (d2 > 0) return std::min(1.0, d1max / d2);
        if (d2 < 0) return std::min(1.0, d1min / d2);
        return 1.0;
    }
    return 1.0;
}

inline double gauss_norm(double lambda, int D) {
    const double r = lambda / kPi;
    return D == 1 ? std::sqrt(r) : (D == 2 ? r : r * std::sqrt(r));
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

int limiter_kind(const std::string& s) {
    return s == "venkatakrishnan" ? 0 : s == "barth_jespersen" ? 1 : 2;
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
    m_gas.D = grid.dim;
    m_gas.K = 3 - grid.dim + setup.gas.K_int;
    m_gas.N = 3 + setup.gas.K_int;
    m_gas.Pr = setup.gas.Pr;
    m_gas.mu_ref = setup.gas.mu_ref;
    m_gas.omega = setup.gas.omega;
    m_dim = m_s.dim;
    m_B = m_s.B;
    m_nblk = m_s.nblk;
    m_first = m_s.first;
    m_nc = m_s.nc;
    m_no = m_s.no;
    m_nf = m_s.nf;
    m_store_b = m_s.store_b;
    const index_t ns = m_s.ns;
    for (index_t f = 0; f < m_nf; ++f)
        if (m_s.face_kind[f] == kDiffuseWall || m_s.face_kind[f] == kSymmetry)
            m_wall.push_back({f, {0, 0, 0}, 0.0});
    m_sym_h.assign(m_s.nsym * ns, 0.0);
    if (m_store_b) m_sym_b.assign(m_s.nsym * ns, 0.0);

    m_W.assign(5 * m_nc, 0.0);
    m_Wold.assign(5 * m_nc, 0.0);
    m_gradW.assign(15 * m_nc, 0.0);
    m_q.assign(3 * m_nc, 0.0);
    m_tau.assign(m_nc, 0.0);
    m_prim.assign(m_nc, phys::Prim{});
    m_stress.assign(6 * m_no, 0.0);
    m_h.assign(static_cast<std::size_t>(m_nc) * ns, 0.0);
    if (m_store_b) m_b.assign(static_cast<std::size_t>(m_nc) * ns, 0.0);
    m_fc.assign(m_nf, phys::FaceCoeffs{});
    m_Facc.assign(5 * m_nf, 0.0);
    m_rho_wall.assign(m_nf, 0.0);
    m_gh.assign(m_setup.numerics.order >= 2 ? 3 * static_cast<std::size_t>(m_B) * m_nc : 0, 0.0);
    m_gb.assign(
        m_setup.numerics.order >= 2 && m_store_b ? 3 * static_cast<std::size_t>(m_B) * m_nc : 0,
        0.0);
    m_phi_h.assign(static_cast<std::size_t>(m_nf) * m_B, 0.0);
    m_phi_b.assign(m_store_b ? static_cast<std::size_t>(m_nf) * m_B : 0, 0.0);
    m_Fsum.assign(5 * static_cast<std::size_t>(m_nf), 0.0);
    m_mom.assign(17 * static_cast<std::size_t>(m_no), 0.0);
    // per-face exponential tables of the ghost-Maxwellian faces (scalar boundary path)
    if (m_s.tensor) m_faceE.assign(static_cast<std::size_t>(m_nf) * m_s.ntab, 0.0);
    m_cell_eq.assign(m_no, cpu::EqConst{});
    // Venkatakrishnan threshold scale (K dh)^3, dh = V^(1/dim)
    m_kd3.assign(m_no, 0.0);
    for (index_t i = 0; i < m_no; ++i)
        m_kd3[i] = std::pow(
            setup.numerics.venkatakrishnan_k * std::pow(m_mesh.cell_volume[i], 1.0 / m_dim), 3.0);
    m_flux_const.assign(m_nf, cpu::FluxConst{});
    m_halo = HaloExchange(layout.comm_x, local.halo);
    m_local_dt = setup.time.steady();
    if (m_local_dt) {
        m_dtc.assign(m_nc, 0.0);
        m_dtf.assign(m_nf, 0.0);
    }
    m_implicit = setup.time.implicit();
    if (m_implicit) {
        m_res_h.assign(static_cast<std::size_t>(m_nc) * ns, 0.0);
        if (m_store_b) m_res_b.assign(static_cast<std::size_t>(m_nc) * ns, 0.0);
        implicit_ordering();
    }
}

UgksSolver::~UgksSolver() = default;

void UgksSolver::initialize() {
    for (index_t c = 0; c < m_nc; ++c) {
        const InitialState st = initial_state_at(m_setup, m_mesh.cell_centroid[c]);
        phys::Prim p;
        p.rho = st.rho;
        for (int d = 0; d < 3; ++d) p.U[d] = st.U[d];
        p.lambda = 1.0 / st.T;
        phys::prim_to_cons(p, m_gas.N, &m_W[5 * c]);
    }
    compute_prims();
    const double zero_q[3] = {0, 0, 0};
    const index_t ns = static_cast<index_t>(m_nblk) * m_B;
#pragma omp parallel for schedule(static)
    for (index_t c = 0; c < m_nc; ++c) {
        for (int m = 0; m < m_nblk; ++m) {
            for (int v = 0; v < m_B; ++v) {
                const index_t s = static_cast<index_t>(m) * m_B + v;
                const index_t k = (static_cast<index_t>(m) * m_nc + c) * m_B + v;
                double hp, bp;
                phys::shakhov_equilibrium(m_prim[c], zero_q, m_gas, &m_s.u[3 * s], hp, bp);
                m_h[k] = hp;
                if (m_store_b) m_b[k] = bp;
            }
        }
    }
    (void)ns;
    stage2_and_moments(-1.0);  // moments only: q and stress of the initial distributions
    if (m_local_dt) {
        // Closed domain (walls, symmetry planes, periodic faces only): the total mass is an
        // invariant of the transient scheme that local time steps would not keep (docs/steady.md).
        int open = 0;
        for (index_t f = 0; f < m_nf; ++f)
            if (m_s.face_kind[f] == kGhostMaxwellian || m_s.face_kind[f] == kOutflow) open = 1;
        MPI_Allreduce(MPI_IN_PLACE, &open, 1, MPI_INT, MPI_MAX, m_layout.world);
        m_closed = open == 0;
    }
}

void UgksSolver::total_mass(double& before, double& after) const {
    double m[2] = {0.0, 0.0};
    for (index_t i = 0; i < m_no; ++i) {
        m[0] += m_Wold[5 * i] * m_mesh.cell_volume[i];
        m[1] += m_W[5 * i] * m_mesh.cell_volume[i];
    }
    MPI_Allreduce(MPI_IN_PLACE, m, 2, MPI_DOUBLE, MPI_SUM, m_layout.comm_x);
    // every velocity rank must scale by the same bits (W is replicated over comm_v)
    MPI_Bcast(m, 2, MPI_DOUBLE, 0, m_layout.comm_v);
    before = m[0];
    after = m[1];
}

double UgksSolver::compute_local_dt() {
    // The rule of compute_dt, per cell: dt_i = CFL * 2 V_i / sum_f S_f s_f,i.
    double dtmin = HUGE_VAL;
    for (index_t i = 0; i < m_no; ++i) {
        m_dtc[i] = m_setup.numerics.cfl * cfl_ratio(i);
        dtmin = std::min(dtmin, m_dtc[i]);
    }
    {
        ScopedTimer t("mpi_halo");
        m_halo.exchange(m_dtc.data(), 1);
    }
    // Face step: the smaller of its two cells' steps (a boundary face: its cell's), the same on
    // every rank that holds the face.
    for (index_t f = 0; f < m_nf; ++f) {
        const index_t L = m_mesh.face_owner[f], R = m_mesh.face_neighbour[f];
        m_dtf[f] = R >= 0 ? std::min(m_dtc[L], m_dtc[R]) : m_dtc[L];
    }
    MPI_Allreduce(MPI_IN_PLACE, &dtmin, 1, MPI_DOUBLE, MPI_MIN, m_layout.world);
    return dtmin;
}

void UgksSolver::compute_prims() {
#pragma omp parallel for schedule(static)
    for (index_t c = 0; c < m_nc; ++c) {
        m_prim[c] = phys::cons_to_prim(&m_W[5 * c], m_gas.N);
        m_tau[c] = phys::relaxation_time(m_prim[c], m_gas);
    }
}

void UgksSolver::exp_table(const phys::Prim& p, double* E) const {
    for (int d = 0; d < m_gas.D; ++d) {
        const int n = (d + 1 < 3 ? m_s.axis_off[d + 1] : m_s.ntab) - m_s.axis_off[d];
        for (int i = 0; i < n; ++i) {
            const double c = m_s.axis_x[m_s.axis_off[d] + i] - p.U[d];
            E[m_s.axis_off[d] + i] = std::exp(-p.lambda * c * c);
        }
    }
}

inline double UgksSolver::maxwellian_at(const phys::Prim& p, double norm, const double* E,
                                        index_t s) const {
    if (!m_s.tensor) {
        double c2 = 0.0;
        for (int d = 0; d < m_gas.D; ++d)
            c2 += (m_s.u[3 * s + d] - p.U[d]) * (m_s.u[3 * s + d] - p.U[d]);
        return p.rho * norm * std::exp(-p.lambda * c2);
    }
    const int* idx = &m_s.slot_idx[3 * s];
    if (idx[0] < 0) return 0.0;  // padding slot
    double H = p.rho * norm * E[idx[0]];
    if (m_gas.D > 1) H *= E[idx[1]];
    if (m_gas.D > 2) H *= E[idx[2]];
    return H;
}

void UgksSolver::cell_tables() {
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < m_no; ++i) {
        m_cell_eq[i] = cpu::eq_const(m_prim[i], &m_q[3 * i], m_gas);
    }
}

cpu::BlockVel UgksSolver::block_vel(int m) const {
    const index_t s0 = static_cast<index_t>(m) * m_B;
    return {m_s.ux.data() + s0, m_s.uy.data() + s0, m_s.uz.data() + s0, m_s.w.data() + s0};
}

double UgksSolver::cfl_ratio(index_t i) const {
    const double gamma = (m_gas.N + 2.0) / m_gas.N;
    const auto& p = m_prim[i];
    const double c = std::sqrt(gamma / (2.0 * p.lambda));
    double sum = 0.0;
    for (index_t k = m_mesh.cell_face_offsets[i]; k < m_mesh.cell_face_offsets[i + 1]; ++k) {
        const index_t f = m_mesh.cell_faces[k];
        const auto& n = m_mesh.face_normal[f];
        const double Un = std::abs(p.U[0] * n[0] + p.U[1] * n[1] + p.U[2] * n[2]);
        const double umax =
            m_s.umax_axis[0] * std::abs(n[0]) + m_s.umax_axis[1] * std::abs(n[1]) +
            m_s.umax_axis[2] * std::abs(n[2]);  // >= max_k |u_k.n|, equal on tensor grids
        sum += m_mesh.face_area[f] * std::max(umax, Un + c);
    }
    return 2.0 * m_mesh.cell_volume[i] / sum;
}

double UgksSolver::compute_dt() const {
    double ratio = HUGE_VAL;
    for (index_t i = 0; i < m_no; ++i) ratio = std::min(ratio, cfl_ratio(i));
    double dt = m_setup.numerics.cfl * ratio;
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MIN, m_layout.world);
    if (m_setup.time.end_time > 0) dt = std::min(dt, m_setup.time.end_time - m_time);
    return dt;
}

void UgksSolver::gradients_W() {
    std::fill(m_gradW.begin(), m_gradW.end(), 0.0);
    if (m_setup.numerics.order < 2) return;
    const int kind = limiter_kind(m_setup.numerics.limiter);
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < m_no; ++i) {
        double* g = &m_gradW[15 * i];
        double vmax[5], vmin[5], scale[5];
        for (int e = 0; e < 5; ++e)
            vmax[e] = vmin[e] = m_W[5 * i + e], scale[e] = std::abs(m_W[5 * i + e]);
        index_t slot = m_s.lsq_off[i];
        for (index_t k = m_mesh.cell_face_offsets[i]; k < m_mesh.cell_face_offsets[i + 1];
             ++k, ++slot) {
            const index_t f = m_mesh.cell_faces[k];
            const index_t j =
                m_mesh.face_owner[f] == i ? m_mesh.face_neighbour[f] : m_mesh.face_owner[f];
            if (j < 0) continue;
            for (int e = 0; e < 5; ++e) {
                const double dphi = m_W[5 * j + e] - m_W[5 * i + e];
                for (int d = 0; d < 3; ++d) g[3 * e + d] += m_s.lsq[3 * slot + d] * dphi;
                vmax[e] = std::max(vmax[e], m_W[5 * j + e]);
                vmin[e] = std::min(vmin[e], m_W[5 * j + e]);
                scale[e] = std::max(scale[e], std::abs(m_W[5 * j + e]));
            }
        }
        if (kind == 2) continue;
        const double kd3 = m_kd3[i];
        for (int e = 0; e < 5; ++e) {
            double psi = 1.0;
            const double eps2 = kd3 * scale[e] * scale[e] + 1e-300;
            for (index_t k = m_s.lsq_off[i]; k < m_s.lsq_off[i + 1]; ++k) {
                const double d2 = dot3(&g[3 * e], &m_s.slot_dx[3 * k]);
                psi = std::min(psi, limiter_face(kind, vmax[e] - m_W[5 * i + e],
                                                 vmin[e] - m_W[5 * i + e], d2, eps2));
            }
            for (int d = 0; d < 3; ++d) g[3 * e + d] *= psi;
        }
    }
    m_halo.exchange(m_gradW.data(), 15);
}

void UgksSolver::face_precompute(double dt) {
#pragma omp parallel for schedule(dynamic, 64)
    for (index_t f = 0; f < m_nf; ++f) {
        const int bc = m_s.face_bc[f];
        std::string_view type =
            bc >= 0 ? std::string_view(m_setup.boundaries[bc].type) : std::string_view();
        if (bc >= 0 && (type == "diffuse_wall" || type == "symmetry")) continue;
        phys::FaceInput in{};
        const index_t L = m_mesh.face_owner[f];
        const auto& n = m_mesh.face_normal[f];
        for (int e = 0; e < 5; ++e) {
            in.WL[e] = m_W[5 * L + e];
            for (int d = 0; d < 3; ++d) in.gradWL[e][d] = m_gradW[15 * L + 3 * e + d];
        }
        for (int d = 0; d < 3; ++d) {
            in.xL[d] = m_mesh.cell_centroid[L][d];
            in.xf[d] = m_mesh.face_centroid[f][d];
            in.n[d] = n[d];
            in.qL[d] = m_q[3 * L + d];
        }
        if (bc < 0) {
            const index_t R = m_mesh.face_neighbour[f];
            for (int e = 0; e < 5; ++e) {
                in.WR[e] = m_W[5 * R + e];
                for (int d = 0; d < 3; ++d) in.gradWR[e][d] = m_gradW[15 * R + 3 * e + d];
            }
            for (int d = 0; d < 3; ++d) {
                in.xR[d] = in.xf[d] - m_s.face_dxR[3 * f + d];  // the neighbour's image
                in.qR[d] = m_q[3 * R + d];
            }
        } else {
            const auto& B = m_setup.boundaries[bc];
            for (int d = 0; d < 3; ++d) in.xR[d] = in.xf[d] - m_s.face_dxR[3 * f + d];
            if (type == "outflow") {
                for (int e = 0; e < 5; ++e) in.WR[e] = in.WL[e];
                for (int d = 0; d < 3; ++d) in.qR[d] = in.qL[d];
            } else {  // far_field / inflow: ghost Maxwellian, zero gradient, no heat flux
                phys::Prim g;
                g.rho = B.rho;
                for (int d = 0; d < 3; ++d) g.U[d] = B.U[d];
                g.lambda = 1.0 / B.T;
                phys::prim_to_cons(g, m_gas.N, in.WR);
            }
        }
        phys::face_equilibrium(in, m_gas, m_local_dt ? m_dtf[f] : dt, m_fc[f]);
        if (bc < 0)
            m_flux_const[f] = cpu::flux_const(m_fc[f], m_gas, n.data(), &m_s.face_dxL[3 * f],
                                              &m_s.face_dxR[3 * f]);
        if (m_s.tensor && bc >= 0)
            exp_table(m_fc[f].p0, &m_faceE[static_cast<std::size_t>(f) * m_s.ntab]);
    }
}

void UgksSolver::wall_densities() {
    const index_t ns = static_cast<index_t>(m_nblk) * m_B;
    // Diffuse walls (decision U7): incident mass flux from cell values at t^n, reduced over C_v.
    std::vector<double> sums(2 * m_wall.size(), 0.0);
    for (std::size_t iw = 0; iw < m_wall.size(); ++iw) {
        const index_t f = m_wall[iw].local_face;
        const auto& B = m_setup.boundaries[m_s.face_bc[f]];
        const index_t i = m_mesh.face_owner[f];
        const auto& n = m_mesh.face_normal[f];
        if (B.type == "symmetry") {
            const index_t row = m_s.sym_index[f];
            for (int m = 0; m < m_nblk; ++m)
                for (int v = 0; v < m_B; ++v) {
                    const index_t s = static_cast<index_t>(m) * m_B + v;
                    const index_t k = (static_cast<index_t>(m) * m_nc + i) * m_B + v;
                    m_sym_h[row * ns + s] = m_h[k];
                    if (m_store_b) m_sym_b[row * ns + s] = m_b[k];
                }
            continue;
        }
        const double lw = 1.0 / B.T;
        const double norm = std::pow(lw / kPi, 0.5 * m_gas.D);
        double num = 0.0, den = 0.0;
        for (int m = 0; m < m_nblk; ++m)
            for (int v = 0; v < m_B; ++v) {
                const index_t s = static_cast<index_t>(m) * m_B + v;
                const double* u = &m_s.u[3 * s];
                const double un = dot3(u, n.data());
                if (un > 0) {
                    num += m_s.w[s] * un * m_h[(static_cast<index_t>(m) * m_nc + i) * m_B + v];
                } else if (un < 0) {
                    double c2 = 0.0;
                    for (int d = 0; d < 3; ++d) c2 += (u[d] - B.U[d]) * (u[d] - B.U[d]);
                    den -= m_s.w[s] * un * norm * std::exp(-lw * c2);
                }
            }
        sums[2 * iw] = num;
        sums[2 * iw + 1] = den;
    }
    {
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_DOUBLE, MPI_SUM,
                      m_layout.comm_v);
    }
    for (std::size_t iw = 0; iw < m_wall.size(); ++iw)
        if (sums[2 * iw + 1] > 0)
            m_rho_wall[m_wall[iw].local_face] = sums[2 * iw] / sums[2 * iw + 1];
}

void UgksSolver::gradient_block(const double* f, double* grad) const {
    const int B = m_B;
    const int kind = limiter_kind(m_setup.numerics.limiter);
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < m_no; ++i) {
        // neighbours in cell-face order (boundary faces: -1; their LSQ part is in the matrix)
        index_t nbr[64];
        const index_t k0 = m_mesh.cell_face_offsets[i];
        const int nf = static_cast<int>(m_mesh.cell_face_offsets[i + 1] - k0);
        UGKS_REQUIRE(nf <= 64, "cell with more than 64 faces");
        for (int k = 0; k < nf; ++k) {
            const index_t fc = m_mesh.cell_faces[k0 + k];
            nbr[k] = m_mesh.face_owner[fc] == i ? m_mesh.face_neighbour[fc] : m_mesh.face_owner[fc];
        }
        const index_t slot = m_s.lsq_off[i];
        const double* c = &m_s.lsq[3 * slot];
        const double* dx = &m_s.slot_dx[3 * slot];
        double* g = grad + 3 * B * i;
        if (kind == 0)
            cpu::gradient_limited_cell<0>(B, f, i, nbr, nf, c, dx, m_kd3[i], g);
        else if (kind == 1)
            cpu::gradient_limited_cell<1>(B, f, i, nbr, nf, c, dx, m_kd3[i], g);
        else
            cpu::gradient_limited_cell<2>(B, f, i, nbr, nf, c, dx, m_kd3[i], g);
    }
}

void UgksSolver::sweep(double dt) {
    const int B = m_B;
    const index_t ns = static_cast<index_t>(m_nblk) * B;
    const bool second = m_setup.numerics.order >= 2;
    std::fill(m_Facc.begin(), m_Facc.end(), 0.0);
    std::vector<double>& gh = m_gh;
    std::vector<double>& gb = m_gb;
    std::vector<double>& phi_h = m_phi_h;
    std::vector<double>& phi_b = m_phi_b;
    const double zero3[3] = {0, 0, 0};

    for (int m = 0; m < m_nblk; ++m) {
        double* h = &m_h[static_cast<std::size_t>(m) * m_nc * B];
        double* b = m_store_b ? &m_b[static_cast<std::size_t>(m) * m_nc * B] : nullptr;
        const index_t s0 = static_cast<index_t>(m) * B;
        {
            ScopedTimer t("mpi_halo");
            m_halo.exchange(h, B);
            if (b) m_halo.exchange(b, B);
        }
        if (second) {
            ScopedTimer t("reconstruction");
            gradient_block(h, gh.data());
            if (b) gradient_block(b, gb.data());
            ScopedTimer t2("mpi_halo");
            m_halo.exchange(gh.data(), 3 * B);
            if (b) m_halo.exchange(gb.data(), 3 * B);
        }

        // Face fluxes of this block (face-flux cache) and the block's share of the macroscopic
        // flux.
        timers().start("flux");
        const cpu::BlockVel V = block_vel(m);
        dispatch_dsb(m_gas.D, m_store_b, [&](auto Dc, auto SBc) {
            constexpr int D = decltype(Dc)::value;
            constexpr bool SB = decltype(SBc)::value;
            auto interior =
                second ? &cpu::flux_interior<D, SB, true> : &cpu::flux_interior<D, SB, false>;
#pragma omp parallel for schedule(dynamic, 32)
            for (index_t f = 0; f < m_nf; ++f) {
                if (m_s.face_kind[f] == kInterior) {
                    const index_t L = m_mesh.face_owner[f];
                    const index_t R = m_mesh.face_neighbour[f];
                    double acc[5] = {0, 0, 0, 0, 0};
                    const std::size_t gL = 3 * static_cast<std::size_t>(B) * L;
                    const std::size_t gR = 3 * static_cast<std::size_t>(B) * R;
                    interior(B, m_flux_const[f], V, h + B * L, h + B * R, SB ? b + B * L : nullptr,
                             SB ? b + B * R : nullptr, second ? gh.data() + gL : nullptr,
                             second ? gh.data() + gR : nullptr,
                             second && SB ? gb.data() + gL : nullptr,
                             second && SB ? gb.data() + gR : nullptr, &phi_h[f * B],
                             SB ? &phi_b[f * B] : nullptr, acc);
                    for (int e = 0; e < 5; ++e) m_Facc[5 * f + e] += acc[e];
                    continue;
                }
                const int bc = m_s.face_bc[f];
                const BoundaryCondition* BC = bc >= 0 ? &m_setup.boundaries[bc] : nullptr;
                const index_t L = m_mesh.face_owner[f];
                const index_t R = m_mesh.face_neighbour[f];
                const double* n = m_mesh.face_normal[f].data();
                double acc[5] = {0, 0, 0, 0, 0};
                const int kind = m_s.face_kind[f];
                const bool wall = kind == 1;
                const bool sym = kind == 2;
                if (wall || sym) {
                    const double dtw = m_local_dt ? m_dtf[f] : dt;
                    const double lw = wall ? 1.0 / BC->T : 1.0;
                    const double norm = std::pow(lw / kPi, 0.5 * m_gas.D);
                    const double rw = m_rho_wall[f];
                    const index_t row = sym ? m_s.sym_index[f] : -1;
                    const int axis = sym ? BC->symmetry_axis : 0;
                    for (int v = 0; v < B; ++v) {
                        const index_t s = s0 + v;
                        const double* u = &m_s.u[3 * s];
                        const double un = dot3(u, n);
                        double hf, bf = 0.0;
                        if (un > 0) {
                            hf = h[B * L + v];
                            if (b) bf = b[B * L + v];
                        } else if (wall) {
                            double c2 = 0.0;
                            for (int d = 0; d < 3; ++d) c2 += (u[d] - BC->U[d]) * (u[d] - BC->U[d]);
                            hf = rw * norm * std::exp(-lw * c2);
                            bf = 0.5 * m_gas.K / lw * hf;
                        } else {
                            const index_t gm =
                                m_blocks.mirror[axis][static_cast<index_t>(m_first) * B + s];
                            // padding slots (weight 0) have no mirror (gm = -1): no incident value
                            const index_t sm = gm >= 0 ? gm - static_cast<index_t>(m_first) * B : -1;
                            hf = sm >= 0 ? m_sym_h[row * ns + sm] : 0.0;
                            if (b) bf = sm >= 0 ? m_sym_b[row * ns + sm] : 0.0;
                        }
                        const double ph = dtw * un * hf, pb = dtw * un * bf;
                        phi_h[f * B + v] = ph;
                        if (b) phi_b[f * B + v] = pb;
                        const double w = m_s.w[s];
                        acc[0] += w * ph;
                        acc[1] += w * u[0] * ph;
                        acc[2] += w * u[1] * ph;
                        acc[3] += w * u[2] * ph;
                        acc[4] += w * 0.5 * (dot3(u, u) * ph + pb);
                    }
                } else {
                    const phys::FaceCoeffs& fc = m_fc[f];
                    const double norm0 = gauss_norm(fc.p0.lambda, m_gas.D);
                    const double* fE =
                        m_s.tensor ? &m_faceE[static_cast<std::size_t>(f) * m_s.ntab] : nullptr;
                    // Ghost distributions of far-field / inflow faces: the ghost Maxwellian, zero
                    // gradient.
                    const bool ghost_maxwellian = kind == 3;
                    phys::Prim pg;
                    if (ghost_maxwellian) {
                        pg.rho = BC->rho;
                        for (int d = 0; d < 3; ++d) pg.U[d] = BC->U[d];
                        pg.lambda = 1.0 / BC->T;
                    }
                    for (int v = 0; v < B; ++v) {
                        const index_t s = s0 + v;
                        const double* u = &m_s.u[3 * s];
                        const double un = dot3(u, n);
                        double hf, bf = 0.0;
                        double ghf[3] = {0, 0, 0}, gbf[3] = {0, 0, 0};
                        // Upwind cell (section 4.4); at a boundary face the ghost side is the
                        // far-field Maxwellian (far_field / inflow) or the owner's constant state
                        // (outflow: zero gradient).
                        index_t c = -1;
                        if (un > 0)
                            c = L;
                        else if (R >= 0)
                            c = R;
                        if (c >= 0) {
                            const double* dxc =
                                c == L ? &m_s.face_dxL[3 * f] : &m_s.face_dxR[3 * f];
                            hf = h[B * c + v];
                            if (b) bf = b[B * c + v];
                            if (second) {
                                for (int d = 0; d < 3; ++d) {
                                    ghf[d] = gh[3 * B * c + d * B + v];
                                    if (b) gbf[d] = gb[3 * B * c + d * B + v];
                                    hf += ghf[d] * dxc[d];
                                    if (b) bf += gbf[d] * dxc[d];
                                }
                            }
                        } else if (ghost_maxwellian) {
                            double H, Bm;
                            phys::maxwellian(pg, m_gas, u, H, Bm);
                            hf = H;
                            bf = Bm;
                        } else {
                            hf = h[B * L + v];
                            if (b) bf = b[B * L + v];
                        }
                        double ph, pb, fmh, fmb;
                        const double H0 = maxwellian_at(fc.p0, norm0, fE, s);
                        phys::micro_flux_H(fc, m_gas, u, un, H0, hf, bf, ghf, b ? gbf : zero3, ph,
                                           pb, fmh, fmb);
                        phi_h[f * B + v] = ph;
                        if (b) phi_b[f * B + v] = pb;
                        const double w = m_s.w[s];
                        acc[0] += w * fmh;
                        acc[1] += w * u[0] * fmh;
                        acc[2] += w * u[1] * fmh;
                        acc[3] += w * u[2] * fmh;
                        acc[4] += w * 0.5 * (dot3(u, u) * fmh + (b ? fmb : 0.0));
                    }
                }
                for (int e = 0; e < 5; ++e) m_Facc[5 * f + e] += acc[e];
            }
        });
        timers().stop("flux");

        // Stage 1 (section 6.3), in place: f* = f - (1/V) sum sigma S Phi + (dt/2)(f+^n -
        // f^n)/tau^n.
        ScopedTimer t("update");
#pragma omp parallel for schedule(static)
        for (index_t i = 0; i < m_no; ++i) {
            double rbuf[2 * 1024];
            double* rh = rbuf;
            double* rb = rh + B;
            for (int v = 0; v < 2 * B; ++v) rbuf[v] = 0.0;
            for (index_t k = m_mesh.cell_face_offsets[i]; k < m_mesh.cell_face_offsets[i + 1];
                 ++k) {
                const index_t f = m_mesh.cell_faces[k];
                double sS = (m_mesh.face_owner[f] == i ? 1.0 : -1.0) * m_mesh.face_area[f];
                if (m_local_dt) sS *= m_dtc[i] / m_dtf[f];  // rate Phi_f / dt_f times dt_i
                for (int v = 0; v < B; ++v) rh[v] += sS * phi_h[f * B + v];
                if (b)
                    for (int v = 0; v < B; ++v) rb[v] += sS * phi_b[f * B + v];
            }
            const double invV = 1.0 / m_mesh.cell_volume[i];
            if (m_implicit) {
                // implicit steady iteration: keep the flux residual rate for implicit_micro
                // (rh was accumulated with the factor dt_i / dt_f: divide by dt_i)
                const double sc = -invV / m_dtc[i];
                const std::size_t k = (static_cast<std::size_t>(m) * m_nc + i) * B;
                for (int v = 0; v < B; ++v) m_res_h[k + v] = sc * rh[v];
                if (b)
                    for (int v = 0; v < B; ++v) m_res_b[k + v] = sc * rb[v];
                continue;
            }
            const double c = 0.5 * (m_local_dt ? m_dtc[i] : dt) / m_tau[i];
            dispatch_dsb(m_gas.D, m_store_b, [&](auto Dc, auto SBc) {
                cpu::stage1_cell<decltype(Dc)::value, decltype(SBc)::value>(
                    B, m_cell_eq[i], V, h + B * i, b ? b + B * i : nullptr, rh, rb, invV, c);
            });
        }
    }
    ScopedTimer t("mpi_reduction");
    MPI_Allreduce(MPI_IN_PLACE, m_Facc.data(), static_cast<int>(m_Facc.size()), MPI_DOUBLE, MPI_SUM,
                  m_layout.comm_v);
}

void UgksSolver::macro_update(double dt, StepResult& r) {
    m_Wold = m_W;
    std::vector<double>& F = m_Fsum;
    for (index_t f = 0; f < m_nf; ++f) {
        const int bc = m_s.face_bc[f];
        const bool kinetic = m_s.face_kind[f] == 1 || m_s.face_kind[f] == 2;
        (void)bc;
        for (int e = 0; e < 5; ++e)
            F[5 * f + e] = m_Facc[5 * f + e] + (kinetic ? 0.0 : m_fc[f].F[e]);
    }
    double res[5] = {0, 0, 0, 0, 0}, absW[5] = {0, 0, 0, 0, 0}, mom_scale = 0.0;
    std::vector<double> Rm, dWi;
    if (m_implicit) {
        // Steady residual rates (the same face rates and sums as below, divided by dt_i), then
        // the implicit macroscopic prediction (docs/steady.md section 7).
        Rm.assign(5 * static_cast<std::size_t>(m_no), 0.0);
        for (index_t i = 0; i < m_no; ++i) {
            double dW[5] = {0, 0, 0, 0, 0};
            for (index_t k = m_mesh.cell_face_offsets[i]; k < m_mesh.cell_face_offsets[i + 1];
                 ++k) {
                const index_t f = m_mesh.cell_faces[k];
                const double sS =
                    (m_mesh.face_owner[f] == i ? 1.0 : -1.0) * m_mesh.face_area[f] / m_dtf[f];
                for (int e = 0; e < 5; ++e) dW[e] -= sS * F[5 * f + e];
            }
            for (int e = 0; e < 5; ++e) Rm[5 * i + e] = dW[e] / m_mesh.cell_volume[i];
        }
        implicit_macro(Rm, dWi);
        m_Rm = Rm;
    }
    for (index_t i = 0; i < m_no && m_implicit; ++i) {
        // Positivity: scale the cell's increment down (halving) until rho and p keep at least
        // half their values (docs/steady.md section 7.2); at convergence dW -> 0 and it is
        // inactive.
        const double theta = implicit::positive_fraction(2.0 / m_gas.N, &m_W[5 * i], &dWi[5 * i]);
        for (int e = 0; e < 5; ++e) {
            m_W[5 * i + e] += theta * dWi[5 * i + e];
            res[e] += Rm[5 * i + e] * Rm[5 * i + e];
            absW[e] += std::abs(m_W[5 * i + e]);
        }
        const phys::Prim pn = phys::cons_to_prim(&m_W[5 * i], m_gas.N);
        mom_scale +=
            pn.rho * (std::sqrt(pn.U[0] * pn.U[0] + pn.U[1] * pn.U[1] + pn.U[2] * pn.U[2]) +
                      std::sqrt(1.0 / pn.lambda));
    }
    for (index_t i = 0; i < m_no && !m_implicit; ++i) {
        double dW[5] = {0, 0, 0, 0, 0};
        for (index_t k = m_mesh.cell_face_offsets[i]; k < m_mesh.cell_face_offsets[i + 1]; ++k) {
            const index_t f = m_mesh.cell_faces[k];
            double sS = (m_mesh.face_owner[f] == i ? 1.0 : -1.0) * m_mesh.face_area[f];
            if (m_local_dt) sS *= m_dtc[i] / m_dtf[f];  // rate F_f / dt_f times dt_i
            for (int e = 0; e < 5; ++e) dW[e] -= sS * F[5 * f + e];
        }
        const double dti = m_local_dt ? m_dtc[i] : dt;
        for (int e = 0; e < 5; ++e) {
            dW[e] /= m_mesh.cell_volume[i];
            m_W[5 * i + e] += dW[e];
            res[e] += (dW[e] / dti) * (dW[e] / dti);
            absW[e] += std::abs(m_W[5 * i + e]);
        }
        // momentum scale: rho (|U| + sqrt(T)), so that a gas at rest does not divide by zero
        const phys::Prim pn = phys::cons_to_prim(&m_W[5 * i], m_gas.N);
        mom_scale +=
            pn.rho * (std::sqrt(pn.U[0] * pn.U[0] + pn.U[1] * pn.U[1] + pn.U[2] * pn.U[2]) +
                      std::sqrt(1.0 / pn.lambda));
    }
    // Wall data: P = momentum flux / dt, q_w = energy flux / dt - U_w . P (section 9).
    for (auto& wd : m_wall) {
        const index_t f = wd.local_face;
        const auto& B = m_setup.boundaries[m_s.face_bc[f]];
        const double dtw = m_local_dt ? m_dtf[f] : dt;
        for (int d = 0; d < 3; ++d) wd.P[d] = F[5 * f + 1 + d] / dtw;
        wd.qw = F[5 * f + 4] / dtw - (B.U[0] * wd.P[0] + B.U[1] * wd.P[1] + B.U[2] * wd.P[2]);
    }
    // Residuals (as the UGKS codes): sqrt(N sum (dW/dt)^2) / sum |W|; momentum as a vector,
    // normalised by sum rho (|U| + sqrt(T)) so that a gas at rest does not divide by zero.
    double glob[11] = {res[0],  res[1] + res[2] + res[3],  res[4], absW[0], mom_scale,
                       absW[4], static_cast<double>(m_no), 0,      0,       0,
                       0};
    MPI_Allreduce(MPI_IN_PLACE, glob, 7, MPI_DOUBLE, MPI_SUM, m_layout.comm_x);
    for (int k = 0; k < 3; ++k)
        r.residual[k] = std::sqrt(glob[6] * glob[k]) / (glob[3 + k] + 1e-300);

    // Failure check: non-finite W or non-positive density / temperature.
    struct {
        int bad;
        int rank;
    } mine{0, m_layout.world_rank}, worst{};
    std::string msg;
    for (index_t i = 0; i < m_no && !mine.bad; ++i) {
        const phys::Prim p = phys::cons_to_prim(&m_W[5 * i], m_gas.N);
        bool ok = p.rho > 0 && p.lambda > 0 && std::isfinite(p.lambda);
        for (int e = 0; e < 5; ++e) ok = ok && std::isfinite(m_W[5 * i + e]);
        if (!ok) {
            mine.bad = 1;
            const auto& x = m_mesh.cell_centroid[i];
            msg = fmt::format(
                "step {}: cell {} at ({:.6g}, {:.6g}, {:.6g}) has rho = {:.6g}, T = {:.6g}",
                m_step + 1, m_local.global_cell[i], x[0], x[1], x[2], p.rho, 1.0 / p.lambda);
        }
    }
    int flag = mine.bad;
    MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_MAX, m_layout.world);
    if (flag) {
        int first = mine.bad ? m_layout.world_rank : m_layout.world_size;
        MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, m_layout.world);
        int len = static_cast<int>(msg.size());
        MPI_Bcast(&len, 1, MPI_INT, first, m_layout.world);
        msg.resize(len);
        MPI_Bcast(msg.data(), len, MPI_CHAR, first, m_layout.world);
        r.failed = true;
        r.failure = msg;
        m_W = m_Wold;
        return;
    }
    (void)worst;
    if (m_local_dt && m_closed) {
        // Closed domain with local steps: sum_i V_i dW_i = -sum_f S_f F_f/dt_f (dt_L - dt_R) is
        // not zero, so the mass drifts during the transient; scale the whole state back to the
        // mass before this update (W, f* before stage 2, q: the equilibria are linear in that
        // scaling). At a fixed point the factor is exactly 1 (docs/steady.md). No stored
        // reference mass: a restart continues bit-for-bit.
        double before = 0, after = 0;
        total_mass(before, after);
        const double alpha = before / after;
        for (index_t i = 0; i < m_no; ++i) {
            for (int e = 0; e < 5; ++e) m_W[5 * i + e] *= alpha;
            for (int d = 0; d < 3; ++d) m_q[3 * i + d] *= alpha;
        }
#pragma omp parallel for schedule(static)
        for (index_t i = 0; i < m_no; ++i)
            for (int m = 0; m < m_nblk; ++m) {
                const std::size_t k = (static_cast<std::size_t>(m) * m_nc + i) * m_B;
                for (int v = 0; v < m_B; ++v) m_h[k + v] *= alpha;
                if (m_store_b)
                    for (int v = 0; v < m_B; ++v) m_b[k + v] *= alpha;
            }
    }
}

void UgksSolver::stage2_and_moments(double dt) {
    // dt < 0: moments only (initialization).
    const int B = m_B;
    std::vector<double>& mom = m_mom;
    if (dt > 0) {
        compute_prims();
        cell_tables();
    }
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < m_no; ++i) {
        double M[17] = {0};
        const double c = dt > 0 ? 0.5 * (m_local_dt ? m_dtc[i] : dt) / m_tau[i] : 0.0;
        dispatch_dsb(m_gas.D, m_store_b, [&](auto Dc, auto SBc) {
            constexpr int D = decltype(Dc)::value;
            constexpr bool SB = decltype(SBc)::value;
            for (int m = 0; m < m_nblk; ++m) {
                double* h = &m_h[(static_cast<std::size_t>(m) * m_nc + i) * B];
                double* b = SB ? &m_b[(static_cast<std::size_t>(m) * m_nc + i) * B] : nullptr;
                const cpu::BlockVel V = block_vel(m);
                if (dt > 0)
                    cpu::stage2_cell<D, SB, true>(B, m_cell_eq[i], V, h, b, c, M);
                else
                    cpu::stage2_cell<D, SB, false>(B, m_cell_eq[i], V, h, b, c, M);
            }
        });
        for (int k = 0; k < 17; ++k) mom[17 * i + k] = M[k];
    }
    {
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, mom.data(), static_cast<int>(mom.size()), MPI_DOUBLE, MPI_SUM,
                      m_layout.comm_v);
    }
    for (index_t i = 0; i < m_no; ++i)
        q_stress_from_raw(&mom[17 * i], m_prim[i], m_gas.D, &m_q[3 * i], &m_stress[6 * i]);
}

StepResult UgksSolver::step() {
    StepResult r;
    {
        ScopedTimer t("mpi_halo");
        m_halo.exchange(m_W.data(), 5);
        m_halo.exchange(m_q.data(), 3);
    }
    compute_prims();
    cell_tables();
    const double dt = m_local_dt ? compute_local_dt() : compute_dt();
    r.dt = dt;
    {
        ScopedTimer t("reconstruction");
        gradients_W();
    }
    {
        ScopedTimer t("flux");
        face_precompute(dt);
    }
    wall_densities();
    sweep(dt);
    {
        ScopedTimer t("update");
        macro_update(dt, r);
    }
    if (r.failed) return r;
    if (m_implicit) {
        ScopedTimer t("implicit");
        implicit_micro();
    } else {
        ScopedTimer t("update");
        stage2_and_moments(dt);
    }
    ++m_step;
    m_time += dt;
    return r;
}

std::vector<CellField> UgksSolver::fields() const {
    return cell_output_fields(m_no, m_W.data(), m_q.data(), m_stress, m_gas.N, m_gas.omega,
                              m_setup.gas.Kn);
}

std::array<double, 5> UgksSolver::totals() const {
    std::array<double, 5> t{0, 0, 0, 0, 0};
    for (index_t i = 0; i < m_no; ++i)
        for (int e = 0; e < 5; ++e) t[e] += m_W[5 * i + e] * m_mesh.cell_volume[i];
    MPI_Allreduce(MPI_IN_PLACE, t.data(), 5, MPI_DOUBLE, MPI_SUM, m_layout.comm_x);
    return t;
}

}  // namespace ugks

namespace ugks {

SolverState UgksSolver::state_export() const {
    SolverState s;
    s.step = m_step;
    s.time = m_time;
    s.W = m_W;
    s.q = m_q;
    s.stress = m_stress;
    s.h = m_h;
    s.b = m_b;
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
    m_h = s.h;
    m_b = s.b;
    compute_prims();
}

}  // namespace ugks
