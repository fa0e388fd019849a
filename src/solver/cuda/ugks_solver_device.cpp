// The UGKS single-sweep step on the CUDA backend (issue 4): the same discrete scheme as
// src/solver/ugks_solver.cpp (its specification), every per-step array resident on the GPU.
//
// Kernels (one thread per velocity where the velocity is the inner index; the per-velocity kernels
// are templates on the velocity dimension D and on whether b is stored, dispatch() picks them):
//   k_prims, k_cell_tables   per cell: primitive state, tau, per-axis exp tables
//   k_dt_ratio               per owned cell: CFL ratio (then a fixed-order min)
//   k_local_dt, k_face_dt    time.mode steady: per owned cell dt_i, per face dt_f (docs/steady.md)
//   k_grad_W                 per owned cell: LSQ gradient + limiter of W
//   k_face_pre               per face: face_equilibrium, face exp tables
//   k_wall_sums, k_sym_copy  per wall face: incident mass flux (fixed-order reduction)
//   k_grad_block             per (owned cell, velocity) of block m: LSQ + limiter of h, b
//   k_flux                   one thread group per (face, block m): face data in shared memory,
//                            one thread per velocity, free-transport moments reduced in the
//                            group in a fixed order (warp shuffles, then warps in order)
//   k_stage1                 per (owned cell, velocity) of block m
//   k_macro                  per owned cell: W^{n+1} and per-cell residual parts
//   k_mass_parts, k_scale_*  steady mode, closed domain: masses before/after (fixed-order sums),
//                            W, q and f* scaled back to the mass before the update
//   k_stage2                 one thread group per owned cell, all local blocks: stage 2 and the
//                            17 raw moments (fixed-order reduction)
// Device time per kernel, copy and halo phase goes to the process timers (summary.json
// wall_time_s, "gpu:<name>"); NVTX ranges mark the step phases and velocity blocks.
// Every reduction has a fixed order (no floating-point atomics): identical bytes run to run.
#include "ugks/solver/ugks_solver_device.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <mpi.h>
#include <nvtx3/nvToolsExt.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // MPIX_Query_cuda_support (OpenMPI)
#endif
#if defined(UGKS_HAVE_NCCL)
#include <nccl.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>

#include "ugks/core/error.hpp"
#include "ugks/core/log.hpp"
#include "ugks/core/timer.hpp"
#include "ugks/device/array.hpp"
#include "ugks/device/cuda_check.hpp"
#include "ugks/solver/implicit_ops.hpp"
#include "ugks/solver/macro_krylov.hpp"
#include "ugks/solver/kernels/bc_diffuse_wall.hpp"
#include "ugks/solver/kernels/bc_symmetry.hpp"
#include "ugks/solver/kernels/face_input.hpp"
#include "ugks/solver/kernels/flux.hpp"
#include "ugks/solver/kernels/reconstruct.hpp"
#include "ugks/solver/kernels/time_step.hpp"
#include "ugks/solver/kernels/update.hpp"
#include "ugks/solver/raw_moments.hpp"

namespace ugks {
namespace {

constexpr int kThreads = 256;   ///< threads per block of the element-wise kernels
constexpr int kMaxGroup = 256;  ///< largest thread group of the per-(face|cell, block) kernels

/// Boundary condition as the kernels see it.
struct BcDev {
    int kind = 0;  ///< FaceKind
    int axis = 0;  ///< symmetry: velocity axis normal to the plane
    double rho = 1, T = 1;
    double U[3] = {0, 0, 0};
    double W[5] = {0, 0, 0, 0, 0};  ///< far field / inflow: W of the ghost state
    phys::EqConst eq;               ///< far field / inflow: the ghost state's Maxwellian
};

/// Everything the kernels read or write: device pointers and sizes (captured by value).
struct Ctx {
    phys::GasParams gas;
    int dim = 1, B = 0, nblk = 0, ntab = 0, limiter = 0, order = 1;
    int axis_off[3] = {0, 0, 0};
    bool store_b = false, tensor = false;
    index_t nc = 0, no = 0, nf = 0, ns = 0;
    // mesh
    const index_t *owner = nullptr, *neigh = nullptr, *cf_off = nullptr, *cf = nullptr;
    const double *normal = nullptr, *area = nullptr, *fcent = nullptr, *ccent = nullptr,
                 *vol = nullptr;
    // static data (SolverStatic)
    const index_t* lsq_off = nullptr;
    const double *lsq = nullptr, *slot_dx = nullptr, *dxL = nullptr, *dxR = nullptr;
    const index_t* nbr = nullptr;      ///< per LSQ slot: the neighbour cell (-1: none)
    const double* cf_sarea = nullptr;  ///< per cell-face entry: +-area (+ when the cell owns it)
    const double* kd3 = nullptr;       ///< per owned cell: (K dh)^3 of the limiter
    const int *kind = nullptr, *bc = nullptr;
    const index_t *sym_index = nullptr, *mirror = nullptr;  ///< mirror: [axis][slot] local slot
    const double *u = nullptr, *w = nullptr, *axis_x = nullptr;
    const int* slot_idx = nullptr;
    const BcDev* bcs = nullptr;
    // state
    double *W = nullptr, *gradW = nullptr, *q = nullptr, *tau = nullptr, *stress = nullptr;
    phys::Prim* prim = nullptr;
    phys::EqConst* cell_eq = nullptr;  ///< per local cell: equilibrium constants (prim, q)
    double umax[3] = {0, 0, 0};        ///< max |u_d| over the velocity grid (CFL rule)
    double *h = nullptr, *b = nullptr;
    phys::FaceCoeffs* fc = nullptr;
    double *Facc = nullptr, *rho_wall = nullptr, *sym_h = nullptr, *sym_b = nullptr;
    double *cellE = nullptr, *faceE = nullptr;
    // block working set
    double *gh = nullptr, *gb = nullptr, *phi_h = nullptr, *phi_b = nullptr;
    double* mom = nullptr;
    // time.mode: steady (docs/steady.md)
    bool local_dt = false;  ///< per-cell steps dt_i, face rates with dt_f = min(dt_L, dt_R)
    double *dtc = nullptr, *dtf = nullptr;  ///< per local cell dt_i, per local face dt_f
    // time.steady_method: implicit (docs/steady.md section 7)
    double *res_h = nullptr, *res_b = nullptr;  ///< [block][owned cell][B]: flux residual, then rhs
    double *dh = nullptr, *db = nullptr;        ///< [block][owned cell][B]: microscopic increment
    double* dW = nullptr;                       ///< per local cell (ghosts 0): macro increment
    double *Rm = nullptr, *Qm = nullptr;        ///< per owned cell, 5: Rm and the moments Q
    double* rf = nullptr;                       ///< per local face: spectral radius r_f
    double *diag = nullptr, *a0 = nullptr;      ///< per owned cell: macro diagonal, 1/dtau + 1/tau*
};

__device__ inline double dot3(const double* a, const double* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/// Per-axis exponential table of p into E (entries of the first D axes).
__device__ inline void exp_table_entry(const Ctx& C, const phys::Prim& p, int t, double* E) {
    int d = 0;
    while (d + 1 < 3 && t >= C.axis_off[d + 1]) ++d;
    if (d >= C.gas.D) return;
    const double c = C.axis_x[t] - p.U[d];
    E[t] = exp(-p.lambda * c * c);
}

/// Fixed-order tree reduction of NV values per thread over the thread group (blockDim.x a power
/// of two). sh: NV * blockDim.x doubles. The result is in sh[e * blockDim.x] after the call.
template <int NV>
__device__ inline void group_reduce(double* sh, const double* mine) {
    const int T = blockDim.x, t = threadIdx.x;
    for (int e = 0; e < NV; ++e) sh[e * T + t] = mine[e];
    __syncthreads();
    for (int s = T / 2; s > 0; s >>= 1) {
        if (t < s)
            for (int e = 0; e < NV; ++e) sh[e * T + t] += sh[e * T + t + s];
        __syncthreads();
    }
}

// ---- kernels ---------------------------------------------------------------------------------

__global__ void k_prims(Ctx C) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.nc) return;
    C.prim[i] = phys::cons_to_prim(&C.W[5 * i], C.gas.N);
    C.tau[i] = phys::relaxation_time(C.prim[i], C.gas);
    C.cell_eq[i] = phys::eq_const(C.prim[i], &C.q[3 * i], C.gas);
}

__global__ void k_cell_tables(Ctx C) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k >= C.no * C.ntab) return;
    const index_t i = k / C.ntab;
    exp_table_entry(C, C.prim[i], static_cast<int>(k % C.ntab), &C.cellE[i * C.ntab]);
}

__global__ void k_init(Ctx C) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k >= C.nc * C.ns) return;
    const index_t c = k / C.ns, s = k % C.ns;
    const index_t m = s / C.B, v = s % C.B;
    const double zero_q[3] = {0, 0, 0};
    double hp, bp;
    phys::shakhov_equilibrium(C.prim[c], zero_q, C.gas, &C.u[3 * s], hp, bp);
    const index_t idx = (m * C.nc + c) * C.B + v;
    C.h[idx] = hp;
    if (C.store_b) C.b[idx] = bp;
}

/// kern::cfl_ratio of owned cell i.
__device__ inline double cfl_ratio(const Ctx& C, index_t i) {
    return kern::cfl_ratio(C.prim[i], C.gas.N, C.umax, C.vol[i], C.cf_off[i], C.cf_off[i + 1],
                           C.cf, C.normal, C.area);
}

__global__ void k_dt_ratio(Ctx C, double* ratio) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    ratio[i] = cfl_ratio(C, i);
}

/// Steady mode: the local step dt_i = CFL x the cell's own bound, per owned cell.
__global__ void k_local_dt(Ctx C, double cfl) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    C.dtc[i] = cfl * cfl_ratio(C, i);
}

/// Steady mode: the face step dt_f, the smaller of its two cells' steps (boundary face: its
/// cell's), per local face (after the halo of dt_i: the same on every rank that holds the face).
__global__ void k_face_dt(Ctx C) {
    const index_t f = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (f >= C.nf) return;
    const index_t L = C.owner[f], R = C.neigh[f];
    C.dtf[f] = R >= 0 ? fmin(C.dtc[L], C.dtc[R]) : C.dtc[L];
}

__global__ void k_grad_W(Ctx C) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    kern::gradient_W_cell(i, C.W, C.lsq_off, C.nbr, C.lsq, C.slot_dx, C.limiter, C.kd3[i],
                          &C.gradW[15 * i]);
}

__global__ void k_face_pre(Ctx C, double dt) {
    const index_t f = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (f >= C.nf) return;
    const int kind = C.kind[f];
    if (is_kinetic_boundary(kind)) return;
    phys::FaceInput in{};
    kern::face_input(kind, f, C.owner[f], C.neigh[f], C.W, C.gradW, C.q, C.ccent, C.fcent,
                     C.normal, C.dxR, kind == kInterior ? nullptr : C.bcs[C.bc[f]].W, in);
    phys::FaceCoeffs out;
    phys::face_equilibrium(in, C.gas, C.local_dt ? C.dtf[f] : dt, out);
    C.fc[f] = out;
    if (C.tensor)
        for (int t = 0; t < C.ntab; ++t) exp_table_entry(C, out.p0, t, &C.faceE[f * C.ntab]);
}

/// One thread group per diffuse-wall face (list `faces`, symmetry entries give 0): incident mass
/// flux num and the wall Maxwellian's den over the local velocities (decision U7).
__global__ void k_wall_sums(Ctx C, const index_t* faces, index_t nw, double* sums) {
    extern __shared__ double sh[];
    const index_t iw = blockIdx.x;
    if (iw >= nw) return;
    const index_t f = faces[iw];
    double acc[2] = {0.0, 0.0};
    if (C.kind[f] == kDiffuseWall) {
        const BcDev& bc = C.bcs[C.bc[f]];
        const index_t i = C.owner[f];
        const double* n = &C.normal[3 * f];
        const phys::EqConst unit = kern::wall_const(1.0, bc.T, bc.U, C.gas);
        phys::detail::with_dim(C.gas.D, [&](auto Dc) {
            for (index_t s = threadIdx.x; s < C.ns; s += blockDim.x) {
                const index_t m = s / C.B, v = s % C.B;
                const double* u = &C.u[3 * s];
                kern::wall_density_terms<decltype(Dc)::value>(
                    unit, C.w[s], u, dot3(u, n), C.h[(m * C.nc + i) * C.B + v], acc[0], acc[1]);
            }
        });
    }
    group_reduce<2>(sh, acc);
    if (threadIdx.x == 0) {
        sums[2 * iw] = sh[0];
        sums[2 * iw + 1] = sh[blockDim.x];
    }
}

/// Symmetry faces: the incident cell values at t^n, per local slot.
__global__ void k_sym_copy(Ctx C, const index_t* sym_faces, index_t nsym) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k >= nsym * C.ns) return;
    const index_t row = k / C.ns, s = k % C.ns;
    const index_t f = sym_faces[row];
    const index_t i = C.owner[f];
    const index_t m = s / C.B, v = s % C.B;
    const index_t idx = (m * C.nc + i) * C.B + v;
    C.sym_h[row * C.ns + s] = C.h[idx];
    if (C.store_b) C.sym_b[row * C.ns + s] = C.b[idx];
}

__global__ void k_scatter(const index_t* faces, const double* vals, index_t n, double* out) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k < n) out[faces[k]] = vals[k];
}

/// Fixed-order reduction of NV values per thread over the thread group (blockDim.x a multiple of
/// 32, at most kMaxGroup): a shuffle tree inside each warp, then thread 0 adds the warp partials
/// in warp order. part: NV * (kMaxGroup / 32) doubles of shared memory. The result is valid in
/// thread 0 only (out[e]).
template <int NV>
__device__ inline void warp_group_reduce(double (&acc)[NV], double* part, double (&out)[NV]) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
#pragma unroll
    for (int e = 0; e < NV; ++e)
        for (int off = 16; off > 0; off >>= 1) acc[e] += __shfl_down_sync(0xffffffffu, acc[e], off);
    if (lane == 0)
#pragma unroll
        for (int e = 0; e < NV; ++e) part[e * (kMaxGroup / 32) + warp] = acc[e];
    __syncthreads();
    if (threadIdx.x == 0)
#pragma unroll
        for (int e = 0; e < NV; ++e) {
            double s = part[e * (kMaxGroup / 32)];
            for (int k = 1; k < nw; ++k) s += part[e * (kMaxGroup / 32) + k];
            out[e] = s;
        }
}

/// Velocity i of a local slot: the first D components (the others are zero by contract).
template <int D>
__device__ inline void load_u(const Ctx& C, index_t s, double (&u)[3]) {
    u[0] = C.u[3 * s];
    u[1] = D > 1 ? C.u[3 * s + 1] : 0.0;
    u[2] = D > 2 ? C.u[3 * s + 2] : 0.0;
}

/// (owned cell, velocity) of a flat index k = B i + v, in 32-bit arithmetic when k fits (a 64-bit
/// division costs several times more instructions).
__device__ inline void split_cell_vel(index_t k, int B, index_t& i, int& v) {
    if (k <= 0x7fffffff) {
        const unsigned kk = static_cast<unsigned>(k), q = kk / static_cast<unsigned>(B);
        i = static_cast<index_t>(q);
        v = static_cast<int>(kk - q * static_cast<unsigned>(B));
    } else {
        i = k / B;
        v = static_cast<int>(k % B);
    }
}

/// LSQ gradient + limiter of block m of h (and b), per (owned cell, velocity): neighbours from the
/// per-slot list, h and b in one pass over them.
template <bool HB>
__global__ void k_grad_block(Ctx C, int m) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    const int B = C.B;
    if (k >= C.no * B) return;
    index_t i;
    int v;
    split_cell_vel(k, B, i, v);
    const double* fh = C.h + static_cast<index_t>(m) * C.nc * B;
    const double* fb = HB ? C.b + static_cast<index_t>(m) * C.nc * B : nullptr;
    const index_t s0 = C.lsq_off[i], s1 = C.lsq_off[i + 1];
    const double hi = fh[B * i + v];
    const double bi = HB ? fb[B * i + v] : 0.0;
    double gh0 = 0.0, gh1 = 0.0, gh2 = 0.0, gb0 = 0.0, gb1 = 0.0, gb2 = 0.0;
    double hmax = hi, hmin = hi, hsc = fabs(hi), bmax = bi, bmin = bi, bsc = fabs(bi);
    for (index_t slot = s0; slot < s1; ++slot) {
        const index_t j = C.nbr[slot];
        if (j < 0) continue;
        const double l0 = C.lsq[3 * slot], l1 = C.lsq[3 * slot + 1], l2 = C.lsq[3 * slot + 2];
        kern::lsq_add(l0, l1, l2, fh[B * j + v], hi, gh0, gh1, gh2, hmax, hmin, hsc);
        if (HB) kern::lsq_add(l0, l1, l2, fb[B * j + v], bi, gb0, gb1, gb2, bmax, bmin, bsc);
    }
    if (C.limiter != kern::kNoLimiter) {
        const double kd3 = C.kd3[i];
        const double ph = kern::limiter_psi(C.limiter, s0, s1, C.slot_dx, gh0, gh1, gh2, hi, hmax,
                                            hmin, hsc, kd3);
        gh0 *= ph;
        gh1 *= ph;
        gh2 *= ph;
        if (HB) {
            const double pb = kern::limiter_psi(C.limiter, s0, s1, C.slot_dx, gb0, gb1, gb2, bi,
                                                bmax, bmin, bsc, kd3);
            gb0 *= pb;
            gb1 *= pb;
            gb2 *= pb;
        }
    }
    double* g = C.gh + 3 * B * i;
    g[v] = gh0;
    g[B + v] = gh1;
    g[2 * B + v] = gh2;
    if (HB) {
        double* gb = C.gb + 3 * B * i;
        gb[v] = gb0;
        gb[B + v] = gb1;
        gb[2 * B + v] = gb2;
    }
}

