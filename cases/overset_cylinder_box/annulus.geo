// Annular body grid around a circular cylinder (overset_cylinder_box): structured quads.
// gmsh -2 -format msh41 annulus.geo -o annulus.msh   (parameters: -setnumber name value)
If (!Exists(r_wall)) r_wall = 0.5; EndIf   // cylinder radius
If (!Exists(r_out)) r_out = 1.5; EndIf     // outer radius of the body grid
If (!Exists(n_r)) n_r = 16; EndIf          // cells across the annulus
If (!Exists(n_q)) n_q = 24; EndIf          // cells per quarter circle
If (!Exists(grow)) grow = 1.12; EndIf      // radial growth ratio away from the wall

Point(1) = {0, 0, 0};
For i In {0:3}
  Point(10 + i) = {r_wall * Cos(i * Pi / 2), r_wall * Sin(i * Pi / 2), 0};
  Point(20 + i) = {r_out * Cos(i * Pi / 2), r_out * Sin(i * Pi / 2), 0};
EndFor
For i In {0:3}
  j = (i + 1) % 4;
  Circle(100 + i) = {10 + i, 1, 10 + j};   // inner arcs
  Circle(200 + i) = {20 + i, 1, 20 + j};   // outer arcs
  Line(300 + i) = {10 + i, 20 + i};        // radial lines
EndFor
For i In {0:3}
  j = (i + 1) % 4;
  Curve Loop(400 + i) = {100 + i, 300 + j, -(200 + i), -(300 + i)};
  Plane Surface(500 + i) = {400 + i};
  Transfinite Curve{100 + i, 200 + i} = n_q + 1;
  Transfinite Curve{300 + i} = n_r + 1 Using Progression grow;
  Transfinite Surface{500 + i};
  Recombine Surface{500 + i};
EndFor
Physical Curve("wall") = {100, 101, 102, 103};
Physical Curve("outer") = {200, 201, 202, 203};
Physical Surface("fluid") = {500, 501, 502, 503};
Mesh.MshFileVersion = 4.1;
