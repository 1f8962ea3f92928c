#!/bin/sh
# repl_readme.sh — the REPL's block of README.md, pasted line by line at
# the prompt after `dyn -i examples/seismic.dyn` (which defines the model
# it inspects), through a pseudo-terminal (tests/ptyrun): every line works,
# with its trailing "# comment" (the old REPL passed the comment to the
# command: "undefined model 'oscillator  # ...'").  Then the REPL decides
# that a statement goes on at the next line as the language's scanner
# does (the old REPL's own lexer did not know `and` and `then`), and
# commands strip comments but not a "#" inside a string.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}" "${PTYRUN:?PTYRUN is not set}" "${srcdir:?srcdir is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder repl_readme repl_readme home out
HOME=$dir/home
export HOME

# The block: the lines between the ``` fences that start with "dyn> ".
sed -n '/^## Exploring a model interactively/,/^## /p' "$srcdir/README.md" |
	sed -n 's/^dyn> //p' > "$dir/block.txt"
[ -s "$dir/block.txt" ] || fail "no REPL block found in README.md"
{
	echo "timeout 60"
	echo "expect dyn> "
	while IFS= read -r line; do
		printf 'send %s\\n\n' "$line"
		case $line in
		:eig*) echo "expect period (s)" ;;
		:show*) echo "expect stiffness" ;;
		:scheme*) echo "expect family" ;;
		:start*) echo "expect (in progress)" ;;
		:step*) echo "expect step 100 of" ;;
		:energy*) echo "expect residual" ;;
		:plot*) echo "expect ┤" ;;
		esac
		echo "expect dyn> "
	done < "$dir/block.txt"
	echo 'send \x04'
	echo "exit 0"
} > "$dir/readme.pty"
if "$PTYRUN" "$dir/readme.pty" "$DYN" -q -o "$dir/out" -i "$srcdir/examples/seismic.dyn" > "$dir/readme.out" 2> "$dir/readme.err"; then
	grep -n 'error\|undefined\|unknown command\|usage' "$dir/readme.out" > "$dir/bad.txt" &&
		fail "README's REPL block: $(head -3 "$dir/bad.txt")"
else
	fail "README's REPL block: $(cat "$dir/readme.err")"
	tail -15 "$dir/readme.out" | sed 's/^/    /'
fi

# Continuation lines as the scanner sees them; comments in commands.
cat > "$dir/lines.pty" <<'PTY'
timeout 60
expect dyn> 
send let b = 1 > 0 and\n
expect ...> 
send 2 > 1\n
expect dyn> 
send print "b =", b\n
expect b = 1
expect dyn> 
send let c = if b then\n
expect ...> 
send 3 else 4\n
expect dyn> 
send print "c =", c\n
expect c = 3
expect dyn> 
send model osc {   # a comment { with a brace\n  dof u\n  mass [1]   # "a quote\n  stiffness [4]\n}\n
expect dyn> 
send :eig osc   # its frequencies\n
expect 3.1415927
expect dyn> 
send print "a # in a string" # a comment\n
expect a # in a string
expect dyn> 
send let m = [1, 2;   # a row\n
expect ...> 
send 3, 4]\n
expect dyn> 
send print "m =", m\n
expect m = [1, 2; 3, 4]
expect dyn> 
send :help :eig   # one command\n
expect :eig MODEL
expect dyn> 
send \x04
exit 0
PTY
if "$PTYRUN" "$dir/lines.pty" "$DYN" > "$dir/lines.out" 2> "$dir/lines.err"; then
	grep -q 'error' "$dir/lines.out" && fail "continuation lines: $(grep error "$dir/lines.out" | head -3)"
else
	fail "continuation lines: $(cat "$dir/lines.err")"
	tail -15 "$dir/lines.out" | sed 's/^/    /'
fi

[ "$status" -eq 0 ] && echo "repl_readme: ok"
exit "$status"
