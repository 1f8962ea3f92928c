// box_tet.geo — the box [0,1] x [0,2] x [0,3] in tetrahedra, its faces
// named as cuboid()'s regions (left x = 0, right x = 1, front y = 0,
// back y = 2, bottom z = 0, top z = 3).
// gmsh -3 -format msh41 box_tet.geo -o box_tet41.msh
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 2, 3};
Mesh.CharacteristicLengthMax = 0.6;
Physical Surface("left") = {1};
Physical Surface("right") = {2};
Physical Surface("front") = {3};
Physical Surface("back") = {4};
Physical Surface("bottom") = {5};
Physical Surface("top") = {6};
Physical Volume("body") = {1};
