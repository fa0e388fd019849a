// X-38-like lifting body in a box far field, half model (y >= 0), for cases/x38_like (seed 000,
// section 3.4: M 8, alpha 20 deg, Kn 0.00275, characteristic length 0.28 m, reference area 0.012 m^2).
//
// Lengths in metres (the case reads the mesh with mesh.scale 1). Axes: x from the nose (x = 0) to the
// base (x = L), y spanwise (the symmetry plane is y = 0, the model is the half y >= 0), z up (the flat
// bottom is the windward side at positive angle of attack: the free stream is U (cos a, 0, sin a)).
//
// Geometry (OpenCASCADE kernel), all parameters below can be set with -setnumber NAME VALUE:
//  - a sphere-cone along x (nose sphere of radius rn, cone of half-angle theta tangent to it), flattened
//    in z by the factor kz (the cross-sections become ellipses with semi-axes r(x) and kz r(x), the
//    nose an ellipsoid cap): the blunted delta planform, with half-width r(x) = (x - x_apex) tan(theta)
//    on the cone;
//  - cut by the plane z = z_bottom (below the axis): the flat bottom, with a chine on each side;
//  - cut behind x = bt_start by a plane falling at bt_angle from the top line: the boat-tail;
//  - cut at x = L: the flat base;
//  - two fins (one in the half model) on the upper aft body: slabs of thickness fin_t with root chord
//    fin_root, tip chord fin_tip, height fin_h above z = 0, trailing edge in the base plane, root line at
//    y = fin_y_frac r(L - fin_root), canted outboard by fin_cant.
//  theta is not a parameter: it is solved (bisection below) so that the planform area of the half body
//  (its projection on the plane z = 0, fins excluded: the integral of r(x) from 0 to L) equals
//  A_half = 0.012 m^2, the seed's reference area, at the seed's characteristic length L = 0.28 m
//  (the full body then has 0.024 m^2, S/L^2 = 0.306; docs/production.md says why).
//
// Mesh: tetrahedra; size wall_size / refine on the body, growing with the distance from it (Gmsh
// Distance + Threshold fields) to far_size / refine^far_exp; the windward shock layer (a box under the
// body, tilted with the flow) gets at most shock_size / refine. refine 1: the CI-sized coarse mesh;
// scripts/make_x38_like_mesh.sh lists the levels and their cell counts.
//
// Physical groups (patch names): "wall" (body and fin), "farfield" (the box faces but y = 0),
// "symmetry" (the plane y = 0); volume "fluid".
SetFactory("OpenCASCADE");

DefineConstant[
  refine = 1,              // resolution factor (1: coarse CI mesh)
  L = 0.28,                // body length, nose to base [m] = the seed's characteristic length
  A_half = 0.012,          // planform area of the half body [m^2] = the seed's reference area
  rn = 0.025,              // nose sphere radius (before the z flattening) [m]
  kz = 0.7,                // height / width ratio of the cross-sections
  z_bottom_frac = 0.4,     // flat bottom at z = -z_bottom_frac * kz * rn
  bt_start_frac = 0.7,     // boat-tail from x = bt_start_frac * L ...
  bt_angle = 10,           // ... falling at this angle [deg]
  fin_root = 0.08,         // fin root chord [m]
  fin_tip = 0.04,          // fin tip chord [m]
  fin_h = 0.065,           // fin height above z = 0 [m]
  fin_t = 0.005,           // fin thickness [m]
  fin_y_frac = 0.8,        // fin root line at y = fin_y_frac * r(L - fin_root)
  fin_cant = 15,           // fin cant angle, outboard [deg]
  alpha = 20,              // angle of attack [deg] (only for the shock-layer refinement box)
  // far-field box
  box_x0 = -0.07, box_x1 = 0.42, box_y1 = 0.22, box_z0 = -0.15, box_z1 = 0.24,
  // mesh sizes [m] at refine 1
  wall_size = 0.014,       // on the body
  far_size = 0.07,         // far from the body
  far_exp = 0.6,           // far size scales as refine^-far_exp
  grow_dist = 0.10,        // distance from the wall over which the size grows to the far size
  shock_size = 0.025,      // at most this in the windward shock layer
  curv_points = 16         // elements per 2 pi of surface curvature (nose), at refine 1
];

