// Sphere in a spherical far field, for the supersonic sphere cases (seed 000, section 3.3).
//
// Lengths are in units of the sphere radius: R = 1 by default, so the diameter is D = 2. (For a
// case whose reference length is D, read the mesh with mesh.scale = 0.5, or use -setnumber R 0.5.)
// The free stream is along +x (stagnation point at (-R, 0, 0)).
//
// Topology: a cubed sphere. The sphere is split into 4-sided patches bounded by great-circle arcs
// (the 6 faces of a cube projected onto the sphere; for the quarter domain, the parts of them with
// y >= 0 and z >= 0). Each patch carries a structured triangle mesh; these triangles are
// extruded radially (transfinite volumes) into bl_layers layers of prisms whose thickness grows
// geometrically from bl_first with ratio bl_growth. Outside the prism layers, up to the far-field
// sphere of radius Rf, the mesh is unstructured tetrahedra, refined in a cylinder behind the sphere
// (the wake).
// The radial extrusion is exact on the symmetry planes (patch edges there are great circles in the
// planes), which a normal-based Gmsh boundary-layer extrusion of the surface mesh would not be.
//
// Physical groups: surfaces "wall" (sphere), "farfield", and, for the quarter domain (quarter = 1),
// "symmetry_y" (plane y = 0) and "symmetry_z" (plane z = 0); volume "fluid".
//
// Use the wrappers sphere_full.geo / sphere_quarter.geo, or set quarter here:
//   gmsh -3 sphere_quarter.geo -setnumber refine 1 -format msh41 -o quarter_coarse.msh
// Parameters (all can be set with -setnumber NAME VALUE):
DefineConstant[
  quarter = 0,                      // 0: full sphere; 1: quarter domain y >= 0, z >= 0
  refine = 1,                       // resolution: 1 coarse (CI); 4 fine (full sphere ~137k cells)
  R = 1,                            // sphere radius
  Rf = 8 * R,                       // far-field radius
  n_edge = 4 * refine,              // cells along a cube edge on the sphere (rounded up to even)
  bl_layers = 4 * refine,           // number of prism layers
  bl_first = 0.04 * R / refine,     // first-layer thickness
  bl_growth = 1.25^(1 / refine),    // thickness ratio of successive layers
  far_size = 2.5 * R / refine^0.5,  // cell size at the far field
  wake_size = 0.67 * R / refine,    // cell size in the wake cylinder (0: no wake refinement)
  wake_length = 6 * R,              // wake cylinder: from x = 0 to x = wake_length ...
  wake_radius = 2 * R               // ... with this radius
];
n_edge = 2 * Ceil(n_edge / 2);
bl_layers = Round(bl_layers);
If (bl_growth == 1)
  bl_thick = bl_first * bl_layers;
Else
  bl_thick = bl_first * (bl_growth^bl_layers - 1) / (bl_growth - 1);
EndIf
Rb = R + bl_thick;  // outer radius of the prism layers
If (Rb >= 0.5 * Rf)
  Error("prism layers too thick: R + thickness = %g, far field Rf = %g", Rb, Rf);
  Abort;
EndIf
Printf("sphere mesh: quarter %g refine %g, R %g, Rf %g, %g cells per cube edge", quarter, refine,
       R, Rf, n_edge);
Printf("prism layers: %g, first %g, growth %g, total thickness %g", bl_layers, bl_first, bl_growth,
       bl_thick);

// ---- patch corner directions (unit vectors) and patches ----------------------------------------
s3 = 1 / Sqrt(3);
s2 = 1 / Sqrt(2);
If (quarter == 0)
  // the 8 cube corners
  dx[] = {-s3,  s3,  s3, -s3, -s3,  s3,  s3, -s3};
  dy[] = {-s3, -s3,  s3,  s3, -s3, -s3,  s3,  s3};
  dz[] = {-s3, -s3, -s3, -s3,  s3,  s3,  s3,  s3};
  patch[] = {0, 3, 2, 1,   4, 5, 6, 7,   0, 1, 5, 4,   1, 2, 6, 5,   2, 3, 7, 6,   3, 0, 4, 7};
