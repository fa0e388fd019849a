#pragma once
// The kernels of the implicit steady iteration on the CUDA backend (included by
// device_implicit.cpp only): the CUDA schedules of the kernel functions of
// include/ugks/solver/kernels/implicit.hpp and the macroscopic Krylov solve.
#include "device_ctx.hpp"
#include "ugks/solver/implicit_ops.hpp"
#include "ugks/solver/kernels/implicit.hpp"
#include "ugks/solver/kernels/update.hpp"
#include "ugks/solver/macro_krylov.hpp"

namespace ugks::cudastep {
namespace {

// ---- implicit steady iteration (time.steady_method: implicit, docs/steady.md section 7) ------
// The kernels of UgksSolver::implicit_macro / implicit_micro with the colored ordering: a colour's
// cells share no face, so one launch relaxes a whole colour (one thread per cell, or per (cell,
// velocity)) with the values of the CPU's sequential sweep over that colour (to round-off: FMA).

/// Implicit: the steady macroscopic residual rate Rm = -(1/V) sum sigma S F_f / dt_f per owned
/// cell (5 each).
__global__ void k_imp_rm(Ctx C) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    double dW[5];
    kern::cell_flux_sum(i, C.cf_off, C.cf, C.owner, C.area, C.kind, C.Facc, C.fc, C.dtc, C.dtf,
                        true, C.vol[i], dW);
    if (phys::has_force(C.gas)) kern::add_force_rate(&C.W[5 * i], C.gas.acc, dW);
    for (int e = 0; e < 5; ++e) C.Rm[5 * i + e] = dW[e];
}

/// Implicit: the face's spectral radius r_f = max |U.n| + c + 2 nu_f (gamma/Pr) / d_f, nu_f = RT
/// min(tau, K dt_f) (K = time.implicit.viscous_bound; max over the two cells), per local face
/// (prims of step n).
__global__ void k_imp_rf(Ctx C, double K) {
    const index_t f = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (f >= C.nf) return;
    const index_t L = C.owner[f], R = C.neigh[f];
    const index_t Rs = R >= 0 ? R : L;
    C.rf[f] =
        kern::spectral_radius(C.prim[L], C.tau[L], C.prim[Rs], C.tau[Rs], R >= 0, &C.normal[3 * f],
                              &C.dxL[3 * f], &C.dxR[3 * f], C.dtf[f], K, C.gas.N, C.gas.Pr);
}

/// Implicit: the diagonal 1/dtau_i + (1/2V_i) sum_f S_f r_f of the macroscopic system, per owned
/// cell (dtau_i = time.implicit.cfl x the CFL bound with the prims of step n).
__global__ void k_imp_diag(Ctx C, double icfl) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    C.diag[i] = kern::macro_diag(i, C.cf_off, C.cf, C.area, C.rf, C.vol[i], icfl * cfl_ratio(C, i));
}

/// Implicit, macro_sweeps 0: the point-implicit increment dW = Rm / diag.
__global__ void k_imp_macro_point(Ctx C) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    for (int e = 0; e < 5; ++e) C.dW[5 * i + e] = C.Rm[5 * i + e] / C.diag[i];
}

/// Implicit: one Gauss-Seidel relaxation of the macroscopic system for the n cells of one colour
/// (no two share a face): dW_i = (Rm_i - (1/2V_i) sum_{f, j < no} S_f (dF_j.n - r_f dW_j)) /
/// diag_i.
__global__ void k_imp_macro_relax(Ctx C, const index_t* cells, index_t n) {
    const index_t t = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (t >= n) return;
    const index_t i = cells[t];
    double off[5];
    kern::macro_offdiag(i, C.no, C.cf_off, C.cf, C.owner, C.neigh, C.normal, C.area, C.vol[i], C.W,
                        C.rf, C.dW, (C.gas.N + 2.0) / C.gas.N, off);
    for (int e = 0; e < 5; ++e) C.dW[5 * i + e] = (C.Rm[5 * i + e] - off[e]) / C.diag[i];
}

