// Wall (surface) output: per-face p, tau, q and coefficients, force and heat totals, written as
// parallel HDF5 + XDMF and CSV (ugks-formulation.md section 9, architecture.md section 8). The
// file name puts it into ugks_io (src/io/fields*.cpp); the HDF5/XDMF helpers follow fields_io.cpp.
#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
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

// ---- HDF5 handles (as in fields_io.cpp) ------------------------------------------------------

// ---- MPI helpers -----------------------------------------------------------------------------

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
        for (int d = 0; d < 3; ++d) t.force[d] += P[d] * a;
        t.heat += all.qw(i) * a;
        t.area += a;
        ++t.n_faces;
    }
    const double q_dyn = surface_dynamic_pressure(ref);
    const double u = norm(ref.U_inf), l = norm(ref.lift_dir);
    t.CD = u > 0 ? dot(t.force, ref.U_inf) / u / (q_dyn * ref.A_ref) : kNaN;
    t.CL = l > 0 ? dot(t.force, ref.lift_dir) / l / (q_dyn * ref.A_ref) : kNaN;
    return t;
}

// ---- HDF5 writing ----------------------------------------------------------------------------

struct H5Writer {
    MPI_Comm comm;
    std::string path;  // the final path, for messages
    hid_t file;
    hid_t dxpl;

    /// Agree on success over all ranks; on failure every rank throws the same InputError.
    void check(bool ok, const std::string& what) const {
        if (!all_ok(comm, ok))
            UGKS_INPUT_ERROR("output file '" << path << "': " << what
                                             << " failed (file system full or not writable?)");
    }

    Hid group(hid_t loc, const std::string& name) const {
        Hid g(H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        check(g.valid(), "creating group '" + name + "'");
        return g;
    }

    /// Dataset of `n_rows` x `width` (1-D when width == 1); this rank writes rows
    /// [row0, row0 + n_local) from `buf`, collectively. Returns the open dataset.
    Hid rows(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type, index_t n_rows,
             int width, index_t row0, index_t n_local, const void* buf) const {
        const int rank = width == 1 ? 1 : 2;
        const hsize_t dims[2] = {static_cast<hsize_t>(n_rows), static_cast<hsize_t>(width)};
        Hid space(H5Screate_simple(rank, dims, nullptr), H5Sclose);
        Hid dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        bool ok = space.valid() && dcpl.valid();
        if (ok) ok = H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER) >= 0;
        Hid dset;
        if (ok) {
            dset = Hid(H5Dcreate2(loc, name.c_str(), file_type, space.get(), H5P_DEFAULT,
                                  dcpl.get(), H5P_DEFAULT),
                       H5Dclose);
            ok = dset.valid();
        }
        check(ok, "creating dataset '" + name + "'");
        // HDF5 rejects transfers on zero-sized datasets; n_rows is global, so all ranks skip.
        if (n_rows == 0) return dset;

        const hsize_t start[2] = {static_cast<hsize_t>(row0), 0};
        const hsize_t count[2] = {static_cast<hsize_t>(n_local), static_cast<hsize_t>(width)};
        Hid mem(H5Screate_simple(rank, count, nullptr), H5Sclose);
        ok = mem.valid();
        if (ok && n_local > 0) {
            ok = H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) >=
                 0;
        } else if (ok) {
            ok = H5Sselect_none(space.get()) >= 0 && H5Sselect_none(mem.get()) >= 0;
        }
        static const double dummy = 0.0;  // a non-null buffer for empty selections
        if (ok)
            ok = H5Dwrite(dset.get(), mem_type, mem.get(), space.get(), dxpl,
                          n_local > 0 ? buf : &dummy) >= 0;
        check(ok, "writing dataset '" + name + "'");
        return dset;
    }

    /// Attribute of `count` values (a scalar when count == 0). Every rank writes the same value.
    void attribute(hid_t loc, const char* name, hid_t type, const void* value,
                   hsize_t count = 0) const {
        check(write_attribute(loc, name, type, value, count),
              std::string("writing attribute '") + name + "'");
    }
    void attribute(hid_t loc, const char* name, double value) const {
        attribute(loc, name, H5T_NATIVE_DOUBLE, &value);
    }
    void attribute(hid_t loc, const char* name, const Vec3& value) const {
        attribute(loc, name, H5T_NATIVE_DOUBLE, value.data(), 3);
    }
    void attribute(hid_t loc, const char* name, std::int64_t value) const {
        attribute(loc, name, H5T_NATIVE_INT64, &value);
    }

    void string_attribute(hid_t loc, const char* name, const std::string& value) const {
        check(write_string_attribute(loc, name, value),
              std::string("writing attribute '") + name + "'");
    }

    void totals_attributes(hid_t loc, const SurfaceTotals& t) const {
        attribute(loc, "force", t.force);
        attribute(loc, "heat", t.heat);
        attribute(loc, "CD", t.CD);
        attribute(loc, "CL", t.CL);
        attribute(loc, "area", t.area);
        attribute(loc, "face_count", static_cast<std::int64_t>(t.n_faces));
    }
};

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

