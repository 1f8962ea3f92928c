#!/bin/sh
# loop_runs_memory.sh — what a loop's body defines is gone after each
# pass (dyn(5), for): so are the histories of the runs it made.  A sweep
# of six runs that each keep 48 MB of history (u, u' and u'' over 2·10⁶
# steps) kept all of them until the script ended (300 MB); it now runs
# within 180 MB of what dyn needs to start (the current run and the
# REPL's last one), with the same maxima.
# Where ulimit -v is not supported, or no limit lets dyn start (a
# sanitized build), the memory is not checked (the values still are).
set -u
: "${DYN:?DYN is not set}" "${srcdir:?srcdir is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB
LC_ALL=C
export LC_ALL
. "$srcdir/tests/shell/common.inc"
test_folder loop_runs_memory loop_runs_memory
cat > "$dir/sweep.dyn" <<'EOS'
model m {
  param k = 1
  dof u
  mass [1]
  stiffness [k]
  init u = 1
}
for i in 1..6 {
  let r = run m(k = i) with newmark from 0 to 2000 step 0.001
  print max(r.u), max(r.u'), max(r.u'')
}
EOS
printf 'print 1\n' > "$dir/start.dyn"
if ! start_limit "$dir/start.dyn" 30000 50000 100000 150000 200000 300000 400000; then
	echo "loop_runs_memory: NOTE: ulimit -v does not let dyn start: memory not checked"
	"$DYN" -o "$dir" "$dir/sweep.dyn" > "$dir/sweep.out" 2> "$dir/sweep.err"
else
	(ulimit -v $((limit + 180000)); exec timeout 120 "$DYN" -o "$dir" "$dir/sweep.dyn") > "$dir/sweep.out" \
		2> "$dir/sweep.err"
fi
st=$?
[ "$st" -eq 0 ] || fail "six runs: exit status $st (limit ${limit:-none} + 180000 KiB): $(head -c 300 "$dir/sweep.err")"
# u = cos(sqrt(k) t): max u = 1, max u' = sqrt(k), max u'' = k, each to
# the trapezoidal rule's phase error over 2000 s (1e-3 at most)
awk '{ k = NR; if (($1 - 1)^2 > 1e-12 || ($2 - sqrt(k))^2 > 1e-6 * k || ($3 - k)^2 > 1e-6 * k * k) bad = bad " " NR }
	END { if (NR != 6) bad = bad " rows " NR; exit bad != "" }' "$dir/sweep.out" ||
	fail "the maxima: $(cat "$dir/sweep.out")"

# A loop of 3·10⁵ passes of scalar work, a function and a nested loop
# defined in each: every pass left its scope, bindings and statements'
# programs in the session's arena (3.4 GB for this script); a pass that
# leaves nothing behind (no run kept, no mesh, no module) gives its memory
# back (lang/exec.c, pass_rewind).  It runs within 60 MB of what dyn
# needs to start, and every check still holds.
cat > "$dir/passes.dyn" <<'EOS'
for i in 1..300000 {
  let x = i*i
  let y = [x, 2*x]
  function f(a) = a + y[2]
  check f(1) == 1 + 2*i*i
  for j in 1..2 {
    let z = j + x
    check z - x == j
  }
}
print "done"
EOS
if [ -n "${limit:-}" ]; then
	(ulimit -v $((limit + 60000)); exec timeout 300 "$DYN" -o "$dir" "$dir/passes.dyn") > "$dir/passes.out" \
		2> "$dir/passes.err"
else
	timeout 300 "$DYN" -o "$dir" "$dir/passes.dyn" > "$dir/passes.out" 2> "$dir/passes.err"
fi
st=$?
[ "$st" -eq 0 ] || fail "3e5 passes: exit status $st (limit ${limit:-none} + 60000 KiB): $(head -c 300 "$dir/passes.err")"
[ "$(cat "$dir/passes.out")" = done ] || fail "3e5 passes printed: $(head -c 300 "$dir/passes.out")"
[ "$status" -eq 0 ] && echo "loop_runs_memory: ok"
exit "$status"
