#include "ugks/solver/macro_krylov.hpp"

#include <algorithm>
#include <cmath>

#include "ugks/core/error.hpp"
#include "ugks/solver/kernels/implicit.hpp"

namespace ugks::implicit {

BlockCsr5 macro_pattern(const Mesh& mesh, index_t no) {
    BlockCsr5 A;
    A.n = no;
    // Row counts from the faces (each owned-owned face adds a block to both rows), the diagonal,
    // an exclusive scan, the fill, then per row: sort and drop repeated columns.
    std::vector<index_t> count(no, 1);
    auto coupled = [&](index_t f, index_t& L, index_t& R) {
        L = mesh.face_owner[f];
        R = mesh.face_neighbour[f];
        return L >= 0 && L < no && R >= 0 && R < no && L != R;
    };
    for (index_t f = 0; f < mesh.n_faces(); ++f) {
        index_t L, R;
        if (!coupled(f, L, R)) continue;
        ++count[L];
        ++count[R];
    }
    std::vector<index_t> start(no + 1, 0);
    for (index_t i = 0; i < no; ++i) start[i + 1] = start[i] + count[i];
    std::vector<index_t> cols(start[no]);
    std::vector<index_t> cursor(start.begin(), start.end() - 1);
    for (index_t i = 0; i < no; ++i) cols[cursor[i]++] = i;
    for (index_t f = 0; f < mesh.n_faces(); ++f) {
        index_t L, R;
        if (!coupled(f, L, R)) continue;
        cols[cursor[L]++] = R;
        cols[cursor[R]++] = L;
    }
    A.row_ptr.assign(no + 1, 0);
    A.col.reserve(cols.size());
    A.diag.assign(no, -1);
    for (index_t i = 0; i < no; ++i) {
        std::sort(cols.begin() + start[i], cols.begin() + start[i + 1]);
        const auto end = std::unique(cols.begin() + start[i], cols.begin() + start[i + 1]);
        for (auto it = cols.begin() + start[i]; it != end; ++it) {
            if (*it == i) A.diag[i] = static_cast<index_t>(A.col.size());
            A.col.push_back(*it);
        }
        A.row_ptr[i + 1] = static_cast<index_t>(A.col.size());
    }
    A.val.assign(25 * A.col.size(), 0.0);
    return A;
}

namespace {

index_t block_position(const BlockCsr5& A, index_t i, index_t j) {
    const auto b = A.col.begin() + A.row_ptr[i], e = A.col.begin() + A.row_ptr[i + 1];
    const auto it = std::lower_bound(b, e, j);
    UGKS_REQUIRE(it != e && *it == j, "macro matrix: no block (" << i << ", " << j << ")");
    return static_cast<index_t>(it - A.col.begin());
}

}  // namespace

void macro_fill(const Mesh& mesh, index_t no, const double* W, const double* rf, const double* diag,
                double gamma, BlockCsr5& A) {
    std::fill(A.val.begin(), A.val.end(), 0.0);
    static_assert(sizeof(Vec3) == 3 * sizeof(double), "Vec3 arrays are read as [n][3] doubles");
    for (index_t i = 0; i < no; ++i) {
        // every block the row writes exists (the pattern holds each owned face neighbour)
        for (index_t k = mesh.cell_face_offsets[i]; k < mesh.cell_face_offsets[i + 1]; ++k) {
            const index_t f = mesh.cell_faces[k];
            const index_t j = mesh.face_owner[f] == i ? mesh.face_neighbour[f] : mesh.face_owner[f];
            if (j >= 0 && j < no) (void)block_position(A, i, j);
        }
        kern::macro_fill_row(i, no, mesh.cell_face_offsets.data(), mesh.cell_faces.data(),
                             mesh.face_owner.data(), mesh.face_neighbour.data(),
                             mesh.face_normal.data()->data(), mesh.face_area.data(),
                             mesh.cell_volume[i], W, rf, diag, gamma, A.row_ptr.data(),
                             A.col.data(), A.diag.data(), A.val.data());
    }
}

void bcsr_apply(const BlockCsr5& A, const double* x, double* y) {
    for (index_t i = 0; i < A.n; ++i)
        kern::bcsr_row_apply(i, A.row_ptr.data(), A.col.data(), A.val.data(), x, y);
}

void bcsr_sgs(const BlockCsr5& A, const double* b, double* x, const index_t* order, int pairs) {
    std::fill(x, x + 5 * A.n, 0.0);
    auto relax = [&](index_t i) {
        kern::bcsr_row_relax(i, A.row_ptr.data(), A.col.data(), A.diag.data(), A.val.data(), b, x);
    };
    for (int s = 0; s < pairs; ++s) {
        for (index_t k = 0; k < A.n; ++k) relax(order[k]);
        for (index_t k = A.n - 1; k >= 0; --k) relax(order[k]);
    }
}

GmresResult gmres(index_t n, const LinearOp& apply, const LinearOp& precond, const Reduce& reduce,
                  const double* b, double* x, int restart, int max_iterations, double rtol) {
    UGKS_REQUIRE(restart >= 1 && max_iterations >= 0, "gmres: bad restart or iteration limit");
    // Host vectors: plain loops; the same algorithm runs on device vectors in the CUDA solver.
    struct HostOps {
        std::size_t N;
        const LinearOp& A;
        const LinearOp& M;
        const Reduce& red;
        double dot(const double* u, const double* v) const {
            double s = 0.0;
            for (std::size_t k = 0; k < N; ++k) s += u[k] * v[k];
            return red(s);
        }
        void axpy(double a, const double* u, double* y) const {
            for (std::size_t k = 0; k < N; ++k) y[k] += a * u[k];
        }
        void scale(double a, const double* u, double* y) const {
            for (std::size_t k = 0; k < N; ++k) y[k] = a * u[k];
        }
        void zero(double* y) const { std::fill(y, y + N, 0.0); }
        void apply(const double* u, double* y) const { A(u, y); }
        void precond(const double* u, double* y) const {
            if (M)
                M(u, y);
            else
                std::copy(u, u + N, y);
        }
    };
    const std::size_t N = static_cast<std::size_t>(n);
    HostOps ops{N, apply, precond, reduce};
    std::vector<std::vector<double>> Vs(restart + 1, std::vector<double>(N));
    std::vector<double*> V(restart + 1);
    for (int k = 0; k <= restart; ++k) V[k] = Vs[k].data();
    std::vector<double> r(N), w(N), z(N);
    return gmres_generic(ops, b, x, V.data(), r.data(), w.data(), z.data(), restart, max_iterations,
                         rtol);
}

GmresResult macro_gmres(const Mesh& mesh, index_t no, const double* W, const double* rf,
                        const double* diag, const double* rhs, double* dW, const index_t* order,
                        double gamma, const MacroKrylovSettings& settings, const Reduce& reduce,
                        BlockCsr5& A) {
    macro_fill(mesh, no, W, rf, diag, gamma, A);
    std::fill(dW, dW + 5 * no, 0.0);
    const auto apply = [&](const double* x, double* y) { bcsr_apply(A, x, y); };
    LinearOp pre;
    if (settings.precond_pairs > 0)
        pre = [&](const double* z, double* y) { bcsr_sgs(A, z, y, order, settings.precond_pairs); };
    return gmres(5 * no, apply, pre, reduce, rhs, dW, settings.restart, settings.max_iterations,
                 settings.rtol);
}

}  // namespace ugks::implicit
