#!/bin/sh
# repl_complete.sh — completion by context at the REPL (dyn(1), REPL):
# at the start of a line inside a model only its items (`ma` would also
# be max, matrix, maxabs anywhere else), after `with` only scheme names (`ch` would also be the keyword `check`
# anywhere else), after `r.` for a run r only its histories (`st` would
# also be `step` and `stiffness` anywhere else); elsewhere everything.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}" "${PTYRUN:?PTYRUN is not set}"
dir=$OUT/repl_complete
rm -rf "$dir"
mkdir -p "$dir/home"
HOME=$dir/home
export HOME
fail() { echo "repl_complete: $*"; exit 1; }

cat > "$dir/complete.pty" <<'PTY'
expect dyn> 
send model osc {\n  dof u\n  ma\t[2]\n  stiffness [8]\n  init u = 1\n}\n
expect dyn> 
send let r = run osc with ch\t(0.5) from 0 to 1 step 0.1\n
expect dyn> 
send print r.st\t(1) > 0\n
expect 1\r\n
send print r.lab\t\n
expect error
expect dyn> 
send :quit\n
exit 0
PTY
"$PTYRUN" "$dir/complete.pty" "$DYN" > "$dir/complete.out" 2> "$dir/complete.err" ||
	{ cat "$dir/complete.err"; tail -5 "$dir/complete.out"; fail "the session failed"; }
grep -q "mass \[2\]" "$dir/complete.out" || fail "'ma' at the start of a model item did not complete to mass"
grep -q "with chung_hulbert (0.5)" "$dir/complete.out" || fail "'with ch' did not complete to chung_hulbert"
grep -q "print r.stored(1)" "$dir/complete.out" || fail "'r.st' did not complete to r.stored"
grep -q "r.label" "$dir/complete.out" && fail "'r.lab' completed to a word that is not a history of r"
exit 0
