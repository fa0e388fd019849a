#pragma once
/// Explicit hole cut of the overset assembly (docs/overset.md, "Explicit hole cut";
/// docs/decisions.md, "Overset explicit hole cut"): a node of grid A inside the solid of body B
/// (B != A, a grid whose wall patches form a closed curve or surface) becomes inactive before the
/// classification. Inside test: the nearest point p of B's wall (segments in 2D; triangles in 3D,
/// quads split in two) and the sign of (x - p) . N, where N is the pseudo-normal of the wall
/// feature that holds p (Baerentzen & Aanaes 2005): the face's normal (pointing into B's fluid),
/// the sum of the two faces' normals on an edge, the angle-weighted sum of the incident faces'
/// normals at a vertex (2D: the sum of the two segments' normals). Negative: inside. With these
/// pseudo-normals the sign is right also when p is an edge or a vertex (sharp trailing edges,
/// concave corners), where a face normal can give the wrong one.
///
/// The functions are UGKS_HOST_DEVICE and use only +, -, *, / and sqrt (the angle by a series, no
/// libm call), so the host loops (assembly.cpp) and the kernels (device_kernels.cpp, compiled
/// without FMA contraction) give identical results.
#include <cmath>
#include <cstdint>

#include "ugks/core/types.hpp"
#include "ugks/device/macros.hpp"
#include "ugks/overset/grid_view.hpp"
#include "ugks/overset/kdtree.hpp"

namespace ugks::overset {

/// The wall surface of one body grid as kernels see it (host or device pointers).
struct WallView {
    int dim = 0;
    index_t n_faces = 0;
    /// [n_faces * 3] node ids of the grid: segments (a, b, -1) in 2D, triangles (a, b, c) in 3D,
    /// ordered so that wall_face_normal points into the body grid's fluid
    const index_t* face = nullptr;
    /// [n_faces * 3] 3D: the face across edge e (nodes e and e + 1 mod 3); unused in 2D
    const index_t* adj = nullptr;
    const index_t* node_face_offsets = nullptr;  ///< node -> wall faces (CSR over the grid's nodes)
    const index_t* node_faces = nullptr;
    const double* xyz = nullptr;  ///< the grid's current coordinates [n_nodes * 3]
    KdView tree;                  ///< over the face boxes (2 dim-D points: min.., max..)
};

/// The view of a wall surface's arrays at the coordinates xyz: a WallSurface (overset.hpp), or its
/// copy in device memory (device_kernels.cpp), whose arrays and tree have the same names.
template <class Wall>
WallView wall_view_of(const Wall& s, int dim, index_t n_faces, const double* xyz) {
    WallView w;
    w.dim = dim;
    w.n_faces = n_faces;
    w.face = s.face.data();
    w.adj = s.adj.data();
    w.node_face_offsets = s.node_face_offsets.data();
    w.node_faces = s.node_faces.data();
    w.xyz = xyz;
    w.tree = view(s.tree);
    return w;
}

/// Bounding box of wall face f: box[0..dim) min, [dim..2dim) max.
UGKS_HOST_DEVICE inline void wall_face_box(const WallView& w, index_t f, double* box) {
    const int nv = w.dim == 2 ? 2 : 3;
    for (int v = 0; v < nv; ++v)
        for (int a = 0; a < w.dim; ++a) {
            const double x = w.xyz[w.face[3 * f + v] * 3 + a];
            if (v == 0 || x < box[a]) box[a] = x;
            if (v == 0 || x > box[w.dim + a]) box[w.dim + a] = x;
        }
}

/// Unit normal of wall face f (into the fluid); zero for a degenerate face. 2D: (b - a) turned by
/// -90 degrees; 3D: (b - a) x (c - a).
UGKS_HOST_DEVICE inline void wall_face_normal(const WallView& w, index_t f, double* n) {
    const double* a = w.xyz + 3 * w.face[3 * f];
    const double* b = w.xyz + 3 * w.face[3 * f + 1];
    if (w.dim == 2) {
        n[0] = b[1] - a[1];
        n[1] = a[0] - b[0];
        n[2] = 0.0;
    } else {
        const double* c = w.xyz + 3 * w.face[3 * f + 2];
        const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        n[0] = u[1] * v[2] - u[2] * v[1];
        n[1] = u[2] * v[0] - u[0] * v[2];
        n[2] = u[0] * v[1] - u[1] * v[0];
    }
    const double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int a = 0; a < 3; ++a) n[a] = l > 0 ? n[a] / l : 0.0;
}

