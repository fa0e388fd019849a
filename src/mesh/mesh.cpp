#include "ugks/mesh/mesh.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <set>
#include <sstream>

#include "ugks/core/error.hpp"

namespace ugks {

namespace {

// Local face tables (Gmsh/VTK node order). Every face is listed so that its right-hand normal
// points out of a positively oriented cell; the owner's ordering is kept for the global face, which
// makes the normal point owner -> neighbour without any geometric test.
constexpr LocalFace kSegmentFaces[] = {{1, {0}}, {1, {1}}};
constexpr LocalFace kTriangleFaces[] = {{2, {0, 1}}, {2, {1, 2}}, {2, {2, 0}}};
constexpr LocalFace kQuadFaces[] = {{2, {0, 1}}, {2, {1, 2}}, {2, {2, 3}}, {2, {3, 0}}};
constexpr LocalFace kTetraFaces[] = {
    {3, {0, 2, 1}}, {3, {0, 1, 3}}, {3, {0, 3, 2}}, {3, {1, 2, 3}}};
constexpr LocalFace kHexaFaces[] = {{4, {0, 3, 2, 1}}, {4, {4, 5, 6, 7}}, {4, {0, 1, 5, 4}},
                                    {4, {1, 2, 6, 5}}, {4, {2, 3, 7, 6}}, {4, {0, 4, 7, 3}}};
constexpr LocalFace kPrismFaces[] = {
    {3, {0, 2, 1}}, {3, {3, 4, 5}}, {4, {0, 1, 4, 3}}, {4, {1, 2, 5, 4}}, {4, {2, 0, 3, 5}}};
constexpr LocalFace kPyramidFaces[] = {
    {4, {0, 3, 2, 1}}, {3, {0, 1, 4}}, {3, {1, 2, 4}}, {3, {2, 3, 4}}, {3, {3, 0, 4}}};

struct FaceTable {
    const LocalFace* faces;
    int n;
};

template <std::size_t N>
constexpr FaceTable table_of(const LocalFace (&faces)[N]) {
    return {faces, static_cast<int>(N)};
}

// In CellType order (Segment = 1 ... Pyramid = 7).
constexpr FaceTable kFaceTables[] = {table_of(kSegmentFaces), table_of(kTriangleFaces),
                                     table_of(kQuadFaces),    table_of(kTetraFaces),
                                     table_of(kHexaFaces),    table_of(kPrismFaces),
                                     table_of(kPyramidFaces)};

/// The row of the cell-type table; an internal error for a value that is no CellType.
CellTypeInfo checked_info(CellType t) {
    const CellTypeInfo info = cell_type_info(t);
    UGKS_REQUIRE(info.n_nodes > 0, "unknown cell type " << static_cast<int>(t));
    return info;
}

FaceTable face_table(CellType t) {
    checked_info(t);
    return kFaceTables[static_cast<int>(t) - 1];
}

Vec3 sub(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec3 cross(const Vec3& a, const Vec3& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
double norm(const Vec3& a) { return std::sqrt(dot(a, a)); }

// Face key: sorted node list padded with -1 (faces have at most 4 nodes).
using FaceKey = std::array<index_t, 4>;
FaceKey make_key(const index_t* nodes, int n) {
    FaceKey k{-1, -1, -1, -1};
    // Insertion sort: n <= 4 (std::sort here trips a false -Warray-bounds in GCC 12).
    for (int i = 0; i < n; ++i) {
        int j = i;
        for (; j > 0 && k[j - 1] > nodes[i]; --j) k[j] = k[j - 1];
        k[j] = nodes[i];
    }
    return k;
}

std::string fmt_point(const Vec3& p) {
    std::ostringstream os;
    os.precision(6);
    os << "(" << p[0] << ", " << p[1] << ", " << p[2] << ")";
    return os.str();
}

// Node numbers as the file names them (`label`: a reader's node numbers) or, without labels, the
// 0-based mesh index.
std::string fmt_nodes(const index_t* nodes, std::size_t n, const std::vector<index_t>& label = {}) {
    std::ostringstream os;
    os << "[";
    for (std::size_t i = 0; i < n; ++i) {
        const index_t v = nodes[i];
        const bool labelled = v >= 0 && static_cast<std::size_t>(v) < label.size();
        os << (i ? ", " : "") << (labelled ? label[static_cast<std::size_t>(v)] : v);
    }
    os << "]";
    return os.str();
}

Vec3 mean_point(const Mesh& m, const index_t* nodes, std::size_t n) {
    Vec3 c{0, 0, 0};
    for (std::size_t i = 0; i < n; ++i) {
        for (int d = 0; d < 3; ++d) c[d] += m.nodes[nodes[i]][d];
    }
    for (int d = 0; d < 3; ++d) c[d] /= static_cast<double>(n);
    return c;
}

// Geometry of one face from its ordered nodes. 3D: fan of triangles from the node mean, so that the
// face is the same surface for both cells and the vector areas of a closed cell cancel exactly.
void face_geometry(const Mesh& m, const index_t* nodes, int n, Vec3& normal, Vec3& centroid,
                   double& area) {
    if (m.dim == 1) {
        normal = {0, 0, 0};  // sign set by the caller from the local face number
        centroid = m.nodes[nodes[0]];
        area = 1.0;
        return;
    }
    if (m.dim == 2) {
        const Vec3& a = m.nodes[nodes[0]];
        const Vec3& b = m.nodes[nodes[1]];
        const double dx = b[0] - a[0], dy = b[1] - a[1];
        area = std::sqrt(dx * dx + dy * dy);
        normal = area > 0 ? Vec3{dy / area, -dx / area, 0.0} : Vec3{0, 0, 0};
        centroid = {0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.0};
        return;
    }
    const Vec3 fc = mean_point(m, nodes, static_cast<std::size_t>(n));
    Vec3 s{0, 0, 0}, c{0, 0, 0};
    double wsum = 0;
    for (int i = 0; i < n; ++i) {
        const Vec3& p = m.nodes[nodes[i]];
        const Vec3& q = m.nodes[nodes[(i + 1) % n]];
        const Vec3 st = cross(sub(p, fc), sub(q, fc));  // twice the triangle's vector area
        const double w = norm(st);
        for (int d = 0; d < 3; ++d) {
            s[d] += 0.5 * st[d];
            c[d] += w * (fc[d] + p[d] + q[d]) / 3.0;
        }
        wsum += w;
    }
    area = norm(s);
    normal = area > 0 ? Vec3{s[0] / area, s[1] / area, s[2] / area} : Vec3{0, 0, 0};
    centroid = wsum > 0 ? Vec3{c[0] / wsum, c[1] / wsum, c[2] / wsum} : fc;
}

// Signed volume and centroid of a cell from its own (outward-ordered) local faces.
void cell_geometry(const Mesh& m, index_t c, double& volume, Vec3& centroid) {
    const CellType t = m.cell_type[c];
    const index_t* cn = m.cell_nodes.data() + m.cell_node_offsets[c];
    const int nn = cell_num_nodes(t);
    if (m.dim == 1) {
        volume = m.nodes[cn[1]][0] - m.nodes[cn[0]][0];
        centroid = {0.5 * (m.nodes[cn[0]][0] + m.nodes[cn[1]][0]), 0.0, 0.0};
        return;
    }
    if (m.dim == 2) {
        // Shoelace about the first node (smaller round-off than about the origin).
        const Vec3& o = m.nodes[cn[0]];
        double a2 = 0, cx = 0, cy = 0;
        for (int i = 1; i + 1 < nn; ++i) {
            const Vec3 p = sub(m.nodes[cn[i]], o);
            const Vec3 q = sub(m.nodes[cn[i + 1]], o);
            const double w = p[0] * q[1] - q[0] * p[1];
            a2 += w;
            cx += w * (p[0] + q[0]) / 3.0;
            cy += w * (p[1] + q[1]) / 3.0;
        }
        volume = 0.5 * a2;
        centroid = a2 != 0 ? Vec3{o[0] + cx / a2, o[1] + cy / a2, 0.0}
                           : mean_point(m, cn, static_cast<std::size_t>(nn));
        return;
    }
    // 3D: tetrahedra from the node mean x0 to each triangle of each face's fan.
    const Vec3 x0 = mean_point(m, cn, static_cast<std::size_t>(nn));
    const FaceTable ft = face_table(t);
    double v6 = 0;
    Vec3 cs{0, 0, 0};
    for (int f = 0; f < ft.n; ++f) {
        const LocalFace& lf = ft.faces[f];
        index_t fn[4];
        for (int i = 0; i < lf.n; ++i) fn[i] = cn[lf.nodes[i]];
        const Vec3 fc = mean_point(m, fn, static_cast<std::size_t>(lf.n));
        for (int i = 0; i < lf.n; ++i) {
            const Vec3& p = m.nodes[fn[i]];
            const Vec3& q = m.nodes[fn[(i + 1) % lf.n]];
            const double w = dot(cross(sub(p, fc), sub(q, fc)), sub(fc, x0));  // 6 * tet volume
            v6 += w;
            for (int d = 0; d < 3; ++d) cs[d] += w * (x0[d] + fc[d] + p[d] + q[d]) / 4.0;
        }
    }
    volume = v6 / 6.0;
    centroid = v6 != 0 ? Vec3{cs[0] / v6, cs[1] / v6, cs[2] / v6} : x0;
}

}  // namespace

int cell_dimension(CellType t) { return checked_info(t).dim; }

int cell_num_nodes(CellType t) { return checked_info(t).n_nodes; }

const char* cell_type_name(CellType t) { return cell_type_info(t).name; }

int cell_num_faces(CellType t) { return face_table(t).n; }

LocalFace cell_local_face(CellType t, int f) {
    const FaceTable ft = face_table(t);
    UGKS_REQUIRE(f >= 0 && f < ft.n, "local face " << f << " of a " << cell_type_name(t));
    return ft.faces[f];
}

int Mesh::patch_index(const std::string& name) const {
    for (std::size_t i = 0; i < patch_names.size(); ++i) {
        if (patch_names[i] == name) return static_cast<int>(i);
    }
    return -1;
}

index_t orient_cells_2d(Mesh& mesh) {
    if (mesh.dim != 2) return 0;
    index_t flipped = 0;
    for (index_t c = 0; c < mesh.n_cells(); ++c) {
        index_t* cn = mesh.cell_nodes.data() + mesh.cell_node_offsets[c];
        const int nn = cell_num_nodes(mesh.cell_type[c]);
        double a2 = 0;
        for (int i = 0; i < nn; ++i) {
            const Vec3& p = mesh.nodes[cn[i]];
            const Vec3& q = mesh.nodes[cn[(i + 1) % nn]];
            a2 += p[0] * q[1] - q[0] * p[1];
        }
        if (a2 < 0) {
            std::reverse(cn + 1, cn + nn);  // keeps node 0, reverses the cycle
            ++flipped;
        }
    }
    return flipped;
}

void build_faces_and_geometry(Mesh& mesh, const std::vector<BoundaryFaceSpec>& boundary_faces,
                              const std::string& source, const std::vector<index_t>& node_label) {
    if (mesh.dim < 1 || mesh.dim > 3) UGKS_INPUT_ERROR(source << ": mesh dimension " << mesh.dim);
    const index_t nc = mesh.n_cells();
    const index_t nn = mesh.n_nodes();
    if (static_cast<index_t>(mesh.cell_node_offsets.size()) != nc + 1) {
        UGKS_INPUT_ERROR(source << ": cell connectivity has " << mesh.cell_node_offsets.size() - 1
                                << " offsets for " << nc << " cells");
    }
    for (index_t c = 0; c < nc; ++c) {
        const CellType t = mesh.cell_type[c];
        const index_t b = mesh.cell_node_offsets[c], e = mesh.cell_node_offsets[c + 1];
        if (cell_dimension(t) != mesh.dim) {
            UGKS_INPUT_ERROR(source << ": cell " << c << " is a " << cell_type_name(t) << " in a "
                                    << mesh.dim << "D mesh");
        }
        if (e - b != cell_num_nodes(t)) {
            UGKS_INPUT_ERROR(source << ": cell " << c << " (" << cell_type_name(t) << ") has "
                                    << e - b << " nodes, expected " << cell_num_nodes(t));
        }
        for (index_t k = b; k < e; ++k) {
            if (mesh.cell_nodes[k] < 0 || mesh.cell_nodes[k] >= nn) {
                UGKS_INPUT_ERROR(source << ": cell " << c << " refers to node "
                                        << mesh.cell_nodes[k] << ", but the mesh has " << nn
                                        << " nodes");
            }
        }
    }

    // Every local face (cell c, face f) is bucketed by its smallest node (CSR), so matching the two
    // sides of a face scans only the few faces around one node; no hash map, linear in the mesh
    // size.
    mesh.cell_face_offsets.assign(static_cast<std::size_t>(nc) + 1, 0);
    for (index_t c = 0; c < nc; ++c) {
        mesh.cell_face_offsets[c + 1] =
            mesh.cell_face_offsets[c] + cell_num_faces(mesh.cell_type[c]);
    }
    const index_t n_local = mesh.cell_face_offsets[nc];
    const auto local_key = [&mesh](index_t c, int f) {
        const LocalFace& lf = face_table(mesh.cell_type[c]).faces[f];
        const index_t* cn = mesh.cell_nodes.data() + mesh.cell_node_offsets[c];
        index_t fn[4];
        for (int i = 0; i < lf.n; ++i) fn[i] = cn[lf.nodes[i]];
        return make_key(fn, lf.n);
    };
    std::vector<index_t> bucket_offsets(static_cast<std::size_t>(nn) + 1, 0);
    for (index_t c = 0; c < nc; ++c) {
        for (int f = 0; f < cell_num_faces(mesh.cell_type[c]); ++f)
            ++bucket_offsets[local_key(c, f)[0] + 1];
    }
    for (index_t v = 0; v < nn; ++v) bucket_offsets[v + 1] += bucket_offsets[v];
    std::vector<index_t> bucket(static_cast<std::size_t>(n_local));  // entries c * 8 + f, by cell
    {
        std::vector<index_t> fill(bucket_offsets.begin(), bucket_offsets.end() - 1);
        for (index_t c = 0; c < nc; ++c) {
            for (int f = 0; f < cell_num_faces(mesh.cell_type[c]); ++f) {
                bucket[fill[local_key(c, f)[0]]++] = c * 8 + f;
            }
        }
    }

    // Faces in order of first appearance: the owner is the lower cell index and keeps its ordering.
    mesh.face_node_offsets.assign(1, 0);
    mesh.face_nodes.clear();
    mesh.face_owner.clear();
    mesh.face_neighbour.clear();
    mesh.cell_faces.assign(static_cast<std::size_t>(n_local), -1);
    for (index_t c = 0; c < nc; ++c) {
        const index_t* cn = mesh.cell_nodes.data() + mesh.cell_node_offsets[c];
        const FaceTable ft = face_table(mesh.cell_type[c]);
        for (int f = 0; f < ft.n; ++f) {
            if (mesh.cell_faces[mesh.cell_face_offsets[c] + f] >= 0)
                continue;  // seen from its owner
            const LocalFace& lf = ft.faces[f];
            index_t fn[4];
            for (int i = 0; i < lf.n; ++i) fn[i] = cn[lf.nodes[i]];
            const index_t g = mesh.n_faces();
            mesh.face_nodes.insert(mesh.face_nodes.end(), fn, fn + lf.n);
            mesh.face_node_offsets.push_back(static_cast<index_t>(mesh.face_nodes.size()));
            mesh.face_owner.push_back(c);
            mesh.face_neighbour.push_back(-1);
            mesh.cell_faces[mesh.cell_face_offsets[c] + f] = g;
            const FaceKey key = make_key(fn, lf.n);
            for (index_t k = bucket_offsets[key[0]]; k < bucket_offsets[key[0] + 1]; ++k) {
                const index_t c2 = bucket[k] / 8;
                const int f2 = static_cast<int>(bucket[k] % 8);
                if ((c2 == c && f2 == f) || local_key(c2, f2) != key) continue;
                if (c2 == c) {
                    UGKS_INPUT_ERROR(source
                                     << ": face with nodes " << fmt_nodes(fn, lf.n, node_label)
                                     << " at " << fmt_point(mean_point(mesh, fn, lf.n))
                                     << " appears twice in cell " << c << " (degenerate element)");
                }
                if (mesh.face_neighbour[g] >= 0) {
                    UGKS_INPUT_ERROR(source
                                     << ": face with nodes " << fmt_nodes(fn, lf.n, node_label)
                                     << " at " << fmt_point(mean_point(mesh, fn, lf.n))
                                     << " is shared by more than two cells (cells " << c << ", "
                                     << mesh.face_neighbour[g] << ", " << c2 << ")");
                }
                mesh.face_neighbour[g] = c2;
                mesh.cell_faces[mesh.cell_face_offsets[c2] + f2] = g;
            }
        }
    }
    const auto find_face = [&](const FaceKey& key) -> index_t {
        for (index_t k = bucket_offsets[key[0]]; k < bucket_offsets[key[0] + 1]; ++k) {
            const index_t c2 = bucket[k] / 8;
            const int f2 = static_cast<int>(bucket[k] % 8);
            if (local_key(c2, f2) == key) return mesh.cell_faces[mesh.cell_face_offsets[c2] + f2];
        }
        return -1;
    };

    // Patches of boundary faces from the tagged node sets.
    const index_t nf = mesh.n_faces();
    const int n_patches = static_cast<int>(mesh.patch_names.size());
    mesh.face_patch.assign(static_cast<std::size_t>(nf), -1);
    for (const BoundaryFaceSpec& bf : boundary_faces) {
        const std::size_t n = bf.nodes.size();
        if (bf.patch < 0 || bf.patch >= n_patches) {
            UGKS_INPUT_ERROR(source << ": boundary face with nodes "
                                    << fmt_nodes(bf.nodes.data(), n, node_label)
                                    << " has patch index " << bf.patch << ", but the mesh has "
                                    << n_patches << " patches");
        }
        bool valid = n >= 1 && n <= 4;
        for (index_t v : bf.nodes) valid = valid && v >= 0 && v < nn;
        const index_t g = valid ? find_face(make_key(bf.nodes.data(), static_cast<int>(n))) : -1;
        if (g < 0) {
            UGKS_INPUT_ERROR(source << ": boundary face with nodes "
                                    << fmt_nodes(bf.nodes.data(), n, node_label) << " of patch '"
                                    << mesh.patch_names[bf.patch] << "' is not a face of any cell");
        }
        if (mesh.face_neighbour[g] >= 0) continue;  // a tagged interior surface is not a boundary
        const int old = mesh.face_patch[g];
        if (old >= 0 && old != bf.patch) {
            UGKS_INPUT_ERROR(source << ": boundary face with nodes "
                                    << fmt_nodes(bf.nodes.data(), n, node_label)
                                    << " belongs to two patches, '" << mesh.patch_names[old]
                                    << "' and '" << mesh.patch_names[bf.patch] << "'");
        }
        mesh.face_patch[g] = bf.patch;
    }

    mesh.face_normal.resize(static_cast<std::size_t>(nf));
    mesh.face_centroid.resize(static_cast<std::size_t>(nf));
    mesh.face_area.resize(static_cast<std::size_t>(nf));
    for (index_t g = 0; g < nf; ++g) {
        const index_t* gn = mesh.face_nodes.data() + mesh.face_node_offsets[g];
        const int n = static_cast<int>(mesh.face_node_offsets[g + 1] - mesh.face_node_offsets[g]);
        face_geometry(mesh, gn, n, mesh.face_normal[g], mesh.face_centroid[g], mesh.face_area[g]);
        if (mesh.face_neighbour[g] < 0 && mesh.face_patch[g] < 0) {
            UGKS_INPUT_ERROR(source << ": boundary face with nodes " << fmt_nodes(gn, n, node_label)
                                    << " at " << fmt_point(mesh.face_centroid[g])
                                    << " belongs to no boundary patch");
        }
    }
    if (mesh.dim == 1) {
        // The owner's local face number fixes the direction: node 0 -> -x, node 1 -> +x.
        for (index_t c = 0; c < nc; ++c) {
            for (int f = 0; f < 2; ++f) {
                const index_t g = mesh.cell_faces[mesh.cell_face_offsets[c] + f];
                if (mesh.face_owner[g] == c) mesh.face_normal[g] = {f == 0 ? -1.0 : 1.0, 0.0, 0.0};
            }
        }
    }

    mesh.cell_volume.resize(static_cast<std::size_t>(nc));
    mesh.cell_centroid.resize(static_cast<std::size_t>(nc));
    for (index_t c = 0; c < nc; ++c)
        cell_geometry(mesh, c, mesh.cell_volume[c], mesh.cell_centroid[c]);
}

void validate_mesh(const Mesh& mesh, const std::string& source) {
    for (index_t g = 0; g < mesh.n_faces(); ++g) {
        if (!(mesh.face_area[g] > 0)) {
            const index_t* gn = mesh.face_nodes.data() + mesh.face_node_offsets[g];
            UGKS_INPUT_ERROR(
                source << ": face " << g << " with nodes "
                       << fmt_nodes(gn, mesh.face_node_offsets[g + 1] - mesh.face_node_offsets[g])
                       << " at " << fmt_point(mesh.face_centroid[g])
                       << " has zero area (degenerate element)");
        }
    }
    for (index_t c = 0; c < mesh.n_cells(); ++c) {
        const double v = mesh.cell_volume[c];
        const Vec3& xc = mesh.cell_centroid[c];
        if (!(v > 0)) {
            UGKS_INPUT_ERROR(source << ": cell " << c << " at " << fmt_point(xc)
                                    << " has non-positive volume " << v
                                    << " (inverted or degenerate element)");
        }
        Vec3 s{0, 0, 0};
        double s_total = 0;
        for (index_t k = mesh.cell_face_offsets[c]; k < mesh.cell_face_offsets[c + 1]; ++k) {
            const index_t g = mesh.cell_faces[k];
            const double sigma = mesh.face_owner[g] == c ? 1.0 : -1.0;
            const Vec3& n = mesh.face_normal[g];
            for (int d = 0; d < 3; ++d) s[d] += sigma * mesh.face_area[g] * n[d];
            s_total += mesh.face_area[g];
            // The neighbour of a periodic face sees the face at its own side: x_f - shift.
            Vec3 xf = mesh.face_centroid[g];
            if (sigma < 0 && !mesh.face_shift.empty())
                for (int d = 0; d < 3; ++d) xf[d] -= mesh.face_shift[g][d];
            if (!(sigma * dot(n, sub(xf, xc)) > 0)) {
                UGKS_INPUT_ERROR(source << ": cell " << c << " at " << fmt_point(xc)
                                        << ": the normal of face " << g << " at "
                                        << fmt_point(mesh.face_centroid[g])
                                        << " does not point out of the cell (inverted, twisted or "
                                           "non-convex element)");
            }
        }
        if (!(norm(s) <= 1e-10 * s_total)) {
            UGKS_INPUT_ERROR(source << ": cell " << c << " at " << fmt_point(xc)
                                    << " is not closed: |sum of face area vectors| = " << norm(s)
                                    << " exceeds 1e-10 * total face area " << s_total);
        }
    }
}

void check_patches(const Mesh& mesh, const std::vector<std::string>& case_patches,
                   const std::string& source) {
    const std::set<std::string> in_case(case_patches.begin(), case_patches.end());
    const std::set<std::string> in_mesh(mesh.patch_names.begin(), mesh.patch_names.end());
    std::vector<std::string> missing, unused;
    for (const std::string& p : case_patches) {
        if (!in_mesh.count(p) && std::find(missing.begin(), missing.end(), p) == missing.end()) {
            missing.push_back(p);
        }
    }
    for (const std::string& p : mesh.patch_names) {
        if (!in_case.count(p)) unused.push_back(p);
    }
    if (missing.empty() && unused.empty()) return;
    const auto list = [](const std::vector<std::string>& v) {
        std::string s;
        for (const std::string& p : v) s += (s.empty() ? "'" : ", '") + p + "'";
        return s.empty() ? std::string("(none)") : s;
    };
    std::ostringstream os;
    os << source << ": boundary patches of the case and of the mesh differ";
    if (!missing.empty()) os << "; in the case but not in the mesh: " << list(missing);
    if (!unused.empty()) os << "; in the mesh but not in the case: " << list(unused);
    os << " (mesh patches: " << list(mesh.patch_names) << ")";
    throw InputError(os.str());
}

bool is_patch_pattern(const std::string& key) {
    return key.find_first_of("*?[") != std::string::npos;
}

namespace {
// A bracket expression at p (p[0] == '['): whether it is well formed, its end (past ']') and
// whether c is in it.
bool bracket(const char* p, char c, const char** end, bool* in) {
    const char* q = p + 1;
    const bool negate = *q == '!' || *q == '^';
    if (negate) ++q;
    bool hit = false;
    bool first = true;
    while (*q && (*q != ']' || first)) {
        first = false;
        char lo = *q;
        if (lo == '\\' && q[1]) lo = *++q;
        char hi = lo;
        if (q[1] == '-' && q[2] && q[2] != ']') {
            q += 2;
            hi = *q;
            if (hi == '\\' && q[1]) hi = *++q;
        }
        if (lo <= c && c <= hi) hit = true;
        ++q;
    }
    if (*q != ']') return false;  // no closing bracket: a literal '['
    *end = q + 1;
    *in = hit != negate;
    return true;
}

bool glob(const char* p, const char* s) {
    while (*p) {
        if (*p == '*') {
            while (*p == '*') ++p;
            if (!*p) return true;
            for (; *s; ++s)
                if (glob(p, s)) return true;
            return false;
        }
        if (*p == '?') {
            if (!*s) return false;
            ++p, ++s;
            continue;
        }
        if (*p == '[') {
            const char* end = nullptr;
            bool in = false;
            if (*s && bracket(p, *s, &end, &in)) {
                if (!in) return false;
                p = end, ++s;
                continue;
            }
            if (!*s) return false;
            // a '[' without ']' matches itself
        }
        if (*p == '\\' && p[1]) ++p;
        if (*p != *s) return false;
        ++p, ++s;
    }
    return !*s;
}
}  // namespace

bool patch_pattern_match(const std::string& pattern, const std::string& name) {
    return glob(pattern.c_str(), name.c_str());
}

}  // namespace ugks
