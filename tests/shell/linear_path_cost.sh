#!/bin/sh
# linear_path_cost.sh — a linear model with a linear, moving constraint
# takes the linear path under midpoint, discrete_gradient,
# staggered_midpoint and central_difference (dyn(5), "How a step is
# solved"): one factorisation of the step's saddle point per step size,
# where Newton assembles and factors the dense Jacobian at every
# iteration.  The numbers are the same (tests/verify/
# linear_constraints_midpoint.dyn); what shows the path is the cost: the
# same chain made nonlinear by eps·x[2]⁴ with eps = 1e-300 (equations
# equal to the bit) runs by Newton.  Measured on 120 dofs and 500 steps:
# 0.02 s of CPU against 0.51 s for midpoint; the test asks for a factor 5,
# in CPU time of the two children, so that a loaded machine or a sanitizer
# build slows both alike.  solver = dense keeps Newton's Jacobian dense, as
# it was measured: on the sparse layer (banded Cholesky, the default beyond
# 64 unknowns) an iteration is O(n) and Newton is within a factor 5 of the
# linear path.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder linear_path_cost linear_path_cost

cat > "$dir/chain.dyn" <<'EOF'
param eps = 0
model chain {
  param n = 120, k = 1e8
  dof x[n]
  kinetic   sum(i in 1..n) 0.5*x[i]'^2
  potential 0.5*k*x[1]^2 + sum(i in 1..n-1) 0.5*k*(x[i+1] - x[i])^2 + eps*x[2]^4
  constraint x[1] == 0.01*sin(50*t)
  init x[1]' = 0.5
}
let a = run chain with SCHEME from 0 to 0.05 step STEP, solver = dense
print a.x[10](0.05)
EOF

# cpu FILE [ARG...]: the user + system CPU seconds of one run of dyn
cpu() {
	( "$DYN" "$@" > "$dir/run.out" 2> "$dir/run.err"; echo "rc $?" > "$dir/run.rc"; times ) |
		sed -n 2p | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += 60 * p[1] + p[2] }; print t }'
}

for scheme in midpoint discrete_gradient staggered_midpoint; do
	sed "s/SCHEME/$scheme/; s/STEP/1e-4/" "$dir/chain.dyn" > "$dir/$scheme.dyn"
	lin=$(cpu "$dir/$scheme.dyn")
	grep -q "^rc 0" "$dir/run.rc" || fail "$scheme, linear: $(cat "$dir/run.rc") $(head -c 300 "$dir/run.err")"
	xl=$(cat "$dir/run.out")
	newton=$(cpu --set eps=1e-300 "$dir/$scheme.dyn")
	grep -q "^rc 0" "$dir/run.rc" || fail "$scheme, Newton: $(cat "$dir/run.rc") $(head -c 300 "$dir/run.err")"
	xn=$(cat "$dir/run.out")
	awk -v a="$xl" -v b="$xn" 'BEGIN { d = a - b; exit !(d <= 1e-15 && d >= -1e-15) }' ||
		fail "$scheme: x[10](0.05) = $xl on the linear path, $xn by Newton"
	awk -v l="$lin" -v n="$newton" 'BEGIN { exit !(5 * l < n) }' ||
		fail "$scheme: $lin s of CPU, Newton $newton s: not the linear path"
done

# central_difference: Newton refuses constraints under an explicit scheme,
# so the linear path is the only one; a stiff chain at a step under its
# critical step 2/omega_max (1e-4 here) runs.
sed "s/SCHEME/central_difference/; s/STEP/5e-5/" "$dir/chain.dyn" > "$dir/central.dyn"
"$DYN" "$dir/central.dyn" > "$dir/run.out" 2> "$dir/run.err" ||
	fail "central_difference: exit $? $(head -c 300 "$dir/run.err")"
"$DYN" --set eps=1e-300 "$dir/central.dyn" > "$dir/run.out" 2> "$dir/run.err"
st=$?
[ "$st" -eq 3 ] || fail "central_difference by Newton: exit $st, expected 3"
grep -q "central_difference enforces constraints only when they are linear" "$dir/run.err" || fail "central_difference by Newton: $(head -c 300 "$dir/run.err")"

[ "$status" -eq 0 ] && echo "linear_path_cost: ok"
exit "$status"
