#!/bin/sh
# write_errors.sh — a record or a plot that cannot be written (here: a
# file beyond `ulimit -f`, which dyn gets as EFBIG rather than being
# killed by SIGXFSZ) stops the script with exit status 4 and a message
# naming the file and the reason (dyn(1), "OUTPUT FILES"):
#   - a record: at the step where the write failed, the file cut after
#     its last whole row and given its name, no temporary left; the
#     message names the step and time of that row;
#   - a plot: the old plot stays, no temporary left.
# The limit is 300 blocks of 512 bytes (150 KiB, the unit of POSIX sh's
# ulimit); the records are written in blocks of 64 KiB, so the failure
# comes at the third block.
#
# Environment (tests/run-tests): DYN the binary, srcdir the source tree,
# OUT a writable folder for outputs.
set -u
: "${DYN:?DYN is not set}" "${srcdir:?srcdir is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB DYN_HISTORY_BUDGET
LC_ALL=C
export LC_ALL

. "$srcdir/tests/shell/common.inc"
test_folder write_errors write_errors

cat > "$dir/long.dyn" <<'EOF'
model m {
  dof u
  mass [1]
  stiffness [1]
  init u = 1
}
let r = run m with trapezoidal from 0 to 1e5 step 0.1 {
  record t, u, u' to "a.csv"
}
print "not reached"
EOF
printf 'old\n' > "$dir/a.csv"
(cd "$dir" && ulimit -f 300 && "$DYN" long.dyn > long.out 2> long.err)
rc=$?
[ "$rc" -eq 4 ] || fail "record: exit status $rc, expected 4"
grep -q "^long.dyn:8:22: error: t = [0-9.]* (step [0-9]*): cannot write 'a.csv': File too large; it ends with the row of t = [0-9.]* (step [0-9]*)\$" "$dir/long.err" ||
	fail "record: message: $(head -1 "$dir/long.err")"
[ -s "$dir/long.out" ] && fail "record: the script went on after the write error"
size=$(wc -c < "$dir/a.csv")
[ "$size" -gt 65536 ] && [ "$size" -le 153600 ] || fail "record: a.csv has $size bytes"
[ "$(tail -c 1 "$dir/a.csv" | od -An -c | tr -d ' ')" = '\n' ] || fail "record: the last row of a.csv is cut"
bad=$(awk -F, 'NR == 1 && $0 != "t,u,u'"'"'" { print "header " $0; exit }
	NR > 1 && (NF != 3 || $1 !~ /^[0-9.]+$/) { print "line " NR ": " $0; exit }' "$dir/a.csv")
[ -z "$bad" ] || fail "record: a.csv: $bad"
# the message names the step where the write failed: the rows that are
# whole end before it
step=$(sed -n 's/.*t = [0-9.]* (step \([0-9]*\)): cannot.*/\1/p' "$dir/long.err")
rows=$(($(wc -l < "$dir/a.csv") - 1))
[ -n "$step" ] && [ "$rows" -le $((step + 1)) ] || fail "record: $rows rows, the write failed at step $step"
# and it names the row the file ends with (stdio found the failure when
# it flushed its buffer, some rows before that step): the last row's
# step and time
last=$(sed -n 's/.*it ends with the row of t = \([0-9.]*\) (step \([0-9]*\)).*/\2 \1/p' "$dir/long.err")
[ "${last%% *}" = $((rows - 1)) ] || fail "record: the file has $rows rows, the message says its last is of step ${last%% *}"
awk -F, -v t="${last#* }" 'END { d = $1 - t; if (d < 0) d = -d; exit !(d <= 1e-9 * (1 + t)) }' "$dir/a.csv" ||
	fail "record: the last row's t is $(tail -1 "$dir/a.csv" | cut -d, -f1), the message says ${last#* }"
no_temporary record a.csv

cat > "$dir/plot.dyn" <<'EOF'
model m {
  dof u
  mass [1]
  stiffness [1]
  init u = 1
}
let r = run m with trapezoidal from 0 to 100 step 0.01
plot r.u to "p.svg"
print "not reached"
EOF
printf 'old plot\n' > "$dir/p.svg"
(cd "$dir" && ulimit -f 8 && "$DYN" plot.dyn > plot.out 2> plot.err)
rc=$?
[ "$rc" -eq 4 ] || fail "plot: exit status $rc, expected 4"
[ "$(head -1 "$dir/plot.err")" = "plot.dyn:8:13: error: cannot write 'p.svg': File too large" ] ||
	fail "plot: message: $(head -1 "$dir/plot.err")"
[ "$(cat "$dir/p.svg")" = "old plot" ] || fail "plot: the old p.svg was replaced"
[ -s "$dir/plot.out" ] && fail "plot: the script went on after the write error"
no_temporary plot p.svg

exit $status
