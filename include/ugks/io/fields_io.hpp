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

/// Write `path` (.h5) collectively with parallel HDF5 over `comm` (one velocity group, e.g. comm_x of q=0),
/// plus `path` with .xdmf for ParaView/VisIt. Datasets: /cells/centroid (n x 3), /cells/volume,
/// /cells/global_id, /fields/<name> (n or n x width), all in global cell order; /mesh/nodes (global nodes
/// x 3), /mesh/topology (XDMF mixed topology); attributes config (resolved YAML), step, time.
void write_fields(const std::string& path, MPI_Comm comm, const Mesh& global_mesh, const LocalMesh& local,
                  const std::vector<CellField>& fields, const std::string& config_yaml, long step, double time);

/// Read back one field in global cell order (every rank of comm gets the whole array). For tests and tools.
std::vector<double> read_field(const std::string& path, const std::string& dataset, MPI_Comm comm);
/// Read a string attribute of the root group ("config").
std::string read_string_attribute(const std::string& path, const std::string& name);

}  // namespace ugks
