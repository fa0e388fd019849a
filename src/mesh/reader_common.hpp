#pragma once
// Internal helpers shared by the mesh file readers (gmsh_reader.cpp, cgns_reader.cpp).
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ugks/core/error.hpp"
#include "ugks/mesh/mesh.hpp"

namespace ugks::detail {

/// Raw mesh as read from a file: nodes (possibly unused ones), cells indexing them, tagged boundary
/// faces.
struct RawMesh {
    int dim = 0;
    std::vector<Vec3> nodes;
    std::vector<CellType> cell_type;
    std::vector<index_t> cell_node_offsets{0};
    std::vector<index_t> cell_nodes;
    std::vector<BoundaryFaceSpec> faces;
    std::vector<std::string> patch_names;
    /// Name of node i in messages (file tag); empty -> 1-based index.
    std::vector<index_t> node_label;

    index_t label(index_t i) const {
        return node_label.empty() ? i + 1 : node_label[static_cast<std::size_t>(i)];
    }
};

/// A number for messages: up to 10 significant digits, no trailing zeros.
inline std::string num(double v) {
    std::ostringstream os;
    os.precision(10);
    os << v;
    return os.str();
}

inline double det3(const Vec3& a, const Vec3& b, const Vec3& c) {
    return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
           a[2] * (b[0] * c[1] - b[1] * c[0]);
}

inline Vec3 sub(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }

/// Signed measure of a cell's orientation: positive for the Gmsh/CGNS right-handed node order.
/// 3D: triple product at corner 0 along its three edges; 2D: shoelace area; 1D: x1 - x0.
inline double orientation(CellType t, const index_t* c, const std::vector<Vec3>& x) {
    auto p = [&](int k) -> const Vec3& { return x[static_cast<std::size_t>(c[k])]; };
    switch (t) {
        case CellType::Segment:
            return p(1)[0] - p(0)[0];
        case CellType::Triangle:
        case CellType::Quad: {
            const int n = cell_type_info(t).n_nodes;
            double a = 0;
            for (int k = 0; k < n; ++k) {
                const Vec3& u = p(k);
                const Vec3& v = p((k + 1) % n);
                a += u[0] * v[1] - v[0] * u[1];
            }
            return a;
        }
        case CellType::Tetra:
        case CellType::Prism:
            return det3(sub(p(1), p(0)), sub(p(2), p(0)), sub(p(3), p(0)));
        case CellType::Hexa:
        case CellType::Pyramid:
            return det3(sub(p(1), p(0)), sub(p(3), p(0)), sub(p(4), p(0)));
    }
    return 0;
}

/// Mirror the node order of a cell (keeps corner 0), turning a left-handed cell into a right-handed
/// one: the swaps of local nodes that do it, in CellType order (a pair of -1: none).
inline constexpr int kMirrorSwaps[][2][2] = {
    {{0, 1}, {-1, -1}},  // segment
    {{1, 2}, {-1, -1}},  // triangle
    {{1, 3}, {-1, -1}},  // quad
    {{1, 2}, {-1, -1}},  // tetra
    {{1, 3}, {5, 7}},    // hexa
    {{1, 2}, {4, 5}},    // prism
    {{1, 3}, {-1, -1}},  // pyramid
};

inline void flip_cell(CellType t, index_t* c) {
    for (const auto& s : kMirrorSwaps[static_cast<int>(t) - 1])
        if (s[0] >= 0) std::swap(c[s[0]], c[s[1]]);
}

/// Turn a RawMesh into a Mesh: drop nodes no cell uses (renumbering in file order), scale, check
/// that a 2D mesh lies in z = 0 (1D: on the x axis), give every cell the right-handed node order (a
/// 2D surface meshed with its normal along -z gives clockwise cells), then build faces and
/// geometry. Errors name `source` and nodes by their file numbers (RawMesh::label). Returns the
/// number of cells whose node order was mirrored in
/// `*flipped`.
inline Mesh finish_raw_mesh(RawMesh&& raw, double scale, const std::string& source,
                            index_t* flipped = nullptr) {
    if (!(scale > 0) || !std::isfinite(scale))
        UGKS_INPUT_ERROR(source << ": mesh scale must be a positive number, got " << scale);
    const index_t n_raw = static_cast<index_t>(raw.nodes.size());
    std::vector<index_t> new_index(raw.nodes.size(), -1);
    for (index_t v : raw.cell_nodes) new_index[static_cast<std::size_t>(v)] = 0;
    Mesh m;
    m.dim = raw.dim;
    index_t n_used = 0;
    std::vector<index_t> label;  // file node number of each kept node, for messages
    for (index_t i = 0; i < n_raw; ++i) {
        if (new_index[static_cast<std::size_t>(i)] < 0) continue;
        new_index[static_cast<std::size_t>(i)] = n_used++;
        label.push_back(raw.label(i));
        const Vec3& p = raw.nodes[static_cast<std::size_t>(i)];
        m.nodes.push_back({p[0] * scale, p[1] * scale, p[2] * scale});
    }

    // Planarity: relative to the size of the mesh (Gmsh writes 16 significant digits).
    Vec3 lo = m.nodes.empty() ? Vec3{0, 0, 0} : m.nodes[0], hi = lo;
    for (const Vec3& p : m.nodes)
        for (int d = 0; d < 3; ++d) lo[d] = std::min(lo[d], p[d]), hi[d] = std::max(hi[d], p[d]);
    const double size = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
    const double tol = 1e-10 * size;
    if (m.dim < 3) {
        for (index_t i = 0; i < n_raw; ++i) {
            const index_t k = new_index[static_cast<std::size_t>(i)];
            if (k < 0) continue;
            Vec3& p = m.nodes[static_cast<std::size_t>(k)];
            for (int d = m.dim; d < 3; ++d) {
                if (std::abs(p[d]) > tol) {
                    UGKS_INPUT_ERROR(source << ": a " << m.dim << "D mesh must lie "
                                            << (m.dim == 2 ? "in the plane z = 0" : "on the x axis")
                                            << ", but node " << raw.label(i) << " has "
                                            << "xyz"[d] << " = " << p[d]);
                }
                p[d] = 0.0;
            }
        }
    }

    m.cell_type = std::move(raw.cell_type);
    m.cell_node_offsets = std::move(raw.cell_node_offsets);
    m.cell_nodes = std::move(raw.cell_nodes);
    for (index_t& v : m.cell_nodes) v = new_index[static_cast<std::size_t>(v)];
    index_t n_flip = 0;
    for (std::size_t c = 0; c < m.cell_type.size(); ++c) {
        index_t* cn = m.cell_nodes.data() + m.cell_node_offsets[c];
        if (orientation(m.cell_type[c], cn, m.nodes) < 0) {
            flip_cell(m.cell_type[c], cn);
            ++n_flip;
        }
    }
    if (flipped) *flipped = n_flip;

    for (BoundaryFaceSpec& f : raw.faces) {
        for (index_t& v : f.nodes) {
            const index_t k = new_index[static_cast<std::size_t>(v)];
            if (k < 0) {
                UGKS_INPUT_ERROR(source << ": boundary face of patch '"
                                        << raw.patch_names[static_cast<std::size_t>(f.patch)]
                                        << "' uses node " << raw.label(v)
                                        << ", which belongs to no cell");
            }
            v = k;
        }
    }
    m.patch_names = std::move(raw.patch_names);
    build_faces_and_geometry(m, raw.faces, source, label);
    return m;
}

}  // namespace ugks::detail
