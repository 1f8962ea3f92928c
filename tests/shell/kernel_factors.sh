#!/bin/sh
# kernel_factors.sh — sums under constant factors are kernels (dyn(5),
# "Sums"): a chain of 10^5 masses written 0.5*k*(x[1]^2 + sum(...)),
# 0.5*sum(...) and c*sum(...)/2 lowers to one kernel per sum, an IR of a
# few dozen lines whatever n (before, a factor outside a sum unrolled it
# into 10^5 copies of its body).  The numbers are checked against
# written-out terms by tests/verify/kernel_factors.dyn.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder kernel_factors kernel_factors

cat > "$dir/chain.dyn" <<'DYN'
param n = 100000, k = 1e4, b = 2, c = 0.5
model chain {
  dof x[n]
  kinetic     0.5*sum(i in 1..n) x[i]'^2
  potential   0.5*k*(x[1]^2 + sum(i in 1..n-1) (x[i+1] - x[i])^2) + b*sum(i in 1..n-1) (x[i+1] - x[i])^4/4
  dissipation c*sum(i in 1..n) x[i]'^2/2
  force       x[n]: sin(10*t)
}
let r = run chain with midpoint from 0 to 1e-3 step 1e-3
DYN

timeout 300 "$DYN" --dump-ir "$dir/chain.dyn" > "$dir/ir.out" 2> "$dir/ir.err"
st=$?
[ "$st" -eq 0 ] || fail "--dump-ir: exit status $st: $(head -c 300 "$dir/ir.err")"
lines=$(wc -l < "$dir/ir.out")
[ "$lines" -lt 200 ] || fail "the IR of a 10^5-term chain has $lines lines: a sum was unrolled"
nk=$(grep -c "^    kernel over i = 1..99999 " "$dir/ir.out")
[ "$nk" -eq 2 ] || fail "$nk kernels over i = 1..99999 in the potential, expected 2"
sed -n '/^  dissipation:/,$p' "$dir/ir.out" | grep -q "^    kernel over i = 1..100000 " ||
	fail "no kernel over i = 1..100000 in the dissipation"
grep -q "^  mass: 100000 x 100000, 100000 entries stored (sparse)\$" "$dir/ir.out" ||
	fail "the mass is not 10^5 entries: $(grep mass: "$dir/ir.out")"
exit $status
