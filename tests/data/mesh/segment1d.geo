// Segment [0, 2] with 8 cells graded towards x = 0, for the mesh reader tests.
// Generate: gmsh -1 segment1d.geo -format msh41 -o segment1d.msh
Point(1) = {0, 0, 0};
Point(2) = {2, 0, 0};
Line(1) = {1, 2};
Transfinite Curve{1} = 9 Using Progression 1.2;
Physical Point("left", 1) = {1};
Physical Point("right", 2) = {2};
Physical Curve("gas", 3) = {1};