/// atan(t) for t >= 0 by two half-angle reductions and a series (|error| ~ 1e-16; no libm call, so
/// the host and the device agree bit for bit).
UGKS_HOST_DEVICE inline double hc_atan(double t) {
    const bool inv = t > 1.0;
    if (inv) t = 1.0 / t;
    t = t / (1.0 + sqrt(1.0 + t * t));  // atan(t) = 2 atan(t / (1 + sqrt(1 + t^2)))
    t = t / (1.0 + sqrt(1.0 + t * t));  // now t <= tan(pi / 16)
    const double t2 = t * t;
    double term = t, s = 0.0;
    for (int k = 0; k < 12; ++k) {
        s += (k % 2 ? -term : term) / (2 * k + 1);
        term *= t2;
    }
    const double a = 4.0 * s;
    return inv ? 1.5707963267948966 - a : a;
}

/// Angle between the vectors u and v (0..pi).
UGKS_HOST_DEVICE inline double hc_angle(const double* u, const double* v) {
    const double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                         u[0] * v[1] - u[1] * v[0]};
    const double y = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    const double x = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    if (x > 0) return hc_atan(y / x);
    if (x < 0) return 3.141592653589793 - hc_atan(y / -x);
    return y > 0 ? 1.5707963267948966 : 0.0;
}

/// Wall features: the face's interior, edge e (3D, nodes e and e + 1 mod 3), vertex v (local).
constexpr int kFeatFace = 0;
constexpr int kFeatEdge = 1;    ///< + e
constexpr int kFeatVertex = 4;  ///< + v

/// Nearest point p of wall face f to x and the feature holding it; returns |x - p|^2.
UGKS_HOST_DEVICE inline double wall_face_closest(const WallView& w, index_t f, const double* x,
                                                 double* p, int* feat) {
    const double* a = w.xyz + 3 * w.face[3 * f];
    const double* b = w.xyz + 3 * w.face[3 * f + 1];
    auto dot = [](const double* u, const double* v) {
        return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    };
    auto set = [&](const double* q, int ft) {
        for (int k = 0; k < 3; ++k) p[k] = q[k];
        *feat = ft;
    };
    const double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double ap[3] = {x[0] - a[0], x[1] - a[1], x[2] - a[2]};
    if (w.dim == 2) {
        const double l2 = dot(ab, ab), s = dot(ab, ap);
        if (s <= 0 || l2 == 0) {
            set(a, kFeatVertex);
        } else if (s >= l2) {
            set(b, kFeatVertex + 1);
        } else {
            const double t = s / l2;
            for (int k = 0; k < 3; ++k) p[k] = a[k] + t * ab[k];
            *feat = kFeatFace;
        }
    } else {  // Ericson, Real-Time Collision Detection, 5.1.5 (Voronoi regions of the triangle)
        const double* c = w.xyz + 3 * w.face[3 * f + 2];
        const double ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        const double bp[3] = {x[0] - b[0], x[1] - b[1], x[2] - b[2]};
        const double cp[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
        const double d1 = dot(ab, ap), d2 = dot(ac, ap);
        const double d3 = dot(ab, bp), d4 = dot(ac, bp);
        const double d5 = dot(ab, cp), d6 = dot(ac, cp);
        const double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
        if (d1 <= 0 && d2 <= 0) {
            set(a, kFeatVertex);
        } else if (d3 >= 0 && d4 <= d3) {
            set(b, kFeatVertex + 1);
        } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
            const double t = d1 / (d1 - d3);
            for (int k = 0; k < 3; ++k) p[k] = a[k] + t * ab[k];
            *feat = kFeatEdge;  // edge 0: a-b
        } else if (d6 >= 0 && d5 <= d6) {
            set(c, kFeatVertex + 2);
        } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
            const double t = d2 / (d2 - d6);
            for (int k = 0; k < 3; ++k) p[k] = a[k] + t * ac[k];
            *feat = kFeatEdge + 2;  // edge 2: c-a
        } else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
            const double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
            for (int k = 0; k < 3; ++k) p[k] = b[k] + t * (c[k] - b[k]);
            *feat = kFeatEdge + 1;  // edge 1: b-c
        } else {
            const double s = va + vb + vc;
            if (s == 0) {  // degenerate triangle: its vertex a
                set(a, kFeatVertex);
            } else {
                const double v = vb / s, t = vc / s;
                for (int k = 0; k < 3; ++k) p[k] = a[k] + ab[k] * v + ac[k] * t;
                *feat = kFeatFace;
            }
        }
    }
    double d = 0;
    for (int k = 0; k < 3; ++k) d += (x[k] - p[k]) * (x[k] - p[k]);
    return d;
}