Else
  // 0 (-1,0,0) stagnation point, 1 (1,0,0), 2/3 (-+,+,0)/sqrt2 on z = 0,
  // 4/5 (-+,0,+)/sqrt2 on y = 0, 6/7 (-+,+,+)/sqrt3 cube corners
  dx[] = {-1, 1, -s2, s2, -s2, s2, -s3, s3};
  dy[] = { 0, 0,  s2, s2,   0,  0,  s3, s3};
  dz[] = { 0, 0,   0,  0,  s2, s2,  s3, s3};
  patch[] = {0, 2, 6, 4,   1, 5, 7, 3,   2, 3, 7, 6,   4, 6, 7, 5};
  // arcs that span a whole cube edge (the others span half of one)
  full_arcs[] = {2, 3,   6, 7,   4, 5};
  // arcs on the symmetry planes, and the planes' other ends on the x axis
  sym_z[] = {0, 2,   2, 3,   3, 1};
  sym_y[] = {0, 4,   4, 5,   5, 1};
EndIf
n_patch = #patch[] / 4;

// ---- points on the sphere (level 0), the prism-layer top (level 1) and the far field (level 2) --
centre = newp;
Point(centre) = {0, 0, 0};
radius[] = {R, Rb, Rf};
For k In {0:2}
  // sizes only matter for the far field and the volume (the layers are structured)
  h = (k == 2) ? far_size : radius[k] * 1.2 / n_edge;
  For i In {0:7}
    pt[k * 8 + i] = newp;
    Point(pt[k * 8 + i]) = {radius[k] * dx[i], radius[k] * dy[i], radius[k] * dz[i], h};
  EndFor
EndFor

// ---- arcs between patch corners (one per corner pair and level), radial lines -------------------
For i In {0:3 * 64 - 1}
  arc[i] = 0;
EndFor
For f In {0:n_patch - 1}
  For e In {0:3}
    a = patch[4 * f + e];
    b = patch[4 * f + (e + 1) % 4];
    If (arc[a * 8 + b] == 0)
      n = n_edge;
      If (quarter == 1)
        n = n_edge / 2;
        For j In {0:2}
          If ((full_arcs[2 * j] == a && full_arcs[2 * j + 1] == b) ||
              (full_arcs[2 * j] == b && full_arcs[2 * j + 1] == a))
            n = n_edge;
          EndIf
        EndFor
      EndIf
      For k In {0:2}
        c = newl;
        Circle(c) = {pt[k * 8 + a], centre, pt[k * 8 + b]};
        arc[k * 64 + a * 8 + b] = c;
        arc[k * 64 + b * 8 + a] = -c;
        If (k < 2)
          Transfinite Curve{c} = n + 1;
        EndIf
      EndFor
    EndIf
  EndFor
EndFor
For i In {0:7}
  radial[i] = newl;
  Line(radial[i]) = {pt[i], pt[8 + i]};
  Transfinite Curve{radial[i]} = bl_layers + 1 Using Progression bl_growth;
EndFor

// ---- sphere patches (structured triangles), prism-layer tops, far field -------------------------
For f In {0:n_patch - 1}
  For k In {0:2}
    loop = newll;
    Curve Loop(loop) = {arc[k * 64 + patch[4 * f] * 8 + patch[4 * f + 1]],
                        arc[k * 64 + patch[4 * f + 1] * 8 + patch[4 * f + 2]],
                        arc[k * 64 + patch[4 * f + 2] * 8 + patch[4 * f + 3]],
                        arc[k * 64 + patch[4 * f + 3] * 8 + patch[4 * f]]};
    srf = news;
    Surface(srf) = {loop} In Sphere {centre};
    shell[k * n_patch + f] = srf;
    If (k < 2)
      Transfinite Surface{srf} = {pt[k * 8 + patch[4 * f]], pt[k * 8 + patch[4 * f + 1]],
                                  pt[k * 8 + patch[4 * f + 2]], pt[k * 8 + patch[4 * f + 3]]};
    EndIf
  EndFor
EndFor

// ---- side faces of the prism blocks (planar: each arc and the centre span a plane) --------------
For i In {0:63}
  side[i] = 0;
EndFor
For f In {0:n_patch - 1}
  For e In {0:3}
    a = patch[4 * f + e];
    b = patch[4 * f + (e + 1) % 4];
    If (side[a * 8 + b] == 0)
      loop = newll;
      Curve Loop(loop) = {arc[a * 8 + b], radial[b], -arc[64 + a * 8 + b], -radial[a]};
      srf = news;
      Plane Surface(srf) = {loop};
      Transfinite Surface{srf};
      Recombine Surface{srf};
      side[a * 8 + b] = srf;
      side[b * 8 + a] = srf;
    EndIf
  EndFor
