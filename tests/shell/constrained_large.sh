#!/bin/sh
# constrained_large.sh — a linear chain of 10^5 masses with linear
# constraints (its first mass driven as 0.01 sin(50 t), its last held)
# runs on the linear path with no n × n array (dyn(5), "How a step is
# solved"): B is kept as triplets, the step's saddle point [S wBᵀ; B 0]
# and the initial acceleration's [M Bᵀ; B 0] are factored by UMFPACK in
# compressed columns.  Before, the initial acceleration's dense (n + nc)²
# system (80 GB here) made the run fail with "out of memory".
#
# The reference is the same chain with 40 masses, whose systems are all
# dense (n + nc <= 64: LAPACK): a mass's influence falls by about
# k tau^2 = 0.01 per mass in between, so after 5 steps the masses next to
# the driven end cannot tell 40 from 10^5 masses (0.01^35 of the
# amplitudes); the two must agree to rounding, 1e-12 relative.  The
# initial multiplier has a hand value: at t = 0 the driven mass has
# x1 = 0, x1'' = 0 (G'' = 0) and the spring pulls it by k (x2 − x1) =
# 1e4 · 1e-3 = 10, which the constraint force balances.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder constrained_large constrained_large

cat > "$dir/chain.dyn" <<'DYN'
param n = 100000, k = 1e4
model chain {
  dof x[n]
  kinetic     sum(i in 1..n) 0.5*x[i]'^2
  potential   0.5*k*x[1]^2 + sum(i in 1..n-1) 0.5*k*(x[i+1] - x[i])^2
  force       x[3]: sin(20*t)
  constraint  x[1] == 0.01*sin(50*t)
  constraint  x[n] == 0
  init x[1]' = 0.5, x[2] = 0.001
}
let a = run chain with newmark(beta = 0.3025, gamma = 0.6) from 0 to 5e-3 step 1e-3
let b = run chain with midpoint from 0 to 5e-3 step 1e-3
check a.lambda[1](0) == 10 within 1e-12 relative
check b.lambda[1](0) == 10 within 1e-12 relative
# the midpoint rule closes the ledger with the moving constraint's work
check maxabs(b.residual) == 0 within 1e-12
print a.x[2](5e-3), a.x[4](5e-3), a.lambda[1](5e-3), b.x[2](5e-3), b.x[4](5e-3), b.lambda[1](5e-3)
DYN

timeout 300 "$DYN" -o "$dir" "$dir/chain.dyn" > "$dir/big.out" 2> "$dir/big.err"
st=$?
[ "$st" -eq 0 ] || fail "n = 10^5: exit status $st: $(head -c 300 "$dir/big.err")"
timeout 300 "$DYN" -o "$dir" --set n=40 "$dir/chain.dyn" > "$dir/small.out" 2> "$dir/small.err"
st=$?
[ "$st" -eq 0 ] || fail "n = 40: exit status $st: $(head -c 300 "$dir/small.err")"
set -- $(cat "$dir/big.out")
big="$*"
set -- $(cat "$dir/small.out")
small="$*"
[ "$(echo "$big" | wc -w)" -eq 6 ] || fail "n = 10^5 printed '$big'"
awk -v a="$big" -v b="$small" 'BEGIN {
	na = split(a, x, " "); nb = split(b, y, " ")
	if (na != 6 || nb != 6) exit 1
	for (k = 1; k <= 6; k++) {
		d = x[k] - y[k]; if (d < 0) d = -d
		m = y[k] < 0 ? -y[k] : y[k]
		if (!(m > 0 && d <= 1e-12 * m)) exit 1
	}
}' || fail "n = 10^5 gives '$big', n = 40 '$small'"
[ "$status" -eq 0 ] && echo "constrained_large: ok"
exit "$status"
