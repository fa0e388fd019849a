// Parallel HDF5 cell-field output (+ XDMF companion) and the small readers used by tests and tools.
#include "ugks/io/fields_io.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
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

// ---- HDF5 handles ----------------------------------------------------------------------------

// ---- MPI helpers -----------------------------------------------------------------------------

template <class T>
void bcast_vector(std::vector<T>& v, MPI_Datatype type, MPI_Comm comm) {
    unsigned long long len = v.size();
    MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    v.resize(len);
    for (unsigned long long off = 0; off < len;) {
        const int chunk = static_cast<int>(std::min<unsigned long long>(len - off, 1u << 28));
        MPI_Bcast(v.data() + off, chunk, type, 0, comm);
        off += static_cast<unsigned long long>(chunk);
    }
}

// ---- global block layout -----------------------------------------------------------------------

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

    Hid group(const char* name) const {
        Hid g(H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        check(g.valid(), std::string("creating group '") + name + "'");
        return g;
    }

    /// Dataset of `n_rows` x `width` (1-D when width == 1); this rank writes rows
    /// [row0, row0 + n_local) from `buf`, collectively. Returns the open dataset (for attributes).
    Hid rows(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type, index_t n_rows,
             int width, index_t row0, index_t n_local, const void* buf) const {
        const int rank = width == 1 ? 1 : 2;
        const hsize_t dims[2] = {static_cast<hsize_t>(n_rows), static_cast<hsize_t>(width)};
        Hid space(H5Screate_simple(rank, dims, nullptr), H5Sclose);
        Hid dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        bool ok = space.valid() && dcpl.valid();
        // Every element is written below: skip the fill pass over the whole dataset.
        if (ok) ok = H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER) >= 0;
        Hid dset;
        if (ok) {
            dset = Hid(H5Dcreate2(loc, name.c_str(), file_type, space.get(), H5P_DEFAULT,
                                  dcpl.get(), H5P_DEFAULT),
                       H5Dclose);
            ok = dset.valid();
        }
        check(ok, "creating dataset '" + name + "'");

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

    void attribute(hid_t loc, const char* name, hid_t type, const void* value) const {
        check(write_attribute(loc, name, type, value),
              std::string("writing attribute '") + name + "'");
    }

    void string_attribute(hid_t loc, const char* name, const std::string& value) const {
        check(write_string_attribute(loc, name, value),
              std::string("writing attribute '") + name + "'");
    }
};

struct WriteInput {
    const Mesh* mesh;
    const std::vector<CellField>* fields;
    const std::vector<double>* field_block;  // this rank's block rows, all fields side by side
    int total_width;
    std::string config;
    long step;
    double time;
};

void write_h5(const std::string& tmp_path, const std::string& path, MPI_Comm comm,
              const WriteInput& in) {
    int size = 1, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    const Mesh& m = *in.mesh;
    const index_t n = m.n_cells();

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

    const BlockLayout cells{n, size};
    const index_t c0 = cells.begin(rank), nc = cells.end(rank) - c0;

    {
        Hid g = w.group("cells");
        w.rows(g.get(), "centroid", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, 3, c0, nc,
               m.cell_centroid.data() + c0);
        w.rows(g.get(), "volume", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, 1, c0, nc,
               m.cell_volume.data() + c0);
        std::vector<index_t> ids(static_cast<std::size_t>(nc));
        for (index_t i = 0; i < nc; ++i) ids[i] = c0 + i;
        w.rows(g.get(), "global_id", H5T_STD_I64LE, H5T_NATIVE_INT64, n, 1, c0, nc, ids.data());
    }
    {
        Hid g = w.group("fields");
        std::vector<double> column;
        int offset = 0;
        for (const CellField& f : *in.fields) {
            column.resize(static_cast<std::size_t>(nc) * f.width);
            for (index_t i = 0; i < nc; ++i)
                std::copy_n(in.field_block->data() + i * in.total_width + offset, f.width,
                            column.data() + i * f.width);
            w.rows(g.get(), f.name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, f.width, c0, nc,
                   column.data());
            offset += f.width;
        }
    }
    {
        Hid g = w.group("mesh");
        const BlockLayout nodes{m.n_nodes(), size};
        const index_t p0 = nodes.begin(rank), np = nodes.end(rank) - p0;
        w.rows(g.get(), "nodes", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, m.n_nodes(), 3, p0, np,
               m.nodes.data() + p0);

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
        Hid t = w.rows(g.get(), "topology", H5T_STD_I64LE, H5T_NATIVE_INT64, total, 1, t0,
                       static_cast<index_t>(topo.size()), topo.data());
        const std::int64_t cell_count = n;
        w.attribute(t.get(), "cell_count", H5T_STD_I64LE, &cell_count);
    }

    const std::int64_t step = in.step;
    w.string_attribute(file.get(), "config", in.config);
    w.attribute(file.get(), "step", H5T_STD_I64LE, &step);
    w.attribute(file.get(), "time", H5T_IEEE_F64LE, &in.time);
    w.string_attribute(file.get(), "ugks_version",
                       std::string(version_string) + " (" + git_commit + ")");

    // Closing flushes the metadata: it can fail too (full disk).
    w.check(file.close() >= 0, "closing the file");
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

Hid open_for_reading(const std::string& path) {
    if (!std::filesystem::is_regular_file(path))
        UGKS_INPUT_ERROR("HDF5 file '" << path << "' does not exist");
    Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file.valid())
        UGKS_INPUT_ERROR("HDF5 file '" << path << "': cannot open (not an HDF5 file?)");
    return file;
}

