// Tensor, file and nonuniform velocity grids (docs/formulation.md section 3); unstructured sets are
// in unstructured_grid.cpp.
#include "ugks/velocity/velocity_grid.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "ugks/core/error.hpp"

namespace ugks {

VelocityGrid make_tensor_velocity_grid(int dim, const std::array<std::vector<double>, 3>& nodes,
                                       const std::array<std::vector<double>, 3>& weights,
                                       const std::string& kind) {
    if (dim < 1 || dim > 3) UGKS_INPUT_ERROR("velocity grid: dim must be 1, 2 or 3, got " << dim);
    VelocityGrid g;
    g.dim = dim;
    g.kind = kind;
    for (int d = 0; d < 3; ++d) {
        if (d < dim) {
            UGKS_REQUIRE(!nodes[d].empty() && nodes[d].size() == weights[d].size(),
                         "axis " << d << " has " << nodes[d].size() << " nodes, "
                                 << weights[d].size() << " weights");
            g.axis_nodes[d] = nodes[d];
            g.axis_weights[d] = weights[d];
        } else {
            g.axis_nodes[d] = {0.0};
            g.axis_weights[d] = {1.0};
        }
        g.counts[d] = static_cast<int>(g.axis_nodes[d].size());
    }
    const index_t total = index_t(g.counts[0]) * g.counts[1] * g.counts[2];
    g.u.reserve(total);
    g.w.reserve(total);
    for (int i = 0; i < g.counts[0]; ++i)
        for (int j = 0; j < g.counts[1]; ++j)
            for (int l = 0; l < g.counts[2]; ++l) {
                g.u.push_back({g.axis_nodes[0][i], g.axis_nodes[1][j], g.axis_nodes[2][l]});
                g.w.push_back(g.axis_weights[0][i] * g.axis_weights[1][j] * g.axis_weights[2][l]);
            }
    return g;
}

VelocityGrid build_velocity_grid(const VelocityConfig& vc) {
    if (vc.type == "file") return read_velocity_file(vc.file, vc.dim);
    if (vc.type == "nonuniform")
        return make_nonuniform_velocity_grid(vc.dim, vc.lo, vc.hi, vc.refine_centres,
                                             vc.refine_width, vc.target_points, vc.refine_growth);
    if (vc.type == "unstructured")
        return make_unstructured_velocity_grid(vc.dim, vc.maxwellians, vc.target_points, vc.extent,
                                               vc.growth);
    std::array<std::vector<double>, 3> x, w;
    for (int d = 0; d < vc.dim; ++d) {
        if (vc.type == "gauss_hermite")
            gauss_hermite_1d(vc.counts[d], vc.scale[d], vc.offset[d], x[d], w[d]);
        else if (vc.type == "half_range_gauss_hermite")
            half_range_gauss_hermite_1d(vc.counts[d], vc.scale[d], vc.offset[d], x[d], w[d]);
        else if (vc.type == "newton_cotes")
            newton_cotes_1d(vc.counts[d], vc.lo[d], vc.hi[d], x[d], w[d]);
        else
            UGKS_INPUT_ERROR("velocity.type: unknown velocity grid type '" << vc.type << "'");
    }
    return make_tensor_velocity_grid(vc.dim, x, w, vc.type);
}

// ---- point file ------------------------------------------------------------------------------

namespace {

bool parse_number(const std::string& tok, double& value) {
    const char* s = tok.c_str();
    char* end = nullptr;
    errno = 0;
    value = std::strtod(s, &end);
    return end != s && *end == '\0' && errno != ERANGE;
}

}  // namespace

VelocityGrid read_velocity_file(const std::string& path, int dim) {
    if (dim < 1 || dim > 3)
        UGKS_INPUT_ERROR(path << ": velocity dim must be 1, 2 or 3, got " << dim);
    if (const std::string why = input_file_problem(path); !why.empty())
        UGKS_INPUT_ERROR("velocity file '" << path << "' " << why);
    std::ifstream in(path);
    if (!in) UGKS_INPUT_ERROR(path << ": cannot open velocity file");
    static const char* kColumns[] = {"u_x w", "u_x u_y w", "u_x u_y u_z w"};
    VelocityGrid g;
    g.dim = dim;
    g.kind = "file";
    std::map<Vec3, int> seen;  // exact duplicates; near-duplicates are the user's business
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        const auto hash = line.find('#');
        if (hash != std::string::npos) line.erase(hash);
        std::istringstream ls(line);
        std::vector<std::string> tokens;
        for (std::string tok; ls >> tok;) tokens.push_back(tok);
        if (tokens.empty()) continue;
        if (static_cast<int>(tokens.size()) != dim + 1)
            UGKS_INPUT_ERROR(path << ":" << lineno << ": expected " << dim + 1 << " columns ("
                                  << kColumns[dim - 1] << ") for a " << dim
                                  << "D velocity grid, got " << tokens.size());
        double vals[4] = {0, 0, 0, 0};
        for (int c = 0; c <= dim; ++c) {
            if (!parse_number(tokens[c], vals[c]))
                UGKS_INPUT_ERROR(path << ":" << lineno << ": column " << c + 1 << ": '" << tokens[c]
                                      << "' is not a number");
            if (!std::isfinite(vals[c]))
                UGKS_INPUT_ERROR(path << ":" << lineno << ": column " << c + 1 << ": value '"
                                      << tokens[c] << "' is not finite");
        }
        Vec3 u{0, 0, 0};
        for (int d = 0; d < dim; ++d) u[d] = vals[d];
        const double w = vals[dim];
        if (!(w > 0))
            UGKS_INPUT_ERROR(path << ":" << lineno << ": weight must be > 0, got " << tokens[dim]);
        const auto [it, fresh] = seen.emplace(u, lineno);
        if (!fresh)
            UGKS_INPUT_ERROR(path << ":" << lineno << ": duplicate velocity point (same as line "
                                  << it->second << ")");
        g.u.push_back(u);
        g.w.push_back(w);
    }
    if (g.u.empty()) UGKS_INPUT_ERROR(path << ":" << lineno << ": no velocity points in the file");
    g.counts = {static_cast<int>(g.u.size()), 1, 1};
    return g;
}

