#!/bin/sh
# repl_interrupt.sh — Ctrl-C in the REPL, through a pseudo-terminal
# (tests/ptyrun), then every command still works:
#  1. Ctrl-C at the prompt, with and without text typed, then Ctrl-D: dyn
#     leaves with status 0 (the old REPL jumped out of readline() from the
#     signal handler, and crashed at a later Ctrl-D).
#  2. Ctrl-C in the middle of a statement over several lines drops all of
#     it: the prompt is "dyn> " again and the model was not defined.
#  3. Ctrl-C during :run stops the run, which stays in progress: :step
#     takes one more step, :run continues (and is stopped again), :quit
#     leaves with status 0 (the old :run, :step and :quit printed only
#     "dyn: error:" after it).
#  4. Keys typed right after Ctrl-C at the prompt start the next line:
#     "1 + 2" typed, then "^Cprint 6*7⏎" sent at once, 100 times, prints
#     42 every time and no error (the old loop read the keys before taking
#     the pending signal, into the line the Ctrl-C dropped: "1 + 2print 6*7").
#  5. Ctrl-C right after the Enter ending a line of a statement drops the
#     statement, 50 times.
#  6. Ctrl-C during a run of a :load stops the rest of the loaded script.
# Waits are for prompts and messages, never fixed times; timeouts are long
# for a loaded machine.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}" "${PTYRUN:?PTYRUN is not set}" "${srcdir:?srcdir is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder repl_interrupt repl_interrupt home
HOME=$dir/home
export HOME

session() {  # NAME [WRAPPER...]: runs $dir/NAME.pty, transcript in $dir/NAME.out
	name=$1
	shift
	if ! "$PTYRUN" "$dir/$name.pty" "$@" "$DYN" > "$dir/$name.out" 2> "$dir/$name.err"; then
		fail "session $name: $(cat "$dir/$name.err")"
		tail -15 "$dir/$name.out" | sed 's/^/    /'
		return 1
	fi
	return 0
}

OSC='model osc {\n  dof u\n  mass [1]\n  stiffness [100]\n  init u = 1\n}\n'
BIG='model big {\n  dof x[30]\n  kinetic 0.5*sum(i in 1..30) x[i]'"'"'^2\n  potential sum(i in 1..30) (0.5*x[i]^2 + 0.25*x[i]^4)\n  init x[1] = 1\n}\n'

# 1. At the prompt.
cat > "$dir/prompt.pty" <<PTY
timeout 60
expect dyn> 
send \x03
expect dyn> 
send half a line
expect half a line
send \x03
expect dyn> 
send print "after", 1 + 1\n
expect after 2
expect dyn> 
send \x03
expect dyn> 
send \x04
exit 0
PTY
session prompt
# the same under valgrind when it is there and dyn is not built with ASan
if [ -z "${DYN_SANITIZED:-}" ] && command -v valgrind > /dev/null 2>&1; then
	session prompt valgrind -q --error-exitcode=99
	grep -q 'Invalid read\|Invalid write\|uninitialised' "$dir/prompt.out" &&
		fail "valgrind reports an error after Ctrl-C at the prompt"
fi

