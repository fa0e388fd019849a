// 1D quadrature rules of the discrete velocity space (docs/formulation.md section 3.1-3.2).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ugks/core/error.hpp"
#include "ugks/velocity/velocity_grid.hpp"

namespace ugks {
namespace {

using ld = long double;

// Number of eigenvalues < x of the symmetric tridiagonal matrix (diag a, off-diagonal sb[k]
// coupling rows k-1 and k), from the signs of the LDL^T pivots (Sturm sequence).
int sturm_count(const std::vector<ld>& a, const std::vector<ld>& sb, ld x) {
    const ld tiny = std::numeric_limits<ld>::min() / std::numeric_limits<ld>::epsilon();
    int count = 0;
    ld q = a[0] - x;
    for (std::size_t i = 0;; ++i) {
        if (q == 0) q = -tiny;  // pivot exactly zero: perturb, counts stay consistent
        if (q < 0) ++count;
        if (i + 1 == a.size()) break;
        q = a[i + 1] - x - sb[i + 1] * sb[i + 1] / q;
    }
    return count;
}

// Orthonormal polynomial values p_N(x), p_N'(x) for the recurrence
// sqrt(beta_{k+1}) p_{k+1} = (x - alpha_k) p_k - sqrt(beta_k) p_{k-1}; only their ratio is used.
void orthonormal_value(const std::vector<ld>& a, const std::vector<ld>& sb, ld x, ld& p, ld& dp) {
    const std::size_t n = a.size();
    ld p_prev = 0, p_cur = 1, d_prev = 0, d_cur = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const ld s_next = (k + 1 < n) ? sb[k + 1] : 1;  // scale of p_N itself is irrelevant
        const ld s_k = k > 0 ? sb[k] : 0;
        const ld p_next = ((x - a[k]) * p_cur - s_k * p_prev) / s_next;
        const ld d_next = (p_cur + (x - a[k]) * d_cur - s_k * d_prev) / s_next;
        p_prev = p_cur;
        p_cur = p_next;
        d_prev = d_cur;
        d_cur = d_next;
    }
    p = p_cur;
    dp = d_cur;
}

// Gauss rule of the measure with recurrence coefficients alpha[0..N-1], beta[0..N-1] (beta[0] =
// total mass). Nodes: Sturm bisection on the Jacobi matrix, then Newton on p_N. Weights:
// Christoffel numbers 1 / sum_k p_k(x)^2; with gaussian_factor the effective weight w e^{x^2} = 1 /
// sum_k (p_k e^{-x^2/2})^2 is returned instead, which never underflows.
void gauss_rule(const std::vector<ld>& alpha, const std::vector<ld>& beta, bool gaussian_factor,
                std::vector<ld>& x, std::vector<ld>& w) {
    const std::size_t n = alpha.size();
    std::vector<ld> sb(n, 0);
    for (std::size_t k = 1; k < n; ++k) sb[k] = std::sqrt(beta[k]);
    ld lo = alpha[0], hi = alpha[0];
    for (std::size_t i = 0; i < n; ++i) {
        const ld r = (i > 0 ? sb[i] : 0) + (i + 1 < n ? sb[i + 1] : 0);
        lo = std::min(lo, alpha[i] - r);
        hi = std::max(hi, alpha[i] + r);
    }
    const ld eps = std::numeric_limits<ld>::epsilon();
    x.assign(n, 0);
    w.assign(n, 0);
    for (std::size_t k = 0; k < n; ++k) {
        // Eigenvalues ascending: the k-th lies above the (k-1)-th. Bisect to full precision.
        ld a = k > 0 ? x[k - 1] : lo, b = hi;
        const ld min_width = 4 * std::numeric_limits<ld>::min();
        for (int it = 0; it < 400; ++it) {
            if (b - a <= 2 * eps * (std::fabs(a) + std::fabs(b)) + min_width) break;
            const ld mid = a + (b - a) / 2;
            if (sturm_count(alpha, sb, mid) > static_cast<int>(k))
                b = mid;
            else
                a = mid;
        }
        ld xk = a + (b - a) / 2;
        // Newton polish; a step much longer than the final bisection bracket is rejected.
        for (int it = 0; it < 3; ++it) {
            ld p, dp;
            orthonormal_value(alpha, sb, xk, p, dp);
            if (dp == 0 || !std::isfinite(p / dp)) break;
            const ld next = xk - p / dp;
            if (std::fabs(next - xk) > 1e3L * (b - a) + eps) break;
            xk = next;
        }
        x[k] = xk;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const ld xi = x[i];
        ld p_prev = 0;
        ld p_cur = 1 / std::sqrt(beta[0]);
        if (gaussian_factor) p_cur *= std::exp(-xi * xi / 2);
        ld sum = 0;
        for (std::size_t k = 0; k < n; ++k) {
            sum += p_cur * p_cur;
            if (k + 1 == n) break;
            const ld p_next = ((xi - alpha[k]) * p_cur - (k > 0 ? sb[k] : 0) * p_prev) / sb[k + 1];
            p_prev = p_cur;
            p_cur = p_next;
        }
        w[i] = 1 / sum;
    }
}

// Recurrence coefficients of the weight exp(-x^2) on [0, inf), k < n, by the discretized Stieltjes
// procedure (Gautschi) on a composite Gauss-Legendre rule, with full reorthogonalization of the
// normalized polynomial vectors (Lanczos form).
void half_range_recurrence(int n, std::vector<ld>& alpha, std::vector<ld>& beta) {
    constexpr int kLegendre = 32;
    std::vector<ld> la(kLegendre, 0), lb(kLegendre, 0), gx, gw;
    lb[0] = 2;
    for (int k = 1; k < kLegendre; ++k) lb[k] = ld(k) * k / (4.0L * k * k - 1);
    gauss_rule(la, lb, false, gx, gw);

    // e^{-x^2} p_k(x)^2 is negligible (< 1e-40 of its peak) beyond the largest node + 10.
    const ld length = std::sqrt(4.0L * n + 2) + 10;
    const ld panel = 0.5L;
    const int panels = static_cast<int>(std::ceil(length / panel));
    std::vector<ld> t, v;
    t.reserve(static_cast<std::size_t>(panels) * kLegendre);
    for (int p = 0; p < panels; ++p) {
        const ld c = (p + 0.5L) * panel;
        for (int j = 0; j < kLegendre; ++j) {
            const ld tj = c + panel / 2 * gx[j];
            t.push_back(tj);
            v.push_back(panel / 2 * gw[j] * std::exp(-tj * tj));
        }
    }
    const std::size_t m = t.size();
    alpha.assign(n, 0);
    beta.assign(n, 0);
    ld mass = 0;
    for (ld vj : v) mass += vj;
    beta[0] = mass;
    std::vector<std::vector<ld>> q;  // orthonormal vectors sqrt(v_j) p_k(t_j)
    q.reserve(n + 1);
    std::vector<ld> cur(m);
    for (std::size_t j = 0; j < m; ++j) cur[j] = std::sqrt(v[j] / mass);
    q.push_back(cur);
    for (int k = 0; k < n; ++k) {
        const std::vector<ld>& qk = q[k];
        ld a = 0;
        for (std::size_t j = 0; j < m; ++j) a += t[j] * qk[j] * qk[j];
        alpha[k] = a;
        if (k + 1 == n) break;
        std::vector<ld> r(m);
        const ld sbk = k > 0 ? std::sqrt(beta[k]) : 0;
        for (std::size_t j = 0; j < m; ++j)
            r[j] = (t[j] - a) * qk[j] - (k > 0 ? sbk * q[k - 1][j] : 0);
        for (int pass = 0; pass < 2; ++pass) {  // twice is enough (Kahan-Parlett)
            for (const auto& qi : q) {
                ld dot = 0;
                for (std::size_t j = 0; j < m; ++j) dot += r[j] * qi[j];
                for (std::size_t j = 0; j < m; ++j) r[j] -= dot * qi[j];
            }
        }
        ld norm2 = 0;
        for (ld rj : r) norm2 += rj * rj;
        beta[k + 1] = norm2;
        const ld inv = 1 / std::sqrt(norm2);
        for (ld& rj : r) rj *= inv;
        q.push_back(std::move(r));
    }
}

}  // namespace

