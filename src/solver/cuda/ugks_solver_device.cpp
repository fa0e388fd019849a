// The UGKS single-sweep step on the CUDA backend: set-up of the device arrays and the public
// interface. The same discrete scheme as the CPU backend: both call the kernel functions of
// include/ugks/solver/kernels/ and physics/kinetic.hpp (docs/architecture.md, "Where each formula
// of the step lives"); every per-step array is resident on the GPU.
//   device_step.cpp      the explicit step: macroscopic phase, velocity-block sweep (two
//                        streams, halos overlapped), macroscopic update, stage 2 and moments
//   device_implicit.cpp  the implicit steady iteration (docs/steady.md section 7)
//   step_kernels.hpp, implicit_kernels.hpp, util_kernels.hpp: the kernels
// Device time per kernel, copy and halo phase goes to the process timers (summary.json
// wall_time_s, "gpu:<name>"); NVTX ranges mark the step phases and velocity blocks.
// Every reduction has a fixed order (no floating-point atomics): identical bytes run to run.
#include "ugks/solver/ugks_solver_device.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "device_impl.hpp"
#include "ugks/core/error.hpp"
#include "ugks/core/log.hpp"
#include "ugks/device/cuda_check.hpp"
#include "ugks/solver/kernels/reconstruct.hpp"
#include "ugks/solver/step_common.hpp"
#include "ugks/solver/step_phases.hpp"

