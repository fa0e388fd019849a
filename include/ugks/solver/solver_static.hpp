#pragma once
#include <vector>

#include "ugks/core/types.hpp"
#include "ugks/io/fields_io.hpp"
#include "ugks/parallel/layout.hpp"
#include "ugks/parallel/partition.hpp"
#include "ugks/physics/kinetic.hpp"
#include "ugks/solver/case_config.hpp"
#include "ugks/solver/kernels/face_kind.hpp"
#include "ugks/velocity/velocity_grid.hpp"

namespace ugks {

/// Data of one rank's UGKS step that does not change in time, shared by the CPU and CUDA backends:
/// velocity tables of the local blocks, the boundary kind of every local face, least-squares
/// coefficients and the geometric vectors the reconstruction uses. Every position difference the
/// scheme needs is stored here, so that a periodic neighbour is seen at its translated image
/// (Mesh::face_shift) and a boundary face's ghost at the mirror image of the owner.
struct SolverStatic {
    int dim = 1;                      ///< mesh dimension
    int D = 1;                        ///< velocity-space dimension
    int B = 0;                        ///< block size
    int nblk = 0;                     ///< local blocks
    int first = 0;                    ///< first local block (global index)
    index_t nc = 0;                   ///< local cells (owned + ghost)
    index_t no = 0;                   ///< owned cells
    index_t nf = 0;                   ///< local faces
    index_t ns = 0;                   ///< local velocity slots = nblk * B
    bool store_b = false;             ///< K > 0: the reduced distribution b is stored
    double umax_axis[3] = {0, 0, 0};  ///< max |u_d| over the whole velocity grid, per axis

    std::vector<double> u;           ///< local velocities [slot][3]
    std::vector<double> ux, uy, uz;  ///< the same, one array per component
    std::vector<double> w;           ///< local weights [slot] (0 on padding slots)

    bool tensor = false;  ///< tensor velocity grid: Maxwellians from per-axis exponential tables
    int ntab = 0;         ///< sum of the per-axis node counts
    int axis_off[3] = {0, 0, 0};
    std::vector<double> axis_x;  ///< per-axis nodes, concatenated
    std::vector<int>
        slot_idx;  ///< [slot][3] offsets into a table: axis_off[d] + index (-1: padding)

    std::vector<int> face_kind;  ///< FaceKind per local face
    std::vector<int> face_bc;    ///< per local face: -1 interior, else index into setup.boundaries
    std::vector<index_t> sym_index;  ///< local face -> row of the symmetry-face store (-1)
    /// local face -> slot of its ghost state (kGhostMaxwellian faces: far field, inflow, pressure
    /// inlet/outlet; -1 otherwise), and the face of each slot
    std::vector<index_t> ghost_index, ghost_face;
    /// per local face: the diffuse wall's temperature and velocity there (WallValues; 0 on other
    /// faces): constant over a patch or the case's expressions of the position
    std::vector<double> wall_T, wall_U;
    index_t nsym = 0;

    std::vector<index_t> lsq_off;  ///< per owned cell: first cell-face slot (CSR, n_owned + 1)
    std::vector<double> lsq;       ///< per cell-face slot: LSQ coefficient vector c_ij (3)
    std::vector<double> slot_dx;   ///< per cell-face slot: x_f - x_i (3), x_f seen from cell i
    std::vector<double> face_dxL;  ///< per local face: x_f - x_L (3)
    std::vector<double> face_dxR;  ///< per local face: x_f - x_R (3), x_R the neighbour's image or
                                   ///< the owner's mirror image across a boundary face
    std::vector<index_t> lsq_nbr;  ///< per cell-face slot: the neighbour cell (-1: boundary)
    std::vector<double> cf_sarea;  ///< per cell-face entry of an owned cell: +-area (+: owner)
    std::vector<double> kd3;       ///< per owned cell: (K dh)^3 of the Venkatakrishnan limiter
    /// [row][local slot], rows 0-2: the mirrored local slot about u_x, u_y, u_z = 0 (-1: none);
    /// row kern::kInterpolatedMirror: the slot itself (-1 on padding)
    std::vector<index_t> mirror;
    /// Faces with an interpolated reflection (kern bc_specular.hpp, docs/formulation.md section
    /// 8.2b): their rows of the symmetry-face store and their faces; the full rows span every
    /// velocity slot of all velocity ranks (spec_ns = global blocks * B, this rank's slots from
    /// spec_g0); the tensor grid's per-axis weights (spec_w, laid out like axis_x) and per tensor
    /// index its global slot (spec_slot).
    std::vector<index_t> spec_rows, spec_faces;
    index_t spec_ns = 0, spec_g0 = 0;
    std::vector<double> spec_w;
    std::vector<index_t> spec_slot;
    int limiter = 0;  ///< kern::LimiterKind of numerics.limiter
    /// Periodic pairs with a pressure jump (kern periodic_jump.hpp, docs/formulation.md section
    /// 8.6): the image cells (img_dst[k] = img_scale[k] x img_src[k], LocalMesh::images) and the
    /// partner faces whose flux comes from a jump face (jump_fp[k] from jump_f[k], jump_d[k] =
    /// 1/s - 1).
    std::vector<index_t> img_src, img_dst;
    std::vector<double> img_scale;
    std::vector<index_t> jump_f, jump_fp;
    std::vector<double> jump_d;
    /// Flat copies of the mesh geometry ([n][3]) for the kernel functions.
    std::vector<double> normal, face_centroid, cell_centroid;
};

/// Output fields of the owned cells (rho, U, T, p, q, stress, Mach, Kn_local) from W [n][5],
/// q [n][3] and the stress [n][6], shared by both solvers. Kn_local uses the VHS mean free path:
/// lambda_mfp ~ mu / (rho sqrt(T)), mu ~ T^omega.
std::vector<CellField> cell_output_fields(index_t n, const double* W, const double* q,
                                          const std::vector<double>& stress, int N, double omega,
                                          double Kn);

/// The gas constants of the pointwise physics for velocity dimension D.
phys::GasParams gas_params(const CaseSetup& setup, int D);

/// Build the static data. Throws InputError for a boundary face without a condition.
SolverStatic make_solver_static(const CaseSetup& setup, const LocalMesh& local,
                                const PhaseSpaceLayout& layout, const VelocityGrid& grid,
                                const VelocityBlocks& blocks);

}  // namespace ugks
