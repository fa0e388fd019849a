#pragma once
// The kernels of the explicit UGKS step on the CUDA backend (included by device_step.cpp only):
// the CUDA schedules of the kernel functions in include/ugks/solver/kernels/ and
// physics/kinetic.hpp (one thread per (cell, velocity), or a thread group per (face, block)).
#include "device_ctx.hpp"
#include "ugks/solver/kernels/bc_diffuse_wall.hpp"
#include "ugks/solver/kernels/bc_pressure.hpp"
#include "ugks/solver/kernels/bc_specular.hpp"
#include "ugks/solver/kernels/bc_symmetry.hpp"
#include "ugks/solver/kernels/face_input.hpp"
#include "ugks/solver/kernels/flux.hpp"
#include "ugks/solver/kernels/implicit.hpp"
#include "ugks/solver/kernels/periodic_jump.hpp"
#include "ugks/solver/kernels/reconstruct.hpp"
#include "ugks/solver/kernels/update.hpp"
#include "ugks/solver/raw_moments.hpp"

namespace ugks::cudastep {
namespace {

// ---- kernels ---------------------------------------------------------------------------------

__global__ void k_prims(Ctx C) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.nc) return;
    C.prim[i] = phys::cons_to_prim(&C.W[5 * i], C.gas.N);
    C.tau[i] = phys::relaxation_time(C.prim[i], C.gas);
    C.cell_eq[i] = phys::eq_const(C.prim[i], &C.q[3 * i], C.gas);
}

/// The ghost states of the pressure inlet/outlet faces from their owners' prims (section 8.5),
/// per ghost slot (fixed slots: far field, inflow, are left as set up).
__global__ void k_ghost_states(Ctx C) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k >= C.nghost) return;
    const index_t f = C.ghost_face[k];
    const BcDev& bc = C.bcs[C.bc[f]];
    if (bc.ghost_mode == kern::kGhostFixed) return;
    const phys::Prim g = kern::pressure_ghost(bc.ghost_mode, bc.p, bc.T, C.prim[C.owner[f]]);
    kern::ghost_state(g, C.gas, &C.ghost_W[5 * k], C.ghost_eq[k]);
}

__global__ void k_cell_tables(Ctx C) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k >= C.no * C.ntab) return;
    const index_t i = k / C.ntab;
    exp_table_entry(C, C.prim[i], static_cast<int>(k % C.ntab), &C.cellE[i * C.ntab]);
}

template <class S>
__global__ void k_init(Ctx C) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k >= C.nc * C.ns) return;
    const index_t c = k / C.ns, s = k % C.ns;
    const index_t m = s / C.B, v = s % C.B;
    const double zero_q[3] = {0, 0, 0};
    double hp, bp;
    phys::shakhov_equilibrium(C.prim[c], zero_q, C.gas, &C.u[3 * s], hp, bp);
    const index_t idx = (m * C.nc + c) * C.B + v;
    dist<S>(C.h)[idx] = static_cast<S>(hp);
    if (C.store_b) dist<S>(C.b)[idx] = static_cast<S>(bp);
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
                          &C.gradW[15 * i], C.lim_mode, C.lim_mode ? &C.psi_W[5 * i] : nullptr);
}

__global__ void k_face_pre(Ctx C, double dt) {
    const index_t f = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (f >= C.nf) return;
    const int kind = C.kind[f];
    if (is_kinetic_boundary(kind)) return;
    phys::FaceInput in{};
    kern::face_input(kind, f, C.owner[f], C.neigh[f], C.W, C.gradW, C.q, C.ccent, C.fcent, C.normal,
                     C.dxR, kind == kGhostMaxwellian ? &C.ghost_W[5 * C.ghost_index[f]] : nullptr,
                     in);
    phys::FaceCoeffs out;
    phys::face_equilibrium(in, C.gas, C.local_dt ? C.dtf[f] : dt, out);
    C.fc[f] = out;
    if (C.tensor)
        for (int t = 0; t < C.ntab; ++t) exp_table_entry(C, out.p0, t, &C.faceE[f * C.ntab]);
}