/// Implicit, macro_solver gmres: row i of the macroscopic block matrix (macro_krylov.hpp
/// macro_fill: diag_i I, plus (1/2V_i) S_f (A_j(n_f) - r_f I) per face to an owned cell j, in the
/// cell's face order), pattern rp/col/dg from macro_pattern.
__global__ void k_kr_fill(Ctx C, const index_t* rp, const index_t* col, const index_t* dg,
                          double* val) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    for (index_t p = 25 * rp[i]; p < 25 * rp[i + 1]; ++p) val[p] = 0.0;
    kern::macro_fill_row(i, C.no, C.cf_off, C.cf, C.owner, C.neigh, C.normal, C.area, C.vol[i], C.W,
                         C.rf, C.diag, (C.gas.N + 2.0) / C.gas.N, rp, col, dg, val);
}

/// Implicit, gmres: y = A x for the block rows 0..n-1.
__global__ void k_kr_apply(const index_t* rp, const index_t* col, const double* val,
                           const double* x, double* y, index_t n) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    kern::bcsr_row_apply(i, rp, col, val, x, y);
}

/// Implicit, gmres preconditioner: one block Gauss-Seidel relaxation of A x = b for the n cells
/// of one colour (macro_krylov.hpp bcsr_sgs).
__global__ void k_kr_sgs_relax(const index_t* rp, const index_t* col, const index_t* dg,
                               const double* val, const double* b, double* x, const index_t* cells,
                               index_t n) {
    const index_t t = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (t >= n) return;
    kern::bcsr_row_relax(cells[t], rp, col, dg, val, b, x);
}

/// Implicit, gmres vectors: y += a u, y = a u, and partial inner products over fixed chunks of
/// kKrylovChunk entries (summed in chunk order on the host: reproducible).
constexpr index_t kKrylovChunk = 256;
__global__ void k_kr_axpy(index_t n, double a, const double* u, double* y) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k < n) y[k] += a * u[k];
}
__global__ void k_kr_scale(index_t n, double a, const double* u, double* y) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k < n) y[k] = a * u[k];
}
__global__ void k_kr_dot_part(index_t n, const double* u, const double* v, double* part) {
    const index_t c = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    const index_t k0 = c * kKrylovChunk;
    if (k0 >= n) return;
    const index_t k1 = k0 + kKrylovChunk < n ? k0 + kKrylovChunk : n;
    double s = 0.0;
    for (index_t k = k0; k < k1; ++k) s += u[k] * v[k];
    part[c] = s;
}

/// Implicit: W* = W^n + theta dW (positivity fraction) per owned cell and the residual parts of
/// k_macro (with Rm for dW/dt).
__global__ void k_imp_apply(Ctx C, double* parts, double* bad) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    double* P = &parts[8 * i];
    const double theta = implicit::positive_fraction(2.0 / C.gas.N, &C.W[5 * i], &C.dW[5 * i]);
    for (int e = 0; e < 5; ++e) {
        C.W[5 * i + e] += theta * C.dW[5 * i + e];
        const double R = C.Rm[5 * i + e];
        P[e] = R * R;
    }
    P[5] = fabs(C.W[5 * i]);
    P[6] = fabs(C.W[5 * i + 4]);
    P[7] = kern::momentum_scale(&C.W[5 * i], C.gas.N);
    bad[i] = kern::cell_state_ok(&C.W[5 * i], C.gas.N) ? static_cast<double>(C.no)
                                                       : static_cast<double>(i);
}

/// Implicit: a0_i = 1/dtau_i + 1/tau*_i per owned cell (prims and tau of the predicted W*).
__global__ void k_imp_a0(Ctx C, double icfl) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    C.a0[i] = 1.0 / (icfl * cfl_ratio(C, i)) + 1.0 / C.tau[i];
}