namespace ugks {

using namespace cudastep;

void UgksSolverDevice::Impl::setup_all() {
    gas = gas_params(setup, S.D);
    const std::size_t tally0 = memory_tally().current;

    // The communication stream at the highest priority: its small pack/unpack (and NCCL) kernels
    // are scheduled ahead of the waiting blocks of the flux kernel.
    int prio_lo = 0, prio_hi = 0;
    UGKS_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&prio_lo, &prio_hi));
    UGKS_CUDA_CHECK(cudaStreamCreateWithPriority(&compute, cudaStreamDefault, prio_lo));
    UGKS_CUDA_CHECK(cudaStreamCreateWithPriority(&comm, cudaStreamDefault, prio_hi));
    const HaloChoice halo_choice = resolve_halo(setup.parallel.halo, layout.world);
    halo_mode = halo_choice.mode;
    if (const char* e = std::getenv("UGKS_FLUX_MINB")) flux_minb = std::atoi(e);
    if (const char* e = std::getenv("UGKS_FLUX_FPG")) flux_fpg = std::atoi(e);
    log::info("parallel.halo: {} (requested {}; {})", halo_name(halo_mode), setup.parallel.halo,
              halo_choice.reason);
    if (halo_mode == HaloMode::nccl) {
        nccl_x = device::NcclComm(layout.comm_x);
        nccl_v = device::NcclComm(layout.comm_v);
    }
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
        d.kind = bc.face_kind();
        d.ghost_mode = bc.ghost_mode();
        d.axis = bc.mirror_row();
        d.alpha = bc.accommodation;
        d.rho = bc.rho;
        d.T = bc.T;
        d.p = bc.p;
        for (int c = 0; c < 3; ++c) d.U[c] = bc.U[c];
        bcs.push_back(d);
    }
    if (bcs.empty()) bcs.push_back(BcDev{});
    d_bcs = upload("static:boundaries", bcs);
    // ghost faces: the fixed states now, the pressure faces' in every cell_states
    {
        std::vector<double> gW;
        std::vector<phys::EqConst> geq;
        pressure_faces = fixed_ghost_states(setup, S, gas, gW, geq);
        nghost = static_cast<index_t>(S.ghost_face.size());
        if (gW.empty()) {
            gW.assign(5, 0.0);
            geq.assign(1, phys::EqConst{});
        }
        d_ghost_index = upload("static:ghost_index", S.ghost_index);
        d_ghost_face = upload("static:ghost_face",
                              S.ghost_face.empty() ? std::vector<index_t>{0} : S.ghost_face);
        d_ghost_W = upload("macro:ghost_W", gW);
        d_ghost_eq = upload("macro:ghost_eq", geq);
        d_wall_T = upload("static:wall_T", S.wall_T);
        d_wall_U = upload("static:wall_U", S.wall_U);
    }

    // wall faces (diffuse and symmetry, as UgksSolver::m_wall) and the rows of owner values at
    // t^n of the faces with a specular part (symmetry, walls with accommodation < 1)
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
    {
        auto or1 = [](const auto& v, auto z) {
            return v.empty() ? std::vector<std::decay_t<decltype(z)>>{z} : v;
        };
        d_img_src = upload("static:image_src", or1(S.img_src, index_t{0}));
        d_img_dst = upload("static:image_dst", or1(S.img_dst, index_t{0}));
        d_img_scale = upload("static:image_scale", or1(S.img_scale, 0.0));
        d_jump_f = upload("static:jump_face", or1(S.jump_f, index_t{0}));
        d_jump_fp = upload("static:jump_partner", or1(S.jump_fp, index_t{0}));
        d_jump_d = upload("static:jump_d", or1(S.jump_d, 0.0));
        const index_t nspec = static_cast<index_t>(S.spec_rows.size());
        d_spec_rows = upload("static:spec_rows", or1(S.spec_rows, index_t{0}));
        d_spec_faces = upload("static:spec_faces", or1(S.spec_faces, index_t{0}));
        d_spec_slot = upload("static:spec_slot", or1(S.spec_slot, index_t{0}));
        d_spec_w = upload("static:spec_w", or1(S.spec_w, 0.0));
        if (nspec > 0) {
            d_spec_h = alloc<double>("macro:spec_rows_h", nspec * S.spec_ns);
            d_spec_gh = alloc<double>("macro:spec_rows_log_h", nspec * S.spec_ns);
            const index_t nv = static_cast<index_t>(S.spec_slot.size());
            d_spec_part = alloc<double>("macro:spec_partial",
                                        2 * nspec * ((nv + kSpecChunk - 1) / kSpecChunk));
            if (S.store_b) {
                d_spec_b = alloc<double>("macro:spec_rows_b", nspec * S.spec_ns);
                d_spec_gb = alloc<double>("macro:spec_rows_log_b", nspec * S.spec_ns);
            }
        }
    }

    d_W = alloc<double>("macro:W", 5 * nc);
    d_Wold = alloc<double>("macro:W_old", 5 * nc);
    d_gradW = alloc<double>("macro:gradW", 15 * nc);
    d_q = alloc<double>("macro:q", 3 * nc);
    d_tau = alloc<double>("macro:tau", nc);
    d_prim = alloc<phys::Prim>("macro:prim", nc);
    d_cell_eq = alloc<phys::EqConst>("macro:cell_eq", nc);
    d_stress = alloc<double>("macro:stress", 6 * no);
    fp32 = setup.numerics.fp32_storage;
    if (fp32) {
        d_h32 = alloc<float>("dist:h", nc * ns);
        if (S.store_b) d_b32 = alloc<float>("dist:b", nc * ns);
    } else {
        d_h = alloc<double>("dist:h", nc * ns);
        if (S.store_b) d_b = alloc<double>("dist:b", nc * ns);
    }
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
        traffic_add(Traffic::ReduceWorld, layout.world, sizeof(int));
        closed = open == 0;
    }
    implicit = setup.time.implicit();
    if (implicit) {
        UGKS_REQUIRE(setup.time.implicit_ordering == "colored",
                     "the CUDA backend runs the implicit iteration with the colored ordering only");
        const index_t nos = std::max<index_t>(1, no * ns);
        // the flux residual / right-hand side in the storage precision (as h and b)
        if (fp32) {
            d_res_h32 = alloc<float>("implicit:res_h", nos);
            if (S.store_b) d_res_b32 = alloc<float>("implicit:res_b", nos);
        } else {
            d_res_h = alloc<double>("implicit:res_h", nos);
            if (S.store_b) d_res_b = alloc<double>("implicit:res_b", nos);
        }
        // The increments df of one chunk of velocity blocks at a time (micro_relax): every block
        // when they take at most 256 MiB, else a sixteenth of the blocks (the implicit arrays then
        // stay within the explicit footprint once more: docs/steady.md section 7.5)
        const double all_bytes = 8.0 * (S.store_b ? 2 : 1) * static_cast<double>(no) * ns;
        relax_chunk = all_bytes <= 256.0 * 1024 * 1024 ? S.nblk : std::max(1, (S.nblk + 15) / 16);
        if (const char* e = std::getenv("UGKS_RELAX_CHUNK"))  // tests: force the chunking
            relax_chunk = std::min(std::max(1, std::atoi(e)), std::max(1, S.nblk));
        d_dW = alloc<double>("implicit:dW", 5 * std::max<index_t>(1, nc));
        d_Rm = alloc<double>("implicit:Rm", 5 * std::max<index_t>(1, no));
        d_Qm = alloc<double>("implicit:Q", kern::kQm * std::max<index_t>(1, no));
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
    halo_f = DeviceHalo(layout.comm_x, local.halo, fb * B, "halo_f", halo_mode, &nccl_x);
    halo_g = DeviceHalo(layout.comm_x, local.halo, std::max(15, 3 * fb * B), "halo_g", halo_mode,
                        &nccl_x);
    if (implicit) {
        const index_t nod = std::max<index_t>(1, no * relax_chunk * B);
        d_dh = alloc<double>("work:implicit:dh", nod);
        if (S.store_b) d_db = alloc<double>("work:implicit:db", nod);
    }
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
    c.ghost_index = d_ghost_index.data();
    c.ghost_face = d_ghost_face.data();
    c.ghost_W = d_ghost_W.data();
    c.ghost_eq = d_ghost_eq.data();
    c.nghost = nghost;
    c.wall_T = d_wall_T.data();
    c.wall_U = d_wall_U.data();
    c.W = d_W.data();
    c.gradW = d_gradW.data();
    c.q = d_q.data();
    c.tau = d_tau.data();
    c.stress = d_stress.data();
    c.prim = d_prim.data();
    c.cell_eq = d_cell_eq.data();
    c.h = fp32 ? static_cast<void*>(d_h32.data()) : static_cast<void*>(d_h.data());
    c.b = fp32 ? static_cast<void*>(d_b32.data()) : static_cast<void*>(d_b.data());
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
    c.res_h = fp32 ? static_cast<void*>(d_res_h32.data()) : static_cast<void*>(d_res_h.data());
    c.res_b = fp32 ? static_cast<void*>(d_res_b32.data()) : static_cast<void*>(d_res_b.data());
    c.dh = d_dh.data();
    c.db = d_db.data();
    c.dW = d_dW.data();
    c.Rm = d_Rm.data();
    c.Qm = d_Qm.data();
    c.rf = d_rf.data();
    c.diag = d_diag.data();
    c.a0 = d_a0.data();
    c.img_src = d_img_src.data();
    c.img_dst = d_img_dst.data();
    c.img_scale = d_img_scale.data();
    c.nimg = static_cast<index_t>(S.img_dst.size());
    c.jump_f = d_jump_f.data();
    c.jump_fp = d_jump_fp.data();
    c.jump_d = d_jump_d.data();
    c.njump = static_cast<index_t>(S.jump_f.size());
    UGKS_CUDA_CHECK(cudaDeviceSynchronize());
}