// ---- cone half-angle from the planform area --------------------------------------------------
// half-planform area of the sphere-cone of nose radius rn, half-angle th, cut at x = L:
// circular segment of the nose up to the tangent point x_t, then a trapezoid.
th_lo = 0.001; th_hi = 1.2;
For it In {1:80}
  th = 0.5 * (th_lo + th_hi);
  xs = rn; xt = xs - rn * Sin(th); xa = xs - rn / Sin(th);
  u1 = xt - xs; u0 = -rn;
  seg = 0.5 * (u1 * Sqrt(rn^2 - u1^2) + rn^2 * Asin(u1 / rn)) - 0.5 * (rn^2 * Asin(u0 / rn));
  area = seg + 0.5 * ((xt - xa) * Tan(th) + (L - xa) * Tan(th)) * (L - xt);
  If (area > A_half)
    th_hi = th;
  Else
    th_lo = th;
  EndIf
EndFor
th = 0.5 * (th_lo + th_hi);
xs = rn; xt = xs - rn * Sin(th); xa = xs - rn / Sin(th); rt = rn * Cos(th);
rL = (L - xa) * Tan(th);
Printf("x38_like: L %g m, planform area of the half body %g m^2, cone half-angle %g deg", L, area,
       th * 180 / Pi);
Printf("x38_like: half-width at the base %g m (span %g m, span/L %g), nose tangent point x %g", rL,
       2 * rL, 2 * rL / L, xt);

// ---- body ---------------------------------------------------------------------------------------
ext = 0.05 * L;                         // the cone runs past the base, cut there
Cone(1) = {xt, 0, 0, L + ext - xt, 0, 0, rt, (L + ext - xa) * Tan(th)};
Sphere(2) = {xs, 0, 0, rn};
body() = BooleanUnion{ Volume{1}; Delete; }{ Volume{2}; Delete; };
Dilate {{0, 0, 0}, {1, 1, kz}} { Volume{body()}; }
z_bottom = -z_bottom_frac * kz * rn;
big = 10 * L;
Box(3) = {-big, -big, z_bottom, big + L, 2 * big, 2 * big};    // x < L, z > z_bottom
body() = BooleanIntersection{ Volume{body()}; Delete; }{ Volume{3}; Delete; };
// boat-tail: remove everything above the plane through the top line at x_bt, falling at bt_angle
x_bt = bt_start_frac * L;
z_bt = kz * (x_bt - xa) * Tan(th);
Box(4) = {x_bt, -big, z_bt, big, 2 * big, big};
Rotate {{0, 1, 0}, {x_bt, 0, z_bt}, bt_angle * Pi / 180} { Volume{4}; }
body() = BooleanDifference{ Volume{body()}; Delete; }{ Volume{4}; Delete; };
z_base_top = z_bt - (L - x_bt) * Tan(bt_angle * Pi / 180);
Printf("x38_like: height at the boat-tail start %g m, base height (centre) %g m", z_bt - z_bottom,
       z_base_top - z_bottom);
// fin: trapezoid in the x-z plane, extruded in y, moved to its root line and canted outboard
y_fin = fin_y_frac * (L - fin_root - xa) * Tan(th);
p1 = newp; Point(p1) = {L - fin_root, 0, 0};
p2 = newp; Point(p2) = {L, 0, 0};
p3 = newp; Point(p3) = {L, 0, fin_h};
p4 = newp; Point(p4) = {L - fin_tip, 0, fin_h};
l1 = newl; Line(l1) = {p1, p2};
l2 = newl; Line(l2) = {p2, p3};
l3 = newl; Line(l3) = {p3, p4};
l4 = newl; Line(l4) = {p4, p1};
cl = newll; Curve Loop(cl) = {l1, l2, l3, l4};
sf = news; Plane Surface(sf) = {cl};
fin[] = Extrude {0, fin_t, 0} { Surface{sf}; };
Translate {0, y_fin - 0.5 * fin_t, 0} { Volume{fin[1]}; }
Rotate {{1, 0, 0}, {0, y_fin, 0}, -fin_cant * Pi / 180} { Volume{fin[1]}; }
body() = BooleanUnion{ Volume{body()}; Delete; }{ Volume{fin[1]}; Delete; };
Printf("x38_like: fin root line y %g m, tip at y %g z %g", y_fin, y_fin + fin_h * Sin(fin_cant * Pi / 180),
       fin_h * Cos(fin_cant * Pi / 180));

