#pragma once
// Meshes for the overset tests: an annulus of quads (2D body grid with a wall) and box meshes with
// perturbed interior nodes (non-affine elements).
#include <cmath>
#include <random>
#include <vector>

#include "ugks/mesh/mesh.hpp"
#include "ugks/mesh/sources.hpp"

namespace ugks::overset::test {

/// Annulus r0 <= r <= r1 centred at c, nr x nt quads (counter-clockwise); patches "wall" (r0),
/// "outer" (r1).
inline Mesh make_annulus(double r0, double r1, int nr, int nt, Vec3 c = {0, 0, 0}) {
    Mesh m;
    m.dim = 2;
    const double pi = std::acos(-1.0);
    for (int j = 0; j <= nr; ++j)
        for (int i = 0; i < nt; ++i) {
            const double r = r0 + (r1 - r0) * j / nr, t = 2 * pi * i / nt;
            m.nodes.push_back({c[0] + r * std::cos(t), c[1] + r * std::sin(t), 0});
        }
    auto id = [&](int j, int i) { return static_cast<index_t>(j * nt + (i % nt)); };
    for (int j = 0; j < nr; ++j)
        for (int i = 0; i < nt; ++i) {
            m.cell_type.push_back(CellType::Quad);
            for (index_t v : {id(j, i), id(j + 1, i), id(j + 1, i + 1), id(j, i + 1)})
                m.cell_nodes.push_back(v);
            m.cell_node_offsets.push_back(static_cast<index_t>(m.cell_nodes.size()));
        }
    m.patch_names = {"wall", "outer"};
    std::vector<BoundaryFaceSpec> bf;
    for (int i = 0; i < nt; ++i) {
        bf.push_back({{id(0, i), id(0, i + 1)}, 0});
        bf.push_back({{id(nr, i), id(nr, i + 1)}, 1});
    }
    build_faces_and_geometry(m, bf, "annulus");
    return m;
}

/// Box mesh of the given type; interior nodes moved randomly by up to `amp` of the spacing.
inline Mesh perturbed_box(int dim, const std::string& type, int n, double amp, unsigned seed,
                          Vec3 lo = {0, 0, 0}, Vec3 hi = {1, 1, 1}) {
    BoxSpec b;
    b.dim = dim;
    b.n = {n, n, dim == 3 ? n : 1};
    b.lo = lo;
    b.hi = hi;
    b.cell_type = type;
    Mesh m = make_box(b);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-amp, amp);
    for (auto& x : m.nodes) {
        bool interior = true;
        for (int a = 0; a < dim; ++a)
            if (x[a] < lo[a] + 1e-12 || x[a] > hi[a] - 1e-12) interior = false;
        if (!interior) continue;
        for (int a = 0; a < dim; ++a) x[a] += u(rng) * (hi[a] - lo[a]) / n;
    }
    return m;
}

}  // namespace ugks::overset::test