void gauss_hermite_1d(int n, double scale, double offset, std::vector<double>& x,
                      std::vector<double>& w) {
    if (n < 1 || n > 500)
        UGKS_INPUT_ERROR("Gauss-Hermite rule: number of points must be in [1, 500], got " << n);
    if (!(scale > 0)) UGKS_INPUT_ERROR("Gauss-Hermite rule: scale must be > 0, got " << scale);
    std::vector<ld> alpha(n, 0), beta(n, 0), xs, ws;
    beta[0] = std::sqrt(std::acos(-1.0L));
    for (int k = 1; k < n; ++k) beta[k] = k / 2.0L;
    gauss_rule(alpha, beta, true, xs, ws);
    // The rule is symmetric about 0; make it exactly so (mirror pairs are matched exactly later).
    for (int i = 0; i < n / 2; ++i) {
        const ld xi = (xs[n - 1 - i] - xs[i]) / 2, wi = (ws[i] + ws[n - 1 - i]) / 2;
        xs[i] = -xi;
        xs[n - 1 - i] = xi;
        ws[i] = ws[n - 1 - i] = wi;
    }
    if (n % 2 == 1) xs[n / 2] = 0;
    x.resize(n);
    w.resize(n);
    for (int i = 0; i < n; ++i) {
        x[i] = offset + scale * static_cast<double>(xs[i]);
        w[i] = scale * static_cast<double>(ws[i]);
    }
}