/// Implicit: the right-hand side of the microscopic system, res + (f+* - f)/tau* (the Shakhov
/// equilibrium of W* with q^n), in place of res, and df = 0; per (owned cell, slot) of the chunk
/// of blocks [m0, m0 + nbc).
template <class S, int D, bool HB>
__global__ void k_imp_rhs(Ctx C, int m0, int nbc) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    const int B = C.B;
    const index_t nsc = static_cast<index_t>(nbc) * B;
    if (k >= C.no * nsc) return;
    const index_t i = k / nsc, s = static_cast<index_t>(m0) * B + k % nsc;
    const index_t m = s / B, v = s % B;
    double u[3];
    load_u<D>(C, s, u);
    const phys::EqConst& E = C.cell_eq[i];
    const double H = cell_maxwellian<D>(C, i, s, u);
    double Bm, Hp, Bp;
    phys::shakhov_parts<D, HB>(E, u, H, Bm, Hp, Bp);
    // the body-force rate -a.grad_u g (section 6.7; zero without a force)
    const double sf = kern::force_factor<D>(phys::force_slope(E.U, E.lambda, C.gas.acc), 1.0, u);
    const double it = 1.0 / C.tau[i];
    const index_t idx = (m * C.no + i) * B + v, hidx = (m * C.nc + i) * B + v;
    const index_t didx = ((m - m0) * C.no + i) * B + v;
    S* rh = dist<S>(C.res_h);
    rh[idx] = static_cast<S>(rh[idx] + it * (H + Hp - dist<S>(C.h)[hidx]) + sf * H);
    C.dh[didx] = 0.0;
    if (HB) {
        S* rb = dist<S>(C.res_b);
        rb[idx] = static_cast<S>(rb[idx] + it * (Bm + Bp - dist<S>(C.b)[hidx]) + sf * Bm);
        C.db[didx] = 0.0;
    }
}

/// Faces of one cell that k_imp_micro_relax stages in shared memory (more: read from global).
constexpr int kRelaxMaxFaces = 32;

/// Implicit: one Gauss-Seidel relaxation of the microscopic system (first-order upwind transport
/// + relaxation) for the n cells of one colour, per (cell, slot) of the chunk of blocks [m0, m0 +
/// nbc):
///   (a0_i + (1/V) sum_f S (u.n)^+) df_i - (1/V) sum_{f, j < no} S (u.n)^- df_j = rhs_i.
/// Grid: x over the colour's cells, y over the chunk's slots in groups of blockDim.x (no 64-bit
/// division per thread); the cell's faces are staged in shared memory (docs/performance.md,
/// implicit micro relaxation).
template <class S, bool HB>
__global__ void k_imp_micro_relax(Ctx C, const index_t* cells, index_t n, int m0, int nbc) {
    // The cell's faces (other cell j, -1 when not coupled; S; n out of the cell), staged once per
    // thread block so that the loads of the neighbours' increments do not wait on index chains.
    __shared__ index_t s_j[kRelaxMaxFaces];
    __shared__ double s_S[kRelaxMaxFaces], s_n[3 * kRelaxMaxFaces];
    if (static_cast<index_t>(blockIdx.x) >= n) return;
    const index_t i = cells[blockIdx.x];
    const index_t f0 = C.cf_off[i];
    const int nfc = static_cast<int>(C.cf_off[i + 1] - f0);
    const bool staged = nfc <= kRelaxMaxFaces;
    if (staged && static_cast<int>(threadIdx.x) < nfc) {
        const index_t f = C.cf[f0 + threadIdx.x];
        const bool own = C.owner[f] == i;
        const index_t j = own ? C.neigh[f] : C.owner[f];
        const double sg = own ? 1.0 : -1.0;
        s_j[threadIdx.x] = j >= 0 && j < C.no ? j : -1;
        s_S[threadIdx.x] = C.area[f];
        for (int d = 0; d < 3; ++d) s_n[3 * threadIdx.x + d] = sg * C.normal[3 * f + d];
    }
    __syncthreads();
    const int B = C.B;
    const int sc = static_cast<int>(blockIdx.y * blockDim.x + threadIdx.x);  // slot in the chunk
    if (sc >= nbc * B) return;
    const int mb = sc / B, v = sc - mb * B;
    const index_t s = static_cast<index_t>(m0 + mb) * B + v;
    const double u0 = C.u[3 * s], u1 = C.u[3 * s + 1], u2 = C.u[3 * s + 2];
    const index_t base = static_cast<index_t>(mb) * C.no * B + v;        // df of the chunk
    const index_t rbase = static_cast<index_t>(m0 + mb) * C.no * B + v;  // rhs of every block
    double a = 0.0, acc = 0.0, accb = 0.0;
    for (int k = 0; k < nfc; ++k) {
        index_t j;
        double Sf, n0, n1, n2;
        if (staged) {
            j = s_j[k];
            Sf = s_S[k];
            n0 = s_n[3 * k];
            n1 = s_n[3 * k + 1];
            n2 = s_n[3 * k + 2];
        } else {
            const index_t f = C.cf[f0 + k];
            const bool own = C.owner[f] == i;
            const index_t jj = own ? C.neigh[f] : C.owner[f];
            const double sg = own ? 1.0 : -1.0;
            j = jj >= 0 && jj < C.no ? jj : -1;
            Sf = C.area[f];
            n0 = sg * C.normal[3 * f];
            n1 = sg * C.normal[3 * f + 1];
            n2 = sg * C.normal[3 * f + 2];
        }
        const double un = u0 * n0 + u1 * n1 + u2 * n2;
        const bool coupled = j >= 0;
        kern::micro_row_face<HB>(Sf, un, coupled, coupled ? C.dh[base + j * B] : 0.0,
                                 HB && coupled ? C.db[base + j * B] : 0.0, a, acc, accb);
    }
    const double invV = 1.0 / C.vol[i];
    const double inv = kern::micro_row_inverse(C.a0[i], a, invV);
    const index_t idx = base + i * B, ridx = rbase + i * B;
    C.dh[idx] = (dist<S>(C.res_h)[ridx] + invV * acc) * inv;
    if (HB) C.db[idx] = (dist<S>(C.res_b)[ridx] + invV * accb) * inv;
}