// ---- half domain: box y >= 0 minus the body --------------------------------------------------------
Box(10) = {box_x0, 0, box_z0, box_x1 - box_x0, box_y1, box_z1 - box_z0};
dom() = BooleanDifference{ Volume{10}; Delete; }{ Volume{body()}; Delete; };
If (#dom() != 1)
  Error("x38_like: the domain has %g volumes, expected 1", #dom());
  Abort;
EndIf

eps = 1e-5;
all() = Abs(Boundary{ Volume{dom()}; });
sym() = Surface In BoundingBox{box_x0 - eps, -eps, box_z0 - eps, box_x1 + eps, eps, box_z1 + eps};
far() = Surface In BoundingBox{box_x0 - eps, -eps, box_z0 - eps, box_x0 + eps, box_y1 + eps, box_z1 + eps};
far() += Surface In BoundingBox{box_x1 - eps, -eps, box_z0 - eps, box_x1 + eps, box_y1 + eps, box_z1 + eps};
far() += Surface In BoundingBox{box_x0 - eps, box_y1 - eps, box_z0 - eps, box_x1 + eps, box_y1 + eps, box_z1 + eps};
far() += Surface In BoundingBox{box_x0 - eps, -eps, box_z0 - eps, box_x1 + eps, box_y1 + eps, box_z0 + eps};
far() += Surface In BoundingBox{box_x0 - eps, -eps, box_z1 - eps, box_x1 + eps, box_y1 + eps, box_z1 + eps};
wall() = all();
wall() -= sym();
wall() -= far();
Printf("x38_like: %g boundary surfaces: %g wall, %g far field, %g symmetry", #all(), #wall(), #far(),
       #sym());
Physical Surface("wall", 1) = {wall()};
Physical Surface("farfield", 2) = {far()};
Physical Surface("symmetry", 3) = {sym()};
Physical Volume("fluid", 10) = {dom()};

// ---- mesh size -------------------------------------------------------------------------------------
h_wall = wall_size / refine;
h_far = far_size / refine^far_exp;
h_shock = shock_size / refine;
Field[1] = Distance;
Field[1].FacesList = {wall()};
Field[1].NNodesByEdge = 40;
Field[2] = Threshold;
Field[2].IField = 1;
Field[2].LcMin = h_wall;
Field[2].LcMax = h_far;
Field[2].DistMin = 0;
Field[2].DistMax = grow_dist;
// windward shock layer: a box under the flat bottom, from the nose to behind the base
Field[3] = Box;
Field[3].VIn = h_shock;
Field[3].VOut = 1e22;
Field[3].XMin = box_x0;
Field[3].XMax = L + 0.1 * L;
Field[3].YMin = 0;
Field[3].YMax = rL + 0.3 * L * Sin(alpha * Pi / 180) + 0.05 * L;
Field[3].ZMin = z_bottom - 0.07 * L - 0.25 * L * Sin(alpha * Pi / 180);
Field[3].ZMax = z_base_top + 0.05 * L;
Field[4] = Min;
Field[4].FieldsList = {2, 3};
Background Field = 4;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = curv_points * refine^0.5;
Mesh.MeshSizeMax = h_far;

Mesh.ElementOrder = 1;
Mesh.MshFileVersion = 4.1;
Mesh.Algorithm = 6;     // Frontal-Delaunay surfaces
Mesh.Algorithm3D = 10;  // HXT
Mesh.Optimize = 1;
Mesh.MaxNumThreads3D = 1;