/// Pseudo-normal of feature `feat` of wall face f (not normalized).
UGKS_HOST_DEVICE inline void wall_pseudo_normal(const WallView& w, index_t f, int feat, double* N) {
    double n[3];
    wall_face_normal(w, f, n);
    if (feat == kFeatFace) {
        for (int a = 0; a < 3; ++a) N[a] = n[a];
    } else if (feat < kFeatVertex) {  // edge: the sum of the two faces' normals
        const index_t g = w.adj[3 * f + (feat - kFeatEdge)];
        double m[3] = {0, 0, 0};
        if (g >= 0) wall_face_normal(w, g, m);
        for (int a = 0; a < 3; ++a) N[a] = n[a] + m[a];
    } else {  // vertex: the incident faces' normals, angle-weighted in 3D, in CSR order
        const index_t v = w.face[3 * f + (feat - kFeatVertex)];
        for (int a = 0; a < 3; ++a) N[a] = 0.0;
        for (index_t j = w.node_face_offsets[v]; j < w.node_face_offsets[v + 1]; ++j) {
            const index_t g = w.node_faces[j];
            double m[3];
            wall_face_normal(w, g, m);
            double alpha = 1.0;
            if (w.dim == 3) {
                int l = 0;
                while (l < 2 && w.face[3 * g + l] != v) ++l;
                const double* xv = w.xyz + 3 * v;
                const double* x1 = w.xyz + 3 * w.face[3 * g + (l + 1) % 3];
                const double* x2 = w.xyz + 3 * w.face[3 * g + (l + 2) % 3];
                const double u1[3] = {x1[0] - xv[0], x1[1] - xv[1], x1[2] - xv[2]};
                const double u2[3] = {x2[0] - xv[0], x2[1] - xv[1], x2[2] - xv[2]};
                alpha = hc_angle(u1, u2);
            }
            for (int a = 0; a < 3; ++a) N[a] += alpha * m[a];
        }
    }
}

/// Nearest wall face of x (smallest distance, ties: smallest face index) by a depth-first search
/// of the face-box tree, pruned by the distance to a node's box (the union of its faces' boxes).
/// Returns the face (-1 for an empty wall), its nearest point p and feature.
UGKS_HOST_DEVICE inline index_t wall_nearest_face(const WallView& w, const double* x, double* p,
                                                  int* feat) {
    const KdView& t = w.tree;
    if (t.n_nodes == 0) return -1;
    const int m = w.dim;
    auto box_d2 = [&](index_t c) {
        double s = 0;
        for (int d = 0; d < m; ++d) {
            const double lo = t.lo[c * t.k + d], hi = t.hi[c * t.k + m + d];
            const double e = x[d] < lo ? lo - x[d] : (x[d] > hi ? x[d] - hi : 0.0);
            s += e * e;
        }
        return s;
    };
    double best = 1.7976931348623157e308;  // DBL_MAX
    index_t best_f = -1;
    index_t stack[kKdMaxDepth * 2];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const index_t c = stack[--top];
        if (box_d2(c) > best) continue;
        const index_t l = t.child[2 * c];
        if (l < 0) {
            for (index_t j = t.begin[c]; j < t.end[c]; ++j) {
                const index_t f = t.perm[j];
                double q[3];
                int ft = 0;
                const double d = wall_face_closest(w, f, x, q, &ft);
                if (d < best || (d == best && f < best_f)) {
                    best = d;
                    best_f = f;
                    for (int k = 0; k < 3; ++k) p[k] = q[k];
                    *feat = ft;
                }
            }
            continue;
        }
        const index_t r = t.child[2 * c + 1];
        if (box_d2(l) <= box_d2(r)) {
            stack[top++] = r;
            stack[top++] = l;
        } else {
            stack[top++] = l;
            stack[top++] = r;
        }
    }
    return best_f;
}

