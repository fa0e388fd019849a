// Implicit steady-state iteration of the CPU backend (issue 8, docs/steady.md section 7):
// implicit macroscopic prediction + implicit microscopic relaxation, both by symmetric
// Gauss-Seidel sweeps over the owned cells of a rank (ghost increments zero: block Jacobi across
// ranks). The residual they drive to zero is the explicit steady residual of UgksSolver::sweep
// and macro_update (face rates with the local flux steps dt_f), so the converged state is the one
// of time.steady_method: local.
#include <algorithm>
#include <cmath>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cpu_kernels.hpp"
#include "ugks/core/timer.hpp"
#include "ugks/core/traffic.hpp"
#include "ugks/solver/implicit_ops.hpp"
#include "ugks/solver/kernels/implicit.hpp"
#include "ugks/solver/kernels/time_step.hpp"
#include "ugks/solver/kernels/update.hpp"
#include "ugks/solver/ugks_solver.hpp"

namespace ugks {

void UgksSolver::implicit_ordering() {
    // natural: local cell order; colored: implicit::greedy_colour_order (a colour's relaxations are
    // independent: the parallel form of the sweep, the order of the CUDA backend).
    if (m_setup.time.implicit_ordering != "colored") {
        m_order.resize(m_s.no);
        for (index_t i = 0; i < m_s.no; ++i) m_order[i] = i;
        return;
    }
    std::vector<index_t> offsets;
    m_order = implicit::greedy_colour_order(m_mesh, m_s.no, offsets);
}

double UgksSolver::implicit_dtau(index_t i) const {
    return m_setup.time.implicit_cfl * cfl_ratio(i);
}

void UgksSolver::implicit_macro(const std::vector<double>& Rm, std::vector<double>& dW) {
    // Linearized steady equations per owned cell i (rate form, faces f with outward normal n):
    //   (1/dtau_i + (1/2V_i) sum_f S_f r_f) dW_i
    //       = R_i - (1/2V_i) sum_{f interior} S_f (dF_j.n - r_f dW_j),
    //   R_i = Rm_i = -(1/V_i) sum_f sigma S_f F_f / dt_f (the steady residual rate),
    //   dF_j = F(W_j + dW_j) - F(W_j) (Euler flux), r_f = |U.n| + c + 2 nu_f (gamma/Pr) / d_f,
    // nu_f = RT min(tau, K dt_f): the viscous rate of the UGKS flux, bounded by free transport
    // over K flux steps (K = time.implicit.viscous_bound, docs/steady.md section 7.2). Boundary
    // faces and other ranks' cells contribute no increment.
    const double gamma = (m_gas.N + 2.0) / m_gas.N;
    std::vector<double> rf(m_s.nf, 0.0);
    for (index_t f = 0; f < m_s.nf; ++f) {
        const index_t L = m_mesh.face_owner[f], R = m_mesh.face_neighbour[f];
        rf[f] = kern::spectral_radius(m_prim[L], m_tau[L], m_prim[R >= 0 ? R : L],
                                      m_tau[R >= 0 ? R : L], R >= 0, &m_s.normal[3 * f],
                                      &m_s.face_dxL[3 * f], &m_s.face_dxR[3 * f], m_dtf[f],
                                      m_setup.time.viscous_bound, m_gas.N, m_gas.Pr);
    }
    std::vector<double> diag(m_s.no);
    for (index_t i = 0; i < m_s.no; ++i)
        diag[i] = kern::macro_diag(i, m_mesh.cell_face_offsets.data(), m_mesh.cell_faces.data(),
                                   m_mesh.face_area.data(), rf.data(), m_mesh.cell_volume[i],
                                   implicit_dtau(i));
    dW.assign(5 * static_cast<std::size_t>(m_s.nc), 0.0);  // ghosts stay zero
    if (m_setup.time.macro_sweeps == 0) {                  // point-implicit only
        for (index_t i = 0; i < m_s.no; ++i)
            for (int e = 0; e < 5; ++e) dW[5 * i + e] = Rm[5 * i + e] / diag[i];
        return;
    }
    if (m_setup.time.macro_solver == "gmres") {
        // Block CSR matrix (pattern once) + GMRES preconditioned by macro_sweeps block SGS pairs
        // (docs/steady.md section 7.3); inner products summed over comm_x (every velocity rank
        // holds the same W and takes the same steps).
        if (m_macro_csr.n != m_s.no) m_macro_csr = implicit::macro_pattern(m_mesh, m_s.no);
        implicit::MacroKrylovSettings ks;
        ks.restart = m_setup.time.gmres_restart;
        ks.max_iterations = m_setup.time.gmres_max_iterations;
        ks.rtol = m_setup.time.gmres_tolerance;
        ks.precond_pairs = m_setup.time.macro_sweeps;
        const MPI_Comm comm = m_layout.comm_x;
        const auto reduce = [comm](double v) {
            MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, comm);
            traffic_add(Traffic::ReduceX, comm, sizeof(double));
            return v;
        };
        implicit::macro_gmres(m_mesh, m_s.no, m_W.data(), rf.data(), diag.data(), Rm.data(),
                              dW.data(), m_order.data(), gamma, ks, reduce, m_macro_csr);
        return;
    }
    implicit::macro_sgs(m_mesh, m_s.no, m_W.data(), rf.data(), diag.data(), Rm.data(), dW.data(),
                        m_order.data(), m_setup.time.macro_sweeps, gamma);
}

