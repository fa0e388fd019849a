// Structured O-grid of quads around a symmetric NACA 00tt airfoil (closed trailing edge), used by
// cases/overset_airfoil_flap (main element and flap) and cases/overset_store_separation (wing).
// gmsh -2 -format msh41 airfoil_ogrid.geo -setnumber chord 0.35 ... -o flap.msh
// The outer boundary is the ellipse around the chord with semi-axes (chord/2 + ext, thick*chord/2 + ext),
// so the grid reaches about `ext` from the wall everywhere. Patches: "wall" (airfoil), "outer".
If (!Exists(chord)) chord = 1; EndIf     // chord length
If (!Exists(x_le)) x_le = 0; EndIf       // leading-edge position
If (!Exists(y_le)) y_le = 0; EndIf
If (!Exists(aoa)) aoa = 0; EndIf         // incidence in degrees (nose up = positive), about the leading edge
If (!Exists(thick)) thick = 0.12; EndIf  // thickness / chord (NACA 0012)
If (!Exists(ext)) ext = 0.15; EndIf      // grid extent from the wall
If (!Exists(n_s)) n_s = 60; EndIf        // cells along each side (upper, lower)
If (!Exists(n_r)) n_r = 16; EndIf        // cells across the O-grid
If (!Exists(grow)) grow = 1.12; EndIf    // radial growth ratio away from the wall
If (!Exists(n_p)) n_p = 80; EndIf        // spline points per side

ca = Cos(-aoa * Pi / 180); sa = Sin(-aoa * Pi / 180);
xc = 0.5 * chord; a = 0.5 * chord + ext; b = 0.5 * thick * chord + ext;
// airfoil (upper: points 1000.., lower: 2000..) and outer ellipse (upper 3000.., lower 4000..)
For i In {0:n_p}
  beta = Pi * i / n_p;
  xs = 0.5 * (1 - Cos(beta));
  yt = 5 * thick * (0.2969 * Sqrt(xs) - 0.1260 * xs - 0.3516 * xs^2 + 0.2843 * xs^3 - 0.1036 * xs^4);
  If (i == n_p) yt = 0; EndIf
  xo = xc - a * Cos(beta); yo = b * Sin(beta);
  X = xs * chord;
  Point(1000 + i) = {x_le + ca * X - sa * yt * chord, y_le + sa * X + ca * yt * chord, 0};
  If (i > 0 && i < n_p)
    Point(2000 + i) = {x_le + ca * X + sa * yt * chord, y_le + sa * X - ca * yt * chord, 0};
  EndIf
  Point(3000 + i) = {x_le + ca * xo - sa * yo, y_le + sa * xo + ca * yo, 0};
  If (i > 0 && i < n_p)
    Point(4000 + i) = {x_le + ca * xo + sa * yo, y_le + sa * xo - ca * yo, 0};
  EndIf
EndFor
Spline(1) = {1000:1000 + n_p};                           // upper wall, LE -> TE
Spline(2) = {1000, 2001:2000 + n_p - 1, 1000 + n_p};     // lower wall, LE -> TE
Spline(3) = {3000:3000 + n_p};                           // upper outer, front -> rear
Spline(4) = {3000, 4001:4000 + n_p - 1, 3000 + n_p};     // lower outer, front -> rear
Line(5) = {1000, 3000};                                  // LE -> front
Line(6) = {1000 + n_p, 3000 + n_p};                      // TE -> rear
Curve Loop(11) = {1, 6, -3, -5};
Plane Surface(21) = {11};
Curve Loop(12) = {-2, 5, 4, -6};
Plane Surface(22) = {12};
Transfinite Curve{1, 2, 3, 4} = n_s + 1 Using Bump 0.3;
Transfinite Curve{5, 6} = n_r + 1 Using Progression grow;
Transfinite Surface{21} = {1000, 1000 + n_p, 3000 + n_p, 3000};
Transfinite Surface{22} = {1000, 3000, 3000 + n_p, 1000 + n_p};
Recombine Surface{21, 22};
Physical Curve("wall") = {1, 2};
Physical Curve("outer") = {3, 4};
Physical Surface("fluid") = {21, 22};
Mesh.MshFileVersion = 4.1;
