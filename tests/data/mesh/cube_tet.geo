// Unit cube [0,1]^3 meshed with tetrahedra, for the mesh reader tests.
// Generate: gmsh -3 cube_tet.geo -format msh41 -o cube_tet.msh
// Partitioned, with ghost cells ($PartitionedEntities, $GhostElements; Gmsh 4.8.4 with METIS):
//           gmsh -3 cube_tet.geo -format msh41 -part 3 -part_ghosts -o cube_tet_part3.msh
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Mesh.MeshSizeMin = 0.4;
Mesh.MeshSizeMax = 0.4;
// OpenCASCADE box faces: 1 x=0, 2 x=1, 3 y=0, 4 y=1, 5 z=0, 6 z=1
Physical Surface("lid", 2) = {6};
Physical Surface("walls", 1) = {1, 2, 3, 4, 5};
Physical Volume("fluid", 10) = {1};
