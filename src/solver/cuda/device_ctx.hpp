#pragma once
// Private to the CUDA backend of the UGKS step (src/solver/cuda/): what its kernels see (Ctx, a
// struct of device pointers and sizes captured by value), the per-thread helpers they share, and
// the launch helpers of the host code.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ugks/core/types.hpp"
#include "ugks/physics/kinetic.hpp"
#include "ugks/solver/kernels/face_kind.hpp"
#include "ugks/solver/kernels/time_step.hpp"

namespace ugks::cudastep {

constexpr int kThreads = 256;   ///< threads per block of the element-wise kernels
constexpr int kMaxGroup = 256;  ///< largest thread group of the per-(face|cell, block) kernels

/// Boundary condition as the kernels see it.
struct BcDev {
    int kind = 0;        ///< FaceKind
    int axis = 0;        ///< symmetry, partly specular wall: velocity axis normal to the plane
    double alpha = 1;    ///< diffuse wall: accommodation coefficient
    int ghost_mode = 0;  ///< ghost faces: kern::GhostMode
    double rho = 1, T = 1;
    double p = 0.5;  ///< pressure inlet / outlet
    double U[3] = {0, 0, 0};
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
    /// limiter freezing (kern::LimiterMode; docs/steady.md section 7.10): the stored factors of W
    /// (5 per local cell) and of h, b ([block][cell][B] codes), when frozen
    int lim_mode = 0;
    double* psi_W = nullptr;
    std::uint16_t *psi_h = nullptr, *psi_b = nullptr;
    const int *kind = nullptr, *bc = nullptr;
    const index_t *sym_index = nullptr, *mirror = nullptr;  ///< mirror: [axis][slot] local slot
    const double *u = nullptr, *w = nullptr, *axis_x = nullptr;
    const int* slot_idx = nullptr;
    const BcDev* bcs = nullptr;
    /// ghost faces (far field, inflow, pressure inlet/outlet): slot per local face (-1), face per
    /// slot, and per slot the ghost state's W (5) and Maxwellian
    const index_t* ghost_index = nullptr;
    const index_t* ghost_face = nullptr;
    double* ghost_W = nullptr;
    phys::EqConst* ghost_eq = nullptr;
    index_t nghost = 0;
    /// per local face: diffuse-wall temperature and velocity (SolverStatic::wall_T, wall_U)
    const double* wall_T = nullptr;
    const double* wall_U = nullptr;
    // state
    double *W = nullptr, *gradW = nullptr, *q = nullptr, *tau = nullptr, *stress = nullptr;
    phys::Prim* prim = nullptr;
    phys::EqConst* cell_eq = nullptr;  ///< per local cell: equilibrium constants (prim, q)
    double umax[3] = {0, 0, 0};        ///< max |u_d| over the velocity grid (CFL rule)
    /// the distributions [block][cell][B] as S* (dist<S>): double, or float with
    /// numerics.storage fp32 (docs/decisions.md "Single-precision storage")
    void *h = nullptr, *b = nullptr;
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
    /// [block][owned cell][B]: flux residual, then rhs, as S* (dist<S>: the storage precision)
    void *res_h = nullptr, *res_b = nullptr;
    /// [block of the chunk][owned cell][B]: microscopic increment of the chunk being relaxed
    double *dh = nullptr, *db = nullptr;
    double* dW = nullptr;                   ///< per local cell (ghosts 0): macro increment
    double *Rm = nullptr, *Qm = nullptr;    ///< per owned cell: Rm (5), Q and m(f) (kern::kQm)
    double* rf = nullptr;                   ///< per local face: spectral radius r_f
    double *diag = nullptr, *a0 = nullptr;  ///< per owned cell: macro diagonal, 1/dtau + 1/tau*
    // periodic pairs with a pressure jump (SolverStatic::img_*, jump_*)
    const index_t *img_src = nullptr, *img_dst = nullptr;
    const double* img_scale = nullptr;
    index_t nimg = 0;
    const index_t *jump_f = nullptr, *jump_fp = nullptr;
    const double* jump_d = nullptr;
    index_t njump = 0;
};

/// A distribution array of the Ctx (C.h, C.b) as its storage type S (double or float). The
/// kernels read S and compute in double; a value is rounded to S when it is stored.
template <class S>
__device__ __forceinline__ S* dist(void* p) {
    return static_cast<S*>(p);
}

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

/// kern::cfl_ratio of owned cell i.
__device__ inline double cfl_ratio(const Ctx& C, index_t i) {
    return kern::cfl_ratio(C.prim[i], C.gas.N, C.umax, C.vol[i], C.cf_off[i], C.cf_off[i + 1], C.cf,
                           C.normal, C.area);
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

/// The Maxwellian of owned cell i at local slot s: per-axis tables on tensor grids, else the
/// formula.
template <int D>
__device__ inline double cell_maxwellian(const Ctx& C, index_t i, index_t s, const double (&u)[3]) {
    if (!C.tensor) return phys::maxwellian_H<D>(C.cell_eq[i], u);
    return phys::maxwellian_H_tables<D>(C.cell_eq[i], &C.cellE[i * C.ntab], &C.slot_idx[3 * s]);
}

/// Blocks of `threads` threads covering n items (at least one).
inline unsigned grid_for(index_t n, int threads = kThreads) {
    return static_cast<unsigned>(std::max<index_t>(1, (n + threads - 1) / threads));
}

/// Thread-group size of the per-(face|cell, block) kernels for block size B: a power of two >= 32.
inline int group_size(int B) {
    int t = 32;
    while (t < B && t < kMaxGroup) t *= 2;
    return t;
}

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
inline void dispatch(int D, bool store_b, F&& f) {
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

/// The storage type T of the distributions as a value (dispatch_dist).
template <class T>
struct StoreTag {
    using type = T;
};

/// Calls f(D, HB, StoreTag<S>) as dispatch does, S the storage type of the distributions (double,
/// or float with fp32): the kernels that read or write h, b.
template <class F>
inline void dispatch_dist(int D, bool store_b, bool fp32, F&& f) {
    dispatch(D, store_b, [&](auto d, auto hb) {
        if (fp32)
            f(d, hb, StoreTag<float>{});
        else
            f(d, hb, StoreTag<double>{});
    });
}

}  // namespace ugks::cudastep
