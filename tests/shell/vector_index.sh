#!/bin/sh
# vector_index.sh — v[i] and A[i, j] of a named vector or matrix of
# constants read one entry (lang/eval.c, eval_index and eval_entry).
# The name alone gives every entry as a register of the expression's
# program, and v[i] once evaluated the name: sum(i in 1..n) v[i] built n
# vectors of n, quadratic in time and memory (2.6 s and 436 MB at
# n = 10^4, about 40 GB at 10^5), though dyn(5) gives that form for the
# sum of a slice of a history.  At n = 10^5, within 60 MB of what dyn
# needs to start, the sums are exact (whole numbers: each partial sum is
# exact in a double).
# Where ulimit -v is not supported, or no limit lets dyn start (a
# sanitized build), the memory is not checked (the values still are).
set -u
: "${DYN:?DYN is not set}" "${srcdir:?srcdir is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB
LC_ALL=C
export LC_ALL
. "$srcdir/tests/shell/common.inc"
test_folder vector_index vector_index
cat > "$dir/sums.dyn" <<'EOS'
param n = 100000
function sq(i) = i*i
let v = vector(n, sq)
let w = ones(n)
print sum(i in 1..n) v[i], sum(i in 1..n) w[i]
# a function reading the vector, a matrix entry
function g(k) = v[k]
let A = [1, 2; 3, 4]
print sum(i in 1..1000) g(i), sum(i in 1..2) A[i, i], A[2, 1]
EOS
printf 'print 1\n' > "$dir/start.dyn"
if ! start_limit "$dir/start.dyn" 30000 50000 100000 150000 200000 300000 400000; then
	echo "vector_index: NOTE: ulimit -v does not let dyn start: memory not checked"
	timeout 120 "$DYN" -o "$dir" "$dir/sums.dyn" > "$dir/sums.out" 2> "$dir/sums.err"
else
	(ulimit -v $((limit + 60000)); exec timeout 120 "$DYN" -o "$dir" "$dir/sums.dyn") > "$dir/sums.out" \
		2> "$dir/sums.err"
fi
st=$?
[ "$st" -eq 0 ] || fail "exit status $st (limit ${limit:-none} + 60000 KiB): $(head -c 300 "$dir/sums.err")"
# sum of i^2 for i = 1..10^5 = n(n+1)(2n+1)/6 = 333338333350000; of
# 1..1000, 333833500; the diagonal 1 + 4
want="333338333350000 100000
333833500 5 3"
[ "$(cat "$dir/sums.out")" = "$want" ] || fail "the sums: $(head -c 300 "$dir/sums.out")"
exit $status