void write_h5(const std::string& tmp_path, const std::string& path, MPI_Comm comm, const Mesh& m,
              const SurfaceData& s, const Meta& meta) {
    int size = 1, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    const index_t n = s.faces.size();

    Hid fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    bool ok = fapl.valid() && H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL) >= 0 &&
              H5Pset_coll_metadata_write(fapl.get(), 1) >= 0 &&
              // 1.8 object headers: attributes over 64 KiB (long configs) go to dense storage.
              H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_V18) >= 0;
    if (!all_ok(comm, ok))
        UGKS_INPUT_ERROR("output file '" << path << "': cannot set up parallel HDF5 access");
    Hid file(H5Fcreate(tmp_path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose);
    if (!all_ok(comm, file.valid())) {
        const std::filesystem::path parent = std::filesystem::path(path).parent_path();
        UGKS_INPUT_ERROR("output file '" << path << "': cannot create '" << tmp_path
                                         << "' (is directory '"
                                         << (parent.empty() ? std::string(".") : parent.string())
                                         << "' writable?)");
    }
    Hid dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
    ok = dxpl.valid() && H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE) >= 0;
    if (!all_ok(comm, ok))
        UGKS_INPUT_ERROR("output file '" << path << "': cannot set up collective transfers");
    const H5Writer w{comm, path, file.get(), dxpl.get()};

    const BlockLayout blocks{n, size};
    const index_t f0 = blocks.begin(rank), nf = blocks.end(rank) - f0;
    // Column of `width` values per face of this rank's block, from an accessor.
    auto column = [&](int width, auto&& get) {
        std::vector<double> out(static_cast<std::size_t>(nf) * width);
        for (index_t i = 0; i < nf; ++i) get(f0 + i, out.data() + i * width);
        return out;
    };
    auto write_column = [&](hid_t g, const char* name, int width, auto&& get) {
        const std::vector<double> c = column(width, get);
        w.rows(g, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, width, f0, nf, c.data());
    };

    {
        Hid g = w.group(file.get(), "faces");
        w.rows(g.get(), "global_face", H5T_STD_I64LE, H5T_NATIVE_INT64, n, 1, f0, nf,
               s.faces.id.data() + f0);
        Hid p = w.rows(g.get(), "patch", H5T_STD_I64LE, H5T_NATIVE_INT64, n, 1, f0, nf,
                       s.faces.patch.data() + f0);
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
        Hid g = w.group(file.get(), "fields");
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
        Hid g = w.group(file.get(), "mesh");
        const index_t n_nodes = static_cast<index_t>(s.global_node.size());
        const BlockLayout nodes{n_nodes, size};
        const index_t p0 = nodes.begin(rank), np = nodes.end(rank) - p0;
        std::vector<double> xyz(static_cast<std::size_t>(np) * 3);
        for (index_t i = 0; i < np; ++i) {
            const Vec3& x = m.nodes[s.global_node[p0 + i]];
            std::copy(x.begin(), x.end(), xyz.data() + 3 * i);
        }
        w.rows(g.get(), "nodes", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n_nodes, 3, p0, np, xyz.data());
        w.rows(g.get(), "global_node", H5T_STD_I64LE, H5T_NATIVE_INT64, n_nodes, 1, p0, np,
               s.global_node.data() + p0);
        const index_t t0 = s.topo_offset[f0], t1 = s.topo_offset[f0 + nf];
        Hid t =
            w.rows(g.get(), "topology", H5T_STD_I64LE, H5T_NATIVE_INT64,
                   static_cast<index_t>(s.topology.size()), 1, t0, t1 - t0, s.topology.data() + t0);
        w.attribute(t.get(), "cell_count", static_cast<std::int64_t>(n));
    }
    {
        Hid g = w.group(file.get(), "totals");
        w.totals_attributes(g.get(), s.total);
        const std::vector<std::string> groups = group_names(meta.patch_names);
        for (std::size_t k = 0; k < groups.size(); ++k) {
            Hid pg = w.group(g.get(), groups[k]);
            w.string_attribute(pg.get(), "name", meta.patch_names[k]);
            w.attribute(pg.get(), "patch", static_cast<std::int64_t>(s.patch_index[k]));
            w.totals_attributes(pg.get(), s.per_patch[k]);
        }
    }

    const hid_t root = file.get();
    w.string_attribute(root, "config", meta.config);
    w.attribute(root, "step", static_cast<std::int64_t>(meta.step));
    w.attribute(root, "time", meta.time);
    w.string_attribute(root, "ugks_version", std::string(version_string) + " (" + git_commit + ")");
    w.totals_attributes(root, s.total);
    const SurfaceReference& ref = meta.ref;
    w.attribute(root, "rho_inf", ref.rho_inf);
    w.attribute(root, "p_inf", ref.p_inf);
    w.attribute(root, "U_inf", ref.U_inf);
    w.attribute(root, "A_ref", ref.A_ref);
    w.attribute(root, "lift_dir", ref.lift_dir);
    w.attribute(root, "q_ref", ref.q_ref);
    w.attribute(root, "q_dyn", surface_dynamic_pressure(ref));
    w.attribute(root, "U_ref", surface_reference_speed(ref));

    w.check(file.close() >= 0, "closing the file");
}

