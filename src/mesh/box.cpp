#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "ugks/core/error.hpp"
#include "ugks/mesh/sources.hpp"

namespace ugks {

namespace {

// Node coordinates along one axis: sizes in geometric progression (ratio r), or with `symmetric`
// the progression runs from both ends towards the middle, so r > 1 refines towards both ends.
std::vector<double> axis_nodes(index_t n, double lo, double hi, double r, bool symmetric) {
    std::vector<double> w(static_cast<std::size_t>(n));
    double sum = 0;
    for (index_t i = 0; i < n; ++i) {
        const index_t e = symmetric ? std::min(i, n - 1 - i) : i;
        w[i] = std::pow(r, static_cast<double>(e));
        sum += w[i];
    }
    std::vector<double> x(static_cast<std::size_t>(n + 1));
    double acc = 0;
    x[0] = lo;
    for (index_t i = 0; i < n; ++i) {
        acc += w[i];
        x[i + 1] = lo + (hi - lo) * (acc / sum);
    }
    x[n] = hi;
    return x;
}

}  // namespace

Mesh make_box(const BoxSpec& spec) {
    const int dim = spec.dim;
    if (dim < 1 || dim > 3) UGKS_INPUT_ERROR("mesh.box: dim must be 1, 2 or 3, got " << dim);
    std::string type = spec.cell_type;
    if (type.empty()) type = dim == 1 ? "segment" : dim == 2 ? "quad" : "hexa";
    const bool type_ok =
        (dim == 1 && type == "segment") || (dim == 2 && (type == "quad" || type == "triangle")) ||
        (dim == 3 && (type == "hexa" || type == "tetra" || type == "prism" || type == "pyramid"));
    if (!type_ok) {
        UGKS_INPUT_ERROR("mesh.box: cell_type '" << type << "' is not available in " << dim
                                                 << "D (1D: segment; 2D: quad, triangle; 3D: hexa, "
                                                    "tetra, prism, pyramid)");
    }
    std::array<index_t, 3> n{1, 1, 1};
    std::array<std::vector<double>, 3> x;
    for (int d = 0; d < 3; ++d) {
        if (d >= dim) {
            x[d] = {0.0};
            n[d] = 0;  // no cells along an unused axis; the nodes sit at 0
            continue;
        }
        n[d] = spec.n[d];
        if (n[d] < 1)
            UGKS_INPUT_ERROR("mesh.box: cells[" << d << "] = " << n[d] << " must be >= 1");
        if (!(spec.hi[d] > spec.lo[d])) {
            UGKS_INPUT_ERROR("mesh.box: hi[" << d << "] = " << spec.hi[d]
                                             << " must be greater than lo[" << d
                                             << "] = " << spec.lo[d]);
        }
        if (!(spec.stretch[d] > 0) || !std::isfinite(spec.stretch[d])) {
            UGKS_INPUT_ERROR("mesh.box: stretch[" << d << "] = " << spec.stretch[d]
                                                  << " must be positive");
        }
        x[d] = axis_nodes(n[d], spec.lo[d], spec.hi[d], spec.stretch[d], spec.stretch_symmetric);
    }

    Mesh m;
    m.dim = dim;
    const index_t sx = n[0] + 1, sy = dim >= 2 ? n[1] + 1 : 1, sz = dim >= 3 ? n[2] + 1 : 1;
    m.nodes.reserve(static_cast<std::size_t>(sx * sy * sz));
    for (index_t k = 0; k < sz; ++k) {
        for (index_t j = 0; j < sy; ++j) {
            for (index_t i = 0; i < sx; ++i) m.nodes.push_back({x[0][i], x[1][j], x[2][k]});
        }
    }
    const auto node = [&](index_t i, index_t j, index_t k) { return i + sx * (j + sy * k); };
    const auto add_cell = [&](CellType t, std::initializer_list<index_t> nodes) {
        m.cell_type.push_back(t);
        m.cell_nodes.insert(m.cell_nodes.end(), nodes);
        m.cell_node_offsets.push_back(static_cast<index_t>(m.cell_nodes.size()));
    };

    const index_t cx = n[0], cy = dim >= 2 ? n[1] : 1, cz = dim >= 3 ? n[2] : 1;
    for (index_t k = 0; k < cz; ++k) {
        for (index_t j = 0; j < cy; ++j) {
            for (index_t i = 0; i < cx; ++i) {
                if (dim == 1) {
                    add_cell(CellType::Segment, {i, i + 1});
                    continue;
                }
                if (dim == 2) {
                    const index_t a = node(i, j, 0), b = node(i + 1, j, 0),
                                  c = node(i + 1, j + 1, 0), d = node(i, j + 1, 0);
                    if (type == "quad") {
                        add_cell(CellType::Quad, {a, b, c, d});
                    } else {
                        add_cell(CellType::Triangle, {a, b, c});
                        add_cell(CellType::Triangle, {a, c, d});
                    }
                    continue;
                }
                // Hexahedron corners in Gmsh order.
                const index_t v[8] = {node(i, j, k),
                                      node(i + 1, j, k),
                                      node(i + 1, j + 1, k),
                                      node(i, j + 1, k),
                                      node(i, j, k + 1),
                                      node(i + 1, j, k + 1),
                                      node(i + 1, j + 1, k + 1),
                                      node(i, j + 1, k + 1)};
                if (type == "hexa") {
                    add_cell(CellType::Hexa, {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]});
                } else if (type == "tetra") {
                    // Six tetrahedra around the diagonal v0-v6: every hex face is cut by the
                    // diagonal through its (i,j,k)-lowest or -highest corner, so neighbouring hexes
                    // conform.
                    add_cell(CellType::Tetra, {v[0], v[1], v[2], v[6]});
                    add_cell(CellType::Tetra, {v[0], v[2], v[3], v[6]});
                    add_cell(CellType::Tetra, {v[0], v[3], v[7], v[6]});
                    add_cell(CellType::Tetra, {v[0], v[7], v[4], v[6]});
                    add_cell(CellType::Tetra, {v[0], v[4], v[5], v[6]});
                    add_cell(CellType::Tetra, {v[0], v[5], v[1], v[6]});
                } else if (type == "prism") {
                    // Split across the xy-diagonal v0-v2 (the same on the bottom and top faces).
                    add_cell(CellType::Prism, {v[0], v[1], v[2], v[4], v[5], v[6]});
                    add_cell(CellType::Prism, {v[0], v[2], v[3], v[4], v[6], v[7]});
                } else {
                    // Six pyramids on the hex faces with a shared apex at the hex centre. The base
                    // is the hex face ordered inwards, so the base normal points to the apex.
                    const index_t apex = m.n_nodes();
                    Vec3 centre{0, 0, 0};
                    for (index_t q : v) {
                        for (int d = 0; d < 3; ++d) centre[d] += m.nodes[q][d] / 8.0;
                    }
                    m.nodes.push_back(centre);
                    for (int f = 0; f < 6; ++f) {
                        const LocalFace lf = cell_local_face(CellType::Hexa, f);
                        add_cell(CellType::Pyramid, {v[lf.nodes[0]], v[lf.nodes[3]], v[lf.nodes[2]],
                                                     v[lf.nodes[1]], apex});
                    }
                }
            }
        }
    }

