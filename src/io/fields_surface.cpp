// Wall (surface) output: per-face p, tau, q and coefficients, force and heat totals, written as
// parallel HDF5 + XDMF and CSV (docs/formulation.md section 9, docs/architecture.md section 8). The
// file name puts it into ugks_io (src/io/fields*.cpp); it writes through the HDF5 and XDMF helpers
// of the field output (hdf5_common.hpp, ugks/io/xdmf.hpp).
#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hdf5_common.hpp"
#include "ugks/core/error.hpp"
#include "ugks/core/version.hpp"
#include "ugks/io/fields_io.hpp"
#include "ugks/io/surface_io.hpp"
#include "ugks/io/xdmf.hpp"

namespace ugks {
namespace {

using namespace io_detail;

static_assert(sizeof(Vec3) == 3 * sizeof(double), "Vec3 must be three packed doubles");
static_assert(sizeof(index_t) == sizeof(std::int64_t), "index_t must be int64");

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
double norm(const Vec3& a) { return std::sqrt(dot(a, a)); }

// ---- gathered wall faces ---------------------------------------------------------------------

// Doubles per face in the gathered rows: centroid 3, normal 3, area, P 3, qw.
constexpr int kRow = 11;

/// All wall faces of the communicator, in ascending global face order (identical on every rank).
struct AllFaces {
    std::vector<index_t> id;
    std::vector<index_t> patch;
    std::vector<double> row;  // kRow per face
    index_t size() const { return static_cast<index_t>(id.size()); }
    const double* centroid(index_t i) const { return row.data() + i * kRow; }
    const double* normal(index_t i) const { return row.data() + i * kRow + 3; }
    double area(index_t i) const { return row[i * kRow + 6]; }
    Vec3 P(index_t i) const {
        const double* r = row.data() + i * kRow + 7;
        return {r[0], r[1], r[2]};
    }
    double qw(index_t i) const { return row[i * kRow + 10]; }
};

AllFaces gather_faces(MPI_Comm comm, const std::vector<SurfaceFace>& faces) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    UGKS_REQUIRE(faces.size() < static_cast<std::size_t>(INT_MAX),
                 "too many surface faces on one rank: " << faces.size());
    const int n_local = static_cast<int>(faces.size());
    std::vector<int> counts(size), displs(size, 0);
    MPI_Allgather(&n_local, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
    long long total = 0;
    for (int r = 0; r < size; ++r) {
        displs[r] = static_cast<int>(total);
        total += counts[r];
        UGKS_REQUIRE(total < INT_MAX, "too many surface faces: " << total);
    }

    std::vector<index_t> ids_local(2 * faces.size());
    std::vector<double> rows_local(kRow * faces.size());
    for (std::size_t i = 0; i < faces.size(); ++i) {
        const SurfaceFace& f = faces[i];
        ids_local[2 * i] = f.global_face;
        ids_local[2 * i + 1] = f.patch;
        double* r = rows_local.data() + kRow * i;
        std::copy(f.centroid.begin(), f.centroid.end(), r);
        std::copy(f.normal.begin(), f.normal.end(), r + 3);
        r[6] = f.area;
        std::copy(f.P.begin(), f.P.end(), r + 7);
        r[10] = f.qw;
    }
    // Rows travel as derived types, so the counts stay face counts.
    MPI_Datatype id_type, row_type;
    MPI_Type_contiguous(2, MPI_INT64_T, &id_type);
    MPI_Type_contiguous(kRow, MPI_DOUBLE, &row_type);
    MPI_Type_commit(&id_type);
    MPI_Type_commit(&row_type);
    std::vector<index_t> ids_all(2 * static_cast<std::size_t>(total));
    std::vector<double> rows_all(kRow * static_cast<std::size_t>(total));
    MPI_Allgatherv(ids_local.data(), n_local, id_type, ids_all.data(), counts.data(), displs.data(),
                   id_type, comm);
    MPI_Allgatherv(rows_local.data(), n_local, row_type, rows_all.data(), counts.data(),
                   displs.data(), row_type, comm);
    MPI_Type_free(&id_type);
    MPI_Type_free(&row_type);

    std::vector<index_t> order(static_cast<std::size_t>(total));
    std::iota(order.begin(), order.end(), index_t{0});
    std::sort(order.begin(), order.end(),
              [&](index_t a, index_t b) { return ids_all[2 * a] < ids_all[2 * b]; });
    AllFaces out;
    out.id.resize(order.size());
    out.patch.resize(order.size());
    out.row.resize(rows_all.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        const index_t k = order[i];
        out.id[i] = ids_all[2 * k];
        out.patch[i] = ids_all[2 * k + 1];
        std::copy_n(rows_all.data() + kRow * k, kRow, out.row.data() + kRow * i);
        UGKS_REQUIRE(i == 0 || out.id[i] != out.id[i - 1],
                     "surface face " << out.id[i] << " given twice (by one or two ranks)");
    }
    return out;
}

/// Sum over faces i with `keep(i)`, in ascending global face order.
template <class Keep>
SurfaceTotals sum_faces(const AllFaces& all, const SurfaceReference& ref, Keep&& keep) {
    SurfaceTotals t;
    for (index_t i = 0; i < all.size(); ++i) {
        if (!keep(i)) continue;
        const double a = all.area(i);
        const Vec3 P = all.P(i);
        const Vec3 F{P[0] * a, P[1] * a, P[2] * a};
        for (int d = 0; d < 3; ++d) t.force[d] += F[d];
        t.heat += all.qw(i) * a;
        t.area += a;
        ++t.n_faces;
        const double* x = all.centroid(i);
        add_body_loads(ref, {x[0], x[1], x[2]}, F, all.qw(i) * a, a, t.body);
    }
    t.images = 1 << ref.symmetry.size();
    body_coefficients(ref, t);
    return t;
}

// ---- HDF5 writing ----------------------------------------------------------------------------

/// Force, heat, area and face count (computed part), the whole body's loads and the coefficients
/// of `t` as attributes of `loc`.
void totals_attributes(const H5File& w, hid_t loc, const SurfaceTotals& t) {
    w.attribute(loc, "force", t.force);
    w.attribute(loc, "heat", t.heat);
    w.attribute(loc, "area", t.area);
    w.attribute(loc, "face_count", static_cast<std::int64_t>(t.n_faces));
    w.attribute(loc, "body_force", t.body.force);
    w.attribute(loc, "body_moment", t.body.moment);
    w.attribute(loc, "body_heat", t.body.heat);
    w.attribute(loc, "body_area", t.body.area);
    w.attribute(loc, "images", static_cast<std::int64_t>(t.images));
    w.attribute(loc, "CD", t.CD);
    w.attribute(loc, "CL", t.CL);
    w.attribute(loc, "CS", t.CS);
    w.attribute(loc, "Cm", t.Cm);
}

/// Per-face arrays in global face order, everything the files hold.
struct SurfaceData {
    AllFaces faces;
    std::vector<WallCoefficients> coef;
    std::vector<index_t> global_node;  // surface nodes, ascending global id
    std::vector<index_t> topology;     // XDMF Mixed list, local node ids
    std::vector<index_t> topo_offset;  // per face start in `topology`, n + 1 entries
    SurfaceTotals total;
    std::vector<SurfaceTotals> per_patch;  // in patch_names order
    std::vector<int> patch_index;          // mesh index of each listed patch
};

struct Meta {
    std::string config;
    long step = 0;
    double time = 0;
    SurfaceReference ref;
    std::vector<std::string> patch_names;  // listed (wall) patches
    const FieldsMeta* extra = nullptr;     // node scale, units, extra attributes
};

/// Unique HDF5 group names for the listed patches ('/' is a path separator in HDF5).
std::vector<std::string> group_names(const std::vector<std::string>& names) {
    std::vector<std::string> out;
    std::set<std::string> taken;
    for (std::size_t k = 0; k < names.size(); ++k) {
        std::string g = names[k];
        std::replace(g.begin(), g.end(), '/', '_');
        if (g.empty() || g == "." || g == "..") g = "_" + g;
        if (taken.count(g)) g += "_" + std::to_string(k);
        taken.insert(g);
        out.push_back(g);
    }
    return out;
}

void write_h5(const H5File& w, MPI_Comm comm, const Mesh& m, const SurfaceData& s,
              const Meta& meta) {
    int size = 1, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    const index_t n = s.faces.size();
    const hid_t root = w.root();

    const BlockLayout blocks{n, size};
    const index_t f0 = blocks.begin(rank), nf = blocks.end(rank) - f0;
    // Column of `width` values per face of this rank's block, from an accessor.
    auto column = [&](int width, auto&& get) {
        std::vector<double> out(static_cast<std::size_t>(nf) * width);
        for (index_t i = 0; i < nf; ++i) get(f0 + i, out.data() + i * width);
        return out;
    };
    // Group handles of /faces and /fields with their paths, for the `units` attributes.
    std::string group_path;
    auto write_column = [&](hid_t g, const char* name, int width, auto&& get) {
        const std::vector<double> c = column(width, get);
        Hid d = w.write(g, name, Shape::of_width(n, width), f0, nf, c.data());
        const std::string u = meta.extra->unit_of(group_path + name);
        if (!u.empty()) w.string_attribute(d.get(), "units", u);
    };

    {
        Hid g = w.group(root, "faces");
        group_path = "/faces/";
        w.write(g.get(), "global_face", Shape{n}, f0, nf, s.faces.id.data() + f0);
        Hid p = w.write(g.get(), "patch", Shape{n}, f0, nf, s.faces.patch.data() + f0);
        std::string names;
        for (const std::string& name : m.patch_names) names += name + "\n";
        w.string_attribute(p.get(), "patch_names", names);
        write_column(g.get(), "centroid", 3,
                     [&](index_t i, double* out) { std::copy_n(s.faces.centroid(i), 3, out); });
        write_column(g.get(), "normal", 3,
                     [&](index_t i, double* out) { std::copy_n(s.faces.normal(i), 3, out); });
        write_column(g.get(), "area", 1, [&](index_t i, double* out) { *out = s.faces.area(i); });
    }
    {
        Hid g = w.group(root, "fields");
        group_path = "/fields/";
        write_column(g.get(), "p", 1, [&](index_t i, double* out) { *out = s.coef[i].p; });
        write_column(g.get(), "tau", 3, [&](index_t i, double* out) {
            std::copy(s.coef[i].tau.begin(), s.coef[i].tau.end(), out);
        });
        write_column(g.get(), "q", 1, [&](index_t i, double* out) { *out = s.faces.qw(i); });
        write_column(g.get(), "Cp", 1, [&](index_t i, double* out) { *out = s.coef[i].Cp; });
        write_column(g.get(), "Cf", 1, [&](index_t i, double* out) { *out = s.coef[i].Cf; });
        write_column(g.get(), "Ch", 1, [&](index_t i, double* out) { *out = s.coef[i].Ch; });
    }
    {
        Hid g = w.group(root, "mesh");
        const index_t n_nodes = static_cast<index_t>(s.global_node.size());
        const BlockLayout nodes{n_nodes, size};
        const index_t p0 = nodes.begin(rank), np = nodes.end(rank) - p0;
        std::vector<double> xyz(static_cast<std::size_t>(np) * 3);
        for (index_t i = 0; i < np; ++i) {
            const Vec3& x = m.nodes[s.global_node[p0 + i]];
            for (int d = 0; d < 3; ++d) xyz[3 * i + d] = x[d] * meta.extra->length_scale;
        }
        w.write(g.get(), "nodes", Shape{n_nodes, 3}, p0, np, xyz.data());
        w.write(g.get(), "global_node", Shape{n_nodes}, p0, np, s.global_node.data() + p0);
        const index_t t0 = s.topo_offset[f0], t1 = s.topo_offset[f0 + nf];
        Hid t = w.write(g.get(), "topology", Shape{static_cast<index_t>(s.topology.size())}, t0,
                        t1 - t0, s.topology.data() + t0);
        w.attribute(t.get(), "cell_count", static_cast<std::int64_t>(n));
        const auto [code, k] = xdmf_uniform_type(s.topology);
        if (code != 0) {
            const std::vector<index_t> block(s.topology.begin() + t0, s.topology.begin() + t1);
            w.write(g.get(), "connectivity", Shape{n, k}, f0, nf, xdmf_connectivity(block).data());
        }
    }
    {
        Hid g = w.group(root, "totals");
        totals_attributes(w, g.get(), s.total);
        const std::vector<std::string> groups = group_names(meta.patch_names);
        for (std::size_t k = 0; k < groups.size(); ++k) {
            Hid pg = w.group(g.get(), groups[k]);
            w.string_attribute(pg.get(), "name", meta.patch_names[k]);
            w.attribute(pg.get(), "patch", static_cast<std::int64_t>(s.patch_index[k]));
            totals_attributes(w, pg.get(), s.per_patch[k]);
        }
    }

    w.string_attribute(root, "config", meta.config);
    w.attribute(root, "step", static_cast<std::int64_t>(meta.step));
    w.attribute(root, "time", meta.time);
    w.string_attribute(root, "ugks_version", std::string(version_string) + " (" + git_commit + ")");
    if (!meta.extra->run_id.empty()) w.string_attribute(root, "run_id", meta.extra->run_id);
    for (const auto& [name, value] : meta.extra->numbers) w.attribute(root, name.c_str(), value);
    for (const auto& [name, value] : meta.extra->strings)
        w.string_attribute(root, name.c_str(), value);
    totals_attributes(w, root, s.total);
    const SurfaceReference& ref = meta.ref;
    w.attribute(root, "rho_inf", ref.rho_inf);
    w.attribute(root, "p_inf", ref.p_inf);
    w.attribute(root, "U_inf", ref.U_inf);
    w.attribute(root, "A_ref", ref.A_ref);
    w.attribute(root, "L_ref", ref.L_ref);
    w.attribute(root, "moment_center", ref.moment_center);
    const SurfaceAxes axes = surface_axes(ref);
    w.attribute(root, "drag_dir", axes.drag);
    w.attribute(root, "lift_dir", axes.lift);
    w.attribute(root, "side_dir", axes.side);
    w.attribute(root, "q_ref", ref.q_ref);
    w.attribute(root, "q_dyn", surface_dynamic_pressure(ref));
    w.attribute(root, "U_ref", surface_reference_speed(ref));
}

// ---- XDMF and CSV --------------------------------------------------------------------------

std::string make_xdmf(const std::string& h5_name, const SurfaceData& s) {
    XdmfMesh xm;
    xm.h5_name = h5_name;
    xm.nodes_dataset = "/mesh/nodes";
    xm.n_cells = s.faces.size();
    xm.topology_length = static_cast<index_t>(s.topology.size());
    xm.n_nodes = static_cast<index_t>(s.global_node.size());
    const auto [code, k] = xdmf_uniform_type(s.topology);
    xm.uniform_code = code;
    xm.nodes_per_cell = k;
    xm.topology_dataset = code != 0 ? "/mesh/connectivity" : "/mesh/topology";
    XdmfGrid x(xm, "surface", nullptr, "    ");
    for (const auto& [name, width, ds] :
         std::vector<std::tuple<const char*, int, const char*>>{{"p", 1, "/fields/p"},
                                                                {"tau", 3, "/fields/tau"},
                                                                {"q", 1, "/fields/q"},
                                                                {"Cp", 1, "/fields/Cp"},
                                                                {"Cf", 1, "/fields/Cf"},
                                                                {"Ch", 1, "/fields/Ch"},
                                                                {"normal", 3, "/faces/normal"},
                                                                {"area", 1, "/faces/area"}})
        x.cell_attribute(name, width, "Float", h5_name, ds);
    x.cell_attribute("global_face", 1, "Int", h5_name, "/faces/global_face");
    x.cell_attribute("patch", 1, "Int", h5_name, "/faces/patch");
    return xdmf_document(x.text());
}

std::string num(double x) {
    if (std::isnan(x)) return "nan";  // glibc would print "-nan" for a negative NaN
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    return buf;
}

/// A CSV field, quoted when it holds a separator or a quote.
std::string csv_text(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char ch : s) {
        if (ch == '"') out += '"';
        out += (ch == '\n' || ch == '\r') ? ' ' : ch;
    }
    return out + "\"";
}

std::string totals_row(const std::string& name, index_t patch, const SurfaceTotals& t) {
    std::string out = csv_text(name) + "," + std::to_string(patch) + "," +
                      std::to_string(t.n_faces) + "," + num(t.area);
    for (double x : {t.force[0], t.force[1], t.force[2], t.heat, t.CD, t.CL, t.CS, t.Cm[0], t.Cm[1],
                     t.Cm[2], t.body.force[0], t.body.force[1], t.body.force[2], t.body.moment[0],
                     t.body.moment[1], t.body.moment[2], t.body.heat})
        out += "," + num(x);
    return out + "\n";
}

/// The per-face table: one header line, one row per face, the patch by name.
std::string make_csv(const Mesh& m, const SurfaceData& s) {
    std::string out = "global_face,patch,x,y,z,nx,ny,nz,area,p,tau_x,tau_y,tau_z,q,Cp,Cf,Ch\n";
    for (index_t i = 0; i < s.faces.size(); ++i) {
        const WallCoefficients& c = s.coef[i];
        out += std::to_string(s.faces.id[i]) + "," + csv_text(m.patch_names[s.faces.patch[i]]);
        const double* x = s.faces.centroid(i);
        const double* nrm = s.faces.normal(i);
        for (double v : {x[0], x[1], x[2], nrm[0], nrm[1], nrm[2], s.faces.area(i), c.p, c.tau[0],
                         c.tau[1], c.tau[2], s.faces.qw(i), c.Cp, c.Cf, c.Ch})
            out += "," + num(v);
        out += "\n";
    }
    return out;
}

/// The totals table: all walls ("all", patch -1), then one row per listed patch.
std::string make_totals_csv(const SurfaceData& s, const Meta& meta) {
    std::string out =
        "name,patch,faces,area,force_x,force_y,force_z,heat,CD,CL,CS,Cm_x,Cm_y,Cm_z,"
        "body_force_x,body_force_y,body_force_z,body_moment_x,body_moment_y,body_moment_z,"
        "body_heat\n";
    out += totals_row("all", -1, s.total);
    for (std::size_t k = 0; k < meta.patch_names.size(); ++k)
        out += totals_row(meta.patch_names[k], s.patch_index[k], s.per_patch[k]);
    return out;
}

/// Geometry-free part of the data: the faces' derived values, nodes, topology and totals.
SurfaceData build_surface(const Mesh& m, AllFaces faces, const Meta& meta) {
    SurfaceData s;
    s.faces = std::move(faces);
    const index_t n = s.faces.size();
    for (const std::string& name : meta.patch_names) s.patch_index.push_back(m.patch_index(name));
    for (index_t i = 0; i < n; ++i) {
        const index_t g = s.faces.id[i];
        UGKS_REQUIRE(g >= 0 && g < m.n_faces(), "surface face " << g
                                                                << " is not a face of the mesh ("
                                                                << m.n_faces() << " faces)");
        UGKS_REQUIRE(m.face_neighbour[g] < 0 && m.face_patch[g] >= 0,
                     "surface face " << g << " is not a boundary face");
        UGKS_REQUIRE(m.face_patch[g] == s.faces.patch[i],
                     "surface face " << g << " has patch " << s.faces.patch[i] << ", the mesh says "
                                     << m.face_patch[g]);
        UGKS_REQUIRE(std::find(s.patch_index.begin(), s.patch_index.end(), s.faces.patch[i]) !=
                         s.patch_index.end(),
                     "surface face " << g << " is on patch '" << m.patch_names[s.faces.patch[i]]
                                     << "', which is not among the surface patches");
        const double* nrm = s.faces.normal(i);
        s.coef.push_back(
            wall_coefficients(s.faces.P(i), s.faces.qw(i), {nrm[0], nrm[1], nrm[2]}, meta.ref));
    }

    for (index_t i = 0; i < n; ++i) {
        const index_t g = s.faces.id[i];
        s.global_node.insert(s.global_node.end(), m.face_nodes.begin() + m.face_node_offsets[g],
                             m.face_nodes.begin() + m.face_node_offsets[g + 1]);
    }
    std::sort(s.global_node.begin(), s.global_node.end());
    s.global_node.erase(std::unique(s.global_node.begin(), s.global_node.end()),
                        s.global_node.end());
    auto local_node = [&](index_t g) {
        return static_cast<index_t>(
            std::lower_bound(s.global_node.begin(), s.global_node.end(), g) -
            s.global_node.begin());
    };
    s.topo_offset.push_back(0);
    for (index_t i = 0; i < n; ++i) {
        const index_t g = s.faces.id[i];
        const index_t a = m.face_node_offsets[g], b = m.face_node_offsets[g + 1];
        const index_t nn = b - a;
        // XDMF Mixed codes: Polyvertex 1 and Polyline 2 (followed by the node count),
        // Triangle 4, Quadrilateral 5, else Polygon 3 (with the count).
        switch (nn) {
            case 1:
                s.topology.insert(s.topology.end(), {1, 1});
                break;
            case 2:
                s.topology.insert(s.topology.end(), {2, 2});
                break;
            case 3:
                s.topology.push_back(4);
                break;
            case 4:
                s.topology.push_back(5);
                break;
            default:
                s.topology.insert(s.topology.end(), {3, nn});
        }
        for (index_t k = a; k < b; ++k) s.topology.push_back(local_node(m.face_nodes[k]));
        s.topo_offset.push_back(static_cast<index_t>(s.topology.size()));
    }

    s.total = sum_faces(s.faces, meta.ref, [](index_t) { return true; });
    for (int p : s.patch_index)
        s.per_patch.push_back(
            sum_faces(s.faces, meta.ref, [&](index_t i) { return s.faces.patch[i] == p; }));
    return s;
}

}  // namespace