/// Host priority between two body grids g (the node's) and h (the host's) when one of them reaches
/// into the other's body this step (reach[g * ng + h] or reach[h * ng + g] nonzero): near a wall
/// both grids' wall distances estimate the same distance, so d > d_host decides by round-off and
/// can deactivate both grids' nodes there (orphans). Instead the grid whose wall holds the node's
/// nearest wall node decides: its own -> the host in h is ignored; h's -> the host wins (the node
/// becomes inactive). woff[0..ng]: first index of each grid's wall nodes in the list of all grids'
/// wall nodes (grid order); nearest: the node's nearest wall node in that list (-1: none).
constexpr int kHostNormal = 0;
constexpr int kHostIgnored = 1;
constexpr int kHostWins = 2;
UGKS_HOST_DEVICE inline int hole_cut_priority(const int* reach, const index_t* woff, int ng, int g,
                                              int h, index_t nearest) {
    if (nearest < 0 || !(reach[g * ng + h] || reach[h * ng + g])) return kHostNormal;
    if (woff[g + 1] == woff[g] || woff[h + 1] == woff[h]) return kHostNormal;
    int wg = 0;
    while (wg < ng - 1 && nearest >= woff[wg + 1]) ++wg;
    return wg == g ? kHostIgnored : (wg == h ? kHostWins : kHostNormal);
}

/// The host search of node x of grid g (its nearest wall node `nearest`, hole_cut_priority's
/// reach and woff): the smallest wall distance interpolated in its host cells of the other grids of
/// views[0..ng), cut cells excluded, grids the priority ignores skipped, -inf for a host in a grid
/// that wins; +inf without a host.
UGKS_HOST_DEVICE inline double host_wall_distance(const GridView* views, int ng, int g,
                                                  const int* reach, const index_t* woff,
                                                  index_t nearest, const double* x) {
    double w[kMaxCellNodes], best = kInf;
    for (int h = 0; h < ng; ++h) {
        if (h == g) continue;
        const int pr = hole_cut_priority(reach, woff, ng, g, h, nearest);
        if (pr == kHostIgnored) continue;
        const index_t c = find_donor_in(views[h], x, true, w);
        if (c >= 0) {
            const double d = pr == kHostWins
                                 ? -kInf
                                 : interpolate_in_cell(views[h], c, w, views[h].wall_distance);
            best = d < best ? d : best;
        }
    }
    return best;
}

/// x (3 coordinates, z = 0 in 2D) inside the closed wall of w: within the wall's bounding box (the
/// tree's root box; cheap reject) and (x - p) . N < 0 at the nearest wall point p.
UGKS_HOST_DEVICE inline bool wall_inside(const WallView& w, const double* x) {
    const KdView& t = w.tree;
    if (t.n_nodes == 0) return false;
    for (int d = 0; d < w.dim; ++d)
        if (x[d] < t.lo[d] || x[d] > t.hi[w.dim + d]) return false;
    double p[3], N[3];
    int feat = 0;
    const index_t f = wall_nearest_face(w, x, p, &feat);
    if (f < 0) return false;
    wall_pseudo_normal(w, f, feat, N);
    const double s = (x[0] - p[0]) * N[0] + (x[1] - p[1]) * N[1] + (x[2] - p[2]) * N[2];
    return s < 0;
}

}  // namespace ugks::overset
