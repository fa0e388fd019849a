// The explicit UGKS step on the CUDA backend (UgksSolverDevice::Impl): macroscopic phase (prims,
// time step, gradients, face equilibria, wall densities), the velocity-block sweep on two streams
// with the halos of block m+1 overlapped with block m's kernels, the macroscopic update, stage 2
// and the moments. The kernels are in step_kernels.hpp.
#include <cuda_runtime.h>
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "device_impl.hpp"
#include "step_kernels.hpp"
#include "ugks/core/error.hpp"
#include "ugks/device/cuda_check.hpp"
#include "ugks/solver/kernels/bc_diffuse_wall.hpp"
#include "ugks/solver/step_common.hpp"
#include "util_kernels.hpp"

namespace ugks {

using namespace cudastep;

void UgksSolverDevice::Impl::compute_prims() {
    UGKS_TIMED_LAUNCH((*this), "k_prims", compute,
                      k_prims<<<grid_for(S.nc), kThreads, 0, compute>>>(C));
    if (S.tensor && S.no > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_cell_tables", compute,
                          k_cell_tables<<<grid_for(S.no * S.ntab), kThreads, 0, compute>>>(C));
    }
}

void UgksSolverDevice::Impl::cell_states() {
    compute_prims();
    if (pressure_faces && nghost > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_ghost_states", compute,
                          k_ghost_states<<<grid_for(nghost), kThreads, 0, compute>>>(C));
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
        traffic_add(Traffic::D2H, sizeof(double));
        sync(compute, "time step");
    }
    double dt = setup.numerics.cfl * ratio;
    {
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MIN, layout.world);
        traffic_add(Traffic::ReduceWorld, layout.world, sizeof(double));
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
        traffic_add(Traffic::D2H, sizeof(double));
    }
    macro_halo(d_dtc.data(), 1, false);  // both ranks of a face see the same two steps
    if (S.nf > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_face_dt", compute,
                          k_face_dt<<<grid_for(S.nf), kThreads, 0, compute>>>(C));
    }
    sync(compute, "local time steps");
    {
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, &dtmin, 1, MPI_DOUBLE, MPI_MIN, layout.world);
        traffic_add(Traffic::ReduceWorld, layout.world, sizeof(double));
    }
    return dtmin;
}

void UgksSolverDevice::Impl::sum_mass_parts(double (&m)[2], const char* what) {
    // fixed-order column sums of d_mass_parts [owned cell][2] on the device, over comm_x, the same
    // bits on every velocity rank (the state is replicated over comm_v)
    m[0] = m[1] = 0.0;
    if (S.no > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_reduce_cols", compute,
                          k_reduce_cols<<<1, kThreads, 0, compute>>>(d_mass_parts.data(), S.no, 2,
                                                                     0, d_red.data() + 10));
        UGKS_CUDA_CHECK(
            cudaMemcpyAsync(m, d_red.data() + 10, sizeof(m), cudaMemcpyDeviceToHost, compute));
        traffic_add(Traffic::D2H, sizeof(m));
        sync(compute, what);
    }
    const ScopedTimer t("mpi_reduction");
    MPI_Allreduce(MPI_IN_PLACE, m, 2, MPI_DOUBLE, MPI_SUM, layout.comm_x);
    traffic_add(Traffic::ReduceX, layout.comm_x, sizeof(m));
    MPI_Bcast(m, 2, MPI_DOUBLE, 0, layout.comm_v);
    traffic_add(Traffic::ReduceV, layout.comm_v, sizeof(m));
}

void UgksSolverDevice::Impl::scale_distributions(double alpha) {
    if (S.no * S.ns == 0) return;
    dispatch_dist(gas.D, S.store_b, fp32, [&](auto, auto, auto st) {
        UGKS_TIMED_LAUNCH((*this), "k_scale_dist", compute,
                          k_scale_dist<typename decltype(st)::type>
                          <<<grid_for(S.no * S.ns), kThreads, 0, compute>>>(C, alpha));
    });
}

