// Apollo/Orion-like capsule in a box far field, half model (y >= 0), for cases/orion_like (seed 000,
// section 3.5: M 8, Kn 0.00275, the X-38-like case's free stream).
//
// Lengths in metres (mesh.scale 1). Axes: the capsule axis is x, the heat-shield apex at x = 0 facing
// -x (upstream), the back face at x = x_back; y spanwise (symmetry plane y = 0, the model is the half
// y >= 0), z up; the free stream is U (cos a, 0, sin a) in the x-z plane.
//
// Geometry (OpenCASCADE kernel; a profile in the x-r plane revolved about the x axis):
//  - spherical heat shield of radius Rn = rn_over_D * D (1.2 D as Apollo and Orion), from the apex to
//  - the shoulder torus of radius rs = rs_over_D * D, whose outermost point is the maximum diameter D,
//  - the conical afterbody, half-angle cone_angle (33 deg), narrowing to the back-face diameter
//    back_over_D * D, then
//  - a flat back face.
//  D = 0.28 m by default: the X-38-like case's characteristic length, so that the seed's Kn 0.00275
//  with the same free stream holds for the capsule diameter.
//
// Mesh: tetrahedra; wall_size / refine on the capsule, growing with the distance from it (Distance +
// Threshold fields) to far_size / refine^far_exp; the shock layer in front of the heat shield (a box
// from shock_up D upstream of the apex to the shoulder) at most shock_size / refine. refine 1: the
// CI-sized coarse mesh; scripts/make_orion_like_mesh.sh lists the levels and their cell counts.
//
// Physical groups (patch names): "wall" (the capsule), "farfield" (the box faces but y = 0),
// "symmetry" (the plane y = 0); volume "fluid".
SetFactory("OpenCASCADE");

DefineConstant[
  refine = 1,              // resolution factor (1: coarse CI mesh)
  D = 0.28,                // maximum diameter [m]
  rn_over_D = 1.2,         // heat-shield sphere radius / D
  rs_over_D = 0.05,        // shoulder radius / D
  cone_angle = 33,         // afterbody cone half-angle [deg]
  back_over_D = 0.3,       // back-face diameter / D
  // far-field box, in units of D, relative to the apex
  box_up = 0.6, box_down = 2.0, box_side = 1.3,
  // mesh sizes [m] at refine 1
  wall_size = 0.018,
  far_size = 0.09,
  far_exp = 0.6,
  grow_dist = 0.12,
  shock_size = 0.03,
  shock_up = 0.25,         // shock-layer box from shock_up * D ahead of the apex
  curv_points = 16
];

Rn = rn_over_D * D; rs = rs_over_D * D; tc = cone_angle * Pi / 180;
// shoulder centre (xsc, rsc): the torus reaches r = D/2 and is tangent to the heat-shield sphere
rsc = D / 2 - rs;
xsc = Rn - Sqrt((Rn - rs)^2 - rsc^2);
// tangent point heat shield / shoulder: on the line from the sphere centre (Rn, 0) through (xsc, rsc)
dd = Sqrt((xsc - Rn)^2 + rsc^2);
x1 = Rn + Rn * (xsc - Rn) / dd; r1 = Rn * rsc / dd;
// tangent point shoulder / cone (cone surface direction (cos tc, -sin tc))
x2 = xsc + rs * Sin(tc); r2 = rsc + rs * Cos(tc);
// end of the cone at the back-face radius
rb = back_over_D * D / 2;
x3 = x2 + (r2 - rb) / Tan(tc);
Printf("orion_like: D %g m, heat shield R %g m, shoulder r %g m, cone %g deg, back face d %g m",
       D, Rn, rs, cone_angle, 2 * rb);
Printf("orion_like: heat-shield depth %g m, length apex to back face %g m (%g D)", x1, x3, x3 / D);

// profile in the x-z plane (z = r >= 0), closed along the axis
pc = newp; Point(pc) = {Rn, 0, 0};            // heat-shield sphere centre
p0 = newp; Point(p0) = {0, 0, 0};             // apex
p1 = newp; Point(p1) = {x1, 0, r1};
ps = newp; Point(ps) = {xsc, 0, rsc};         // shoulder centre
p2 = newp; Point(p2) = {x2, 0, r2};
p3 = newp; Point(p3) = {x3, 0, rb};
p4 = newp; Point(p4) = {x3, 0, 0};
c1 = newl; Circle(c1) = {p0, pc, p1};
c2 = newl; Circle(c2) = {p1, ps, p2};
c3 = newl; Line(c3) = {p2, p3};
c4 = newl; Line(c4) = {p3, p4};
c5 = newl; Line(c5) = {p4, p0};
cl = newll; Curve Loop(cl) = {c1, c2, c3, c4, c5};
sp = news; Plane Surface(sp) = {cl};
// revolve half a turn about the x axis: z -> -y for a positive angle, so turn by -pi to get y >= 0
rev[] = Extrude {{1, 0, 0}, {0, 0, 0}, -Pi} { Surface{sp}; };
body = rev[1];
Recursive Delete { Point{pc, ps}; }

// ---- half domain: box y >= 0 minus the capsule ----------------------------------------------------
bx0 = -box_up * D; bx1 = x3 + box_down * D; by1 = box_side * D; bz0 = -box_side * D; bz1 = box_side * D;
Box(10) = {bx0, 0, bz0, bx1 - bx0, by1, bz1 - bz0};
dom() = BooleanDifference{ Volume{10}; Delete; }{ Volume{body}; Delete; };
If (#dom() != 1)
  Error("orion_like: the domain has %g volumes, expected 1", #dom());
  Abort;
EndIf

eps = 1e-5;
all() = Abs(Boundary{ Volume{dom()}; });
sym() = Surface In BoundingBox{bx0 - eps, -eps, bz0 - eps, bx1 + eps, eps, bz1 + eps};
far() = Surface In BoundingBox{bx0 - eps, -eps, bz0 - eps, bx0 + eps, by1 + eps, bz1 + eps};
far() += Surface In BoundingBox{bx1 - eps, -eps, bz0 - eps, bx1 + eps, by1 + eps, bz1 + eps};
far() += Surface In BoundingBox{bx0 - eps, by1 - eps, bz0 - eps, bx1 + eps, by1 + eps, bz1 + eps};
far() += Surface In BoundingBox{bx0 - eps, -eps, bz0 - eps, bx1 + eps, by1 + eps, bz0 + eps};
far() += Surface In BoundingBox{bx0 - eps, -eps, bz1 - eps, bx1 + eps, by1 + eps, bz1 + eps};
wall() = all();
wall() -= sym();
wall() -= far();
Printf("orion_like: %g boundary surfaces: %g wall, %g far field, %g symmetry", #all(), #wall(), #far(),
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
// shock layer in front of the heat shield and around the shoulder
Field[3] = Box;
Field[3].VIn = h_shock;
Field[3].VOut = 1e22;
Field[3].XMin = -shock_up * D;
Field[3].XMax = x2 + 0.1 * D;
Field[3].YMin = 0;
Field[3].YMax = 0.5 * D + 0.15 * D;
Field[3].ZMin = -0.5 * D - 0.15 * D;
Field[3].ZMax = 0.5 * D + 0.15 * D;
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
