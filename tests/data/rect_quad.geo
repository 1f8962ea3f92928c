// rect_quad.geo — the rectangle [0,2] x [0,1] in 8 x 4 quadrangles
// (transfinite, recombined), edges named as rectangle()'s regions.
// gmsh -2 -format msh41 rect_quad.geo -o rect_quad41.msh
Point(1) = {0, 0, 0};
Point(2) = {2, 0, 0};
Point(3) = {2, 1, 0};
Point(4) = {0, 1, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1, 3} = 9;
Transfinite Curve{2, 4} = 5;
Transfinite Surface{1};
Recombine Surface{1};
Physical Curve("bottom") = {1};
Physical Curve("right") = {2};
Physical Curve("top") = {3};
Physical Curve("left") = {4};
Physical Surface("body") = {1};
