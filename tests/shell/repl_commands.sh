#!/bin/sh
# repl_commands.sh — what the REPL's commands refuse or resolve (dyn(1),
# REPL), found by scripts written from the manual:
# - a model's files (mtx, table) are found from the folder of the file
#   that declares it, also when it is run from the prompt: a model of
#   sub/s.dyn read ./M.mtx at the prompt (another matrix, silently, when
#   one was there, "cannot open" otherwise);
# - :start takes a run statement only (it executed anything: :start
#   print 1 printed 1);
# - :load of a folder is refused (it said nothing);
# - :show of a model whose operators are held as entries says so, as
#   --dump-ir does (it said "stiffness: none"; entries stored, each
#   spring's four counted before duplicates are summed);
# - a run failing under :run is reported once; an unfinished statement
#   at the end of the input is named;
# - :eig's mode shapes carry modes()'s sign: the largest entry positive;
# - :scheme's errors are located at its argument; :show of a family;
# - :plot's errors concern what was typed; :eig MODEL(p = v).
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}" "${srcdir:?srcdir is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder repl_commands repl_commands home sub
HOME=$dir/home
export HOME
printf '%s\n' '%%MatrixMarket matrix coordinate real symmetric' '2 2 2' '1 1 1' '2 2 1' > "$dir/sub/M.mtx"
printf '%s\n' '%%MatrixMarket matrix coordinate real symmetric' '2 2 3' '1 1 2' '2 1 -1' '2 2 2' > "$dir/sub/K.mtx"
# another mass in the folder the session runs in: 4 times the first
printf '%s\n' '%%MatrixMarket matrix coordinate real symmetric' '2 2 2' '1 1 4' '2 2 4' > "$dir/M.mtx"
printf '%s\n' 'model f {' '  dof x[2]' '  mass mtx("M.mtx")' '  stiffness mtx("K.mtx")' '  init x = [1, 0]' '}' \
	'print modes(f, 1).omega' > "$dir/sub/s.dyn"
# ω₁ = 1 with the mass of sub/ (K's eigenvalues 1 and 3), 0.5 with ./M.mtx
(cd "$dir" && printf 'print modes(f, 1).omega\n' | "$DYN" -i sub/s.dyn) > "$dir/a.out" 2>&1
n=$(grep -c '^\[1\]$' "$dir/a.out")
[ "$n" = 2 ] || fail "mtx at the prompt not from the model's folder: $(cat "$dir/a.out")"

printf ':start print 1\n:start let z = 3\nprint 2\n' | "$DYN" -i "$dir/sub/s.dyn" > "$dir/b.out" 2>&1
grep -q "^<stdin>:1:8: error: :start prepares a run: :start let NAME = run MODEL with SCHEME from T0 to T1 step TAU" \
	"$dir/b.out" || fail ":start of a print: $(grep -v '^\[' "$dir/b.out" | head -3)"
grep -q "^<stdin>:2:8: error: :start prepares a run" "$dir/b.out" || fail ":start of a let that is no run"
grep -q '^1$' "$dir/b.out" && fail ":start print 1 printed 1"
grep -q '^2$' "$dir/b.out" || fail "the session did not go on after :start's error"

printf ':load %s\nprint 5\n' "$dir/sub" | "$DYN" -i "$dir/sub/s.dyn" > "$dir/c.out" 2>&1
grep -q "^cannot read '.*sub': Is a directory" "$dir/c.out" || fail ":load of a folder: $(cat "$dir/c.out")"
grep -q '^5$' "$dir/c.out" || fail "the session did not go on after :load's refusal"

printf '%s\n' 'model a {' '  dof x[5000]' '  kinetic sum(i in 1..5000) 0.5*x[i]'"'"'^2' \
	'  potential 0.5*x[1]^2 + sum(i in 1..4999) 0.5*(x[i+1] - x[i])^2' '  damping rayleigh(0.1, 0)' '}' > "$dir/big.dyn"
printf ':show a\n' | "$DYN" -i "$dir/big.dyn" > "$dir/d.out" 2>&1
grep -q "^  stiffness: 5000 x 5000, 19997 entries stored (sparse)" "$dir/d.out" ||
	fail ":show of a large model's stiffness: $(grep stiffness "$dir/d.out")"
# rayleigh(0.1, 0): a0 M alone, K's term (scaled by 0) left out
grep -q "^  damping: 5000 x 5000, 5000 entries stored (sparse)" "$dir/d.out" ||
	fail ":show of a large model's damping: $(grep damping "$dir/d.out")"
grep -q "none" "$dir/d.out" && fail ":show says none: $(grep none "$dir/d.out")"
# a run that fails while stepping (:run, :step) is reported once: its end
# added an empty "dyn: error: " line
printf '%s\n' 'model bad {' '  dof u' "  kinetic 0.5*u'^2" '  potential -u^4' '  init u = 1' '}' > "$dir/bad.dyn"
printf ':start let z = run bad with midpoint from 0 to 10 step 0.01\n:run\nprint 7\n' |
	"$DYN" -i "$dir/bad.dyn" > "$dir/e.out" 2>&1
grep -q "error: t = 0.92 (step 92): Newton did not converge" "$dir/e.out" || fail ":run's failure: $(cat "$dir/e.out")"
[ "$(grep -c "error:" "$dir/e.out")" = 1 ] || fail ":run's failure not said once: $(grep error "$dir/e.out")"
grep -q '^7$' "$dir/e.out" || fail "the session did not go on after :run's failure"
# the input ending inside a statement says so (it was dropped silently)
printf 'print 1\nprint (2 +\n3 +\n' | "$DYN" -i "$dir/bad.dyn" > "$dir/f.out" 2>&1
grep -q "dyn: error: the input ended inside a statement, which was not run: print (2 + 3 +$" "$dir/f.out" ||
	fail "an unfinished statement at the end of the input: $(cat "$dir/f.out")"
# :eig's shapes have the sign of modes(): each column's largest entry
# positive (:eig printed the first shape of this model as -0.707, -0.707)
printf 'model iso {\n  dof x[2]\n  mass [1, 0; 0, 1]\n  stiffness [2, -1; -1, 2]\n}\n:eig iso\n' |
	"$DYN" -i "$dir/bad.dyn" > "$dir/eig.out" 2>&1
grep -q '^  x\[1\] *0\.70711 *0\.70711$' "$dir/eig.out" && grep -q '^  x\[2\] *0\.70711 *-0\.70711$' "$dir/eig.out" ||
	fail ":eig shapes not sign-normalised: $(grep 'x\[' "$dir/eig.out")"
# :scheme's errors point where its argument was typed (they said
# <scheme>:1:1); :show of a built-in family says what it is (it said
# "undefined name")
printf 'print 1\n:scheme foo\n:scheme newmark(x = 1)\n:show newmark\n' |
	"$DYN" -i "$dir/bad.dyn" > "$dir/sch.out" 2>&1
grep -q "^<stdin>:2:9: error: unknown scheme 'foo'" "$dir/sch.out" || fail ":scheme foo: $(grep error "$dir/sch.out")"
grep -q "^<stdin>:3:17: error: newmark has no parameter 'x'" "$dir/sch.out" ||
	fail ":scheme newmark(x = 1): $(grep error "$dir/sch.out")"
grep -q "^newmark: a built-in scheme family (:scheme newmark shows its parameters and spectral radius)$" \
	"$dir/sch.out" || fail ":show newmark: $(grep newmark "$dir/sch.out")"
# :plot's errors are about what was typed (they named an invisible
# 'to'); a file is the plot statement's, a plot statement needs one
printf 'model m {\n  dof u\n  mass 1\n  stiffness 1\n  init u = 1\n}\n' > "$dir/pm.dyn"
printf ':start let r = run m with newmark from 0 to 1 step 0.1\n:run\n:plot r.u as\n:plot r.u to "x.svg"\n' |
	"$DYN" -i "$dir/pm.dyn" > "$dir/plot.out" 2>&1
grep -q "^<stdin>:3:13: error: syntax error: unexpected end of line, expecting string" "$dir/plot.out" ||
	fail ":plot r.u as: $(grep error "$dir/plot.out")"
grep -q '^<stdin>:4:14: error: :plot draws on the terminal: a plot to a file is the statement plot Y to "FILE.svg"' \
	"$dir/plot.out" || fail ":plot to a file: $(grep error "$dir/plot.out")"
grep -q "'to'" "$dir/plot.out" && fail ":plot's errors name 'to': $(grep error "$dir/plot.out")"
# :eig takes a model with its parameters set, as modes() does (it said
# "not '= 9)'")
printf 'model osc {\n  param k = 4\n  dof u\n  mass 1\n  stiffness k\n}\n' > "$dir/eo.dyn"
printf ':eig osc(k = 9)\n:eig osc(kk = 9) 1\n' | "$DYN" -i "$dir/eo.dyn" > "$dir/eo.out" 2>&1
grep -q '^1  *3  *0\.47746483  *2\.0943951$' "$dir/eo.out" || fail ":eig osc(k = 9): $(cat "$dir/eo.out")"
grep -q "^<stdin>:2:10: error: model osc has no parameter 'kk'" "$dir/eo.out" ||
	fail ":eig osc(kk = 9): $(grep error "$dir/eo.out")"
[ "$status" -eq 0 ] && echo "repl_commands: ok"
exit "$status"
