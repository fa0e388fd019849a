#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "host_loop.hpp"
#include "ugks/core/error.hpp"
#include "ugks/overset/cell_locate.hpp"
#include "ugks/overset/overset.hpp"

namespace ugks::overset {

using detail::fill_reached;
using detail::host_for;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

GridView grid_view(const OversetGrid& g, int dim) {
    GridView v;
    v.dim = dim;
    v.n_nodes = g.mesh.n_nodes();
    v.n_cells = g.mesh.n_cells();
    v.xyz = g.xyz.data();
    v.cell_node_offsets = g.mesh.cell_node_offsets.data();
    v.cell_nodes = g.mesh.cell_nodes.data();
    v.cell_type = reinterpret_cast<const std::int8_t*>(g.mesh.cell_type.data());
    v.cell_status = g.cell_status.empty() ? nullptr : g.cell_status.data();
    v.wall_distance = g.wall_distance.empty() ? nullptr : g.wall_distance.data();
    v.tree = view(g.donor_tree);
    return v;
}

// ---- wall surfaces (explicit hole cut) ----------------------------------------------------------

WallSurface make_wall_surface(int dim, index_t n_nodes, std::vector<index_t> face) {
    WallSurface s;
    s.dim = dim;
    s.face = std::move(face);
    const index_t nf = s.n_faces();
    const int nv = dim == 2 ? 2 : 3;
    s.adj.assign(static_cast<std::size_t>(nf) * 3, -1);
    s.node_face_offsets.assign(static_cast<std::size_t>(n_nodes) + 1, 0);
    for (index_t f = 0; f < nf; ++f)
        for (int v = 0; v < nv; ++v) ++s.node_face_offsets[s.face[3 * f + v] + 1];
    for (index_t i = 0; i < n_nodes; ++i) s.node_face_offsets[i + 1] += s.node_face_offsets[i];
    s.node_faces.resize(static_cast<std::size_t>(s.node_face_offsets[n_nodes]));
    std::vector<index_t> fill(s.node_face_offsets.begin(), s.node_face_offsets.end() - 1);
    for (index_t f = 0; f < nf; ++f)
        for (int v = 0; v < nv; ++v) s.node_faces[fill[s.face[3 * f + v]]++] = f;
    // Closed: 2D, every wall node starts one segment and ends one; 3D, every directed edge (u, v)
    // appears once and its reverse (v, u) once (a consistently oriented 2-manifold).
    s.closed = nf > 0;
    if (dim == 2) {
        std::vector<int> starts(static_cast<std::size_t>(n_nodes), 0),
            ends(static_cast<std::size_t>(n_nodes), 0);
        for (index_t f = 0; f < nf; ++f) {
            ++starts[s.face[3 * f]];
            ++ends[s.face[3 * f + 1]];
        }
        for (index_t i = 0; i < n_nodes; ++i)
            if (starts[i] != ends[i] || starts[i] > 1) s.closed = false;
    } else {
        std::map<std::pair<index_t, index_t>, std::vector<std::pair<index_t, int>>> edges;
        for (index_t f = 0; f < nf; ++f)
            for (int e = 0; e < 3; ++e)
                edges[{s.face[3 * f + e], s.face[3 * f + (e + 1) % 3]}].push_back({f, e});
        for (const auto& [uv, fe] : edges) {
            const auto r = edges.find({uv.second, uv.first});
            if (fe.size() != 1 || r == edges.end() || r->second.size() != 1) {
                s.closed = false;
                continue;
            }
            s.adj[3 * fe[0].first + fe[0].second] = r->second[0].first;
        }
    }
    return s;
}

void update_wall_surface(WallSurface& s, const double* xyz, int leaf_size) {
    const index_t nf = s.n_faces();
    s.box.resize(static_cast<std::size_t>(nf) * 2 * s.dim);
    const WallView w = wall_view(s, xyz);
    double* bx = s.box.data();
    const int k = 2 * s.dim;
    host_for(nf, [=](index_t f) { wall_face_box(w, f, bx + f * k); });
    s.tree = build_kdtree(s.box.data(), nf, k, leaf_size);
}

WallView wall_view(const WallSurface& s, const double* xyz) {
    return wall_view_of(s, s.dim, s.n_faces(), xyz);
}

void inside_flags(const std::vector<WallView>& walls, const std::vector<int>& wall_grid,
                  const double* x, index_t n, std::int8_t* out) {
    host_for(n, [&, x, out](index_t i) {
        out[i] = 0;
        for (std::size_t k = 0; k < walls.size(); ++k)
            if (wall_inside(walls[k], x + 3 * i)) {
                out[i] = static_cast<std::int8_t>(1 + wall_grid[k]);
                break;
            }
    });
}

namespace {

/// The wall faces of a mesh (boundary faces of the wall patches) as oriented segments/triangles:
/// the mesh's face normal points out of the owner cell (into the solid), the wall face's into it.
WallSurface wall_surface_of(const Mesh& mesh, const std::set<int>& wall_patches) {
    std::vector<index_t> face;
    auto add = [&](index_t a, index_t b, index_t c, const Vec3& out) {
        face.insert(face.end(), {a, b, c});
        WallView w;
        w.dim = mesh.dim;
        w.face = face.data() + face.size() - 3;
        w.xyz = mesh.nodes[0].data();
        double n[3];
        wall_face_normal(w, 0, n);
        if (n[0] * out[0] + n[1] * out[1] + n[2] * out[2] > 0)
            std::swap(face[face.size() - 3 + 1], face[face.size() - 3 + (mesh.dim == 2 ? 0 : 2)]);
    };
    for (index_t f = 0; f < mesh.n_faces(); ++f) {
        if (mesh.face_neighbour[f] >= 0 || !wall_patches.count(mesh.face_patch[f])) continue;
        const index_t o = mesh.face_node_offsets[f], nv = mesh.face_node_offsets[f + 1] - o;
        const index_t* v = mesh.face_nodes.data() + o;
        if (mesh.dim == 2)
            add(v[0], v[1], -1, mesh.face_normal[f]);
        else
            for (index_t j = 1; j + 1 < nv; ++j) add(v[0], v[j], v[j + 1], mesh.face_normal[f]);
    }
    return make_wall_surface(mesh.dim, mesh.n_nodes(), std::move(face));
}

}  // namespace

// ---- system set-up ------------------------------------------------------------------------------

void add_grid(OversetSystem& sys, const std::string& name, Mesh mesh, int layer,
              const std::vector<std::string>& walls, const Motion& motion) {
    if (sys.dim == 0) sys.dim = mesh.dim;
    if (mesh.dim != sys.dim || (mesh.dim != 2 && mesh.dim != 3))
        UGKS_INPUT_ERROR("overset grid '" << name << "': mesh dimension " << mesh.dim
                                          << " (all grids must be 2D or all 3D)");
    OversetGrid g;
    g.name = name;
    g.layer = layer;
    g.motion = motion;
    std::set<int> wall_patches;
    for (const std::string& w : walls) {
        const int p = mesh.patch_index(w);
        if (p < 0) {
            std::ostringstream os;
            for (const auto& n : mesh.patch_names) os << " " << n;
            UGKS_INPUT_ERROR("overset grid '"
                             << name << "': wall patch '" << w
                             << "' is not a patch of its mesh (patches:" << os.str() << ")");
        }
        wall_patches.insert(p);
    }
    std::vector<char> is_wall(mesh.nodes.size(), 0), is_bnd(mesh.nodes.size(), 0);
    for (index_t f = 0; f < mesh.n_faces(); ++f) {
        const bool wall = wall_patches.count(mesh.face_patch[f]) > 0;
        const bool bnd = mesh.face_neighbour[f] < 0;
        for (index_t j = mesh.face_node_offsets[f]; j < mesh.face_node_offsets[f + 1]; ++j) {
            if (wall) is_wall[mesh.face_nodes[j]] = 1;
            if (bnd) is_bnd[mesh.face_nodes[j]] = 1;
        }
    }
    for (index_t i = 0; i < mesh.n_nodes(); ++i) {
        if (is_wall[i]) g.wall_nodes.push_back(i);
        if (is_bnd[i]) g.boundary_nodes.push_back(i);
    }
    // node -> cells (CSR: count, scan, fill)
    g.node_cell_offsets.assign(mesh.nodes.size() + 1, 0);
    for (const index_t v : mesh.cell_nodes) ++g.node_cell_offsets[v + 1];
    for (std::size_t i = 0; i < mesh.nodes.size(); ++i)
        g.node_cell_offsets[i + 1] += g.node_cell_offsets[i];
    g.node_cells.resize(mesh.cell_nodes.size());
    std::vector<index_t> fill(g.node_cell_offsets.begin(), g.node_cell_offsets.end() - 1);
    for (index_t c = 0; c < mesh.n_cells(); ++c)
        for (index_t j = mesh.cell_node_offsets[c]; j < mesh.cell_node_offsets[c + 1]; ++j)
            g.node_cells[fill[mesh.cell_nodes[j]]++] = c;
    if (!wall_patches.empty()) g.wall = wall_surface_of(mesh, wall_patches);
    g.mesh = std::move(mesh);
    sys.grids.push_back(std::move(g));
}

OversetSystem make_system(const OversetCase& c, std::vector<Mesh> meshes) {
    UGKS_REQUIRE(meshes.size() == c.grids.size(), "one mesh per grid");
    OversetSystem sys;
    sys.layer_spacing = c.layer_spacing;
    sys.leaf_size = c.leaf_size;
    sys.advancing_front = c.advancing_front;
    sys.hole_cut = c.hole_cut != "off";
    sys.backend = c.backend == "device" || (c.backend == "auto" && device_available())
                      ? Backend::Device
                      : Backend::Host;
    for (std::size_t i = 0; i < meshes.size(); ++i) {
        const GridSpec& s = c.grids[i];
        add_grid(sys, s.name, std::move(meshes[i]), s.layer, s.walls, s.motion);
    }
    return sys;
}

// ---- wall distance ------------------------------------------------------------------------------

std::vector<double> nearest_distances(const KdTree& tree, const double* xyz, index_t n,
                                      const double* r2_init, std::vector<index_t>* nearest) {
    std::vector<double> d(static_cast<std::size_t>(n));
    if (nearest) nearest->assign(static_cast<std::size_t>(n), -1);
    const KdView v = view(tree);
    index_t* nn = nearest ? nearest->data() : nullptr;
    double* dd = d.data();
    host_for(n, [=](index_t i) {
        double d2 = kInf;
        index_t j = kd_nearest(v, xyz + 3 * i, r2_init ? r2_init[i] : kInf, &d2);
        if (j < 0) j = kd_nearest(v, xyz + 3 * i, kInf, &d2);  // nothing within the radius
        dd[i] = std::sqrt(d2);
        if (nn) nn[i] = j;
    });
    return d;
}

std::vector<double> nearest_distances_brute(const double* pts, index_t n_pts, const double* xyz,
                                            index_t n) {
    std::vector<double> d(static_cast<std::size_t>(n));
    double* dd = d.data();
    host_for(n, [=](index_t i) {
        double best = kInf;
        for (index_t j = 0; j < n_pts; ++j) {
            double s = 0;
            for (int a = 0; a < 3; ++a) {
                const double e = pts[3 * j + a] - xyz[3 * i + a];
                s += e * e;
            }
            best = std::min(best, s);
        }
        dd[i] = std::sqrt(best);
    });
    return d;
}

void compute_wall_distances(OversetSystem& sys, AssemblyTimes* times) {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<double> pts;
    int wall_layer = std::numeric_limits<int>::max();
    for (const OversetGrid& g : sys.grids) {
        for (const index_t i : g.wall_nodes)
            for (int a = 0; a < 3; ++a) pts.push_back(g.xyz[i * 3 + a]);
        if (!g.wall_nodes.empty()) wall_layer = std::min(wall_layer, g.layer);
    }
    const index_t nw = static_cast<index_t>(pts.size() / 3);
    const KdTree tree = build_kdtree(pts.data(), nw, 3, sys.leaf_size);
    if (times) times->wall_tree_build += seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    for (OversetGrid& g : sys.grids) {
        const index_t n = g.mesh.n_nodes();
        g.nearest_wall.assign(static_cast<std::size_t>(n), -1);
        if (g.wall_nodes.empty() || nw == 0) {
            // Layer distances: Δs, 2Δs, ... outward from the innermost wall-carrying layer.
            const int k = nw == 0 ? 1 : std::max(1, wall_layer - g.layer);
            g.wall_distance.assign(static_cast<std::size_t>(n), k * sys.layer_spacing);
            continue;
        }
        if (!sys.advancing_front) {
            g.wall_distance = nearest_distances(tree, g.xyz.data(), n, nullptr, &g.nearest_wall);
            continue;
        }
        // Advancing front: level 0 = the grid's wall nodes, level k = unreached neighbours of
        // level k-1; each level is one parallel query whose initial radius is the distance to a
        // neighbour's nearest wall point (an upper bound of the true distance).
        g.wall_distance.assign(static_cast<std::size_t>(n), 0.0);
        std::vector<index_t> nearest(static_cast<std::size_t>(n), -1);
        std::vector<int> level(static_cast<std::size_t>(n), -1);
        std::vector<index_t> front = g.wall_nodes;
        for (const index_t i : front) level[i] = 0;
        std::vector<double> r2(static_cast<std::size_t>(n), 0.0), q;
        const NodeAdjacency adj = node_adjacency(g, g.mesh);
        for (int L = 0; !front.empty(); ++L) {
            const index_t nf = static_cast<index_t>(front.size());
            q.resize(static_cast<std::size_t>(nf) * 3);
            std::vector<double> r2f(static_cast<std::size_t>(nf));
            for (index_t j = 0; j < nf; ++j) {
                for (int a = 0; a < 3; ++a) q[j * 3 + a] = g.xyz[front[j] * 3 + a];
                r2f[j] = r2[front[j]] * (1 + 1e-12) + 1e-300;
            }
            std::vector<index_t> nj;
            const std::vector<double> d = nearest_distances(tree, q.data(), nf, r2f.data(), &nj);
            for (index_t j = 0; j < nf; ++j) {
                g.wall_distance[front[j]] = d[j];
                nearest[front[j]] = nj[j];
            }
            std::vector<index_t> next;
            for (const index_t i : front)
                for_each_neighbour(adj, i, [&](index_t v) {
                    if (level[v] >= 0 && level[v] != L + 1) return;
                    double s = 0;
                    for (int e = 0; e < 3; ++e) {
                        const double x = g.xyz[v * 3 + e] - pts[nearest[i] * 3 + e];
                        s += x * x;
                    }
                    if (level[v] < 0) {
                        level[v] = L + 1;
                        r2[v] = s;
                        next.push_back(v);
                    } else {
                        r2[v] = std::min(r2[v], s);
                    }
                });
            front.swap(next);
        }
        // Nodes not connected to a wall: plain queries.
        for (index_t i = 0; i < n; ++i)
            if (level[i] < 0) {
                double d2 = kInf;
                nearest[i] = kd_nearest(view(tree), g.xyz.data() + 3 * i, kInf, &d2);
                g.wall_distance[i] = std::sqrt(d2);
            }
        g.nearest_wall.swap(nearest);
    }
    if (times) times->wall_query += seconds_since(t0);
}

// ---- donor search
// ---------------------------------------------------------------------------------

std::vector<double> cell_boxes(const Mesh& mesh, const double* xyz) {
    const int dim = mesh.dim;
    const index_t nc = mesh.n_cells();
    std::vector<double> box(static_cast<std::size_t>(nc) * 2 * dim);
    double* bx = box.data();
    const index_t* off = mesh.cell_node_offsets.data();
    const index_t* cn = mesh.cell_nodes.data();
    host_for(nc, [=](index_t c) { cell_box_of(dim, off, cn, xyz, c, bx + c * 2 * dim); });
    return box;
}

index_t find_donor(const OversetGrid& g, int dim, const double* x, bool skip_holes, double* w) {
    return find_donor_in(grid_view(g, dim), x, skip_holes, w);
}

index_t find_donor_brute(const OversetGrid& g, int dim, const double* x, bool skip_holes,
                         double* w) {
    const GridView v = grid_view(g, dim);
    double xn[kMaxCellNodes * 3], xi[3], wc[kMaxCellNodes];
    for (index_t c = 0; c < g.mesh.n_cells(); ++c) {
        if (skip_holes && g.cell_status[c] == 0) continue;
        const int type = cell_nodes_xyz(v, c, xn);
        if (locate_in_cell(type, dim, xn, x, xi, wc)) {
            for (int i = 0; i < kMaxCellNodes; ++i) w[i] = i < shape_count(type) ? wc[i] : 0.0;
            return c;
        }
    }
    return -1;
}

// ---- assembly -----------------------------------------------------------------------------------

void add_status_counts(const OversetSystem& sys, AssemblyCounts& cnt) {
    for (const OversetGrid& g : sys.grids) {
        cnt.nodes += g.mesh.n_nodes();
        cnt.cells += g.mesh.n_cells();
        for (const auto s : g.node_status) (s ? cnt.active_nodes : cnt.inactive_nodes)++;
        for (const auto s : g.cell_status)
            (s == 1 ? cnt.active_cells : s == 0 ? cnt.hole_cells : cnt.fringe_cells)++;
        cnt.receptors += static_cast<index_t>(g.fringe_node.size());
        cnt.orphans += g.n_orphans;
    }
}

AssemblyCounts assemble(OversetSystem& sys, double time, AssemblyTimes* times, const Pose& common) {
    if (sys.backend == Backend::Device) return assemble_device(sys, time, times, common);
    AssemblyTimes local;
    AssemblyTimes& tm = times ? *times : local;
    const int dim = sys.dim;
    const int ng = static_cast<int>(sys.grids.size());

    // Motion: reset, then place every grid at its pose.
    auto t0 = std::chrono::steady_clock::now();
    for (OversetGrid& g : sys.grids) {
        const PoseArrays p = compose(pose_at(g.motion, time), common).arrays();
        const index_t n = g.mesh.n_nodes();
        g.xyz.resize(static_cast<std::size_t>(n) * 3);
        for (index_t i = 0; i < n; ++i) pose_apply(p, g.mesh.nodes[i].data(), dim, &g.xyz[i * 3]);
        g.node_status.assign(static_cast<std::size_t>(n), 1);
        g.cell_status.assign(static_cast<std::size_t>(g.mesh.n_cells()), 1);
        g.fringe_node.clear();
        g.fringe_donor_grid.clear();
        g.fringe_donor_cell.clear();
        g.fringe_weights.clear();
        g.n_orphans = 0;
    }
    tm.motion += seconds_since(t0);

    compute_wall_distances(sys, &tm);

    // Donor trees over the cell boxes (2 dim-D points), rebuilt every step.
    t0 = std::chrono::steady_clock::now();
    for (OversetGrid& g : sys.grids) {
        g.cell_box = cell_boxes(g.mesh, g.xyz.data());
        g.donor_tree = build_kdtree(g.cell_box.data(), g.mesh.n_cells(), 2 * dim, sys.leaf_size);
    }
    tm.donor_tree_build += seconds_since(t0);

    // Explicit hole cut (hole_cut.hpp): nodes inside another grid's closed wall (whose faces move
    // with their grid), and the cells having such a node ("cut cells", straddling that wall): they
    // are holes (cell_status 0 from here on: no host, no donor) and all their nodes inactive, so
    // that the receptors next to them lie in the fluid.
    t0 = std::chrono::steady_clock::now();
    std::vector<int> bodies;
    if (sys.hole_cut)
        for (int bi = 0; bi < ng; ++bi)
            if (sys.grids[bi].wall.closed) {
                OversetGrid& b = sys.grids[bi];
                update_wall_surface(b.wall, b.xyz.data(), sys.leaf_size);
                bodies.push_back(bi);
            }
    std::vector<std::vector<std::int8_t>> cut(ng);
    std::vector<int> reach(static_cast<std::size_t>(ng) * ng, 0);  // grid g has nodes in body b
    for (int gi = 0; gi < ng; ++gi) {
        OversetGrid& g = sys.grids[gi];
        const Mesh& m = g.mesh;
        g.in_body.assign(static_cast<std::size_t>(m.n_nodes()), 0);
        cut[gi].assign(static_cast<std::size_t>(m.n_nodes()), 0);
        std::vector<WallView> walls;
        std::vector<int> wall_grid;
        for (const int bi : bodies)
            if (bi != gi) {
                walls.push_back(wall_view(sys.grids[bi].wall, sys.grids[bi].xyz.data()));
                wall_grid.push_back(bi);
            }
        if (walls.empty()) continue;
        std::int8_t* ib = g.in_body.data();
        inside_flags(walls, wall_grid, g.xyz.data(), m.n_nodes(), ib);
        for (index_t i = 0; i < m.n_nodes(); ++i)
            if (ib[i]) reach[gi * ng + ib[i] - 1] = 1;
        std::int8_t* cs = g.cell_status.data();
        const index_t* off = m.cell_node_offsets.data();
        const index_t* cn = m.cell_nodes.data();
        host_for(m.n_cells(), [=](index_t c) {
            for (index_t b = off[c]; b < off[c + 1]; ++b)
                if (ib[cn[b]]) cs[c] = 0;
        });
        std::int8_t* ct = cut[gi].data();
        const index_t* nco = g.node_cell_offsets.data();
        const index_t* ncs = g.node_cells.data();
        host_for(m.n_nodes(), [=](index_t i) {
            for (index_t a = nco[i]; a < nco[i + 1]; ++a)
                if (cs[ncs[a]] == 0) ct[i] = 1;
        });
    }
    tm.hole_cut += seconds_since(t0);

    // Host search: for every node, the smallest interpolated wall distance over its host cells
    // in the other grids, cut cells excluded (+inf without a host). Between two body grids of
    // which one reaches into the other's body (reach), the grid whose wall is the node's nearest
    // decides (hole_cut_priority): a host in the other grid is ignored (own wall) or wins.
    t0 = std::chrono::steady_clock::now();
    std::vector<index_t> woff(static_cast<std::size_t>(ng) + 1, 0);
    for (int gi = 0; gi < ng; ++gi)
        woff[gi + 1] = woff[gi] + static_cast<index_t>(sys.grids[gi].wall_nodes.size());
    std::vector<std::vector<double>> host_d(ng);
    for (int gi = 0; gi < ng; ++gi) {
        const OversetGrid& g = sys.grids[gi];
        const index_t n = g.mesh.n_nodes();
        host_d[gi].assign(static_cast<std::size_t>(n), kInf);
        double* hd = host_d[gi].data();
        std::vector<GridView> views;
        for (const OversetGrid& h : sys.grids) views.push_back(grid_view(h, dim));
        const index_t* nwall = g.nearest_wall.data();
        host_for(n, [&, hd, gi, nwall](index_t i) {
            hd[i] = host_wall_distance(views.data(), ng, gi, reach.data(), woff.data(), nwall[i],
                                       g.xyz.data() + 3 * i);
        });
    }
    tm.donor_query += seconds_since(t0);

    // Classification: a node is inactive when it is a node of a cut cell or its wall distance
    // exceeds its host's.
    t0 = std::chrono::steady_clock::now();
    AssemblyCounts cnt;
    for (int gi = 0; gi < ng; ++gi) {
        OversetGrid& g = sys.grids[gi];
        const Mesh& m = g.mesh;
        const index_t n = m.n_nodes();
        for (index_t i = 0; i < n; ++i) {
            g.node_status[i] = cut[gi][i] || g.wall_distance[i] > host_d[gi][i] ? 0 : 1;
            cnt.hole_cut += cut[gi][i];
        }
        // Island removal: active nodes not connected through active nodes to the grid's boundary
        // (e.g. background nodes inside a solid body, enclosed by the cut) become inactive.
        std::vector<char> reached(static_cast<std::size_t>(n), 0);
        std::vector<index_t> front;
        for (const index_t i : g.boundary_nodes)
            if (g.node_status[i]) {
                reached[i] = 1;
                front.push_back(i);
            }
        fill_reached(node_adjacency(g, m), g.node_status.data(), reached.data(), front);
        for (index_t i = 0; i < n; ++i)
            if (g.node_status[i] && !reached[i]) {
                g.node_status[i] = 0;
                ++cnt.islands_removed;
            }
        // Cells: all nodes active -> active, none -> hole, mixed -> fringe.
        for (index_t c = 0; c < m.n_cells(); ++c) {
            int na = 0, nn = 0;
            for (index_t b = m.cell_node_offsets[c]; b < m.cell_node_offsets[c + 1]; ++b, ++nn)
                na += g.node_status[m.cell_nodes[b]];
            g.cell_status[c] = na == nn ? 1 : (na == 0 ? 0 : -1);
        }
    }
    tm.classification += seconds_since(t0);

    // Donor stencils of the receptors (inactive nodes of fringe cells): among the non-hole cells of
    // the other grids that contain the node, the one with the smallest interpolated wall distance
    // (ties: lower grid, then lower cell index). No donor -> orphan.
    t0 = std::chrono::steady_clock::now();
    for (int gi = 0; gi < ng; ++gi) {
        OversetGrid& g = sys.grids[gi];
        const Mesh& m = g.mesh;
        std::vector<char> rec(static_cast<std::size_t>(m.n_nodes()), 0);
        for (index_t c = 0; c < m.n_cells(); ++c)
            if (g.cell_status[c] == -1)
                for (index_t b = m.cell_node_offsets[c]; b < m.cell_node_offsets[c + 1]; ++b)
                    if (!g.node_status[m.cell_nodes[b]]) rec[m.cell_nodes[b]] = 1;
        for (index_t i = 0; i < m.n_nodes(); ++i)
            if (rec[i]) g.fringe_node.push_back(i);
        const index_t nr = static_cast<index_t>(g.fringe_node.size());
        g.fringe_donor_grid.assign(static_cast<std::size_t>(nr), -1);
        g.fringe_donor_cell.assign(static_cast<std::size_t>(nr), -1);
        g.fringe_weights.assign(static_cast<std::size_t>(nr) * kMaxCellNodes, 0.0);
        std::vector<GridView> views;
        for (const OversetGrid& h : sys.grids) views.push_back(grid_view(h, dim));
        host_for(nr, [&, gi](index_t r) {
            const Donor d = best_donor(views.data(), ng, gi, g.xyz.data() + 3 * g.fringe_node[r],
                                       g.fringe_weights.data() + r * kMaxCellNodes);
            g.fringe_donor_grid[r] = d.grid;
            g.fringe_donor_cell[r] = d.cell;
        });
        for (index_t r = 0; r < nr; ++r) g.n_orphans += g.fringe_donor_cell[r] < 0;
    }
    tm.donor_stencils += seconds_since(t0);

    add_status_counts(sys, cnt);
    return cnt;
}

}  // namespace ugks::overset
