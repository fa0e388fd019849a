// Parallel HDF5 cell-field output (+ XDMF companion) and the small readers used by tests and tools.
#include "ugks/io/fields_io.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hdf5_common.hpp"
#include "row_route.hpp"
#include "ugks/core/error.hpp"
#include "ugks/core/version.hpp"
#include "ugks/io/xdmf.hpp"

namespace ugks {
namespace {

using namespace io_detail;

static_assert(sizeof(Vec3) == 3 * sizeof(double), "Vec3 must be three packed doubles");
static_assert(sizeof(index_t) == sizeof(std::int64_t), "index_t must be int64");

// ---- field validation and redistribution ---------------------------------------------------

void check_field_names(const std::string& path, const std::vector<CellField>& fields) {
    std::set<std::string> seen;
    for (const CellField& f : fields) {
        if (f.name.empty() || f.name == "." || f.name.find('/') != std::string::npos)
            UGKS_INPUT_ERROR("output file '" << path << "': invalid field name '" << f.name
                                             << "' (must be non-empty, without '/')");
        if (!seen.insert(f.name).second)
            UGKS_INPUT_ERROR("output file '" << path << "': field '" << f.name << "' given twice");
        if (f.width < 1)
            UGKS_INPUT_ERROR("output file '" << path << "': field '" << f.name << "' has width "
                                             << f.width << " (must be >= 1)");
    }
}

/// Moves the owned rows of all fields (packed side by side, `total_width` doubles per cell) to the
/// rank whose block holds their global id. Returns this rank's block, rows in global order.
std::vector<double> redistribute_rows(MPI_Comm comm, const LocalMesh& local,
                                      const BlockLayout& blocks,
                                      const std::vector<CellField>& fields, int total_width) {
    const index_t n_owned = local.n_owned;
    UGKS_REQUIRE(n_owned >= 0 && n_owned < INT_MAX, "owned cell count " << n_owned);
    UGKS_REQUIRE(static_cast<index_t>(local.global_cell.size()) >= n_owned,
                 "LocalMesh::global_cell has " << local.global_cell.size() << " entries for "
                                               << n_owned << " owned cells");
    const std::vector<index_t> owned(local.global_cell.begin(),
                                     local.global_cell.begin() + n_owned);
    index_t previous = -1;
    for (index_t l = 0; l < n_owned; ++l) {
        const index_t g = owned[l];
        UGKS_REQUIRE(g > previous && g < blocks.n, "owned global cell ids must ascend within [0, "
                                                       << blocks.n << "): cell " << l << " has "
                                                       << g);
        previous = g;
    }
    const Route route = push_route(comm, blocks, owned);
    std::vector<double> block(static_cast<std::size_t>(route.n_recv()) * total_width), send, recv;
    route.move(
        total_width, send, recv,
        [&](index_t l, double* row) {
            for (const CellField& f : fields) {
                std::copy_n(f.data.data() + l * f.width, f.width, row);
                row += f.width;
            }
        },
        [&](index_t pos, const double* row) {
            std::copy_n(row, total_width, block.data() + pos * total_width);
        });
    return block;
}

// ---- HDF5 writing ------------------------------------------------------------------------------

/// Every cell of `m` has one type: its XDMF code and node count ({0, 0} otherwise).
std::pair<int, int> uniform_cell_type(const Mesh& m) {
    const index_t n = m.n_cells();
    if (n == 0) return {0, 0};
    for (index_t c = 1; c < n; ++c)
        if (m.cell_type[c] != m.cell_type[0]) return {0, 0};
    std::vector<index_t> first;
    append_xdmf_cell(m, 0, first);
    return xdmf_uniform_type(first);
}

/// /cells and /mesh of `m` into the root of `w`, coordinates and volumes scaled.
void write_mesh_groups(const H5File& w, MPI_Comm comm, const Mesh& m, const FieldsMeta& meta) {
    const double length_scale = meta.length_scale, volume_scale = meta.volume_scale;
    auto units = [&](const Hid& d, const std::string& path) {
        const std::string u = meta.unit_of(path);
        if (!u.empty()) w.string_attribute(d.get(), "units", u);
    };
    int size = 1, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    const index_t n = m.n_cells();
    const hid_t root = w.root();
    const BlockLayout cells{n, size};
    const index_t c0 = cells.begin(rank), nc = cells.end(rank) - c0;
    auto scaled = [](const Vec3* v, index_t count, double s) {
        std::vector<Vec3> out(v, v + count);
        for (Vec3& x : out)
            for (double& c : x) c *= s;
        return out;
    };
    {
        Hid g = w.group(root, "cells");
        units(w.write(g.get(), "centroid", Shape{n, 3}, c0, nc,
                      scaled(m.cell_centroid.data() + c0, nc, length_scale).data()),
              "/cells/centroid");
        std::vector<double> vol(m.cell_volume.begin() + c0, m.cell_volume.begin() + c0 + nc);
        for (double& v : vol) v *= volume_scale;
        units(w.write(g.get(), "volume", Shape{n}, c0, nc, vol.data()), "/cells/volume");
        std::vector<index_t> ids(static_cast<std::size_t>(nc));
        for (index_t i = 0; i < nc; ++i) ids[i] = c0 + i;
        w.write(g.get(), "global_id", Shape{n}, c0, nc, ids.data());
    }
    Hid g = w.group(root, "mesh");
    const BlockLayout nodes{m.n_nodes(), size};
    const index_t p0 = nodes.begin(rank), np = nodes.end(rank) - p0;
    units(w.write(g.get(), "nodes", Shape{m.n_nodes(), 3}, p0, np,
                  scaled(m.nodes.data() + p0, np, length_scale).data()),
          "/mesh/nodes");

    // The topology block of this rank's cells starts after the entries of all earlier cells.
    index_t t0 = 0, total = 0;
    for (index_t c = 0; c < n; ++c) {
        if (c == c0) t0 = total;
        total += xdmf_cell_length(m, c);
    }
    if (c0 == n) t0 = total;
    std::vector<index_t> topo;
    topo.reserve(static_cast<std::size_t>(nc) * 9);
    for (index_t c = c0; c < c0 + nc; ++c) append_xdmf_cell(m, c, topo);
    Hid t = w.write(g.get(), "topology", Shape{total}, t0, static_cast<index_t>(topo.size()),
                    topo.data());
    w.attribute(t.get(), "cell_count", std::int64_t{n});
    const auto [code, k] = uniform_cell_type(m);
    if (code != 0) {
        const std::vector<index_t> rows = xdmf_connectivity(topo);
        w.write(g.get(), "connectivity", Shape{n, k}, c0, nc, rows.data());
    }
}

void write_meta_attributes(const H5File& w, const FieldsMeta& meta) {
    const hid_t root = w.root();
    for (const auto& [name, value] : meta.numbers) w.attribute(root, name.c_str(), value);
    for (const auto& [name, value] : meta.strings) w.string_attribute(root, name.c_str(), value);
    w.string_attribute(root, "ugks_version", std::string(version_string) + " (" + git_commit + ")");
}

struct WriteInput {
    const Mesh* mesh;
    const std::vector<CellField>* fields;
    const std::vector<double>* field_block;  // this rank's block rows, all fields side by side
    int total_width;
    const FieldsMeta* meta;
};

void write_h5(const H5File& w, MPI_Comm comm, const WriteInput& in) {
    int size = 1, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    const Mesh& m = *in.mesh;
    const FieldsMeta& meta = *in.meta;
    const index_t n = m.n_cells();
    const hid_t root = w.root();

    const BlockLayout cells{n, size};
    const index_t c0 = cells.begin(rank), nc = cells.end(rank) - c0;

    if (meta.mesh_file.empty()) {
        write_mesh_groups(w, comm, m, meta);
    } else {
        w.external_link(root, "cells", meta.mesh_file, "/cells");
        w.external_link(root, "mesh", meta.mesh_file, "/mesh");
    }
    {
        Hid g = w.group(root, "fields");
        std::vector<double> column;
        int offset = 0;
        for (const CellField& f : *in.fields) {
            column.resize(static_cast<std::size_t>(nc) * f.width);
            for (index_t i = 0; i < nc; ++i)
                std::copy_n(in.field_block->data() + i * in.total_width + offset, f.width,
                            column.data() + i * f.width);
            Hid d = w.write(g.get(), f.name, Shape::of_width(n, f.width), c0, nc, column.data());
            const std::string u = meta.unit_of("/fields/" + f.name);
            if (!u.empty()) w.string_attribute(d.get(), "units", u);
            offset += f.width;
        }
    }

    w.string_attribute(root, "config", meta.config_yaml);
    w.attribute(root, "step", std::int64_t{meta.step});
    w.attribute(root, "time", meta.time);
    if (!meta.run_id.empty()) w.string_attribute(root, "run_id", meta.run_id);
    write_meta_attributes(w, meta);
}

// ---- XDMF ---------------------------------------------------------------------------------------

/// The mesh of the fields files as the XDMF grids reference it: in `h5_name`.
XdmfMesh fields_xdmf_mesh(const Mesh& m, const std::string& h5_name) {
    XdmfMesh x;
    x.h5_name = h5_name;
    x.nodes_dataset = "/mesh/nodes";
    x.n_cells = m.n_cells();
    x.n_nodes = m.n_nodes();
    for (index_t c = 0; c < m.n_cells(); ++c) x.topology_length += xdmf_cell_length(m, c);
    const auto [code, k] = uniform_cell_type(m);
    x.uniform_code = code;
    x.nodes_per_cell = k;
    x.topology_dataset = code != 0 ? "/mesh/connectivity" : "/mesh/topology";
    return x;
}

/// The grid of one fields file `h5_name` whose mesh is in `xm.h5_name`.
std::string fields_grid(const XdmfMesh& xm, const std::string& h5_name,
                        const std::vector<CellField>& fields, const double* time,
                        const std::string& indent) {
    XdmfGrid x(xm, "ugks", time, indent);
    for (const CellField& f : fields)
        x.cell_attribute(f.name, f.width, "Float", h5_name, "/fields/" + f.name);
    // Geometry extras, unless a field already uses the name (XDMF attribute names must be unique).
    auto taken = [&](const char* name) {
        return std::any_of(fields.begin(), fields.end(),
                           [&](const CellField& f) { return f.name == name; });
    };
    if (!taken("volume")) x.cell_attribute("volume", 1, "Float", xm.h5_name, "/cells/volume");
    if (!taken("global_id"))
        x.cell_attribute("global_id", 1, "Int", xm.h5_name, "/cells/global_id");
    return x.text();
}

/// Checks and metadata agreement shared by write_fields and write_mesh_file.
void check_global_mesh(const Mesh& m) {
    const index_t n = m.n_cells();
    UGKS_REQUIRE(static_cast<index_t>(m.cell_volume.size()) == n &&
                     static_cast<index_t>(m.cell_centroid.size()) == n &&
                     static_cast<index_t>(m.cell_node_offsets.size()) == n + 1,
                 "global mesh geometry/connectivity arrays do not match its " << n << " cells");
}

/// rank 0's metadata on every rank of comm (attributes must be written identically).
FieldsMeta agreed_meta(const FieldsMeta& in, MPI_Comm comm) {
    FieldsMeta meta = in;
    bcast_string(meta.config_yaml, comm);
    bcast_string(meta.run_id, comm);
    bcast_string(meta.mesh_file, comm);
    long long step_all = meta.step;
    MPI_Bcast(&step_all, 1, MPI_LONG_LONG, 0, comm);
    meta.step = static_cast<long>(step_all);
    double scalars[3] = {meta.time, meta.length_scale, meta.volume_scale};
    MPI_Bcast(scalars, 3, MPI_DOUBLE, 0, comm);
    meta.time = scalars[0];
    meta.length_scale = scalars[1];
    meta.volume_scale = scalars[2];
    return meta;
}

// ---- reading -----------------------------------------------------------------------------------

H5Reader open_for_reading(const std::string& path) {
    if (!std::filesystem::is_regular_file(path))
        UGKS_INPUT_ERROR("HDF5 file '" << path << "' does not exist");
    Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file.valid())
        UGKS_INPUT_ERROR("HDF5 file '" << path << "': cannot open (not an HDF5 file?)");
    return H5Reader(std::move(file), "HDF5 file '" + path + "'");
}

template <class T>
std::vector<T> read_all(const std::string& path, const std::string& dataset) {
    const QuietHdf5 quiet;
    return open_for_reading(path).read<T>(dataset);
}

template <class T>
T read_scalar_attribute(const std::string& path, const std::string& name,
                        const std::string& object) {
    const QuietHdf5 quiet;
    return open_for_reading(path).scalar_attribute<T>(object, name);
}

}  // namespace

