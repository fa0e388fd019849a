// Structured O-grid of quads around an elliptic store (2D section of a slender body), used by
// cases/overset_store_separation. Patches: "wall" (store surface), "outer".
// gmsh -2 -format msh41 store_ogrid.geo -o store.msh   (parameters: -setnumber name value)
If (!Exists(len)) len = 0.5; EndIf      // store length (major axis)
If (!Exists(dia)) dia = 0.1; EndIf      // store thickness (minor axis)
If (!Exists(xc)) xc = 0.4; EndIf        // centre
If (!Exists(yc)) yc = -0.3; EndIf
If (!Exists(ext)) ext = 0.1; EndIf      // grid extent from the wall
If (!Exists(n_q)) n_q = 24; EndIf       // cells per quarter ellipse
If (!Exists(n_r)) n_r = 14; EndIf       // cells across the O-grid
If (!Exists(grow)) grow = 1.12; EndIf   // radial growth ratio away from the wall

a0 = 0.5 * len; b0 = 0.5 * dia; a1 = a0 + ext; b1 = b0 + ext;
Point(1) = {xc, yc, 0};
Point(10) = {xc + a0, yc, 0}; Point(11) = {xc, yc + b0, 0}; Point(12) = {xc - a0, yc, 0}; Point(13) = {xc, yc - b0, 0};
Point(20) = {xc + a1, yc, 0}; Point(21) = {xc, yc + b1, 0}; Point(22) = {xc - a1, yc, 0}; Point(23) = {xc, yc - b1, 0};
For i In {0:3}
  j = (i + 1) % 4;
  m = (i % 2 == 0) ? i : j;   // the end of the arc on the major axis
  Ellipse(100 + i) = {10 + i, 1, 10 + m, 10 + j};
  Ellipse(200 + i) = {20 + i, 1, 20 + m, 20 + j};
  Line(300 + i) = {10 + i, 20 + i};
EndFor
For i In {0:3}
  j = (i + 1) % 4;
  Curve Loop(400 + i) = {100 + i, 300 + j, -(200 + i), -(300 + i)};
  Plane Surface(500 + i) = {400 + i};
  Transfinite Curve{100 + i, 200 + i} = n_q + 1 Using Bump 0.5;
  Transfinite Curve{300 + i} = n_r + 1 Using Progression grow;
  Transfinite Surface{500 + i};
  Recombine Surface{500 + i};
EndFor
Physical Curve("wall") = {100, 101, 102, 103};
Physical Curve("outer") = {200, 201, 202, 203};
Physical Surface("fluid") = {500, 501, 502, 503};
Mesh.MshFileVersion = 4.1;