// ---- public API ------------------------------------------------------------------------------

double surface_dynamic_pressure(const SurfaceReference& ref) {
    const double u = norm(ref.U_inf);
    if (u > 0) return 0.5 * ref.rho_inf * u * u;
    return ref.q_ref > 0 ? ref.q_ref : kNaN;
}

double surface_reference_speed(const SurfaceReference& ref) {
    const double u = norm(ref.U_inf);
    if (u > 0) return u;
    return ref.q_ref > 0 ? std::sqrt(2 * ref.q_ref / ref.rho_inf) : kNaN;
}

WallCoefficients wall_coefficients(const Vec3& P, double qw, const Vec3& normal,
                                   const SurfaceReference& ref) {
    WallCoefficients c;
    c.p = dot(P, normal);
    for (int d = 0; d < 3; ++d) c.tau[d] = P[d] - c.p * normal[d];
    const double q_dyn = surface_dynamic_pressure(ref);
    c.Cp = (c.p - ref.p_inf) / q_dyn;
    c.Cf = norm(c.tau) / q_dyn;
    c.Ch = qw / (q_dyn * surface_reference_speed(ref));
    return c;
}

SurfaceAxes surface_axes(const SurfaceReference& ref) {
    SurfaceAxes a;
    const Vec3 nan{kNaN, kNaN, kNaN};
    const Vec3 d0 = norm(ref.drag_dir) > 0 ? ref.drag_dir : ref.U_inf;
    const double nd = norm(d0);
    a.drag = nd > 0 ? Vec3{d0[0] / nd, d0[1] / nd, d0[2] / nd} : nan;
    // Without a drag direction (a cavity: no free stream) the lift direction is taken as given.
    const double ld = nd > 0 ? dot(ref.lift_dir, a.drag) : 0.0;
    const Vec3 dd = nd > 0 ? a.drag : Vec3{0, 0, 0};
    Vec3 l{ref.lift_dir[0] - ld * dd[0], ref.lift_dir[1] - ld * dd[1],
           ref.lift_dir[2] - ld * dd[2]};
    const double nl = norm(l);
    a.lift = nl > 1e-12 * std::max(1.0, norm(ref.lift_dir)) ? Vec3{l[0] / nl, l[1] / nl, l[2] / nl}
                                                            : nan;
    a.side = {a.drag[1] * a.lift[2] - a.drag[2] * a.lift[1],
              a.drag[2] * a.lift[0] - a.drag[0] * a.lift[2],
              a.drag[0] * a.lift[1] - a.drag[1] * a.lift[0]};
    return a;
}

