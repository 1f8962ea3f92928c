#!/bin/sh
# scalar_operators.sh — `mass K` with a number K is K I (dyn(5), MODELS):
# beyond the dense operators (4000 dofs) its n diagonal entries, not an
# n × n array.  A model of 20000 uncoupled oscillators stated as
# `mass 1`, `stiffness 2` took 6.2 GB (two arrays of 3.2 GB); it now runs
# within 200 MB of what dyn needs to start, and each dof moves as the
# 30-dof model's (the same oscillator: to 1e-14).
# Where ulimit -v is not supported, or no limit lets dyn start, the
# memory is not checked (the values still are).
set -u
: "${DYN:?DYN is not set}" "${srcdir:?srcdir is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB
LC_ALL=C
export LC_ALL
. "$srcdir/tests/shell/common.inc"
test_folder scalar_operators scalar_operators
cat > "$dir/osc.dyn" <<'EOS'
param n = 20000
model m {
  dof u[n]
  mass 1
  stiffness 2
  init u = ones(n)
}
let r = run m with midpoint from 0 to 0.01 step 0.001
print r.u[5](0.01)
EOS
printf 'print 1\n' > "$dir/start.dyn"
if ! start_limit "$dir/start.dyn" 30000 50000 100000 150000 200000 300000 400000; then
	echo "scalar_operators: NOTE: ulimit -v does not let dyn start: memory not checked"
	"$DYN" -o "$dir" "$dir/osc.dyn" > "$dir/big.out" 2> "$dir/big.err"
else
	(ulimit -v $((limit + 200000)); exec timeout 120 "$DYN" -o "$dir" "$dir/osc.dyn") > "$dir/big.out" 2> "$dir/big.err"
fi
st=$?
[ "$st" -eq 0 ] || fail "20000 dofs: exit status $st (limit ${limit:-none} + 200000 KiB): $(head -c 300 "$dir/big.err")"
"$DYN" -o "$dir" --set n=30 "$dir/osc.dyn" > "$dir/small.out" 2> "$dir/small.err" ||
	fail "30 dofs: exit status $?: $(head -c 300 "$dir/small.err")"
awk -v a="$(cat "$dir/big.out")" -v b="$(cat "$dir/small.out")" 'BEGIN {
	d = a - b; if (d < 0) d = -d
	exit !(b > 0.99 && d <= 1e-14) }' ||
	fail "20000 dofs: u[5](0.01) = $(cat "$dir/big.out"), 30 dofs: $(cat "$dir/small.out")"
[ "$status" -eq 0 ] && echo "scalar_operators: ok"
exit "$status"
