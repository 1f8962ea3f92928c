#!/bin/sh
# repl_inspect.sh — the REPL's inspection commands, through a
# pseudo-terminal (tests/ptyrun): :ir ends its last line; :eig of an
# undefined model quotes the command itself (the old REPL quoted an
# earlier, unrelated line); :eig at an unstable equilibrium says so, with
# omega^2 < 0 (the old one printed omega = 0 and period inf); :help
# schemes lists every family of the registry (paoli_schatzman and
# moreau_jean were missing) and an unknown topic is refused.  :show of a
# model of energies shows each parameter line once, its constraint and
# initial state, and no all-zero stiffness; long entries line up.
# :eig MODEL K shows the lowest K modes (a large model's lowest 10 by
# default, said so), and a bad K is refused with the usage.  :show pi
# shows its value and :show of a built-in function says what it is (both
# were "undefined name").
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
model rod {
  param g = 9.81, L = 1
  dof x, y
  kinetic 0.5*(x'^2 + y'^2)
  potential g*y
  constraint x^2 + y^2 == L^2
  init y = -1
}
model chain {
  dof x[600]
  kinetic   sum(i in 1..600) 0.5*x[i]'^2
  potential 0.5*x[1]^2 + sum(i in 1..599) 0.5*(x[i+1] - x[i])^2
}
model wide {
  dof u, w
  mass [1, 0; 0, 1]
  stiffness [123456.789, -1; -1, 2]
  support 9.81*sin(t) along [1, 1]
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
send :show rod\n
expect constraint x^2 + y^2 == L^2
expect init y = -1
expect dyn> 
send :show wide\n
expect [ 123456.789         -1 ]\r\n    [         -1          2 ]
expect support 9.81*sin(t) along [1, 1]
expect dyn> 
send :eig chain\n
expect the lowest 10 modes of 600 unknowns (:eig chain K for the lowest K)
expect 10    
expect dyn> 
send :eig chain 2\n
expect 2    
expect dyn> 
send :eig osc 2\n
expect model osc has 1 dof: at most 1 mode, not 2
expect dyn> 
send :eig osc x\n
expect usage: :eig MODEL [K]
expect dyn> 
send :show pi\n
expect 3.14159
expect dyn> 
send :show sin\n
expect sin: a built-in function
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
n=$(grep -c 'param g = 9.81, L = 1' "$dir/inspect.out")
[ "$n" -eq 1 ] || fail ":show rod printed its parameter line $n times, not once"
sed -n '/:show rod/,/:show wide/p' "$dir/inspect.out" | grep -q 'stiffness' &&
	fail ":show rod shows a stiffness matrix for a model of energies"
sed -n '/:eig chain 2/,/:eig osc 2/p' "$dir/inspect.out" | grep -q '^3 ' &&
	fail ":eig chain 2 showed a third mode"
[ "$status" -eq 0 ] && echo "repl_inspect: ok"
exit "$status"
