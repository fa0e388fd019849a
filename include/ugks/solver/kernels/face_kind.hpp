#pragma once
/// Face kinds of the UGKS step: the boundary type of a local face (interior and periodic faces
/// are kInterior). One kernel file per boundary kind: bc_diffuse_wall.hpp, bc_symmetry.hpp,
/// bc_pressure.hpp (the ghost states of pressure inlets/outlets, kGhostMaxwellian faces); the
/// far-field / inflow and outflow ghosts are in face_input.hpp (and the sweeps' upwind choice).

namespace ugks {

enum FaceKind : int {
    kInterior = 0,
    kDiffuseWall = 1,
    kSymmetry = 2,
    kGhostMaxwellian = 3,
    kOutflow = 4
};

/// Diffuse walls and symmetry planes: faces whose flux is kinetic (no interface equilibrium).
inline constexpr bool is_kinetic_boundary(int kind) {
    return kind == kDiffuseWall || kind == kSymmetry;
}

}  // namespace ugks
