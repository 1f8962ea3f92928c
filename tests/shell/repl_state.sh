#!/bin/sh
# repl_state.sh — the REPL's state after Ctrl-C, a refused :start and a bad
# :step count, through a pseudo-terminal (tests/ptyrun):
#  1. Ctrl-C during a long evaluation that is not a run (2^40 calls of a
#     function) stops it with "error: interrupted" and the prompt; the next
#     run is not reported interrupted.
#  2. A :start refused before its first step (a step beyond the critical
#     step) is not the session's last run: :state and :energy show the run
#     before it, not an unwritten history.
#  3. :step with a count that is not a whole number from 1 to INT_MAX
#     (4294967297 would wrap to 1, 1e30 overflows long) is refused with a
#     message and takes no step; :run, :state, :energy and :quit refuse
#     an argument (:run 5 ran to the end).
#  4. :start with a run whose record block spans lines waits for the block
#     to close (a "...>" prompt), then prepares the run; :run writes its
#     record (11 rows and a header for 10 steps); an error in the block
#     is reported at its own line.  :state calls a run without a name
#     "the run" (it said "run run").
#  5. A :start run finished by :step after another run completed in the
#     meantime is the one :step, :state and :energy then show.
#  6. :state of a run whose histories are not kept: the stepper's state
#     while it runs, a note after.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}" "${PTYRUN:?PTYRUN is not set}" "${srcdir:?srcdir is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder repl_state repl_state home
HOME=$dir/home
export HOME

# Each session runs in its own ptyrun; a failed expect kills dyn after 10 s.
session() {  # NAME: runs $dir/NAME.pty, transcript in $dir/NAME.out
	if ! "$PTYRUN" "$dir/$1.pty" "$DYN" > "$dir/$1.out" 2> "$dir/$1.err"; then
		fail "session $1: $(cat "$dir/$1.err")"
		tail -15 "$dir/$1.out" | sed 's/^/    /'
		return 1
	fi
	return 0
}

OSC='model osc {\n  dof u\n  mass [1]\n  stiffness [100]\n  init u = 1\n}\n'

# 1. Ctrl-C outside a run.
cat > "$dir/interrupt.pty" <<PTY
expect dyn> 
send $OSC
expect dyn> 
send function f(n) = if n <= 0 then 1 else f(n - 1) + f(n - 1)\n
expect dyn> 
send print f(40)\n
sleep 300
send \x03
expect error: interrupted
expect dyn> 
send let r = run osc with midpoint from 0 to 1 step 0.01\n
expect dyn> 
send print "u(1) =", r.u(1)\n
expect u(1) =
expect dyn> 
send \x04
exit 0
PTY
if session interrupt; then
	grep -q 'interrupted at t' "$dir/interrupt.out" &&
		fail "the run after a Ctrl-C outside a run was reported interrupted"
fi

# 2. A refused :start.
cat > "$dir/refused.pty" <<PTY
expect dyn> 
send $OSC
expect dyn> 
send let r = run osc with midpoint from 0 to 1 step 0.01\n
expect dyn> 
send :start let s = run osc with central_difference from 0 to 1 step 0.5\n
expect exceeds the critical step
expect dyn> 
send :state\n
expect run r of osc with midpoint: t = 1, step 100 of 100
expect dyn> 
send :energy\n
expect (step 100)
expect dyn> 
send :step\n
expect no run in progress
expect dyn> 
send \x04
exit 0
PTY
session refused

# ... and as the first run of a session: no run to show.
cat > "$dir/refused_first.pty" <<PTY
expect dyn> 
send $OSC
expect dyn> 
send :start let s = run osc with central_difference from 0 to 1 step 0.5\n
expect exceeds the critical step
expect dyn> 
send :state\n
expect no run yet
expect dyn> 
send :energy\n
expect no run yet
expect dyn> 
send \x04
exit 0
PTY
session refused_first

# 3. :step counts.
cat > "$dir/count.pty" <<PTY
expect dyn> 
send $OSC
expect dyn> 
send :start let s = run osc with midpoint from 0 to 1 step 0.1\n
expect step 0 of 10 (in progress)
send :step 4294967297\n
expect :step 4294967297: the count must be a whole number from 1 to 2147483647
expect dyn> 
send :step 100000000000000000000\n
expect :step 100000000000000000000: the count must be
expect dyn> 
send :step 0\n
expect :step 0: the count must be
expect dyn> 
send :step 2x\n
expect :step 2x: the count must be
expect dyn> 
send :run 5\n
expect error: :run takes no argument: :step N advances N steps
expect dyn> 
send :state now\n
expect error: :state takes no argument
expect dyn> 
send :energy 1\n
expect error: :energy takes no argument
expect dyn> 
send :quit now\n
expect error: :quit takes no argument
expect dyn> 
send :state\n
expect step 0 of 10 (in progress)
expect dyn> 
send :step 2147483647\n
expect step 10 of 10
expect dyn> 
send \x04
exit 0
PTY
session count

