#!/bin/sh
# out_of_memory.sh — under a memory limit (ulimit -v), a script whose
# syntax tree needs more than the limit (10^6 lets take about 500 MiB) is
# a clean exit 3 with "dyn: out of memory while ..." naming what was being
# done, never abort() and a core dump (status 134).  A long line is
# refused by the nesting limit while it is parsed, in little memory, not
# after building a tree of gigabytes (10^7 terms took 3 GB).
#
# The limit is the smallest of a few that lets dyn start and print; where
# ulimit -v is not supported, or no limit lets dyn start (a sanitizer
# build reserves terabytes of address space), the test passes with a note.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder out_of_memory out_of_memory

echo 'print 1' > "$dir/one.dyn"
if ! start_limit "$dir/one.dyn" 200000 300000 400000; then
	echo "out_of_memory: NOTE: dyn does not start under ulimit -v 400000 (or ulimit -v is not supported): skipped"
	exit 0
fi
echo "out_of_memory: limit $limit KiB"

# 10^6 definitions: about 500 MiB of syntax tree, more than the limit
awk 'BEGIN { for (i = 1; i <= 1000000; i++) printf "let a%d = %d\n", i, i }' > "$dir/lets.dyn"
for opt in -c -q; do
	(ulimit -v "$limit"; exec timeout 60 "$DYN" $opt "$dir/lets.dyn") > "$dir/lets.out" 2> "$dir/lets.err"
	st=$?
	[ "$st" -eq 3 ] || fail "lets $opt: exit status $st, expected 3"
	grep -Eq "^dyn: out of memory while (reading|parsing) $dir/lets.dyn\$" "$dir/lets.err" ||
		fail "lets $opt: $(head -c 300 "$dir/lets.err")"
done

# a sum of 10^7 terms on one line (20 MB): refused at its 5001st term
awk 'BEGIN { printf "print 1"; for (i = 0; i < 10000000; i++) printf "+1"; print "" }' > "$dir/long.dyn"
(ulimit -v "$limit"; exec timeout 60 "$DYN" "$dir/long.dyn") > "$dir/long.out" 2> "$dir/long.err"
st=$?
[ "$st" -eq 3 ] || fail "long: exit status $st, expected 3"
head -1 "$dir/long.err" | grep -q "long.dyn:1:10008: error: expression nested too deeply (more than 5000 levels): use sum(i in a..b) for long sums\$" ||
	fail "long: $(head -c 300 "$dir/long.err")"
rm -f "$dir/lets.dyn" "$dir/long.dyn"
[ "$status" -eq 0 ] && echo "out_of_memory: ok"
exit "$status"