void UgksSolverDevice::Impl::macro_halo(double* a, int width, bool scaled) {
    halo_g.exchange(compute, a, nullptr, width, last_kernel);
    fill_images(a, width, scaled);
}

void UgksSolverDevice::Impl::allreduce_v(DeviceArray<double>& a, index_t n) {
    if (layout.P_v <= 1 || n == 0) return;
    if (nccl_v) {
        // Device to device on the compute stream. NCCL's reduction order is fixed for a fixed
        // communicator, message size and algorithm: identical bytes run to run.
        const int t0 = et.begin(compute);
        nccl_v.allreduce_sum(a.data(), static_cast<std::size_t>(n), compute);
        traffic_add(Traffic::ReduceV, layout.comm_v, sizeof(double) * n);
        et.end(t0, "nccl_allreduce", compute);
        return;
    }
    if (halo_mode == HaloMode::cuda_aware) {
        sync(compute, "before a velocity reduction");
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, a.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM,
                      layout.comm_v);
        traffic_add(Traffic::ReduceV, layout.comm_v, sizeof(double) * n);
        return;
    }
    std::vector<double> host(static_cast<std::size_t>(n));
    sync(compute, "before a velocity reduction");
    {
        ScopedTimer t("d2h_reduction");
        UGKS_CUDA_CHECK(
            cudaMemcpy(host.data(), a.data(), sizeof(double) * n, cudaMemcpyDeviceToHost));
        traffic_add(Traffic::D2H, sizeof(double) * n);
    }
    {
        ScopedTimer t("mpi_reduction");
        MPI_Allreduce(MPI_IN_PLACE, host.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM,
                      layout.comm_v);
        traffic_add(Traffic::ReduceV, layout.comm_v, sizeof(double) * n);
    }
    ScopedTimer t("h2d_reduction");
    UGKS_CUDA_CHECK(cudaMemcpy(a.data(), host.data(), sizeof(double) * n, cudaMemcpyHostToDevice));
    traffic_add(Traffic::H2D, sizeof(double) * n);
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
    I.init_distributions();
    I.stage2_and_moments(-1.0);
    I.sync(I.compute, "initialize");
    I.et.flush();
}

