#include "ugks/solver/implicit_ops.hpp"

#include <algorithm>
#include <vector>

#include "ugks/solver/kernels/implicit.hpp"

namespace ugks::implicit {

std::vector<index_t> greedy_colour_order(const Mesh& mesh, index_t no,
                                         std::vector<index_t>& colour_offsets) {
    std::vector<int> colour(no, -1);
    int ncol = 0;
    for (index_t i = 0; i < no; ++i) {
        std::vector<char> used(ncol + 1, 0);
        for (index_t k = mesh.cell_face_offsets[i]; k < mesh.cell_face_offsets[i + 1]; ++k) {
            const index_t f = mesh.cell_faces[k];
            const index_t j = mesh.face_owner[f] == i ? mesh.face_neighbour[f] : mesh.face_owner[f];
            if (j >= 0 && j < no && j != i && colour[j] >= 0) used[colour[j]] = 1;
        }
        int c = 0;
        while (used[c]) ++c;
        colour[i] = c;
        ncol = std::max(ncol, c + 1);
    }
    std::vector<index_t> order(no);
    for (index_t i = 0; i < no; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](index_t a, index_t b) { return colour[a] < colour[b]; });
    colour_offsets.assign(ncol + 1, 0);
    for (index_t i = 0; i < no; ++i) ++colour_offsets[colour[i] + 1];
    for (int c = 0; c < ncol; ++c) colour_offsets[c + 1] += colour_offsets[c];
    return order;
}

namespace {

/// (1/(2 V_i)) sum_{f, j < no} S_f (dF_j.n - r_f dW_j) of owned cell i (kern::macro_offdiag).
inline void macro_offdiag(const Mesh& mesh, index_t no, const double* W, const double* rf,
                          const double* dW, double gamma, index_t i, double (&off)[5]) {
    static_assert(sizeof(Vec3) == 3 * sizeof(double), "Vec3 arrays are read as [n][3] doubles");
    kern::macro_offdiag(i, no, mesh.cell_face_offsets.data(), mesh.cell_faces.data(),
                        mesh.face_owner.data(), mesh.face_neighbour.data(),
                        mesh.face_normal.data()->data(), mesh.face_area.data(), mesh.cell_volume[i],
                        W, rf, dW, gamma, off);
}

}  // namespace

void macro_sgs(const Mesh& mesh, index_t no, const double* W, const double* rf, const double* diag,
               const double* rhs, double* dW, const index_t* order, int pairs, double gamma) {
    auto relax = [&](index_t i) {
        double off[5];
        macro_offdiag(mesh, no, W, rf, dW, gamma, i, off);
        for (int e = 0; e < 5; ++e) dW[5 * i + e] = (rhs[5 * i + e] - off[e]) / diag[i];
    };
    for (int p = 0; p < pairs; ++p) {
        for (index_t k = 0; k < no; ++k) relax(order[k]);
        for (index_t k = no - 1; k >= 0; --k) relax(order[k]);
    }
}

void macro_system_residual(const Mesh& mesh, index_t no, const double* W, const double* rf,
                           const double* diag, const double* rhs, const double* dW, double gamma,
                           double* res) {
    for (index_t i = 0; i < no; ++i) {
        double off[5];
        macro_offdiag(mesh, no, W, rf, dW, gamma, i, off);
        for (int e = 0; e < 5; ++e)
            res[5 * i + e] = diag[i] * dW[5 * i + e] + off[e] - rhs[5 * i + e];
    }
}

namespace {

/// Diagonal (a) and upstream sum (acc = -sum S (u.n)^- x_j) of owned cell i, per velocity
/// (kern::micro_row_face; not yet divided by the volume).
inline void micro_row(const Mesh& mesh, index_t no, int B, const double* ux, const double* uy,
                      const double* uz, const double* x, const double* xb, index_t i, double* a,
                      double* acc, double* accb) {
    for (int v = 0; v < B; ++v) a[v] = acc[v] = accb[v] = 0.0;
    for (index_t k = mesh.cell_face_offsets[i]; k < mesh.cell_face_offsets[i + 1]; ++k) {
        const index_t f = mesh.cell_faces[k];
        const bool own = mesh.face_owner[f] == i;
        const index_t j = own ? mesh.face_neighbour[f] : mesh.face_owner[f];
        const double sg = own ? 1.0 : -1.0;
        const double S = mesh.face_area[f];
        const double n0 = sg * mesh.face_normal[f][0], n1 = sg * mesh.face_normal[f][1],
                     n2 = sg * mesh.face_normal[f][2];
        const bool coupled = j >= 0 && j < no;
        const double* xj = coupled ? x + static_cast<std::size_t>(j) * B : nullptr;
        const double* xbj = coupled && xb ? xb + static_cast<std::size_t>(j) * B : nullptr;
        for (int v = 0; v < B; ++v) {
            const double un = ux[v] * n0 + uy[v] * n1 + uz[v] * n2;
            kern::micro_row_face<true>(S, un, coupled, coupled ? xj[v] : 0.0, xbj ? xbj[v] : 0.0,
                                       a[v], acc[v], accb[v]);
        }
    }
}

}  // namespace

void micro_sgs(const Mesh& mesh, index_t no, int B, const double* ux, const double* uy,
               const double* uz, const double* a0, const double* rhs, double* x,
               const double* rhs_b, double* xb, const index_t* order, int pairs) {
    std::vector<double> a(B), acc(B), accb(B);
    auto relax = [&](index_t i) {
        micro_row(mesh, no, B, ux, uy, uz, x, xb, i, a.data(), acc.data(), accb.data());
        const std::size_t o = static_cast<std::size_t>(i) * B;
        const double invV = 1.0 / mesh.cell_volume[i];
        for (int v = 0; v < B; ++v) {
            const double inv = kern::micro_row_inverse(a0[i], a[v], invV);
            x[o + v] = (rhs[o + v] + invV * acc[v]) * inv;
            if (xb) xb[o + v] = (rhs_b[o + v] + invV * accb[v]) * inv;
        }
    };
    for (int p = 0; p < pairs; ++p) {
        for (index_t k = 0; k < no; ++k) relax(order[k]);
        for (index_t k = no - 1; k >= 0; --k) relax(order[k]);
    }
}

void micro_apply(const Mesh& mesh, index_t no, int B, const double* ux, const double* uy,
                 const double* uz, const double* a0, const double* x, double* y) {
    std::vector<double> a(B), acc(B), accb(B);
    for (index_t i = 0; i < no; ++i) {
        micro_row(mesh, no, B, ux, uy, uz, x, nullptr, i, a.data(), acc.data(), accb.data());
        const std::size_t o = static_cast<std::size_t>(i) * B;
        const double invV = 1.0 / mesh.cell_volume[i];
        for (int v = 0; v < B; ++v) y[o + v] = (a0[i] + invV * a[v]) * x[o + v] - invV * acc[v];
    }
}

}  // namespace ugks::implicit
