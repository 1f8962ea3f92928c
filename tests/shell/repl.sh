#!/bin/sh
# repl.sh — the interactive session through a pseudo-terminal (tests/ptyrun):
# a model defined over several lines, its operators and frequencies,
# a run, a terminal plot, stepping, the ledger, a scheme's spectral radii,
# completion, Ctrl-C at the prompt and during a run, Ctrl-D; history kept.
# Then `dyn < file` against `dyn file` on every example.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}" "${PTYRUN:?PTYRUN is not set}" "${srcdir:?srcdir is not set}"
dir=$OUT/repl
rm -rf "$dir"
mkdir -p "$dir/home"
HOME=$dir/home
export HOME
fail() { echo "repl: $*"; exit 1; }

cat > "$dir/session.pty" <<'PTY'
expect dyn> 
send model osc {\n
expect ...> 
send   dof u\n  mass [2]\n  stiffness [8]\n  init u = 1\n}\n
expect dyn> 
send :show osc\n
expect stiffness:
expect 8 ]
send :eig osc\n
expect period (s)
expect 3.1415927
send model rod {\n  dof x, y\n  kinetic 0.5*(x'^2 + y'^2)\n  potential 9.81*y\n  constraint x^2 + y^2 == 1\n  init y = -1\n}\n
expect dyn> 
send :eig rod\n
expect 3.132092
send let r = run osc with trapez\t from 0 to 5 step 0.01\n
expect dyn> 
send r.u(0)\n
expect 1\r\n
send :plot r.u\n
expect ┤
expect 5\r\n
send :start let s = run osc with midpoint from 0 to 1 step 0.1\n
expect step 0 of 10 (in progress)
send :step 3\n
expect step 3 of 10
send :energy\n
expect residual
send :run\n
expect step 10 of 10
send :scheme chung_hulbert(0.5)\n
expect family generalized_alpha
expect 1e+06
send :help\n
expect :eig MODEL
send :help :step\n
expect :step [N]
send let y = 1 +\n
expect ...> 
send 2\n
expect dyn> 
send y\n
expect 3\r\n
send not a statement\x03
expect dyn> 
send print "after Ctrl-C"\n
expect after Ctrl-C
send model big {\n  dof x[30]\n  kinetic 0.5*sum(i in 1..30) x[i]'^2\n  potential sum(i in 1..30) (0.5*x[i]^2 + 0.25*x[i]^4)\n  init x[1] = 1\n}\n
expect dyn> 
send let b = run big with midpoint from 0 to 1000 step 1e-3\n
sleep 500
send \x03
expect error: interrupted at t = 
expect dyn> 
send print "still here"\n
expect still here
send nonsense + \n
expect ...> 
send 1\n
expect error: undefined name 'nonsense'
expect dyn> 
send \x04
exit 0
PTY
"$PTYRUN" "$dir/session.pty" "$DYN" > "$dir/session.out" 2> "$dir/session.err" ||
	{ cat "$dir/session.err"; tail -20 "$dir/session.out"; fail "the session failed"; }
grep -q "trapezoidal" "$dir/session.out" || fail "Tab did not complete trapez to trapezoidal"
grep -q "let y = 1 +" "$dir/home/.dyn_history" || fail "the history was not kept in ~/.dyn_history"

# -i FILE: the script runs, then the prompt
cat > "$dir/lib.dyn" <<'EOF2'
param k = 4
let w = sqrt(k)
EOF2
printf 'expect dyn> \nsend w\\n\nexpect 2\\r\\n\nsend :quit\\n\nexit 0\n' > "$dir/i.pty"
"$PTYRUN" "$dir/i.pty" "$DYN" -i "$dir/lib.dyn" > "$dir/i.out" 2> "$dir/i.err" ||
	{ cat "$dir/i.err"; fail "dyn -i FILE failed"; }

# --progress draws a bar on a terminal; --interactive is -i
cat > "$dir/long.dyn" <<'EOF2'
model m {
  dof x[20]
  mass eye(20)
  stiffness 2*eye(20)
  init x[1] = 1
}
let r = run m with newmark from 0 to 2000 step 1e-3
print "done"
EOF2
cat > "$dir/progress.pty" <<'PTY'
expect % 
expect elapsed
expect done
exit 0
PTY
"$PTYRUN" "$dir/progress.pty" "$DYN" --progress "$dir/long.dyn" > "$dir/progress.out" 2> "$dir/progress.err" ||
	{ cat "$dir/progress.err"; fail "no progress bar on the terminal"; }
"$DYN" --progress "$dir/long.dyn" > "$dir/np.out" 2> "$dir/np.err"
[ -s "$dir/np.err" ] && fail "a progress bar was drawn on a stream that is not a terminal"
cat > "$dir/il.pty" <<'PTY'
expect dyn> 
send k\n
expect 4\r\n
send :quit\n
exit 0
PTY
"$PTYRUN" "$dir/il.pty" "$DYN" --interactive "$dir/lib.dyn" > "$dir/il.out" 2> "$dir/il.err" ||
	{ cat "$dir/il.err"; fail "dyn --interactive FILE failed"; }

# dyn < file gives the same standard output and exit status as dyn file
for f in "$srcdir"/examples/*.dyn; do
	name=$(basename "$f" .dyn)
	mkdir -p "$dir/file" "$dir/stdin"
	"$DYN" -q -o "$dir/file" "$f" > "$dir/$name.file.out" 2>/dev/null
	a=$?
	"$DYN" -q -o "$dir/stdin" < "$f" > "$dir/$name.stdin.out" 2>/dev/null
	b=$?
	[ $a -eq $b ] || fail "$name: exit status $a from the file, $b from standard input"
	cmp -s "$dir/$name.file.out" "$dir/$name.stdin.out" || fail "$name: standard output differs"
done
echo "repl: ok"
