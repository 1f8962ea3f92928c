#!/bin/sh
# repl_inspect.sh — the REPL's inspection commands, through a
# pseudo-terminal (tests/ptyrun): :ir ends its last line; :eig of an
# undefined model quotes the command itself (the old REPL quoted an
# earlier, unrelated line); :eig at an unstable equilibrium says so, with
# omega^2 < 0 (the old one printed omega = 0 and period inf); :help
# schemes lists every family of the registry (paoli_schatzman and
# moreau_jean were missing) and an unknown topic is refused.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}" "${PTYRUN:?PTYRUN is not set}" "${srcdir:?srcdir is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder repl_inspect repl_inspect home
HOME=$dir/home
export HOME
cat > "$dir/osc.dyn" <<'EOF2'
print "an earlier line"
model osc {
  dof u
  mass [1]
  stiffness [4]
}
EOF2
cat > "$dir/inspect.pty" <<'PTY'
timeout 60
expect dyn> 
send :ir osc\n
expect init v = 0\r\n
expect dyn> 
send :eig nosuch\n
expect error: undefined model 'nosuch'\r\n:eig nosuch\r\n     ^~~~~~
expect dyn> 
send model inv {\n  dof u\n  mass [1]\n  stiffness [-4]\n}\n
expect dyn> 
send :eig inv\n
expect unstable: omega^2 = -4 < 0
expect not a stable equilibrium
expect dyn> 
send :help schemes\n
expect paoli_schatzman
expect moreau_jean(theta)
expect dyn> 
send :help nonsense\n
expect no help on 'nonsense'
expect dyn> 
send \x04
exit 0
PTY
if ! "$PTYRUN" "$dir/inspect.pty" "$DYN" -i "$dir/osc.dyn" > "$dir/inspect.out" 2> "$dir/inspect.err"; then
	fail "$(cat "$dir/inspect.err")"
	tail -15 "$dir/inspect.out" | sed 's/^/    /'
fi
[ "$status" -eq 0 ] && echo "repl_inspect: ok"
exit "$status"
