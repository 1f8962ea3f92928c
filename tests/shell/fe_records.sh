#!/bin/sh
# fe_records.sh — records of fields (dyn(5), MESHES AND FIELDS, Records):
#   - record field u to "u.pvd" every N writes u_<step>.vtu at steps 0,
#     N, 2N, ... and the last, beside a PVD that lists them with their
#     times; files go under -o DIR;
#   - the values are the field at the mesh's nodes, 0 at fixed ones: at
#     t = 0 they are the initial value u = x exactly (read back from the
#     VTU's base64 block: the 8-byte header of the first array, then its
#     11 doubles);
#   - point records are named u(X) (u_x(X Y), ... for vectors): no comma
#     in a CSV column's name;
#   - a P2 field is written at every node of its space, on quadratic
#     cells.
set -u
: "${DYN:?DYN is not set}" "${srcdir:?srcdir is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB DYN_HISTORY_BUDGET
LC_ALL=C
export LC_ALL

. "$srcdir/tests/shell/common.inc"
test_folder fe_records fe_records out

cat > "$dir/f.dyn" <<'END'
mesh bar = interval(0, 1, cells = 10)
mesh plate = rectangle(0, 1, 0, 1, nx = 2, ny = 2)
model wave {
  field u on bar : P1
  kinetic   integral(bar, 0.5*u'^2)
  potential integral(bar, 0.5*grad(u)^2)
  fix u on left
  init u = x
}
model block {
  field w on plate : P1^2
  kinetic   integral(plate, 0.5*dot(w', w'))
  potential integral(plate, 0.5*inner(grad(w), grad(w)))
  fix w on left
}
let r = run wave with newmark from 0 to 0.1 step 0.01 { record field u to "u.pvd" every 4
  record t, u at (0.25) to "p.csv" every 10 }
let s = run block with newmark from 0 to 0.1 step 0.1 { record t, w at (0.5, 0.5) to "q.csv" }
END
"$DYN" -o "$dir/out" "$dir/f.dyn" > "$dir/stdout" 2>&1 || fail "the script failed: $(cat "$dir/stdout")"
for k in 000000 000004 000008 000010; do
	[ -f "$dir/out/u_$k.vtu" ] || fail "u_$k.vtu was not written"
done
[ -e "$dir/out/u_000001.vtu" ] && fail "u_000001.vtu was written (every 4)"
files=$(sed -n 's/.*timestep="\([^"]*\)".*file="\([^"]*\)".*/\1 \2/p' "$dir/out/u.pvd" | tr '\n' ';')
[ "$files" = "0 u_000000.vtu;0.040000000000000001 u_000004.vtu;0.080000000000000002 u_000008.vtu;0.10000000000000001 u_000010.vtu;" ] ||
	fail "u.pvd lists: $files"
vals=$(sed -n '/<AppendedData/{n;p;}' "$dir/out/u_000000.vtu" | sed 's/^[[:space:]]*_//' | cut -c13-132 |
       base64 -d | od -A n -t f8 -w8 | tr -s ' ' | tr '\n' ' ')
[ "$vals" = " 0  0.1  0.2  0.3  0.4  0.5  0.6  0.7  0.8  0.9  1 " ] || fail "u at t = 0: $vals"
[ "$(head -1 "$dir/out/p.csv")" = "t,u(0.25)" ] || fail "p.csv header: $(head -1 "$dir/out/p.csv")"
[ "$(sed -n 2p "$dir/out/p.csv")" = "0,0.25" ] || fail "p.csv first row: $(sed -n 2p "$dir/out/p.csv")"
[ "$(head -1 "$dir/out/q.csv")" = "t,w_x(0.5 0.5),w_y(0.5 0.5)" ] || fail "q.csv header: $(head -1 "$dir/out/q.csv")"
# a P2 field: every node of its space, the mid-edge ones included, on
# quadratic cells (VTK_QUADRATIC_EDGE 21): u = x^2 exact at the 5 nodes
# of two cells, vertices first (0, 0.5, 1), then the midpoints (0.25,
# 0.75); it was written at the vertices alone, on linear cells
cat > "$dir/p2.dyn" <<'END'
mesh seg = interval(0, 1, cells = 2)
model quad {
  field u on seg : P2
  kinetic   integral(seg, 0.5*u'^2)
  potential integral(seg, 0.5*grad(u)^2)
  init u = x^2
}
let r = run quad with newmark from 0 to 0.01 step 0.01 { record field u to "q2.pvd" }
END
"$DYN" -o "$dir/out" "$dir/p2.dyn" > "$dir/p2.out" 2>&1 || fail "p2.dyn: $(head -3 "$dir/p2.out")"
grep -q 'NumberOfPoints="5" NumberOfCells="2"' "$dir/out/q2_000000.vtu" ||
	fail "P2 VTU: $(grep -o 'NumberOfPoints="[0-9]*" NumberOfCells="[0-9]*"' "$dir/out/q2_000000.vtu")"
vals=$(sed -n '/<AppendedData/{n;p;}' "$dir/out/q2_000000.vtu" | sed 's/^[[:space:]]*_//' | cut -c13-68 |
       base64 -d | od -A n -t f8 -w8 | tr -s ' ' | tr '\n' ' ')
[ "$vals" = " 0  0.25  1  0.0625  0.5625 " ] || fail "P2 u at t = 0: $vals"
# a run that stops early ends its field series with the last step
# computed, as its CSV records (dyn(5), Records): the load is infinite at
# t = 0.75 (step 15), so both end at step 14 (the series stopped at 12)
cat > "$dir/early.dyn" <<'END'
mesh bar = interval(0, 1, cells = 4)
model wave {
  field u on bar : P1
  kinetic   integral(bar, 0.5*u'^2)
  potential integral(bar, 0.5*grad(u)^2)
  fix u on left
  force u on right: if t > 0.5 then 1/(t-0.75) else 0
  init u = x
}
let r = run wave with newmark from 0 to 1 step 0.05 {
  record field u to "early.pvd" every 4
  record t, u at (1) to "early.csv" every 4
}
END
"$DYN" -o "$dir/out" "$dir/early.dyn" > "$dir/early.out" 2>&1
rc=$?
[ $rc = 4 ] || fail "early.dyn: exit status $rc, expected 4: $(head -3 "$dir/early.out")"
last=$(sed -n 's/.*file="\([^"]*\)".*/\1/p' "$dir/out/early.pvd" | tail -n 1)
[ "$last" = early_000014.vtu ] || fail "early.pvd ends with $last, not early_000014.vtu"
[ -s "$dir/out/early_000014.vtu" ] || fail "early_000014.vtu is missing"
[ "$(tail -n 1 "$dir/out/early.csv" | cut -d, -f1)" = 0.7000000000000001 ] ||
	fail "early.csv ends with $(tail -n 1 "$dir/out/early.csv")"
exit $status