/// The thread's velocity s of the block: u, |u|^2 over the first D components, weight, and the
/// tensor-table indices (ix[0] = -1 without tables).
template <int D>
__device__ __forceinline__ void load_velocity(const Ctx& C, index_t s, double (&u)[3], double& u2,
                                              double& w, int (&ix)[3]) {
    load_u<D>(C, s, u);
    w = C.w[s];
    ix[0] = -1;
    ix[1] = ix[2] = 0;
    if (C.tensor) {
        ix[0] = C.slot_idx[3 * s];
        if (D > 1) ix[1] = C.slot_idx[3 * s + 1];
        if (D > 2) ix[2] = C.slot_idx[3 * s + 2];
    }
    u2 = 0.0;
#pragma unroll
    for (int d = 0; d < D; ++d) u2 += u[d] * u[d];
}

/// Flux of one (face, velocity) of block m: the CUDA schedule of the kernel functions (kinetic
/// boundary faces: kern::kinetic_boundary_flux with the wall Maxwellian or the mirrored state;
/// the others: the upwind interface value and phys::micro_flux_lane). Writes Phi_h (and Phi_b)
/// and adds the velocity's moments to acc. fc: the face's leading kFaceFluxWords (unused on
/// kinetic boundary faces). Shared by k_flux and k_flux_mf.
template <int D, bool HB>
__device__ __forceinline__ void face_velocity_flux(
    const Ctx& C, index_t f, int kind, const phys::FaceCoeffs& fc, index_t L, index_t R, double n0,
    double n1, double n2, const double* h, const double* b, bool second, double dt, int B, int v,
    index_t s, const double (&u)[3], double u2, double w, const int (&ix)[3], double (&acc)[5]) {
    double un = u[0] * n0;
    if (D > 1) un += u[1] * n1;
    if (D > 2) un += u[2] * n2;
    if (is_kinetic_boundary(kind)) {
        const bool wall = kind == kDiffuseWall;
        const BcDev& bc = C.bcs[C.bc[f]];
        const double dtw = C.local_dt ? C.dtf[f] : dt;
        double hin = 0.0, bin = 0.0;
        if (un <= 0 && wall) {
            const phys::EqConst Ew = kern::wall_const(C.rho_wall[f], bc.T, bc.U, C.gas);
            phys::maxwellian_pair<D, HB>(Ew, u, hin, bin);
        } else if (un <= 0) {
            const index_t row = C.sym_index[f];
            kern::symmetry_incident<HB>(C.mirror[bc.axis * C.ns + s], &C.sym_h[row * C.ns],
                                        HB ? &C.sym_b[row * C.ns] : nullptr, hin, bin);
        }
        double ph, pb;
        kern::kinetic_boundary_flux<HB>(dtw, un, h[B * L + v], HB ? b[B * L + v] : 0.0, hin, bin,
                                        ph, pb);
        C.phi_h[f * B + v] = ph;
        if (HB) C.phi_b[f * B + v] = pb;
        kern::add_flux_moments<D, HB>(w, u, u2, ph, pb, acc);
        return;
    }
    // upwind interface value: the upwind cell (reconstructed), else the far-field ghost
    // Maxwellian or the outflow owner's state (zero gradient)
    double hf = 0.0, bf = 0.0, ugh = 0.0, ugb = 0.0;
    const index_t c = un > 0 ? L : (R >= 0 ? R : -1);
    if (c >= 0) {
        hf = h[B * c + v];
        if (HB) bf = b[B * c + v];
        if (second) {
            const double* dxc = c == L ? &C.dxL[3 * f] : &C.dxR[3 * f];
            const double* g = &C.gh[3 * B * c + v];
            kern::upwind_value(hf, g[0], g[B], g[2 * B], dxc[0], dxc[1], dxc[2], u[0], u[1], u[2],
                               hf, ugh);
            if (HB) {
                const double* e = &C.gb[3 * B * c + v];
                kern::upwind_value(bf, e[0], e[B], e[2 * B], dxc[0], dxc[1], dxc[2], u[0], u[1],
                                   u[2], bf, ugb);
            }
        }
    } else if (kind == kGhostMaxwellian) {
        phys::maxwellian_pair<D, HB>(C.bcs[C.bc[f]].eq, u, hf, bf);
    } else {
        hf = h[B * L + v];
        if (HB) bf = b[B * L + v];
    }
    // the interface Maxwellian: per-axis tables on tensor grids, else the formula
    const double H0 = C.tensor ? phys::maxwellian_H_tables<D>(fc.eq, &C.faceE[f * C.ntab], ix)
                               : phys::maxwellian_H<D>(fc.eq, u);
    double ph, pb, fmh, fmb;
    phys::micro_flux_lane<D, HB>(fc.eq, un > 0.0 ? fc.aL : fc.aR, fc.A, fc.tc, u, u2, un, H0, hf,
                                 bf, ugh, ugb, ph, pb, fmh, fmb);
    C.phi_h[f * B + v] = ph;
    if (HB) C.phi_b[f * B + v] = pb;
    kern::add_flux_moments<D, HB>(w, u, u2, fmh, fmb, acc);
}

/// Face fluxes of block m: one thread group per face, one thread per velocity (strided when B
/// exceeds the group); the block's free-transport moments reduced in the group (fixed order: warp
/// shuffle tree, then the warps in order) and added once to the face accumulator. D (velocity
/// dimension) and HB (b stored) are compile-time: phys::micro_flux_H's operations without the
/// terms that are identically zero.
/// MINB: minimum resident 256-thread blocks per SM asked of the compiler (register cap 65536 /
/// (256 MINB); experiment knob UGKS_FLUX_MINB for the monatomic 3D kernel).
template <int D, bool HB, int MINB = 1>
__global__ void __launch_bounds__(kMaxGroup, MINB) k_flux(Ctx C, int m, double dt) {
    __shared__ double s_part[5 * (kMaxGroup / 32)];
    __shared__ double s_fc[sizeof(phys::FaceCoeffs) / sizeof(double)];
    const index_t f = blockIdx.x;
    const int B = C.B;
    const int kind = C.kind[f];
    if (!is_kinetic_boundary(kind)) {
        const double* src = reinterpret_cast<const double*>(&C.fc[f]);
        for (int t = threadIdx.x; t < phys::kFaceFluxWords; t += blockDim.x) s_fc[t] = src[t];
    }
    __syncthreads();
    const phys::FaceCoeffs& fc = *reinterpret_cast<const phys::FaceCoeffs*>(s_fc);
    const index_t L = C.owner[f], R = C.neigh[f];
    const double n0 = C.normal[3 * f], n1 = C.normal[3 * f + 1], n2 = C.normal[3 * f + 2];
    const bool second = C.order >= 2;
    const index_t s0 = static_cast<index_t>(m) * B;
    const double* h = C.h + static_cast<index_t>(m) * C.nc * B;
    const double* b = HB ? C.b + static_cast<index_t>(m) * C.nc * B : nullptr;
    double acc[5] = {0, 0, 0, 0, 0};
    for (int v = threadIdx.x; v < B; v += blockDim.x) {
        const index_t s = s0 + v;
        double u[3], u2, w;
        int ix[3];
        load_velocity<D>(C, s, u, u2, w, ix);
        face_velocity_flux<D, HB>(C, f, kind, fc, L, R, n0, n1, n2, h, b, second, dt, B, v, s, u,
                                  u2, w, ix, acc);
    }
    double tot[5];
    warp_group_reduce<5>(acc, s_part, tot);
    if (threadIdx.x == 0)
        for (int e = 0; e < 5; ++e) C.Facc[5 * f + e] += tot[e];
}

/// k_flux with FPG consecutive faces per thread group (B <= group size: one velocity per thread).
/// The velocity data of the thread (u, weight, table indices) are loaded once for the FPG faces,
/// the faces' coefficients are staged in shared memory behind one barrier, and each face's moments
/// are reduced by the same warp-shuffle tree as warp_group_reduce, the warps then summed in order
/// by one thread per face after a single barrier: the same operations in the same order as k_flux,
/// so the results are bit-identical (docs/decisions.md).
template <int D, bool HB, int MINB, int FPG>
__global__ void __launch_bounds__(kMaxGroup, MINB) k_flux_mf(Ctx C, int m, double dt) {
    // the leading words that the flux reads (kFaceFluxWords), at the FaceCoeffs stride
    constexpr int kFcWords = sizeof(phys::FaceCoeffs) / sizeof(double);
    constexpr int kW = kMaxGroup / 32;
    __shared__ double s_part[FPG * 5 * kW];
    __shared__ double s_fc[FPG * kFcWords];
    const index_t f0 = static_cast<index_t>(blockIdx.x) * FPG;
    const int B = C.B;
    const int nface = static_cast<int>(C.nf - f0 < FPG ? C.nf - f0 : FPG);
    for (int t = threadIdx.x; t < nface * phys::kFaceFluxWords; t += blockDim.x) {
        const int ff = t / phys::kFaceFluxWords, wd = t - ff * phys::kFaceFluxWords;
        if (!is_kinetic_boundary(C.kind[f0 + ff]))
            s_fc[ff * kFcWords + wd] = reinterpret_cast<const double*>(&C.fc[f0 + ff])[wd];
    }
    const int v = threadIdx.x;
    const bool active = v < B;
    const index_t s = static_cast<index_t>(m) * B + (active ? v : 0);
    double u[3], u2, w;
    int ix[3];
    load_velocity<D>(C, s, u, u2, w, ix);
    const bool second = C.order >= 2;
    const double* h = C.h + static_cast<index_t>(m) * C.nc * B;
    const double* b = HB ? C.b + static_cast<index_t>(m) * C.nc * B : nullptr;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __syncthreads();
    for (int ff = 0; ff < nface; ++ff) {
        const index_t f = f0 + ff;
        const int kind = C.kind[f];
        const index_t L = C.owner[f], R = C.neigh[f];
        const double n0 = C.normal[3 * f], n1 = C.normal[3 * f + 1], n2 = C.normal[3 * f + 2];
        double acc[5] = {0, 0, 0, 0, 0};
        if (active)
            face_velocity_flux<D, HB>(
                C, f, kind, *reinterpret_cast<const phys::FaceCoeffs*>(&s_fc[ff * kFcWords]), L, R,
                n0, n1, n2, h, b, second, dt, B, v, s, u, u2, w, ix, acc);
#pragma unroll
        for (int e = 0; e < 5; ++e)
            for (int off = 16; off > 0; off >>= 1)
                acc[e] += __shfl_down_sync(0xffffffffu, acc[e], off);
        if (lane == 0)
#pragma unroll
            for (int e = 0; e < 5; ++e) s_part[(ff * 5 + e) * kW + warp] = acc[e];
    }
    __syncthreads();
    const int nw = blockDim.x >> 5;
    for (int t = threadIdx.x; t < nface * 5; t += blockDim.x) {
        const int ff = t / 5, e = t - 5 * ff;
        double sum = s_part[(ff * 5 + e) * kW];
        for (int k = 1; k < nw; ++k) sum += s_part[(ff * 5 + e) * kW + k];
        C.Facc[5 * (f0 + ff) + e] += sum;
    }
}

/// The Maxwellian of owned cell i at local slot s: per-axis tables on tensor grids, else the
/// formula.
template <int D>
__device__ inline double cell_maxwellian(const Ctx& C, index_t i, index_t s, const double (&u)[3]) {
    if (!C.tensor) return phys::maxwellian_H<D>(C.cell_eq[i], u);
    return phys::maxwellian_H_tables<D>(C.cell_eq[i], &C.cellE[i * C.ntab], &C.slot_idx[3 * s]);
}

/// Stage 1 (section 6.3) of block m, in place, per (owned cell, velocity); signed face areas from
/// the per-cell-face list.
template <int D, bool HB>
__global__ void k_stage1(Ctx C, int m, double dt) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    const int B = C.B;
    if (k >= C.no * B) return;
    index_t i;
    int v;
    split_cell_vel(k, B, i, v);
    double rh = 0.0, rb = 0.0;
    for (index_t kk = C.cf_off[i]; kk < C.cf_off[i + 1]; ++kk) {
        const index_t f = C.cf[kk];
        double sS = C.cf_sarea[kk];
        if (C.local_dt) sS *= C.dtc[i] / C.dtf[f];  // rate Phi_f / dt_f times dt_i
        rh += sS * C.phi_h[f * B + v];
        if (HB) rb += sS * C.phi_b[f * B + v];
    }
    const double invV = 1.0 / C.vol[i];
    const double c = 0.5 * (C.local_dt ? C.dtc[i] : dt) / C.tau[i];
    const index_t s = static_cast<index_t>(m) * B + v;
    double u[3];
    load_u<D>(C, s, u);
    double hp, bp;
    phys::shakhov_given_H<D, HB>(C.cell_eq[i], u, cell_maxwellian<D>(C, i, s, u), hp, bp);
    const index_t idx = (static_cast<index_t>(m) * C.nc + i) * B + v;
    C.h[idx] = kern::stage1_value(C.h[idx], rh, invV, c, hp);
    if (HB) C.b[idx] = kern::stage1_value(C.b[idx], rb, invV, c, bp);
}

/// W^{n+1} per owned cell (section 6.1) and the cell's residual parts (8 columns: (dW/dt)^2 for 5
/// components, |rho|, |rho E|, momentum scale) and failure flag (cell index, or no when fine).
__global__ void k_macro(Ctx C, double dt, double* parts, double* bad) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    double dW[5];
    kern::cell_flux_sum(i, C.cf_off, C.cf, C.owner, C.area, C.kind, C.Facc, C.fc, C.dtc,
                        C.local_dt ? C.dtf : nullptr, false, C.vol[i], dW);
    double* P = &parts[8 * i];
    const double dti = C.local_dt ? C.dtc[i] : dt;
    for (int e = 0; e < 5; ++e) {
        C.W[5 * i + e] += dW[e];
        P[e] = (dW[e] / dti) * (dW[e] / dti);
    }
    P[5] = fabs(C.W[5 * i]);
    P[6] = fabs(C.W[5 * i + 4]);
    P[7] = kern::momentum_scale(&C.W[5 * i], C.gas.N);
    bad[i] = kern::cell_state_ok(&C.W[5 * i], C.gas.N) ? static_cast<double>(C.no)
                                                        : static_cast<double>(i);
}

/// Steady mode, closed domain: the owned cells' masses before (W_old) and after the macroscopic
/// update, parts[i][2] (then a fixed-order column sum).
__global__ void k_mass_parts(Ctx C, const double* Wold, double* parts) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    parts[2 * i] = Wold[5 * i] * C.vol[i];
    parts[2 * i + 1] = C.W[5 * i] * C.vol[i];
}

/// Steady mode, closed domain: W (and q when with_q) of the owned cells times alpha
/// (docs/steady.md section 2).
__global__ void k_scale_macro(Ctx C, double alpha, bool with_q) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    for (int e = 0; e < 5; ++e) C.W[5 * i + e] *= alpha;
    if (with_q)
        for (int d = 0; d < 3; ++d) C.q[3 * i + d] *= alpha;
}

/// Steady mode, closed domain: f* (h and b after stage 1) of the owned cells times alpha, per
/// (local block, owned cell, velocity).
__global__ void k_scale_dist(Ctx C, double alpha) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    const index_t per_block = C.no * C.B;
    if (k >= C.nblk * per_block) return;
    const index_t m = k / per_block, r = k % per_block;
    const index_t idx = (m * C.nc + r / C.B) * C.B + r % C.B;
    C.h[idx] *= alpha;
    if (C.store_b) C.b[idx] *= alpha;
}

