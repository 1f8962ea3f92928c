#!/bin/sh
# central_difference_large.sh — the critical step of central differences
# on a nonlinear model of 10⁴ dofs, beyond the dense eigensolver (dyn(5),
# central_difference): power iterations on the Hessian's pattern with M
# factored once (runtime/omega.c).  Before, the run was refused whatever
# the step ("solves nonlinear models with dense matrices, limited to 4000
# unknowns").
#
# The chain at rest: a grounded first spring and unit springs between unit
# masses (the quartic terms vanish there), a free last mass; the small drive
# keeps the quartic terms 1e-6 of the springs' stiffness along the run.  The
# stiffness at rest K = tridiag(−1, 2, −1) with K_nn = 1 has the eigenvalues
# 4 sin²((2j−1)π/(2(2n+1))), so ω_max = 2 cos(π/(2n+1)) and the critical
# step 2/ω_max = 1/cos(π/20001) = 1 + 1.2e-8.  The power iteration's
# quotient approaches ω_max² from below (Courant–Fischer): the critical
# step it gives is at least the exact one, and after its 500 iterations
# within 1e-3 of it on this chain (measured 1.00075, the spectrum's top
# being dense); a step 1 % above is refused before stepping, one 1 %
# below runs.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder central_difference_large central_difference_large

chain() {
	cat <<DYN
model chain {
  dof x[10000]
  kinetic   sum(i in 1..10000) 0.5*x[i]'^2
  potential 0.5*x[1]^2 + sum(i in 1..9999) (0.5*(x[i+1] - x[i])^2 + 0.25*(x[i+1] - x[i])^4)
  force     x[1]: 1e-3*sin(t)
}
let r = run chain with central_difference from 0 to $2 step $1
DYN
}

chain 1.01 4.04 > "$dir/above.dyn"
timeout 300 "$DYN" "$dir/above.dyn" > "$dir/above.out" 2> "$dir/above.err"
st=$?
[ "$st" -eq 3 ] || fail "step 1.01: exit status $st, not 3: $(head -c 300 "$dir/above.err")"
tc=$(sed -n 's/.*error: step 1.01 exceeds the critical step 2\/omega_max = \([0-9.e+-]*\) of central_difference.*/\1/p' "$dir/above.err")
[ -n "$tc" ] || fail "step 1.01: no critical step in $(head -c 300 "$dir/above.err")"
if [ -n "$tc" ]; then
	awk -v tc="$tc" 'BEGIN { exit !(tc >= 1.0000000123 - 1e-9 && tc < 1.001) }' ||
		fail "critical step $tc: not within [1/cos(pi/20001), 1.001)"
fi

chain 0.99 3.96 > "$dir/below.dyn"
timeout 300 "$DYN" "$dir/below.dyn" > "$dir/below.out" 2> "$dir/below.err"
st=$?
[ "$st" -eq 0 ] || fail "step 0.99: exit status $st: $(head -c 300 "$dir/below.err")"
exit $status
