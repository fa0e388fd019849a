#pragma once
/// Exact point-in-cell test and natural (parametric) coordinates for every linear element type of
/// the Mesh (triangle, quad, tetra, hexa, prism, pyramid), as UGKS_HOST_DEVICE functions.
///
/// Reference elements (node order of Gmsh/Mesh):
/// - triangle (0,0) (1,0) (0,1); quad [0,1]^2 counter-clockwise from (0,0);
/// - tetra (0,0,0) (1,0,0) (0,1,0) (0,0,1); hexa [0,1]^3, nodes 0-3 at z=0, 4-7 at z=1;
/// - prism: triangle (r,s) x t in [0,1], nodes 0-2 at t=0, 3-5 at t=1;
/// - pyramid: collapsed hexa, base quad (xi,eta) in [0,1]^2 at zeta=0, apex (node 4) at zeta=1:
///   N_i = (1-zeta) Q_i(xi,eta) for the base, N_4 = zeta.
/// The shape functions N_i are the interpolation weights: they sum to 1 and reproduce x exactly
/// (sum N_i x_i = x at convergence), so a linear field is interpolated exactly.
/// Natural coordinates come from Newton's method from the reference centre (one step for the
/// affine simplices); a point is inside when its natural coordinates lie in the reference element
/// within `tol` and Newton converged.
#include <cmath>

#include "ugks/core/types.hpp"
#include "ugks/device/macros.hpp"

