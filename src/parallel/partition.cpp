#include "ugks/parallel/partition.hpp"

#include <fmt/format.h>
#include <metis.h>
#include <pthread.h>

#include <algorithm>
#include <csignal>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

#include "ugks/core/error.hpp"
#include "ugks/parallel/layout.hpp"
#include "ugks/parallel/mpi_check.hpp"

namespace ugks {

namespace {

/// Dual graph in CSR form (64-bit while it is built; converted for METIS after the size check).
struct DualGraph {
    std::vector<index_t> xadj{0};
    std::vector<index_t> adj;
};

DualGraph dual_graph(const Mesh& mesh) {
    const index_t n = mesh.n_cells();
    std::vector<index_t> degree(static_cast<std::size_t>(n), 0);
    for (index_t f = 0; f < mesh.n_faces(); ++f) {
        const index_t a = mesh.face_owner[f], b = mesh.face_neighbour[f];
        if (b < 0 || a == b) continue;
        ++degree[a];
        ++degree[b];
    }
    DualGraph g;
    g.xadj.resize(static_cast<std::size_t>(n) + 1, 0);
    for (index_t c = 0; c < n; ++c) g.xadj[c + 1] = g.xadj[c] + degree[c];
    g.adj.resize(static_cast<std::size_t>(g.xadj[n]));
    std::vector<index_t> fill(g.xadj.begin(), g.xadj.end() - 1);
    for (index_t f = 0; f < mesh.n_faces(); ++f) {
        const index_t a = mesh.face_owner[f], b = mesh.face_neighbour[f];
        if (b < 0 || a == b) continue;
        g.adj[fill[a]++] = b;
        g.adj[fill[b]++] = a;
    }
    // METIS wants no duplicate edges (two cells may share several faces, e.g. split polygons).
    index_t out = 0;
    for (index_t c = 0; c < n; ++c) {
        auto first = g.adj.begin() + g.xadj[c], last = g.adj.begin() + g.xadj[c + 1];
        std::sort(first, last);
        last = std::unique(first, last);
        g.xadj[c] = out;
        for (auto it = first; it != last; ++it) g.adj[out++] = *it;
    }
    g.xadj[n] = out;
    g.adj.resize(static_cast<std::size_t>(out));
    return g;
}

bool is_connected(const DualGraph& g, index_t n) {
    if (n <= 1) return true;
    std::vector<char> seen(static_cast<std::size_t>(n), 0);
    std::vector<index_t> stack{0};
    seen[0] = 1;
    index_t reached = 1;
    while (!stack.empty()) {
        const index_t c = stack.back();
        stack.pop_back();
        for (index_t k = g.xadj[c]; k < g.xadj[c + 1]; ++k) {
            const index_t d = g.adj[k];
            if (!seen[d]) {
                seen[d] = 1;
                ++reached;
                stack.push_back(d);
            }
        }
    }
    return reached == n;
}

/// Give every empty part one cell of the currently largest part (lowest part index on ties),
/// preferring the highest-numbered cell on that part's boundary, so the result is deterministic.
void fill_empty_parts(const DualGraph& g, index_t n, int nparts, std::vector<int>& part) {
    for (;;) {
        std::vector<index_t> count(static_cast<std::size_t>(nparts), 0);
        for (index_t c = 0; c < n; ++c) ++count[part[c]];
        const auto empty = std::find(count.begin(), count.end(), index_t{0});
        if (empty == count.end()) return;
        const int target = static_cast<int>(empty - count.begin());
        const int donor =
            static_cast<int>(std::max_element(count.begin(), count.end()) - count.begin());
        index_t pick = -1, fallback = -1;
        for (index_t c = n - 1; c >= 0 && pick < 0; --c) {
            if (part[c] != donor) continue;
            if (fallback < 0) fallback = c;
            for (index_t k = g.xadj[c]; k < g.xadj[c + 1]; ++k)
                if (part[g.adj[k]] != donor) {
                    pick = c;
                    break;
                }
        }
        part[pick >= 0 ? pick : fallback] = target;
    }
}

const char* metis_status(int status) {
    switch (status) {
        case METIS_ERROR_INPUT:
            return "METIS_ERROR_INPUT";
        case METIS_ERROR_MEMORY:
            return "METIS_ERROR_MEMORY";
        default:
            return "METIS_ERROR";
    }
}

}  // namespace

std::vector<int> partition_cells(const Mesh& mesh, int nparts) {
    const index_t n = mesh.n_cells();
    if (nparts < 1) UGKS_INPUT_ERROR("cannot partition the mesh into " << nparts << " parts");
    if (n == 0) UGKS_INPUT_ERROR("cannot partition a mesh without cells");
    if (nparts > n)
        UGKS_INPUT_ERROR("the mesh has "
                         << n << " cells, fewer than the " << nparts
                         << " physical parts (MPI ranks / parallel.velocity_ranks); "
                            "use fewer MPI ranks or more velocity ranks");
    std::vector<int> part(static_cast<std::size_t>(n), 0);
    if (nparts == 1) return part;

    const DualGraph g = dual_graph(mesh);
    constexpr index_t kIdxMax = std::numeric_limits<idx_t>::max();
    if (n > kIdxMax || g.xadj[n] > kIdxMax)
        UGKS_INPUT_ERROR("the mesh is too large for METIS's "
                         << 8 * sizeof(idx_t) << "-bit idx_t (" << n << " cells, " << g.xadj[n]
                         << " adjacency entries; limit " << kIdxMax << ")");

    if (g.xadj[n] == 0) {
        // No interior faces at all: METIS has nothing to cut; use equal consecutive blocks.
        for (index_t c = 0; c < n; ++c) part[c] = static_cast<int>(c * nparts / n);
        return part;
    }

    std::vector<idx_t> xadj(g.xadj.begin(), g.xadj.end());
    std::vector<idx_t> adjncy(g.adj.begin(), g.adj.end());
    idx_t nvtxs = static_cast<idx_t>(n), ncon = 1, np = nparts, objval = 0;
    std::vector<idx_t> result(static_cast<std::size_t>(n), 0);
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 0;
    options[METIS_OPTION_NUMBERING] = 0;
    // METIS refuses CONTIG on a disconnected graph, so ask for it only when it can be honoured.
    options[METIS_OPTION_CONTIG] = is_connected(g, n) ? 1 : 0;
    // GKlib (inside METIS) installs its own SIGTERM handler while METIS runs, which turns the
    // signal into METIS_ERROR on this thread and crashes on any other: a SIGTERM during the
    // partition ended the run with exit 1 (or 139) instead of the start-up stop with exit 4. The
    // other threads never take it (main() starts them with the stop signals blocked); blocked here
    // too, it stays pending and reaches the solver's handler once METIS has put that back.
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    const int status =
        METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr,
                            &np, nullptr, nullptr, options, &objval, result.data());
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (status != METIS_OK)
        throw std::runtime_error(
            fmt::format("METIS_PartGraphKway failed ({}) for {} cells into {} parts",
                        metis_status(status), n, nparts));
    for (index_t c = 0; c < n; ++c) part[c] = static_cast<int>(result[c]);
    fill_empty_parts(g, n, nparts, part);
    return part;
}