void UgksSolverDevice::Impl::mass_rescale(bool whole_state) {
    // sum_i V_i dW_i = -sum_f S_f F_f/dt_f (dt_L - dt_R) is not zero with local steps: scale the
    // state back to the mass before this update (no stored reference: a restart continues
    // bit-for-bit). At a fixed point alpha is exactly 1.
    if (S.no > 0)
        UGKS_TIMED_LAUNCH((*this), "k_mass_parts", compute,
                          k_mass_parts<<<grid_for(S.no), kThreads, 0, compute>>>(
                              C, d_Wold.data(), d_mass_parts.data()));
    double m[2];
    sum_mass_parts(m, "total mass");
    const double alpha = m[0] / m[1];
    if (S.no > 0) {
        UGKS_TIMED_LAUNCH(
            (*this), "k_scale_macro", compute,
            k_scale_macro<<<grid_for(S.no), kThreads, 0, compute>>>(C, alpha, whole_state));
    }
    if (whole_state) scale_distributions(alpha);
}

void UgksSolverDevice::Impl::rescale_mass_f() {
    // UgksSolver::rescale_mass_f: the two sums of kern::add_mass_residual, then f^{n+1} (h, b of
    // the owned cells) and Q scaled.
    if (S.no > 0)
        UGKS_TIMED_LAUNCH(
            (*this), "k_imp_mass_parts", compute,
            k_imp_mass_parts<<<grid_for(S.no), kThreads, 0, compute>>>(C, d_mass_parts.data()));
    double s[2];
    sum_mass_parts(s, "mass of the microscopic residual");
    const double alpha = kern::mass_residual_factor(s);
    if (S.no > 0)
        UGKS_TIMED_LAUNCH((*this), "k_imp_scale_q", compute,
                          k_imp_scale_q<<<grid_for(S.no), kThreads, 0, compute>>>(C, alpha));
    scale_distributions(alpha);
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

template <class T>
void UgksSolverDevice::Impl::fill_images(T* a, int width, bool scaled) {
    if (C.nimg == 0) return;
    UGKS_TIMED_LAUNCH((*this), "k_images", compute,
                      k_images<T>
                      <<<grid_for(C.nimg * width), kThreads, 0, compute>>>(C, a, width, scaled));
}
template void UgksSolverDevice::Impl::fill_images<double>(double*, int, bool);

void UgksSolverDevice::Impl::face_precompute(double dt) {
    if (S.nf == 0) return;
    UGKS_TIMED_LAUNCH((*this), "k_face_pre", compute,
                      k_face_pre<<<grid_for(S.nf, 128), 128, 0, compute>>>(C, dt));
    if (C.njump > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_jump_fc", compute,
                          k_jump_fc<<<grid_for(C.njump), kThreads, 0, compute>>>(C, dt));
    }
}