StepResult UgksSolverDevice::step() {
    device::NvtxRange step_range("ugks step");
    return run_step(*m);
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
    traffic_add(Traffic::ReduceX, m->layout.comm_x, sizeof(double) * 5);
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

namespace {
/// fn(device array, host vector) for every array of the resumable state (b only when stored):
/// DeviceArray<double>, or DeviceArray<float> for h and b with fp32 storage.
template <class Impl, class State, class Fn>
void for_state_arrays(Impl& I, State& s, Fn&& fn) {
    fn(I.d_W, s.W);
    fn(I.d_q, s.q);
    fn(I.d_stress, s.stress);
    if (I.fp32) {
        fn(I.d_h32, s.h);
        if (I.S.store_b) fn(I.d_b32, s.b);
    } else {
        fn(I.d_h, s.h);
        if (I.S.store_b) fn(I.d_b, s.b);
    }
}
/// Device array -> host doubles (floats widened exactly).
template <class T>
void copy_to_double(const DeviceArray<T>& d, std::vector<double>& out) {
    if constexpr (std::is_same_v<T, double>) {
        d.copy_to(out);
    } else {
        std::vector<T> tmp;
        d.copy_to(tmp);
        out.assign(tmp.begin(), tmp.end());
    }
}
/// Host doubles -> device array (rounded to float for a float array).
template <class T>
void copy_from_double(DeviceArray<T>& d, const std::vector<double>& in) {
    if constexpr (std::is_same_v<T, double>)
        d.copy_from(in);
    else
        d.copy_from(std::vector<T>(in.begin(), in.end()));
}
}  // namespace

bool UgksSolverDevice::freeze_limiter() {
    Impl& I = *m;
    if (I.C.lim_mode != kern::kLimiterLive || I.C.order < 2 || I.C.limiter == kern::kNoLimiter)
        return false;
    UGKS_CUDA_CHECK(cudaDeviceSynchronize());
    const std::size_t before = memory_tally().current;
    const index_t nd = I.dist_size();
    I.d_psi_W =
        I.upload("limiter:psi_W", std::vector<double>(5 * static_cast<std::size_t>(I.C.nc), 1.0));
    const std::uint16_t one = kern::limiter_code(1.0);
    I.d_psi_h = I.upload("limiter:psi_h", std::vector<std::uint16_t>(nd, one));
    if (I.S.store_b) I.d_psi_b = I.upload("limiter:psi_b", std::vector<std::uint16_t>(nd, one));
    I.bytes_persistent += memory_tally().current - before;
    I.lim_step = I.step_no;
    I.C.lim_mode = kern::kLimiterFrozen;
    I.C.psi_W = I.d_psi_W.data();
    I.C.psi_h = I.d_psi_h.data();
    I.C.psi_b = I.S.store_b ? I.d_psi_b.data() : nullptr;
    return true;
}

long UgksSolverDevice::limiter_frozen_step() const {
    return m->C.lim_mode == kern::kLimiterLive ? -1 : m->lim_step;
}

SolverState UgksSolverDevice::state_export() const {
    const Impl& I = *m;
    UGKS_CUDA_CHECK(cudaDeviceSynchronize());
    SolverState s;
    s.step = I.step_no;
    s.time = I.time;
    for_state_arrays(I, s, [](const auto& d, std::vector<double>& h) { copy_to_double(d, h); });
    s.fp32 = I.fp32;
    if (I.C.lim_mode == kern::kLimiterFrozen) {
        std::vector<double> W;
        std::vector<std::uint16_t> h, b;
        I.d_psi_W.copy_to(W);
        I.d_psi_h.copy_to(h);
        if (I.S.store_b) I.d_psi_b.copy_to(b);
        s.limiter = frozen_limiter_export(I.lim_step, W, h, b);
    }
    return s;
}

void UgksSolverDevice::state_import(const SolverState& s) {
    Impl& I = *m;
    UGKS_CUDA_CHECK(cudaDeviceSynchronize());
    bool sizes_match = s.b.size() == (I.S.store_b ? static_cast<std::size_t>(I.dist_size()) : 0);
    for_state_arrays(I, s, [&](const auto& d, const std::vector<double>& h) {
        sizes_match = sizes_match && h.size() == static_cast<std::size_t>(d.size());
    });
    UGKS_REQUIRE(sizes_match, "state_import: state sizes do not match this solver");
    I.step_no = s.step;
    I.time = s.time;
    // a state of the other storage kind is converted (fp64 -> fp32: rounded to float)
    for_state_arrays(I, s, [](auto& d, const std::vector<double>& h) { copy_from_double(d, h); });
    I.C.lim_mode = kern::kLimiterLive;  // as UgksSolver::state_import
    I.lim_step = -1;
    if (s.limiter.step >= 0 && freeze_limiter()) {
        UGKS_REQUIRE(s.limiter.W.size() == static_cast<std::size_t>(I.d_psi_W.size()) &&
                         s.limiter.h.size() == s.h.size() && s.limiter.b.size() == s.b.size(),
                     "state_import: frozen limiter sizes do not match this solver");
        std::vector<double> W;
        std::vector<std::uint16_t> h, b;
        frozen_limiter_import(s.limiter, W, h, b);
        I.d_psi_W.copy_from(W);
        I.d_psi_h.copy_from(h);
        if (I.S.store_b) I.d_psi_b.copy_from(b);
        I.lim_step = s.limiter.step;
    }
    I.compute_prims();
    I.sync(I.compute, "state_import");
}

}  // namespace ugks
