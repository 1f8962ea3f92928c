// line.geo — the interval [0,1] in 10 segments, its ends "left" and
// "right" as interval()'s.
// gmsh -1 -format msh41 line.geo -o line41.msh
Point(1) = {0, 0, 0};
Point(2) = {1, 0, 0};
Line(1) = {1, 2};
Transfinite Curve{1} = 11;
Physical Point("left") = {1};
Physical Point("right") = {2};
Physical Curve("bar") = {1};
