#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include "ugks/parallel/partition.hpp"

namespace ugks {

/// One cell field: `width` values per owned cell, [cell][width].
struct CellField {
    std::string name;
    int width = 1;
    std::vector<double> data;
};

/// Write `path` (.h5) collectively with parallel HDF5 over `comm` (one velocity group, e.g. comm_x
/// of q=0), plus `path` with .xdmf for ParaView/VisIt. Datasets: /cells/centroid (n x 3),
/// /cells/volume, /cells/global_id, /fields/<name> (n or n x width), all in global cell order;
/// /mesh/nodes (global nodes x 3), /mesh/topology (XDMF mixed topology); attributes config
/// (resolved YAML), step, time.
///
/// File layout (n = global cell count, all floating-point data native double, integers int64):
/// - /cells/centroid  double (n, 3)     cell centroids [m]
/// - /cells/volume    double (n)        cell volumes [m^3] (areas in 2D, lengths in 1D)
/// - /cells/global_id int64  (n)        0 .. n-1
/// - /fields/<name>   double (n) for width 1, (n, width) otherwise, in the caller's units
/// - /mesh/nodes      double (n_nodes, 3) global mesh nodes [m]
/// - /mesh/topology   int64  (L)        XDMF "Mixed": per cell its XDMF type code then its node ids
///                                      (Segment -> 2 2 a b (Polyline, node count 2), Triangle 4,
///                                      Quad 5, Tetra 6, Pyramid 7, Prism 8 (Wedge), Hexa 9; node
///                                      order as in the Mesh (Gmsh = VTK/XDMF for these linear
///                                      cells) except the prism, written as Mesh nodes 0 2 1 3 5 4
///                                      because VTK's wedge is oriented the other way);
///                                      attribute `cell_count` (int64) = n
/// - root attributes: `config` (fixed-length UTF-8 string, the resolved YAML), `step` (int64),
///   `time` (double, [s]), `ugks_version` (string "<version> (<git commit>)")
///
/// Parallel strategy: every rank holds the global mesh, so geometry, nodes and topology are written
/// straight from it, each rank a contiguous block of rows. Field rows are moved (one MPI_Alltoallv
/// of all fields packed together) from the owning rank to the rank whose contiguous block of global
/// ids contains them; each rank then writes one hyperslab per dataset, collectively (MPI-IO
/// collective transfer). Cost per rank O(n / P) data plus O(n) integer work on the global mesh.
///
/// Field data may hold owned rows only (size n_owned * width) or owned-then-ghost rows
/// (size (n_owned + n_ghost) * width); ghost rows are ignored. Every rank must pass the same list
/// of field names and widths. `config_yaml`, `step` and `time` are taken from rank 0 of `comm`.
///
/// The .xdmf (XDMF 3, loads in ParaView's XDMF and Xdmf3 readers) has one Grid with Mixed topology,
/// XYZ geometry and one cell-centred Attribute per field, plus `volume` and `global_id`; a field of
/// width 1 is a Scalar, 3 a Vector, 6 a Tensor6 (components in XDMF order xx xy xz yy yz zz),
/// 9 a Tensor (row-major), any other width a Matrix. DataItems name the .h5 by its file name only
/// (relative to the .xdmf), so the pair can be moved together.
///
/// The file is written as `path`.tmp and renamed to `path` once closed; then rank 0 writes the
/// .xdmf (also through a .tmp and a rename). Errors (missing or unwritable directory, write
/// failures, invalid field names) throw InputError naming the path on every rank of `comm`.
void write_fields(const std::string& path, MPI_Comm comm, const Mesh& global_mesh,
                  const LocalMesh& local, const std::vector<CellField>& fields,
                  const std::string& config_yaml, long step, double time);

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
