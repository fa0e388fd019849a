#pragma once
#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

#include "ugks/parallel/partition.hpp"

namespace ugks {

/// One cell field: `width` values per owned cell, [cell][width].
struct CellField {
    std::string name;
    int width = 1;
    std::vector<double> data;
};

/// What a fields file says besides its fields.
struct FieldsMeta {
    std::string config_yaml;  ///< root attribute `config` (the resolved YAML)
    long step = 0;
    double time = 0;
    std::string run_id;  ///< root attribute `run_id` when not empty
    /// Name, in the same directory, of the file write_mesh_file wrote: /cells and /mesh become HDF5
    /// external links to it (h5py and HDF5 follow them) and the XDMF reads the mesh from it.
    /// Empty: /cells and /mesh are written into this file.
    std::string mesh_file;
    double length_scale = 1.0;  ///< coordinates written = mesh coordinates * this (embedded mesh)
    double volume_scale = 1.0;  ///< volumes written = mesh volumes * this (embedded mesh)
    /// Extra root attributes: numbers (the reference state) and strings (`units`).
    std::vector<std::pair<std::string, double>> numbers;
    std::vector<std::pair<std::string, std::string>> strings;
    /// String attribute `units` on datasets: (dataset path such as "/fields/U", unit).
    std::vector<std::pair<std::string, std::string>> dataset_units;
    /// The unit of dataset `path` in dataset_units, "" when none.
    std::string unit_of(const std::string& path) const {
        for (const auto& [p, u] : dataset_units)
            if (p == path) return u;
        return "";
    }
};

/// Write the mesh of the fields files collectively over `comm` to `path` (.h5): /cells/centroid,
/// /cells/volume, /cells/global_id, /mesh/nodes, /mesh/topology and, when every cell has the same
/// type, /mesh/connectivity (n x nodes per cell, the XDMF node order); coordinates multiplied by
/// `length_scale`, volumes by `volume_scale`; root attributes from meta.numbers and meta.strings
/// and `ugks_version`. Layout and errors as write_fields.
void write_mesh_file(const std::string& path, MPI_Comm comm, const Mesh& global_mesh,
                     const FieldsMeta& meta);

/// Write `path` (.h5) collectively with parallel HDF5 over `comm` (one velocity group, e.g. comm_x
/// of q=0), plus `path` with .xdmf for ParaView/VisIt/meshio. Datasets: /cells/centroid (n x 3),
/// /cells/volume, /cells/global_id, /fields/<name> (n or n x width), all in global cell order;
/// /mesh/nodes (global nodes x 3), /mesh/topology (XDMF mixed topology); attributes config
/// (resolved YAML), step, time. With meta.mesh_file, /cells and /mesh are links to that file.
///
/// File layout (n = global cell count, all floating-point data native double, integers int64):
/// - /cells/centroid  double (n, 3)     cell centroids
/// - /cells/volume    double (n)        cell volumes (areas in 2D, lengths in 1D)
/// - /cells/global_id int64  (n)        0 .. n-1
/// - /fields/<name>   double (n) for width 1, (n, width) otherwise, in the caller's units
///                    (every dataset: attribute `units` when meta.dataset_units gives one)
/// - /mesh/nodes      double (n_nodes, 3) global mesh nodes
/// - /mesh/topology   int64  (L)        XDMF "Mixed": per cell its XDMF type code then its node ids
///                                      (Segment -> 2 2 a b (Polyline, node count 2), Triangle 4,
///                                      Quad 5, Tetra 6, Pyramid 7, Prism 8 (Wedge), Hexa 9; node
///                                      order as in the Mesh (Gmsh = VTK/XDMF for these linear
///                                      cells) except the prism, written as Mesh nodes 0 2 1 3 5 4
///                                      because VTK's wedge is oriented the other way);
///                                      attribute `cell_count` (int64) = n
/// - /mesh/connectivity int64 (n, k)    when all n cells have one type: the same node ids, k a row
/// - root attributes: `config` (variable-length UTF-8 string, the resolved YAML), `step` (int64),
///   `time` (double), `ugks_version` (string "<version> (<git commit>)"), `run_id` (string, when
///   given), meta.numbers (double) and meta.strings (string)
///
/// Parallel strategy: every rank holds the global mesh, so geometry, nodes and topology are written
/// straight from it, each rank a contiguous block of rows. Field rows are moved (one MPI_Alltoallv
/// of all fields packed together) from the owning rank to the rank whose contiguous block of global
/// ids contains them; each rank then writes one hyperslab per dataset, collectively (MPI-IO
/// collective transfer). Cost per rank O(n / P) data plus O(n) integer work on the global mesh.
///
/// Field data may hold owned rows only (size n_owned * width) or owned-then-ghost rows
/// (size (n_owned + n_ghost) * width); ghost rows are ignored. Every rank must pass the same list
/// of field names and widths. The metadata is taken from rank 0 of `comm`.
///
/// The .xdmf (XDMF 3; ParaView's XDMF and Xdmf3 readers, meshio.read) has one Grid with the
/// topology (uniform when the mesh has one cell type, else Mixed: meshio's plain reader cannot
/// read a Mixed list from HDF5, its TimeSeriesReader on write_fields_series's file can), XYZ
/// geometry and one cell-centred Attribute per field, plus `volume` and `global_id`; a field of
/// width 1 is a Scalar, 3 a Vector, 6 a Tensor6 (components in XDMF order xx xy xz yy yz zz),
/// 9 a Tensor (row-major), any other width a Matrix. DataItems name the .h5 files by their file
/// names only (relative to the .xdmf), so the files can be moved together. No <Time> element
/// (meshio's plain reader refuses it): the time series file has the times.
///
/// The file is written as `path`.tmp and renamed to `path` once closed; then rank 0 writes the
/// .xdmf (also through a .tmp and a rename). Errors (missing or unwritable directory, write
/// failures, invalid field names) throw InputError naming the path on every rank of `comm`.
void write_fields(const std::string& path, MPI_Comm comm, const Mesh& global_mesh,
                  const LocalMesh& local, const std::vector<CellField>& fields,
                  const FieldsMeta& meta);
/// write_fields with only config, step and time (mesh embedded, unscaled).
void write_fields(const std::string& path, MPI_Comm comm, const Mesh& global_mesh,
                  const LocalMesh& local, const std::vector<CellField>& fields,
                  const std::string& config_yaml, long step, double time);

/// One snapshot of a time series: the fields file name (relative to the series file), its step
/// and time.
struct SeriesEntry {
    std::string h5_name;
    long step = 0;
    double time = 0;
};
/// Write (serially, one rank) `xdmf_path`: a temporal collection of the `entries` (ascending
/// time), each a grid with the mesh of `mesh_file` (written once by write_mesh_file, referenced
/// by every step) and the fields' attributes (names and widths of `fields`, data ignored) from
/// its own file. ParaView opens it as one time series, meshio with xdmf.TimeSeriesReader.
/// Written through a .tmp and a rename; errors throw InputError naming the path.
void write_fields_series(const std::string& xdmf_path, const std::string& mesh_file,
                         const Mesh& global_mesh, const std::vector<CellField>& fields,
                         const std::vector<SeriesEntry>& entries);

/// Path of the XDMF companion of an .h5 path: "dir/x.h5" -> "dir/x.xdmf" (other names: + ".xdmf").
std::string xdmf_path_for(const std::string& h5_path);

/// Read back one field in global cell order (every rank of comm gets the whole array). For tests
/// and tools. Rank 0 reads and broadcasts; integer datasets are converted to double. Collective
/// over `comm`; a missing file or dataset throws InputError naming both, on every rank.
std::vector<double> read_field(const std::string& path, const std::string& dataset, MPI_Comm comm);
/// As read_field, for integer datasets (/cells/global_id, /mesh/topology), without conversion to
/// double.
std::vector<index_t> read_index_field(const std::string& path, const std::string& dataset,
                                      MPI_Comm comm);
/// Dimensions of a dataset (e.g. {n, 3}). Serial (any single rank); InputError when missing.
std::vector<index_t> read_dataset_dims(const std::string& path, const std::string& dataset);

/// Read a string attribute of the root group ("config"), or of `object` when given
/// ("/mesh/topology"). Fixed-length and variable-length strings are both accepted. Serial;
/// InputError when missing.
std::string read_string_attribute(const std::string& path, const std::string& name,
                                  const std::string& object = "/");
/// Read a scalar numeric attribute ("time", "step", "cell_count"), converted to double / int64.
double read_double_attribute(const std::string& path, const std::string& name,
                             const std::string& object = "/");
index_t read_index_attribute(const std::string& path, const std::string& name,
                             const std::string& object = "/");

}  // namespace ugks