void half_range_gauss_hermite_1d(int n, double scale, double offset, std::vector<double>& x,
                                 std::vector<double>& w) {
    if (n < 2 || n > 400 || n % 2 != 0)
        UGKS_INPUT_ERROR(
            "half-range Gauss-Hermite rule: number of points must be even and in [2, 400], got "
            << n);
    if (!(scale > 0))
        UGKS_INPUT_ERROR("half-range Gauss-Hermite rule: scale must be > 0, got " << scale);
    const int h = n / 2;
    std::vector<ld> alpha, beta, xs, ws;
    half_range_recurrence(h, alpha, beta);
    gauss_rule(alpha, beta, true, xs, ws);
    x.resize(n);
    w.resize(n);
    for (int i = 0; i < h; ++i) {
        const double xi = scale * static_cast<double>(xs[i]);
        const double wi = scale * static_cast<double>(ws[i]);
        x[h - 1 - i] = offset - xi;
        x[h + i] = offset + xi;
        w[h - 1 - i] = w[h + i] = wi;
    }
}

void newton_cotes_1d(int n, double lo, double hi, std::vector<double>& x, std::vector<double>& w) {
    if (n < 5 || (n - 1) % 4 != 0)
        UGKS_INPUT_ERROR(
            "Newton-Cotes (Boole) rule: number of points must be 4m+1 >= 5 (5, 9, 13, ...), got "
            << n);
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        UGKS_INPUT_ERROR("Newton-Cotes (Boole) rule: need finite lo < hi, got [" << lo << ", " << hi
                                                                                 << "]");
    const double h = (hi - lo) / (n - 1);
    x.resize(n);
    w.resize(n);
    // x_i = mid + half s_i with s_i = (2i - (n-1)) / (n-1): s_i is exactly antisymmetric, so a
    // range symmetric about 0 gives exactly mirrored nodes and an exact 0 in the middle, whether or
    // not the compiler fuses the multiply-add (it does under -march=native).
    const double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo);
    for (int i = 0; i < n; ++i) {
        const double s = static_cast<double>(2 * i - (n - 1)) / (n - 1);
        x[i] = i == 0 ? lo : (i == n - 1 ? hi : mid + half * s);
        double c;
        if (i == 0 || i == n - 1)
            c = 14;
        else if (i % 2 == 1)
            c = 64;
        else if (i % 4 == 2)
            c = 24;
        else
            c = 28;
        w[i] = h * c / 45;
    }
}

}  // namespace ugks