/// Stage 2 (dt > 0) and the 17 raw moments, one thread group per owned cell over every local
/// block (fixed order: per thread in slot order, then the warp shuffle tree and the warps in
/// order). Without b (HB false) the four b moments are zero and not accumulated.
template <int D, bool HB>
__global__ void __launch_bounds__(kMaxGroup) k_stage2(Ctx C, double dt) {
    constexpr int NM = HB ? 17 : 13;
    __shared__ double s_part[NM * (kMaxGroup / 32)];
    const index_t i = blockIdx.x;
    const int B = C.B;
    const double c = dt > 0 ? 0.5 * (C.local_dt ? C.dtc[i] : dt) / C.tau[i] : 0.0;
    const double inv = 1.0 / (1.0 + c);
    double M[NM];
#pragma unroll
    for (int k = 0; k < NM; ++k) M[k] = 0.0;
    for (int m = 0; m < C.nblk; ++m) {
        double* h = C.h + (static_cast<index_t>(m) * C.nc + i) * B;
        double* b = HB ? C.b + (static_cast<index_t>(m) * C.nc + i) * B : nullptr;
        for (int v = threadIdx.x; v < B; v += blockDim.x) {
            const index_t s = static_cast<index_t>(m) * B + v;
            double u[3];
            load_u<D>(C, s, u);
            double hv = h[v], bv = HB ? b[v] : 0.0;
            if (dt > 0) {
                double hp, bp;
                phys::shakhov_given_H<D, HB>(C.cell_eq[i], u, cell_maxwellian<D>(C, i, s, u), hp,
                                             bp);
                hv = kern::stage2_value(hv, c, inv, hp);
                h[v] = hv;
                if (HB) {
                    bv = kern::stage2_value(bv, c, inv, bp);
                    b[v] = bv;
                }
            }
            kern::add_raw_moments<NM>(C.w[s], u, hv, bv, M);
        }
    }
    double tot[NM];
    warp_group_reduce<NM>(M, s_part, tot);
    if (threadIdx.x == 0)
        for (int k = 0; k < 17; ++k) C.mom[17 * i + k] = k < NM ? tot[k % NM] : 0.0;
}

/// q^{n+1} and the stress from the reduced raw moments, per owned cell.
__global__ void k_q_stress(Ctx C) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    q_stress_from_raw(&C.mom[17 * i], C.prim[i], C.gas.D, &C.q[3 * i], &C.stress[6 * i]);
}

// ---- implicit steady iteration (time.steady_method: implicit, docs/steady.md section 7) ------
// The kernels of UgksSolver::implicit_macro / implicit_micro with the colored ordering: a colour's
// cells share no face, so one launch relaxes a whole colour (one thread per cell, or per (cell,
// velocity)) with the values of the CPU's sequential sweep over that colour (to round-off: FMA).

/// Implicit: the steady flux residual rate of block m, -(1/V) sum sigma S Phi_f / dt_f, per (owned
/// cell, velocity) into res [block][owned cell][B] (stage 1 is not applied; UgksSolver::sweep).
template <bool HB>
__global__ void k_imp_res(Ctx C, int m) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    const int B = C.B;
    if (k >= C.no * B) return;
    index_t i;
    int v;
    split_cell_vel(k, B, i, v);
    double rh = 0.0, rb = 0.0;
    for (index_t kk = C.cf_off[i]; kk < C.cf_off[i + 1]; ++kk) {
        const index_t f = C.cf[kk];
        double sS = C.cf_sarea[kk];
        sS *= C.dtc[i] / C.dtf[f];
        rh += sS * C.phi_h[f * B + v];
        if (HB) rb += sS * C.phi_b[f * B + v];
    }
    const double invV = 1.0 / C.vol[i];
    const double sc = -invV / C.dtc[i];
    const index_t idx = (static_cast<index_t>(m) * C.no + i) * B + v;
    C.res_h[idx] = sc * rh;
    if (HB) C.res_b[idx] = sc * rb;
}

/// Implicit: the steady macroscopic residual rate Rm = -(1/V) sum sigma S F_f / dt_f per owned
/// cell (5 each).
__global__ void k_imp_rm(Ctx C) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    double dW[5];
    kern::cell_flux_sum(i, C.cf_off, C.cf, C.owner, C.area, C.kind, C.Facc, C.fc, C.dtc, C.dtf,
                        true, C.vol[i], dW);
    for (int e = 0; e < 5; ++e) C.Rm[5 * i + e] = dW[e];
}

/// Implicit: the face's spectral radius r_f = max |U.n| + c + 2 nu_f (gamma/Pr) / d_f, nu_f = RT
/// min(tau, dt_f) (max over the two cells), per local face (prims of step n).
__global__ void k_imp_rf(Ctx C) {
    const index_t f = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (f >= C.nf) return;
    const index_t L = C.owner[f], R = C.neigh[f];
    const index_t Rs = R >= 0 ? R : L;
    C.rf[f] = kern::spectral_radius(C.prim[L], C.tau[L], C.prim[Rs], C.tau[Rs], R >= 0,
                                    &C.normal[3 * f], &C.dxL[3 * f], &C.dxR[3 * f], C.dtf[f],
                                    C.gas.N, C.gas.Pr);
}

/// Implicit: the diagonal 1/dtau_i + (1/2V_i) sum_f S_f r_f of the macroscopic system, per owned
/// cell (dtau_i = time.implicit.cfl x the CFL bound with the prims of step n).
__global__ void k_imp_diag(Ctx C, double icfl) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    double sum = 0.0;
    for (index_t k = C.cf_off[i]; k < C.cf_off[i + 1]; ++k) {
        const index_t f = C.cf[k];
        sum += C.area[f] * C.rf[f];
    }
    C.diag[i] = 1.0 / (icfl * cfl_ratio(C, i)) + 0.5 * sum / C.vol[i];
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
    const double gamma = (C.gas.N + 2.0) / C.gas.N;
    double off[5] = {0, 0, 0, 0, 0};
    for (index_t k = C.cf_off[i]; k < C.cf_off[i + 1]; ++k) {
        const index_t f = C.cf[k];
        const bool own = C.owner[f] == i;
        const index_t j = own ? C.neigh[f] : C.owner[f];
        if (j < 0 || j >= C.no) continue;
        const double sg = own ? 1.0 : -1.0;
        const double nn[3] = {sg * C.normal[3 * f], sg * C.normal[3 * f + 1],
                              sg * C.normal[3 * f + 2]};
        double Wt[5], F0[5], F1[5];
        for (int e = 0; e < 5; ++e) Wt[e] = C.W[5 * j + e] + C.dW[5 * j + e];
        implicit::euler_flux_n(&C.W[5 * j], nn, gamma, F0);
        implicit::euler_flux_n(Wt, nn, gamma, F1);
        const double S = C.area[f];
        for (int e = 0; e < 5; ++e) off[e] += S * (F1[e] - F0[e] - C.rf[f] * C.dW[5 * j + e]);
    }
    const double h = 0.5 / C.vol[i];
    for (int e = 0; e < 5; ++e) C.dW[5 * i + e] = (C.Rm[5 * i + e] - h * off[e]) / C.diag[i];
}

/// Implicit, macro_solver gmres: row i of the macroscopic block matrix (macro_krylov.hpp
/// macro_fill: diag_i I, plus (1/2V_i) S_f (A_j(n_f) - r_f I) per face to an owned cell j, in the
/// cell's face order), pattern rp/col/dg from macro_pattern.
__global__ void k_kr_fill(Ctx C, const index_t* rp, const index_t* col, const index_t* dg,
                          double* val) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    for (index_t p = 25 * rp[i]; p < 25 * rp[i + 1]; ++p) val[p] = 0.0;
    double* D = val + 25 * dg[i];
    for (int e = 0; e < 5; ++e) D[6 * e] = C.diag[i];
    const double gamma = (C.gas.N + 2.0) / C.gas.N;
    const double h = 0.5 / C.vol[i];
    for (index_t k = C.cf_off[i]; k < C.cf_off[i + 1]; ++k) {
        const index_t f = C.cf[k];
        const bool own = C.owner[f] == i;
        const index_t j = own ? C.neigh[f] : C.owner[f];
        if (j < 0 || j >= C.no) continue;
        const double sg = own ? 1.0 : -1.0;
        const double n[3] = {sg * C.normal[3 * f], sg * C.normal[3 * f + 1],
                             sg * C.normal[3 * f + 2]};
        double J[25];
        implicit::euler_jacobian_n(&C.W[5 * j], n, gamma, J);
        for (int e = 0; e < 5; ++e) J[6 * e] -= C.rf[f];
        index_t lo = rp[i], hi = rp[i + 1];  // the block (i, j): columns ascending
        while (lo < hi) {
            const index_t mid = (lo + hi) / 2;
            if (col[mid] < j)
                lo = mid + 1;
            else
                hi = mid;
        }
        double* Bij = val + 25 * lo;
        const double c = h * C.area[f];
        for (int e = 0; e < 25; ++e) Bij[e] += c * J[e];
    }
}

/// Implicit, gmres: y = A x for the block rows 0..n-1.
__global__ void k_kr_apply(const index_t* rp, const index_t* col, const double* val,
                           const double* x, double* y, index_t n) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    double s[5] = {0, 0, 0, 0, 0};
    for (index_t p = rp[i]; p < rp[i + 1]; ++p) {
        const double* Bk = val + 25 * p;
        const double* xj = x + 5 * col[p];
        for (int e = 0; e < 5; ++e)
            for (int q = 0; q < 5; ++q) s[e] += Bk[5 * e + q] * xj[q];
    }
    for (int e = 0; e < 5; ++e) y[5 * i + e] = s[e];
}

/// Implicit, gmres preconditioner: one block Gauss-Seidel relaxation of A x = b for the n cells
/// of one colour (macro_krylov.hpp bcsr_sgs).
__global__ void k_kr_sgs_relax(const index_t* rp, const index_t* col, const index_t* dg,
                               const double* val, const double* b, double* x, const index_t* cells,
                               index_t n) {
    const index_t t = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (t >= n) return;
    const index_t i = cells[t];
    double r[5];
    for (int e = 0; e < 5; ++e) r[e] = b[5 * i + e];
    for (index_t p = rp[i]; p < rp[i + 1]; ++p) {
        if (p == dg[i]) continue;
        const double* Bk = val + 25 * p;
        const double* xj = x + 5 * col[p];
        for (int e = 0; e < 5; ++e)
            for (int q = 0; q < 5; ++q) r[e] -= Bk[5 * e + q] * xj[q];
    }
    implicit::solve5(val + 25 * dg[i], r, x + 5 * i);
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
/// equilibrium of W* with q^n), in place of res, and df = 0; per (owned cell, local slot).
template <int D, bool HB>
__global__ void k_imp_rhs(Ctx C) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k >= C.no * C.ns) return;
    const index_t i = k / C.ns, s = k % C.ns;
    const int B = C.B;
    const index_t m = s / B, v = s % B;
    double u[3];
    load_u<D>(C, s, u);
    double hp, bp;
    phys::shakhov_given_H<D, HB>(C.cell_eq[i], u, cell_maxwellian<D>(C, i, s, u), hp, bp);
    const double it = 1.0 / C.tau[i];
    const index_t idx = (m * C.no + i) * B + v, hidx = (m * C.nc + i) * B + v;
    C.res_h[idx] = C.res_h[idx] + it * (hp - C.h[hidx]);
    C.dh[idx] = 0.0;
    if (HB) {
        C.res_b[idx] = C.res_b[idx] + it * (bp - C.b[hidx]);
        C.db[idx] = 0.0;
    }
}

/// Implicit: one Gauss-Seidel relaxation of the microscopic system (first-order upwind transport
/// + relaxation) for the n cells of one colour, per (cell, local slot) over every local block:
///   (a0_i + (1/V) sum_f S (u.n)^+) df_i - (1/V) sum_{f, j < no} S (u.n)^- df_j = rhs_i.
template <bool HB>
__global__ void k_imp_micro_relax(Ctx C, const index_t* cells, index_t n) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k >= n * C.ns) return;
    const index_t i = cells[k / C.ns], s = k % C.ns;
    const int B = C.B;
    const index_t m = s / B, v = s % B;
    const double u0 = C.u[3 * s], u1 = C.u[3 * s + 1], u2 = C.u[3 * s + 2];
    const index_t base = m * C.no * B + v;
    double a = 0.0, acc = 0.0, accb = 0.0;
    for (index_t kk = C.cf_off[i]; kk < C.cf_off[i + 1]; ++kk) {
        const index_t f = C.cf[kk];
        const bool own = C.owner[f] == i;
        const index_t j = own ? C.neigh[f] : C.owner[f];
        const double sg = own ? 1.0 : -1.0;
        const double S = C.area[f];
        const double n0 = sg * C.normal[3 * f], n1 = sg * C.normal[3 * f + 1],
                     n2 = sg * C.normal[3 * f + 2];
        const double un = u0 * n0 + u1 * n1 + u2 * n2;
        if (un > 0) {
            a += S * un;
        } else if (j >= 0 && j < C.no) {
            acc -= S * un * C.dh[base + j * B];
            if (HB) accb -= S * un * C.db[base + j * B];
        }
    }
    const double invV = 1.0 / C.vol[i];
    const double inv = 1.0 / (C.a0[i] + invV * a);
    const index_t idx = base + i * B;
    C.dh[idx] = (C.res_h[idx] + invV * acc) * inv;
    if (HB) C.db[idx] = (C.res_b[idx] + invV * accb) * inv;
}

/// Implicit: f^{n+1} = f^n + df and Q_i, the conserved moments of the microscopic residual with
/// f^{n+1} (rhs - df/tau*), one thread group per owned cell over every local block (fixed order:
/// per thread in slot order, then the warp shuffle tree and the warps in order).
template <bool HB>
__global__ void __launch_bounds__(kMaxGroup) k_imp_finish(Ctx C) {
    __shared__ double s_part[5 * (kMaxGroup / 32)];
    const index_t i = blockIdx.x;
    const int B = C.B;
    const double it = 1.0 / C.tau[i];
    double Q[5] = {0, 0, 0, 0, 0};
    for (int m = 0; m < C.nblk; ++m) {
        const index_t o = (static_cast<index_t>(m) * C.no + i) * B;
        double* h = C.h + (static_cast<index_t>(m) * C.nc + i) * B;
        double* b = HB ? C.b + (static_cast<index_t>(m) * C.nc + i) * B : nullptr;
        for (int v = threadIdx.x; v < B; v += blockDim.x) {
            const index_t s = static_cast<index_t>(m) * B + v;
            const double dhv = C.dh[o + v];
            h[v] += dhv;
            const double rh = C.res_h[o + v] - it * dhv;
            double rb = 0.0;
            if (HB) {
                const double dbv = C.db[o + v];
                b[v] += dbv;
                rb = C.res_b[o + v] - it * dbv;
            }
            kern::add_conserved_moments(C.w[s], &C.u[3 * s], rh, rb, Q);
        }
    }
    double tot[5];
    warp_group_reduce<5>(Q, s_part, tot);
    if (threadIdx.x == 0)
        for (int e = 0; e < 5; ++e) C.Qm[5 * i + e] = tot[e];
}

/// Implicit: the moment-consistency correction W += theta tau* (Rm - Q) per owned cell (theta:
/// positivity fraction).
__global__ void k_imp_correct(Ctx C) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    double dc[5];
    for (int e = 0; e < 5; ++e) dc[e] = C.tau[i] * (C.Rm[5 * i + e] - C.Qm[5 * i + e]);
    const double theta = implicit::positive_fraction(2.0 / C.gas.N, &C.W[5 * i], dc);
    for (int e = 0; e < 5; ++e) C.W[5 * i + e] += theta * dc[e];
}

/// Face flux of listed faces (walls: F = Facc), 5 per face.
__global__ void k_gather_F(const double* Facc, const index_t* faces, index_t n, double* out) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k >= 5 * n) return;
    out[k] = Facc[5 * faces[k / 5] + k % 5];
}

/// out[k] = a[faces[k]] for the n listed faces.
__global__ void k_gather(const double* a, const index_t* faces, index_t n, double* out) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k < n) out[k] = a[faces[k]];
}

/// Fixed-order column reduction of in[n][k] with one thread group: op 0 sum, 1 min.
__global__ void k_reduce_cols(const double* in, index_t n, int k, int op, double* out) {
    __shared__ double sh[kThreads];
    const int t = threadIdx.x;
    for (int c = 0; c < k; ++c) {
        double a = op == 0 ? 0.0 : HUGE_VAL;
        for (index_t i = t; i < n; i += blockDim.x)
            a = op == 0 ? a + in[i * k + c] : fmin(a, in[i * k + c]);
        sh[t] = a;
        __syncthreads();
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (t < s) sh[t] = op == 0 ? sh[t] + sh[t + s] : fmin(sh[t], sh[t + s]);
            __syncthreads();
        }
        if (t == 0) out[c] = sh[0];
        __syncthreads();
    }
}

