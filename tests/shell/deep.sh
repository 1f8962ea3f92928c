#!/bin/sh
# deep.sh — long flat expressions nest as deep as they are long: up to the
# documented limit they evaluate, beyond it they are an error, never a
# stack overflow, and the error is the documented one.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
dir=$OUT/deep
mkdir -p "$dir"
awk 'BEGIN { printf "print 1"; for (i = 0; i < 4000; i++) printf "+1"; print "" }' > "$dir/ok.dyn"
out=$("$DYN" "$dir/ok.dyn" 2>&1)
[ "$out" = 4001 ] || { echo "deep: 4001 terms printed '$out'"; exit 1; }
awk 'BEGIN { printf "print 1"; for (i = 0; i < 30000; i++) printf "+1"; print "" }' > "$dir/deep.dyn"
"$DYN" "$dir/deep.dyn" > "$dir/deep.out" 2> "$dir/deep.err"
st=$?
[ "$st" -eq 3 ] || { echo "deep: exit status $st, expected 3"; exit 1; }
grep -q "deep.dyn:1:[0-9]*: error: expression nested too deeply (more than 5000 levels)" "$dir/deep.err" ||
	{ echo "deep: unexpected message"; head -c 300 "$dir/deep.err"; exit 1; }
# a right-associative chain a^b^c... takes two parser stack entries a
# level: 5000 levels evaluate, 5001 are the documented error (bison's own
# "memory exhausted" came first, at 4997)
awk 'BEGIN { printf "print 1"; for (i = 0; i < 5000; i++) printf "^1"; print "" }' > "$dir/pow.dyn"
out=$("$DYN" "$dir/pow.dyn" 2>&1)
[ "$out" = 1 ] || { echo "deep: 5000 powers printed '$(echo "$out" | head -c 200)'"; exit 1; }
awk 'BEGIN { printf "print 1"; for (i = 0; i < 5001; i++) printf "^1"; print "" }' > "$dir/pow2.dyn"
"$DYN" "$dir/pow2.dyn" > "$dir/pow2.out" 2> "$dir/pow2.err"
st=$?
[ "$st" -eq 3 ] && grep -q "pow2.dyn:1:[0-9]*: error: expression nested too deeply (more than 5000 levels)" \
	"$dir/pow2.err" || { echo "deep: 5001 powers: exit $st, $(head -c 300 "$dir/pow2.err")"; exit 1; }
echo "deep: ok"