std::vector<int> partition_cells(const Mesh& mesh, int nparts, MPI_Comm comm) {
    int rank = 0;
    UGKS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    std::vector<int> part;
    run_collective(comm, [&] {
        if (rank == 0) part = partition_cells(mesh, nparts);
    });
    const index_t n = mesh.n_cells();
    part.resize(static_cast<std::size_t>(n));
    constexpr index_t kChunk = index_t{1} << 30;
    for (index_t start = 0; start < n; start += kChunk) {
        const int count = static_cast<int>(std::min(kChunk, n - start));
        UGKS_MPI_CHECK(MPI_Bcast(part.data() + start, count, MPI_INT, 0, comm));
    }
    return part;
}

LocalMesh build_local_mesh(const Mesh& global, const std::vector<int>& part, int my_part) {
    const index_t n = global.n_cells();
    const index_t nf = global.n_faces();
    UGKS_REQUIRE(static_cast<index_t>(part.size()) == n,
                 "partition has " << part.size() << " entries for " << n << " cells");
    UGKS_REQUIRE(my_part >= 0, "negative part " << my_part);

    LocalMesh L;
    L.part = my_part;
    L.n_global_cells = n;

    // Cells: owned (ascending), then face neighbours in other parts (ascending).
    std::vector<char> is_ghost(static_cast<std::size_t>(n), 0);
    for (index_t f = 0; f < nf; ++f) {
        const index_t a = global.face_owner[f], b = global.face_neighbour[f];
        if (b < 0) continue;
        if (part[a] == my_part && part[b] != my_part) is_ghost[b] = 1;
        if (part[b] == my_part && part[a] != my_part) is_ghost[a] = 1;
    }
    for (index_t c = 0; c < n; ++c)
        if (part[c] == my_part) L.global_cell.push_back(c);
    L.n_owned = static_cast<index_t>(L.global_cell.size());
    for (index_t c = 0; c < n; ++c)
        if (is_ghost[c]) {
            L.global_cell.push_back(c);
            L.ghost_part.push_back(part[c]);
        }
    L.n_ghost = static_cast<index_t>(L.global_cell.size()) - L.n_owned;
    const index_t nl = L.n_owned + L.n_ghost;
    std::vector<index_t> cell_g2l(static_cast<std::size_t>(n), -1);
    for (index_t lc = 0; lc < nl; ++lc) cell_g2l[L.global_cell[lc]] = lc;

    // Faces touching an owned cell, ascending global id.
    std::vector<index_t> face_g2l(static_cast<std::size_t>(nf), -1);
    for (index_t f = 0; f < nf; ++f) {
        const index_t a = global.face_owner[f], b = global.face_neighbour[f];
        if (part[a] == my_part || (b >= 0 && part[b] == my_part)) {
            face_g2l[f] = static_cast<index_t>(L.global_face.size());
            L.global_face.push_back(f);
        }
    }

    // Nodes used by local cells (faces use a subset of them), ascending global id.
    std::vector<char> node_used(static_cast<std::size_t>(global.n_nodes()), 0);
    for (index_t gc : L.global_cell)
        for (index_t k = global.cell_node_offsets[gc]; k < global.cell_node_offsets[gc + 1]; ++k)
            node_used[global.cell_nodes[k]] = 1;
    std::vector<index_t> node_g2l(static_cast<std::size_t>(global.n_nodes()), -1);
    for (index_t v = 0; v < global.n_nodes(); ++v)
        if (node_used[v]) {
            node_g2l[v] = static_cast<index_t>(L.global_node.size());
            L.global_node.push_back(v);
        }

    Mesh& M = L.mesh;
    M.dim = global.dim;
    M.patch_names = global.patch_names;
    M.nodes.reserve(L.global_node.size());
    for (index_t v : L.global_node) M.nodes.push_back(global.nodes[v]);

    const bool has_volume = static_cast<index_t>(global.cell_volume.size()) == n;
    const bool has_centroid = static_cast<index_t>(global.cell_centroid.size()) == n;
    M.cell_type.reserve(static_cast<std::size_t>(nl));
    for (index_t gc : L.global_cell) {
        M.cell_type.push_back(global.cell_type[gc]);
        for (index_t k = global.cell_node_offsets[gc]; k < global.cell_node_offsets[gc + 1]; ++k)
            M.cell_nodes.push_back(node_g2l[global.cell_nodes[k]]);
        M.cell_node_offsets.push_back(static_cast<index_t>(M.cell_nodes.size()));
        if (has_volume) M.cell_volume.push_back(global.cell_volume[gc]);
        if (has_centroid) M.cell_centroid.push_back(global.cell_centroid[gc]);
    }

    const bool has_face_geom = static_cast<index_t>(global.face_area.size()) == nf;
    // Periodic faces keep the global orientation (owner/neighbour) locally, so the global shift of
    // the neighbour's image applies unchanged.
    const bool has_shift = static_cast<index_t>(global.face_shift.size()) == nf;
    const bool has_pair = static_cast<index_t>(global.face_pair.size()) == nf;
    for (index_t gf : L.global_face) {
        for (index_t k = global.face_node_offsets[gf]; k < global.face_node_offsets[gf + 1]; ++k)
            M.face_nodes.push_back(node_g2l[global.face_nodes[k]]);
        M.face_node_offsets.push_back(static_cast<index_t>(M.face_nodes.size()));
        M.face_owner.push_back(cell_g2l[global.face_owner[gf]]);
        const index_t b = global.face_neighbour[gf];
        M.face_neighbour.push_back(b < 0 ? index_t{-1} : cell_g2l[b]);
        M.face_patch.push_back(global.face_patch[gf]);
        if (has_face_geom) {
            M.face_normal.push_back(global.face_normal[gf]);
            M.face_centroid.push_back(global.face_centroid[gf]);
            M.face_area.push_back(global.face_area[gf]);
        }
        if (has_shift) M.face_shift.push_back(global.face_shift[gf]);
        if (has_pair) M.face_pair.push_back(global.face_pair[gf]);
    }

    // Cell -> faces in the global order of each cell's list (derived from the faces if absent).
    if (static_cast<index_t>(global.cell_face_offsets.size()) == n + 1) {
        for (index_t gc : L.global_cell) {
            for (index_t k = global.cell_face_offsets[gc]; k < global.cell_face_offsets[gc + 1];
                 ++k) {
                const index_t lf = face_g2l[global.cell_faces[k]];
                if (lf >= 0) M.cell_faces.push_back(lf);
            }
            M.cell_face_offsets.push_back(static_cast<index_t>(M.cell_faces.size()));
        }
    } else {
        std::vector<index_t> count(static_cast<std::size_t>(nl) + 1, 0);
        for (index_t lf = 0; lf < M.n_faces(); ++lf) {
            ++count[M.face_owner[lf] + 1];
            if (M.face_neighbour[lf] >= 0) ++count[M.face_neighbour[lf] + 1];
        }
        std::partial_sum(count.begin(), count.end(), count.begin());
        M.cell_face_offsets = count;
        M.cell_faces.resize(static_cast<std::size_t>(count[nl]));
        for (index_t lf = 0; lf < M.n_faces(); ++lf) {
            M.cell_faces[count[M.face_owner[lf]]++] = lf;
            if (M.face_neighbour[lf] >= 0) M.cell_faces[count[M.face_neighbour[lf]]++] = lf;
        }
    }

    // Halo pattern. Ghosts are sorted by global id, so recv lists (filtered by owner part) are too;
    // owned local indices follow global ids, so sorting send lists by local index sorts them by
    // global id.
    HaloPattern& H = L.halo;
    H.neighbours = L.ghost_part;
    std::sort(H.neighbours.begin(), H.neighbours.end());
    H.neighbours.erase(std::unique(H.neighbours.begin(), H.neighbours.end()), H.neighbours.end());
    const std::size_t nn = H.neighbours.size();
    H.send_cells.assign(nn, {});
    H.recv_cells.assign(nn, {});
    auto slot = [&](int p) {
        return static_cast<std::size_t>(
            std::lower_bound(H.neighbours.begin(), H.neighbours.end(), p) - H.neighbours.begin());
    };
    for (index_t i = 0; i < L.n_ghost; ++i)
        H.recv_cells[slot(L.ghost_part[i])].push_back(L.n_owned + i);
    for (index_t lf = 0; lf < M.n_faces(); ++lf) {
        const index_t a = M.face_owner[lf], b = M.face_neighbour[lf];
        if (b < 0) continue;
        if (a < L.n_owned && b >= L.n_owned)
            H.send_cells[slot(L.ghost_part[b - L.n_owned])].push_back(a);
        if (b < L.n_owned && a >= L.n_owned)
            H.send_cells[slot(L.ghost_part[a - L.n_owned])].push_back(b);
    }
    for (auto& s : H.send_cells) {
        std::sort(s.begin(), s.end());
        s.erase(std::unique(s.begin(), s.end()), s.end());
    }
    return L;
}