/// One thread group per diffuse-wall face (list `faces`, symmetry entries give 0): incident mass
/// flux num and the wall Maxwellian's den over the local velocities (decision U7).
template <class S>
__global__ void k_wall_sums(Ctx C, const index_t* faces, index_t nw, double* sums) {
    extern __shared__ double sh[];
    const index_t iw = blockIdx.x;
    if (iw >= nw) return;
    const index_t f = faces[iw];
    double acc[2] = {0.0, 0.0};
    if (C.kind[f] == kDiffuseWall) {
        const index_t i = C.owner[f];
        const double* n = &C.normal[3 * f];
        const phys::EqConst unit = kern::wall_const(1.0, C.wall_T[f], &C.wall_U[3 * f], C.gas);
        phys::detail::with_dim(C.gas.D, [&](auto Dc) {
            for (index_t s = threadIdx.x; s < C.ns; s += blockDim.x) {
                const index_t m = s / C.B, v = s % C.B;
                const double* u = &C.u[3 * s];
                kern::wall_density_terms<decltype(Dc)::value>(
                    unit, C.w[s], u, dot3(u, n), dist<S>(C.h)[(m * C.nc + i) * C.B + v], acc[0],
                    acc[1]);
            }
        });
    }
    group_reduce<2>(sh, acc);
    if (threadIdx.x == 0) {
        sums[2 * iw] = sh[0];
        sums[2 * iw + 1] = sh[blockDim.x];
    }
}

/// Faces with a specular part (symmetry, walls with accommodation < 1): the owner's values at
/// t^n, per local slot.
template <class S>
__global__ void k_sym_copy(Ctx C, const index_t* sym_faces, index_t nsym) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k >= nsym * C.ns) return;
    const index_t row = k / C.ns, s = k % C.ns;
    const index_t f = sym_faces[row];
    const index_t i = C.owner[f];
    const index_t m = s / C.B, v = s % C.B;
    const index_t idx = (m * C.nc + i) * C.B + v;
    C.sym_h[row * C.ns + s] = dist<S>(C.h)[idx];
    if (C.store_b) C.sym_b[row * C.ns + s] = dist<S>(C.b)[idx];
}

/// Interpolated reflections: the rows of k_sym_copy into the full rows [face][global slot] at
/// this rank's slots.
__global__ void k_spec_pack(Ctx C, const index_t* spec_rows, index_t nspec, index_t NS, index_t g0,
                            double* full_h, double* full_b) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k >= nspec * C.ns) return;
    const index_t j = k / C.ns, s = k % C.ns;
    full_h[j * NS + g0 + s] = C.sym_h[spec_rows[j] * C.ns + s];
    if (C.store_b) full_b[j * NS + g0 + s] = C.sym_b[spec_rows[j] * C.ns + s];
}

/// Interpolated reflections: the log rows of the full rows (kern::specular_log).
__global__ void k_spec_logs(index_t n, const double* full_h, const double* full_b, double* log_h,
                            double* log_b) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k >= n) return;
    log_h[k] = kern::specular_log(full_h[k]);
    if (full_b != nullptr) log_b[k] = kern::specular_log(full_b[k]);
}

/// Interpolated reflections, the face's mass balance (kern::specular_mass_terms) over the
/// velocities of the full row, in chunks: thread group (face j, chunk blockIdx.y) sums the tensor
/// indices [chunk * blockIdx.y, chunk * (blockIdx.y + 1)) (fixed-order reduction) into
/// partial[(j * gridDim.y + blockIdx.y) * 2 + {0, 1}] = (incident, reflected). sh: 2 * blockDim.x
/// doubles.
__global__ void k_specular_sums(Ctx C, kern::SpecularGrid G, const index_t* spec_faces, index_t NS,
                                const double* full_h, const double* log_h, index_t chunk,
                                double* partial) {
    extern __shared__ double sh[];
    const index_t j = blockIdx.x;
    const index_t f = spec_faces[j];
    const double n[3] = {C.normal[3 * f], C.normal[3 * f + 1], C.normal[3 * f + 2]};
    const double* rh = full_h + j * NS;
    const double* gh = log_h + j * NS;
    double acc[2] = {0.0, 0.0};
    const index_t k0 = chunk * blockIdx.y, k1 = min(G.size(), k0 + chunk);
    for (index_t k = k0 + threadIdx.x; k < k1; k += blockDim.x) {
        double u[3], w;
        kern::specular_grid_point(G, k, u, w);
        kern::specular_mass_terms(G, rh, gh, n, w, u, G.slot[k], acc[0], acc[1]);
    }
    group_reduce<2>(sh, acc);
    if (threadIdx.x == 0) {
        partial[(j * gridDim.y + blockIdx.y) * 2] = sh[0];
        partial[(j * gridDim.y + blockIdx.y) * 2 + 1] = sh[blockDim.x];
    }
}