/// Halo rows: pack owned rows of a (and b) into out[row][w] (w = wa, or 2 wa with b), or unpack
/// the reverse. threadIdx.x runs over a row's columns (coalesced reads and writes), threadIdx.y
/// over rows; each row's cell index is read once (no index division).
__global__ void k_pack(const double* __restrict__ a, const double* __restrict__ b, int wa,
                       const index_t* __restrict__ cells, index_t n, double* __restrict__ out) {
    const index_t r = blockIdx.x * static_cast<index_t>(blockDim.y) + threadIdx.y;
    if (r >= n) return;
    const index_t cell = cells[r];
    double* o = out + r * (b ? 2 * wa : wa);
    const double* sa = a + cell * wa;
    for (int c = threadIdx.x; c < wa; c += blockDim.x) o[c] = sa[c];
    if (b) {
        const double* sb = b + cell * wa;
        for (int c = threadIdx.x; c < wa; c += blockDim.x) o[wa + c] = sb[c];
    }
}
__global__ void k_unpack(double* __restrict__ a, double* __restrict__ b, int wa,
                         const index_t* __restrict__ cells, index_t n,
                         const double* __restrict__ in) {
    const index_t r = blockIdx.x * static_cast<index_t>(blockDim.y) + threadIdx.y;
    if (r >= n) return;
    const index_t cell = cells[r];
    const double* s = in + r * (b ? 2 * wa : wa);
    double* da = a + cell * wa;
    for (int c = threadIdx.x; c < wa; c += blockDim.x) da[c] = s[c];
    if (b) {
        double* db = b + cell * wa;
        for (int c = threadIdx.x; c < wa; c += blockDim.x) db[c] = s[wa + c];
    }
}
/// Thread block of the row kernels for row width wa: x covers the row (a multiple of 32, at most
/// 256), y = rows per block (256 threads in all).
dim3 row_block(int wa) {
    int x = 32;
    while (x < wa && x < 256) x *= 2;
    return dim3(static_cast<unsigned>(x), static_cast<unsigned>(std::max(1, 256 / x)));
}
unsigned grid_rows(index_t n, dim3 tb) {
    return static_cast<unsigned>(std::max<index_t>(1, (n + tb.y - 1) / tb.y));
}

unsigned grid_for(index_t n, int threads = kThreads) {
    return static_cast<unsigned>(std::max<index_t>(1, (n + threads - 1) / threads));
}

int group_size(int B) {
    int t = 32;
    while (t < B && t < kMaxGroup) t *= 2;
    return t;
}

const char* halo_name(HaloMode m) {
    return m == HaloMode::staged ? "staged" : m == HaloMode::cuda_aware ? "cuda_aware" : "nccl";
}

#if defined(UGKS_HAVE_NCCL)
using NcclComm = ncclComm_t;
#define UGKS_NCCL_CHECK(call)                                                                      \
    do {                                                                                           \
        const ncclResult_t ugks_r_ = (call);                                                       \
        if (ugks_r_ != ncclSuccess)                                                                \
            ::ugks::detail::internal_fail(                                                         \
                fmt::format("NCCL error in {}: {}", #call, ncclGetErrorString(ugks_r_)), __FILE__, \
                __LINE__);                                                                         \
    } while (0)
/// NCCL communicator over the ranks of c, rank numbers as in c (null for a single rank).
NcclComm make_nccl(MPI_Comm c) {
    int size = 1, rank = 0;
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    if (size <= 1) return nullptr;
    ncclUniqueId id;
    if (rank == 0) UGKS_NCCL_CHECK(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, c);
    NcclComm nc = nullptr;
    UGKS_NCCL_CHECK(ncclCommInitRank(&nc, size, id, rank));
    return nc;
}
#else
using NcclComm = void*;
#endif

/// True when the MPI library reports CUDA support at run time (MPIX_Query_cuda_support).
bool mpi_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
}

/// True when no two ranks of comm share a GPU (host name + PCI bus id; collective).
bool distinct_gpus(MPI_Comm comm) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    if (size <= 1) return true;
    constexpr int kLen = MPI_MAX_PROCESSOR_NAME + 64;
    std::vector<char> key(kLen, 0), all(static_cast<std::size_t>(kLen) * size, 0);
    int dev = 0, len = 0;
    UGKS_CUDA_CHECK(cudaGetDevice(&dev));
    MPI_Get_processor_name(key.data(), &len);
    key[len] = '/';
    UGKS_CUDA_CHECK(cudaDeviceGetPCIBusId(key.data() + len + 1, 60, dev));
    MPI_Allgather(key.data(), kLen, MPI_CHAR, all.data(), kLen, MPI_CHAR, comm);
    std::vector<std::string> ids;
    for (int r = 0; r < size; ++r)
        ids.emplace_back(all.data() + static_cast<std::size_t>(r) * kLen);
    std::sort(ids.begin(), ids.end());
    return std::adjacent_find(ids.begin(), ids.end()) == ids.end();
}

/// parallel.halo resolved (the same on every rank of world; collective): auto takes cuda_aware when
/// the MPI library reports CUDA support, else nccl when built with NCCL and every rank has its own
/// GPU, else staged. An explicit choice that cannot work is an input error (exit 2).
HaloMode resolve_halo(const std::string& req, MPI_Comm world) {
    const bool aware = mpi_cuda_aware();
#if defined(UGKS_HAVE_NCCL)
    const bool built = true;
#else
    const bool built = false;
#endif
    const bool distinct = distinct_gpus(world);
    if (req == "staged") return HaloMode::staged;
    if (req == "cuda_aware") {
        if (!aware)
            throw InputError(
                "parallel.halo: cuda_aware, but the MPI library does not report CUDA support "
                "(MPIX_Query_cuda_support); use nccl, staged or auto");
        return HaloMode::cuda_aware;
    }
    if (req == "nccl") {
        if (!built)
            throw InputError(
                "parallel.halo: nccl, but this build has no NCCL (nccl.h and libnccl were not "
                "found "
                "when configuring; set NCCL_HOME and reconfigure); use staged or auto");
        if (!distinct)
            throw InputError(
                "parallel.halo: nccl needs one GPU per rank (two ranks share a GPU here); use "
                "staged or auto");
        return HaloMode::nccl;
    }
    if (aware) return HaloMode::cuda_aware;
    if (built && distinct) return HaloMode::nccl;
    return HaloMode::staged;
}

}  // namespace

// ---- timers
// --------------------------------------------------------------------------------------

/// Device time per category from CUDA events recorded around each launch and copy. flush() (after
/// the step's work has finished) adds the elapsed times to the process timers as "gpu:<name>"
/// (summary.json wall_time_s). Off with UGKS_GPU_TIMERS=0 in the environment.
class EventTimers {
public:
    EventTimers() {
        const char* env = std::getenv("UGKS_GPU_TIMERS");
        m_on = !(env && std::strcmp(env, "0") == 0);
    }
    ~EventTimers() {
        for (cudaEvent_t e : m_pool) cudaEventDestroy(e);
    }
    EventTimers(const EventTimers&) = delete;
    EventTimers& operator=(const EventTimers&) = delete;

    /// Record a start event on st; returns its slot (-1 when off).
    int begin(cudaStream_t st) {
        if (!m_on) return -1;
        const int k = next();
        UGKS_CUDA_CHECK(cudaEventRecord(m_pool[k], st));
        return k;
    }
    /// Record the matching stop event on st under category name (a string literal).
    void end(int k, const char* name, cudaStream_t st) {
        if (k < 0) return;
        const int e = next();
        UGKS_CUDA_CHECK(cudaEventRecord(m_pool[e], st));
        m_recs.push_back({name, k, e});
    }
    /// Add the recorded intervals to timers() (waits for the last stop events) and reset.
    void flush() {
        for (const Rec& r : m_recs) {
            UGKS_CUDA_CHECK(cudaEventSynchronize(m_pool[r.stop]));
            float ms = 0.0f;
            UGKS_CUDA_CHECK(cudaEventElapsedTime(&ms, m_pool[r.start], m_pool[r.stop]));
            m_acc[r.name] += 1e-3 * ms;
        }
        for (const auto& [name, sec] : m_acc) timers().add(std::string("gpu:") + name, sec);
        m_acc.clear();
        m_recs.clear();
        m_used = 0;
    }

private:
    struct Rec {
        const char* name;
        int start, stop;
    };
    int next() {
        if (m_used == m_pool.size()) {
            cudaEvent_t e;
            UGKS_CUDA_CHECK(cudaEventCreate(&e));
            m_pool.push_back(e);
        }
        return static_cast<int>(m_used++);
    }
    bool m_on = true;
    std::vector<cudaEvent_t> m_pool;
    std::size_t m_used = 0;
    std::vector<Rec> m_recs;
    std::map<const char*, double> m_acc;
};

/// NVTX range for the Nsight timeline (scope-bound).
struct NvtxRange {
    explicit NvtxRange(const char* name) { nvtxRangePushA(name); }
    ~NvtxRange() { nvtxRangePop(); }
    NvtxRange(const NvtxRange&) = delete;
    NvtxRange& operator=(const NvtxRange&) = delete;
};

/// Launch on stream with the launch checked and its device time recorded under name.
#define UGKS_TIMED_LAUNCH(impl, name, stream, ...)   \
    do {                                             \
        const int ugks_t_ = (impl).et.begin(stream); \
        __VA_ARGS__;                                 \
        (impl).launched(name);                       \
        (impl).et.end(ugks_t_, name, stream);        \
    } while (0)

/// Calls f(integral_constant<int, D>, bool_constant<store_b>) for the velocity dimension D and
/// whether b is stored: the kernels specialised on both.
template <class F>
void dispatch(int D, bool store_b, F&& f) {
    using I1 = std::integral_constant<int, 1>;
    using I2 = std::integral_constant<int, 2>;
    using I3 = std::integral_constant<int, 3>;
    if (D == 3 && !store_b)
        f(I3{}, std::false_type{});
    else if (D == 3)
        f(I3{}, std::true_type{});
    else if (D == 2)
        f(I2{}, std::true_type{});
    else
        f(I1{}, std::true_type{});
}

// ---- implementation object -------------------------------------------------------------------

/// Halo exchange of device cell arrays (parallel.halo). The owned rows to send are packed on the
/// device into one buffer (per neighbour in pattern order), moved to the neighbours and scattered
/// from the receive buffer into the ghost rows:
///   staged      pack, D2H into pinned memory, HaloExchange (MPI over a compact pattern: send rows
///               first, then receive rows), H2D, unpack; the host waits for the pack;
///   cuda_aware  pack, the host waits for it, MPI_Isend/Irecv of the device buffers, unpack;
///   nccl        pack, ncclSend/ncclRecv per neighbour in one ncclGroupStart/End, unpack: all on
///   the
///               stream, no host wait.
class DeviceHalo {
public:
    DeviceHalo() = default;
    DeviceHalo(MPI_Comm comm, const HaloPattern& pat, int max_width, const std::string& label,
               HaloMode mode, NcclComm nccl)
        : m_mode(mode), m_nccl(nccl) {
        std::vector<index_t> send, recv;
        for (const auto& l : pat.send_cells) send.insert(send.end(), l.begin(), l.end());
        for (const auto& l : pat.recv_cells) recv.insert(recv.end(), l.begin(), l.end());
        m_nsend = static_cast<index_t>(send.size());
        m_nrecv = static_cast<index_t>(recv.size());
        m_nbr = pat.neighbours;
        index_t so = 0, ro = 0;
        for (std::size_t k = 0; k < pat.neighbours.size(); ++k) {
            const index_t ns = static_cast<index_t>(pat.send_cells[k].size());
            const index_t nr = static_cast<index_t>(pat.recv_cells[k].size());
            m_seg.push_back({so, ns, ro, nr});
            so += ns;
            ro += nr;
        }
        if (mode == HaloMode::staged) {
            HaloPattern compact;
            compact.neighbours = pat.neighbours;
            index_t r = 0;
            for (const auto& l : pat.send_cells) {
                compact.send_cells.emplace_back();
                for (std::size_t k = 0; k < l.size(); ++k) compact.send_cells.back().push_back(r++);
            }
            for (const auto& l : pat.recv_cells) {
                compact.recv_cells.emplace_back();
                for (std::size_t k = 0; k < l.size(); ++k) compact.recv_cells.back().push_back(r++);
            }
            m_halo = HaloExchange(comm, compact);  // collective over comm
        } else if (mode == HaloMode::cuda_aware) {
            MPI_Comm_dup(comm, &m_comm);  // collective over comm
        }
        m_active = m_nsend + m_nrecv > 0;
        if (!m_active) return;
        m_send_cells = DeviceArray<index_t>(label + ":send_cells", m_nsend);
        m_send_cells.copy_from(send);
        m_recv_cells = DeviceArray<index_t>(label + ":recv_cells", m_nrecv);
        m_recv_cells.copy_from(recv);
        m_dsend = DeviceArray<double>("work:" + label + ":send", m_nsend * max_width);
        m_drecv = DeviceArray<double>("work:" + label + ":recv", m_nrecv * max_width);
        m_max_width = max_width;
        if (mode == HaloMode::staged)
            UGKS_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&m_host),
                                           sizeof(double) * (m_nsend + m_nrecv) * max_width));
        UGKS_CUDA_CHECK(cudaEventCreateWithFlags(&m_packed, cudaEventDisableTiming));
    }
    ~DeviceHalo() {
        if (m_host) cudaFreeHost(m_host);
        if (m_packed) cudaEventDestroy(m_packed);
        if (m_comm != MPI_COMM_NULL) MPI_Comm_free(&m_comm);
    }
    DeviceHalo(const DeviceHalo&) = delete;
    DeviceHalo& operator=(const DeviceHalo&) = delete;
    DeviceHalo& operator=(DeviceHalo&& o) noexcept {
        std::swap(m_mode, o.m_mode);
        std::swap(m_nccl, o.m_nccl);
        std::swap(m_comm, o.m_comm);
        std::swap(m_halo, o.m_halo);
        std::swap(m_nbr, o.m_nbr);
        std::swap(m_seg, o.m_seg);
        std::swap(m_send_cells, o.m_send_cells);
        std::swap(m_recv_cells, o.m_recv_cells);
        std::swap(m_dsend, o.m_dsend);
        std::swap(m_drecv, o.m_drecv);
        std::swap(m_host, o.m_host);
        std::swap(m_packed, o.m_packed);
        std::swap(m_nsend, o.m_nsend);
        std::swap(m_nrecv, o.m_nrecv);
        std::swap(m_max_width, o.m_max_width);
        std::swap(m_active, o.m_active);
        std::swap(m_et, o.m_et);
        return *this;
    }
    /// Device timers of the pack, copies and unpack (null: untimed).
    void set_timers(EventTimers* et) { m_et = et; }

    bool active() const { return m_active; }
    std::size_t working_bytes() const {
        return sizeof(double) * static_cast<std::size_t>(m_nsend + m_nrecv) * m_max_width;
    }

    /// Pack the owned rows of a (and b), width wa each, on stream (staged: and copy them to pinned
    /// memory).
    void start(cudaStream_t st, const double* a, const double* b, int wa, std::string& last) {
        if (!m_active) return;
        const int w = b ? 2 * wa : wa;
        UGKS_REQUIRE(w <= m_max_width, "halo row width " << w << " > " << m_max_width);
        m_width = w;
        if (m_nsend > 0) {
            const int t0 = m_et ? m_et->begin(st) : -1;
            const dim3 tb = row_block(wa);
            k_pack<<<grid_rows(m_nsend, tb), tb, 0, st>>>(a, b, wa, m_send_cells.data(), m_nsend,
                                                          m_dsend.data());
            check_launch("k_pack", last);
            if (m_et) m_et->end(t0, "k_pack", st);
            if (m_mode == HaloMode::staged) {
                const int t1 = m_et ? m_et->begin(st) : -1;
                UGKS_CUDA_CHECK(cudaMemcpyAsync(m_host, m_dsend.data(),
                                                sizeof(double) * m_nsend * w,
                                                cudaMemcpyDeviceToHost, st));
                if (m_et) m_et->end(t1, "d2h", st);
            }
        }
        if (m_mode != HaloMode::nccl) UGKS_CUDA_CHECK(cudaEventRecord(m_packed, st));
    }
    /// Exchange the packed rows and scatter the received rows into the ghost rows of a (and b),
    /// on stream (staged, cuda_aware: the host waits for the pack and does the MPI part; nccl:
    /// enqueued only).
    void finish(cudaStream_t st, double* a, double* b, int wa, std::string& last) {
        if (!m_active) return;
        const int w = m_width;
        if (m_mode != HaloMode::nccl) {
            ScopedTimer t("halo_pack_wait");
            const cudaError_t e = cudaEventSynchronize(m_packed);
            if (e != cudaSuccess) fault(e, "halo pack", last);
        }
        if (m_mode == HaloMode::staged) {
            {
                ScopedTimer t("mpi_halo");
                m_halo.begin(m_host, w);
                m_halo.end(m_host);
            }
            if (m_nrecv > 0) {
                const int t0 = m_et ? m_et->begin(st) : -1;
                UGKS_CUDA_CHECK(cudaMemcpyAsync(m_drecv.data(), m_host + m_nsend * w,
                                                sizeof(double) * m_nrecv * w,
                                                cudaMemcpyHostToDevice, st));
                if (m_et) m_et->end(t0, "h2d", st);
            }
        } else if (m_mode == HaloMode::cuda_aware) {
            ScopedTimer t("mpi_halo");
            std::vector<MPI_Request> req;
            for (std::size_t k = 0; k < m_nbr.size(); ++k) {
                req.emplace_back();
                MPI_Irecv(m_drecv.data() + m_seg[k].ro * w, static_cast<int>(m_seg[k].nr * w),
                          MPI_DOUBLE, m_nbr[k], 0, m_comm, &req.back());
            }
            for (std::size_t k = 0; k < m_nbr.size(); ++k) {
                req.emplace_back();
                MPI_Isend(m_dsend.data() + m_seg[k].so * w, static_cast<int>(m_seg[k].ns * w),
                          MPI_DOUBLE, m_nbr[k], 0, m_comm, &req.back());
            }
            MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
        } else {
#if defined(UGKS_HAVE_NCCL)
            const int t0 = m_et ? m_et->begin(st) : -1;
            UGKS_NCCL_CHECK(ncclGroupStart());
            for (std::size_t k = 0; k < m_nbr.size(); ++k) {
                if (m_seg[k].nr > 0)
                    UGKS_NCCL_CHECK(ncclRecv(m_drecv.data() + m_seg[k].ro * w,
                                             static_cast<std::size_t>(m_seg[k].nr * w), ncclDouble,
                                             m_nbr[k], m_nccl, st));
                if (m_seg[k].ns > 0)
                    UGKS_NCCL_CHECK(ncclSend(m_dsend.data() + m_seg[k].so * w,
                                             static_cast<std::size_t>(m_seg[k].ns * w), ncclDouble,
                                             m_nbr[k], m_nccl, st));
            }
            UGKS_NCCL_CHECK(ncclGroupEnd());
            if (m_et) m_et->end(t0, "nccl_halo", st);
#endif
        }
        if (m_nrecv > 0) {
            const int t1 = m_et ? m_et->begin(st) : -1;
            const dim3 tb = row_block(wa);
            k_unpack<<<grid_rows(m_nrecv, tb), tb, 0, st>>>(a, b, wa, m_recv_cells.data(), m_nrecv,
                                                            m_drecv.data());
            check_launch("k_unpack", last);
            if (m_et) m_et->end(t1, "k_unpack", st);
        }
    }
    void exchange(cudaStream_t st, double* a, double* b, int wa, std::string& last) {
        start(st, a, b, wa, last);
        finish(st, a, b, wa, last);
    }

    static void check_launch(const char* name, std::string& last) {
        last = name;
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) fault(e, "launch", last);
#ifdef UGKS_SYNC_CHECK
        const cudaError_t s = cudaDeviceSynchronize();
        if (s != cudaSuccess) fault(s, "kernel", last);