void UgksSolverDevice::Impl::specular_rows() {
    const index_t nspec = static_cast<index_t>(S.spec_rows.size());
    if (nspec == 0) return;
    const index_t NS = S.spec_ns;
    if (S.ns > 0) {
        UGKS_TIMED_LAUNCH(
            (*this), "k_spec_pack", compute,
            k_spec_pack<<<grid_for(nspec * S.ns), kThreads, 0, compute>>>(
                C, d_spec_rows.data(), nspec, NS, S.spec_g0, d_spec_h.data(), d_spec_b.data()));
    }
    if (layout.P_v > 1) {  // the other velocity ranks' slots, staged through the host
        spec_host.resize(static_cast<std::size_t>(nspec * NS));
        for (DeviceArray<double>* a : {&d_spec_h, &d_spec_b}) {
            if (a->data() == nullptr) continue;
            UGKS_CUDA_CHECK(cudaMemcpyAsync(spec_host.data(), a->data(),
                                            sizeof(double) * spec_host.size(),
                                            cudaMemcpyDeviceToHost, compute));
            traffic_add(Traffic::D2H, sizeof(double) * spec_host.size());
            sync(compute, "specular rows");
            allgather_slot_rows(layout.comm_v, S, nspec, spec_host.data());
            UGKS_CUDA_CHECK(cudaMemcpyAsync(a->data(), spec_host.data(),
                                            sizeof(double) * spec_host.size(),
                                            cudaMemcpyHostToDevice, compute));
            traffic_add(Traffic::H2D, sizeof(double) * spec_host.size());
            sync(compute, "specular rows");  // spec_host is pageable and reused
        }
    }
    UGKS_TIMED_LAUNCH((*this), "k_spec_logs", compute,
                      k_spec_logs<<<grid_for(nspec * NS), kThreads, 0, compute>>>(
                          nspec * NS, d_spec_h.data(), S.store_b ? d_spec_b.data() : nullptr,
                          d_spec_gh.data(), d_spec_gb.data()));
    const kern::SpecularGrid G =
        specular_grid(S, d_axis_x.data(), d_spec_w.data(), d_spec_slot.data());
    // enough thread groups to fill the device on a few faces: chunks of 1024 velocities
    const int threads = 256;
    const index_t chunk = kSpecChunk;
    const int nparts = static_cast<int>((G.size() + chunk - 1) / chunk);
    UGKS_TIMED_LAUNCH((*this), "k_specular_sums", compute,
                      k_specular_sums<<<dim3(static_cast<unsigned>(nspec), nparts), threads,
                                        2 * threads * sizeof(double), compute>>>(
                          C, G, d_spec_faces.data(), NS, d_spec_h.data(), d_spec_gh.data(), chunk,
                          d_spec_part.data()));
    const int wparts = static_cast<int>(std::max<index_t>(1, (S.ns + chunk - 1) / chunk));
    dispatch(S.D, S.store_b, [&](auto, auto HBc) {
        constexpr bool HB = decltype(HBc)::value;
        UGKS_TIMED_LAUNCH(
            (*this), "k_specular_rows", compute,
            k_specular_rows<HB>
            <<<dim3(static_cast<unsigned>(nspec), wparts), threads, 0, compute>>>(
                C, G, d_spec_rows.data(), d_spec_faces.data(), NS, d_spec_h.data(), d_spec_b.data(),
                d_spec_gh.data(), d_spec_gb.data(), d_spec_part.data(), nparts, chunk));
    });
}