    // Boundary faces: every local face whose nodes all lie on one side of the box. Pyramid apexes
    // are appended after the structured nodes and are never on the boundary.
    static const char* const kSide[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
    for (int s = 0; s < 2 * dim; ++s) m.patch_names.push_back(kSide[s]);
    const index_t n_structured = sx * sy * sz;
    const auto side_mask = [&](index_t q) {
        if (q >= n_structured) return 0u;
        const index_t ijk[3] = {q % sx, (q / sx) % sy, q / (sx * sy)};
        unsigned mask = 0;
        for (int d = 0; d < dim; ++d) {
            if (ijk[d] == 0) mask |= 1u << (2 * d);
            if (ijk[d] == n[d]) mask |= 1u << (2 * d + 1);
        }
        return mask;
    };
    std::vector<BoundaryFaceSpec> boundary;
    for (index_t c = 0; c < m.n_cells(); ++c) {
        const CellType t = m.cell_type[c];
        const index_t* cn = m.cell_nodes.data() + m.cell_node_offsets[c];
        for (int f = 0; f < cell_num_faces(t); ++f) {
            const LocalFace lf = cell_local_face(t, f);
            unsigned mask = ~0u;
            BoundaryFaceSpec bf;
            for (int q = 0; q < lf.n; ++q) {
                bf.nodes.push_back(cn[lf.nodes[q]]);
                mask &= side_mask(cn[lf.nodes[q]]);
            }
            for (int s = 0; s < 2 * dim && mask; ++s) {
                if (mask & (1u << s)) {
                    bf.patch = s;
                    break;
                }
            }
            if (bf.patch >= 0) boundary.push_back(std::move(bf));
        }
    }
    build_faces_and_geometry(m, boundary, "mesh.box");
    return m;
}

}  // namespace ugks
