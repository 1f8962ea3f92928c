#!/bin/sh
# long_line.sh — a diagnostic on a 10 MB line quotes a window of about 120
# columns around the caret, with "..." where the line is cut, instead of
# the whole line (which took 17 s, one write per byte on stderr).
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder long_line long_line
awk 'BEGIN { printf "let a = 1 + zz # "; for (i = 0; i < 160000; i++) printf "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx "; print "" }' > "$dir/long.dyn"
"$DYN" "$dir/long.dyn" > "$dir/long.out" 2> "$dir/long.err"
st=$?
[ "$st" -eq 3 ] || fail "exit status $st, expected 3"
size=$(wc -c < "$dir/long.err")
[ "$size" -lt 1000 ] || fail "the diagnostic is $size bytes long"
[ "$(sed -n 1p "$dir/long.err")" = "$dir/long.dyn:1:13: error: undefined name 'zz'" ] ||
	fail "unexpected message: $(head -c 200 "$dir/long.err")"
line=$(sed -n 2p "$dir/long.err")
case $line in
"let a = 1 + zz # xxx"*"...") ;;
*) fail "the quoted line is not a window ending in '...': $line" ;;
esac
[ ${#line} -le 130 ] || fail "the quoted line has ${#line} columns"
[ "$(sed -n 3p "$dir/long.err")" = "            ^~" ] || fail "the caret line is '$(sed -n 3p "$dir/long.err")'"
[ "$status" -eq 0 ] && echo "long_line: ok"
exit "$status"