#endif
    }
    [[noreturn]] static void fault(cudaError_t e, const char* what, const std::string& last) {
        ::ugks::detail::internal_fail(fmt::format("CUDA fault at {} (last kernel launched: {}): {}",
                                                  what, last, cudaGetErrorString(e)),
                                      __FILE__, __LINE__);
    }

private:
    struct Segment {
        index_t so, ns, ro, nr;  ///< send/receive row offset and count of one neighbour
    };
    HaloMode m_mode = HaloMode::staged;
    NcclComm m_nccl = nullptr;
    MPI_Comm m_comm = MPI_COMM_NULL;  ///< cuda_aware: private duplicate of the halo communicator
    HaloExchange m_halo;              ///< staged
    std::vector<int> m_nbr;
    std::vector<Segment> m_seg;
    DeviceArray<index_t> m_send_cells, m_recv_cells;
    DeviceArray<double> m_dsend, m_drecv;
    double* m_host = nullptr;
    cudaEvent_t m_packed = nullptr;
    index_t m_nsend = 0, m_nrecv = 0;
    int m_max_width = 0, m_width = 0;
    bool m_active = false;
    EventTimers* m_et = nullptr;
};

struct UgksSolverDevice::Impl {
    const CaseSetup& setup;
    const LocalMesh& local;
    const Mesh& mesh;
    const PhaseSpaceLayout& layout;
    const VelocityBlocks& blocks;
    SolverStatic S;
    phys::GasParams gas;
    Ctx C;
    int group = 32;  ///< thread-group size of the per-(face|cell, block) kernels
    std::string last_kernel = "(none)";

    // device arrays (persistent)
    DeviceArray<index_t> d_owner, d_neigh, d_cf_off, d_cf, d_lsq_off, d_sym_index, d_mirror, d_nbr;
    DeviceArray<double> d_cf_sarea, d_kd3;
    DeviceArray<double> d_normal, d_area, d_fcent, d_ccent, d_vol, d_lsq, d_slot_dx, d_dxL, d_dxR;
    DeviceArray<int> d_kind, d_bc, d_slot_idx;
    DeviceArray<double> d_u, d_w, d_axis_x;
    DeviceArray<BcDev> d_bcs;
    DeviceArray<double> d_W, d_Wold, d_gradW, d_q, d_tau, d_stress, d_h, d_b, d_Facc, d_rho_wall,
        d_sym_h, d_sym_b, d_cellE, d_faceE, d_mom;
    DeviceArray<phys::Prim> d_prim;
    DeviceArray<phys::EqConst> d_cell_eq;
    DeviceArray<phys::FaceCoeffs> d_fc;
    DeviceArray<index_t> d_wall_faces, d_sym_faces;
    DeviceArray<double> d_wall_vals, d_cell_parts, d_bad, d_red;
    // block working set
    DeviceArray<double> d_gh, d_gb, d_phi_h, d_phi_b;
    DeviceArray<double> d_gh2, d_gb2;  ///< second gradient buffer (pipelined gradient halo)
    // time.mode: steady (docs/steady.md)
    bool local_dt = false;  ///< per-cell time steps
    bool closed = false;    ///< no far-field / inflow / outflow face anywhere (mass rescale)
    DeviceArray<double> d_dtc, d_dtf;  ///< per local cell dt_i, per local face dt_f
    DeviceArray<double> d_wall_dt;     ///< per wall entry: dt_f (gathered for the wall data)
    DeviceArray<double> d_mass_parts;  ///< per owned cell: mass before and after the update
    std::vector<double> wall_dtf;      ///< host copy of d_wall_dt
    // time.steady_method: implicit (docs/steady.md section 7), always the colored ordering
    bool implicit = false;
    DeviceArray<double> d_res_h, d_res_b, d_dh, d_db, d_dW, d_Rm, d_Qm, d_rf, d_diag, d_a0;
    /// implicit, macro_solver gmres: block pattern (macro_pattern), values, Krylov work vectors
    DeviceArray<index_t> d_kr_rp, d_kr_col, d_kr_dg;
    DeviceArray<double> d_kr_val, d_kr_V, d_kr_r, d_kr_w, d_kr_z, d_kr_part;
    std::vector<double> h_kr_part;
    DeviceArray<index_t> d_color_cells;  ///< owned cells sorted by colour (local order inside)
    std::vector<index_t> color_off;      ///< colour c: entries color_off[c] .. color_off[c+1]

    DeviceHalo halo_f, halo_g;
    HaloMode halo_mode = HaloMode::staged;
    /// __launch_bounds__ variant of the monatomic 3D k_flux (1, 3, 4; UGKS_FLUX_MINB overrides):
    /// 4 = at most 64 registers, 1.36x faster steps on the 80^3 x 21^3 cavity (docs/performance.md)
    int flux_minb = 4;
    int flux_fpg =
        8;  ///< faces per thread group of the flux kernel (1: k_flux, one face per group)
    NcclComm nccl_x = nullptr, nccl_v = nullptr;  ///< nccl: over comm_x (halos), comm_v (sums)
    EventTimers et;
    cudaStream_t compute = nullptr, comm = nullptr;
    cudaEvent_t ev_state = nullptr, ev_f = nullptr, ev_g = nullptr, ev_gh = nullptr;

    std::vector<WallFaceData> wall;
    std::vector<index_t> wall_faces_host;
    std::vector<double> rho_wall_w;  ///< per wall entry (diffuse walls; kept when den = 0)
    long step_no = 0;
    double time = 0;
    std::size_t bytes_persistent = 0, bytes_work = 0;

    Impl(const CaseSetup& s, const LocalMesh& l, const PhaseSpaceLayout& lay,
         const VelocityGrid& grid, const VelocityBlocks& blk)
        : setup(s),
          local(l),
          mesh(l.mesh),
          layout(lay),
          blocks(blk),
          S(make_solver_static(s, l, lay, grid, blk)) {}

    ~Impl() {
#if defined(UGKS_HAVE_NCCL)
        if (nccl_x || nccl_v) cudaDeviceSynchronize();
        if (nccl_x) ncclCommDestroy(nccl_x);
        if (nccl_v) ncclCommDestroy(nccl_v);
#endif
        if (compute) cudaStreamDestroy(compute);
        if (comm) cudaStreamDestroy(comm);
        for (cudaEvent_t e : {ev_state, ev_f, ev_g, ev_gh})
            if (e) cudaEventDestroy(e);
    }

    template <class T>
    DeviceArray<T> upload(const std::string& label, const std::vector<T>& v) {
        DeviceArray<T> a(label, static_cast<index_t>(v.size()));
        a.copy_from(v);
        return a;
    }
    static std::vector<double> flat(const std::vector<Vec3>& v) {
        std::vector<double> out(3 * v.size());
        for (std::size_t i = 0; i < v.size(); ++i)
            for (int d = 0; d < 3; ++d) out[3 * i + d] = v[i][d];
        return out;
    }
    template <class T>
    DeviceArray<T> alloc(const std::string& label, index_t n) {
        DeviceArray<T> a(label, n);
        if (n > 0) UGKS_CUDA_CHECK(cudaMemset(a.data(), 0, sizeof(T) * n));
        return a;
    }

    void launched(const char* name) { DeviceHalo::check_launch(name, last_kernel); }
    void sync(cudaStream_t st, const char* what) {
        ScopedTimer t("device_wait");
        const cudaError_t e = cudaStreamSynchronize(st);
        if (e != cudaSuccess) DeviceHalo::fault(e, what, last_kernel);
    }

    void setup_all();
    void compute_prims();
    double compute_dt();
    /// Steady mode: dt_i (owned, then halo), dt_f = min of the face's cells' steps; returns the
    /// global minimum of dt_i (UgksSolver::compute_local_dt).
    double compute_local_dt();
    /// Steady mode, closed domain: W, q and f* of the owned cells (W only: whole_state false)
    /// scaled back to the mass before the macroscopic update (docs/steady.md section 2).
    void mass_rescale(bool whole_state = true);
    /// Implicit: the greedy colouring of UgksSolver::implicit_ordering (host, once).
    void implicit_coloring();
    /// Implicit: the macroscopic prediction dW (UgksSolver::implicit_macro), W* = W^n + dW and
    /// the residual parts into d_cell_parts / d_bad.
    void implicit_macro();
    /// Implicit, macro_solver gmres: the macroscopic prediction by GMRES on the device.
    void implicit_macro_gmres();
    /// Implicit: the microscopic update and the moment-consistency correction
    /// (UgksSolver::implicit_micro).
    void implicit_micro();
    void gradients_W();
    void face_precompute(double dt);
    void wall_densities();
    void sweep(double dt);
    void macro_update(double dt, StepResult& r);
    void stage2_and_moments(double dt);
    void allreduce_v(DeviceArray<double>& a, index_t n);
    void macro_halo(double* a, int width);
};

void UgksSolverDevice::Impl::setup_all() {
    gas.D = S.D;
    gas.K = 3 - S.D + setup.gas.K_int;
    gas.N = 3 + setup.gas.K_int;
    gas.Pr = setup.gas.Pr;
    gas.mu_ref = setup.gas.mu_ref;
    gas.omega = setup.gas.omega;
    const std::size_t tally0 = memory_tally().current;

    // The communication stream at the highest priority: its small pack/unpack (and NCCL) kernels
    // are scheduled ahead of the waiting blocks of the flux kernel.
    int prio_lo = 0, prio_hi = 0;
    UGKS_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&prio_lo, &prio_hi));
    UGKS_CUDA_CHECK(cudaStreamCreateWithPriority(&compute, cudaStreamDefault, prio_lo));
    UGKS_CUDA_CHECK(cudaStreamCreateWithPriority(&comm, cudaStreamDefault, prio_hi));
    halo_mode = resolve_halo(setup.parallel.halo, layout.world);
    if (const char* e = std::getenv("UGKS_FLUX_MINB")) flux_minb = std::atoi(e);
    if (const char* e = std::getenv("UGKS_FLUX_FPG")) flux_fpg = std::atoi(e);
    log::info("parallel.halo: {} (requested {})", halo_name(halo_mode), setup.parallel.halo);
#if defined(UGKS_HAVE_NCCL)
    if (halo_mode == HaloMode::nccl) {
        nccl_x = make_nccl(layout.comm_x);
        nccl_v = make_nccl(layout.comm_v);
    }