/// Implicit: f^{n+1} = f^n + df, Q_i, the conserved moments of the microscopic residual with
/// f^{n+1} (rhs - df/tau*), and the conserved moments of f^{n+1} (before rounding to the storage
/// type, as the CPU backend), kern::kQm values, one thread group per owned cell over the chunk of
/// blocks [m0, m0 + nbc) (fixed order: per thread in slot order, then the warp shuffle tree and
/// the warps in order), added to those of the earlier chunks (m0 = 0: set).
template <class S, bool HB>
__global__ void __launch_bounds__(kMaxGroup) k_imp_finish(Ctx C, int m0, int nbc) {
    constexpr int NQ = kern::kQm;
    __shared__ double s_part[NQ * (kMaxGroup / 32)];
    const index_t i = blockIdx.x;
    const int B = C.B;
    const double it = 1.0 / C.tau[i];
    double Q[NQ] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int m = m0; m < m0 + nbc; ++m) {
        const index_t o = (static_cast<index_t>(m) * C.no + i) * B;        // rhs
        const index_t od = (static_cast<index_t>(m - m0) * C.no + i) * B;  // df of the chunk
        S* h = dist<S>(C.h) + (static_cast<index_t>(m) * C.nc + i) * B;
        S* b = HB ? dist<S>(C.b) + (static_cast<index_t>(m) * C.nc + i) * B : nullptr;
        for (int v = threadIdx.x; v < B; v += blockDim.x) {
            const index_t s = static_cast<index_t>(m) * B + v;
            const double dhv = C.dh[od + v];
            const double hn = h[v] + dhv;
            h[v] = static_cast<S>(hn);
            const double rh = dist<S>(C.res_h)[o + v] - it * dhv;
            double rb = 0.0, bn = 0.0;
            if (HB) {
                const double dbv = C.db[od + v];
                bn = b[v] + dbv;
                b[v] = static_cast<S>(bn);
                rb = dist<S>(C.res_b)[o + v] - it * dbv;
            }
            double q[5] = {0, 0, 0, 0, 0}, mf[5] = {0, 0, 0, 0, 0};
            kern::add_conserved_moments(C.w[s], &C.u[3 * s], rh, rb, q);
            kern::add_conserved_moments(C.w[s], &C.u[3 * s], hn, bn, mf);
            for (int e = 0; e < 5; ++e) {
                Q[e] += q[e];
                Q[5 + e] += mf[e];
            }
        }
    }
    double tot[NQ];
    warp_group_reduce<NQ>(Q, s_part, tot);
    if (threadIdx.x == 0)
        for (int e = 0; e < NQ; ++e)
            C.Qm[NQ * i + e] = m0 == 0 ? tot[e] : C.Qm[NQ * i + e] + tot[e];
}

/// Implicit: the moment-consistency correction W += theta tau* (Rm - Q) per owned cell (theta:
/// positivity fraction).
__global__ void k_imp_correct(Ctx C) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    kern::moment_correction(C.tau[i], &C.Rm[5 * i], &C.Qm[kern::kQm * i], 2.0 / C.gas.N,
                            &C.W[5 * i]);
}

}  // namespace
}  // namespace ugks::cudastep
