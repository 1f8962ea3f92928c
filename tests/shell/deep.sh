#!/bin/sh
# deep.sh — long flat expressions nest as deep as they are long: up to the
# documented limit they evaluate, beyond it they are an error, never a
# stack overflow.
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
echo "deep: ok"