void add_body_loads(const SurfaceReference& ref, const Vec3& x, const Vec3& F, double Q,
                    double area, BodyLoads& loads) {
    const int m = static_cast<int>(ref.symmetry.size());
    for (int k = 0; k < (1 << m); ++k) {  // image k: reflected in the planes of k's set bits
        Vec3 xi = x, Fi = F;
        for (int j = 0; j < m; ++j) {
            if (!(k & (1 << j))) continue;
            const SymmetryPlane& s = ref.symmetry[j];
            xi[s.axis] = 2.0 * s.position - xi[s.axis];
            Fi[s.axis] = -Fi[s.axis];
        }
        const Vec3 r{xi[0] - ref.moment_center[0], xi[1] - ref.moment_center[1],
                     xi[2] - ref.moment_center[2]};
        for (int d = 0; d < 3; ++d) loads.force[d] += Fi[d];
        loads.moment[0] += r[1] * Fi[2] - r[2] * Fi[1];
        loads.moment[1] += r[2] * Fi[0] - r[0] * Fi[2];
        loads.moment[2] += r[0] * Fi[1] - r[1] * Fi[0];
        loads.heat += Q;
        loads.area += area;
    }
}

void body_coefficients(const SurfaceReference& ref, SurfaceTotals& t) {
    const SurfaceAxes a = surface_axes(ref);
    const double qA = surface_dynamic_pressure(ref) * ref.A_ref;
    t.CD = dot(t.body.force, a.drag) / qA;
    t.CL = dot(t.body.force, a.lift) / qA;
    t.CS = dot(t.body.force, a.side) / qA;
    for (int d = 0; d < 3; ++d) t.Cm[d] = t.body.moment[d] / (qA * ref.L_ref);
}