#endif
    for (cudaEvent_t* e : {&ev_state, &ev_f, &ev_g, &ev_gh})
        UGKS_CUDA_CHECK(cudaEventCreateWithFlags(e, cudaEventDisableTiming));

    const index_t nc = S.nc, no = S.no, nf = S.nf, ns = S.ns;
    d_owner = upload("mesh:face_owner", mesh.face_owner);
    d_neigh = upload("mesh:face_neighbour", mesh.face_neighbour);
    d_cf_off = upload("mesh:cell_face_offsets", mesh.cell_face_offsets);
    d_cf = upload("mesh:cell_faces", mesh.cell_faces);
    d_normal = upload("mesh:face_normal", flat(mesh.face_normal));
    d_area = upload("mesh:face_area", mesh.face_area);
    d_fcent = upload("mesh:face_centroid", flat(mesh.face_centroid));
    d_ccent = upload("mesh:cell_centroid", flat(mesh.cell_centroid));
    d_vol = upload("mesh:cell_volume", mesh.cell_volume);
    d_lsq_off = upload("static:lsq_off", S.lsq_off);
    d_nbr = upload("static:lsq_neighbour", S.lsq_nbr);
    d_cf_sarea = upload("static:cell_face_signed_area", S.cf_sarea);
    d_kd3 = upload("static:limiter_kd3", S.kd3);
    d_lsq = upload("static:lsq", S.lsq);
    d_slot_dx = upload("static:slot_dx", S.slot_dx);
    d_dxL = upload("static:face_dxL", S.face_dxL);
    d_dxR = upload("static:face_dxR", S.face_dxR);
    d_kind = upload("static:face_kind", S.face_kind);
    d_bc = upload("static:face_bc", S.face_bc);
    d_sym_index = upload("static:sym_index", S.sym_index);
    d_u = upload("static:u", S.u);
    d_w = upload("static:w", S.w);
    d_axis_x = upload("static:axis_x", S.axis_x.empty() ? std::vector<double>{0.0} : S.axis_x);
    d_slot_idx = upload("static:slot_idx", S.slot_idx.empty() ? std::vector<int>{-1} : S.slot_idx);
    d_mirror = upload("static:mirror", S.mirror);
    std::vector<BcDev> bcs;
    for (const auto& bc : setup.boundaries) {
        BcDev d;
        d.kind = bc.type == "diffuse_wall" ? kDiffuseWall
                 : bc.type == "symmetry"   ? kSymmetry
                 : bc.type == "outflow"    ? kOutflow
                                           : kGhostMaxwellian;
        d.axis = bc.symmetry_axis < 0 ? 0 : bc.symmetry_axis;
        d.rho = bc.rho;
        d.T = bc.T;
        for (int c = 0; c < 3; ++c) d.U[c] = bc.U[c];
        phys::Prim g;
        g.rho = bc.rho;
        for (int c = 0; c < 3; ++c) g.U[c] = bc.U[c];
        g.lambda = 1.0 / bc.T;
        phys::prim_to_cons(g, gas.N, d.W);
        const double zero_q[3] = {0, 0, 0};
        d.eq = phys::eq_const(g, zero_q, gas);
        bcs.push_back(d);
    }
    if (bcs.empty()) bcs.push_back(BcDev{});
    d_bcs = upload("static:boundaries", bcs);

    // wall faces (diffuse and symmetry, as UgksSolver::m_wall) and symmetry rows
    std::vector<index_t> sym_faces(S.nsym, -1);
    for (index_t f = 0; f < nf; ++f) {
        if (S.face_kind[f] == kDiffuseWall || S.face_kind[f] == kSymmetry) {
            wall.push_back({f, {0, 0, 0}, 0.0});
            wall_faces_host.push_back(f);
        }
        if (S.sym_index[f] >= 0) sym_faces[S.sym_index[f]] = f;
    }
    rho_wall_w.assign(wall.size(), 0.0);
    d_wall_faces = upload("static:wall_faces",
                          wall_faces_host.empty() ? std::vector<index_t>{0} : wall_faces_host);
    d_sym_faces =
        upload("static:sym_faces", sym_faces.empty() ? std::vector<index_t>{0} : sym_faces);
    d_wall_vals = alloc<double>("macro:wall_values", 5 * std::max<index_t>(1, wall.size()));

    d_W = alloc<double>("macro:W", 5 * nc);
    d_Wold = alloc<double>("macro:W_old", 5 * nc);
    d_gradW = alloc<double>("macro:gradW", 15 * nc);
    d_q = alloc<double>("macro:q", 3 * nc);
    d_tau = alloc<double>("macro:tau", nc);
    d_prim = alloc<phys::Prim>("macro:prim", nc);
    d_cell_eq = alloc<phys::EqConst>("macro:cell_eq", nc);
    d_stress = alloc<double>("macro:stress", 6 * no);
    d_h = alloc<double>("dist:h", nc * ns);
    if (S.store_b) d_b = alloc<double>("dist:b", nc * ns);
    d_fc = alloc<phys::FaceCoeffs>("macro:face_coeffs", nf);
    d_Facc = alloc<double>("macro:face_acc", 5 * nf);
    d_rho_wall = alloc<double>("macro:rho_wall", nf);
    d_sym_h = alloc<double>("macro:sym_h", S.nsym * ns);
    if (S.store_b) d_sym_b = alloc<double>("macro:sym_b", S.nsym * ns);
    if (S.tensor) {
        d_cellE = alloc<double>("macro:cell_exp", no * S.ntab);
        d_faceE = alloc<double>("macro:face_exp", nf * S.ntab);
    }
    d_mom = alloc<double>("macro:moments", 17 * no);
    d_cell_parts = alloc<double>("macro:cell_parts", 8 * std::max<index_t>(no, 1));
    d_bad = alloc<double>("macro:bad", std::max<index_t>(no, 1));
    d_red = alloc<double>("macro:reduced", 16);
    local_dt = setup.time.steady();
    if (local_dt) {
        d_dtc = alloc<double>("steady:cell_dt", std::max<index_t>(nc, 1));
        d_dtf = alloc<double>("steady:face_dt", std::max<index_t>(nf, 1));
        d_wall_dt = alloc<double>("steady:wall_dt", std::max<index_t>(1, wall.size()));
        d_mass_parts = alloc<double>("steady:mass_parts", 2 * std::max<index_t>(no, 1));
        wall_dtf.assign(wall.size(), 0.0);
        // Closed domain (walls, symmetry planes, periodic faces only): the total mass is the
        // invariant that local time steps would not keep (docs/steady.md). Static, so that a
        // state_import without initialize() continues the same way.
        int open = 0;
        for (index_t f = 0; f < nf; ++f)
            if (S.face_kind[f] == kGhostMaxwellian || S.face_kind[f] == kOutflow) open = 1;
        MPI_Allreduce(MPI_IN_PLACE, &open, 1, MPI_INT, MPI_MAX, layout.world);
        closed = open == 0;
    }
    implicit = setup.time.implicit();
    if (implicit) {
        UGKS_REQUIRE(setup.time.implicit_ordering == "colored",
                     "the CUDA backend runs the implicit iteration with the colored ordering only");
        const index_t nos = std::max<index_t>(1, no * ns);
        d_res_h = alloc<double>("implicit:res_h", nos);
        d_dh = alloc<double>("implicit:dh", nos);
        if (S.store_b) {
            d_res_b = alloc<double>("implicit:res_b", nos);
            d_db = alloc<double>("implicit:db", nos);
        }
        d_dW = alloc<double>("implicit:dW", 5 * std::max<index_t>(1, nc));
        d_Rm = alloc<double>("implicit:Rm", 5 * std::max<index_t>(1, no));
        d_Qm = alloc<double>("implicit:Q", 5 * std::max<index_t>(1, no));
        d_rf = alloc<double>("implicit:rf", std::max<index_t>(1, nf));
        d_diag = alloc<double>("implicit:diag", std::max<index_t>(1, no));
        d_a0 = alloc<double>("implicit:a0", std::max<index_t>(1, no));
        implicit_coloring();
    }
    bytes_persistent = memory_tally().current - tally0;

    const std::size_t tally1 = memory_tally().current;
    const int B = S.B;
    const bool second = setup.numerics.order >= 2;
    if (second) {
        d_gh = alloc<double>("work:grad_h", 3 * static_cast<index_t>(B) * nc);
        if (S.store_b) d_gb = alloc<double>("work:grad_b", 3 * static_cast<index_t>(B) * nc);
        // With halos the gradient halo of block m+1 is exchanged during block m's fluxes (sweep):
        // a second gradient buffer. UGKS_GRAD_PIPELINE=0 keeps one buffer and the exchange on
        // the critical path (comparison runs).
        const char* pipe = std::getenv("UGKS_GRAD_PIPELINE");
        const bool want_pipe = !(pipe && std::string(pipe) == "0");
        if (want_pipe && !local.halo.neighbours.empty()) {
            d_gh2 = alloc<double>("work:grad_h2", 3 * static_cast<index_t>(B) * nc);
            if (S.store_b) d_gb2 = alloc<double>("work:grad_b2", 3 * static_cast<index_t>(B) * nc);
        }
    }
    d_phi_h = alloc<double>("work:phi_h", nf * B);
    if (S.store_b) d_phi_b = alloc<double>("work:phi_b", nf * B);
    const int fb = S.store_b ? 2 : 1;
    halo_f = DeviceHalo(layout.comm_x, local.halo, fb * B, "halo_f", halo_mode, nccl_x);
    halo_g = DeviceHalo(layout.comm_x, local.halo, std::max(15, 3 * fb * B), "halo_g", halo_mode,
                        nccl_x);
    bytes_work = memory_tally().current - tally1;
    halo_f.set_timers(&et);
    halo_g.set_timers(&et);

    group = group_size(B);
    Ctx& c = C;
    c.gas = gas;
    c.dim = S.dim;
    c.B = B;
    c.nblk = S.nblk;
    c.ntab = S.ntab;
    for (int d = 0; d < 3; ++d) c.axis_off[d] = S.axis_off[d];
    c.limiter = S.limiter;
    for (int d = 0; d < 3; ++d) c.umax[d] = S.umax_axis[d];
    c.order = setup.numerics.order;
    c.store_b = S.store_b;
    c.tensor = S.tensor;
    c.nc = nc;
    c.no = no;
    c.nf = nf;
    c.ns = ns;
    c.owner = d_owner.data();
    c.neigh = d_neigh.data();
    c.cf_off = d_cf_off.data();
    c.cf = d_cf.data();
    c.normal = d_normal.data();
    c.area = d_area.data();
    c.fcent = d_fcent.data();
    c.ccent = d_ccent.data();
    c.vol = d_vol.data();
    c.lsq_off = d_lsq_off.data();
    c.nbr = d_nbr.data();
    c.cf_sarea = d_cf_sarea.data();
    c.kd3 = d_kd3.data();
    c.lsq = d_lsq.data();
    c.slot_dx = d_slot_dx.data();
    c.dxL = d_dxL.data();
    c.dxR = d_dxR.data();
    c.kind = d_kind.data();
    c.bc = d_bc.data();
    c.sym_index = d_sym_index.data();
    c.mirror = d_mirror.data();
    c.u = d_u.data();
    c.w = d_w.data();
    c.axis_x = d_axis_x.data();
    c.slot_idx = d_slot_idx.data();
    c.bcs = d_bcs.data();
    c.W = d_W.data();
    c.gradW = d_gradW.data();
    c.q = d_q.data();
    c.tau = d_tau.data();
    c.stress = d_stress.data();
    c.prim = d_prim.data();
    c.cell_eq = d_cell_eq.data();
    c.h = d_h.data();
    c.b = d_b.data();
    c.fc = d_fc.data();
    c.Facc = d_Facc.data();
    c.rho_wall = d_rho_wall.data();
    c.sym_h = d_sym_h.data();
    c.sym_b = d_sym_b.data();
    c.cellE = d_cellE.data();
    c.faceE = d_faceE.data();
    c.gh = d_gh.data();
    c.gb = d_gb.data();
    c.phi_h = d_phi_h.data();
    c.phi_b = d_phi_b.data();
    c.mom = d_mom.data();
    c.local_dt = local_dt;
    c.dtc = d_dtc.data();
    c.dtf = d_dtf.data();
    c.res_h = d_res_h.data();
    c.res_b = d_res_b.data();
    c.dh = d_dh.data();
    c.db = d_db.data();
    c.dW = d_dW.data();
    c.Rm = d_Rm.data();
    c.Qm = d_Qm.data();
    c.rf = d_rf.data();
    c.diag = d_diag.data();
    c.a0 = d_a0.data();
    UGKS_CUDA_CHECK(cudaDeviceSynchronize());
}

void UgksSolverDevice::Impl::macro_halo(double* a, int width) {
    halo_g.exchange(compute, a, nullptr, width, last_kernel);
}

void UgksSolverDevice::Impl::allreduce_v(DeviceArray<double>& a, index_t n) {
    if (layout.P_v <= 1 || n == 0) return;
#if defined(UGKS_HAVE_NCCL)
    if (nccl_v) {
        // Device to device on the compute stream. NCCL's reduction order is fixed for a fixed
        // communicator, message size and algorithm: identical bytes run to run.
        const int t0 = et.begin(compute);
        UGKS_NCCL_CHECK(ncclAllReduce(a.data(), a.data(), static_cast<std::size_t>(n), ncclDouble,
                                      ncclSum, nccl_v, compute));
        et.end(t0, "nccl_allreduce", compute);
        return;
    }
#endif
    if (halo_mode == HaloMode::cuda_aware) {
        sync(compute, "before a velocity reduction");
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, a.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM,
                      layout.comm_v);
        return;
    }
    std::vector<double> host(static_cast<std::size_t>(n));
    sync(compute, "before a velocity reduction");
    {
        ScopedTimer t("d2h_reduction");
        UGKS_CUDA_CHECK(
            cudaMemcpy(host.data(), a.data(), sizeof(double) * n, cudaMemcpyDeviceToHost));
    }
    {
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, host.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM,
                      layout.comm_v);
    }
    ScopedTimer t("h2d_reduction");
    UGKS_CUDA_CHECK(cudaMemcpy(a.data(), host.data(), sizeof(double) * n, cudaMemcpyHostToDevice));
}

void UgksSolverDevice::Impl::compute_prims() {
    UGKS_TIMED_LAUNCH((*this), "k_prims", compute,
                      k_prims<<<grid_for(S.nc), kThreads, 0, compute>>>(C));
    if (S.tensor && S.no > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_cell_tables", compute,
                          k_cell_tables<<<grid_for(S.no * S.ntab), kThreads, 0, compute>>>(C));
    }
}

double UgksSolverDevice::Impl::compute_dt() {
    double ratio = HUGE_VAL;
    if (S.no > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_dt_ratio", compute,
                          k_dt_ratio<<<grid_for(S.no), kThreads, 0, compute>>>(C, d_bad.data()));
        UGKS_TIMED_LAUNCH(
            (*this), "k_reduce_cols", compute,
            k_reduce_cols<<<1, kThreads, 0, compute>>>(d_bad.data(), S.no, 1, 1, d_red.data()));
        UGKS_CUDA_CHECK(
            cudaMemcpyAsync(&ratio, d_red.data(), sizeof(double), cudaMemcpyDeviceToHost, compute));
        sync(compute, "time step");
    }
    double dt = setup.numerics.cfl * ratio;
    {
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MIN, layout.world);
    }
    if (setup.time.end_time > 0) dt = std::min(dt, setup.time.end_time - time);
    return dt;
}

double UgksSolverDevice::Impl::compute_local_dt() {
    double dtmin = HUGE_VAL;
    if (S.no > 0) {
        UGKS_TIMED_LAUNCH(
            (*this), "k_local_dt", compute,
            k_local_dt<<<grid_for(S.no), kThreads, 0, compute>>>(C, setup.numerics.cfl));
        UGKS_TIMED_LAUNCH(
            (*this), "k_reduce_cols", compute,
            k_reduce_cols<<<1, kThreads, 0, compute>>>(d_dtc.data(), S.no, 1, 1, d_red.data()));
        UGKS_CUDA_CHECK(
            cudaMemcpyAsync(&dtmin, d_red.data(), sizeof(double), cudaMemcpyDeviceToHost, compute));
    }
    macro_halo(d_dtc.data(), 1);  // both ranks of a face see the same two steps
    if (S.nf > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_face_dt", compute,
                          k_face_dt<<<grid_for(S.nf), kThreads, 0, compute>>>(C));
    }
    sync(compute, "local time steps");
    {
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, &dtmin, 1, MPI_DOUBLE, MPI_MIN, layout.world);
    }
    return dtmin;
}

void UgksSolverDevice::Impl::mass_rescale(bool whole_state) {
    // sum_i V_i dW_i = -sum_f S_f F_f/dt_f (dt_L - dt_R) is not zero with local steps: scale the
    // state back to the mass before this update (no stored reference: a restart continues
    // bit-for-bit). At a fixed point alpha is exactly 1.
    double m[2] = {0.0, 0.0};
    if (S.no > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_mass_parts", compute,
                          k_mass_parts<<<grid_for(S.no), kThreads, 0, compute>>>(
                              C, d_Wold.data(), d_mass_parts.data()));
        UGKS_TIMED_LAUNCH((*this), "k_reduce_cols", compute,
                          k_reduce_cols<<<1, kThreads, 0, compute>>>(d_mass_parts.data(), S.no, 2,
                                                                     0, d_red.data() + 10));
        UGKS_CUDA_CHECK(
            cudaMemcpyAsync(m, d_red.data() + 10, sizeof(m), cudaMemcpyDeviceToHost, compute));
        sync(compute, "total mass");
    }
    {
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, m, 2, MPI_DOUBLE, MPI_SUM, layout.comm_x);
        // every velocity rank must scale by the same bits (W is replicated over comm_v)
        MPI_Bcast(m, 2, MPI_DOUBLE, 0, layout.comm_v);
    }
    const double alpha = m[0] / m[1];
    if (S.no > 0) {
        UGKS_TIMED_LAUNCH(
            (*this), "k_scale_macro", compute,
            k_scale_macro<<<grid_for(S.no), kThreads, 0, compute>>>(C, alpha, whole_state));
    }
    if (whole_state && S.no * S.ns > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_scale_dist", compute,
                          k_scale_dist<<<grid_for(S.no * S.ns), kThreads, 0, compute>>>(C, alpha));
    }
}

void UgksSolverDevice::Impl::implicit_coloring() {
    // The colouring of UgksSolver::implicit_ordering (colored): cells sorted by colour; a colour's
    // cells share no face, so one launch relaxes a colour.
    const index_t no = S.no;
    const std::vector<index_t> order = implicit::greedy_colour_order(mesh, no, color_off);
    const int ncol = static_cast<int>(color_off.size()) - 1;
    d_color_cells = upload("implicit:color_cells", order.empty() ? std::vector<index_t>{0} : order);
    log::info("implicit iteration: colored ordering, {} colours over {} owned cells (rank 0)", ncol,
              no);
    if (setup.time.macro_solver == "gmres") {
        // The block pattern from the connectivity (once), the values and the Krylov vectors.
        const implicit::BlockCsr5 P = implicit::macro_pattern(mesh, no);
        d_kr_rp = upload("implicit:gmres_row_ptr", P.row_ptr);
        d_kr_col = upload("implicit:gmres_col", P.col.empty() ? std::vector<index_t>{0} : P.col);
        d_kr_dg = upload("implicit:gmres_diag", P.diag.empty() ? std::vector<index_t>{0} : P.diag);
        d_kr_val = alloc<double>("implicit:gmres_val", std::max<index_t>(1, 25 * P.nnz()));
        const index_t n5 = std::max<index_t>(1, 5 * no);
        d_kr_V = alloc<double>("implicit:gmres_basis", (setup.time.gmres_restart + 1) * n5);
        d_kr_r = alloc<double>("implicit:gmres_r", n5);
        d_kr_w = alloc<double>("implicit:gmres_w", n5);
        d_kr_z = alloc<double>("implicit:gmres_z", n5);
        const index_t nchunk = (n5 + kKrylovChunk - 1) / kKrylovChunk;
        d_kr_part = alloc<double>("implicit:gmres_part", nchunk);
        h_kr_part.assign(nchunk, 0.0);
    }
}

