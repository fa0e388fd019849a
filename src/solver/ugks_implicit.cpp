// Implicit steady-state iteration of the CPU backend (issue 8, docs/steady.md section 7):
// implicit macroscopic prediction + implicit microscopic relaxation, both by symmetric
// Gauss-Seidel sweeps over the owned cells of a rank (ghost increments zero: block Jacobi across
// ranks). The residual they drive to zero is the explicit steady residual of UgksSolver::sweep
// and macro_update (face rates with the local flux steps dt_f), so the converged state is the one
// of time.steady_method: local.
#include <algorithm>
#include <cmath>

#include "cpu_kernels.hpp"
#include "ugks/core/timer.hpp"
#include "ugks/solver/ugks_solver.hpp"

namespace ugks {
namespace {

/// Normal Euler flux F(W).n for any W (pressure from the conservative variables, so that a trial
/// state W + dW needs no primitive variables).
inline void euler_flux_n(const double* W, const double* n, double gamma, double* F) {
    const double rho = W[0];
    const double U[3] = {W[1] / rho, W[2] / rho, W[3] / rho};
    const double p = (gamma - 1.0) * (W[4] - 0.5 * (W[1] * U[0] + W[2] * U[1] + W[3] * U[2]));
    const double Un = U[0] * n[0] + U[1] * n[1] + U[2] * n[2];
    F[0] = W[0] * Un;
    for (int d = 0; d < 3; ++d) F[1 + d] = W[1 + d] * Un + p * n[d];
    F[4] = (W[4] + p) * Un;
}

}  // namespace

void UgksSolver::implicit_ordering() {
    // natural: local cell order. colored: greedy colouring of the owned cells in local order (the
    // smallest colour no owned neighbour has yet), cells sorted by colour, local order inside a
    // colour. Cells of one colour share no face, so a colour's relaxations are independent (the
    // parallel form of the sweep; the result does not depend on the order inside a colour).
    m_order.resize(m_no);
    for (index_t i = 0; i < m_no; ++i) m_order[i] = i;
    if (m_setup.time.implicit_ordering != "colored") return;
    std::vector<int> color(m_no, -1);
    int ncol = 0;
    for (index_t i = 0; i < m_no; ++i) {
        std::vector<char> used(ncol + 1, 0);
        for (index_t k = m_mesh.cell_face_offsets[i]; k < m_mesh.cell_face_offsets[i + 1]; ++k) {
            const index_t f = m_mesh.cell_faces[k];
            const index_t j =
                m_mesh.face_owner[f] == i ? m_mesh.face_neighbour[f] : m_mesh.face_owner[f];
            if (j >= 0 && j < m_no && j != i && color[j] >= 0) used[color[j]] = 1;
        }
        int c = 0;
        while (used[c]) ++c;
        color[i] = c;
        ncol = std::max(ncol, c + 1);
    }
    std::stable_sort(m_order.begin(), m_order.end(),
                     [&](index_t a, index_t b) { return color[a] < color[b]; });
    m_ncolors = ncol;
}

double UgksSolver::implicit_dtau(index_t i) const {
    return m_setup.time.implicit_cfl * cfl_ratio(i);
}

void UgksSolver::implicit_macro(const std::vector<double>& Rm, std::vector<double>& dW) {
    // Linearized steady equations per owned cell i (rate form, faces f with outward normal n):
    //   (1/dtau_i + (1/2V_i) sum_f S_f r_f) dW_i
    //       = -R_i - (1/2V_i) sum_{f interior} S_f (dF_j.n - r_f dW_j),
    //   dF_j = F(W_j + dW_j) - F(W_j) (Euler flux), r_f = |U.n| + c + 2 nu_f (gamma/Pr) / d_f,
    // nu_f = RT min(tau, dt_f): the viscous rate of the UGKS flux, bounded by free transport
    // over the flux step (docs/steady.md section 7.2). Boundary faces and other ranks' cells
    // contribute no increment.
    const double gamma = (m_gas.N + 2.0) / m_gas.N;
    const double visc = gamma / m_gas.Pr;
    std::vector<double> rf(m_nf, 0.0);
    for (index_t f = 0; f < m_nf; ++f) {
        const index_t L = m_mesh.face_owner[f], R = m_mesh.face_neighbour[f];
        const double* n = m_mesh.face_normal[f].data();
        auto radius = [&](index_t c) {
            const auto& p = m_prim[c];
            const double Un = std::abs(p.U[0] * n[0] + p.U[1] * n[1] + p.U[2] * n[2]);
            const double RT = 0.5 / p.lambda;
            const double nu = RT * std::min(m_tau[c], m_dtf[f]);
            return std::make_pair(Un + std::sqrt(gamma * RT), nu);
        };
        auto [sL, nuL] = radius(L);
        double s = sL, nu = nuL;
        if (R >= 0) {
            auto [sR, nuR] = radius(R);
            s = std::max(s, sR);
            nu = std::max(nu, nuR);
        }
        double d = 0.0;  // normal distance between the cell centre and the neighbour (image)
        for (int k = 0; k < 3; ++k) d += (m_s.face_dxL[3 * f + k] - m_s.face_dxR[3 * f + k]) * n[k];
        d = std::max(std::abs(d), 1e-300);
        rf[f] = s + 2.0 * nu * visc / d;
    }
    std::vector<double> diag(m_no);
    for (index_t i = 0; i < m_no; ++i) {
        double sum = 0.0;
        for (index_t k = m_mesh.cell_face_offsets[i]; k < m_mesh.cell_face_offsets[i + 1]; ++k) {
            const index_t f = m_mesh.cell_faces[k];
            sum += m_mesh.face_area[f] * rf[f];
        }
        diag[i] = 1.0 / implicit_dtau(i) + 0.5 * sum / m_mesh.cell_volume[i];
    }
    dW.assign(5 * static_cast<std::size_t>(m_nc), 0.0);  // ghosts stay zero
    auto relax = [&](index_t i) {
        double off[5] = {0, 0, 0, 0, 0};
        for (index_t k = m_mesh.cell_face_offsets[i]; k < m_mesh.cell_face_offsets[i + 1]; ++k) {
            const index_t f = m_mesh.cell_faces[k];
            const bool own = m_mesh.face_owner[f] == i;
            const index_t j = own ? m_mesh.face_neighbour[f] : m_mesh.face_owner[f];
            if (j < 0 || j >= m_no) continue;
            const double sg = own ? 1.0 : -1.0;
            const double n[3] = {sg * m_mesh.face_normal[f][0], sg * m_mesh.face_normal[f][1],
                                 sg * m_mesh.face_normal[f][2]};
            double Wt[5], F0[5], F1[5];
            for (int e = 0; e < 5; ++e) Wt[e] = m_W[5 * j + e] + dW[5 * j + e];
            euler_flux_n(&m_W[5 * j], n, gamma, F0);
            euler_flux_n(Wt, n, gamma, F1);
            const double S = m_mesh.face_area[f];
            for (int e = 0; e < 5; ++e) off[e] += S * (F1[e] - F0[e] - rf[f] * dW[5 * j + e]);
        }
        const double h = 0.5 / m_mesh.cell_volume[i];
        for (int e = 0; e < 5; ++e) dW[5 * i + e] = (Rm[5 * i + e] - h * off[e]) / diag[i];
    };
    const int pairs = std::max(1, m_setup.time.macro_sweeps);
    if (m_setup.time.macro_sweeps == 0) {  // point-implicit only
        for (index_t i = 0; i < m_no; ++i)
            for (int e = 0; e < 5; ++e) dW[5 * i + e] = Rm[5 * i + e] / diag[i];
        return;
    }
    for (int p = 0; p < pairs; ++p) {
        for (index_t k = 0; k < m_no; ++k) relax(m_order[k]);
        for (index_t k = m_no - 1; k >= 0; --k) relax(m_order[k]);
    }
}

void UgksSolver::implicit_micro() {
    // Equilibrium and tau of the predicted W^{n+1} (q^n from the moments of f^n).
    compute_prims();
    cell_tables();
    const int B = m_B;
    const int D = m_gas.D;
    std::vector<double> dtau(m_no);
    for (index_t i = 0; i < m_no; ++i) dtau[i] = implicit_dtau(i);
    const int pairs = m_setup.time.micro_sweeps;
    // per block and owned cell: conserved moments of the microscopic residual after the update
    std::vector<double> Qb(static_cast<std::size_t>(m_nblk) * m_no * 5, 0.0);
#pragma omp parallel for schedule(dynamic, 1)
    for (int m = 0; m < m_nblk; ++m) {
        const cpu::BlockVel V = block_vel(m);
        const std::size_t base = static_cast<std::size_t>(m) * m_nc * B;
        double* h = &m_h[base];
        double* b = m_store_b ? &m_b[base] : nullptr;
        // rhs = R_flux + (f+* - f)/tau*: the steady residual with the predicted equilibrium
        std::vector<double> rhs_h(static_cast<std::size_t>(m_no) * B),
            rhs_b(b ? static_cast<std::size_t>(m_no) * B : 0);
        std::vector<double> dh(static_cast<std::size_t>(m_nc) * B, 0.0),
            db(b ? static_cast<std::size_t>(m_nc) * B : 0, 0.0);
        for (index_t i = 0; i < m_no; ++i) {
            const double it = 1.0 / m_tau[i];
            const cpu::EqConst& C = m_cell_eq[i];
            for (int v = 0; v < B; ++v) {
                double hp, bp;
                if (D == 1)
                    cpu::shakhov_lane<1>(C, V.ux[v], V.uy[v], V.uz[v], hp, bp);
                else if (D == 2)
                    cpu::shakhov_lane<2>(C, V.ux[v], V.uy[v], V.uz[v], hp, bp);
                else
                    cpu::shakhov_lane<3>(C, V.ux[v], V.uy[v], V.uz[v], hp, bp);
                const std::size_t k = static_cast<std::size_t>(i) * B + v;
                rhs_h[k] = m_res_h[base + k] + it * (hp - h[k]);
                if (b) rhs_b[k] = m_res_b[base + k] + it * (bp - b[k]);
            }
        }
        // (1/dtau + 1/tau + (1/V) sum_f S (u.n)^+) df_i - (1/V) sum_f S (u.n)^- df_j = rhs_i
        std::vector<double> acc_h(B), acc_b(B), a(B);
        auto relax = [&](index_t i) {
            std::fill(acc_h.begin(), acc_h.end(), 0.0);
            if (b) std::fill(acc_b.begin(), acc_b.end(), 0.0);
            std::fill(a.begin(), a.end(), 0.0);
            for (index_t k = m_mesh.cell_face_offsets[i]; k < m_mesh.cell_face_offsets[i + 1];
                 ++k) {
                const index_t f = m_mesh.cell_faces[k];
                const bool own = m_mesh.face_owner[f] == i;
                const index_t j = own ? m_mesh.face_neighbour[f] : m_mesh.face_owner[f];
                const double sg = own ? 1.0 : -1.0;
                const double S = m_mesh.face_area[f];
                const double n0 = sg * m_mesh.face_normal[f][0], n1 = sg * m_mesh.face_normal[f][1],
                             n2 = sg * m_mesh.face_normal[f][2];
                const bool coupled = j >= 0 && j < m_no;
                const double* dj = coupled ? &dh[static_cast<std::size_t>(j) * B] : nullptr;
                const double* dbj = coupled && b ? &db[static_cast<std::size_t>(j) * B] : nullptr;
                for (int v = 0; v < B; ++v) {
                    const double un = V.ux[v] * n0 + V.uy[v] * n1 + V.uz[v] * n2;
                    if (un > 0) {
                        a[v] += S * un;
                    } else if (coupled) {
                        acc_h[v] -= S * un * dj[v];
                        if (b) acc_b[v] -= S * un * dbj[v];
                    }
                }
            }
            const double invV = 1.0 / m_mesh.cell_volume[i];
            const double a0 = 1.0 / dtau[i] + 1.0 / m_tau[i];
            const std::size_t o = static_cast<std::size_t>(i) * B;
            for (int v = 0; v < B; ++v) {
                const double inv = 1.0 / (a0 + invV * a[v]);
                dh[o + v] = (rhs_h[o + v] + invV * acc_h[v]) * inv;
                if (b) db[o + v] = (rhs_b[o + v] + invV * acc_b[v]) * inv;
            }
        };
        for (int p = 0; p < pairs; ++p) {
            for (index_t k = 0; k < m_no; ++k) relax(m_order[k]);
            for (index_t k = m_no - 1; k >= 0; --k) relax(m_order[k]);
        }
        for (std::size_t k = 0; k < static_cast<std::size_t>(m_no) * B; ++k) {
            h[k] += dh[k];
            if (b) b[k] += db[k];
        }
        // moments of rhs - df/tau: the residual with f^{n+1}
        for (index_t i = 0; i < m_no; ++i) {
            double* q = &Qb[(static_cast<std::size_t>(m) * m_no + i) * 5];
            const double it = 1.0 / m_tau[i];
            for (int v = 0; v < B; ++v) {
                const std::size_t k = static_cast<std::size_t>(i) * B + v;
                const double rh = rhs_h[k] - it * dh[k];
                const double rb = b ? rhs_b[k] - it * db[k] : 0.0;
                const double w = V.w[v], u0 = V.ux[v], u1 = V.uy[v], u2 = V.uz[v];
                q[0] += w * rh;
                q[1] += w * u0 * rh;
                q[2] += w * u1 * rh;
                q[3] += w * u2 * rh;
                q[4] += w * 0.5 * ((u0 * u0 + u1 * u1 + u2 * u2) * rh + rb);
            }
        }
    }
    // Moment-consistency correction (docs/steady.md section 7.4): W += tau (Rm - Q), Q the
    // conserved moments of the microscopic residual with f^{n+1}. It is zero exactly when both
    // residuals are, so the fixed point is unchanged; it moves W to the moments of f (plus the
    // tau-weighted flux difference) in one step where the macroscopic prediction alone would
    // relax that mismatch at the collision rate (slow at large Kn).
    {
        std::vector<double> Q(5 * static_cast<std::size_t>(m_no), 0.0);
        for (int m = 0; m < m_nblk; ++m)  // fixed block order: deterministic sums
            for (std::size_t k = 0; k < Q.size(); ++k)
                Q[k] += Qb[static_cast<std::size_t>(m) * m_no * 5 + k];
        {
            ScopedTimer t("mpi_reduction");
            MPI_Allreduce(MPI_IN_PLACE, Q.data(), static_cast<int>(Q.size()), MPI_DOUBLE, MPI_SUM,
                          m_layout.comm_v);
        }
        for (index_t i = 0; i < m_no; ++i)
            for (int e = 0; e < 5; ++e)
                m_W[5 * i + e] += m_tau[i] * (m_Rm[5 * i + e] - Q[5 * i + e]);
        if (m_closed) {  // the correction is not conservative: back to the mass before the step
            double before = 0, after = 0;
            total_mass(before, after);
            const double alpha = before / after;
            for (index_t i = 0; i < m_no; ++i)
                for (int e = 0; e < 5; ++e) m_W[5 * i + e] *= alpha;
        }
        compute_prims();
    }
    stage2_and_moments(-1.0);  // q and stress from the new f
}

}  // namespace ugks
