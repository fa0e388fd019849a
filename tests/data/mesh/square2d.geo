// Unit square [0,1]^2 for the mesh reader tests: left half triangles, right half recombined quads.
// The left surface is defined by a clockwise curve loop (normal -z), so its cells come out clockwise
// and the reader must reorient them.
// Generate: gmsh -2 square2d.geo -format msh41 -o square2d.msh
//           gmsh -2 square2d.geo -format msh41 -bin -o square2d_bin.msh
// Partitioned (Gmsh 4.8.4 with METIS: the same mesh in 2 partitions, $PartitionedEntities):
//           gmsh -2 square2d.geo -format msh41 -part 2 -o square2d_part2.msh
//           gmsh -2 square2d.geo -format msh41 -bin -part 2 -o square2d_part2_bin.msh
lc = 0.2;
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
Curve Loop(1) = {-6, -5, -7, -1};   // clockwise: left half
Plane Surface(1) = {1};
Curve Loop(2) = {2, 3, 4, -7};      // counter-clockwise: right half
Plane Surface(2) = {2};
Transfinite Curve{2, 3, 4, 7} = 4;
Transfinite Surface{2};
Recombine Surface{2};
// Patch order follows the physical tags: inlet (3), wall (5), patch_7 (7, unnamed).
Physical Curve("wall", 5) = {1, 2, 4, 5};
Physical Curve("inlet", 3) = {6};
Physical Curve(7) = {3};
Physical Surface("fluid", 1) = {1, 2};
