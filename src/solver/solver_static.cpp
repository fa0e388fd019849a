// Static data of the UGKS step: velocity tables, face kinds, least-squares coefficients and
// geometric vectors (periodic images and boundary mirror images included).
#include "ugks/solver/solver_static.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>

#include "ugks/core/error.hpp"
#include "ugks/physics/kinetic.hpp"
#include "ugks/solver/kernels/reconstruct.hpp"

namespace ugks {
namespace {

inline double dot3(const double* a, const double* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/// Solve the symmetric 3x3 system M x = r in the first `dim` coordinates (others: x = 0).
void solve_sym(int dim, double M[3][3], const double r[3], double x[3]) {
    x[0] = x[1] = x[2] = 0.0;
    if (dim == 1) {
        x[0] = r[0] / M[0][0];
    } else if (dim == 2) {
        const double det = M[0][0] * M[1][1] - M[0][1] * M[1][0];
        x[0] = (M[1][1] * r[0] - M[0][1] * r[1]) / det;
        x[1] = (M[0][0] * r[1] - M[1][0] * r[0]) / det;
    } else {
        const double a = M[0][0], b = M[0][1], c = M[0][2], d = M[1][0], e = M[1][1], f = M[1][2],
                     g = M[2][0], h = M[2][1], k = M[2][2];
        const double det = a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g);
        x[0] = ((e * k - f * h) * r[0] - (b * k - c * h) * r[1] + (b * f - c * e) * r[2]) / det;
        x[1] = (-(d * k - f * g) * r[0] + (a * k - c * g) * r[1] - (a * f - c * d) * r[2]) / det;
        x[2] = ((d * h - e * g) * r[0] - (a * h - b * g) * r[1] + (a * e - b * d) * r[2]) / det;
    }
}

}  // namespace

phys::GasParams gas_params(const CaseSetup& setup, int D) {
    phys::GasParams g;
    g.D = D;
    g.K = 3 - D + setup.gas.K_int;
    g.N = 3 + setup.gas.K_int;
    g.Pr = setup.gas.Pr;
    g.mu_ref = setup.gas.mu_ref;
    g.omega = setup.gas.omega;
    for (int d = 0; d < 3; ++d) g.acc[d] = setup.forces.acceleration[d];
    return g;
}

SolverStatic make_solver_static(const CaseSetup& setup, const LocalMesh& local,
                                const PhaseSpaceLayout& layout, const VelocityGrid& grid,
                                const VelocityBlocks& blocks) {
    const Mesh& mesh = local.mesh;
    SolverStatic S;
    S.dim = mesh.dim;
    S.D = grid.dim;
    S.B = blocks.block_size;
    int count = 0;
    blocks.range(layout.q, S.first, count);
    S.nblk = count;
    S.nc = mesh.n_cells();
    S.no = local.n_owned;
    S.nf = mesh.n_faces();
    S.ns = static_cast<index_t>(S.nblk) * S.B;
    S.store_b = phys::stores_b(grid.dim, setup.gas.K_int);
    for (const auto& u : grid.u)
        for (int d = 0; d < 3; ++d) S.umax_axis[d] = std::max(S.umax_axis[d], std::abs(u[d]));

    const index_t ns = S.ns;
    const index_t g0 = static_cast<index_t>(S.first) * S.B;
    S.u.resize(3 * ns);
    S.ux.resize(ns);
    S.uy.resize(ns);
    S.uz.resize(ns);
    S.w.resize(ns);
    for (index_t s = 0; s < ns; ++s) {
        for (int d = 0; d < 3; ++d) S.u[3 * s + d] = blocks.u[g0 + s][d];
        S.ux[s] = S.u[3 * s];
        S.uy[s] = S.u[3 * s + 1];
        S.uz[s] = S.u[3 * s + 2];
        S.w[s] = blocks.w[g0 + s];
    }

    // Tensor structure of the velocity grid: slot -> per-axis table offsets (k = (i ny + j) nz +
    // l).
    S.tensor = grid.is_tensor();
    if (S.tensor) {
        for (int d = 0; d < 3; ++d) {
            S.axis_off[d] = S.ntab;
            for (double x : grid.axis_nodes[d]) S.axis_x.push_back(x);
            S.ntab += static_cast<int>(grid.axis_nodes[d].size());
        }
        S.slot_idx.assign(3 * ns, -1);
        const int nz = grid.counts[2], ny = grid.counts[1];
        for (index_t s = 0; s < ns; ++s) {
            const index_t k = blocks.order[g0 + s];
            if (k < 0) continue;
            S.slot_idx[3 * s + 2] = S.axis_off[2] + static_cast<int>(k % nz);
            S.slot_idx[3 * s + 1] = S.axis_off[1] + static_cast<int>((k / nz) % ny);
            S.slot_idx[3 * s + 0] =
                S.axis_off[0] + static_cast<int>(k / (static_cast<index_t>(ny) * nz));
        }
    }

    // Boundary condition of every local boundary face.
    S.face_bc.assign(S.nf, -1);
    S.face_kind.assign(S.nf, kInterior);
    S.sym_index.assign(S.nf, -1);
    S.ghost_index.assign(S.nf, -1);
    S.ghost_face.clear();
    S.wall_T.assign(S.nf, 0.0);
    S.wall_U.assign(3 * S.nf, 0.0);
    std::vector<std::unique_ptr<WallValues>> wall_values;
    for (const auto& bc : setup.boundaries)
        wall_values.push_back(bc.type == "diffuse_wall" ? std::make_unique<WallValues>(bc)
                                                        : nullptr);
    for (index_t f = 0; f < S.nf; ++f) {
        if (mesh.face_neighbour[f] >= 0) continue;
        const std::string& patch = mesh.patch_names.at(mesh.face_patch[f]);
        for (std::size_t b = 0; b < setup.boundaries.size(); ++b)
            if (setup.boundaries[b].patch == patch) S.face_bc[f] = static_cast<int>(b);
        UGKS_REQUIRE(S.face_bc[f] >= 0, "boundary face without a condition: patch " << patch);
        const std::string& type = setup.boundaries[S.face_bc[f]].type;
        if (type == "periodic")
            throw InputError("boundaries." + patch + ": periodic face " +
                             std::to_string(local.global_face[f]) + " has no partner face");
        S.face_kind[f] = setup.boundaries[S.face_bc[f]].face_kind();
        if (setup.boundaries[S.face_bc[f]].reflects()) S.sym_index[f] = S.nsym++;
        if (S.face_kind[f] == kDiffuseWall) {
            const WallValues& wv = *wall_values[S.face_bc[f]];
            S.wall_T[f] = wv.T(mesh.face_centroid[f]);
            const Vec3 U = wv.U(mesh.face_centroid[f]);
            for (int d = 0; d < 3; ++d) S.wall_U[3 * f + d] = U[d];
        }
        if (S.face_kind[f] == kGhostMaxwellian) {
            S.ghost_index[f] = static_cast<index_t>(S.ghost_face.size());
            S.ghost_face.push_back(f);
        }
    }

    // Geometric vectors. shift(f): the neighbour's image is x_R + shift.
    auto shift = [&](index_t f, int c) {
        return mesh.face_shift.empty() ? 0.0 : mesh.face_shift[f][c];
    };
    S.face_dxL.assign(3 * S.nf, 0.0);
    S.face_dxR.assign(3 * S.nf, 0.0);
    for (index_t f = 0; f < S.nf; ++f) {
        const index_t L = mesh.face_owner[f], R = mesh.face_neighbour[f];
        const auto& xf = mesh.face_centroid[f];
        const auto& xL = mesh.cell_centroid[L];
        const auto& n = mesh.face_normal[f];
        double dn = 0.0;
        for (int c = 0; c < 3; ++c) {
            S.face_dxL[3 * f + c] = xf[c] - xL[c];
            dn += (xf[c] - xL[c]) * n[c];
        }
        for (int c = 0; c < 3; ++c)
            S.face_dxR[3 * f + c] = R >= 0 ? xf[c] - (mesh.cell_centroid[R][c] + shift(f, c))
                                           : S.face_dxL[3 * f + c] - 2.0 * dn * n[c];
    }

    // Least-squares coefficient vectors c_ij (section 4.2, w = 1/|dr|^2); boundary faces add a
    // zero-gradient mirror constraint (phi_ghost = phi_i) to the matrix.
    S.lsq_off.assign(S.no + 1, 0);
    for (index_t i = 0; i < S.no; ++i)
        S.lsq_off[i + 1] =
            S.lsq_off[i] + (mesh.cell_face_offsets[i + 1] - mesh.cell_face_offsets[i]);
    S.lsq.assign(3 * S.lsq_off[S.no], 0.0);
    S.slot_dx.assign(3 * S.lsq_off[S.no], 0.0);
    for (index_t i = 0; i < S.no; ++i) {
        const auto& xi = mesh.cell_centroid[i];
        double M[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
        std::vector<std::array<double, 4>> dr;  // dr, weight
        index_t slot = S.lsq_off[i];
        for (index_t k = mesh.cell_face_offsets[i]; k < mesh.cell_face_offsets[i + 1];
             ++k, ++slot) {
            const index_t f = mesh.cell_faces[k];
            const bool owner = mesh.face_owner[f] == i;
            const index_t j = owner ? mesh.face_neighbour[f] : mesh.face_owner[f];
            // x_f and the other cell as seen from cell i (shifted back on the neighbour side)
            const double sgn = owner ? 0.0 : -1.0;
            double d[3];
            for (int c = 0; c < 3; ++c)
                S.slot_dx[3 * slot + c] = mesh.face_centroid[f][c] + sgn * shift(f, c) - xi[c];
            if (j >= 0) {
                for (int c = 0; c < 3; ++c)
                    d[c] = mesh.cell_centroid[j][c] + (owner ? shift(f, c) : -shift(f, c)) - xi[c];
            } else {
                const auto& n = mesh.face_normal[f];
                const double dn = dot3(&S.slot_dx[3 * slot], n.data());
                for (int c = 0; c < 3; ++c) d[c] = 2.0 * dn * n[c];
            }
            const double wgt = 1.0 / dot3(d, d);
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b) M[a][b] += wgt * d[a] * d[b];
            dr.push_back({d[0], d[1], d[2], wgt});
        }
        for (std::size_t k = 0; k < dr.size(); ++k) {
            double x[3];
            solve_sym(S.dim, M, dr[k].data(), x);
            for (int c = 0; c < 3; ++c) {
                const double v = dr[k][3] * x[c];
                S.lsq[3 * (S.lsq_off[i] + k) + c] = std::isfinite(v) ? v : 0.0;
            }
        }
    }

    // Per LSQ slot the neighbour cell, per cell-face entry the signed area (owned cells), per
    // owned cell the limiter threshold scale (K dh)^3 with dh = V^(1/dim).
    S.lsq_nbr.assign(std::max<index_t>(1, S.lsq_off[S.no]), -1);
    S.cf_sarea.assign(std::max<std::size_t>(1, mesh.cell_faces.size()), 0.0);
    S.kd3.assign(std::max<index_t>(1, S.no), 0.0);
    for (index_t i = 0; i < S.no; ++i) {
        index_t slot = S.lsq_off[i];
        for (index_t k = mesh.cell_face_offsets[i]; k < mesh.cell_face_offsets[i + 1];
             ++k, ++slot) {
            const index_t f = mesh.cell_faces[k];
            const bool own = mesh.face_owner[f] == i;
            S.lsq_nbr[slot] = own ? mesh.face_neighbour[f] : mesh.face_owner[f];
            S.cf_sarea[k] = (own ? 1.0 : -1.0) * mesh.face_area[f];
        }
        S.kd3[i] = std::pow(
            setup.numerics.venkatakrishnan_k * std::pow(mesh.cell_volume[i], 1.0 / S.dim), 3.0);
    }
    S.img_src = local.images.src;
    S.img_dst = local.images.dst;
    S.img_scale = local.images.scale;
    for (const JumpFace& J : local.jumps)
        if (J.partner >= 0) {
            S.jump_f.push_back(J.face);
            S.jump_fp.push_back(J.partner);
            S.jump_d.push_back(1.0 / J.scale - 1.0);
        }
    const std::string& lim = setup.numerics.limiter;
    S.limiter = lim == "venkatakrishnan"   ? kern::kVenkatakrishnan
                : lim == "barth_jespersen" ? kern::kBarthJespersen
                                           : kern::kNoLimiter;
    // Mirrored slots per velocity axis in local numbering (symmetry planes; -1: none, e.g. the
    // padding slots).
    S.mirror.assign(4 * static_cast<std::size_t>(std::max<index_t>(1, ns)), -1);
    for (int a = 0; a < 3; ++a)
        if (!blocks.mirror[a].empty())
            for (index_t s = 0; s < ns; ++s) {
                const index_t gm = blocks.mirror[a][g0 + s];
                S.mirror[a * ns + s] = gm >= 0 ? gm - g0 : -1;
            }
    for (index_t s = 0; s < ns; ++s)
        if (blocks.order[g0 + s] >= 0) S.mirror[kern::kInterpolatedMirror * ns + s] = s;
    // Interpolated reflections: their faces and the tensor grid they interpolate on.
    S.spec_ns = blocks.n_slots();
    S.spec_g0 = g0;
    for (index_t f = 0; f < S.nf; ++f)
        if (S.sym_index[f] >= 0 && setup.boundaries[S.face_bc[f]].interpolated_mirror) {
            S.spec_rows.push_back(S.sym_index[f]);
            S.spec_faces.push_back(f);
        }
    if (!S.spec_rows.empty()) {
        UGKS_REQUIRE(grid.is_tensor(), "interpolated reflection on a point-list velocity grid");
        for (int d = 0; d < 3; ++d)  // laid out like axis_x
            S.spec_w.insert(S.spec_w.end(), grid.axis_weights[d].begin(),
                            grid.axis_weights[d].end());
        S.spec_slot.assign(grid.size(), -1);
        for (index_t s = 0; s < blocks.n_slots(); ++s)
            if (blocks.order[s] >= 0) S.spec_slot[blocks.order[s]] = s;
    }
    auto flat = [](const std::vector<Vec3>& v) {
        std::vector<double> out(std::max<std::size_t>(3, 3 * v.size()), 0.0);
        for (std::size_t i = 0; i < v.size(); ++i)
            for (int d = 0; d < 3; ++d) out[3 * i + d] = v[i][d];
        return out;
    };
    S.normal = flat(mesh.face_normal);
    S.face_centroid = flat(mesh.face_centroid);
    S.cell_centroid = flat(mesh.cell_centroid);
    return S;
}

std::vector<CellField> cell_output_fields(index_t n, const double* W, const double* q,
                                          const std::vector<double>& stress, int N, double omega,
                                          double Kn) {
    std::vector<double> rho(n), U(3 * n), T(n), p(n), qo(3 * n), mach(n), kn(n);
    const double gamma = (N + 2.0) / N;
    for (index_t i = 0; i < n; ++i) {
        const phys::Prim pr = phys::cons_to_prim(&W[5 * i], N);
        rho[i] = pr.rho;
        T[i] = 1.0 / pr.lambda;
        p[i] = pr.rho * T[i] / 2.0;
        double s2 = 0.0;
        for (int d = 0; d < 3; ++d) {
            U[3 * i + d] = pr.U[d];
            qo[3 * i + d] = q[3 * i + d];
            s2 += pr.U[d] * pr.U[d];
        }
        mach[i] = std::sqrt(s2) / std::sqrt(gamma * T[i] / 2.0);
        kn[i] = Kn / pr.rho * std::pow(T[i], omega - 0.5);
    }
    std::vector<CellField> f;
    f.push_back({"rho", 1, rho});
    f.push_back({"U", 3, U});
    f.push_back({"T", 1, T});
    f.push_back({"p", 1, p});
    f.push_back({"q", 3, qo});
    f.push_back({"stress", 6, std::vector<double>(stress.begin(), stress.begin() + 6 * n)});
    f.push_back({"Mach", 1, mach});
    f.push_back({"Kn_local", 1, kn});
    return f;
}

}  // namespace ugks