namespace {
int omp_threads() {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
int omp_thread() {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}
}  // namespace

void UgksSolver::micro_relax() {
    const int B = m_s.B;
    const int D = m_gas.D;
    std::vector<double> a0(m_s.no);  // 1/dtau + 1/tau*
    for (index_t i = 0; i < m_s.no; ++i) a0[i] = 1.0 / implicit_dtau(i) + 1.0 / m_tau[i];
    const int pairs = m_setup.time.micro_sweeps;
    // per block and owned cell (kern::kQm values): conserved moments of the microscopic residual
    // after the update and of f^{n+1}
    constexpr int NQ = kern::kQm;
    std::vector<double> Qb(static_cast<std::size_t>(m_s.nblk) * m_s.no * NQ, 0.0);
    // Per-thread work arrays of one block (rhs_h, rhs_b: no x B; dh, db: nc x B), allocated at the
    // first iteration and kept: allocating them per block and iteration made glibc map and unmap
    // them every time (docs/performance.md, implicit CPU workspace).
    const std::size_t nob = static_cast<std::size_t>(m_s.no) * B,
                      ncb = static_cast<std::size_t>(m_s.nc) * B, nbf = m_s.store_b ? 2 : 1;
    const int nthreads = omp_threads();
    if (m_relax_ws.size() != static_cast<std::size_t>(nthreads))
        m_relax_ws.assign(nthreads, std::vector<double>());
#pragma omp parallel for schedule(dynamic, 1)
    for (int m = 0; m < m_s.nblk; ++m) {
        const cpu::BlockVel V = block_vel(m);
        const std::size_t base = static_cast<std::size_t>(m) * m_s.nc * B;
        const bool fp32 = m_h.fp32();
        std::vector<double>& ws = m_relax_ws[omp_thread()];
        ws.resize(nbf * (nob + ncb + (fp32 ? nob : 0)));
        // fp32 storage: the block's owned rows in double, stored back after the update
        double* h = fp32 ? ws.data() + nbf * (nob + ncb) : m_h.f64(base);
        double* b = !m_s.store_b ? nullptr : fp32 ? h + nob : m_b.f64(base);
        if (fp32) {
            m_h.load(base, nob, h);
            if (b) m_b.load(base, nob, b);
        }
        // rhs = R_flux + (f+* - f)/tau*: the steady residual with the predicted equilibrium
        double* rhs_h = ws.data();
        double* rhs_b = b ? rhs_h + nob : nullptr;
        double* dh = rhs_h + nbf * nob;
        double* db = b ? dh + ncb : nullptr;
        std::fill(dh, dh + nbf * ncb, 0.0);
        phys::detail::with_dim(D, [&](auto Dc) {
            constexpr int DD = decltype(Dc)::value;
            for (index_t i = 0; i < m_s.no; ++i) {
                const double it = 1.0 / m_tau[i];
                const phys::EqConst& C = m_cell_eq[i];
                const phys::Slope aF = phys::force_slope(C.U, C.lambda, m_gas.acc);
                for (int v = 0; v < B; ++v) {
                    const double u[3] = {V.ux[v], V.uy[v], V.uz[v]};
                    const double H = phys::maxwellian_H<DD>(C, u);
                    double Bm, Hp, Bp;
                    phys::shakhov_parts<DD, true>(C, u, H, Bm, Hp, Bp);
                    // the body-force rate -a.grad_u g (section 6.7; zero without a force)
                    const double s = kern::force_factor<DD>(aF, 1.0, u);
                    const std::size_t k = static_cast<std::size_t>(i) * B + v;
                    // rounded to the storage precision as the CUDA backend keeps it in place
                    rhs_h[k] =
                        m_res_h.rounded(m_res_h.get(base + k) + it * (H + Hp - h[k]) + s * H);
                    if (b)
                        rhs_b[k] =
                            m_res_b.rounded(m_res_b.get(base + k) + it * (Bm + Bp - b[k]) + s * Bm);
                }
            }
        });
        // (1/dtau + 1/tau + (1/V) sum_f S (u.n)^+) df_i - (1/V) sum_f S (u.n)^- df_j = rhs_i
        implicit::micro_sgs(m_mesh, m_s.no, B, V.ux, V.uy, V.uz, a0.data(), rhs_h, dh, rhs_b, db,
                            m_order.data(), pairs);
        for (std::size_t k = 0; k < static_cast<std::size_t>(m_s.no) * B; ++k) {
            h[k] += dh[k];
            if (b) b[k] += db[k];
        }
        if (fp32) {
            m_h.store(base, nob, h);
            if (b) m_b.store(base, nob, b);
        }
        // moments of rhs - df/tau (the residual with f^{n+1}) and of f^{n+1}
        for (index_t i = 0; i < m_s.no; ++i) {
            double q[5] = {0, 0, 0, 0, 0}, mf[5] = {0, 0, 0, 0, 0};
            const double it = 1.0 / m_tau[i];
            for (int v = 0; v < B; ++v) {
                const std::size_t k = static_cast<std::size_t>(i) * B + v;
                const double rh = rhs_h[k] - it * dh[k];
                const double rb = b ? rhs_b[k] - it * db[k] : 0.0;
                const double u[3] = {V.ux[v], V.uy[v], V.uz[v]};
                kern::add_conserved_moments(V.w[v], u, rh, rb, q);
                kern::add_conserved_moments(V.w[v], u, h[k], b ? b[k] : 0.0, mf);
            }
            double* o = &Qb[(static_cast<std::size_t>(m) * m_s.no + i) * NQ];
            for (int e = 0; e < 5; ++e) {
                o[e] = q[e];
                o[5 + e] = mf[e];
            }
        }
    }
    m_Qm.assign(NQ * static_cast<std::size_t>(m_s.no), 0.0);
    for (int m = 0; m < m_s.nblk; ++m)  // fixed block order: deterministic sums
        for (std::size_t k = 0; k < m_Qm.size(); ++k)
            m_Qm[k] += Qb[static_cast<std::size_t>(m) * m_s.no * NQ + k];
}

void UgksSolver::sum_micro_moments() {
    ScopedTimer t("mpi_reduction");
    MPI_Allreduce(MPI_IN_PLACE, m_Qm.data(), static_cast<int>(m_Qm.size()), MPI_DOUBLE, MPI_SUM,
                  m_layout.comm_v);
    traffic_add(Traffic::ReduceV, m_layout.comm_v, sizeof(double) * m_Qm.size());
}

void UgksSolver::rescale_mass_f() {
    // Closed domain: scale f^{n+1} so that the total mass of the microscopic residual is zero
    // (docs/steady.md section 7.4b). Neither the lagged diffuse walls nor the transport sweeps
    // keep f's mass; in a closed domain only the collision term ties it to W's, so without this the
    // difference relaxed at the collision rate (1 - c/Kn per iteration at large Kn).
    constexpr int NQ = kern::kQm;
    double s[2] = {0.0, 0.0};
    for (index_t i = 0; i < m_s.no; ++i)
        kern::add_mass_residual(m_mesh.cell_volume[i], m_tau[i], &m_Qm[NQ * i], s);
    {
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, m_layout.comm_x);
        MPI_Bcast(s, 2, MPI_DOUBLE, 0, m_layout.comm_v);  // the same bits on every velocity rank
        traffic_add(Traffic::ReduceX, m_layout.comm_x, sizeof(s));
        traffic_add(Traffic::ReduceV, m_layout.comm_v, sizeof(s));
    }
    const double alpha = kern::mass_residual_factor(s);
    for (index_t i = 0; i < m_s.no; ++i) kern::scale_micro_moments(alpha, m_tau[i], &m_Qm[NQ * i]);
    scale_distributions(alpha);
}

void UgksSolver::moment_correction() {
    constexpr int NQ = kern::kQm;
    for (index_t i = 0; i < m_s.no; ++i)
        kern::moment_correction(m_tau[i], &m_Rm[5 * i], &m_Qm[NQ * i], 2.0 / m_gas.N, &m_W[5 * i]);
}

void UgksSolver::rescale_mass_W() {
    double before = 0, after = 0;
    total_mass(before, after);
    const double alpha = before / after;
    for (index_t i = 0; i < m_s.no; ++i)
        for (int e = 0; e < 5; ++e) m_W[5 * i + e] *= alpha;
}

}  // namespace ugks
