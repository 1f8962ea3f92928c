// rect_fine.geo — rect_tri.geo's rectangle [0,2] x [0,1] in finer
// triangles (5420 P1^2 unknowns with "left" fixed: beyond IR_DENSE_MAX,
// so that a run on several processes partitions it), edges in physical
// groups named as rectangle()'s regions.  Gmsh numbers the edges' nodes
// first, each beside interior nodes numbered anywhere: a wide numbering,
// which dyn renumbers on several processes (tests/shell/mpi.sh).
// gmsh -2 -format msh41 rect_fine.geo -o rect_fine41.msh
lc = 0.03;
Point(1) = {0, 0, 0, lc};
Point(2) = {2, 0, 0, lc};
Point(3) = {2, 1, 0, lc};
Point(4) = {0, 1, 0, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Curve("bottom") = {1};
Physical Curve("right") = {2};
Physical Curve("top") = {3};
Physical Curve("left") = {4};
Physical Surface("body") = {1};