namespace ugks::overset {

constexpr int kMaxCellNodes = 8;
constexpr double kInsideTol = 1e-10;  ///< natural-coordinate tolerance of the inside test

/// Cell type codes as in ugks::CellType (2 tri, 3 quad, 4 tet, 5 hex, 6 prism, 7 pyramid).
UGKS_HOST_DEVICE inline int shape_count(int type) {
    switch (type) {
        case 2:
            return 3;
        case 3:
            return 4;
        case 4:
            return 4;
        case 5:
            return 8;
        case 6:
            return 6;
        case 7:
            return 5;
        default:
            return 0;
    }
}

/// Shape functions N[i] and derivatives dN[i*3 + a] = dN_i / dxi_a at natural coordinates xi.
UGKS_HOST_DEVICE inline void shape_functions(int type, const double* xi, double* N, double* dN) {
    const double r = xi[0], s = xi[1], t = xi[2];
    for (int i = 0; i < kMaxCellNodes * 3; ++i) dN[i] = 0;
    switch (type) {
        case 2:  // triangle
            N[0] = 1 - r - s, N[1] = r, N[2] = s;
            dN[0] = -1, dN[1] = -1, dN[3] = 1, dN[7] = 1;
            break;
        case 3: {  // quad
            const double q[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
            for (int i = 0; i < 4; ++i) {
                const double a = q[i][0] ? r : 1 - r, b = q[i][1] ? s : 1 - s;
                N[i] = a * b;
                dN[i * 3 + 0] = (q[i][0] ? 1 : -1) * b;
                dN[i * 3 + 1] = a * (q[i][1] ? 1 : -1);
            }
            break;
        }
        case 4:  // tetra
            N[0] = 1 - r - s - t, N[1] = r, N[2] = s, N[3] = t;
            dN[0] = dN[1] = dN[2] = -1;
            dN[3] = 1, dN[7] = 1, dN[11] = 1;
            break;
        case 5: {  // hexa
            const double q[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                    {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
            for (int i = 0; i < 8; ++i) {
                const double a = q[i][0] ? r : 1 - r, b = q[i][1] ? s : 1 - s,
                             c = q[i][2] ? t : 1 - t;
                const double da = q[i][0] ? 1 : -1, db = q[i][1] ? 1 : -1, dc = q[i][2] ? 1 : -1;
                N[i] = a * b * c;
                dN[i * 3 + 0] = da * b * c;
                dN[i * 3 + 1] = a * db * c;
                dN[i * 3 + 2] = a * b * dc;
            }
            break;
        }
        case 6: {  // prism
            const double L[3] = {1 - r - s, r, s};
            const double dLr[3] = {-1, 1, 0}, dLs[3] = {-1, 0, 1};
            for (int i = 0; i < 3; ++i) {
                N[i] = L[i] * (1 - t);
                N[i + 3] = L[i] * t;
                dN[i * 3 + 0] = dLr[i] * (1 - t);
                dN[i * 3 + 1] = dLs[i] * (1 - t);
                dN[i * 3 + 2] = -L[i];
                dN[(i + 3) * 3 + 0] = dLr[i] * t;
                dN[(i + 3) * 3 + 1] = dLs[i] * t;
                dN[(i + 3) * 3 + 2] = L[i];
            }
            break;
        }
        case 7: {  // pyramid (collapsed hexa)
            const double q[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
            for (int i = 0; i < 4; ++i) {
                const double a = q[i][0] ? r : 1 - r, b = q[i][1] ? s : 1 - s;
                N[i] = (1 - t) * a * b;
                dN[i * 3 + 0] = (1 - t) * (q[i][0] ? 1 : -1) * b;
                dN[i * 3 + 1] = (1 - t) * a * (q[i][1] ? 1 : -1);
                dN[i * 3 + 2] = -a * b;
            }
            N[4] = t;
            dN[14] = 1;
            break;
        }
        default:
            break;
    }
}

/// Is xi inside the reference element of `type` (within tol)?
UGKS_HOST_DEVICE inline bool in_reference(int type, const double* xi, double tol) {
    const double r = xi[0], s = xi[1], t = xi[2];
    auto unit = [tol](double v) { return v >= -tol && v <= 1 + tol; };
    switch (type) {
        case 2:
            return r >= -tol && s >= -tol && r + s <= 1 + tol;
        case 3:
            return unit(r) && unit(s);
        case 4:
            return r >= -tol && s >= -tol && t >= -tol && r + s + t <= 1 + tol;
        case 5:
            return unit(r) && unit(s) && unit(t);
        case 6:
            return r >= -tol && s >= -tol && r + s <= 1 + tol && unit(t);
        case 7:
            return unit(r) && unit(s) && unit(t);
        default:
            return false;
    }
}

/// Natural coordinates of x in the cell of `type` with nodes xn[i*3 + a] (dim = 2: x, y only;
/// the reference dimension equals dim) and the weights w[0..shape_count). Returns true when x is
/// inside (within tol). w and xi are set in any case (meaningless when Newton failed).
UGKS_HOST_DEVICE inline bool locate_in_cell(int type, int dim, const double* xn, const double* x,
                                            double* xi, double* w, double tol = kInsideTol) {
    const int nn = shape_count(type);
    double dN[kMaxCellNodes * 3];
    // reference centre
    xi[0] = xi[1] = xi[2] = 0;
    if (type == 2) xi[0] = xi[1] = 1.0 / 3;
    if (type == 4) xi[0] = xi[1] = xi[2] = 0.25;
    if (type == 3 || type == 5) xi[0] = xi[1] = xi[2] = 0.5;
    if (type == 6) xi[0] = xi[1] = 1.0 / 3, xi[2] = 0.5;
    if (type == 7) xi[0] = xi[1] = 0.5, xi[2] = 0.2;
    if (dim == 2) xi[2] = 0;
    // cell size for the residual test
    double h = 0;
    for (int i = 1; i < nn; ++i)
        for (int a = 0; a < dim; ++a) h = fmax(h, fabs(xn[i * 3 + a] - xn[a]));
    if (type == 7) {  // the apex is a singular point of the collapsed-hexa map
        double e = 0;
        for (int a = 0; a < dim; ++a) e = fmax(e, fabs(x[a] - xn[12 + a]));
        if (e <= 1e-13 * h) {
            for (int i = 0; i < 4; ++i) w[i] = 0;
            w[4] = 1;
            xi[0] = xi[1] = 0.5, xi[2] = 1;
            return true;
        }
    }
    bool converged = false;
    for (int it = 0; it < 40; ++it) {
        shape_functions(type, xi, w, dN);
        double res[3] = {0, 0, 0}, J[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
        for (int a = 0; a < dim; ++a) {
            double xa = 0;
            for (int i = 0; i < nn; ++i) {
                xa += w[i] * xn[i * 3 + a];
                for (int b = 0; b < dim; ++b) J[a][b] += dN[i * 3 + b] * xn[i * 3 + a];
            }
            res[a] = x[a] - xa;
        }
        double d[3] = {0, 0, 0};
        if (dim == 2) {
            const double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
            if (!(fabs(det) > 0)) break;
            d[0] = (res[0] * J[1][1] - J[0][1] * res[1]) / det;
            d[1] = (J[0][0] * res[1] - res[0] * J[1][0]) / det;
        } else {
            const double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
                               J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                               J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
            if (!(fabs(det) > 0)) break;
            // Cramer's rule
            for (int c = 0; c < 3; ++c) {
                double M[3][3];
                for (int a = 0; a < 3; ++a)
                    for (int b = 0; b < 3; ++b) M[a][b] = b == c ? res[a] : J[a][b];
                d[c] = (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
                        M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                        M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0])) /
                       det;
            }
        }
        double step = 0;
        for (int a = 0; a < dim; ++a) {
            xi[a] += d[a];
            step = fmax(step, fabs(d[a]));
        }
        if (!(step < 1e3)) break;  // diverging: far outside
        if (step < 1e-13) {        // quadratic convergence: round-off level
            converged = true;
            break;
        }
    }
    shape_functions(type, xi, w, dN);
    if (!converged) return false;
    double e = 0;  // residual of the final weights
    for (int a = 0; a < dim; ++a) {
        double xa = 0;
        for (int i = 0; i < nn; ++i) xa += w[i] * xn[i * 3 + a];
        e = fmax(e, fabs(x[a] - xa));
    }
    return e <= 1e-10 * h && in_reference(type, xi, tol);
}

}  // namespace ugks::overset
