#!/bin/sh
# gmsh_messages.sh — every message of gmsh("file") about a malformed file
# (dyn(5), MESHES AND FIELDS; DIAGNOSTICS), as dyn reports it: at the
# gmsh(...) call, "script:1:12: error: 'file' line n: message", status 3.
# Each case is a small valid mesh (Gmsh 2.2 or 4.1: a bar of two lines and
# its left end) with one line changed, inserted or removed; the valid
# meshes themselves must load.
#
# Environment (tests/run-tests): DYN the binary, srcdir the source tree,
# OUT a writable folder for outputs.
set -u
: "${DYN:?DYN is not set}" "${srcdir:?srcdir is not set}" "${OUT:?OUT is not set}"
LC_ALL=C
export LC_ALL

. "$srcdir/tests/shell/common.inc"
test_folder gmsh_messages gmsh_messages
cd "$dir" || exit 1

cat > base22 <<'EOF'
$MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
2
0 1 "left"
1 2 "bar"
$EndPhysicalNames
$Nodes
3
1 0 0 0
2 0.5 0 0
3 1 0 0
$EndNodes
$Elements
3
1 15 2 1 1 1
2 1 2 2 1 1 2
3 1 2 2 1 2 3
$EndElements
EOF
cat > base41 <<'EOF'
$MeshFormat
4.1 0 8
$EndMeshFormat
$PhysicalNames
2
0 1 "left"
1 2 "bar"
$EndPhysicalNames
$Entities
2 1 0 0
1 0 0 0 1 1
2 1 0 0 0
1 0 0 0 1 0 0 1 2 2 1 -2
$EndEntities
$Nodes
2 3 1 3
0 1 0 1
1
0 0 0
1 1 0 2
2
3
0.5 0 0
1 0 0
$EndNodes
$Elements
2 3 1 3
0 1 15 1
1 1
1 1 1 2
2 1 2
3 2 3
$EndElements
EOF
cat > mesh.dyn <<'EOF'
mesh bar = gmsh("m.msh")
model m {
  field u on bar : P1
  kinetic integral(bar, 0.5*u'^2)
  potential integral(bar, 0.5*grad(u)^2)
  fix u on left
}
let r = run m with newmark from 0 to 0.1 step 0.1
print "ok"
EOF

# edit BASE OP LINE [TEXT]: BASE with line LINE replaced by TEXT (OP r),
# TEXT inserted after it (OP a; "\n" in TEXT separates lines) or lines
# LINE..end removed (OP cut), into m.msh.
edit() {
	awk -v op="$2" -v at="$3" -v text="${4:-}" '
		BEGIN { gsub(/\\n/, "\n", text) }
		op == "cut" && NR >= at { exit }
		NR == at && op == "r" { print text; next }
		{ print }
		NR == at && op == "a" { print text }' "$1" > m.msh
}

# bad NAME LINE MESSAGE: mesh.dyn on m.msh fails with MESSAGE at LINE.
bad() {
	"$DYN" mesh.dyn > "$1.out" 2> "$1.err"
	st=$?
	[ "$st" -eq 3 ] || fail "$1: exit status $st, expected 3"
	want="mesh.dyn:1:12: error: 'm.msh' line $2: $3"
	got=$(sed -n 1p "$1.err")
	[ "$got" = "$want" ] || fail "$1: got \"$got\", expected \"$want\""
}

for b in base22 base41; do
	cp "$b" m.msh
	out=$("$DYN" mesh.dyn 2>&1)
	[ "$out" = ok ] || fail "$b: the valid mesh does not load: $out"
done

edit base22 a 3 'foo'
bad stray 4 'expected a section ($Nodes, $Elements, ...)'
edit base22 a 3 '$EndNodes'
bad closes_no_section 4 '$EndNodes closes no section'
edit base22 a 3 '$MeshFormat'
bad second_format 4 'a second $MeshFormat'
edit base22 a 14 '$Nodes\n0\n$EndNodes'
bad second_nodes 15 'a second $Nodes section'
edit base22 a 20 '$Elements\n0\n$EndElements'
bad second_elements 21 'a second $Elements section'
edit base22 r 11 "1 0 0 0$(i=0; while [ $i -lt 70 ]; do printf ' 0'; i=$((i + 1)); done)"
bad too_many_numbers 11 'more than 64 numbers on a line'
edit base22 cut 13
bad ends_inside 12 'the file ends inside a node (tag x y z)'
edit base22 cut 14
bad ends_before_end 13 'the file ends before $EndNodes'
edit base22 r 13 '$EndNodes'
bad missing_found_section 13 'a node (tag x y z) is missing (found a section line)'
edit base22 r 17 '1 15'
bad too_few_numbers 17 'an element (tag type ntags tags... nodes...) has 2 numbers, expected at least 3'
edit base22 r 5 '3'
bad names_end 8 'the file ends inside $PhysicalNames (2 of 3 names)'
edit base22 r 6 'x 1 "left"'
bad name_form 6 'a physical name is: dimension (0 to 3), tag (> 0), "name"'
edit base22 r 7 '1 2 "left"'
bad same_name 7 'two physical groups have the same name (lines 6 and 7)'
edit base22 r 18 '2 1 9 1 1 2'
bad element_tags 18 'the element has 9 tags, more than the line holds'
edit base22 r 18 '2 1 2 2 1 1 2 3'
bad element_nodes 18 'a line element has 2 nodes; its line in the file lists 3'
edit base22 r 17 '1 15 2 1 1 1 2'
bad point_nodes 17 'a point element has 1 node; its line in the file lists 2'
edit base22 r 18 '2 1 2 -2 1 1 2'
bad physical_negative 18 'the physical tag -2 is negative'
# tags beyond an int (a group's tag is one: $PhysicalNames refuses them
# too) were truncated, and the groups built past their array
edit base22 r 18 '2 1 2 4294967297 1 1 2'
bad physical_range 18 'physical tag 4294967297 is out of range (1 to 2147483647)'
edit base22 a 7 '$EndPhysicalNames\n$PhysicalNames\n1\n1 3 "right"'
bad second_names 9 'a second $PhysicalNames section'
edit base41 r 13 '1 0 0 0 1 0 0 1 4294967299 2 1 -2'
bad entity_physical_range 13 'physical tag 4294967299 is out of range (1 to 2147483647, or its negative)'
edit base41 r 13 '1 0 0 0 1 0 0 1 -9223372036854775808 2 1 -2'
bad entity_physical_min 13 'physical tag -9223372036854775808 is out of range (1 to 2147483647, or its negative)'
edit base41 r 13 '4294967297 0 0 0 1 0 0 1 2 2 1 -2'
bad entity_range 13 'entity tag 4294967297 is out of range (1 to 2147483647)'
edit base41 cut 9
printf '$Elements\n0 0 0 0\n$EndElements\n' >> m.msh
bad elements_before_entities 9 '$Elements comes before $Entities: the physical groups are unknown'
edit base41 r 11 '1 0 0 0 5 1'
bad entity_physical_tags 11 'the entity lists 5 physical tags, more than the line holds'
edit base41 r 13 '1 0 0 0 1 0 0 1 2 3 1 -2'
bad entity_bounding 13 'the entity lists 3 bounding entities, the line holds 2'
edit base41 r 11 '1 0 0 0 1 1 7'
bad point_entity 11 'the point entity has 7 numbers, expected 6'
edit base41 r 17 '5 1 0 1'
bad node_block 17 'a node block header (dimension 0 to 3, entity, parametric 0 or 1, nodes)'
edit base41 r 28 '1 1 15 1'
bad block_dimension 29 'a point in a block of dimension 1'
edit base41 r 27 '2 4 1 3'
bad elements_header 32 'the $Elements header announces 4 elements, the blocks hold 3'

# An integral over a region of nodes (a physical group of points in a
# 2-D mesh).
cp "$srcdir/tests/data/rect_tri22.msh" plate.msh
cat > nodes.dyn <<'EOF'
mesh plate = gmsh("plate.msh")
model m {
  field u on plate : P1
  kinetic integral(plate, 0.5*u'^2)
  potential integral(corner, 0.5*u^2)
}
let r = run m with newmark from 0 to 0.1 step 0.1
EOF
"$DYN" nodes.dyn > nodes.out 2> nodes.err
st=$?
want="nodes.dyn:5:22: error: region corner of mesh plate is a set of nodes: an integral is over cells or facets"
[ "$st" -eq 3 ] || fail "node_region: exit status $st, expected 3"
[ "$(sed -n 1p nodes.err)" = "$want" ] || fail "node_region: got \"$(sed -n 1p nodes.err)\", expected \"$want\""

# A physical name is any text between quotes: shown escaped and cut in a
# message (it was echoed raw: an escape sequence cleared the terminal).
esc=$(printf '\033')
sed "s/\"bar\"/\"x${esc}[2J\"/" base22 > esc.msh
sed -e 's/"m\.msh"/"esc.msh"/' -e 's/fix u on left/fix u on rigth/' mesh.dyn > esc.dyn
"$DYN" esc.dyn > esc.out 2> esc.err
st=$?
want='esc.dyn:6:12: error: mesh bar has no region '"'rigth'"': its regions are left, x\x1b[2J'
[ "$st" -eq 3 ] || fail "escaped_region: exit status $st, expected 3"
[ "$(sed -n 1p esc.err)" = "$want" ] || fail "escaped_region: got \"$(sed -n 1p esc.err)\", expected \"$want\""
grep -q "$esc" esc.err && fail "escaped_region: an escape character reached stderr"

[ "$status" -eq 0 ] && echo "gmsh_messages: every malformed mesh file is reported at its line"
exit "$status"