/// Interpolated reflections, the face's scaled reflected values at the local incoming slots
/// [chunk * blockIdx.y, chunk * (blockIdx.y + 1)) into its row of sym_h (sym_b); the scale from
/// the nparts partial sums of k_specular_sums, added in chunk order. The CUDA schedule of the
/// bc_specular.hpp functions.
template <bool HB>
__global__ void k_specular_rows(Ctx C, kern::SpecularGrid G, const index_t* spec_rows,
                                const index_t* spec_faces, index_t NS, const double* full_h,
                                const double* full_b, const double* log_h, const double* log_b,
                                const double* partial, int nparts, index_t chunk) {
    const index_t j = blockIdx.x;
    const index_t f = spec_faces[j], row = spec_rows[j];
    const double n[3] = {C.normal[3 * f], C.normal[3 * f + 1], C.normal[3 * f + 2]};
    const double* rh = full_h + j * NS;
    const double* rb = HB ? full_b + j * NS : nullptr;
    const double* gh = log_h + j * NS;
    const double* gb = HB ? log_b + j * NS : nullptr;
    double out = 0.0, in = 0.0;
    for (int p = 0; p < nparts; ++p) {
        out += partial[(j * nparts + p) * 2];
        in += partial[(j * nparts + p) * 2 + 1];
    }
    const double c = kern::specular_scale(out, in);
    const index_t* self = &C.mirror[kern::kInterpolatedMirror * C.ns];
    const index_t s0 = chunk * blockIdx.y, s1 = min(C.ns, s0 + chunk);
    for (index_t s = s0 + threadIdx.x; s < s1; s += blockDim.x) {
        const double u[3] = {C.u[3 * s], C.u[3 * s + 1], C.u[3 * s + 2]};
        double hs = 0.0, bs = 0.0;
        if (self[s] >= 0 && dot3(u, n) < 0) kern::specular_raw<HB>(G, rh, rb, gh, gb, n, u, hs, bs);
        C.sym_h[row * C.ns + s] = c * hs;
        if (HB) C.sym_b[row * C.ns + s] = c * bs;
    }
}

__global__ void k_scatter(const index_t* faces, const double* vals, index_t n, double* out) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k < n) out[faces[k]] = vals[k];
}

