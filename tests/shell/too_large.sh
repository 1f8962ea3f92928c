#!/bin/sh
# too_large.sh — the syntax tree of one text has a budget (1 GiB, twice
# what 10^6 definitions take): a list of 7·10^6 numbers (14 MB, about
# 180 bytes of tree per element) is refused where it passes the budget,
# in bounded memory and time, rather than growing with the input (the
# timeout only guards against a hang: a sanitizer build under load is slow).
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder too_large too_large

awk 'BEGIN { printf "print 1"; for (i = 0; i < 7000000; i++) printf ",1"; print "" }' > "$dir/wide.dyn"
timeout 300 "$DYN" -c "$dir/wide.dyn" > "$dir/wide.out" 2> "$dir/wide.err"
st=$?
[ "$st" -eq 3 ] || fail "exit status $st, expected 3"
head -1 "$dir/wide.err" | grep -q "wide.dyn:1:[0-9]*: error: the program is too large: its syntax tree passes 1024 MiB here\$" ||
	fail "$(head -c 300 "$dir/wide.err")"
[ "$(wc -l < "$dir/wide.err")" -eq 3 ] || fail "more than one message: $(sed -n 4p "$dir/wide.err" | head -c 200)"
rm -f "$dir/wide.dyn"
[ "$status" -eq 0 ] && echo "too_large: ok"
exit "$status"