// ---- public API ------------------------------------------------------------------------------

std::string xdmf_path_for(const std::string& h5_path) {
    const std::string ext = ".h5";
    if (h5_path.size() > ext.size() &&
        h5_path.compare(h5_path.size() - ext.size(), ext.size(), ext) == 0)
        return h5_path.substr(0, h5_path.size() - ext.size()) + ".xdmf";
    return h5_path + ".xdmf";
}

void write_mesh_file(const std::string& path, MPI_Comm comm, const Mesh& global_mesh,
                     const FieldsMeta& meta_in) {
    check_global_mesh(global_mesh);
    const FieldsMeta meta = agreed_meta(meta_in, comm);
    write_output_h5(comm, path, [&](const H5File& w) {
        write_mesh_groups(w, comm, global_mesh, meta);
        write_meta_attributes(w, meta);
    });
}

void write_fields(const std::string& path, MPI_Comm comm, const Mesh& global_mesh,
                  const LocalMesh& local, const std::vector<CellField>& fields,
                  const FieldsMeta& meta_in) {
    const Mesh& m = global_mesh;
    const index_t n = m.n_cells();
    UGKS_REQUIRE(local.n_global_cells == n, "LocalMesh has " << local.n_global_cells
                                                             << " global cells, the global mesh "
                                                             << n);
    check_global_mesh(m);
    check_field_names(path, fields);
    int total_width = 0;
    for (const CellField& f : fields) {
        const auto rows_owned = static_cast<std::size_t>(local.n_owned) * f.width;
        const auto rows_all = static_cast<std::size_t>(local.n_owned + local.n_ghost) * f.width;
        UGKS_REQUIRE(f.data.size() == rows_owned || f.data.size() == rows_all,
                     "field '" << f.name << "' has " << f.data.size() << " values for "
                               << local.n_owned << " owned cells of width " << f.width);
        total_width += f.width;
    }

    // Attribute values are metadata, which every rank must write identically: take rank 0's.
    const FieldsMeta meta = agreed_meta(meta_in, comm);
    int size = 1;
    MPI_Comm_size(comm, &size);
    const BlockLayout cells{n, size};
    const std::vector<double> block = redistribute_rows(comm, local, cells, fields, total_width);

    const WriteInput in{&m, &fields, &block, total_width, &meta};
    write_output_h5(comm, path, [&](const H5File& w) { write_h5(w, comm, in); });

    on_root_then_agree(comm, [&] {
        const std::string h5_name = std::filesystem::path(path).filename().string();
        const XdmfMesh xm = fields_xdmf_mesh(m, meta.mesh_file.empty() ? h5_name : meta.mesh_file);
        write_text_atomically(xdmf_path_for(path),
                              xdmf_document(fields_grid(xm, h5_name, fields, nullptr, "    ")));
    });
}