// ---- XDMF and CSV --------------------------------------------------------------------------

std::string make_xdmf(const std::string& h5_name, const SurfaceData& s, long step, double time) {
    XdmfUniformGrid x(h5_name, "surface", s.faces.size(), static_cast<index_t>(s.topology.size()),
                      static_cast<index_t>(s.global_node.size()), step, time);
    x.cell_attribute("p", 1, "Float", "/fields/p");
    x.cell_attribute("tau", 3, "Float", "/fields/tau");
    x.cell_attribute("q", 1, "Float", "/fields/q");
    x.cell_attribute("Cp", 1, "Float", "/fields/Cp");
    x.cell_attribute("Cf", 1, "Float", "/fields/Cf");
    x.cell_attribute("Ch", 1, "Float", "/fields/Ch");
    x.cell_attribute("normal", 3, "Float", "/faces/normal");
    x.cell_attribute("area", 1, "Float", "/faces/area");
    x.cell_attribute("global_face", 1, "Int", "/faces/global_face");
    x.cell_attribute("patch", 1, "Int", "/faces/patch");
    return x.text();
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
    std::string out = "# " + csv_text(name) + "," + std::to_string(patch) + "," +
                      std::to_string(t.n_faces) + "," + num(t.area);
    for (double x : {t.force[0], t.force[1], t.force[2], t.heat, t.CD, t.CL}) out += "," + num(x);
    return out + "\n";
}