void UgksSolverDevice::Impl::implicit_macro() {
    // UgksSolver::macro_update (implicit branch) + implicit_macro: Rm, r_f, the diagonal, then
    // macro_sweeps symmetric Gauss-Seidel pairs over the colours (forward, then backward); the
    // ghost increments stay zero (block Jacobi across ranks).
    UGKS_TIMED_LAUNCH((*this), "k_imp_rm", compute,
                      k_imp_rm<<<grid_for(S.no), kThreads, 0, compute>>>(C));
    if (S.nf > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_imp_rf", compute,
                          k_imp_rf<<<grid_for(S.nf), kThreads, 0, compute>>>(C));
    }
    UGKS_TIMED_LAUNCH(
        (*this), "k_imp_diag", compute,
        k_imp_diag<<<grid_for(S.no), kThreads, 0, compute>>>(C, setup.time.implicit_cfl));
    UGKS_CUDA_CHECK(cudaMemsetAsync(d_dW.data(), 0, sizeof(double) * 5 * S.nc, compute));
    if (setup.time.macro_solver == "gmres") {
        implicit_macro_gmres();
    } else if (setup.time.macro_sweeps == 0) {
        UGKS_TIMED_LAUNCH((*this), "k_imp_macro_point", compute,
                          k_imp_macro_point<<<grid_for(S.no), kThreads, 0, compute>>>(C));
    } else {
        const int ncol = static_cast<int>(color_off.size()) - 1;
        auto relax = [&](int c) {
            const index_t n = color_off[c + 1] - color_off[c];
            if (n == 0) return;
            UGKS_TIMED_LAUNCH((*this), "k_imp_macro_relax", compute,
                              k_imp_macro_relax<<<grid_for(n, 128), 128, 0, compute>>>(
                                  C, d_color_cells.data() + color_off[c], n));
        };
        for (int p = 0; p < setup.time.macro_sweeps; ++p) {
            for (int c = 0; c < ncol; ++c) relax(c);
            for (int c = ncol - 1; c >= 0; --c) relax(c);
        }
    }
    UGKS_TIMED_LAUNCH((*this), "k_imp_apply", compute,
                      k_imp_apply<<<grid_for(S.no), kThreads, 0, compute>>>(C, d_cell_parts.data(),
                                                                            d_bad.data()));
}

void UgksSolverDevice::Impl::implicit_macro_gmres() {
    // UgksSolver::implicit_macro with macro_solver gmres: macro_fill on the device, then
    // implicit::gmres_generic on device vectors (the Hessenberg system on the host), the
    // preconditioner the block SGS pairs over the colours, inner products as fixed-chunk partial
    // sums added in order on the host, then over comm_x.
    const index_t no = S.no, n5 = 5 * no;
    if (no > 0)
        UGKS_TIMED_LAUNCH((*this), "k_kr_fill", compute,
                          k_kr_fill<<<grid_for(no), kThreads, 0, compute>>>(
                              C, d_kr_rp.data(), d_kr_col.data(), d_kr_dg.data(), d_kr_val.data()));
    struct DevOps {
        Impl* im;
        index_t N, no;
        double dot(const double* u, const double* v) const {
            const index_t nchunk = (N + kKrylovChunk - 1) / kKrylovChunk;
            double s = 0.0;
            if (nchunk > 0) {
                k_kr_dot_part<<<grid_for(nchunk), kThreads, 0, im->compute>>>(N, u, v,
                                                                              im->d_kr_part.data());
                im->launched("k_kr_dot_part");
                UGKS_CUDA_CHECK(cudaMemcpyAsync(im->h_kr_part.data(), im->d_kr_part.data(),
                                                sizeof(double) * nchunk, cudaMemcpyDeviceToHost,
                                                im->compute));
                UGKS_CUDA_CHECK(cudaStreamSynchronize(im->compute));
                for (index_t c = 0; c < nchunk; ++c) s += im->h_kr_part[c];
            }
            MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, im->layout.comm_x);
            return s;
        }
        void axpy(double a, const double* u, double* y) const {
            if (N == 0) return;
            k_kr_axpy<<<grid_for(N), kThreads, 0, im->compute>>>(N, a, u, y);
            im->launched("k_kr_axpy");
        }
        void scale(double a, const double* u, double* y) const {
            if (N == 0) return;
            k_kr_scale<<<grid_for(N), kThreads, 0, im->compute>>>(N, a, u, y);
            im->launched("k_kr_scale");
        }
        void zero(double* y) const {
            if (N > 0) UGKS_CUDA_CHECK(cudaMemsetAsync(y, 0, sizeof(double) * N, im->compute));
        }
        void apply(const double* u, double* y) const {
            if (no == 0) return;
            k_kr_apply<<<grid_for(no), kThreads, 0, im->compute>>>(
                im->d_kr_rp.data(), im->d_kr_col.data(), im->d_kr_val.data(), u, y, no);
            im->launched("k_kr_apply");
        }
        void precond(const double* u, double* y) const {
            const int pairs = im->setup.time.macro_sweeps;
            if (pairs == 0) {
                if (N > 0)
                    UGKS_CUDA_CHECK(cudaMemcpyAsync(y, u, sizeof(double) * N,
                                                    cudaMemcpyDeviceToDevice, im->compute));
                return;
            }
            zero(y);
            const int ncol = static_cast<int>(im->color_off.size()) - 1;
            auto relax = [&](int c) {
                const index_t n = im->color_off[c + 1] - im->color_off[c];
                if (n == 0) return;
                k_kr_sgs_relax<<<grid_for(n, 128), 128, 0, im->compute>>>(
                    im->d_kr_rp.data(), im->d_kr_col.data(), im->d_kr_dg.data(),
                    im->d_kr_val.data(), u, y, im->d_color_cells.data() + im->color_off[c], n);
                im->launched("k_kr_sgs_relax");
            };
            for (int p = 0; p < pairs; ++p) {
                for (int c = 0; c < ncol; ++c) relax(c);
                for (int c = ncol - 1; c >= 0; --c) relax(c);
            }
        }
    };
    const DevOps ops{this, n5, no};
    const int m = setup.time.gmres_restart;
    std::vector<double*> V(m + 1);
    const index_t stride = std::max<index_t>(1, n5);
    for (int k = 0; k <= m; ++k) V[k] = d_kr_V.data() + k * stride;
    const ScopedTimer t("gmres");
    implicit::gmres_generic(ops, d_Rm.data(), d_dW.data(), V.data(), d_kr_r.data(), d_kr_w.data(),
                            d_kr_z.data(), m, setup.time.gmres_max_iterations,
                            setup.time.gmres_tolerance);
}

void UgksSolverDevice::Impl::implicit_micro() {
    // UgksSolver::implicit_micro: prims, tau and tables of the predicted W* (q^n), the rhs
    // res + (f+* - f)/tau*, micro_sweeps symmetric Gauss-Seidel pairs over the colours for every
    // local velocity at once, f += df with the moments Q of the new residual (summed over comm_v),
    // W += tau* (Rm - Q), the closed-domain mass rescale of W, then q and the stress from f.
    compute_prims();
    const index_t nos = S.no * S.ns;
    if (nos > 0) {
        UGKS_TIMED_LAUNCH(
            (*this), "k_imp_a0", compute,
            k_imp_a0<<<grid_for(S.no), kThreads, 0, compute>>>(C, setup.time.implicit_cfl));
        dispatch(gas.D, S.store_b, [&](auto d, auto hb_) {
            constexpr int D = decltype(d)::value;
            constexpr bool HB = decltype(hb_)::value;
            UGKS_TIMED_LAUNCH((*this), "k_imp_rhs", compute,
                              k_imp_rhs<D, HB><<<grid_for(nos), kThreads, 0, compute>>>(C));
            const int ncol = static_cast<int>(color_off.size()) - 1;
            auto relax = [&](int c) {
                const index_t n = color_off[c + 1] - color_off[c];
                if (n == 0) return;
                UGKS_TIMED_LAUNCH((*this), "k_imp_micro_relax", compute,
                                  k_imp_micro_relax<HB>
                                  <<<grid_for(n * S.ns), kThreads, 0, compute>>>(
                                      C, d_color_cells.data() + color_off[c], n));
            };
            for (int p = 0; p < setup.time.micro_sweeps; ++p) {
                for (int c = 0; c < ncol; ++c) relax(c);
                for (int c = ncol - 1; c >= 0; --c) relax(c);
            }
            UGKS_TIMED_LAUNCH((*this), "k_imp_finish", compute,
                              k_imp_finish<HB>
                              <<<static_cast<unsigned>(S.no), group, 0, compute>>>(C));
        });
    } else if (S.no > 0) {
        UGKS_CUDA_CHECK(cudaMemsetAsync(d_Qm.data(), 0, sizeof(double) * 5 * S.no, compute));
    }
    allreduce_v(d_Qm, 5 * S.no);
    if (S.no > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_imp_correct", compute,
                          k_imp_correct<<<grid_for(S.no), kThreads, 0, compute>>>(C));
    }
    if (closed) mass_rescale(false);  // the correction is not conservative
    compute_prims();
    stage2_and_moments(-1.0);  // q and stress from the new f
}

void UgksSolverDevice::Impl::gradients_W() {
    UGKS_CUDA_CHECK(cudaMemsetAsync(d_gradW.data(), 0, sizeof(double) * 15 * S.nc, compute));
    if (setup.numerics.order < 2) return;
    if (S.no > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_grad_W", compute,
                          k_grad_W<<<grid_for(S.no), kThreads, 0, compute>>>(C));
    }
    macro_halo(d_gradW.data(), 15);
}

void UgksSolverDevice::Impl::face_precompute(double dt) {
    if (S.nf == 0) return;
    UGKS_TIMED_LAUNCH((*this), "k_face_pre", compute,
                      k_face_pre<<<grid_for(S.nf, 128), 128, 0, compute>>>(C, dt));
}

void UgksSolverDevice::Impl::wall_densities() {
    const index_t nw = static_cast<index_t>(wall.size());
    if (S.nsym > 0 && S.ns > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_sym_copy", compute,
                          k_sym_copy<<<grid_for(S.nsym * S.ns), kThreads, 0, compute>>>(
                              C, d_sym_faces.data(), S.nsym));
    }
    std::vector<double> sums(2 * nw, 0.0);
    if (nw > 0) {
        UGKS_TIMED_LAUNCH(
            (*this), "k_wall_sums", compute,
            k_wall_sums<<<static_cast<unsigned>(nw), group, 2 * group * sizeof(double), compute>>>(
                C, d_wall_faces.data(), nw, d_wall_vals.data()));
#if defined(UGKS_HAVE_NCCL)
        if (nccl_v)  // the same wall faces on every rank of comm_v
            UGKS_NCCL_CHECK(ncclAllReduce(d_wall_vals.data(), d_wall_vals.data(),
                                          static_cast<std::size_t>(2 * nw), ncclDouble, ncclSum,
                                          nccl_v, compute));
#endif
        UGKS_CUDA_CHECK(cudaMemcpyAsync(sums.data(), d_wall_vals.data(), sizeof(double) * 2 * nw,
                                        cudaMemcpyDeviceToHost, compute));
        sync(compute, "wall sums");
    }
    if (!nccl_v) {
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_DOUBLE, MPI_SUM,
                      layout.comm_v);
    }
    if (nw == 0) return;
    for (index_t iw = 0; iw < nw; ++iw)
        if (sums[2 * iw + 1] > 0) rho_wall_w[iw] = sums[2 * iw] / sums[2 * iw + 1];
    UGKS_CUDA_CHECK(cudaMemcpyAsync(d_wall_vals.data(), rho_wall_w.data(), sizeof(double) * nw,
                                    cudaMemcpyHostToDevice, compute));
    UGKS_TIMED_LAUNCH((*this), "k_scatter", compute,
                      k_scatter<<<grid_for(nw), kThreads, 0, compute>>>(
                          d_wall_faces.data(), d_wall_vals.data(), nw, d_rho_wall.data()));
    sync(compute, "wall densities");  // rho_wall_w is pageable host memory read by the copy
}

void UgksSolverDevice::Impl::sweep(double dt) {
    const int B = S.B;
    const bool second = setup.numerics.order >= 2;
    const bool halo = halo_f.active();
    const index_t blk = static_cast<index_t>(S.nc) * B;
    UGKS_CUDA_CHECK(cudaMemsetAsync(d_Facc.data(), 0, sizeof(double) * 5 * S.nf, compute));
    double* h = d_h.data();
    double* b = S.store_b ? d_b.data() : nullptr;
    auto hb = [&](int m, double*& hm, double*& bm) {
        hm = h + m * blk;
        bm = b ? b + m * blk : nullptr;
    };
    // Gradient buffer of block m: two when the gradient halo is pipelined (below), else one.
    const bool pipelined = second && halo && d_gh2.size() > 0;
    auto ctx_for = [&](int m) {
        Ctx c = C;
        if (pipelined && (m & 1)) {
            c.gh = d_gh2.data();
            c.gb = d_gb2.data();
        }
        return c;
    };
    auto launch_grad = [&](int m) {
        if (!second || S.no <= 0) return;
        const Ctx Cm = ctx_for(m);
        dispatch(gas.D, S.store_b, [&](auto d, auto hb_) {
            UGKS_TIMED_LAUNCH((*this), "k_grad_block", compute,
                              k_grad_block<decltype(hb_)::value>
                              <<<grid_for(S.no * B), kThreads, 0, compute>>>(Cm, m));
            (void)d;
        });
    };
    auto halo_g_call = [&](int m, bool start) {
        const Ctx Cm = ctx_for(m);
        if (start)
            halo_g.start(comm, Cm.gh, S.store_b ? Cm.gb : nullptr, 3 * B, last_kernel);
        else
            halo_g.finish(comm, Cm.gh, S.store_b ? Cm.gb : nullptr, 3 * B, last_kernel);
    };
    auto launch_flux_stage1 = [&](int m) {
        const Ctx Cm = ctx_for(m);
        if (S.nf > 0) {
            dispatch(gas.D, S.store_b, [&](auto d, auto hb_) {
                constexpr int D = decltype(d)::value;
                constexpr bool HB = decltype(hb_)::value;
                const unsigned nfu = static_cast<unsigned>(S.nf);
                if (flux_fpg > 1 && B <= group) {
                    // several faces per thread group (k_flux_mf; UGKS_FLUX_FPG=1: k_flux)
                    auto nb = [&](int fpg) {
                        return static_cast<unsigned>((S.nf + fpg - 1) / fpg);
                    };
                    if constexpr (D == 3 && !HB) {
                        if (flux_minb == 4) {
                            if (flux_fpg == 2)
                                UGKS_TIMED_LAUNCH((*this), "k_flux", compute,
                                                  k_flux_mf<D, HB, 4, 2>
                                                  <<<nb(2), group, 0, compute>>>(Cm, m, dt));
                            else if (flux_fpg == 8)
                                UGKS_TIMED_LAUNCH((*this), "k_flux", compute,
                                                  k_flux_mf<D, HB, 4, 8>
                                                  <<<nb(8), group, 0, compute>>>(Cm, m, dt));
                            else if (flux_fpg == 16)
                                UGKS_TIMED_LAUNCH((*this), "k_flux", compute,
                                                  k_flux_mf<D, HB, 4, 16>
                                                  <<<nb(16), group, 0, compute>>>(Cm, m, dt));
                            else
                                UGKS_TIMED_LAUNCH((*this), "k_flux", compute,
                                                  k_flux_mf<D, HB, 4, 4>
                                                  <<<nb(4), group, 0, compute>>>(Cm, m, dt));
                            return;
                        }
                    }
                    UGKS_TIMED_LAUNCH((*this), "k_flux", compute,
                                      k_flux_mf<D, HB, 1, 4>
                                      <<<nb(4), group, 0, compute>>>(Cm, m, dt));
                    return;
                }
                if constexpr (D == 3 && !HB) {
                    if (flux_minb == 3) {
                        UGKS_TIMED_LAUNCH((*this), "k_flux", compute,
                                          k_flux<D, HB, 3><<<nfu, group, 0, compute>>>(Cm, m, dt));
                        return;
                    }
                    if (flux_minb == 4) {
                        UGKS_TIMED_LAUNCH((*this), "k_flux", compute,
                                          k_flux<D, HB, 4><<<nfu, group, 0, compute>>>(Cm, m, dt));
                        return;
                    }
                }
                UGKS_TIMED_LAUNCH((*this), "k_flux", compute,
                                  k_flux<D, HB><<<nfu, group, 0, compute>>>(Cm, m, dt));
            });
        }
        if (S.no > 0 && implicit) {
            // implicit: keep the flux residual rate for implicit_micro (no stage 1)
            dispatch(gas.D, S.store_b, [&](auto d, auto hb_) {
                UGKS_TIMED_LAUNCH((*this), "k_imp_res", compute,
                                  k_imp_res<decltype(hb_)::value>
                                  <<<grid_for(S.no * B), kThreads, 0, compute>>>(Cm, m));
                (void)d;
            });
        } else if (S.no > 0) {
            dispatch(gas.D, S.store_b, [&](auto d, auto hb_) {
                UGKS_TIMED_LAUNCH((*this), "k_stage1", compute,
                                  k_stage1<decltype(d)::value, decltype(hb_)::value>
                                  <<<grid_for(S.no * B), kThreads, 0, compute>>>(Cm, m, dt));
            });
        }
    };
    // halo_f of block m: packed (start) behind earlier work of the communication stream; finish:
    // MPI / NCCL, unpack, and the compute stream waits for it.
    auto finish_f = [&](int m) {
        double *hm, *bm;
        hb(m, hm, bm);
        halo_f.finish(comm, hm, bm, B, last_kernel);
        UGKS_CUDA_CHECK(cudaEventRecord(ev_f, comm));
        UGKS_CUDA_CHECK(cudaStreamWaitEvent(compute, ev_f, 0));
    };
    auto start_f = [&](int m) {
        double *hm, *bm;
        hb(m, hm, bm);
        halo_f.start(comm, hm, bm, B, last_kernel);
    };
    if (halo && S.nblk > 0) {
        // The distributions of every block are final (stage 2 of the last step): block 0's halo
        // may start on the communication stream at once.
        UGKS_CUDA_CHECK(cudaEventRecord(ev_state, compute));
        UGKS_CUDA_CHECK(cudaStreamWaitEvent(comm, ev_state, 0));
        start_f(0);
    }
    if (pipelined) {
        // Second order with halos (docs/performance.md): the gradients of block m+1 are computed
        // before the fluxes of block m, into the other of two gradient buffers, so the gradient
        // halo of block m+1 (pack, exchange, unpack on the communication stream) runs during
        // flux(m) + stage 1(m) + gradient(m+2), and the distribution halo of block m+2 during
        // the same kernels. Compute stream: grad(0) | grad(1) flux(0) s1(0) | grad(2) flux(1) ...
        // Only one exchange per halo object is outstanding at a time (start after finish).
        if (S.nblk > 0) {
            finish_f(0);
            launch_grad(0);
            UGKS_CUDA_CHECK(cudaEventRecord(ev_g, compute));
            UGKS_CUDA_CHECK(cudaStreamWaitEvent(comm, ev_g, 0));
            halo_g_call(0, true);
            if (S.nblk > 1) start_f(1);
        }
        for (int m = 0; m < S.nblk; ++m) {
            NvtxRange block_range("velocity block");
            if (m + 1 < S.nblk) {
                finish_f(m + 1);
                launch_grad(m + 1);
                UGKS_CUDA_CHECK(cudaEventRecord(ev_g, compute));
            }
            halo_g_call(m, false);
            UGKS_CUDA_CHECK(cudaEventRecord(ev_gh, comm));
            UGKS_CUDA_CHECK(cudaStreamWaitEvent(compute, ev_gh, 0));
            launch_flux_stage1(m);
            if (m + 1 < S.nblk) {
                UGKS_CUDA_CHECK(cudaStreamWaitEvent(comm, ev_g, 0));
                halo_g_call(m + 1, true);
                if (m + 2 < S.nblk) start_f(m + 2);
            }
            // The host returns to the next block's halos (MPI) while these kernels run.
        }
        allreduce_v(d_Facc, 5 * S.nf);
        return;
    }
    for (int m = 0; m < S.nblk; ++m) {
        NvtxRange block_range("velocity block");
        if (halo) {
            // Block m's halo (packed during block m-1's kernels): MPI, then H2D + unpack on the
            // communication stream; the compute stream waits only for the unpack.
            finish_f(m);
        }
        launch_grad(m);
        if (second && halo) {
            UGKS_CUDA_CHECK(cudaEventRecord(ev_g, compute));
            UGKS_CUDA_CHECK(cudaStreamWaitEvent(comm, ev_g, 0));
            halo_g_call(m, true);
        }
        if (halo && m + 1 < S.nblk) start_f(m + 1);  // queued behind the gradient pack
        if (second && halo) {
            halo_g_call(m, false);
            UGKS_CUDA_CHECK(cudaEventRecord(ev_gh, comm));
            UGKS_CUDA_CHECK(cudaStreamWaitEvent(compute, ev_gh, 0));
        }
        launch_flux_stage1(m);
        // The host now returns to the next block's halo (MPI) while these kernels run.
    }
    allreduce_v(d_Facc, 5 * S.nf);
}

