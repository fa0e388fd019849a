// Spherical shell of prism layers around a sphere (cases/overset_sphere_box): a cubed sphere (6
// transfinite blocks), triangles on the spherical surfaces extruded radially into prisms.
// Generated once by a small script (see README.md); parameters: -setnumber name value.
//   gmsh -3 -format msh41 sphere_shell.geo -o sphere_shell.msh
If (!Exists(r_in)) r_in = 0.5; EndIf    // sphere radius (wall)
If (!Exists(r_out)) r_out = 1.1; EndIf  // outer radius of the shell grid
If (!Exists(n)) n = 8; EndIf            // cells along each edge of the 6 cube-sphere patches
If (!Exists(n_r)) n_r = 10; EndIf       // prism layers
If (!Exists(grow)) grow = 1.15; EndIf   // radial growth ratio away from the wall
s3 = 1 / Sqrt(3);
Point(1) = {0, 0, 0};
Point(10) = {-1*r_in*s3, -1*r_in*s3, -1*r_in*s3};  Point(20) = {-1*r_out*s3, -1*r_out*s3, -1*r_out*s3};
Point(11) = {-1*r_in*s3, -1*r_in*s3, 1*r_in*s3};  Point(21) = {-1*r_out*s3, -1*r_out*s3, 1*r_out*s3};
Point(12) = {-1*r_in*s3, 1*r_in*s3, -1*r_in*s3};  Point(22) = {-1*r_out*s3, 1*r_out*s3, -1*r_out*s3};
Point(13) = {-1*r_in*s3, 1*r_in*s3, 1*r_in*s3};  Point(23) = {-1*r_out*s3, 1*r_out*s3, 1*r_out*s3};
Point(14) = {1*r_in*s3, -1*r_in*s3, -1*r_in*s3};  Point(24) = {1*r_out*s3, -1*r_out*s3, -1*r_out*s3};
Point(15) = {1*r_in*s3, -1*r_in*s3, 1*r_in*s3};  Point(25) = {1*r_out*s3, -1*r_out*s3, 1*r_out*s3};
Point(16) = {1*r_in*s3, 1*r_in*s3, -1*r_in*s3};  Point(26) = {1*r_out*s3, 1*r_out*s3, -1*r_out*s3};
Point(17) = {1*r_in*s3, 1*r_in*s3, 1*r_in*s3};  Point(27) = {1*r_out*s3, 1*r_out*s3, 1*r_out*s3};
Circle(100) = {10, 1, 11}; Circle(200) = {20, 1, 21};
Circle(101) = {10, 1, 12}; Circle(201) = {20, 1, 22};
Circle(102) = {10, 1, 14}; Circle(202) = {20, 1, 24};
Circle(103) = {11, 1, 13}; Circle(203) = {21, 1, 23};
Circle(104) = {11, 1, 15}; Circle(204) = {21, 1, 25};
Circle(105) = {12, 1, 13}; Circle(205) = {22, 1, 23};
Circle(106) = {12, 1, 16}; Circle(206) = {22, 1, 26};
Circle(107) = {13, 1, 17}; Circle(207) = {23, 1, 27};
Circle(108) = {14, 1, 15}; Circle(208) = {24, 1, 25};
Circle(109) = {14, 1, 16}; Circle(209) = {24, 1, 26};
Circle(110) = {15, 1, 17}; Circle(210) = {25, 1, 27};
Circle(111) = {16, 1, 17}; Circle(211) = {26, 1, 27};
Line(300) = {10, 20};
Line(301) = {11, 21};
Line(302) = {12, 22};
Line(303) = {13, 23};
Line(304) = {14, 24};
Line(305) = {15, 25};
Line(306) = {16, 26};
Line(307) = {17, 27};
Curve Loop(400) = {101, 105, -103, -100}; Surface(400) = {400} In Sphere {1};
Curve Loop(500) = {201, 205, -203, -200}; Surface(500) = {500} In Sphere {1};
Curve Loop(401) = {109, 111, -110, -108}; Surface(401) = {401} In Sphere {1};
Curve Loop(501) = {209, 211, -210, -208}; Surface(501) = {501} In Sphere {1};
Curve Loop(402) = {100, 104, -108, -102}; Surface(402) = {402} In Sphere {1};
Curve Loop(502) = {200, 204, -208, -202}; Surface(502) = {502} In Sphere {1};
Curve Loop(403) = {105, 107, -111, -106}; Surface(403) = {403} In Sphere {1};
Curve Loop(503) = {205, 207, -211, -206}; Surface(503) = {503} In Sphere {1};
Curve Loop(404) = {102, 109, -106, -101}; Surface(404) = {404} In Sphere {1};
Curve Loop(504) = {202, 209, -206, -201}; Surface(504) = {504} In Sphere {1};
Curve Loop(405) = {104, 110, -107, -103}; Surface(405) = {405} In Sphere {1};
Curve Loop(505) = {204, 210, -207, -203}; Surface(505) = {505} In Sphere {1};
Curve Loop(600) = {100, 301, -200, -300}; Plane Surface(600) = {600};
Curve Loop(601) = {101, 302, -201, -300}; Plane Surface(601) = {601};
Curve Loop(602) = {102, 304, -202, -300}; Plane Surface(602) = {602};
Curve Loop(603) = {103, 303, -203, -301}; Plane Surface(603) = {603};
Curve Loop(604) = {104, 305, -204, -301}; Plane Surface(604) = {604};
Curve Loop(605) = {105, 303, -205, -302}; Plane Surface(605) = {605};
Curve Loop(606) = {106, 306, -206, -302}; Plane Surface(606) = {606};
Curve Loop(607) = {107, 307, -207, -303}; Plane Surface(607) = {607};
Curve Loop(608) = {108, 305, -208, -304}; Plane Surface(608) = {608};
Curve Loop(609) = {109, 306, -209, -304}; Plane Surface(609) = {609};
Curve Loop(610) = {110, 307, -210, -305}; Plane Surface(610) = {610};
Curve Loop(611) = {111, 307, -211, -306}; Plane Surface(611) = {611};
Surface Loop(700) = {400, 500, 601, 605, 603, 600}; Volume(700) = {700};
Transfinite Volume{700} = {10, 12, 13, 11, 20, 22, 23, 21};
Surface Loop(701) = {401, 501, 609, 611, 610, 608}; Volume(701) = {701};
Transfinite Volume{701} = {14, 16, 17, 15, 24, 26, 27, 25};
Surface Loop(702) = {402, 502, 600, 604, 608, 602}; Volume(702) = {702};
Transfinite Volume{702} = {10, 11, 15, 14, 20, 21, 25, 24};
Surface Loop(703) = {403, 503, 605, 607, 611, 606}; Volume(703) = {703};
Transfinite Volume{703} = {12, 13, 17, 16, 22, 23, 27, 26};
Surface Loop(704) = {404, 504, 602, 609, 606, 601}; Volume(704) = {704};
Transfinite Volume{704} = {10, 14, 16, 12, 20, 24, 26, 22};
Surface Loop(705) = {405, 505, 604, 610, 607, 603}; Volume(705) = {705};
Transfinite Volume{705} = {11, 15, 17, 13, 21, 25, 27, 23};
Transfinite Curve{100:111, 200:211} = n + 1;
Transfinite Curve{300:307} = n_r + 1 Using Progression grow;
Transfinite Surface{400:405, 500:505, 600:611};
Recombine Surface{600:611};  // quads on the lateral faces: prisms between triangulated spheres
Physical Surface("wall") = {400:405};
Physical Surface("outer") = {500:505};
Physical Volume("fluid") = {700:705};
Mesh.MshFileVersion = 4.1;
