#!/bin/sh
# lean_history.sh — a run keeps the histories the script reads back and
# nothing else (dyn(5), "Results"): its memory does not grow with the
# number of steps unless the script asks for a history.
#
# One dof, 10^6 steps.  Keeping every series at every step, as dyn did,
# takes 8 bytes x (10^6 + 1) x 9 series (t; u, u', u''; the five energies)
# = 72 MB.  The limit is the smallest of a few that lets a 10^3-step run
# of the same script finish, plus 20 MB: the 10^6-step run must fit in it
# when it reads nothing back (its record is streamed to the file), and in
# 36 MB more when it reads maxabs(r.residual), which keeps t and the
# residual (2 series, 16 MB).  Where ulimit -v is not supported, or no
# limit lets dyn start (a sanitizer build reserves terabytes of address
# space), the test passes with a note.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder lean_history lean_history

script() {  # STEPS READ: the model, a run of STEPS steps, then READ
	cat <<EOS
model m {
  dof u
  mass [1]
  stiffness [1]
  init u = 1
}
let r = run m with newmark from 0 to $1 step 1e-3 {
  record t, u to "lean.csv" every 1000
}
$2
EOS
}
script 1 'print 1' > "$dir/short.dyn"
if ! start_limit "$dir/short.dyn" 30000 50000 100000 200000 400000; then
	echo "lean_history: NOTE: dyn does not run under ulimit -v 400000 (or ulimit -v is not supported): skipped"
	exit 0
fi
echo "lean_history: limit $limit KiB"

# nothing read back: 72 MB of histories would exceed limit + 20 MB
script 1000 'print 1' > "$dir/none.dyn"
(ulimit -v $((limit + 20000)); exec timeout 120 "$DYN" -o "$dir" "$dir/none.dyn") > "$dir/none.out" 2> "$dir/none.err"
st=$?
[ "$st" -eq 0 ] || fail "none: exit status $st: $(head -c 300 "$dir/none.err")"
[ "$(cat "$dir/none.out")" = 1 ] || fail "none: stdout $(head -c 100 "$dir/none.out")"
# 1001 rows (every 1000th step from 0 to 10^6) and the header
[ "$(wc -l < "$dir/lean.csv")" -eq 1002 ] || fail "none: lean.csv has $(wc -l < "$dir/lean.csv") lines, not 1002"

# the residual read back: t and the residual kept (16 MB), not 72 MB
script 1000 'check maxabs(r.residual) < 1e-9' > "$dir/residual.dyn"
(ulimit -v $((limit + 36000)); exec timeout 120 "$DYN" -o "$dir" "$dir/residual.dyn") > "$dir/residual.out" 2> "$dir/residual.err"
st=$?
[ "$st" -eq 0 ] || fail "residual: exit status $st: $(head -c 300 "$dir/residual.err")"
[ "$status" -eq 0 ] && echo "lean_history: ok"
exit "$status"
