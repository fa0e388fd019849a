// The implicit steady iteration on the CUDA backend (UgksSolverDevice::Impl, docs/steady.md
// section 7): colored Gauss-Seidel sweeps of the macroscopic and microscopic systems (a colour's
// cells share no face: one launch per colour), the block-CSR GMRES macroscopic solve, and the
// moment-consistency correction. The kernels are in implicit_kernels.hpp.
#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "device_impl.hpp"
#include "implicit_kernels.hpp"
#include "ugks/core/log.hpp"
#include "ugks/device/cuda_check.hpp"
#include "util_kernels.hpp"

namespace ugks {

using namespace cudastep;

namespace {
/// Threads per block of k_imp_micro_relax (over the slots of one cell: block sizes are multiples
/// of 32, so a multiple of 128 slots fills every thread).
constexpr unsigned kRelaxThreads = 128;
}  // namespace

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
        UGKS_TIMED_LAUNCH(
            (*this), "k_imp_rf", compute,
            k_imp_rf<<<grid_for(S.nf), kThreads, 0, compute>>>(C, setup.time.viscous_bound));
    }
    UGKS_TIMED_LAUNCH(
        (*this), "k_imp_diag", compute,
        k_imp_diag<<<grid_for(S.no), kThreads, 0, compute>>>(C, setup.time.implicit_cfl));
    UGKS_CUDA_CHECK(cudaMemsetAsync(d_dW.data(), 0, sizeof(double) * 5 * S.nc, compute));
    // macro_sweeps 0 is the point-implicit prediction with either solver (as UgksSolver::
    // implicit_macro)
    if (setup.time.macro_sweeps == 0) {
        UGKS_TIMED_LAUNCH((*this), "k_imp_macro_point", compute,
                          k_imp_macro_point<<<grid_for(S.no), kThreads, 0, compute>>>(C));
    } else if (setup.time.macro_solver == "gmres") {
        implicit_macro_gmres();
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
                traffic_add(Traffic::D2H, sizeof(double) * nchunk);
                UGKS_CUDA_CHECK(cudaStreamSynchronize(im->compute));
                for (index_t c = 0; c < nchunk; ++c) s += im->h_kr_part[c];
            }
            MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, im->layout.comm_x);
            traffic_add(Traffic::ReduceX, im->layout.comm_x, sizeof(double));
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

void UgksSolverDevice::Impl::micro_relax() {
    const index_t nos = S.no * S.ns;
    if (nos > 0) {
        UGKS_TIMED_LAUNCH(
            (*this), "k_imp_a0", compute,
            k_imp_a0<<<grid_for(S.no), kThreads, 0, compute>>>(C, setup.time.implicit_cfl));
        dispatch_dist(gas.D, S.store_b, fp32, [&](auto d, auto hb_, auto st) {
            constexpr int D = decltype(d)::value;
            constexpr bool HB = decltype(hb_)::value;
            using St = typename decltype(st)::type;
            // chunk by chunk of relax_chunk velocity blocks (the velocities are independent in
            // the microscopic system; d_dh holds one chunk)
            for (int m0 = 0; m0 < S.nblk; m0 += relax_chunk) {
                const int nbc = std::min(relax_chunk, S.nblk - m0);
                const index_t nsc = static_cast<index_t>(nbc) * S.B;
                UGKS_TIMED_LAUNCH((*this), "k_imp_rhs", compute,
                                  k_imp_rhs<St, D, HB>
                                  <<<grid_for(S.no * nsc), kThreads, 0, compute>>>(C, m0, nbc));
                const int ncol = static_cast<int>(color_off.size()) - 1;
                auto relax = [&](int c) {
                    const index_t n = color_off[c + 1] - color_off[c];
                    if (n == 0) return;
                    const dim3 grid(
                        static_cast<unsigned>(n),
                        static_cast<unsigned>((nsc + kRelaxThreads - 1) / kRelaxThreads));
                    UGKS_TIMED_LAUNCH((*this), "k_imp_micro_relax", compute,
                                      k_imp_micro_relax<St, HB>
                                      <<<grid, kRelaxThreads, 0, compute>>>(
                                          C, d_color_cells.data() + color_off[c], n, m0, nbc));
                };
                for (int p = 0; p < setup.time.micro_sweeps; ++p) {
                    for (int c = 0; c < ncol; ++c) relax(c);
                    for (int c = ncol - 1; c >= 0; --c) relax(c);
                }
                UGKS_TIMED_LAUNCH((*this), "k_imp_finish", compute,
                                  k_imp_finish<St, HB>
                                  <<<static_cast<unsigned>(S.no), group, 0, compute>>>(C, m0, nbc));
            }
        });
    } else if (S.no > 0) {
        UGKS_CUDA_CHECK(
            cudaMemsetAsync(d_Qm.data(), 0, sizeof(double) * kern::kQm * S.no, compute));
    }
}

void UgksSolverDevice::Impl::moment_correction() {
    if (S.no > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_imp_correct", compute,
                          k_imp_correct<<<grid_for(S.no), kThreads, 0, compute>>>(C));
    }
}

}  // namespace ugks