# 2. In a statement over several lines.
cat > "$dir/multi.pty" <<PTY
timeout 60
expect dyn> 
send model m {\n  dof u\n
expect ...> 
send   mass [1]
expect mass [1]
send \x03
expect dyn> 
send :show m\n
expect error: undefined name 'm'
expect dyn> 
send let y = (1 +\n
expect ...> 
send \x03
expect dyn> 
send let y = 3\n
expect dyn> 
send y\n
expect 3\r\n
expect dyn> 
send \x04
exit 0
PTY
session multi

# 3. During :run, then every command.
cat > "$dir/run.pty" <<PTY
timeout 60
expect dyn> 
send $OSC
expect dyn> 
send $BIG
expect dyn> 
send :start let b = run big with midpoint from 0 to 1000 step 1e-3\n
expect step 0 of 1000000 (in progress)
expect dyn> 
send :run\n
repeat 500 \x03
expect error: interrupted at t = 
expect (in progress)
expect dyn> 
send :step\n
expect (in progress)
expect dyn> 
send :state\n
expect (in progress)
expect dyn> 
send :run\n
repeat 500 \x03
expect error: interrupted at t = 
expect dyn> 
send :energy\n
expect residual
expect dyn> 
send :help :run\n
expect Ctrl-C stops it
expect dyn> 
send :show osc\n
expect stiffness
expect dyn> 
send :ir osc\n
expect model osc
expect dyn> 
send :eig osc\n
expect 0.62831853
expect dyn> 
send :scheme midpoint\n
expect family midpoint
expect dyn> 
send let r = run osc with midpoint from 0 to 1 step 0.01\n
expect dyn> 
send :plot r.u\n
expect ┤
expect dyn> 
send :start let s = run osc with midpoint from 0 to 1 step 0.1\n
expect step 0 of 10 (in progress)
expect dyn> 
send :step 4\n
expect step 4 of 10 (in progress)
expect dyn> 
send :run\n
expect step 10 of 10
expect dyn> 
send :load $dir/lib.dyn\n
expect loaded
expect dyn> 
send :quit\n
exit 0
PTY
echo 'print "loaded"' > "$dir/lib.dyn"
if session run; then
	grep -q 'dyn: error: *$' "$dir/run.out" && fail "an empty error after Ctrl-C during :run"
	# :step after the interruption took exactly one step
	a=$(grep -o 'step [0-9]* of 1000000 (in progress)' "$dir/run.out" | sed -n 2p | awk '{print $2}')
	b=$(grep -o 'step [0-9]* of 1000000 (in progress)' "$dir/run.out" | sed -n 3p | awk '{print $2}')
	[ -n "$a" ] && [ -n "$b" ] && [ "$b" -eq $((a + 1)) ] ||
		fail ":step after Ctrl-C during :run went from step '$a' to '$b', not one step"
fi

{
	echo "timeout 60"
	echo "expect dyn> "
	i=0
	while [ $i -lt 100 ]; do
		printf '%s\n' 'send 1 + 2' 'expect 1 + 2' 'send \x03print 6*7\n' 'expect 42' 'expect dyn> '
		i=$((i + 1))
	done
	printf '%s\n' 'send \x04' 'exit 0'
} > "$dir/typeahead.pty"
if session typeahead; then
	tr -d '\r' < "$dir/typeahead.out" | grep 'error' > "$dir/typeahead.errors" &&
		fail "keys typed after Ctrl-C joined the dropped line: $(head -1 "$dir/typeahead.errors")"
	n=$(tr -d '\r' < "$dir/typeahead.out" | sed 's/\x1b\[?2004[hl]//g' | grep -cx '42')
	[ "$n" -eq 100 ] || fail "print 6*7 after Ctrl-C printed 42 $n times of 100"
fi

# 5. Ctrl-C close behind the Enter that ends a line of a statement, 50
# times: it comes while that line is taken, before the next prompt, or
# while readline waits for a key (the old REPL lost it as an interrupt of
# no evaluation, or hung in readline's blocking read after the Ctrl-C
# flushed the keys it had been told were there).
{
	echo "timeout 60"
	echo "expect dyn> "
	i=0
	while [ $i -lt 50 ]; do
		printf '%s\n' 'send model q {\n  dof u\n\x03' 'expect dyn> '
		i=$((i + 1))
	done
	printf '%s\n' 'send :show q\n' "expect error: undefined name 'q'" 'expect dyn> ' 'send \x04' 'exit 0'
} > "$dir/between.pty"
session between

# 6. Ctrl-C during a run of a script loaded by :load stops the script:
# the run keeps what it computed (b is bound), the statements after it do
# not execute (they did: "after the run" was printed, and a second long
# run started).
printf '%b' "$BIG" > "$dir/long.dyn"
{
	echo 'let b = run big with midpoint from 0 to 1000 step 1e-3'
	echo 'print "after the run"'
	echo 'let c = run big with midpoint from 0 to 1000 step 1e-3'
} >> "$dir/long.dyn"
cat > "$dir/load.pty" <<PTY
timeout 60
expect dyn> 
send :load $dir/long.dyn\n
repeat 500 \x03
expect error: interrupted
expect dyn> 
send :state\n
expect run b of big with midpoint
expect dyn> 
send \x04
exit 0
PTY
if session load; then
	grep -q 'after the run' "$dir/load.out" &&
		fail ":load went on after a Ctrl-C stopped its run"
fi

[ "$status" -eq 0 ] && echo "repl_interrupt: ok"
exit "$status"
