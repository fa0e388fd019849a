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

struct WriteInput {
    const Mesh* mesh;
    const std::vector<CellField>* fields;
    const std::vector<double>* field_block;  // this rank's block rows, all fields side by side
    int total_width;
    std::string config;
    long step;
    double time;
};

void write_h5(const H5File& w, MPI_Comm comm, const WriteInput& in) {
    int size = 1, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    const Mesh& m = *in.mesh;
    const index_t n = m.n_cells();
    const hid_t root = w.root();

    const BlockLayout cells{n, size};
    const index_t c0 = cells.begin(rank), nc = cells.end(rank) - c0;

    {
        Hid g = w.group(root, "cells");
        w.write(g.get(), "centroid", Shape{n, 3}, c0, nc, m.cell_centroid.data() + c0);
        w.write(g.get(), "volume", Shape{n}, c0, nc, m.cell_volume.data() + c0);
        std::vector<index_t> ids(static_cast<std::size_t>(nc));
        for (index_t i = 0; i < nc; ++i) ids[i] = c0 + i;
        w.write(g.get(), "global_id", Shape{n}, c0, nc, ids.data());
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
            w.write(g.get(), f.name, Shape::of_width(n, f.width), c0, nc, column.data());
            offset += f.width;
        }
    }
    {
        Hid g = w.group(root, "mesh");
        const BlockLayout nodes{m.n_nodes(), size};
        const index_t p0 = nodes.begin(rank), np = nodes.end(rank) - p0;
        w.write(g.get(), "nodes", Shape{m.n_nodes(), 3}, p0, np, m.nodes.data() + p0);

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
    }

    w.string_attribute(root, "config", in.config);
    w.attribute(root, "step", std::int64_t{in.step});
    w.attribute(root, "time", in.time);
    w.string_attribute(root, "ugks_version", std::string(version_string) + " (" + git_commit + ")");
}

// ---- XDMF ---------------------------------------------------------------------------------------

std::string make_xdmf(const std::string& h5_name, const Mesh& m, index_t topology_length_total,
                      const std::vector<CellField>& fields, long step, double time) {
    XdmfUniformGrid x(h5_name, "ugks", m.n_cells(), topology_length_total, m.n_nodes(), step, time);
    for (const CellField& f : fields)
        x.cell_attribute(f.name, f.width, "Float", "/fields/" + f.name);
    // Geometry extras, unless a field already uses the name (XDMF attribute names must be unique).
    auto taken = [&](const char* name) {
        return std::any_of(fields.begin(), fields.end(),
                           [&](const CellField& f) { return f.name == name; });
    };
    if (!taken("volume")) x.cell_attribute("volume", 1, "Float", "/cells/volume");
    if (!taken("global_id")) x.cell_attribute("global_id", 1, "Int", "/cells/global_id");
    return x.text();
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

void write_fields(const std::string& path, MPI_Comm comm, const Mesh& global_mesh,
                  const LocalMesh& local, const std::vector<CellField>& fields,
                  const std::string& config_yaml, long step, double time) {
    int size = 1, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    const Mesh& m = global_mesh;
    const index_t n = m.n_cells();
    UGKS_REQUIRE(local.n_global_cells == n, "LocalMesh has " << local.n_global_cells
                                                             << " global cells, the global mesh "
                                                             << n);
    UGKS_REQUIRE(static_cast<index_t>(m.cell_volume.size()) == n &&
                     static_cast<index_t>(m.cell_centroid.size()) == n &&
                     static_cast<index_t>(m.cell_node_offsets.size()) == n + 1,
                 "global mesh geometry/connectivity arrays do not match its " << n << " cells");
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
    std::string config = config_yaml;
    bcast_string(config, comm);
    long long step_all = step;
    MPI_Bcast(&step_all, 1, MPI_LONG_LONG, 0, comm);
    MPI_Bcast(&time, 1, MPI_DOUBLE, 0, comm);

    const BlockLayout cells{n, size};
    const std::vector<double> block = redistribute_rows(comm, local, cells, fields, total_width);

    const WriteInput in{&m,  &fields, &block, total_width, config, static_cast<long>(step_all),
                        time};
    write_output_h5(comm, path, [&](const H5File& w) { write_h5(w, comm, in); });

    on_root_then_agree(comm, [&] {
        index_t total = 0;
        for (index_t c = 0; c < n; ++c) total += xdmf_cell_length(m, c);
        const std::string h5_name = std::filesystem::path(path).filename().string();
        write_text_atomically(xdmf_path_for(path),
                              make_xdmf(h5_name, m, total, fields, step_all, time));
    });
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
