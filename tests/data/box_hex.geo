// box_hex.geo — the box [0,1] x [0,2] x [0,3] in 2 x 3 x 4 hexahedra
// (an extruded, recombined transfinite square), faces named as cuboid()'s.
// gmsh -3 -format msh22 box_hex.geo -o box_hex22.msh
Point(1) = {0, 0, 0};
Point(2) = {1, 0, 0};
Point(3) = {1, 2, 0};
Point(4) = {0, 2, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1, 3} = 3;
Transfinite Curve{2, 4} = 4;
Transfinite Surface{1};
Recombine Surface{1};
out[] = Extrude {0, 0, 3} { Surface{1}; Layers{4}; Recombine; };
// out[0] top, out[1] volume, out[2..5] sides from lines 1, 2, 3, 4.
Physical Surface("bottom") = {1};
Physical Surface("top") = {out[0]};
Physical Surface("front") = {out[2]};
Physical Surface("right") = {out[3]};
Physical Surface("back") = {out[4]};
Physical Surface("left") = {out[5]};
Physical Volume("body") = {out[1]};
