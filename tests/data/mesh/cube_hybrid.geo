// Unit cube [0,1]^3 with all four 3D cell types, for the mesh reader tests:
//   z in [0, 0.5]: structured extrusion (2 layers) of a base with triangles (x < 0.5) and
//                  quads (x > 0.5) -> prisms and hexahedra;
//   z in [0.5, 1]: unstructured tetrahedra; Gmsh puts pyramids on the quads of the z = 0.5 interface.
// Generate: gmsh -3 cube_hybrid.geo -format msh41 -o cube_hybrid.msh
//           gmsh -3 cube_hybrid.geo -format msh41 -bin -o cube_hybrid_bin.msh
lc = 0.3;
Point(1) = {0, 0, 0, lc};
Point(2) = {0.5, 0, 0, lc};
Point(3) = {1, 0, 0, lc};
Point(4) = {1, 1, 0, lc};
Point(5) = {0.5, 1, 0, lc};
Point(6) = {0, 1, 0, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 5};
Line(5) = {5, 6};
Line(6) = {6, 1};
Line(7) = {2, 5};
Curve Loop(1) = {1, 7, 5, 6};
Plane Surface(1) = {1};
Curve Loop(2) = {2, 3, 4, -7};
Plane Surface(2) = {2};
Transfinite Curve{1, 2, 4, 5} = 3;
Transfinite Curve{3, 6, 7} = 4;
Transfinite Surface{2};
Recombine Surface{2};

low1[] = Extrude {0, 0, 0.5} { Surface{1}; Layers{2}; Recombine; };
low2[] = Extrude {0, 0, 0.5} { Surface{2}; Layers{2}; Recombine; };
high1[] = Extrude {0, 0, 0.5} { Surface{low1[0]}; };
high2[] = Extrude {0, 0, 0.5} { Surface{low2[0]}; };

// low1 = {top, volume, sides on curves 1, 7, 5, 6}; low2 = {top, volume, sides on curves 2, 3, 4, -7}
Physical Surface("bottom", 1) = {1, 2};
Physical Surface("top", 2) = {high1[0], high2[0]};
Physical Surface("sides", 3) = {low1[2], low1[4], low1[5], low2[2], low2[3], low2[4],
                                high1[2], high1[4], high1[5], high2[2], high2[3], high2[4]};
Physical Volume("fluid", 4) = {low1[1], low2[1], high1[1], high2[1]};
