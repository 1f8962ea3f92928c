#!/bin/sh
# sparse_chain.sh — a linear chain of 10⁵ dofs whose operators come from
# Matrix Market files (dyn(1), SOLVERS): no n×n array anywhere, so it
# runs in seconds; the backends of the matrix layer agree on it; dense
# storage is refused for its memory, before stepping.
#
# The chain: M = I, K = k·tridiag(−1, 2, −1) with a free last end,
# k = 1e4, started by a unit velocity of the first mass.  Its largest
# frequency is ω_max = 2√k cos(π/(2(2n+1))) = 200 to 10 digits, so the
# critical step of central differences is 2/ω_max = 0.01.
#
# Environment (tests/run-tests): DYN the binary, srcdir the source tree,
# OUT a writable folder for outputs.
set -u
: "${DYN:?DYN is not set}" "${srcdir:?srcdir is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB
LC_ALL=C
export LC_ALL

. "$srcdir/tests/shell/common.inc"
test_folder sparse_chain sparse_chain
dyn=$(cd "$(dirname "$DYN")" && pwd)/$(basename "$DYN")
n=100000

awk -v n=$n 'BEGIN { print "%%MatrixMarket matrix coordinate real symmetric"; print n, n, n
	for (i = 1; i <= n; i++) print i, i, 1 }' > "$dir/M.mtx"
awk -v n=$n 'BEGIN { print "%%MatrixMarket matrix coordinate real symmetric"; print n, n, 2 * n - 1
	for (i = 1; i <= n; i++) { print i, i, (i == n ? 1e4 : 2e4); if (i < n) print i + 1, i, -1e4 } }' > "$dir/K.mtx"

# newmark (trapezoidal) conserves T + Φ for this undamped, unloaded model:
# the ledger's residual is rounding only, sums of 10⁵ terms of an energy
# of 0.5 (1e-16 × √n × 0.5 ≈ 2e-14); 1e-12 bounds it.  The banded
# (dpttrf, chosen by auto), CHOLMOD (solver = sparse) and UMFPACK
# (chung_hulbert under sparse) solves agree to 1e-12 of the response;
# central differences are newmark(0, 1/2) step for step.
cat > "$dir/chain.dyn" <<EOF
model chain {
  dof x[$n]
  mass mtx("M.mtx")
  stiffness mtx("K.mtx")
  init x[1]' = 1
}
let a = run chain with newmark(beta = 1/4, gamma = 1/2) from 0 to 0.005 step 1e-3
let s = run chain with newmark(beta = 1/4, gamma = 1/2) from 0 to 0.005 step 1e-3, solver = sparse
let ga = run chain with chung_hulbert(0.8) from 0 to 0.005 step 1e-3
let gs = run chain with chung_hulbert(0.8) from 0 to 0.005 step 1e-3, solver = sparse
let c = run chain with central_difference from 0 to 0.005 step 1e-3
let e = run chain with newmark(beta = 0, gamma = 1/2) from 0 to 0.005 step 1e-3
check maxabs(a.residual) <= 1e-12
check a.x[1](0.005) > 1e-3
check abs(s.x[1](0.005) - a.x[1](0.005)) <= 1e-12 * a.x[1](0.005)
check abs(s.x[3](0.005) - a.x[3](0.005)) <= 1e-12 * a.x[1](0.005)
check abs(gs.x[1](0.005) - ga.x[1](0.005)) <= 1e-12 * ga.x[1](0.005)
check abs(c.x[1](0.005) - e.x[1](0.005)) <= 1e-12 * e.x[1](0.005)
EOF
(cd "$dir" && "$dyn" chain.dyn > chain.out 2> chain.err)
st=$?
[ "$st" = 0 ] || fail "chain: exit $st: $(head -n 3 "$dir/chain.err")"

# The critical step of central differences, from power iterations at this
# size (runtime/scheme_central_difference.c): 0.0101 is refused, naming ω_max = 200.
cat > "$dir/critical.dyn" <<EOF
model chain {
  dof x[$n]
  mass mtx("M.mtx")
  stiffness mtx("K.mtx")
}
let c = run chain with central_difference from 0 to 0.0202 step 0.0101
EOF
(cd "$dir" && "$dyn" critical.dyn > critical.out 2> critical.err)
st=$?
got=$(head -n 1 "$dir/critical.err")
want="critical.dyn:6:65: error: step 0.0101 exceeds the critical step 2/omega_max = 0.01 of central_difference (omega_max = 200 rad/s): take a step below 0.01 or an implicit scheme"
[ "$st" = 3 ] && [ "$got" = "$want" ] || fail "critical: exit $st, got
  $got
expected
  $want"

# Dense storage of 10⁵ × 10⁵ doubles is 80 GB a matrix: refused.
cat > "$dir/dense.dyn" <<EOF
model chain {
  dof x[$n]
  mass mtx("M.mtx")
  stiffness mtx("K.mtx")
}
let r = run chain with newmark(beta = 1/4, gamma = 1/2) from 0 to 0.005 step 1e-3, solver = dense
EOF
(cd "$dir" && "$dyn" dense.dyn > dense.out 2> dense.err)
st=$?
got=$(head -n 1 "$dir/dense.err")
want="dense.dyn:1:7: error: model chain has 100000 dofs: solver = dense would hold 80 GB per matrix; use solver = banded, sparse or auto"
[ "$st" = 3 ] && [ "$got" = "$want" ] || fail "dense: exit $st, got
  $got
expected
  $want"

exit $status
