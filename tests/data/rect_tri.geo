// rect_tri.geo — the rectangle [0,2] x [0,1] in triangles, its edges in
// physical groups named as rectangle()'s regions, the body as "body".
// gmsh -2 -format msh41 rect_tri.geo -o rect_tri41.msh
// gmsh -2 -format msh22 rect_tri.geo -o rect_tri22.msh
lc = 0.25;
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
Physical Point("corner") = {3};