void write_fields(const std::string& path, MPI_Comm comm, const Mesh& global_mesh,
                  const LocalMesh& local, const std::vector<CellField>& fields,
                  const std::string& config_yaml, long step, double time) {
    FieldsMeta meta;
    meta.config_yaml = config_yaml;
    meta.step = step;
    meta.time = time;
    write_fields(path, comm, global_mesh, local, fields, meta);
}

void write_fields_series(const std::string& xdmf_path, const std::string& mesh_file,
                         const Mesh& global_mesh, const std::vector<CellField>& fields,
                         const std::vector<SeriesEntry>& entries) {
    const XdmfMesh xm = fields_xdmf_mesh(global_mesh, mesh_file);
    std::vector<std::string> grids;
    for (const SeriesEntry& e : entries)
        grids.push_back(fields_grid(xm, e.h5_name, fields, &e.time, "      "));
    check_output_directory(xdmf_path);
    write_text_atomically(xdmf_path, xdmf_time_series("ugks", grids));
}

std::vector<double> read_field(const std::string& path, const std::string& dataset, MPI_Comm comm) {
    std::vector<double> out;
    on_root_then_agree(comm, [&] { out = read_all<double>(path, dataset); });
    bcast_sequence(out, MPI_DOUBLE, comm);
    return out;
}

std::vector<index_t> read_index_field(const std::string& path, const std::string& dataset,
                                      MPI_Comm comm) {
    std::vector<index_t> out;
    on_root_then_agree(comm, [&] { out = read_all<index_t>(path, dataset); });
    bcast_sequence(out, MPI_INT64_T, comm);
    return out;
}

std::vector<index_t> read_dataset_dims(const std::string& path, const std::string& dataset) {
    const QuietHdf5 quiet;
    return open_for_reading(path).dims(dataset);
}

std::string read_string_attribute(const std::string& path, const std::string& name,
                                  const std::string& object) {
    const QuietHdf5 quiet;
    return open_for_reading(path).string_attribute(object, name);
}

double read_double_attribute(const std::string& path, const std::string& name,
                             const std::string& object) {
    return read_scalar_attribute<double>(path, name, object);
}

index_t read_index_attribute(const std::string& path, const std::string& name,
                             const std::string& object) {
    return read_scalar_attribute<index_t>(path, name, object);
}

}  // namespace ugks
