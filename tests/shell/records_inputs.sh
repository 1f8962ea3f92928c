#!/bin/sh
# records_inputs.sh — a record never overwrites a file the script's models
# read: a Matrix Market operator (mtx), a table (table) or a Gmsh mesh.
# The record is refused at its file name, exit 3, before the run, and the
# input is left as it was (a first run recorded over its own mass file,
# which the second run then could not read; over its table, silently).
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder records_inputs records_inputs

printf '%s\n' '%%MatrixMarket matrix coordinate real symmetric' '1 1 1' '1 1 1' > "$dir/m1.mtx"
printf '%s\n' 't,f' '0,0' '10,1' > "$dir/acc.csv"
cp "$dir/m1.mtx" "$dir/m1.keep"
cp "$dir/acc.csv" "$dir/acc.keep"

printf '%s\n' 'model m {' '  dof u' '  mass mtx("m1.mtx")' '  stiffness [1]' '  init u = 1' '}' \
	'let r = run m with newmark from 0 to 2 step 0.1 {' '  record t, u to "m1.mtx"' '}' \
	'print "not reached"' > "$dir/recmtx.dyn"
printf '%s\n' 'model m {' '  dof u' '  mass [1]' '  stiffness [1]' '  force table("acc.csv", 2)' '  init u = 1' '}' \
	'let r = run m with newmark from 0 to 2 step 0.1 {' '  record t, u to "acc.csv"' '}' \
	'print "not reached"' > "$dir/rectable.dyn"

expect() {  # SCRIPT EXPECTED-FIRST-LINE INPUT KEPT
	(cd "$dir" && timeout 20 "$DYN" "$1" > "$1.out" 2> "$1.err" < /dev/null)
	st=$?
	[ "$st" -eq 3 ] || fail "$1: exit status $st, expected 3: $(head -c 300 "$dir/$1.err")"
	[ -s "$dir/$1.out" ] && fail "$1: the script went on: $(head -c 200 "$dir/$1.out")"
	[ "$(head -n 1 "$dir/$1.err")" = "$2" ] ||
		fail "$1: first line '$(head -n 1 "$dir/$1.err")', expected '$2'"
	cmp -s "$dir/$3" "$dir/$4" || fail "$1: $3 was changed"
}
expect recmtx.dyn "recmtx.dyn:8:18: error: cannot write 'm1.mtx': a model of the script reads it: a script's outputs never overwrite its input files" m1.mtx m1.keep
expect rectable.dyn "rectable.dyn:9:18: error: cannot write 'acc.csv': a model of the script reads it: a script's outputs never overwrite its input files" acc.csv acc.keep

# a Gmsh mesh: the bar of tests/data (a record into its file)
msh=$(ls "$srcdir"/tests/data/*.msh 2> /dev/null | head -n 1)
if [ -n "$msh" ]; then
	cp "$msh" "$dir/part.msh"
	cp "$msh" "$dir/part.keep"
	printf '%s\n' 'mesh b = gmsh("part.msh")' 'print "read"' 'model m {' '  dof u' '  mass [1]' '  stiffness [1]' \
		'  init u = 1' '}' 'let r = run m with newmark from 0 to 1 step 0.1 {' '  record t, u to "part.msh"' '}' \
		> "$dir/recmesh.dyn"
	(cd "$dir" && timeout 20 "$DYN" recmesh.dyn > recmesh.out 2> recmesh.err < /dev/null)
	st=$?
	[ "$st" -eq 3 ] || fail "recmesh.dyn: exit status $st, expected 3: $(head -c 300 "$dir/recmesh.err")"
	grep -q "a model of the script reads it" "$dir/recmesh.err" ||
		fail "recmesh.dyn: $(head -c 300 "$dir/recmesh.err")"
	cmp -s "$dir/part.msh" "$dir/part.keep" || fail "recmesh.dyn: part.msh was changed"
fi
[ "$status" -eq 0 ] && echo "records_inputs: ok"
exit "$status"