void UgksSolverDevice::Impl::wall_densities() {
    const index_t nw = static_cast<index_t>(wall.size());
    if (S.nsym > 0 && S.ns > 0) {
        dispatch_dist(gas.D, S.store_b, fp32, [&](auto, auto, auto st) {
            UGKS_TIMED_LAUNCH(
                (*this), "k_sym_copy", compute,
                k_sym_copy<typename decltype(st)::type>
                <<<grid_for(S.nsym * S.ns), kThreads, 0, compute>>>(C, d_sym_faces.data(), S.nsym));
        });
    }
    specular_rows();
    std::vector<double> sums(2 * nw, 0.0);
    if (nw > 0) {
        dispatch_dist(gas.D, S.store_b, fp32, [&](auto, auto, auto st) {
            UGKS_TIMED_LAUNCH(
                (*this), "k_wall_sums", compute,
                k_wall_sums<typename decltype(st)::type>
                <<<static_cast<unsigned>(nw), group, 2 * group * sizeof(double), compute>>>(
                    C, d_wall_faces.data(), nw, d_wall_vals.data()));
        });
        if (nccl_v)  // the same wall faces on every rank of comm_v
        {
            nccl_v.allreduce_sum(d_wall_vals.data(), static_cast<std::size_t>(2 * nw), compute);
            traffic_add(Traffic::ReduceV, layout.comm_v, sizeof(double) * 2 * nw);
        }
        UGKS_CUDA_CHECK(cudaMemcpyAsync(sums.data(), d_wall_vals.data(), sizeof(double) * 2 * nw,
                                        cudaMemcpyDeviceToHost, compute));
        traffic_add(Traffic::D2H, sizeof(double) * 2 * nw);
        sync(compute, "wall sums");
    }
    if (!nccl_v) {
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_DOUBLE, MPI_SUM,
                      layout.comm_v);
        traffic_add(Traffic::ReduceV, layout.comm_v, sizeof(double) * sums.size());
    }
    if (nw == 0) return;
    for (index_t iw = 0; iw < nw; ++iw)
        if (sums[2 * iw + 1] > 0)
            rho_wall_w[iw] =
                kern::wall_density(setup.boundaries[S.face_bc[wall_faces_host[iw]]].accommodation,
                                   sums[2 * iw], sums[2 * iw + 1]);
    UGKS_CUDA_CHECK(cudaMemcpyAsync(d_wall_vals.data(), rho_wall_w.data(), sizeof(double) * nw,
                                    cudaMemcpyHostToDevice, compute));
    traffic_add(Traffic::H2D, sizeof(double) * nw);
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
    // block m of h and b as their storage type St (double, or float with fp32 storage)
    auto hb = [&](auto st, int m) {
        using St = typename decltype(st)::type;
        St* h = static_cast<St*>(C.h) + m * blk;
        St* b = S.store_b ? static_cast<St*>(C.b) + m * blk : nullptr;
        return std::make_pair(h, b);
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
        if (C.nimg > 0) {  // the image cells of block m (its halo has arrived)
            dispatch_dist(gas.D, S.store_b, fp32, [&](auto, auto, auto st) {
                const auto [hm, bm] = hb(st, m);
                fill_images(hm, B);
                if (bm) fill_images(bm, B);
            });
        }
        if (!second || S.no <= 0) return;
        const Ctx Cm = ctx_for(m);
        dispatch_dist(gas.D, S.store_b, fp32, [&](auto, auto hb_, auto st) {
            UGKS_TIMED_LAUNCH((*this), "k_grad_block", compute,
                              k_grad_block<typename decltype(st)::type, decltype(hb_)::value>
                              <<<grid_for(S.no * B), kThreads, 0, compute>>>(Cm, m));
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
        if (second && C.nimg > 0) {  // the image cells of block m's gradients
            fill_images(Cm.gh, 3 * B);
            if (S.store_b) fill_images(Cm.gb, 3 * B);
        }
        if (S.nf > 0) {
            dispatch_dist(gas.D, S.store_b, fp32, [&](auto d, auto hb_, auto st) {
                constexpr int D = decltype(d)::value;
                constexpr bool HB = decltype(hb_)::value;
                using St = typename decltype(st)::type;
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
                                                  k_flux_mf<St, D, HB, 4, 2>
                                                  <<<nb(2), group, 0, compute>>>(Cm, m, dt));
                            else if (flux_fpg == 8)
                                UGKS_TIMED_LAUNCH((*this), "k_flux", compute,
                                                  k_flux_mf<St, D, HB, 4, 8>
                                                  <<<nb(8), group, 0, compute>>>(Cm, m, dt));
                            else if (flux_fpg == 16)
                                UGKS_TIMED_LAUNCH((*this), "k_flux", compute,
                                                  k_flux_mf<St, D, HB, 4, 16>
                                                  <<<nb(16), group, 0, compute>>>(Cm, m, dt));
                            else
                                UGKS_TIMED_LAUNCH((*this), "k_flux", compute,
                                                  k_flux_mf<St, D, HB, 4, 4>
                                                  <<<nb(4), group, 0, compute>>>(Cm, m, dt));
                            return;
                        }
                    }
                    UGKS_TIMED_LAUNCH((*this), "k_flux", compute,
                                      k_flux_mf<St, D, HB, 1, 4>
                                      <<<nb(4), group, 0, compute>>>(Cm, m, dt));
                    return;
                }
                if constexpr (D == 3 && !HB) {
                    if (flux_minb == 3) {
                        UGKS_TIMED_LAUNCH((*this), "k_flux", compute,
                                          k_flux<St, D, HB, 3>
                                          <<<nfu, group, 0, compute>>>(Cm, m, dt));
                        return;
                    }
                    if (flux_minb == 4) {
                        UGKS_TIMED_LAUNCH((*this), "k_flux", compute,
                                          k_flux<St, D, HB, 4>
                                          <<<nfu, group, 0, compute>>>(Cm, m, dt));
                        return;
                    }
                }
                UGKS_TIMED_LAUNCH((*this), "k_flux", compute,
                                  k_flux<St, D, HB><<<nfu, group, 0, compute>>>(Cm, m, dt));
            });
        }
        if (C.njump > 0) {  // the partner faces of jump faces (after the fluxes of block m)
            dispatch(gas.D, S.store_b, [&](auto d, auto hb_) {
                UGKS_TIMED_LAUNCH((*this), "k_jump_flux", compute,
                                  k_jump_flux<decltype(d)::value, decltype(hb_)::value>
                                  <<<grid_for(C.njump * B), kThreads, 0, compute>>>(Cm, m, dt));
            });
        }
        if (S.no > 0 && implicit) {
            // implicit: keep the flux residual rate for implicit_micro (no stage 1)
            dispatch_dist(gas.D, S.store_b, fp32, [&](auto d, auto hb_, auto st) {
                UGKS_TIMED_LAUNCH((*this), "k_imp_res", compute,
                                  k_imp_res<typename decltype(st)::type, decltype(hb_)::value>
                                  <<<grid_for(S.no * B), kThreads, 0, compute>>>(Cm, m));
                (void)d;
            });
        } else if (S.no > 0) {
            dispatch_dist(gas.D, S.store_b, fp32, [&](auto d, auto hb_, auto st) {
                using St = typename decltype(st)::type;
                constexpr int D = decltype(d)::value;
                constexpr bool HB = decltype(hb_)::value;
                // with a body force, stage 1 adds its source (section 6.7) before the store: a
                // separate variant, so that the kernel without a force keeps its registers
                if (phys::has_force(gas))
                    UGKS_TIMED_LAUNCH((*this), "k_stage1", compute,
                                      k_stage1<St, D, HB, true>
                                      <<<grid_for(S.no * B), kThreads, 0, compute>>>(Cm, m, dt));
                else
                    UGKS_TIMED_LAUNCH((*this), "k_stage1", compute,
                                      k_stage1<St, D, HB>
                                      <<<grid_for(S.no * B), kThreads, 0, compute>>>(Cm, m, dt));
            });
        }
    };
    // halo_f of block m: packed (start) behind earlier work of the communication stream; finish:
    // MPI / NCCL, unpack, and the compute stream waits for it.
    auto finish_f = [&](int m) {
        dispatch_dist(gas.D, S.store_b, fp32, [&](auto, auto, auto st) {
            const auto [hm, bm] = hb(st, m);
            halo_f.finish(comm, hm, bm, B, last_kernel);
        });
        UGKS_CUDA_CHECK(cudaEventRecord(ev_f, comm));
        UGKS_CUDA_CHECK(cudaStreamWaitEvent(compute, ev_f, 0));
    };
    auto start_f = [&](int m) {
        dispatch_dist(gas.D, S.store_b, fp32, [&](auto, auto, auto st) {
            const auto [hm, bm] = hb(st, m);
            halo_f.start(comm, hm, bm, B, last_kernel);
        });
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
            device::NvtxRange block_range("velocity block");
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
        jump_sums();
        return;
    }
    for (int m = 0; m < S.nblk; ++m) {
        device::NvtxRange block_range("velocity block");
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
    jump_sums();
}