SurfaceTotals surface_totals(MPI_Comm comm, const std::vector<SurfaceFace>& faces,
                             const SurfaceReference& ref) {
    const AllFaces all = gather_faces(comm, faces);
    return sum_faces(all, ref, [](index_t) { return true; });
}

std::string totals_csv_path_for(const std::string& csv_path) {
    const std::string ext = ".csv";
    if (csv_path.size() > ext.size() &&
        csv_path.compare(csv_path.size() - ext.size(), ext.size(), ext) == 0)
        return csv_path.substr(0, csv_path.size() - ext.size()) + "_totals.csv";
    return csv_path + "_totals.csv";
}

SurfaceTotals write_surface(const std::string& h5_path, const std::string& csv_path, MPI_Comm comm,
                            const Mesh& global_mesh, const std::vector<SurfaceFace>& faces,
                            const std::vector<std::string>& patch_names,
                            const SurfaceReference& ref, const std::string& config_yaml, long step,
                            double time, const FieldsMeta& extra) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const Mesh& m = global_mesh;

    // Metadata every rank must write identically: rank 0's.
    Meta meta;
    meta.config = config_yaml;
    bcast_string(meta.config, comm);
    long long step_all = step;
    MPI_Bcast(&step_all, 1, MPI_LONG_LONG, 0, comm);
    meta.step = static_cast<long>(step_all);
    meta.time = time;
    MPI_Bcast(&meta.time, 1, MPI_DOUBLE, 0, comm);
    meta.extra = &extra;
    // The reference without its symmetry planes is plain data; the planes follow as doubles.
    meta.ref = ref;
    meta.ref.symmetry.clear();
    MPI_Bcast(&meta.ref, sizeof(SurfaceReference), MPI_BYTE, 0, comm);
    int n_planes = static_cast<int>(ref.symmetry.size());
    MPI_Bcast(&n_planes, 1, MPI_INT, 0, comm);
    std::vector<double> planes(2 * static_cast<std::size_t>(n_planes));
    for (int k = 0; k < n_planes && rank == 0; ++k)
        planes[2 * k] = ref.symmetry[k].axis, planes[2 * k + 1] = ref.symmetry[k].position;
    MPI_Bcast(planes.data(), 2 * n_planes, MPI_DOUBLE, 0, comm);
    for (int k = 0; k < n_planes; ++k)
        meta.ref.symmetry.push_back({static_cast<int>(planes[2 * k]), planes[2 * k + 1]});
    int n_names = static_cast<int>(patch_names.size());
    MPI_Bcast(&n_names, 1, MPI_INT, 0, comm);
    meta.patch_names.resize(n_names);
    for (int k = 0; k < n_names; ++k) {
        if (rank == 0) meta.patch_names[k] = patch_names[k];
        bcast_string(meta.patch_names[k], comm);
    }

    const std::string& named = h5_path.empty() ? csv_path : h5_path;
    on_root_then_agree(comm, [&] {
        std::set<std::string> seen;
        for (const std::string& name : meta.patch_names) {
            if (m.patch_index(name) < 0) {
                std::string all;
                for (const std::string& p : m.patch_names) all += (all.empty() ? "" : ", ") + p;
                UGKS_INPUT_ERROR("surface output '"
                                 << named << "': patch '" << name
                                 << "' is not a patch of the mesh (patches: " << all << ")");
            }
            if (!seen.insert(name).second)
                UGKS_INPUT_ERROR("surface output '" << named << "': patch '" << name
                                                    << "' listed twice");
        }
    });

    // Every rank holds every face from here on, so all checks and sums agree without messages.
    const SurfaceData s = build_surface(m, gather_faces(comm, faces), meta);

    if (!h5_path.empty()) {
        write_output_h5(comm, h5_path, [&](const H5File& w) { write_h5(w, comm, m, s, meta); });
        on_root_then_agree(comm, [&] {
            const std::string h5_name = std::filesystem::path(h5_path).filename().string();
            write_text_atomically(xdmf_path_for(h5_path), make_xdmf(h5_name, s));
        });
    }
    if (!csv_path.empty()) {
        on_root_then_agree(comm, [&] {
            check_output_directory(csv_path);
            write_text_atomically(csv_path, make_csv(m, s));
            write_text_atomically(totals_csv_path_for(csv_path), make_totals_csv(s, meta));
        });
    }
    return s.total;
}

}  // namespace ugks