/// LSQ gradient + limiter of block m of h (and b), per (owned cell, velocity): neighbours from the
/// per-slot list, h and b in one pass over them; a frozen limiter (C.lim_mode) through the stored
/// factors psi_h, psi_b (docs/steady.md section 7.10).
template <class S, bool HB>
__global__ void k_grad_block(Ctx C, int m) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    const int B = C.B;
    if (k >= C.no * B) return;
    index_t i;
    int v;
    split_cell_vel(k, B, i, v);
    const S* fh = dist<S>(C.h) + static_cast<index_t>(m) * C.nc * B;
    const S* fb = HB ? dist<S>(C.b) + static_cast<index_t>(m) * C.nc * B : nullptr;
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
        const index_t at = (static_cast<index_t>(m) * C.nc + i) * B + v;  // stored factor
        double ph = kern::limiter_psi(C.limiter, s0, s1, C.slot_dx, gh0, gh1, gh2, hi, hmax, hmin,
                                      hsc, kd3);
        if (C.lim_mode == kern::kLimiterFrozen) ph = kern::limiter_frozen(ph, C.psi_h[at]);
        gh0 *= ph;
        gh1 *= ph;
        gh2 *= ph;
        if (HB) {
            double pb = kern::limiter_psi(C.limiter, s0, s1, C.slot_dx, gb0, gb1, gb2, bi, bmax,
                                          bmin, bsc, kd3);
            if (C.lim_mode == kern::kLimiterFrozen) pb = kern::limiter_frozen(pb, C.psi_b[at]);
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

/// Flux of one (face, velocity) of block m: the CUDA schedule of the kernel functions (kinetic
/// boundary faces: kern::kinetic_boundary_flux with the wall Maxwellian or the mirrored state;
/// the others: the upwind interface value and phys::micro_flux_lane). Writes Phi_h (and Phi_b)
/// and adds the velocity's moments to acc. fc: the face's leading kFaceFluxWords (unused on
/// kinetic boundary faces). Shared by k_flux and k_flux_mf.
template <class S, int D, bool HB>
__device__ __forceinline__ void face_velocity_flux(const Ctx& C, index_t f, int kind,
                                                   const phys::FaceCoeffs& fc, index_t L, index_t R,
                                                   double n0, double n1, double n2, const S* h,
                                                   const S* b, bool second, double dt, int B, int v,
                                                   index_t s, const double (&u)[3], double u2,
                                                   double w, const int (&ix)[3], double (&acc)[5]) {
    double un = u[0] * n0;
    if (D > 1) un += u[1] * n1;
    if (D > 2) un += u[2] * n2;
    if (is_kinetic_boundary(kind)) {
        const bool wall = kind == kDiffuseWall;
        const BcDev& bc = C.bcs[C.bc[f]];
        const double dtw = C.local_dt ? C.dtf[f] : dt;
        double hin = 0.0, bin = 0.0;
        if (un <= 0) {
            const index_t row = C.sym_index[f];  // -1: a fully diffuse wall
            const double* sh = row >= 0 ? &C.sym_h[row * C.ns] : nullptr;
            const double* sb = HB && row >= 0 ? &C.sym_b[row * C.ns] : nullptr;
            const index_t sm = C.mirror[bc.axis * C.ns + s];
            if (wall) {
                const phys::EqConst Ew =
                    kern::wall_const(C.rho_wall[f], C.wall_T[f], &C.wall_U[3 * f], C.gas);
                kern::wall_incident<D, HB>(Ew, u, bc.alpha, sm, sh, sb, hin, bin);
            } else {
                kern::symmetry_incident<HB>(sm, sh, sb, hin, bin);
            }
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
        phys::maxwellian_pair<D, HB>(C.ghost_eq[C.ghost_index[f]], u, hf, bf);
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
template <class S, int D, bool HB, int MINB = 1>
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
    const S* h = dist<S>(C.h) + static_cast<index_t>(m) * C.nc * B;
    const S* b = HB ? dist<S>(C.b) + static_cast<index_t>(m) * C.nc * B : nullptr;
    double acc[5] = {0, 0, 0, 0, 0};
    for (int v = threadIdx.x; v < B; v += blockDim.x) {
        const index_t s = s0 + v;
        double u[3], u2, w;
        int ix[3];
        load_velocity<D>(C, s, u, u2, w, ix);
        face_velocity_flux<S, D, HB>(C, f, kind, fc, L, R, n0, n1, n2, h, b, second, dt, B, v, s, u,
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
template <class S, int D, bool HB, int MINB, int FPG>
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
    const S* h = dist<S>(C.h) + static_cast<index_t>(m) * C.nc * B;
    const S* b = HB ? dist<S>(C.b) + static_cast<index_t>(m) * C.nc * B : nullptr;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __syncthreads();
    for (int ff = 0; ff < nface; ++ff) {
        const index_t f = f0 + ff;
        const int kind = C.kind[f];
        const index_t L = C.owner[f], R = C.neigh[f];
        const double n0 = C.normal[3 * f], n1 = C.normal[3 * f + 1], n2 = C.normal[3 * f + 2];
        double acc[5] = {0, 0, 0, 0, 0};
        if (active)
            face_velocity_flux<S, D, HB>(
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

/// The body-force source factor of one stage (section 6.7) at owned cell i and velocity u: the
/// source is sf H for h and sf Bfac H for b (kern::force_factor of the cell's current state over
/// dt_i / 2), the CPU's stage1_lane / stage2_lane terms.
template <int D>
__device__ __forceinline__ double force_source_factor(const Ctx& C, index_t i, const double (&u)[3],
                                                      double dt) {
    const phys::EqConst& E = C.cell_eq[i];
    return kern::force_factor<D>(phys::force_slope(E.U, E.lambda, C.gas.acc),
                                 0.5 * (C.local_dt ? C.dtc[i] : dt), u);
}

/// Stage 1 (section 6.3) of block m, in place, per (owned cell, velocity); signed face areas from
/// the per-cell-face list. FORCE: with the body-force source (section 6.7) added before the value
/// is stored (one rounding with fp32 storage, as on the CPU).
template <class S, int D, bool HB, bool FORCE = false>
__global__ void k_stage1(Ctx C, int m, double dt) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    const int B = C.B;
    if (k >= C.no * B) return;
    index_t i;
    int v;
    split_cell_vel(k, B, i, v);
    double rh, rb;
    kern::face_flux_sum<HB>(i, B, v, C.cf_off, C.cf, C.cf_sarea, C.dtc,
                            C.local_dt ? C.dtf : nullptr, C.phi_h, C.phi_b, rh, rb);
    const double invV = 1.0 / C.vol[i];
    const double c = 0.5 * (C.local_dt ? C.dtc[i] : dt) / C.tau[i];
    const index_t s = static_cast<index_t>(m) * B + v;
    double u[3];
    load_u<D>(C, s, u);
    double hp, bp;
    const double H = cell_maxwellian<D>(C, i, s, u);
    phys::shakhov_given_H<D, HB>(C.cell_eq[i], u, H, hp, bp);
    const double sf = FORCE ? force_source_factor<D>(C, i, u, dt) : 0.0;
    const index_t idx = (static_cast<index_t>(m) * C.nc + i) * B + v;
    S* h = dist<S>(C.h);
    double hv = kern::stage1_value(h[idx], rh, invV, c, hp);
    if (FORCE) hv = kern::with_source(hv, sf * H);
    h[idx] = static_cast<S>(hv);
    if (HB) {
        S* b = dist<S>(C.b);
        double bv = kern::stage1_value(b[idx], rb, invV, c, bp);
        if (FORCE) bv = kern::with_source(bv, sf * C.cell_eq[i].Bfac * H);  // phys::shakhov_parts B
        b[idx] = static_cast<S>(bv);
    }
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
    if (phys::has_force(C.gas)) kern::add_force_increment(&C.W[5 * i], C.gas.acc, dti, dW);
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

/// Implicit, closed domain: per owned cell, V rho(r) and V rho(f^{n+1}) / tau
/// (kern::add_mass_residual) into parts[2 i], parts[2 i + 1].
__global__ void k_imp_mass_parts(Ctx C, double* parts) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    double s[2] = {0.0, 0.0};
    kern::add_mass_residual(C.vol[i], C.tau[i], &C.Qm[kern::kQm * i], s);
    parts[2 * i] = s[0];
    parts[2 * i + 1] = s[1];
}

/// Implicit, closed domain: the moments of one owned cell after f^{n+1} was scaled by alpha
/// (kern::scale_micro_moments).
__global__ void k_imp_scale_q(Ctx C, double alpha) {
    const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (i >= C.no) return;
    kern::scale_micro_moments(alpha, C.tau[i], &C.Qm[kern::kQm * i]);
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
template <class S>
__global__ void k_scale_dist(Ctx C, double alpha) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    const index_t per_block = C.no * C.B;
    if (k >= C.nblk * per_block) return;
    const index_t m = k / per_block, r = k % per_block;
    const index_t idx = (m * C.nc + r / C.B) * C.B + r % C.B;
    S* h = dist<S>(C.h);
    h[idx] = static_cast<S>(h[idx] * alpha);
    if (C.store_b) {
        S* b = dist<S>(C.b);
        b[idx] = static_cast<S>(b[idx] * alpha);
    }
}

/// Stage 2 (dt > 0) and the 17 raw moments, one thread group per owned cell over every local
/// block (fixed order: per thread in slot order, then the warp shuffle tree and the warps in
/// order). Without b (HB false) the four b moments are zero and not accumulated. FORCE: the
/// body-force source of the new state added to f* first (kern::stage2_value with src).
template <class S, int D, bool HB, bool FORCE = false>
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
        S* h = dist<S>(C.h) + (static_cast<index_t>(m) * C.nc + i) * B;
        S* b = HB ? dist<S>(C.b) + (static_cast<index_t>(m) * C.nc + i) * B : nullptr;
        for (int v = threadIdx.x; v < B; v += blockDim.x) {
            const index_t s = static_cast<index_t>(m) * B + v;
            double u[3];
            load_u<D>(C, s, u);
            double hv = h[v], bv = HB ? static_cast<double>(b[v]) : 0.0;
            if (dt > 0) {
                double hp, bp;
                const double H = cell_maxwellian<D>(C, i, s, u);
                phys::shakhov_given_H<D, HB>(C.cell_eq[i], u, H, hp, bp);
                if (FORCE) {
                    const double sf = force_source_factor<D>(C, i, u, dt);
                    hv = kern::with_source(hv, sf * H);
                    if (HB) bv = kern::with_source(bv, sf * C.cell_eq[i].Bfac * H);
                }
                hv = kern::stage2_value(hv, c, inv, hp);
                h[v] = static_cast<S>(hv);
                if (HB) {
                    bv = kern::stage2_value(bv, c, inv, bp);
                    b[v] = static_cast<S>(bv);
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

/// Implicit: the steady flux residual rate of block m, -(1/V) sum sigma S Phi_f / dt_f, per (owned
/// cell, velocity) into res [block][owned cell][B] in the storage precision S (stage 1 is not
/// applied; UgksSolver::sweep).
template <class S, bool HB>
__global__ void k_imp_res(Ctx C, int m) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    const int B = C.B;
    if (k >= C.no * B) return;
    index_t i;
    int v;
    split_cell_vel(k, B, i, v);
    double rh, rb;  // the implicit iteration always has local steps
    kern::face_flux_sum<HB>(i, B, v, C.cf_off, C.cf, C.cf_sarea, C.dtc, C.dtf, C.phi_h, C.phi_b, rh,
                            rb);
    const double invV = 1.0 / C.vol[i];
    const double sc = -invV / C.dtc[i];
    const index_t idx = (static_cast<index_t>(m) * C.no + i) * B + v;
    dist<S>(C.res_h)[idx] = static_cast<S>(sc * rh);
    if (HB) dist<S>(C.res_b)[idx] = static_cast<S>(sc * rb);
}

/// Image cells of an array [cell][width] (periodic pairs with a pressure jump): one thread per
/// (image, component), kern::fill_image.
template <class T>
__global__ void k_images(Ctx C, T* a, int width, bool scaled) {
    const index_t t = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (t >= C.nimg * width) return;
    kern::fill_image<T>(a, width, t / width, static_cast<int>(t % width), C.img_src, C.img_dst,
                        C.img_scale, scaled);
}

/// The partner faces' macroscopic fluxes (kern::jump_partner_F), one thread per jump face.
__global__ void k_jump_fc(Ctx C, double dt) {
    const index_t k = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (k >= C.njump) return;
    const index_t f = C.jump_f[k], g = C.jump_fp[k];
    kern::jump_partner_F(C.fc[f].p0, C.jump_d[k], C.local_dt ? C.dtf[f] : dt, &C.normal[3 * f],
                         C.fc[f].F, C.fc[g].F);
}

/// The partner faces' fluxes of block m (kern::jump_partner_flux), one thread per (jump face,
/// velocity of the block).
template <int D, bool HB>
__global__ void k_jump_flux(Ctx C, int m, double dt) {
    const index_t t = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (t >= C.njump * C.B) return;
    const index_t k = t / C.B, v = t % C.B;
    const index_t f = C.jump_f[k], g = C.jump_fp[k];
    double u[3];
    load_u<D>(C, static_cast<index_t>(m) * C.B + v, u);
    double qh, qb;
    kern::jump_partner_flux<D, HB>(C.fc[f].eq, C.jump_d[k], C.local_dt ? C.dtf[f] : dt,
                                   &C.normal[3 * f], u, C.phi_h[f * C.B + v],
                                   HB ? C.phi_b[f * C.B + v] : 0.0, qh, qb);
    C.phi_h[g * C.B + v] = qh;
    if (HB) C.phi_b[g * C.B + v] = qb;
}

/// The partner faces' velocity sums: the negated sums of their jump faces.
__global__ void k_jump_facc(Ctx C) {
    const index_t t = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
    if (t >= C.njump * 5) return;
    const index_t k = t / 5, e = t % 5;
    C.Facc[5 * C.jump_fp[k] + e] = -C.Facc[5 * C.jump_f[k] + e];
}

}  // namespace
}  // namespace ugks::cudastep
