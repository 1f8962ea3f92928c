#!/bin/sh
# repl_plot.sh — the REPL's :plot (dyn(1), REPL): as wide as the
# terminal (tests/ptyrun's pseudo-terminal has 100 columns), curves named
# with `as "label"`, told apart by ANSI colours on a colour terminal and
# drawn without escapes under NO_COLOR or TERM=dumb.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}" "${PTYRUN:?PTYRUN is not set}"
dir=$OUT/repl_plot
rm -rf "$dir"
mkdir -p "$dir/home"
HOME=$dir/home
export HOME
fail() { echo "repl_plot: $*"; exit 1; }

cat > "$dir/plot.pty" <<'PTY'
expect dyn> 
send model osc {\n  dof u\n  mass [2]\n  stiffness [8]\n  init u = 1\n}\n
expect dyn> 
send let r = run osc with midpoint from 0 to 5 step 0.01\n
expect dyn> 
send :plot r.u as "storey 3", r.u' as "speed"\n
expect series 2: speed
expect dyn> 
send :quit\n
exit 0
PTY
TERM=xterm "$PTYRUN" "$dir/plot.pty" "$DYN" > "$dir/color.out" 2> "$dir/color.err" ||
	{ cat "$dir/color.err"; fail "the session failed"; }
esc=$(printf '\033')
grep -q "series 1: storey 3" "$dir/color.out" || fail "the label given with 'as' is not in the legend"
grep -q "${esc}\[34m" "$dir/color.out" && grep -q "${esc}\[31m" "$dir/color.out" ||
	fail "two curves on a colour terminal are not drawn in blue and red"
# The x axis line: the frame's └ then one ─ per column up to the
# terminal's width less one (99): 99 - (label width 2 + 2) = 95 columns.
n=$(grep '└' "$dir/color.out" | head -1 | grep -o '─' | wc -l)
[ "$n" -ge 90 ] && [ "$n" -le 99 ] || fail "the plot is $n columns wide in a 100-column terminal"

TERM=xterm NO_COLOR=1 "$PTYRUN" "$dir/plot.pty" "$DYN" > "$dir/nocolor.out" 2> "$dir/nocolor.err" ||
	{ cat "$dir/nocolor.err"; fail "the session under NO_COLOR failed"; }
grep -q "${esc}\[3[0-9]m" "$dir/nocolor.out" && fail "NO_COLOR is set, yet :plot wrote colours"
TERM=dumb "$PTYRUN" "$dir/plot.pty" "$DYN" > "$dir/dumb.out" 2> "$dir/dumb.err" ||
	{ cat "$dir/dumb.err"; fail "the session under TERM=dumb failed"; }
grep -q "${esc}\[3[0-9]m" "$dir/dumb.out" && fail "TERM=dumb, yet :plot wrote colours"
exit 0