// ---- nonuniform tensor grid ---------------------------------------------------------------------

namespace {

// Piece of an axis on which the desired spacing s(v) is linear: s = s_a + k (v - v_a).
struct SpacingPiece {
    double va, vb;
    double ta, tb;  // distance beyond the uniform zone, max(0, dist - width), at both ends
};

// The stretched axis: s(v) = h0 (1 + growth * excess(v)); excess is piecewise linear with the
// breakpoints precomputed, so xi(v) = int dv/s and its inverse are exact per piece. The shape of s
// is fixed and h0 scales it, so refining shrinks every cell alike (the midpoint rule converges as
// h0^2 everywhere).
class StretchedAxis {
public:
    StretchedAxis(double lo, double hi, std::vector<double> centres, double width, double growth)
        : m_lo(lo), m_hi(hi), m_growth(growth) {
        std::sort(centres.begin(), centres.end());
        centres.erase(std::unique(centres.begin(), centres.end()), centres.end());
        std::vector<double> bp{lo, hi};
        for (std::size_t j = 0; j < centres.size(); ++j) {
            bp.push_back(centres[j]);
            bp.push_back(centres[j] - width);
            bp.push_back(centres[j] + width);
            if (j + 1 < centres.size()) bp.push_back(0.5 * (centres[j] + centres[j + 1]));
        }
        for (double& b : bp) b = std::clamp(b, lo, hi);
        std::sort(bp.begin(), bp.end());
        bp.erase(std::unique(bp.begin(), bp.end()), bp.end());
        auto excess = [&](double v) {
            if (centres.empty()) return 0.0;
            double dist = std::numeric_limits<double>::infinity();
            for (double c : centres) dist = std::min(dist, std::fabs(v - c));
            return std::max(0.0, dist - width);
        };
        for (std::size_t i = 0; i + 1 < bp.size(); ++i)
            m_pieces.push_back({bp[i], bp[i + 1], excess(bp[i]), excess(bp[i + 1])});
    }

    // xi(hi) for a given h0: the real number of cells.
    double cells(double h0) const {
        double sum = 0;
        for (const auto& p : m_pieces) sum += piece_xi(p, h0, p.vb);
        return sum;
    }

    // h0 such that cells(h0) = n (cells is decreasing in h0).
    double solve_h0(double n) const {
        double a = (m_hi - m_lo) / n * 1e-9, b = (m_hi - m_lo) / n;  // cells(b) <= n <= cells(a)
        for (int it = 0; it < 200; ++it) {
            const double mid = std::sqrt(a * b);
            if (cells(mid) > n)
                a = mid;
            else
                b = mid;
            if (b - a <= 1e-15 * b) break;
        }
        return std::sqrt(a * b);
    }