void UgksSolverDevice::Impl::macro_update(double dt, StepResult& r) {
    UGKS_CUDA_CHECK(cudaMemcpyAsync(d_Wold.data(), d_W.data(), sizeof(double) * 5 * S.nc,
                                    cudaMemcpyDeviceToDevice, compute));
    double red[9] = {0, 0, 0, 0, 0, 0, 0, 0, static_cast<double>(S.no)};
    const index_t nw = static_cast<index_t>(wall.size());
    std::vector<double> wallF(5 * nw, 0.0);
    if (S.no > 0 && implicit) implicit_macro();
    if (S.no > 0) {
        if (!implicit)
            UGKS_TIMED_LAUNCH((*this), "k_macro", compute,
                              k_macro<<<grid_for(S.no), kThreads, 0, compute>>>(
                                  C, dt, d_cell_parts.data(), d_bad.data()));
        UGKS_TIMED_LAUNCH((*this), "k_reduce_cols", compute,
                          k_reduce_cols<<<1, kThreads, 0, compute>>>(d_cell_parts.data(), S.no, 8,
                                                                     0, d_red.data()));
        UGKS_TIMED_LAUNCH(
            (*this), "k_reduce_cols", compute,
            k_reduce_cols<<<1, kThreads, 0, compute>>>(d_bad.data(), S.no, 1, 1, d_red.data() + 8));
        UGKS_CUDA_CHECK(cudaMemcpyAsync(red, d_red.data(), sizeof(double) * 9,
                                        cudaMemcpyDeviceToHost, compute));
    }
    if (nw > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_gather_F", compute,
                          k_gather_F<<<grid_for(5 * nw), kThreads, 0, compute>>>(
                              d_Facc.data(), d_wall_faces.data(), nw, d_wall_vals.data()));
        UGKS_CUDA_CHECK(cudaMemcpyAsync(wallF.data(), d_wall_vals.data(), sizeof(double) * 5 * nw,
                                        cudaMemcpyDeviceToHost, compute));
        if (local_dt) {
            UGKS_TIMED_LAUNCH((*this), "k_gather", compute,
                              k_gather<<<grid_for(nw), kThreads, 0, compute>>>(
                                  d_dtf.data(), d_wall_faces.data(), nw, d_wall_dt.data()));
            UGKS_CUDA_CHECK(cudaMemcpyAsync(wall_dtf.data(), d_wall_dt.data(), sizeof(double) * nw,
                                            cudaMemcpyDeviceToHost, compute));
        }
    }
    sync(compute, "macroscopic update");
    // Wall data: P = momentum flux / dt, q_w = energy flux / dt - U_w . P (section 9; steady mode:
    // the face's step dt_f).
    for (index_t iw = 0; iw < nw; ++iw) {
        auto& wd = wall[iw];
        const auto& Bc = setup.boundaries[S.face_bc[wd.local_face]];
        const double dtw = local_dt ? wall_dtf[iw] : dt;
        for (int d = 0; d < 3; ++d) wd.P[d] = wallF[5 * iw + 1 + d] / dtw;
        wd.qw =
            wallF[5 * iw + 4] / dtw - (Bc.U[0] * wd.P[0] + Bc.U[1] * wd.P[1] + Bc.U[2] * wd.P[2]);
    }
    double glob[7] = {red[0], red[1] + red[2] + red[3], red[4], red[5], red[7],
                      red[6], static_cast<double>(S.no)};
    {
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, glob, 7, MPI_DOUBLE, MPI_SUM, layout.comm_x);
    }
    for (int k = 0; k < 3; ++k)
        r.residual[k] = std::sqrt(glob[6] * glob[k]) / (glob[3 + k] + 1e-300);

    const index_t bad_cell = static_cast<index_t>(red[8]);
    const int mine_bad = S.no > 0 && bad_cell < S.no ? 1 : 0;
    std::string msg;
    if (mine_bad) {
        double Wc[5];
        UGKS_CUDA_CHECK(
            cudaMemcpy(Wc, d_W.data() + 5 * bad_cell, sizeof(Wc), cudaMemcpyDeviceToHost));
        const phys::Prim p = phys::cons_to_prim(Wc, gas.N);
        const auto& x = mesh.cell_centroid[bad_cell];
        msg = fmt::format(
            "step {}: cell {} at ({:.6g}, {:.6g}, {:.6g}) has rho = {:.6g}, T = {:.6g}",
            step_no + 1, local.global_cell[bad_cell], x[0], x[1], x[2], p.rho, 1.0 / p.lambda);
    }
    int flag = mine_bad;
    {
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_MAX, layout.world);
    }
    if (flag) {
        int first = mine_bad ? layout.world_rank : layout.world_size;
        MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, layout.world);
        int len = static_cast<int>(msg.size());
        MPI_Bcast(&len, 1, MPI_INT, first, layout.world);
        msg.resize(len);
        MPI_Bcast(msg.data(), len, MPI_CHAR, first, layout.world);
        r.failed = true;
        r.failure = msg;
        UGKS_CUDA_CHECK(cudaMemcpyAsync(d_W.data(), d_Wold.data(), sizeof(double) * 5 * S.nc,
                                        cudaMemcpyDeviceToDevice, compute));
        sync(compute, "restore W");
        return;
    }
    if (local_dt && closed) mass_rescale();
}

void UgksSolverDevice::Impl::stage2_and_moments(double dt) {
    if (dt > 0) compute_prims();
    if (S.no > 0) {
        dispatch(gas.D, S.store_b, [&](auto d, auto hb_) {
            UGKS_TIMED_LAUNCH((*this), "k_stage2", compute,
                              k_stage2<decltype(d)::value, decltype(hb_)::value>
                              <<<static_cast<unsigned>(S.no), group, 0, compute>>>(C, dt));
        });
    }
    allreduce_v(d_mom, 17 * S.no);
    if (S.no > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_q_stress", compute,
                          k_q_stress<<<grid_for(S.no), kThreads, 0, compute>>>(C));
    }
}

// ---- public interface ------------------------------------------------------------------------

UgksSolverDevice::UgksSolverDevice(const CaseSetup& setup, const LocalMesh& local,
                                   const PhaseSpaceLayout& layout, const VelocityGrid& grid,
                                   const VelocityBlocks& blocks)
    : m(std::make_unique<Impl>(setup, local, layout, grid, blocks)) {
    UGKS_REQUIRE(blocks.block_size <= 1024, "block size " << blocks.block_size << " > 1024");
    m->setup_all();
}

UgksSolverDevice::~UgksSolverDevice() = default;

void UgksSolverDevice::initialize() {
    Impl& I = *m;
    std::vector<double> W(5 * I.S.nc, 0.0);
    for (index_t c = 0; c < I.S.nc; ++c) {
        const InitialState st = initial_state_at(I.setup, I.mesh.cell_centroid[c]);
        phys::Prim p;
        p.rho = st.rho;
        for (int d = 0; d < 3; ++d) p.U[d] = st.U[d];
        p.lambda = 1.0 / st.T;
        phys::prim_to_cons(p, I.gas.N, &W[5 * c]);
    }
    I.d_W.copy_from(W);
    I.compute_prims();
    if (I.S.nc * I.S.ns > 0) {
        UGKS_TIMED_LAUNCH(I, "k_init", I.compute,
                          k_init<<<grid_for(I.S.nc * I.S.ns), kThreads, 0, I.compute>>>(I.C));
    }
    I.stage2_and_moments(-1.0);
    I.sync(I.compute, "initialize");
    I.et.flush();
}

StepResult UgksSolverDevice::step() {
    Impl& I = *m;
    NvtxRange step_range("ugks step");
    StepResult r;
    double dt = 0.0;
    {
        NvtxRange nr("macroscopic: halos, dt, gradients, faces, walls");
        I.macro_halo(I.d_W.data(), 5);
        I.macro_halo(I.d_q.data(), 3);
        I.compute_prims();
        dt = I.local_dt ? I.compute_local_dt() : I.compute_dt();
        r.dt = dt;
        I.gradients_W();
        I.face_precompute(dt);
        I.wall_densities();
    }
    {
        NvtxRange nr("velocity-block sweep");
        I.sweep(dt);
    }
    {
        NvtxRange nr("macroscopic update");
        I.macro_update(dt, r);
    }
    if (r.failed) {
        I.sync(I.comm, "end of step");
        I.et.flush();
        return r;
    }
    {
        NvtxRange nr(I.implicit ? "implicit microscopic update" : "stage 2 and moments");
        if (I.implicit)
            I.implicit_micro();
        else
            I.stage2_and_moments(dt);
        I.sync(I.compute, "end of step");
        I.sync(I.comm, "end of step");
        I.et.flush();
    }
    ++I.step_no;
    I.time += dt;
    return r;
}

std::vector<CellField> UgksSolverDevice::fields() const {
    const Impl& I = *m;
    UGKS_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<double> Wh, qh, sh;
    I.d_W.copy_to(Wh);
    I.d_q.copy_to(qh);
    I.d_stress.copy_to(sh);
    return cell_output_fields(I.S.no, Wh.data(), qh.data(), sh, I.gas.N, I.gas.omega,
                              I.setup.gas.Kn);
}

const std::vector<WallFaceData>& UgksSolverDevice::wall_data() const { return m->wall; }

std::array<double, 5> UgksSolverDevice::totals() const {
    std::vector<double> W;
    UGKS_CUDA_CHECK(cudaDeviceSynchronize());
    m->d_W.copy_to(W);
    std::array<double, 5> t{0, 0, 0, 0, 0};
    for (index_t i = 0; i < m->S.no; ++i)
        for (int e = 0; e < 5; ++e) t[e] += W[5 * i + e] * m->mesh.cell_volume[i];
    MPI_Allreduce(MPI_IN_PLACE, t.data(), 5, MPI_DOUBLE, MPI_SUM, m->layout.comm_x);
    return t;
}

bool UgksSolverDevice::local_time_stepping() const { return m->local_dt; }
long UgksSolverDevice::step_count() const { return m->step_no; }
double UgksSolverDevice::time() const { return m->time; }
const phys::GasParams& UgksSolverDevice::gas() const { return m->gas; }
const char* UgksSolverDevice::halo_mode() const { return halo_name(m->halo_mode); }

DeviceMemoryReport UgksSolverDevice::memory_report() const {
    DeviceMemoryReport r;
    r.persistent = m->bytes_persistent;
    r.working_set = m->bytes_work;
    r.peak = memory_tally().peak;
    const std::size_t nb = m->S.store_b ? 2 : 1;
    const std::size_t ns = static_cast<std::size_t>(m->S.ns);
    r.conventional = sizeof(double) * nb * ns *
                     (5 * static_cast<std::size_t>(m->S.nc) + static_cast<std::size_t>(m->S.nf));
    return r;
}

}  // namespace ugks

namespace ugks {

SolverState UgksSolverDevice::state_export() const {
    const Impl& I = *m;
    UGKS_CUDA_CHECK(cudaDeviceSynchronize());
    SolverState s;
    s.step = I.step_no;
    s.time = I.time;
    I.d_W.copy_to(s.W);
    I.d_q.copy_to(s.q);
    I.d_stress.copy_to(s.stress);
    I.d_h.copy_to(s.h);
    if (I.S.store_b) I.d_b.copy_to(s.b);
    return s;
}

void UgksSolverDevice::state_import(const SolverState& s) {
    Impl& I = *m;
    UGKS_CUDA_CHECK(cudaDeviceSynchronize());
    const std::size_t nb = I.S.store_b ? static_cast<std::size_t>(I.d_b.size()) : 0;
    UGKS_REQUIRE(s.W.size() == static_cast<std::size_t>(I.d_W.size()) &&
                     s.q.size() == static_cast<std::size_t>(I.d_q.size()) &&
                     s.stress.size() == static_cast<std::size_t>(I.d_stress.size()) &&
                     s.h.size() == static_cast<std::size_t>(I.d_h.size()) && s.b.size() == nb,
                 "state_import: state sizes do not match this solver");
    I.step_no = s.step;
    I.time = s.time;
    I.d_W.copy_from(s.W);
    I.d_q.copy_from(s.q);
    I.d_stress.copy_from(s.stress);
    I.d_h.copy_from(s.h);
    if (I.S.store_b) I.d_b.copy_from(s.b);
    I.compute_prims();
    I.sync(I.compute, "state_import");
}

}  // namespace ugks