void add_jump_images(LocalMesh& L, const std::vector<double>& pair_scale) {
    Mesh& M = L.mesh;
    const index_t nf0 = M.n_faces();
    if (static_cast<index_t>(M.face_pair.size()) != nf0) return;
    bool any = false;
    for (index_t f = 0; f < nf0 && !any; ++f)
        any = M.face_pair[f] >= 0 && pair_scale.at(M.face_pair[f]) != 1.0;
    if (!any) return;
    const bool has_volume = M.cell_volume.size() == static_cast<std::size_t>(M.n_cells());
    std::map<std::pair<index_t, double>, index_t> image_of;
    auto image = [&](index_t src, double s, const Vec3& shift) {
        auto it = image_of.find({src, s});
        if (it != image_of.end()) return it->second;
        const index_t c = M.n_cells();
        M.cell_type.push_back(M.cell_type[src]);
        for (index_t k = M.cell_node_offsets[src]; k < M.cell_node_offsets[src + 1]; ++k)
            M.cell_nodes.push_back(M.cell_nodes[k]);
        M.cell_node_offsets.push_back(static_cast<index_t>(M.cell_nodes.size()));
        if (has_volume) M.cell_volume.push_back(M.cell_volume[src]);
        const Vec3 x = M.cell_centroid[src];
        M.cell_centroid.push_back({x[0] + shift[0], x[1] + shift[1], x[2] + shift[2]});
        L.global_cell.push_back(L.global_cell[src]);
        L.ghost_part.push_back(L.part);
        ++L.n_ghost;
        L.images.src.push_back(src);
        L.images.dst.push_back(c);
        L.images.scale.push_back(s);
        image_of[{src, s}] = c;
        return c;
    };
    // per cell: face replacements (owned R: joined face -> its own face; ghost R: dropped)
    std::map<std::pair<index_t, index_t>, index_t> replace;
    for (index_t f = 0; f < nf0; ++f) {
        if (M.face_pair[f] < 0) continue;
        const double s = pair_scale.at(M.face_pair[f]);
        if (s == 1.0) continue;
        const index_t a = M.face_owner[f], b = M.face_neighbour[f];
        const Vec3 shift = M.face_shift[f];
        const Vec3 back{-shift[0], -shift[1], -shift[2]};
        M.face_neighbour[f] = image(b, s, shift);
        M.face_shift[f] = {0, 0, 0};
        JumpFace J;
        J.face = f;
        J.scale = s;
        if (b < L.n_owned) {
            const index_t g = M.n_faces();
            for (index_t k = M.face_node_offsets[f]; k < M.face_node_offsets[f + 1]; ++k)
                M.face_nodes.push_back(M.face_nodes[k]);
            M.face_node_offsets.push_back(static_cast<index_t>(M.face_nodes.size()));
            M.face_owner.push_back(b);
            M.face_neighbour.push_back(image(a, 1.0 / s, back));
            M.face_patch.push_back(-1);
            const Vec3 n = M.face_normal[f], xf = M.face_centroid[f];
            M.face_normal.push_back({-n[0], -n[1], -n[2]});
            M.face_centroid.push_back({xf[0] + back[0], xf[1] + back[1], xf[2] + back[2]});
            M.face_area.push_back(M.face_area[f]);
            M.face_shift.push_back({0, 0, 0});
            M.face_pair.push_back(M.face_pair[f]);
            L.global_face.push_back(L.global_face[f]);
            J.partner = g;
            replace[{b, f}] = g;
        } else {
            replace[{b, f}] = -1;
        }
        L.jumps.push_back(J);
    }
    std::vector<index_t> offsets{0}, faces;
    const index_t nc_old = static_cast<index_t>(M.cell_face_offsets.size()) - 1;
    for (index_t c = 0; c < M.n_cells(); ++c) {
        if (c < nc_old)
            for (index_t k = M.cell_face_offsets[c]; k < M.cell_face_offsets[c + 1]; ++k) {
                index_t f = M.cell_faces[k];
                auto it = replace.find({c, f});
                if (it != replace.end()) f = it->second;
                if (f >= 0) faces.push_back(f);
            }
        offsets.push_back(static_cast<index_t>(faces.size()));
    }
    M.cell_face_offsets = std::move(offsets);
    M.cell_faces = std::move(faces);
}

}  // namespace ugks