std::string make_csv(const SurfaceData& s, const Meta& meta) {
    const SurfaceReference& ref = meta.ref;
    std::string out;
    out += "# ugks_solver surface output (wall faces; ugks-formulation.md section 9), version " +
           std::string(version_string) + "\n";
    out += "# step=" + std::to_string(meta.step) + " time=" + num(meta.time) + "\n";
    out += "# reference: rho_inf=" + num(ref.rho_inf) + " p_inf=" + num(ref.p_inf) +
           " U_inf=" + num(ref.U_inf[0]) + "," + num(ref.U_inf[1]) + "," + num(ref.U_inf[2]) +
           " A_ref=" + num(ref.A_ref) + " lift_dir=" + num(ref.lift_dir[0]) + "," +
           num(ref.lift_dir[1]) + "," + num(ref.lift_dir[2]) + " q_ref=" + num(ref.q_ref) +
           " q_dyn=" + num(surface_dynamic_pressure(ref)) +
           " U_ref=" + num(surface_reference_speed(ref)) + "\n";
    out += "# totals: name,patch,faces,area,force_x,force_y,force_z,heat,CD,CL\n";
    out += totals_row("all", -1, s.total);
    for (std::size_t k = 0; k < meta.patch_names.size(); ++k)
        out += totals_row(meta.patch_names[k], s.patch_index[k], s.per_patch[k]);
    out += "global_face,patch,x,y,z,nx,ny,nz,area,p,tau_x,tau_y,tau_z,q,Cp,Cf,Ch\n";
    for (index_t i = 0; i < s.faces.size(); ++i) {
        const WallCoefficients& c = s.coef[i];
        out += std::to_string(s.faces.id[i]) + "," + std::to_string(s.faces.patch[i]);
        const double* x = s.faces.centroid(i);
        const double* nrm = s.faces.normal(i);
        for (double v : {x[0], x[1], x[2], nrm[0], nrm[1], nrm[2], s.faces.area(i), c.p, c.tau[0],
                         c.tau[1], c.tau[2], s.faces.qw(i), c.Cp, c.Cf, c.Ch})
            out += "," + num(v);
        out += "\n";
    }
    return out;
}

void check_parent_directory(const std::string& path) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
        UGKS_INPUT_ERROR("output file '" << path << "': directory '" << parent.string()
                                         << "' does not exist");
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

SurfaceTotals surface_totals(MPI_Comm comm, const std::vector<SurfaceFace>& faces,
                             const SurfaceReference& ref) {
    const AllFaces all = gather_faces(comm, faces);
    return sum_faces(all, ref, [](index_t) { return true; });
}

SurfaceTotals write_surface(const std::string& h5_path, const std::string& csv_path, MPI_Comm comm,
                            const Mesh& global_mesh, const std::vector<SurfaceFace>& faces,
                            const std::vector<std::string>& patch_names,
                            const SurfaceReference& ref, const std::string& config_yaml, long step,
                            double time) {
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
    meta.ref = ref;
    MPI_Bcast(&meta.ref, sizeof(SurfaceReference), MPI_BYTE, 0, comm);
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
        on_root_then_agree(comm, [&] { check_parent_directory(h5_path); });
        const std::string tmp_path = h5_path + ".tmp";
        try {
            const QuietHdf5 quiet;
            write_h5(tmp_path, h5_path, comm, m, s, meta);
        } catch (const InputError&) {
            if (rank == 0) {
                std::error_code ec;
                std::filesystem::remove(tmp_path, ec);
            }
            throw;
        }
        on_root_then_agree(comm, [&] {
            std::error_code ec;
            std::filesystem::rename(tmp_path, h5_path, ec);
            if (ec) {
                std::filesystem::remove(tmp_path, ec);
                UGKS_INPUT_ERROR("output file '" << h5_path << "': cannot rename '" << tmp_path
                                                 << "' to it");
            }
            const std::string h5_name = std::filesystem::path(h5_path).filename().string();
            write_text_atomically(xdmf_path_for(h5_path),
                                  make_xdmf(h5_name, s, meta.step, meta.time));
        });
    }
    if (!csv_path.empty()) {
        on_root_then_agree(comm, [&] {
            check_parent_directory(csv_path);
            write_text_atomically(csv_path, make_csv(s, meta));
        });
    }
    return s.total;
}

}  // namespace ugks