void UgksSolverDevice::Impl::jump_sums() {
    if (C.njump == 0) return;
    UGKS_TIMED_LAUNCH((*this), "k_jump_facc", compute,
                      k_jump_facc<<<grid_for(C.njump * 5), kThreads, 0, compute>>>(C));
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
        traffic_add(Traffic::D2H, sizeof(double) * 9);
    }
    if (nw > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_gather_F", compute,
                          k_gather_F<<<grid_for(5 * nw), kThreads, 0, compute>>>(
                              d_Facc.data(), d_wall_faces.data(), nw, d_wall_vals.data()));
        UGKS_CUDA_CHECK(cudaMemcpyAsync(wallF.data(), d_wall_vals.data(), sizeof(double) * 5 * nw,
                                        cudaMemcpyDeviceToHost, compute));
        traffic_add(Traffic::D2H, sizeof(double) * 5 * nw);
        if (local_dt) {
            UGKS_TIMED_LAUNCH((*this), "k_gather", compute,
                              k_gather<<<grid_for(nw), kThreads, 0, compute>>>(
                                  d_dtf.data(), d_wall_faces.data(), nw, d_wall_dt.data()));
            UGKS_CUDA_CHECK(cudaMemcpyAsync(wall_dtf.data(), d_wall_dt.data(), sizeof(double) * nw,
                                            cudaMemcpyDeviceToHost, compute));
            traffic_add(Traffic::D2H, sizeof(double) * nw);
        }
    }
    sync(compute, "macroscopic update");
    // wall data (steady mode: the face's step dt_f), residual norms, failure agreement
    for (index_t iw = 0; iw < nw; ++iw)
        wall_data_from_flux(&wallF[5 * iw], local_dt ? wall_dtf[iw] : dt,
                            &S.wall_U[3 * wall[iw].local_face], wall[iw]);
    const double parts[7] = {red[0], red[1] + red[2] + red[3], red[4], red[5], red[7],
                             red[6], static_cast<double>(S.no)};
    residual_norms(layout, parts, r);
    const index_t bad_cell = static_cast<index_t>(red[8]);
    const bool mine_bad = S.no > 0 && bad_cell < S.no;
    std::string msg;
    if (mine_bad) {
        double Wc[5];
        UGKS_CUDA_CHECK(
            cudaMemcpy(Wc, d_W.data() + 5 * bad_cell, sizeof(Wc), cudaMemcpyDeviceToHost));
        traffic_add(Traffic::D2H, sizeof(Wc));
        msg = invalid_cell_message(step_no + 1, local.global_cell[bad_cell],
                                   mesh.cell_centroid[bad_cell], Wc, gas.N);
    }
    if (agree_on_failure(layout, mine_bad, msg, r)) {
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
        dispatch_dist(gas.D, S.store_b, fp32, [&](auto d, auto hb_, auto st) {
            using St = typename decltype(st)::type;
            constexpr int D = decltype(d)::value;
            constexpr bool HB = decltype(hb_)::value;
            if (dt > 0 && phys::has_force(gas))  // stage 2's source, state n+1 (section 6.7)
                UGKS_TIMED_LAUNCH((*this), "k_stage2", compute,
                                  k_stage2<St, D, HB, true>
                                  <<<static_cast<unsigned>(S.no), group, 0, compute>>>(C, dt));
            else
                UGKS_TIMED_LAUNCH((*this), "k_stage2", compute,
                                  k_stage2<St, D, HB>
                                  <<<static_cast<unsigned>(S.no), group, 0, compute>>>(C, dt));
        });
    }
    allreduce_v(d_mom, 17 * S.no);
    if (S.no > 0) {
        UGKS_TIMED_LAUNCH((*this), "k_q_stress", compute,
                          k_q_stress<<<grid_for(S.no), kThreads, 0, compute>>>(C));
    }
}

void UgksSolverDevice::Impl::init_distributions() {
    if (S.nc * S.ns > 0) {
        dispatch_dist(gas.D, S.store_b, fp32, [&](auto, auto, auto st) {
            UGKS_TIMED_LAUNCH((*this), "k_init", compute,
                              k_init<typename decltype(st)::type>
                              <<<grid_for(S.nc * S.ns), kThreads, 0, compute>>>(C));
        });
    }
}

}  // namespace ugks
