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
# step 2/ω_max = 1/cos(π/20001) = 1 + 1.2e-8.  The estimate is Lanczos's
# largest Ritz value (runtime/la_eigmax.c), which approaches ω_max² from
# below (Courant–Fischer): the critical step it gives is at least the exact
# one.  The top of this spectrum is dense (its eigenvalues 1e-7 apart
# relatively), where the 500 power iterations used before stopped at
# 1.00075 and let a step 0.07 % above the limit start; Lanczos is within
# 1e-7 of it: a step 1e-7 above is refused before stepping, naming a
# critical step printed as 1 (the digits that tell it from the step), and
# one 1 % below runs.
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

chain 1.0000001 4.0000004 > "$dir/above.dyn"
timeout 300 "$DYN" "$dir/above.dyn" > "$dir/above.out" 2> "$dir/above.err"
st=$?
[ "$st" -eq 3 ] || fail "step 1.0000001: exit status $st, not 3: $(head -c 300 "$dir/above.err")"
tc=$(sed -n 's/.*error: step 1.0000001 exceeds the critical step 2\/omega_max = \([0-9.e+-]*\) of central_difference.*/\1/p' "$dir/above.err")
[ "$tc" = 1 ] || fail "step 1.0000001: critical step '$tc', not 1, in $(head -c 300 "$dir/above.err")"

chain 0.99 3.96 > "$dir/below.dyn"
timeout 300 "$DYN" "$dir/below.dyn" > "$dir/below.out" 2> "$dir/below.err"
st=$?
[ "$st" -eq 0 ] || fail "step 0.99: exit status $st: $(head -c 300 "$dir/below.err")"
exit $status
