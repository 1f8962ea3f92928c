#!/bin/sh
# fe_show.sh — --dump-ir and :show of continuum bodies (dyn(5), MESHES
# AND FIELDS): each field's mesh, cells, nodes, element, unknowns and
# fixed dofs, and how the operators are stored with the distinct nonzeros
# of their pattern: in a run (--dump-ir), what that run uses (solver =
# auto: the matrix layer's choice from the pattern; another solver: that
# one), and for central_difference on a lumped mass without damping the
# diagonal step matrix (K is not factored); without a run (:show), what
# solver = auto picks.  Hand counts: the 20 × 10 plate of
# triangles has 231 nodes, 630 edges, 11 nodes held and 31 edges touching
# them; a component's pattern is 220 + 2·599 = 1418 entries, 2836 for
# P1^2 (its components do not couple here); the 100-cell bar 100 + 2·99
# = 298.  A plastic strain per cell lists its first rate-independent
# terms, then their number (it listed all 100).  A plastic strain per
# quadrature point (: Q) on a P2 bar shows its rule: the default degree 4,
# three Gauss points per cell, 3 × 10 internal variables.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder fe_show fe_show

cat > "$dir/fe.dyn" <<'DYN'
mesh bar = interval(0, 1, cells = 100)
model vep {
  field u on bar : P1
  internal p on bar : P0
  kinetic     integral(bar, 0.5*u'^2)
  potential   integral(bar, 0.5*(grad(u) - p)^2 + 0.5*0.1*p^2)
  dissipation integral(bar, 0.3*abs(p'))
  fix u on left
}
mesh plate = rectangle(0, 2, 0, 1, nx = 20, ny = 10)
model block {
  field u on plate : P1^2
  kinetic integral(plate, 0.5*dot(u', u'))
  potential integral(plate, 0.5*inner(grad(u), grad(u)))
  fix u on left
}
mesh ten = interval(0, 1, cells = 10)
model vq {
  field u on ten : P2
  internal q on ten : Q
  kinetic     integral(ten, 0.5*u'^2)
  potential   integral(ten, 0.5*(grad(u) - q)^2 + 0.5*0.1*q^2)
  dissipation integral(ten, 0.3*abs(q'))
  fix u on left
}
model explicit_block {
  field u on plate : P1^2
  kinetic lumped integral(plate, 0.5*dot(u', u'))
  potential integral(plate, 0.5*inner(grad(u), grad(u)))
  fix u on left
}
DYN
# --dump-ir shows the first run: one script per run
cp "$dir/fe.dyn" "$dir/sparse.dyn"
cp "$dir/fe.dyn" "$dir/diag.dyn"
echo 'let r = run block with newmark from 0 to 1 step 0.1' >> "$dir/fe.dyn"
echo 'let r = run block with newmark from 0 to 1 step 0.1, solver = sparse' >> "$dir/sparse.dyn"
echo 'let r = run explicit_block with central_difference from 0 to 0.01 step 0.001' >> "$dir/diag.dyn"

"$DYN" --dump-ir -o "$dir" "$dir/fe.dyn" > "$dir/ir.out" 2> "$dir/ir.err"
st=$?
[ "$st" -eq 0 ] || fail "--dump-ir: exit status $st: $(head -c 300 "$dir/ir.err")"
grep -q "^  field u on plate (400 triangle cells, 231 nodes): P1^2, 440 unknowns, 22 fixed\$" "$dir/ir.out" ||
	fail "--dump-ir: no field line: $(grep 'field' "$dir/ir.out")"
grep -q "^  storage (this run, solver = auto): sparse (compressed columns); 2836 nonzeros in the pattern of M, C and K\$" \
	"$dir/ir.out" || fail "--dump-ir: storage: $(grep 'storage' "$dir/ir.out")"
grep -q "^  step matrix" "$dir/ir.out" && fail "--dump-ir: newmark's step matrix said to be diagonal"
"$DYN" --dump-ir -o "$dir" "$dir/sparse.dyn" > "$dir/sparse.out" 2>&1
grep -q "^  storage (this run, solver = sparse): sparse (compressed columns; CHOLMOD, or UMFPACK when not symmetric positive definite); 2836 nonzeros in the pattern of M, C and K\$" \
	"$dir/sparse.out" || fail "--dump-ir: storage with solver = sparse: $(grep 'storage' "$dir/sparse.out")"
# the lumped mass is diagonal: the pattern is K's, which has no entry
# across the 190 free diagonal edges (each triangle's right angle faces
# its diagonal: cot 90° = 0), so 2·(220 + 2·409) = 2076
"$DYN" --dump-ir -o "$dir" "$dir/diag.dyn" > "$dir/diag.out" 2>&1
grep -q "^  storage (this run, solver = auto): sparse (compressed columns); 2076 nonzeros in the pattern of M, C and K\$" \
	"$dir/diag.out" || fail "--dump-ir: storage of the lumped run: $(grep 'storage' "$dir/diag.out")"
grep -q "^  step matrix: the diagonal mass (central_difference, lumped, undamped): K is not factored, a step divides by the diagonal\$" \
	"$dir/diag.out" || fail "--dump-ir: no diagonal step matrix: $(grep 'step matrix' "$dir/diag.out")"

printf ':show vep\n' | "$DYN" -q -o "$dir" -i "$dir/fe.dyn" > "$dir/show.out" 2> "$dir/show.err"
grep -q "^  field u on bar (100 interval cells, 101 nodes): P1, 100 unknowns, 1 fixed\$" "$dir/show.out" ||
	fail ":show: field: $(grep 'field' "$dir/show.out")"
grep -q "^  internal p on bar (100 interval cells, 101 nodes): P0, 100 internal variables, 0 fixed\$" \
	"$dir/show.out" || fail ":show: internal: $(grep 'internal' "$dir/show.out")"
grep -q "^  storage (what solver = auto picks): banded (a narrow band); 298 nonzeros in the pattern of M, C and K\$" \
	"$dir/show.out" || fail ":show: storage: $(grep 'storage' "$dir/show.out")"
n=$(grep -c "rate-independent: 0.003 |p" "$dir/show.out")
[ "$n" -eq 3 ] || fail ":show: $n rate-independent lines, expected 3"
grep -q "^  rate-independent: ... 100 terms in all\$" "$dir/show.out" || fail ":show: no count of the terms"
printf ':show vq\n' | "$DYN" -q -o "$dir" -i "$dir/fe.dyn" > "$dir/showq.out" 2> "$dir/showq.err"
grep -q "^  internal q on ten (10 interval cells, 11 nodes): Q (3 points per cell, degree 4), 30 internal variables, 0 fixed\$" \
	"$dir/showq.out" || fail ":show: internal : Q: $(grep 'internal' "$dir/showq.out")"
exit $status
