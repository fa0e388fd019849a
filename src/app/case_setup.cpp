#include "ugks/app/case_setup.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <type_traits>

#include "ugks/core/config.hpp"
#include "ugks/core/error.hpp"
#include "ugks/physics/kinetic.hpp"

namespace ugks {
double estimate_time_step(const Mesh& mesh, const VelocityGrid& vel, const GasModel& gas,
                          const InitialState& st, double cfl) {
    const double c = std::sqrt(gas.gamma() * st.T / 2.0);
    double umax_axis[3] = {0, 0,
                           0};  // max_k |u_k . n| <= sum_d max|u_d| |n_d| (equal on tensor grids)
    for (const auto& u : vel.u)
        for (int d = 0; d < 3; ++d) umax_axis[d] = std::max(umax_axis[d], std::abs(u[d]));
    double min_ratio = HUGE_VAL;
    for (index_t i = 0; i < mesh.n_cells(); ++i) {
        double sum = 0.0;
        for (index_t k = mesh.cell_face_offsets[i]; k < mesh.cell_face_offsets[i + 1]; ++k) {
            const index_t f = mesh.cell_faces[k];
            const Vec3& n = mesh.face_normal[f];
            double umax = umax_axis[0] * std::abs(n[0]) + umax_axis[1] * std::abs(n[1]) +
                          umax_axis[2] * std::abs(n[2]);
            const double Un = std::abs(st.U[0] * n[0] + st.U[1] * n[1] + st.U[2] * n[2]);
            sum += mesh.face_area[f] * std::max(umax, Un + c);
        }
        if (sum > 0) min_ratio = std::min(min_ratio, 2.0 * mesh.cell_volume[i] / sum);
    }
    return cfl * min_ratio;
}

MemoryEstimate estimate_memory(index_t cells, index_t owned, index_t faces, index_t vels, int B,
                               int dim, bool store_b, double global_mesh_bytes, bool implicit,
                               bool fp32) {
    MemoryEstimate m;
    const double nd = store_b ? 2.0 : 1.0;
    const double nc = static_cast<double>(cells), no = static_cast<double>(owned),
                 nf = static_cast<double>(faces), nv = static_cast<double>(vels);
    m.distributions = (fp32 ? 4.0 : 8.0) * nc * nv * nd;
    // W, W^{n+1}, q, tau, gradients of W (5 x dim), the primitive state and equilibrium
    // constants, moments; per face the interface coefficients (FaceCoeffs) and accumulators
    const double prim = sizeof(phys::Prim) / 8.0, eq = sizeof(phys::EqConst) / 8.0;
    const double face = sizeof(phys::FaceCoeffs) / 8.0;
    m.macroscopic = 8.0 * (nc * (5 + 5 + 3 + 1 + 5.0 * dim + prim + eq + 17) + nf * (face + 5));
    // one block: gradients (dim per velocity), face flux cache, halo buffers ~ f and grad f of the
    // block
    m.block_working_set = 8.0 * B * nd * (nc * dim + nf) * 2.0;
    // fp32 storage on the CPU backend: the block being swept in double
    if (fp32) m.block_working_set += 8.0 * B * nd * nc;
    m.global_mesh = global_mesh_bytes;
    // Reading the mesh, matching faces and the partition graph: transient, but their many small
    // allocations leave the heap resident afterwards (measured: about the global mesh again).
    m.mesh_setup = global_mesh_bytes;
    // The local part (a mesh of its own) and the solver's geometry tables (least-squares stencils,
    // face offsets, boundary indices): about the size of a mesh of that many cells and faces, the
    // global mesh scaled down.
    m.local_mesh = 8.0 * (nc * 40 + nf * 30);
    // A checkpoint write (at checkpoint.every, at the end, or on SIGTERM/SIGUSR1) holds a copy of
    // the state (h, b: state_export) and moves the distribution rows of the owned cells to
    // contiguous blocks of global cells chunk by chunk of velocity columns, h then b, through
    // three transfer buffers (send, receive, block) of at most kCheckpointChunkBytes (256 MiB,
    // checkpoint_io.hpp) each, fewer bytes when all of a rank's columns fit: rows x columns. A
    // restart holds as much: the state read_checkpoint returns (a copy next to the solver's
    // arrays while state_import copies it) and three buffers (block, send, receive: rows of the
    // local cells, ghosts included). So: 1 copy per distribution + 3 x min(chunk, one of them).
    const double chunk_bytes = 256.0 * 1024 * 1024;  // kCheckpointChunkBytes
    m.io_buffers = 8.0 * nv * nc * nd + 3.0 * std::min(chunk_bytes, 8.0 * nv * nc);
    // The implicit iteration keeps the steady residual of every distribution value (in the
    // storage precision) and the increments (double) of one chunk of velocity blocks (the CUDA
    // backend: all of them up to 256 MiB, else a sixteenth of the blocks; the CPU backend: one
    // block per thread, less).
    if (implicit) {
        const double dh_all = 8.0 * nv * nd * no;
        m.implicit = (fp32 ? 4.0 : 8.0) * nv * nd * nc +
                     std::min(dh_all, std::max(256.0 * 1024 * 1024, dh_all / 16));
    }
    return m;
}

double mesh_bytes(const Mesh& m) {
    auto b = [](const auto& v) {
        return static_cast<double>(v.size() *
                                   sizeof(typename std::decay_t<decltype(v)>::value_type));
    };
    return b(m.nodes) + b(m.cell_type) + b(m.cell_node_offsets) + b(m.cell_nodes) +
           b(m.face_node_offsets) + b(m.face_nodes) + b(m.face_owner) + b(m.face_neighbour) +
           b(m.face_patch) + b(m.face_normal) + b(m.face_centroid) + b(m.face_area) +
           b(m.face_shift) + b(m.cell_face_offsets) + b(m.cell_faces) + b(m.cell_volume) +
           b(m.cell_centroid);
}

double memory_limit_override() {
    const char* v = std::getenv("UGKS_TEST_MEMORY_LIMIT_BYTES");
    if (v == nullptr || *v == '\0') return 0.0;
    char* end = nullptr;
    const double x = std::strtod(v, &end);
    if (end == v || *end != '\0' || !(x > 0))
        UGKS_INPUT_ERROR("environment variable UGKS_TEST_MEMORY_LIMIT_BYTES='"
                         << v << "': expected a positive number of bytes");
    return x;
}

double host_physical_memory() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

namespace {
/// The fewest bytes one cell of a global mesh takes (measured 260-550 B for the box cell types:
/// docs/decisions.md "Memory refused before allocation"); a lower bound, so that only cases that
/// cannot fit are refused before the mesh exists.
constexpr double kMinMeshBytesPerCell = 128.0;
}  // namespace

void refuse_impossible_size(double cells, double velocities, const std::string& what) {
    const double limit = memory_limit_override();
    const double host = limit > 0 ? limit : host_physical_memory();
    if (!(host > 0)) return;
    const double mesh = 2.0 * kMinMeshBytesPerCell * cells;
    const double grid = 32.0 * velocities;
    if (mesh + grid > host)
        UGKS_INPUT_ERROR(fmt::format(
            "{} cannot fit: at least {} per rank (global mesh {} for {:.4g} cells{}) but the host "
            "has {}{}; use fewer cells or velocities",
            what, human_bytes(mesh + grid), human_bytes(mesh), cells,
            velocities > 0
                ? fmt::format(", velocity grid {} for {:.4g} points", human_bytes(grid), velocities)
                : std::string(),
            human_bytes(host), limit > 0 ? " (UGKS_TEST_MEMORY_LIMIT_BYTES)" : ""));
}

std::string human_bytes(double b) {
    const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024.0 && u < 4) {
        b /= 1024.0;
        ++u;
    }
    return fmt::format("{:.2f} {}", b, unit[u]);
}

double box_cells(const BoxSpec& b) {
    double cells = 1.0;
    for (int d = 0; d < b.dim; ++d) cells *= static_cast<double>(b.n[d]);
    return cells;
}

ProcessMemory process_memory() {
    ProcessMemory pm;
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        double* dst = line.rfind("VmRSS:", 0) == 0   ? &pm.rss
                      : line.rfind("VmHWM:", 0) == 0 ? &pm.peak
                                                     : nullptr;
        if (dst) *dst = 1024.0 * std::strtod(line.c_str() + 6, nullptr);  // "... kB"
    }
    return pm;
}

}  // namespace ugks
