#!/bin/sh
# kernel_large.sh — a sum is lowered once, as a kernel (dyn(5), "Sums"):
# a chain of 10^5 masses whose dissipation is a sum of 10^5 nonlinear
# terms lowers to one kernel over i = 1..100000, an IR of a few dozen lines
# whatever n (unrolled, it was a program of 10^6 instructions and took
# 3 s and 400 MB to lower; under the sanitizers, minutes).  It then runs
# under the midpoint rule: Newton's Jacobian is assembled on the sparse
# layer from the kernels' Hessian entries (runtime/jacobian.c), factored
# by banded Cholesky, and x[n] after 3 steps is that of a 200-mass chain
# to the last digit (as for the linear chain below: a mass's influence
# falls by about k tau^2 = 0.01 per mass in between).
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder kernel_large kernel_large

cat > "$dir/chain.dyn" <<'DYN'
param n = 100000, k = 1e4, c = 0.5, d = 2
model chain {
  dof x[n]
  kinetic     sum(i in 1..n) 0.5*x[i]'^2
  potential   0.5*k*x[1]^2 + sum(i in 1..n-1) 0.5*k*(x[i+1] - x[i])^2
  dissipation sum(i in 1..n) (0.5*c*x[i]'^2 + 0.25*d*x[i]'^4)
  force       x[n]: sin(10*t)
  init x[n] = 0.01
}
let r = run chain with midpoint from 0 to 3e-3 step 1e-3
# the midpoint rule closes the ledger for any dissipation (Newton's
# tolerance, 1e-13 relative, on an energy of 5e-5: measured 2e-16)
check maxabs(r.residual) == 0 within 1e-12
check r.dissipated(3e-3) > 0
print r.x[n](3e-3)
DYN

timeout 300 "$DYN" --dump-ir "$dir/chain.dyn" > "$dir/ir.out" 2> "$dir/ir.err"
st=$?
[ "$st" -eq 0 ] || fail "--dump-ir: exit status $st: $(head -c 300 "$dir/ir.err")"
lines=$(wc -l < "$dir/ir.out")
[ "$lines" -lt 200 ] || fail "the IR of a 10^5-term chain has $lines lines: the sums were unrolled"
sed -n '/^  dissipation:/,$p' "$dir/ir.out" | grep -q "^    kernel over i = 1..100000 " ||
	fail "no kernel over i = 1..100000 in the dissipation: $(grep -n kernel "$dir/ir.out" | head -c 300)"
sed -n '/^  potential:/,/^  dissipation:/p' "$dir/ir.out" | grep -q "^    kernel over i = 1..99999 " ||
	fail "no kernel over i = 1..99999 in the potential"
grep -q "^  mass: 100000 x 100000, 100000 entries stored (sparse)\$" "$dir/ir.out" ||
	fail "the mass is not 10^5 entries: $(grep mass: "$dir/ir.out")"
# with d = 0 every energy is quadratic: operators in triplets (4n - 3
# entries of K: 1 + 4 per spring), no n x n array
timeout 300 "$DYN" --dump-ir --set d=0 "$dir/chain.dyn" > "$dir/ir0.out" 2> "$dir/ir0.err"
grep -q "^  stiffness: 100000 x 100000, 399997 entries stored (sparse)\$" "$dir/ir0.out" ||
	fail "d = 0: stiffness: $(grep stiffness: "$dir/ir0.out") $(head -c 300 "$dir/ir0.err")"
grep -q "^  damping: 100000 x 100000, 100000 entries stored (sparse)\$" "$dir/ir0.out" ||
	fail "d = 0: damping: $(grep damping: "$dir/ir0.out")"
grep -q "^  bandwidth: kl = 1, ku = 1\$" "$dir/ir0.out" ||
	fail "d = 0: $(grep bandwidth: "$dir/ir0.out")"

timeout 300 "$DYN" -o "$dir" "$dir/chain.dyn" > "$dir/big.out" 2> "$dir/big.err"
st=$?
[ "$st" -eq 0 ] || fail "n = 10^5: exit status $st: $(head -c 300 "$dir/big.err")"

# d = 0: the folded operators (triplets) run on the sparse matrix layer.
# Newmark couples every mass through its step matrix, but a mass's
# influence falls by about k tau^2 = 0.01 per mass in between, so x[n]
# after 5 steps is that of a 200-mass chain to rounding (1e-14 relative
# leaves a factor 100 over the measured agreement, to the last digit).
cat > "$dir/linear.dyn" <<'DYN'
param n = 100000, k = 1e4, c = 0.5
model chain {
  dof x[n]
  kinetic     sum(i in 1..n) 0.5*x[i]'^2
  potential   0.5*k*x[1]^2 + sum(i in 1..n-1) 0.5*k*(x[i+1] - x[i])^2
  dissipation sum(i in 1..n) 0.5*c*x[i]'^2
  force       x[n]: sin(10*t)
}
let r = run chain with newmark from 0 to 5e-3 step 1e-3
check maxabs(r.residual) == 0 within 1e-20
check r.dissipated(5e-3) > 0
print r.x[n](5e-3)
DYN
timeout 300 "$DYN" -o "$dir" "$dir/linear.dyn" > "$dir/lin.out" 2> "$dir/lin.err"
st=$?
[ "$st" -eq 0 ] || fail "linear n = 10^5: exit status $st: $(head -c 300 "$dir/lin.err")"
timeout 300 "$DYN" -o "$dir" --set n=200 "$dir/linear.dyn" > "$dir/lin200.out" 2> "$dir/lin200.err"
awk -v a="$(cat "$dir/lin.out")" -v b="$(cat "$dir/lin200.out")" \
	'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(b != 0 && d <= 1e-14 * m) }' ||
	fail "linear: x[n] at n = 10^5 is '$(cat "$dir/lin.out")', at n = 200 '$(cat "$dir/lin200.out")'"

timeout 300 "$DYN" -o "$dir" --set n=200 "$dir/chain.dyn" > "$dir/small.out" 2> "$dir/small.err"
st=$?
[ "$st" -eq 0 ] || fail "n = 200: exit status $st: $(head -c 300 "$dir/small.err")"
# measured equal to the last digit; 1e-14 relative is Newton's tolerance
# (1e-13 of the forces) with the margin of its final extra step
awk -v a="$(cat "$dir/big.out")" -v b="$(cat "$dir/small.out")" \
	'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(b != 0 && d <= 1e-14 * m) }' ||
	fail "nonlinear: x[n] at n = 10^5 is '$(cat "$dir/big.out")', at n = 200 '$(cat "$dir/small.out")'"
[ "$status" -eq 0 ] && echo "kernel_large: ok"
exit "$status"