EndFor

// ---- prism blocks -------------------------------------------------------------------------------
For f In {0:n_patch - 1}
  sl = newsl;
  c0 = patch[4 * f];
  c1 = patch[4 * f + 1];
  c2 = patch[4 * f + 2];
  c3 = patch[4 * f + 3];
  Surface Loop(sl) = {shell[f], shell[n_patch + f],
                      side[c0 * 8 + c1], side[c1 * 8 + c2], side[c2 * 8 + c3], side[c3 * 8 + c0]};
  vol = newv;
  Volume(vol) = {sl};
  Transfinite Volume{vol} = {pt[c0], pt[c1], pt[c2], pt[c3],
                             pt[8 + c0], pt[8 + c1], pt[8 + c2], pt[8 + c3]};
  blocks[f] = vol;
EndFor

// ---- outer region: tetrahedra -------------------------------------------------------------------
outer_bnd[] = {};
For f In {0:n_patch - 1}
  outer_bnd[] += {shell[n_patch + f], shell[2 * n_patch + f]};
EndFor
If (quarter == 1)
  // symmetry planes between the prism-layer top and the far field: arcs at Rb, x axis, arcs at Rf
  axis_in = newl;
  Line(axis_in) = {pt[16 + 0], pt[8 + 0]};
  axis_out = newl;
  Line(axis_out) = {pt[8 + 1], pt[16 + 1]};
  For plane In {0:1}
    If (plane == 0)
      sym[] = sym_y[];
    Else
      sym[] = sym_z[];
    EndIf
    loop = newll;
    Curve Loop(loop) = {arc[64 + sym[0] * 8 + sym[1]], arc[64 + sym[2] * 8 + sym[3]],
                        arc[64 + sym[4] * 8 + sym[5]], axis_out,
                        arc[128 + sym[5] * 8 + sym[4]], arc[128 + sym[3] * 8 + sym[2]],
                        arc[128 + sym[1] * 8 + sym[0]], axis_in};
    srf = news;
    Plane Surface(srf) = {loop};
    outer_bnd[] += {srf};
    sym_plane[plane] = srf;
  EndFor
EndIf
sl = newsl;
Surface Loop(sl) = {outer_bnd[]};
outer = newv;
Volume(outer) = {sl};

// ---- wake refinement ----------------------------------------------------------------------------
If (wake_size > 0)
  Field[1] = Cylinder;
  Field[1].Radius = wake_radius;
  Field[1].VIn = wake_size;
  Field[1].VOut = 1e22;
  // Gmsh's cylinder spans XCenter -/+ the axis vector: x from 0 to wake_length
  Field[1].XCenter = wake_length / 2;
  Field[1].XAxis = wake_length / 2;
  Field[1].YAxis = 0;
  Field[1].ZAxis = 0;
  Background Field = 1;
EndIf

// ---- physical groups ----------------------------------------------------------------------------
Physical Surface("wall", 1) = {shell[{0:n_patch - 1}]};
Physical Surface("farfield", 2) = {shell[{2 * n_patch:3 * n_patch - 1}]};
If (quarter == 1)
  Physical Surface("symmetry_y", 3) = {side[sym_y[0] * 8 + sym_y[1]], side[sym_y[2] * 8 + sym_y[3]],
                                       side[sym_y[4] * 8 + sym_y[5]], sym_plane[0]};
  Physical Surface("symmetry_z", 4) = {side[sym_z[0] * 8 + sym_z[1]], side[sym_z[2] * 8 + sym_z[3]],
                                       side[sym_z[4] * 8 + sym_z[5]], sym_plane[1]};
EndIf
Physical Volume("fluid", 10) = {blocks[], outer};

Mesh.ElementOrder = 1;
Mesh.MshFileVersion = 4.1;
Mesh.Algorithm3D = 10;  // HXT: the default Delaunay (1) leaves slivers on the prism-layer top
Mesh.Optimize = 1;
General.NumThreads = 1;  // HXT with several threads is not reproducible from run to run
Mesh.MaxNumThreads3D = 1;
