// Wall (surface) output: analytic wall loads on box meshes split over ranks; per-face values in
// global order, exact integrals for the totals, coefficients, decomposition invariance, CSV round
// trip, XDMF references and errors. Runs under 1, 2 and 4 ranks.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "test_util.hpp"
#include "ugks/core/error.hpp"
#include "ugks/io/fields_io.hpp"
#include "ugks/io/surface_io.hpp"
#include "ugks/mesh/sources.hpp"
#include "ugks/parallel/partition.hpp"

namespace {

using ugks::index_t;
using ugks::LocalMesh;
using ugks::Mesh;
using ugks::SurfaceFace;
using ugks::SurfaceReference;
using ugks::SurfaceTotals;
using ugks::Vec3;

int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}
int world_size() {
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec3 cross(const Vec3& a, const Vec3& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// ---- analytic wall loads ---------------------------------------------------------------------
// P(x) = (c0 + g.x) n + T x n: normal pressure linear in x plus a constant-vector shear (T x n is
// tangential). q(x) = a0 + b.x. Linear integrands are integrated exactly by the centroid rule on
// planar faces, so the totals equal the closed-form integrals to round-off:
// closed surface: sum P dS = g V (divergence theorem; the shear part integrates to T x 0 = 0).

const double kC0 = 0.7, kA0 = 0.2;
const Vec3 kG{0.3, -0.2, 0.45}, kT{0.05, 0.11, -0.07}, kB{0.1, 0.25, -0.3};

double p_of(const Vec3& x) { return kC0 + dot(kG, x); }
Vec3 tau_of(const Vec3& n) { return cross(kT, n); }
Vec3 P_of(const Vec3& x, const Vec3& n) {
    const Vec3 t = tau_of(n);
    const double p = p_of(x);
    return {p * n[0] + t[0], p * n[1] + t[1], p * n[2] + t[2]};
}
double q_of(const Vec3& x) { return kA0 + dot(kB, x); }

SurfaceReference reference() {
    SurfaceReference ref;
    ref.rho_inf = 1.1;
    ref.p_inf = 0.5;
    ref.U_inf = {0.6, 0.2, 0.0};
    ref.A_ref = 0.75;
    ref.lift_dir = {0, 2, 0};  // normalized by the writer
    return ref;
}

SurfaceFace make_face(index_t g, int patch, const Vec3& c, const Vec3& n, double area) {
    SurfaceFace f;
    f.global_face = g;
    f.patch = patch;
    f.centroid = c;
    f.normal = n;
    f.area = area;
    f.P = P_of(c, n);
    f.qw = q_of(c);
    return f;
}

bool selected(const std::vector<std::string>& names, const Mesh& m, int patch) {
    return patch >= 0 && std::find(names.begin(), names.end(), m.patch_names[patch]) != names.end();
}

/// This rank's wall faces, as a solver builds them from its LocalMesh (owned boundary faces).
std::vector<SurfaceFace> local_wall_faces(const LocalMesh& lm,
                                          const std::vector<std::string>& patches) {
    std::vector<SurfaceFace> out;
    const Mesh& m = lm.mesh;
    for (index_t f = 0; f < m.n_faces(); ++f) {
        if (m.face_neighbour[f] >= 0 || m.face_owner[f] >= lm.n_owned) continue;
        if (!selected(patches, m, m.face_patch[f])) continue;
        out.push_back(make_face(lm.global_face[f], m.face_patch[f], m.face_centroid[f],
                                m.face_normal[f], m.face_area[f]));
    }
    return out;
}

/// All wall faces of the global mesh in ascending global id (what the file must hold).
std::vector<SurfaceFace> global_wall_faces(const Mesh& m, const std::vector<std::string>& patches) {
    std::vector<SurfaceFace> out;
    for (index_t f = 0; f < m.n_faces(); ++f)
        if (m.face_neighbour[f] < 0 && selected(patches, m, m.face_patch[f]))
            out.push_back(make_face(f, m.face_patch[f], m.face_centroid[f], m.face_normal[f],
                                    m.face_area[f]));
    return out;
}

ugks::BoxSpec box_spec(int dim, const char* type) {
    ugks::BoxSpec spec;
    spec.dim = dim;
    spec.n = {3, 2, 2};
    spec.lo = {-0.5, 0.0, 0.25};
    spec.hi = {1.5, 1.5, 1.25};
    spec.stretch = {1.3, 1.0, 0.8};
    spec.cell_type = type;
    return spec;
}

/// Closed-form totals of the analytic loads on box side `s` (0 xmin, 1 xmax, 2 ymin, ...).
SurfaceTotals exact_side(const ugks::BoxSpec& b, int s) {
    const int axis = s / 2;
    Vec3 n{0, 0, 0}, xm{0, 0, 0};
    n[axis] = s % 2 ? 1.0 : -1.0;
    double area = 1;
    for (int d = 0; d < b.dim; ++d) {
        xm[d] = d == axis ? (s % 2 ? b.hi[d] : b.lo[d]) : 0.5 * (b.lo[d] + b.hi[d]);
        if (d != axis) area *= b.hi[d] - b.lo[d];
    }
    SurfaceTotals t;
    const Vec3 P = P_of(xm, n);
    for (int d = 0; d < 3; ++d) t.force[d] = P[d] * area;
    t.heat = q_of(xm) * area;
    t.area = area;
    return t;
}

SurfaceTotals exact_sum(const ugks::BoxSpec& b, const std::vector<int>& sides) {
    SurfaceTotals t;
    for (int s : sides) {
        const SurfaceTotals e = exact_side(b, s);
        for (int d = 0; d < 3; ++d) t.force[d] += e.force[d];
        t.heat += e.heat;
        t.area += e.area;
    }
    return t;
}

double q_dyn(const SurfaceReference& r) { return 0.5 * r.rho_inf * dot(r.U_inf, r.U_inf); }

// ---- reading back ----------------------------------------------------------------------------

std::vector<double> read_attr(const std::string& path, const std::string& object,
                              const std::string& name) {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    EXPECT_GE(f, 0) << path;
    std::vector<double> out;
    if (f < 0) return out;
    const hid_t a = H5Aopen_by_name(f, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
    EXPECT_GE(a, 0) << object << " " << name;
    if (a >= 0) {
        const hid_t space = H5Aget_space(a);
        out.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
        EXPECT_GE(H5Aread(a, H5T_NATIVE_DOUBLE, out.data()), 0);
        H5Sclose(space);
        H5Aclose(a);
    }
    H5Fclose(f);
    return out;
}

/// Totals as stored under `object` ("/" or "/totals/<patch>").
SurfaceTotals read_totals(const std::string& path, const std::string& object) {
    SurfaceTotals t;
    const std::vector<double> f = read_attr(path, object, "force");
    if (f.size() == 3) t.force = {f[0], f[1], f[2]};
    t.heat = read_attr(path, object, "heat").at(0);
    t.CD = read_attr(path, object, "CD").at(0);
    t.CL = read_attr(path, object, "CL").at(0);
    t.area = read_attr(path, object, "area").at(0);
    t.n_faces = ugks::read_index_attribute(path, "face_count", object);
    return t;
}

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

void expect_same_totals(const SurfaceTotals& a, const SurfaceTotals& b, const std::string& what) {
    for (int d = 0; d < 3; ++d) EXPECT_TRUE(same(a.force[d], b.force[d])) << what << " force " << d;
    EXPECT_TRUE(same(a.heat, b.heat)) << what << " heat " << a.heat << " " << b.heat;
    EXPECT_TRUE(same(a.CD, b.CD)) << what << " CD " << a.CD << " " << b.CD;
    EXPECT_TRUE(same(a.CL, b.CL)) << what << " CL " << a.CL << " " << b.CL;
    EXPECT_TRUE(same(a.area, b.area)) << what << " area";
    EXPECT_EQ(a.n_faces, b.n_faces) << what;
}

void expect_near_totals(const SurfaceTotals& got, const SurfaceTotals& want, double tol,
                        const std::string& what) {
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(got.force[d], want.force[d], tol) << what << " " << d;
    EXPECT_NEAR(got.heat, want.heat, tol) << what;
    EXPECT_NEAR(got.area, want.area, tol) << what;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in.good()) << path;
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

/// The two plain CSV tables: per face (the patch by name) and the totals.
struct Csv {
    std::map<std::string, std::vector<double>> totals;  // name -> patch,faces,area,fx,..,CL
    std::vector<std::string> header;
    std::vector<std::vector<double>> rows;  // column 1 (the patch name) NaN
    std::vector<std::string> patch;         // column 1 of every row
};

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string item;
    std::istringstream in(s);
    while (std::getline(in, item, sep)) out.push_back(item);
    if (!s.empty() && s.back() == sep) out.push_back("");
    return out;
}

double parse_number(const std::string& s) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    EXPECT_TRUE(!s.empty() && *end == '\0') << "not a number: '" << s << "'";
    return v;
}

/// `csv_path` and its totals table (totals_csv_path_for): no comment lines, one header each.
Csv parse_csv(const std::string& csv_path) {
    Csv csv;
    {
        std::istringstream in(read_text(csv_path));
        for (std::string line; std::getline(in, line);) {
            EXPECT_FALSE(line.empty() || line[0] == '#') << "unexpected line '" << line << "'";
            if (csv.header.empty()) {
                csv.header = split(line, ',');
                continue;
            }
            const std::vector<std::string> f = split(line, ',');
            EXPECT_EQ(f.size(), csv.header.size()) << line;
            std::vector<double> v;
            for (std::size_t k = 0; k < f.size(); ++k)
                v.push_back(k == 1 ? std::nan("") : parse_number(f[k]));
            csv.patch.push_back(f.size() > 1 ? f[1] : "");
            csv.rows.push_back(v);
        }
    }
    std::istringstream in(read_text(ugks::totals_csv_path_for(csv_path)));
    std::string line;
    EXPECT_TRUE(static_cast<bool>(std::getline(in, line)));
    EXPECT_EQ(line,
              "name,patch,faces,area,force_x,force_y,force_z,heat,CD,CL,CS,Cm_x,Cm_y,Cm_z,"
              "body_force_x,body_force_y,body_force_z,body_moment_x,body_moment_y,body_moment_z,"
              "body_heat");
    while (std::getline(in, line)) {
        const std::vector<std::string> f = split(line, ',');
        EXPECT_EQ(f.size(), 21u) << line;
        std::vector<double> v;
        for (std::size_t k = 1; k < f.size(); ++k) v.push_back(parse_number(f[k]));
        csv.totals[f[0]] = v;
    }
    return csv;
}

SurfaceTotals csv_totals(const Csv& csv, const std::string& name) {
    SurfaceTotals t;
    const auto it = csv.totals.find(name);
    EXPECT_NE(it, csv.totals.end()) << name;
    if (it == csv.totals.end()) return t;
    const std::vector<double>& v = it->second;
    t.n_faces = static_cast<index_t>(v[1]);
    t.area = v[2];
    t.force = {v[3], v[4], v[5]};
    t.heat = v[6];
    t.CD = v[7];
    t.CL = v[8];
    return t;
}

std::set<std::string> dir_listing(const std::string& dir) {
    std::set<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        names.insert(e.path().filename().string());
    return names;
}

const std::vector<std::string> kDatasets = {
    "/faces/global_face", "/faces/patch", "/faces/centroid",   "/faces/normal", "/faces/area",
    "/fields/p",          "/fields/tau",  "/fields/q",         "/fields/Cp",    "/fields/Cf",
    "/fields/Ch",         "/mesh/nodes",  "/mesh/global_node", "/mesh/topology"};

const char* kConfig = "case: \"sphere <wall> & 'quotes'\"\noutput: {surface: [wall]}\n";

// ---- tests -----------------------------------------------------------------------------------

class SurfaceIo : public ::testing::Test {
protected:
    void SetUp() override { m_dir = ugks::test::temp_dir("surface_io"); }
    void TearDown() override {
        MPI_Barrier(MPI_COMM_WORLD);
        if (world_rank() == 0 && !std::getenv("UGKS_KEEP_TEST_FILES")) {
            std::error_code ec;
            std::filesystem::remove_all(m_dir, ec);
        }
    }
    std::string m_dir;
};

TEST(SurfaceCoefficients, FormulasOfSection9) {
    SurfaceReference ref;
    ref.rho_inf = 2.0;
    ref.p_inf = 0.5;
    ref.U_inf = {0.0, 3.0, 4.0};  // |U| = 5, q_dyn = 25, 1/2 rho U^3 = 125
    EXPECT_EQ(ugks::surface_dynamic_pressure(ref), 25.0);
    EXPECT_EQ(ugks::surface_reference_speed(ref), 5.0);
    // n = +x: p = 3, tau = (0, 4, -12) (|tau| = sqrt(160)), q = 250.
    const ugks::WallCoefficients c =
        ugks::wall_coefficients({3.0, 4.0, -12.0}, 250.0, {1.0, 0.0, 0.0}, ref);
    EXPECT_EQ(c.p, 3.0);
    EXPECT_EQ(c.tau, (Vec3{0.0, 4.0, -12.0}));
    EXPECT_DOUBLE_EQ(c.Cp, 2.5 / 25.0);
    EXPECT_DOUBLE_EQ(c.Cf, std::sqrt(160.0) / 25.0);
    EXPECT_DOUBLE_EQ(c.Ch, 2.0);
    // Oblique normal: tau is orthogonal to n and p n + tau = P.
    const double s = 1.0 / std::sqrt(2.0);
    const Vec3 n{s, s, 0}, P{1.0, 2.0, 3.0};
    const ugks::WallCoefficients o = ugks::wall_coefficients(P, 0.0, n, ref);
    EXPECT_NEAR(o.p, 3.0 * s, 1e-15);
    EXPECT_NEAR(dot(o.tau, n), 0.0, 1e-15);
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(o.p * n[d] + o.tau[d], P[d], 1e-15);
    EXPECT_NEAR(o.Cf, std::sqrt(0.5 * 0.5 + 0.5 * 0.5 + 9.0) / 25.0, 1e-15);

    // U_inf = 0: the reference dynamic pressure q_ref and U_ref = sqrt(2 q_ref / rho).
    ref.U_inf = {0, 0, 0};
    ref.q_ref = 4.0;  // U_ref = 2
    EXPECT_EQ(ugks::surface_dynamic_pressure(ref), 4.0);
    EXPECT_EQ(ugks::surface_reference_speed(ref), 2.0);
    const ugks::WallCoefficients z =
        ugks::wall_coefficients({3.0, 4.0, 0.0}, 16.0, {1.0, 0.0, 0.0}, ref);
    EXPECT_DOUBLE_EQ(z.Cp, 2.5 / 4.0);
    EXPECT_DOUBLE_EQ(z.Cf, 1.0);
    EXPECT_DOUBLE_EQ(z.Ch, 2.0);
    // Neither: NaN coefficients, p and tau still defined.
    ref.q_ref = 0;
    const ugks::WallCoefficients u =
        ugks::wall_coefficients({3.0, 4.0, 0.0}, 16.0, {1.0, 0.0, 0.0}, ref);
    EXPECT_EQ(u.p, 3.0);
    EXPECT_TRUE(std::isnan(u.Cp) && std::isnan(u.Cf) && std::isnan(u.Ch));
    EXPECT_TRUE(std::isnan(ugks::surface_dynamic_pressure(ref)));
}

TEST_F(SurfaceIo, ClosedBoxWithLinearLoadsGivesExactValuesAndTotals) {
    const int p = world_size(), me = world_rank();
    const ugks::BoxSpec spec = box_spec(3, "hexa");
    const Mesh m = ugks::make_box(spec);
    const LocalMesh lm = ugks::build_local_mesh(m, ugks::partition_cells(m, p, MPI_COMM_WORLD), me);
    const std::vector<std::string> walls = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
    const std::vector<SurfaceFace> faces = local_wall_faces(lm, walls);
    const SurfaceReference ref = reference();
    const std::string h5 = m_dir + "/surface_final.h5", csv = m_dir + "/surface_final.csv";
    const SurfaceTotals t =
        ugks::write_surface(h5, csv, MPI_COMM_WORLD, m, faces, walls, ref, kConfig, 1200, 3.5);

    // Global order and geometry, exactly as in the global mesh.
    const std::vector<SurfaceFace> want = global_wall_faces(m, walls);
    const index_t n = static_cast<index_t>(want.size());
    ASSERT_EQ(n, 2 * (3 * 2 + 2 * 2 + 3 * 2));
    std::vector<index_t> ids, patches;
    std::vector<double> centroid, normal, area;
    for (const SurfaceFace& f : want) {
        ids.push_back(f.global_face);
        patches.push_back(f.patch);
        centroid.insert(centroid.end(), f.centroid.begin(), f.centroid.end());
        normal.insert(normal.end(), f.normal.begin(), f.normal.end());
        area.push_back(f.area);
    }
    EXPECT_EQ(ugks::read_index_field(h5, "/faces/global_face", MPI_COMM_WORLD), ids);
    EXPECT_EQ(ugks::read_index_field(h5, "/faces/patch", MPI_COMM_WORLD), patches);
    EXPECT_EQ(ugks::read_field(h5, "/faces/centroid", MPI_COMM_WORLD), centroid);
    EXPECT_EQ(ugks::read_field(h5, "/faces/normal", MPI_COMM_WORLD), normal);
    EXPECT_EQ(ugks::read_field(h5, "/faces/area", MPI_COMM_WORLD), area);
    EXPECT_EQ(ugks::read_dataset_dims(h5, "/faces/centroid"), (std::vector<index_t>{n, 3}));
    EXPECT_EQ(ugks::read_dataset_dims(h5, "/fields/tau"), (std::vector<index_t>{n, 3}));
    EXPECT_EQ(ugks::read_dataset_dims(h5, "/fields/Cp"), (std::vector<index_t>{n}));
    EXPECT_EQ(ugks::read_string_attribute(h5, "patch_names", "/faces/patch"),
              "xmin\nxmax\nymin\nymax\nzmin\nzmax\n");

    // Derived fields against the analytic values.
    const std::vector<double> pw = ugks::read_field(h5, "/fields/p", MPI_COMM_WORLD);
    const std::vector<double> tau = ugks::read_field(h5, "/fields/tau", MPI_COMM_WORLD);
    const std::vector<double> q = ugks::read_field(h5, "/fields/q", MPI_COMM_WORLD);
    const std::vector<double> cp = ugks::read_field(h5, "/fields/Cp", MPI_COMM_WORLD);
    const std::vector<double> cf = ugks::read_field(h5, "/fields/Cf", MPI_COMM_WORLD);
    const std::vector<double> ch = ugks::read_field(h5, "/fields/Ch", MPI_COMM_WORLD);
    ASSERT_EQ(pw.size(), static_cast<std::size_t>(n));
    ASSERT_EQ(tau.size(), static_cast<std::size_t>(3 * n));
    const double qd = q_dyn(ref), u = std::sqrt(dot(ref.U_inf, ref.U_inf));
    for (index_t i = 0; i < n; ++i) {
        const SurfaceFace& f = want[i];
        const Vec3 tw = tau_of(f.normal);
        EXPECT_NEAR(pw[i], p_of(f.centroid), 1e-14) << i;
        for (int d = 0; d < 3; ++d) EXPECT_NEAR(tau[3 * i + d], tw[d], 1e-15) << i;
        EXPECT_EQ(q[i], q_of(f.centroid)) << i;
        EXPECT_NEAR(cp[i], (p_of(f.centroid) - 0.5) / qd, 1e-13) << i;
        EXPECT_NEAR(cf[i], std::sqrt(dot(tw, tw)) / qd, 1e-14) << i;
        EXPECT_NEAR(ch[i], q_of(f.centroid) / (qd * u), 1e-13) << i;
    }

    // Totals: closed surface -> force = g V exactly; heat = the surface integral of q.
    const double volume = 2.0 * 1.5 * 1.0;
    const SurfaceTotals exact = exact_sum(spec, {0, 1, 2, 3, 4, 5});
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(exact.force[d], kG[d] * volume, 1e-14);
    expect_near_totals(t, exact, 1e-13, "all");
    EXPECT_EQ(t.n_faces, n);
    EXPECT_NEAR(t.CD, dot(exact.force, ref.U_inf) / u / (qd * ref.A_ref), 1e-13);
    {  // lift: lift_dir made normal to the drag direction U_inf / |U_inf|
        const Vec3 e{ref.U_inf[0] / u, ref.U_inf[1] / u, ref.U_inf[2] / u};
        Vec3 l{-e[1] * e[0], 1.0 - e[1] * e[1], -e[1] * e[2]};
        const double nl = std::sqrt(dot(l, l));
        for (double& x : l) x /= nl;
        EXPECT_NEAR(t.CL, dot(exact.force, l) / (qd * ref.A_ref), 1e-13);
    }
    // Same totals on every rank, in the file and from surface_totals().
    expect_same_totals(read_totals(h5, "/"), t, "root attributes");
    expect_same_totals(read_totals(h5, "/totals"), t, "/totals");
    expect_same_totals(ugks::surface_totals(MPI_COMM_WORLD, faces, ref), t, "surface_totals");
    double cd_max = t.CD, cd_min = t.CD;
    MPI_Allreduce(MPI_IN_PLACE, &cd_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &cd_min, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    EXPECT_EQ(cd_max, cd_min);

    // Per patch: the closed-form integrals over each side.
    for (int s = 0; s < 6; ++s) {
        const std::string object = "/totals/" + walls[s];
        const SurfaceTotals got = read_totals(h5, object);
        const SurfaceTotals e = exact_side(spec, s);
        expect_near_totals(got, e, 1e-13, object);
        EXPECT_NEAR(got.CD, dot(e.force, ref.U_inf) / u / (qd * ref.A_ref), 1e-13) << object;
        EXPECT_EQ(ugks::read_index_attribute(h5, "patch", object), s);
        EXPECT_EQ(ugks::read_string_attribute(h5, "name", object), walls[s]);
    }

    // Reference state and metadata.
    EXPECT_EQ(ugks::read_string_attribute(h5, "config"), kConfig);
    EXPECT_EQ(ugks::read_index_attribute(h5, "step"), 1200);
    EXPECT_EQ(ugks::read_double_attribute(h5, "time"), 3.5);
    EXPECT_EQ(ugks::read_double_attribute(h5, "q_dyn"), ugks::surface_dynamic_pressure(ref));
    EXPECT_EQ(read_attr(h5, "/", "U_inf"), (std::vector<double>{0.6, 0.2, 0.0}));
    EXPECT_EQ(ugks::read_double_attribute(h5, "A_ref"), 0.75);
    EXPECT_EQ(dir_listing(m_dir),
              (std::set<std::string>{"surface_final.h5", "surface_final.xdmf", "surface_final.csv",
                                     "surface_final_totals.csv"}));
}

TEST_F(SurfaceIo, CsvParsesBackToTheHdf5Numbers) {
    const int p = world_size(), me = world_rank();
    const ugks::BoxSpec spec = box_spec(3, "tetra");
    const Mesh m = ugks::make_box(spec);
    const LocalMesh lm = ugks::build_local_mesh(m, ugks::partition_cells(m, p, MPI_COMM_WORLD), me);
    // Two walls only; "zmax" is listed but gets no faces: zero totals.
    const std::vector<std::string> walls = {"ymin", "xmax", "zmax"};
    const std::vector<SurfaceFace> faces = local_wall_faces(lm, {"ymin", "xmax"});
    const SurfaceReference ref = reference();
    const std::string h5 = m_dir + "/s.h5", csv_path = m_dir + "/s.csv";
    const SurfaceTotals t =
        ugks::write_surface(h5, csv_path, MPI_COMM_WORLD, m, faces, walls, ref, kConfig, 7, 0.25);

    const Csv csv = parse_csv(csv_path);
    EXPECT_EQ(csv.header, split("global_face,patch,x,y,z,nx,ny,nz,area,p,tau_x,tau_y,tau_z,q,Cp,"
                                "Cf,Ch",
                                ','));
    const std::vector<index_t> ids =
        ugks::read_index_field(h5, "/faces/global_face", MPI_COMM_WORLD);
    const index_t n = static_cast<index_t>(ids.size());
    ASSERT_EQ(n, 2 * 3 * 2 + 2 * 2 * 2);  // 12 ymin + 8 xmax triangles
    ASSERT_EQ(csv.rows.size(), static_cast<std::size_t>(n));
    const std::vector<index_t> patch = ugks::read_index_field(h5, "/faces/patch", MPI_COMM_WORLD);
    const std::vector<std::pair<std::string, int>> columns = {
        {"/faces/centroid", 3}, {"/faces/normal", 3}, {"/faces/area", 1},
        {"/fields/p", 1},       {"/fields/tau", 3},   {"/fields/q", 1},
        {"/fields/Cp", 1},      {"/fields/Cf", 1},    {"/fields/Ch", 1}};
    int col = 2;
    for (index_t i = 0; i < n; ++i) {
        EXPECT_EQ(csv.rows[i][0], static_cast<double>(ids[i]));
        EXPECT_EQ(csv.patch[i], m.patch_names[patch[i]]);
    }
    for (const auto& [dataset, width] : columns) {
        const std::vector<double> v = ugks::read_field(h5, dataset, MPI_COMM_WORLD);
        ASSERT_EQ(v.size(), static_cast<std::size_t>(n * width));
        for (index_t i = 0; i < n; ++i)
            for (int k = 0; k < width; ++k)
                EXPECT_TRUE(same(csv.rows[i][col + k], v[i * width + k]))
                    << dataset << " row " << i << ": " << csv.rows[i][col + k] << " vs "
                    << v[i * width + k];
        col += width;
    }
    EXPECT_EQ(col, 17);

    // Totals table: "all", then the listed patches with their mesh indices.
    EXPECT_EQ(csv.totals.size(), 4u);
    expect_same_totals(csv_totals(csv, "all"), t, "csv all");
    EXPECT_EQ(csv.totals.at("all").at(0), -1.0);
    for (const std::string& w : walls) {
        expect_same_totals(csv_totals(csv, w), read_totals(h5, "/totals/" + w), "csv " + w);
        EXPECT_EQ(csv.totals.at(w).at(0), static_cast<double>(m.patch_index(w)));
    }
    const SurfaceTotals z = csv_totals(csv, "zmax");
    EXPECT_EQ(z.n_faces, 0);
    EXPECT_EQ(z.force, (Vec3{0, 0, 0}));
    EXPECT_EQ(z.heat, 0.0);
    expect_near_totals(csv_totals(csv, "ymin"), exact_side(spec, 2), 1e-13, "ymin");
    expect_near_totals(csv_totals(csv, "xmax"), exact_side(spec, 1), 1e-13, "xmax");
    expect_near_totals(t, exact_sum(spec, {1, 2}), 1e-13, "ymin + xmax");
}

TEST_F(SurfaceIo, OutputIsIdenticalForEveryDecomposition) {
    const int p = world_size(), me = world_rank();
    const ugks::BoxSpec spec = box_spec(3, "pyramid");
    const Mesh m = ugks::make_box(spec);
    const std::vector<std::string> walls = {"xmin", "ymax", "zmin", "zmax"};
    const SurfaceReference ref = reference();

    std::vector<int> scattered(static_cast<std::size_t>(m.n_cells()));
    for (index_t c = 0; c < m.n_cells(); ++c) scattered[c] = static_cast<int>((c * 7 + c / 5) % p);
    std::map<std::string, std::vector<SurfaceFace>> cases;
    cases["metis"] = local_wall_faces(
        ugks::build_local_mesh(m, ugks::partition_cells(m, p, MPI_COMM_WORLD), me), walls);
    cases["scattered"] = local_wall_faces(ugks::build_local_mesh(m, scattered, me), walls);
    // Every rank but the last owns no wall face; the faces come in reverse order.
    std::vector<SurfaceFace> all = global_wall_faces(m, walls);
    std::reverse(all.begin(), all.end());
    cases["all_on_last"] = me == p - 1 ? all : std::vector<SurfaceFace>{};
    std::map<std::string, SurfaceTotals> totals;
    for (const auto& [name, faces] : cases)
        totals[name] = ugks::write_surface(m_dir + "/" + name + ".h5", m_dir + "/" + name + ".csv",
                                           MPI_COMM_WORLD, m, faces, walls, ref, kConfig, 5, 1.5);

    // Reference: rank 0 alone on a one-rank communicator.
    MPI_Comm solo;
    MPI_Comm_split(MPI_COMM_WORLD, me == 0 ? 0 : MPI_UNDEFINED, 0, &solo);
    SurfaceTotals serial;
    if (me == 0) {
        serial = ugks::write_surface(m_dir + "/serial.h5", m_dir + "/serial.csv", solo, m,
                                     global_wall_faces(m, walls), walls, ref, kConfig, 5, 1.5);
        MPI_Comm_free(&solo);
    }
    MPI_Bcast(&serial, sizeof serial, MPI_BYTE, 0, MPI_COMM_WORLD);
    const std::string ref_h5 = m_dir + "/serial.h5";
    for (const auto& [name, faces] : cases) {
        const std::string h5 = m_dir + "/" + name + ".h5";
        expect_same_totals(totals[name], serial, name);
        for (const std::string& d : kDatasets) {
            EXPECT_EQ(ugks::read_field(h5, d, MPI_COMM_WORLD),
                      ugks::read_field(ref_h5, d, MPI_COMM_WORLD))
                << name << " " << d;
            EXPECT_EQ(ugks::read_dataset_dims(h5, d), ugks::read_dataset_dims(ref_h5, d))
                << name << " " << d;
        }
        for (const std::string& object : {"/", "/totals/xmin", "/totals/zmax"})
            expect_same_totals(read_totals(h5, object), read_totals(ref_h5, object),
                               name + " " + object);
        EXPECT_EQ(read_text(m_dir + "/" + name + ".csv"), read_text(m_dir + "/serial.csv")) << name;
        std::string xa = read_text(ugks::xdmf_path_for(h5));
        const std::string xb = read_text(ugks::xdmf_path_for(ref_h5));
        for (std::size_t pos; (pos = xa.find(name + ".h5:")) != std::string::npos;)
            xa.replace(pos, name.size(), "serial");
        EXPECT_EQ(xa, xb) << name;
    }
    expect_near_totals(serial, exact_sum(spec, {0, 3, 4, 5}), 1e-13, "serial");
}

/// Pulls the DataItems out of the XDMF: (attributes, text). Also checks that tags balance.
std::vector<std::pair<std::map<std::string, std::string>, std::string>> xdmf_items(
    const std::string& doc) {
    std::vector<std::string> stack;
    const std::regex tag("<(/?)([A-Za-z_][A-Za-z0-9_:]*)([^<>]*?)(/?)>");
    for (auto it = std::sregex_iterator(doc.begin(), doc.end(), tag); it != std::sregex_iterator();
         ++it) {
        const std::string name = (*it)[2];
        if ((*it)[1] == "/") {
            EXPECT_TRUE(!stack.empty() && stack.back() == name) << "unbalanced </" << name << ">";
            if (!stack.empty()) stack.pop_back();
        } else if ((*it)[4] != "/") {
            stack.push_back(name);
        }
    }
    EXPECT_TRUE(stack.empty()) << "unclosed tags";
    std::vector<std::pair<std::map<std::string, std::string>, std::string>> out;
    const std::regex item("<DataItem([^>]*)>([^<]*)</DataItem>"), attr("(\\w+)=\"([^\"]*)\"");
    for (auto it = std::sregex_iterator(doc.begin(), doc.end(), item); it != std::sregex_iterator();
         ++it) {
        std::map<std::string, std::string> attrs;
        const std::string a = (*it)[1];
        for (auto jt = std::sregex_iterator(a.begin(), a.end(), attr); jt != std::sregex_iterator();
             ++jt)
            attrs[(*jt)[1]] = (*jt)[2];
        out.push_back({attrs, (*it)[2]});
    }
    return out;
}

TEST_F(SurfaceIo, TopologyAndXdmfInOneTwoAndThreeDimensions) {
    const int p = world_size(), me = world_rank();
    struct Case {
        int dim;
        const char* type;
        index_t code;  // XDMF Mixed code of each face
        int nodes;     // nodes per face
        bool counted;  // the code is followed by the node count
    };
    for (const Case& c : {Case{1, "segment", 1, 1, true}, Case{2, "triangle", 2, 2, true},
                          Case{3, "hexa", 5, 4, false}, Case{3, "tetra", 4, 3, false},
                          Case{3, "pyramid", 5, 4, false}}) {
        const std::string tag = std::to_string(c.dim) + "d_" + c.type;
        SCOPED_TRACE(tag);
        const ugks::BoxSpec spec = box_spec(c.dim, c.type);
        const Mesh m = ugks::make_box(spec);
        // A rank beyond the part count owns nothing (1D box of 3 cells on 4 ranks).
        const int parts = static_cast<int>(std::min<index_t>(p, m.n_cells()));
        const std::vector<int> part = ugks::partition_cells(m, parts, MPI_COMM_WORLD);
        const std::vector<std::string> walls(m.patch_names.begin(), m.patch_names.end());
        const std::vector<SurfaceFace> faces =
            me < parts ? local_wall_faces(ugks::build_local_mesh(m, part, me), walls)
                       : std::vector<SurfaceFace>{};
        const std::string h5 = m_dir + "/surface_" + tag + ".h5";
        const SurfaceTotals t = ugks::write_surface(h5, "", MPI_COMM_WORLD, m, faces, walls,
                                                    reference(), kConfig, 1, 0.5);
        // Closed boundary: force = g * (length | area | volume) in the mesh's dimensions.
        double volume = 1;
        for (int d = 0; d < c.dim; ++d) volume *= spec.hi[d] - spec.lo[d];
        for (int d = 0; d < 3; ++d) EXPECT_NEAR(t.force[d], d < c.dim ? kG[d] * volume : 0, 1e-13);
        std::vector<int> sides;
        for (int s = 0; s < 2 * c.dim; ++s) sides.push_back(s);
        expect_near_totals(t, exact_sum(spec, sides), 1e-13, "totals");

        // Topology: per face its code (+ count) and node ids into /mesh/nodes, whose coordinates
        // are those of the global face's nodes; /mesh/nodes holds only surface nodes, ascending.
        const std::vector<SurfaceFace> want = global_wall_faces(m, walls);
        const std::vector<index_t> topo =
            ugks::read_index_field(h5, "/mesh/topology", MPI_COMM_WORLD);
        const std::vector<double> xyz = ugks::read_field(h5, "/mesh/nodes", MPI_COMM_WORLD);
        const std::vector<index_t> gnode =
            ugks::read_index_field(h5, "/mesh/global_node", MPI_COMM_WORLD);
        std::set<index_t> used;
        std::size_t k = 0;
        for (const SurfaceFace& f : want) {
            ASSERT_LT(k, topo.size());
            EXPECT_EQ(topo[k++], c.code);
            if (c.counted) EXPECT_EQ(topo[k++], c.nodes);
            const index_t a = m.face_node_offsets[f.global_face];
            ASSERT_EQ(m.face_node_offsets[f.global_face + 1] - a, c.nodes);
            for (int j = 0; j < c.nodes; ++j, ++k) {
                const index_t local = topo.at(k), g = m.face_nodes[a + j];
                used.insert(g);
                ASSERT_LT(local, static_cast<index_t>(gnode.size()));
                EXPECT_EQ(gnode[local], g);
                for (int d = 0; d < 3; ++d) EXPECT_EQ(xyz[3 * local + d], m.nodes[g][d]);
            }
        }
        EXPECT_EQ(k, topo.size());
        EXPECT_EQ(gnode, std::vector<index_t>(used.begin(), used.end()));
        EXPECT_EQ(ugks::read_index_attribute(h5, "cell_count", "/mesh/topology"),
                  static_cast<index_t>(want.size()));
        // One face type: /mesh/connectivity holds the node ids of the Mixed list, a row per face.
        std::vector<index_t> rows;
        for (std::size_t i = 0; i < topo.size();) {
            i += c.counted ? 2 : 1;
            rows.insert(rows.end(), topo.begin() + i, topo.begin() + i + c.nodes);
            i += c.nodes;
        }
        EXPECT_EQ(ugks::read_index_field(h5, "/mesh/connectivity", MPI_COMM_WORLD), rows);
        EXPECT_EQ(ugks::read_dataset_dims(h5, "/mesh/connectivity"),
                  (std::vector<index_t>{static_cast<index_t>(want.size()), c.nodes}));

        // XDMF: every DataItem names an existing dataset of this file with its shape.
        const auto items = xdmf_items(read_text(ugks::xdmf_path_for(h5)));
        ASSERT_EQ(items.size(), 2u + 10u);
        std::set<std::string> seen;
        for (const auto& [attrs, text] : items) {
            const std::string prefix = "surface_" + tag + ".h5:";
            ASSERT_EQ(text.rfind(prefix, 0), 0u) << text;
            const std::string dataset = text.substr(prefix.size());
            seen.insert(dataset);
            std::ostringstream dims;
            const std::vector<index_t> shape = ugks::read_dataset_dims(h5, dataset);
            for (std::size_t j = 0; j < shape.size(); ++j) dims << (j ? " " : "") << shape[j];
            EXPECT_EQ(attrs.at("Dimensions"), dims.str()) << dataset;
            EXPECT_EQ(attrs.at("Format"), "HDF");
            const bool integer = dataset == "/mesh/connectivity" ||
                                 dataset == "/faces/global_face" || dataset == "/faces/patch";
            EXPECT_EQ(attrs.at("NumberType"), integer ? "Int" : "Float") << dataset;
        }
        EXPECT_EQ(seen, (std::set<std::string>{
                            "/mesh/connectivity", "/mesh/nodes", "/fields/p", "/fields/tau",
                            "/fields/q", "/fields/Cp", "/fields/Cf", "/fields/Ch", "/faces/normal",
                            "/faces/area", "/faces/global_face", "/faces/patch"}));
        const std::string doc = read_text(ugks::xdmf_path_for(h5));
        EXPECT_NE(doc.find("NumberOfElements=\"" + std::to_string(want.size()) + "\""),
                  std::string::npos);
    }
    EXPECT_EQ(dir_listing(m_dir).count("surface_1d_segment.xdmf"), 1u);
}

TEST_F(SurfaceIo, ZeroFreeStreamUsesReferenceDynamicPressureOrNaN) {
    const int p = world_size(), me = world_rank();
    const ugks::BoxSpec spec = box_spec(2, "quad");
    const Mesh m = ugks::make_box(spec);
    const LocalMesh lm = ugks::build_local_mesh(m, ugks::partition_cells(m, p, MPI_COMM_WORLD), me);
    const std::vector<std::string> walls = {"ymax"};  // a lid
    const std::vector<SurfaceFace> faces = local_wall_faces(lm, walls);
    SurfaceReference ref = reference();
    ref.U_inf = {0, 0, 0};
    ref.q_ref = 0.02;  // 1/2 rho U_lid^2 with U_lid = sqrt(0.04 / 1.1)
    const std::string h5 = m_dir + "/lid.h5", csv_path = m_dir + "/lid.csv";
    SurfaceTotals t =
        ugks::write_surface(h5, csv_path, MPI_COMM_WORLD, m, faces, walls, ref, kConfig, 1, 0.0);
    EXPECT_TRUE(std::isnan(t.CD));  // no flow direction
    const SurfaceTotals e = exact_side(spec, 3);
    EXPECT_NEAR(t.CL, e.force[1] / (0.02 * ref.A_ref), 1e-12);
    const double u_ref = std::sqrt(2 * 0.02 / 1.1);
    const std::vector<double> cp = ugks::read_field(h5, "/fields/Cp", MPI_COMM_WORLD);
    const std::vector<double> ch = ugks::read_field(h5, "/fields/Ch", MPI_COMM_WORLD);
    const std::vector<SurfaceFace> want = global_wall_faces(m, walls);
    ASSERT_EQ(cp.size(), want.size());
    ASSERT_EQ(want.size(), 3u);
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_NEAR(cp[i], (p_of(want[i].centroid) - 0.5) / 0.02, 1e-12);
        EXPECT_NEAR(ch[i], q_of(want[i].centroid) / (0.02 * u_ref), 1e-12);
    }
    EXPECT_EQ(ugks::read_double_attribute(h5, "U_ref"), ugks::surface_reference_speed(ref));

    // Without q_ref: NaN coefficients in the HDF5 file and "nan" in the CSV; p and q still finite.
    ref.q_ref = 0;
    t = ugks::write_surface(h5, csv_path, MPI_COMM_WORLD, m, faces, walls, ref, kConfig, 2, 0.5);
    EXPECT_TRUE(std::isnan(t.CD) && std::isnan(t.CL));
    expect_near_totals(t, e, 1e-13, "lid");
    for (const char* d : {"/fields/Cp", "/fields/Cf", "/fields/Ch"})
        for (double x : ugks::read_field(h5, d, MPI_COMM_WORLD)) EXPECT_TRUE(std::isnan(x)) << d;
    const std::string text = read_text(csv_path);
    const Csv csv = parse_csv(csv_path);
    ASSERT_EQ(csv.rows.size(), 3u);
    for (const std::vector<double>& row : csv.rows) {
        EXPECT_TRUE(std::isnan(row[14]) && std::isnan(row[15]) && std::isnan(row[16]));
        EXPECT_FALSE(std::isnan(row[9]));
    }
    EXPECT_EQ(text.find("-nan"), std::string::npos);
    EXPECT_EQ(ugks::read_index_attribute(h5, "step"), 2);
}

TEST_F(SurfaceIo, NoWallFacesAtAllWritesEmptyFiles) {
    const Mesh m = ugks::make_box(box_spec(2, "quad"));
    const std::string h5 = m_dir + "/empty.h5", csv_path = m_dir + "/empty.csv";
    const SurfaceTotals t = ugks::write_surface(h5, csv_path, MPI_COMM_WORLD, m, {}, {"xmin"},
                                                reference(), kConfig, 0, 0.0);
    EXPECT_EQ(t.n_faces, 0);
    EXPECT_EQ(t.force, (Vec3{0, 0, 0}));
    EXPECT_EQ(t.CD, 0.0);
    EXPECT_EQ(ugks::read_dataset_dims(h5, "/fields/p"), (std::vector<index_t>{0}));
    EXPECT_EQ(ugks::read_dataset_dims(h5, "/fields/tau"), (std::vector<index_t>{0, 3}));
    EXPECT_TRUE(ugks::read_field(h5, "/mesh/nodes", MPI_COMM_WORLD).empty());
    const Csv csv = parse_csv(csv_path);
    EXPECT_EQ(csv.header.size(), 17u);
    EXPECT_TRUE(csv.rows.empty());
    EXPECT_EQ(csv_totals(csv, "xmin").n_faces, 0);
}

TEST_F(SurfaceIo, BadPathsAndPatchesAreInputErrorsOnEveryRank) {
    const int p = world_size(), me = world_rank();
    const Mesh m = ugks::make_box(box_spec(2, "quad"));
    const LocalMesh lm = ugks::build_local_mesh(m, ugks::partition_cells(m, p, MPI_COMM_WORLD), me);
    const std::vector<std::string> walls = {"xmin", "ymin"};
    const std::vector<SurfaceFace> faces = local_wall_faces(lm, walls);
    auto expect_error = [&](const std::string& h5, const std::string& csv,
                            const std::vector<std::string>& names, const std::string& message) {
        int threw = 0;
        try {
            ugks::write_surface(h5, csv, MPI_COMM_WORLD, m, faces, names, reference(), kConfig, 1,
                                0.0);
        } catch (const ugks::InputError& e) {
            threw = 1;
            EXPECT_EQ(std::string(e.what()), message);
        }
        MPI_Allreduce(MPI_IN_PLACE, &threw, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        EXPECT_EQ(threw, p) << message;
    };
    const std::string h5 = m_dir + "/no_dir/surface_final.h5";
    expect_error(h5, m_dir + "/ok.csv", walls,
                 "output file '" + h5 + "': directory '" + m_dir + "/no_dir' does not exist");
    const std::string csv = m_dir + "/missing/surface_final.csv";
    expect_error("", csv, walls,
                 "output file '" + csv + "': directory '" + m_dir + "/missing' does not exist");
    const std::string ok = m_dir + "/s.h5";
    expect_error(ok, "", {"xmin", "ymin", "wall"},
                 "surface output '" + ok +
                     "': patch 'wall' is not a patch of the mesh (patches: xmin, xmax, ymin, "
                     "ymax)");
    expect_error(ok, "", {"xmin", "ymin", "xmin"},
                 "surface output '" + ok + "': patch 'xmin' listed twice");
    // Nothing was left behind (not even temporaries).
    EXPECT_TRUE(dir_listing(m_dir).empty());
}

TEST_F(SurfaceIo, RewritingReplacesTheFiles) {
    const int p = world_size(), me = world_rank();
    const Mesh m = ugks::make_box(box_spec(2, "triangle"));
    const LocalMesh lm = ugks::build_local_mesh(m, ugks::partition_cells(m, p, MPI_COMM_WORLD), me);
    const std::vector<std::string> walls = {"xmax"};
    std::vector<SurfaceFace> faces = local_wall_faces(lm, walls);
    const std::string h5 = m_dir + "/surface_final.h5", csv = m_dir + "/surface_final.csv";
    const SurfaceTotals t1 =
        ugks::write_surface(h5, csv, MPI_COMM_WORLD, m, faces, walls, reference(), "a: 1\n", 1, 1);
    for (SurfaceFace& f : faces) {
        for (double& x : f.P) x *= 2;
        f.qw *= 2;
    }
    const SurfaceTotals t2 =
        ugks::write_surface(h5, csv, MPI_COMM_WORLD, m, faces, walls, reference(), "b: 2\n", 2, 2);
    for (int d = 0; d < 3; ++d) EXPECT_EQ(t2.force[d], 2 * t1.force[d]);
    EXPECT_EQ(t2.heat, 2 * t1.heat);
    expect_same_totals(read_totals(h5, "/"), t2, "rewritten");
    EXPECT_EQ(ugks::read_string_attribute(h5, "config"), "b: 2\n");
    expect_same_totals(csv_totals(parse_csv(csv), "all"), t2, "rewritten csv");
    EXPECT_EQ(dir_listing(m_dir),
              (std::set<std::string>{"surface_final.h5", "surface_final.xdmf", "surface_final.csv",
                                     "surface_final_totals.csv"}));
}

}  // namespace