Hid open_dataset(hid_t file, const std::string& path, const std::string& dataset) {
    Hid dset(H5Dopen2(file, dataset.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dset.valid())
        UGKS_INPUT_ERROR("HDF5 file '" << path << "': no dataset '" << dataset << "'");
    return dset;
}

template <class T>
std::vector<T> read_all(const std::string& path, const std::string& dataset, hid_t mem_type) {
    const QuietHdf5 quiet;
    Hid file = open_for_reading(path);
    Hid dset = open_dataset(file.get(), path, dataset);
    Hid space(H5Dget_space(dset.get()), H5Sclose);
    const hssize_t count = space.valid() ? H5Sget_simple_extent_npoints(space.get()) : -1;
    if (count < 0)
        UGKS_INPUT_ERROR("HDF5 file '" << path << "': cannot read the shape of '" << dataset
                                       << "'");
    std::vector<T> out(static_cast<std::size_t>(count));
    if (count > 0 && H5Dread(dset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
        UGKS_INPUT_ERROR("HDF5 file '" << path << "': cannot read dataset '" << dataset << "' as "
                                       << (mem_type == H5T_NATIVE_DOUBLE ? "double" : "int64"));
    return out;
}

Hid open_attribute(hid_t file, const std::string& path, const std::string& object,
                   const std::string& name) {
    if (H5Aexists_by_name(file, object.c_str(), name.c_str(), H5P_DEFAULT) <= 0)
        UGKS_INPUT_ERROR("HDF5 file '" << path << "': no attribute '" << name << "' on '" << object
                                       << "'");
    Hid attr(H5Aopen_by_name(file, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
             H5Aclose);
    if (!attr.valid())
        UGKS_INPUT_ERROR("HDF5 file '" << path << "': cannot open attribute '" << name << "' on '"
                                       << object << "'");
    return attr;
}

template <class T>
T read_scalar_attribute(const std::string& path, const std::string& name, const std::string& object,
                        hid_t mem_type) {
    const QuietHdf5 quiet;
    Hid file = open_for_reading(path);
    Hid attr = open_attribute(file.get(), path, object, name);
    Hid space(H5Aget_space(attr.get()), H5Sclose);
    T value{};
    if (!space.valid() || H5Sget_simple_extent_npoints(space.get()) != 1 ||
        H5Aread(attr.get(), mem_type, &value) < 0)
        UGKS_INPUT_ERROR("HDF5 file '" << path << "': attribute '" << name << "' on '" << object
                                       << "' is not a numeric scalar");
    return value;
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

    on_root_then_agree(comm, [&] {
        const std::filesystem::path parent = std::filesystem::path(path).parent_path();
        std::error_code ec;
        if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
            UGKS_INPUT_ERROR("output file '" << path << "': directory '" << parent.string()
                                             << "' does not exist");
    });

    const BlockLayout cells{n, size};
    const std::vector<double> block = redistribute_rows(comm, local, cells, fields, total_width);

    const std::string tmp_path = path + ".tmp";
    const WriteInput in{&m,  &fields, &block, total_width, config, static_cast<long>(step_all),
                        time};
    try {
        const QuietHdf5 quiet;
        write_h5(tmp_path, path, comm, in);
    } catch (const InputError&) {
        if (rank == 0) {
            std::error_code ec;
            std::filesystem::remove(tmp_path, ec);
        }
        throw;
    }

    on_root_then_agree(comm, [&] {
        std::error_code ec;
        std::filesystem::rename(tmp_path, path, ec);
        if (ec) {
            std::filesystem::remove(tmp_path, ec);
            UGKS_INPUT_ERROR("output file '" << path << "': cannot rename '" << tmp_path
                                             << "' to it");
        }
        index_t total = 0;
        for (index_t c = 0; c < n; ++c) total += xdmf_cell_length(m, c);
        const std::string h5_name = std::filesystem::path(path).filename().string();
        write_text_atomically(xdmf_path_for(path),
                              make_xdmf(h5_name, m, total, fields, step_all, time));
    });
}

std::vector<double> read_field(const std::string& path, const std::string& dataset, MPI_Comm comm) {
    std::vector<double> out;
    on_root_then_agree(comm, [&] { out = read_all<double>(path, dataset, H5T_NATIVE_DOUBLE); });
    bcast_vector(out, MPI_DOUBLE, comm);
    return out;
}

std::vector<index_t> read_index_field(const std::string& path, const std::string& dataset,
                                      MPI_Comm comm) {
    std::vector<index_t> out;
    on_root_then_agree(comm, [&] { out = read_all<index_t>(path, dataset, H5T_NATIVE_INT64); });
    bcast_vector(out, MPI_INT64_T, comm);
    return out;
}

std::vector<index_t> read_dataset_dims(const std::string& path, const std::string& dataset) {
    const QuietHdf5 quiet;
    Hid file = open_for_reading(path);
    Hid dset = open_dataset(file.get(), path, dataset);
    Hid space(H5Dget_space(dset.get()), H5Sclose);
    const int rank = space.valid() ? H5Sget_simple_extent_ndims(space.get()) : -1;
    if (rank < 0)
        UGKS_INPUT_ERROR("HDF5 file '" << path << "': cannot read the shape of '" << dataset
                                       << "'");
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    return std::vector<index_t>(dims.begin(), dims.end());
}

std::string read_string_attribute(const std::string& path, const std::string& name,
                                  const std::string& object) {
    const QuietHdf5 quiet;
    Hid file = open_for_reading(path);
    Hid attr = open_attribute(file.get(), path, object, name);
    Hid type(H5Aget_type(attr.get()), H5Tclose);
    if (!type.valid() || H5Tget_class(type.get()) != H5T_STRING)
        UGKS_INPUT_ERROR("HDF5 file '" << path << "': attribute '" << name << "' on '" << object
                                       << "' is not a string");
    Hid mem(H5Tcopy(H5T_C_S1), H5Tclose);
    std::string value;
    // HDF5 does not convert between ASCII and UTF-8: read in the file's character set.
    bool ok = mem.valid() && H5Tset_cset(mem.get(), H5Tget_cset(type.get())) >= 0;
    if (ok && H5Tis_variable_str(type.get()) > 0) {
        ok = H5Tset_size(mem.get(), H5T_VARIABLE) >= 0;
        char* text = nullptr;
        if (ok) ok = H5Aread(attr.get(), mem.get(), &text) >= 0;
        if (ok && text) value = text;
        if (text) H5free_memory(text);
    } else if (ok) {
        const std::size_t len = H5Tget_size(type.get());
        std::vector<char> buf(len + 1, '\0');
        ok = H5Tset_size(mem.get(), len + 1) >= 0 &&
             H5Tset_strpad(mem.get(), H5T_STR_NULLTERM) >= 0 &&
             H5Aread(attr.get(), mem.get(), buf.data()) >= 0;
        if (ok) value = buf.data();
    }
    if (!ok)
        UGKS_INPUT_ERROR("HDF5 file '" << path << "': cannot read string attribute '" << name
                                       << "' on '" << object << "'");
    return value;
}

double read_double_attribute(const std::string& path, const std::string& name,
                             const std::string& object) {
    return read_scalar_attribute<double>(path, name, object, H5T_NATIVE_DOUBLE);
}

index_t read_index_attribute(const std::string& path, const std::string& name,
                             const std::string& object) {
    return read_scalar_attribute<index_t>(path, name, object, H5T_NATIVE_INT64);
}

}  // namespace ugks
