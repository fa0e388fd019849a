// Periodic patches: each face of patch A is joined with the face of patch B that lies one period
// away, into one interior face that carries the translation of the neighbour's image
// (Mesh::face_shift).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ugks/core/error.hpp"
#include "ugks/mesh/mesh.hpp"

namespace ugks {
namespace {

double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec3 sub(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double dist(const Vec3& a, const Vec3& b) { return std::sqrt(dot(sub(a, b), sub(a, b))); }

std::string fmt_point(const Vec3& p) {
    std::ostringstream os;
    os.precision(8);
    os << "(" << p[0] << ", " << p[1] << ", " << p[2] << ")";
    return os.str();
}

/// Linear size of face f: the edge length in 2D, sqrt(area) in 3D, the owner's length in 1D.
double face_size(const Mesh& m, index_t f) {
    if (m.dim == 1) return std::abs(m.cell_volume[m.face_owner[f]]);
    if (m.dim == 2) return m.face_area[f];
    return std::sqrt(m.face_area[f]);
}

/// Spatial hash of points on a uniform grid of spacing h: a point within h of a query lies in one
/// of the 27 buckets around the query's bucket.
class PointHash {
public:
    PointHash(double h, const Vec3& origin) : m_h(h), m_o(origin) {}
    void insert(const Vec3& p, index_t id) { m_map[key(cell(p))].push_back(id); }
    template <class F>
    void for_near(const Vec3& p, F&& f) const {
        const auto c = cell(p);
        for (std::int64_t i = -1; i <= 1; ++i)
            for (std::int64_t j = -1; j <= 1; ++j)
                for (std::int64_t k = -1; k <= 1; ++k) {
                    const auto it = m_map.find(key({c[0] + i, c[1] + j, c[2] + k}));
                    if (it == m_map.end()) continue;
                    for (index_t id : it->second) f(id);
                }
    }

private:
    std::array<std::int64_t, 3> cell(const Vec3& p) const {
        return {static_cast<std::int64_t>(std::floor((p[0] - m_o[0]) / m_h)),
                static_cast<std::int64_t>(std::floor((p[1] - m_o[1]) / m_h)),
                static_cast<std::int64_t>(std::floor((p[2] - m_o[2]) / m_h))};
    }
    static std::uint64_t key(const std::array<std::int64_t, 3>& c) {
        // Mix the three bucket indices (collisions only cost a distance test).
        std::uint64_t h = 1469598103934665603ull;
        for (std::int64_t v : c) {
            h ^= static_cast<std::uint64_t>(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
            h *= 1099511628211ull;
        }
        return h;
    }
    double m_h;
    Vec3 m_o;
    std::unordered_map<std::uint64_t, std::vector<index_t>> m_map;
};

}  // namespace

void connect_periodic(Mesh& mesh, const std::vector<std::pair<std::string, std::string>>& pairs) {
    if (pairs.empty()) return;
    const index_t nf = mesh.n_faces();
    std::vector<index_t> partner_of(static_cast<std::size_t>(nf), -1);  // B face -> A face
    std::vector<Vec3> shift(static_cast<std::size_t>(nf), Vec3{0, 0, 0});
    if (!mesh.face_shift.empty()) shift = mesh.face_shift;
    std::vector<int> pair_of(static_cast<std::size_t>(nf), -1);
    if (mesh.face_pair.size() == static_cast<std::size_t>(nf)) pair_of = mesh.face_pair;
    int pair_index = -1;

    for (const auto& [name_a, name_b] : pairs) {
        ++pair_index;
        const std::string both = "periodic patches '" + name_a + "' and '" + name_b + "'";
        const int pa = mesh.patch_index(name_a), pb = mesh.patch_index(name_b);
        if (pa < 0 || pb < 0)
            UGKS_INPUT_ERROR(both << ": patch '" << (pa < 0 ? name_a : name_b)
                                  << "' does not exist in the mesh");
        if (pa == pb) UGKS_INPUT_ERROR(both << ": a patch cannot be its own periodic partner");
        std::vector<index_t> fa, fb;
        double area_a = 0, area_b = 0;
        Vec3 ca{0, 0, 0}, cb{0, 0, 0};
        for (index_t f = 0; f < nf; ++f) {
            if (mesh.face_neighbour[f] >= 0) continue;
            const double s = mesh.face_area[f];
            if (mesh.face_patch[f] == pa) {
                fa.push_back(f);
                area_a += s;
                for (int d = 0; d < 3; ++d) ca[d] += s * mesh.face_centroid[f][d];
            } else if (mesh.face_patch[f] == pb) {
                fb.push_back(f);
                area_b += s;
                for (int d = 0; d < 3; ++d) cb[d] += s * mesh.face_centroid[f][d];
            }
        }
        if (fa.empty() || fb.empty())
            UGKS_INPUT_ERROR(both << ": patch '" << (fa.empty() ? name_a : name_b)
                                  << "' has no boundary faces (already joined?)");
        if (fa.size() != fb.size())
            UGKS_INPUT_ERROR(both << " differ in face count (" << fa.size() << " and " << fb.size()
                                  << ")");
        Vec3 T{0, 0, 0};  // translation A - B
        for (int d = 0; d < 3; ++d) T[d] = ca[d] / area_a - cb[d] / area_b;

        // Tolerance of a match: 1e-6 of the face's linear size. Matching faces of a periodic mesh
        // differ by the round-off of the node coordinates (1e-16 relative, more after a mesh file's
        // decimal output); a genuinely different face is off by a sizeable fraction of its size.
        double h_min = HUGE_VAL;
        for (index_t f : fa) h_min = std::min(h_min, face_size(mesh, f));
        if (!(h_min > 0)) UGKS_INPUT_ERROR(both << ": a face of '" << name_a << "' has zero size");
        PointHash hash(h_min, mesh.face_centroid[fa.front()]);
        for (index_t f : fa) hash.insert(mesh.face_centroid[f], f);

        std::vector<char> taken(static_cast<std::size_t>(nf), 0);
        for (index_t b : fb) {
            const Vec3& xb = mesh.face_centroid[b];
            const Vec3 target{xb[0] + T[0], xb[1] + T[1], xb[2] + T[2]};
            index_t best = -1;
            double best_d = HUGE_VAL;
            hash.for_near(target, [&](index_t a) {
                const double d = dist(mesh.face_centroid[a], target);
                if (d < best_d) {
                    best_d = d;
                    best = a;
                }
            });
            const double tol =
                best >= 0 ? 1e-6 * std::max(face_size(mesh, best), face_size(mesh, b)) : 0.0;
            if (best < 0 || best_d > tol)
                UGKS_INPUT_ERROR(both << " do not match: the face of '" << name_b << "' at "
                                      << fmt_point(xb) << " has no face of '" << name_a << "' at "
                                      << fmt_point(target) << " (translation " << name_b << " -> "
                                      << name_a << " " << fmt_point(T)
                                      << " from the patch centroids)");
            if (taken[best])
                UGKS_INPUT_ERROR(both << " do not match: the face of '" << name_a << "' at "
                                      << fmt_point(mesh.face_centroid[best])
                                      << " is the image of two faces of '" << name_b << "'");
            taken[best] = 1;
            const double sa = mesh.face_area[best], sb = mesh.face_area[b];
            if (std::abs(sa - sb) > 1e-6 * std::max(sa, sb))
                UGKS_INPUT_ERROR(both << " do not match: the face of '" << name_a << "' at "
                                      << fmt_point(mesh.face_centroid[best]) << " has area " << sa
                                      << ", its partner at " << fmt_point(xb) << " has area "
                                      << sb);
            if (dot(mesh.face_normal[best], mesh.face_normal[b]) > -1.0 + 1e-6)
                UGKS_INPUT_ERROR(both << " do not match: the normals of the face of '" << name_a
                                      << "' at " << fmt_point(mesh.face_centroid[best])
                                      << " and of its partner at " << fmt_point(xb)
                                      << " are not opposite");
            const index_t cell_a = mesh.face_owner[best], cell_b = mesh.face_owner[b];
            if (cell_a == cell_b)
                UGKS_INPUT_ERROR(both << ": the face of '" << name_a << "' at "
                                      << fmt_point(mesh.face_centroid[best])
                                      << " and its partner belong to the same cell; a periodic "
                                         "direction needs at least 2 cells across");
            partner_of[b] = best;
            mesh.face_neighbour[best] = cell_b;
            mesh.face_patch[best] = -1;
            shift[best] = sub(mesh.face_centroid[best], xb);
            pair_of[best] = pair_index;
        }
    }

    // Remove the B faces: renumber the kept faces in their old order.
    std::vector<index_t> new_id(static_cast<std::size_t>(nf), -1);
    index_t n_new = 0;
    for (index_t f = 0; f < nf; ++f)
        if (partner_of[f] < 0) new_id[f] = n_new++;
    for (index_t f = 0; f < nf; ++f)
        if (partner_of[f] >= 0) new_id[f] = new_id[partner_of[f]];
    Mesh& m = mesh;
    std::vector<index_t> offsets{0}, nodes;
    offsets.reserve(static_cast<std::size_t>(n_new) + 1);
    nodes.reserve(m.face_nodes.size());
    std::size_t k = 0;
    for (index_t f = 0; f < nf; ++f) {
        if (partner_of[f] >= 0) continue;
        nodes.insert(nodes.end(), m.face_nodes.begin() + m.face_node_offsets[f],
                     m.face_nodes.begin() + m.face_node_offsets[f + 1]);
        offsets.push_back(static_cast<index_t>(nodes.size()));
        m.face_owner[k] = m.face_owner[f];
        m.face_neighbour[k] = m.face_neighbour[f];
        m.face_patch[k] = m.face_patch[f];
        m.face_normal[k] = m.face_normal[f];
        m.face_centroid[k] = m.face_centroid[f];
        m.face_area[k] = m.face_area[f];
        shift[k] = shift[f];
        pair_of[k] = pair_of[f];
        ++k;
    }
    m.face_node_offsets = std::move(offsets);
    m.face_nodes = std::move(nodes);
    const auto n = static_cast<std::size_t>(n_new);
    m.face_owner.resize(n);
    m.face_neighbour.resize(n);
    m.face_patch.resize(n);
    m.face_normal.resize(n);
    m.face_centroid.resize(n);
    m.face_area.resize(n);
    shift.resize(n);
    pair_of.resize(n);
    m.face_shift = std::move(shift);
    m.face_pair = std::move(pair_of);
    // A B face sat in its owner's list; the joined face takes its place there.
    for (index_t& f : m.cell_faces) f = new_id[f];
}

}  // namespace ugks