# 4. A :start over several lines.
cat > "$dir/multiline.pty" <<PTY
expect dyn> 
send $OSC
expect dyn> 
send run osc with midpoint from 0 to 1 step 0.5\n
expect dyn> 
send :state\n
expect the run of osc with midpoint: t = 1, step 2 of 2
expect dyn> 
send :start let s = run osc with midpoint from 0 to 1 step 0.1 {\n
expect ...> 
send   record u to "$dir/multiline.csv"\n
expect ...> 
send }\n
expect step 0 of 10 (in progress)
expect dyn> 
send :run\n
expect step 10 of 10
expect dyn> 
send :start let q = run osc with midpoint from 0 to 1 step 0.1 {\n
expect ...> 
send   record nosuch to "$dir/multiline2.csv" }\n
expect <stdin>:14:
expect cannot record 'nosuch'
expect dyn> 
send \x04
exit 0
PTY
if session multiline; then
	rows=$(wc -l < "$dir/multiline.csv" 2> /dev/null || echo 0)
	[ "$rows" -eq 12 ] || fail "multi-line :start: $rows lines in its record, expected 12"
fi

# 5. A :start run finished by :step after another run ran to its end
#    meanwhile: :step, :state and :energy show the run it finished (they
#    showed the other: run s3 of osc9, its energy 4.5 where osc's is 50).
cat > "$dir/interleaved.pty" <<PTY
expect dyn> 
send $OSC
expect dyn> 
send model osc9 {\n  dof u\n  mass [1]\n  stiffness [9]\n  init u = 1\n}\n
expect dyn> 
send :start let s2 = run osc with newmark from 0 to 1 step 0.1\n
expect step 0 of 10 (in progress)
expect dyn> 
send :step 2\n
expect run s2 of osc with newmark: t = 0.2, step 2 of 10 (in progress)
expect dyn> 
send let s3 = run osc9 with newmark from 0 to 1 step 0.1\n
expect dyn> 
send :step 100\n
expect run s2 of osc with newmark: t = 1, step 10 of 10
expect dyn> 
send :energy\n
expect stored
expect dyn> 
send \x04
exit 0
PTY
if session interleaved; then
	# the energy :energy printed is osc's (T + Phi = 50), not osc9's (4.5)
	awk '/^  kinetic/ { t = $2 } /^  stored/ { p = $2 } END { if ((t + p - 50)^2 > 1e-18) exit 1 }' \
		"$dir/interleaved.out" || fail "interleaved: :energy did not show run s2 (T + Phi = 50)"
fi

# 6. A :start run whose histories are not kept (history_budget = 0):
#    :state shows the stepper's own state while it is in progress (it
#    showed the header alone), and says they were not kept after it ends.
cat > "$dir/unkept.pty" <<PTY
expect dyn> 
send $OSC
expect dyn> 
send :start let s = run osc with newmark from 0 to 1 step 0.1, history_budget = 0\n
expect step 0 of 10 (in progress)
expect u = 1 
expect dyn> 
send :step 2\n
expect t = 0.2, step 2 of 10 (in progress)
expect u = -0.28 
expect dyn> 
send :run\n
expect step 10 of 10
expect its histories were not kept
expect dyn> 
send \x04
exit 0
PTY
session unkept

# Valgrind, when installed and dyn is not built with ASan (make
# check-sanitize sets DYN_SANITIZED): the refused :start reads no uninitialised
# history (the old :state printed one).
if [ -z "${DYN_SANITIZED:-}" ] && command -v valgrind > /dev/null 2>&1; then
	"$PTYRUN" "$dir/refused.pty" valgrind -q --error-exitcode=99 "$DYN" > "$dir/refused.vg.out" 2> "$dir/refused.vg.err" ||
		fail "refused :start under valgrind: $(cat "$dir/refused.vg.err")"
	grep -q 'Conditional jump\|uninitialised\|Invalid read' "$dir/refused.vg.out" &&
		fail "valgrind reports an error in the refused :start session"
fi

[ "$status" -eq 0 ] && echo "repl_state: ok"
exit "$status"
