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

# Run $dir/NAME.dyn within 60 MB of what dyn needs to start (when ulimit
# lets dyn start at all); it must print "done".  LABEL names it.
run_done() {  # NAME LABEL
	if [ -n "${limit:-}" ]; then
		(ulimit -v $((limit + 60000)); exec timeout 300 "$DYN" -o "$dir" "$dir/$1.dyn") > "$dir/$1.out" \
			2> "$dir/$1.err"
	else
		timeout 300 "$DYN" -o "$dir" "$dir/$1.dyn" > "$dir/$1.out" 2> "$dir/$1.err"
	fi
	st=$?
	[ "$st" -eq 0 ] || fail "$2: exit status $st (limit ${limit:-none} + 60000 KiB): $(head -c 300 "$dir/$1.err")"
	[ "$(cat "$dir/$1.out")" = done ] || fail "$2 printed: $(head -c 300 "$dir/$1.out")"
}

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
run_done passes "3e5 passes"
# Runs and modes of a continuum body in a loop: each pass made the
# field's finite-element space again and kept the lowering of its run
# (43 KB a pass on this 20-cell bar: 430 MB for the loop below, and a
# walk of the arena's chunks that grew with them made the loop
# quadratic).  The space is now the session's, made once per mesh and
# element (lang/fe.c), and outside the REPL a pass's run goes with it
# (lang/exec.c): 10^4 passes of each run within 60 MB of what dyn needs
# to start.  The fundamental of the held-free bar, ω₁ = (π/2)√E, to the
# P1 mesh's dispersion error ((πh)²/48 relative, 5e-4 at h = 1/20).
cat > "$dir/fields.dyn" <<'EOS'
mesh bar = interval(0, 1, cells = 20)
model wave {
  param E = 1
  field u on bar : P1
  kinetic   integral(bar, 0.5*u'^2)
  potential integral(bar, 0.5*E*grad(u)^2)
  fix u on left
  init u = x
}
for i in 1..10000 {
  let r = run wave(E = i) with newmark from 0 to 0.01 step 0.01 { record u at (1), energy }
  check abs(r.stored(0) - 0.5*i) < 1e-12*i        # Φ(u = x) = E/2
  let w = modes(wave(E = i), 1)
  check abs(w.omega[1] - sqrt(i)*pi/2) < 1e-3*sqrt(i)
}
print "done"
EOS
run_done fields "10^4 field runs"
# A sum of numbers at the script's level: every term's constants stayed
# in the statement's program (1.6 GB for 10^7 terms); the partial sum is
# now a double and each term's instructions are given back (lang/eval.c,
# eval_sum).  2·10^6 terms within 60 MB of what dyn needs to start, and
# the sums: n exactly, and sum 1/i^2 = pi^2/6 - 1/n + 1/(2n^2) - ...
# (1.3e-13 from pi^2/6 - 1/n at n = 2·10^6), the rounding of the 2·10^6
# additions in order (the same on every machine) inside 1e-12.
cat > "$dir/sums.dyn" <<'EOS'
check sum(i in 1..2000000) 1 == 2000000
check abs(sum(i in 1..2000000) 1/i^2 - (pi^2/6 - 1/2000000)) < 1e-12
print "done"
EOS
run_done sums "2e6-term sums"
[ "$status" -eq 0 ] && echo "loop_runs_memory: ok"
exit "$status"
