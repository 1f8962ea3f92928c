#!/bin/sh
# kernel_data.sh — a vector of constants read at an index affine in a
# sum's i is per-instance data of the kernel (dyn(5), "Sums"; struct
# ir_kernel's data): a chain of 10^5 masses with a stiffness and a β per
# spring read from vectors lowers to one kernel over i = 1..99999 carrying
# 2 numbers per instance, an IR of a few dozen lines whatever n (before,
# kv[i] made the sum unroll into 10^5 copies of its body).  The numbers
# are checked against written-out terms by tests/verify/kernel_data.dyn.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder kernel_data kernel_data

cat > "$dir/chain.dyn" <<'DYN'
param n = 100000
function kf(i) = 1e4 + i
function bf(i) = 1 + i/n
let kv = vector(n, kf)
let bv = vector(n, bf)
model chain {
  dof x[n]
  kinetic   sum(i in 1..n) 0.5*x[i]'^2
  potential 0.5*kv[1]*x[1]^2 +
            sum(i in 1..n-1) (0.5*kv[i+1]*(x[i+1] - x[i])^2 + 0.25*bv[i]*(x[i+1] - x[i])^4)
  force     x[n]: sin(10*t)
}
let r = run chain with midpoint from 0 to 1e-3 step 1e-3
DYN

timeout 300 "$DYN" --dump-ir "$dir/chain.dyn" > "$dir/ir.out" 2> "$dir/ir.err"
st=$?
[ "$st" -eq 0 ] || fail "--dump-ir: exit status $st: $(head -c 300 "$dir/ir.err")"
lines=$(wc -l < "$dir/ir.out")
[ "$lines" -lt 200 ] || fail "the IR of a 10^5-term chain has $lines lines: the sum was unrolled"
grep -q "^    kernel over i = 1..99999 .*; 2 data per instance;" "$dir/ir.out" ||
	fail "no kernel over i = 1..99999 with 2 data per instance: $(grep -n kernel "$dir/ir.out" | head -c 300)"
grep -q "data\[1\]" "$dir/ir.out" || fail "the kernel's program reads no data[1]"
exit $status
