#!/bin/sh
# fe_sparse.sh — the operators of a model on a mesh are sparse at any size
# (dyn(5), MESHES AND FIELDS): a 3162-dof plane-strain plate (50 × 30
# squares of P1^2 triangles, clamped on its left edge, a traction on its
# right edge), 10 newmark steps.
#
#   - Its mass and stiffness are never n×n arrays: the run fits in the
#     address space of a one-dof run plus 60 MB, where two dense 3162²
#     operators alone take 160 MB (before, FE operators were dense below
#     4000 dofs: 241 MB peak against 20 MB now).
#   - The tip's deflection is the one of solver = dense (LAPACK's dense
#     Cholesky on the same operators) to 1e-12 relative: only the order
#     of the floating-point sums differs (measured 2e-16).
# Where ulimit -v is not supported, or no limit lets dyn start (a
# sanitizer build reserves terabytes of address space), the memory part
# is skipped with a note.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB DYN_HISTORY_BUDGET
LC_ALL=C
export LC_ALL
. "$srcdir/tests/shell/common.inc"
test_folder fe_sparse fe_sparse

plate() {  # RUN-OPTIONS
	cat <<EOS
param E = 1000, nu = 0.3, rho = 1
let mu = E/(2*(1 + nu)), lam = E*nu/((1 + nu)*(1 - 2*nu))
mesh plate = rectangle(0, 2, 0, 1, nx = 50, ny = 30)
model block {
  field u on plate : P1^2
  kinetic   integral(plate, 0.5*rho*dot(u', u'))
  potential integral(plate, 0.5*lam*tr(eps(u))^2 + mu*inner(eps(u), eps(u)))
  fix u on left
  force u on right: [0, -1e-2*sin(100*t)]
}
let r = run block with newmark from 0 to 0.01 step 1e-3$1 { record t, tip = u at (2, 0.5) }
print r.tip_y(0.01)
EOS
}
plate '' > "$dir/sparse.dyn"
plate ', solver = dense' > "$dir/dense.dyn"
# The baseline is a run that calls LAPACK (a dense Cholesky), so that it
# holds what the BLAS reserves at its first call: OpenBLAS maps buffers
# of about 100 MB there, the reference BLAS none (under a limit that
# leaves no room for them OpenBLAS hangs rather than fails).
cat > "$dir/short.dyn" <<'EOS'
model s {
  dof u[3]
  mass [1, 0, 0; 0, 1, 0; 0, 0, 1]
  stiffness [2, -1, 0; -1, 2, -1; 0, -1, 2]
  init u = [1, 0, 0]
}
let r = run s with newmark from 0 to 0.1 step 0.05, solver = dense
print 1
EOS

if ! start_limit "$dir/short.dyn" 30000 50000 100000 150000 200000 300000 400000; then
	echo "fe_sparse: NOTE: dyn does not run under ulimit -v 400000 (or ulimit -v is not supported): memory not checked"
	"$DYN" -o "$dir" "$dir/sparse.dyn" > "$dir/sparse.out" 2> "$dir/sparse.err"
else
	(ulimit -v $((limit + 60000)); exec timeout 120 "$DYN" -o "$dir" "$dir/sparse.dyn") \
		> "$dir/sparse.out" 2> "$dir/sparse.err"
fi
st=$?
[ "$st" -eq 0 ] || fail "sparse: exit status $st (limit ${limit:-none} + 60000 KiB): $(head -c 300 "$dir/sparse.err")"
"$DYN" -o "$dir" "$dir/dense.dyn" > "$dir/dense.out" 2> "$dir/dense.err" ||
	fail "dense: exit status $?: $(head -c 300 "$dir/dense.err")"
awk -v a="$(cat "$dir/sparse.out")" -v b="$(cat "$dir/dense.out")" 'BEGIN {
	d = a - b; if (d < 0) d = -d
	s = b < 0 ? -b : b
	exit !(s > 1e-9 && d <= 1e-12 * s) }' ||
	fail "tip deflection: sparse $(cat "$dir/sparse.out"), dense $(cat "$dir/dense.out"): not within 1e-12 relative"
[ "$status" -eq 0 ] && echo "fe_sparse: ok (tip $(cat "$dir/sparse.out"), dense $(cat "$dir/dense.out"))"
exit $status
