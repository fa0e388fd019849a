#pragma once
/// Set-up of an in-process solver problem from inline YAML (the phases of run_case), for the
/// device-solver tests, and field comparison helpers.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "ugks/app/case_setup.hpp"
#include "ugks/device/device.hpp"
#include "ugks/io/config.hpp"
#include "ugks/mesh/mesh.hpp"
#include "ugks/mesh/sources.hpp"
#include "ugks/parallel/layout.hpp"
#include "ugks/parallel/partition.hpp"
#include "ugks/solver/boundary_config.hpp"
#include "ugks/solver/ugks_solver.hpp"
#include "ugks/solver/ugks_solver_device.hpp"
#include "ugks/velocity/velocity_grid.hpp"

namespace ugks::test {

/// Everything a solver refers to, built as run_case does (collective over `comm`).
struct Problem {
    Config cfg;
    CaseSetup setup;
    Mesh mesh;
    VelocityGrid vel;
    VelocityBlocks blocks;
    PhaseSpaceLayout layout;
    LocalMesh local;
    ~Problem() {
        if (layout.world != MPI_COMM_NULL) free_layout(layout);
    }
};

inline std::unique_ptr<Problem> make_problem(const std::string& yaml,
                                             const std::vector<std::string>& overrides,
                                             MPI_Comm comm) {
    auto P = std::make_unique<Problem>();
    P->cfg = Config::from_string(yaml, "test case");
    for (const auto& o : overrides) P->cfg.apply_override(o);
    parse_case_sections(P->cfg, P->setup);
    P->mesh = load_mesh(P->setup.mesh_config);
    parse_velocity_section(P->cfg, P->setup, P->mesh.dim);
    P->vel = build_velocity_grid(P->setup.velocity_config);
    const auto mirrors = check_boundaries(P->setup.boundaries, P->mesh, P->cfg, "box mesh");
    connect_periodic(P->mesh, periodic_pairs(P->setup.boundaries));
    P->cfg.check_unused();
    P->blocks = make_velocity_blocks(P->vel, P->setup.parallel.block_size,
                                     P->setup.parallel.velocity_ranks, mirrors);
    P->layout = make_layout(comm, P->setup.parallel.velocity_ranks);
    bind_device(P->layout);
    const auto part = partition_cells(P->mesh, P->layout.P_x, comm);
    P->local = build_local_mesh(P->mesh, part, P->layout.p);
    return P;
}

/// Largest deviation of field b from field a per field, relative to the field's largest magnitude
/// but at least `min_scale` (per owned cell arrays in the same order); reports the worst over all
/// fields in `worst`. min_scale > 0 serves fields that are pure round-off, such as q and the
/// stress of the initial Maxwellians (~1e-17).
inline void compare_fields(const std::vector<CellField>& a, const std::vector<CellField>& b,
                           double tol, const std::string& what, double* worst = nullptr,
                           double min_scale = 0.0) {
    ASSERT_EQ(a.size(), b.size());
    double all = 0.0;
    for (std::size_t k = 0; k < a.size(); ++k) {
        ASSERT_EQ(a[k].data.size(), b[k].data.size()) << a[k].name;
        double scale = 0.0, diff = 0.0;
        for (std::size_t i = 0; i < a[k].data.size(); ++i) {
            scale = std::max(scale, std::abs(a[k].data[i]));
            diff = std::max(diff, std::abs(a[k].data[i] - b[k].data[i]));
        }
        scale = std::max(scale, min_scale);
        const double rel = scale > 0 ? diff / scale : diff;
        all = std::max(all, rel);
        EXPECT_LE(rel, tol) << what << ": field " << a[k].name << " (scale " << scale << ")";
    }
    if (worst) *worst = all;
}

/// True when a CUDA device is visible.
inline bool have_device() { return device::device_count() > 0; }

}  // namespace ugks::test