    // Faces at integer xi for n cells (h0 solved for n): f_0 = lo, f_n = hi.
    std::vector<double> faces(int n) const {
        const double h0 = solve_h0(n);
        std::vector<double> f{m_lo};
        double xi0 = 0;  // xi at the start of the current piece
        int next = 1;
        for (const auto& p : m_pieces) {
            const double xi1 = xi0 + piece_xi(p, h0, p.vb);
            while (next < n && next <= xi1) {
                f.push_back(piece_inverse(p, h0, next - xi0));
                ++next;
            }
            xi0 = xi1;
        }
        while (static_cast<int>(f.size()) < n) f.push_back(m_hi);  // round-off at the very end
        f.push_back(m_hi);
        return f;
    }

private:
    // ds/dv within the piece.
    double slope(const SpacingPiece& p, double h0) const {
        return p.vb > p.va ? h0 * m_growth * (p.tb - p.ta) / (p.vb - p.va) : 0.0;
    }
    // int_{va}^{v} dv / s within the piece.
    double piece_xi(const SpacingPiece& p, double h0, double v) const {
        const double sa = h0 * (1 + m_growth * p.ta), k = slope(p, h0);
        if (k == 0) return (v - p.va) / sa;
        return std::log1p(k * (v - p.va) / sa) / k;
    }
    // v with int_{va}^{v} dv / s = dxi.
    double piece_inverse(const SpacingPiece& p, double h0, double dxi) const {
        const double sa = h0 * (1 + m_growth * p.ta), k = slope(p, h0);
        double v = k == 0 ? p.va + dxi * sa : p.va + sa * std::expm1(k * dxi) / k;
        return std::clamp(v, p.va, p.vb);
    }

    double m_lo, m_hi, m_growth;
    std::vector<SpacingPiece> m_pieces;
};

}  // namespace

VelocityGrid make_nonuniform_velocity_grid(int dim, const std::array<double, 3>& lo,
                                           const std::array<double, 3>& hi,
                                           const std::vector<Vec3>& centres, double width,
                                           index_t target_points, double growth) {
    if (dim < 1 || dim > 3)
        UGKS_INPUT_ERROR("nonuniform velocity grid: dim must be 1, 2 or 3, got " << dim);
    if (!(width > 0))
        UGKS_INPUT_ERROR("nonuniform velocity grid: refine width must be > 0, got " << width);
    if (!(growth > 0))
        UGKS_INPUT_ERROR("nonuniform velocity grid: growth must be > 0, got " << growth);
    if (target_points < 1)
        UGKS_INPUT_ERROR("nonuniform velocity grid: target_points must be >= 1, got "
                         << target_points);
    std::vector<StretchedAxis> axes;
    std::vector<bool> symmetric;
    for (int d = 0; d < dim; ++d) {
        if (!(hi[d] > lo[d]) || !std::isfinite(lo[d]) || !std::isfinite(hi[d]))
            UGKS_INPUT_ERROR("nonuniform velocity grid: axis "
                             << d << " needs finite lo < hi, got [" << lo[d] << ", " << hi[d]
                             << "]");
        std::vector<double> c;
        for (const auto& p : centres) c.push_back(p[d]);
        bool sym = lo[d] == -hi[d];
        for (double cj : c)
            sym = sym && std::any_of(c.begin(), c.end(), [&](double ck) { return ck == -cj; });
        symmetric.push_back(sym);
        axes.emplace_back(lo[d], hi[d], c, width, growth);
    }

    // One common h0 whose rounded per-axis counts give the product closest to the target.
    auto counts_for = [&](double h0) {
        std::array<index_t, 3> n{1, 1, 1};
        for (int d = 0; d < dim; ++d) n[d] = std::max<index_t>(1, std::llround(axes[d].cells(h0)));
        return n;
    };
    auto product = [](const std::array<index_t, 3>& n) { return n[0] * n[1] * n[2]; };
    double h_small = 1e-9, h_big = 0;
    for (int d = 0; d < dim; ++d) h_big = std::max(h_big, 2 * (hi[d] - lo[d]));
    h_small *= h_big;
    for (int it = 0; it < 200; ++it) {
        const double mid = std::sqrt(h_small * h_big);
        double real_product = 1;
        for (int d = 0; d < dim; ++d) real_product *= axes[d].cells(mid);
        if (real_product > static_cast<double>(target_points))
            h_small = mid;
        else
            h_big = mid;
    }
    std::array<index_t, 3> n = counts_for(std::sqrt(h_small * h_big));
    auto miss = [&](const std::array<index_t, 3>& m) {
        return std::llabs(product(m) - target_points);
    };
    for (bool improved = true; improved;) {
        improved = false;
        for (int d = 0; d < dim; ++d)
            for (int step : {-1, 1}) {
                auto m = n;
                m[d] += step;
                if (m[d] >= 1 && miss(m) < miss(n)) {
                    n = m;
                    improved = true;
                }
            }
    }

    std::array<std::vector<double>, 3> nodes, weights;
    for (int d = 0; d < dim; ++d) {
        const int nd = static_cast<int>(n[d]);
        std::vector<double> f = axes[d].faces(nd);
        if (symmetric[d]) {  // exact antisymmetry so that every node has its mirror image
            for (int i = 0; i <= nd / 2; ++i) f[nd - i] = -f[i];
            if (nd % 2 == 0) f[nd / 2] = 0;
        }
        for (int i = 0; i < nd; ++i) {
            nodes[d].push_back(0.5 * (f[i] + f[i + 1]));
            weights[d].push_back(f[i + 1] - f[i]);
        }
    }
    return make_tensor_velocity_grid(dim, nodes, weights, "nonuniform");
}

}  // namespace ugks
