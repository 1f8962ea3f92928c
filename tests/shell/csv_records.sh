#!/bin/sh
# csv_records.sh — the CSV files written by `record` (DESIGN.md, "Records",
# "Output of numbers", "Errors"):
#   - column names: t, u, u', u'', x[2], x[2]', the five energies for
#     `energy`, recorded expressions by their name;
#   - rows for t0 and the last step are always written with `every N`, so
#     the number of rows is 1 + floor(N/every) (+1 when N is no multiple);
#   - numbers in the C format, each reading back to the recorded double;
#   - files go under -o DIR and nowhere else;
#   - a run that fails while stepping leaves every file complete and
#     parseable, ending with the last step before the failure.
#
# The model of the exact cases (m = 1, k = 3, u(0) = 1, trapezoidal rule,
# step 2) has exact arithmetic and period 3 steps:
#   t    0    2     4     6 ...
#   u    1   -0.5  -0.5   1
#   u'   0   -1.5   1.5   0
#   u''  -3   1.5   1.5  -3
#   kinetic 0 1.125 1.125 0,  stored 1.5 0.375 0.375 1.5
#
# Environment (tests/run-tests): DYN the binary, srcdir the source tree,
# OUT a writable folder for outputs.
set -u
: "${DYN:?DYN is not set}" "${srcdir:?srcdir is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB DYN_HISTORY_BUDGET
LC_ALL=C
export LC_ALL

. "$srcdir/tests/shell/common.inc"
test_folder csv_records csv_records out cwd

# expect FILE: compare FILE with the text on standard input.
expect() {
	cat > "$dir/expected"
	if [ ! -f "$1" ]; then
		fail "$1 was not written"
	elif ! cmp -s "$dir/expected" "$1"; then
		fail "$1 differs from what is expected:"
		diff "$dir/expected" "$1" | sed 's/^/    /' | head -20
	fi
}

# run NAME [ARGS...]: run $dir/NAME.dyn from $dir/cwd with -o $dir/out.
run() {
	name=$1
	shift
	(cd "$dir/cwd" && "$DYN" -o "$dir/out" "$@" "$dir/$name.dyn" > "$dir/$name.stdout" 2> "$dir/$name.stderr")
	echo $? > "$dir/$name.status"
}

status_is() {  # NAME EXPECTED
	got=$(cat "$dir/$1.status")
	if [ "$got" != "$2" ]; then
		fail "$1.dyn: exit status $got, expected $2"
		sed 's/^/    /' "$dir/$1.stderr" | head -20
		return 1
	fi
	return 0
}

# 1. Energies and `every`: 7 steps recorded every 3 -> rows for steps 0,
#    3, 6 and the last one, 7; a second record clause of the same run
#    every 2 -> steps 0, 2, 4, 6, 7; every 1 (the default) -> all 8 rows;
#    every 10 (more than the steps) -> the first and the last rows only.
#    (Single energies, `record t, kinetic, stored`, are tested apart below.)
cat > "$dir/every.dyn" <<'EOF'
model osc {
  dof u
  mass [1]
  stiffness [3]
  init u = 1
}
let r = run osc with trapezoidal from 0 to 14 step 2 {
  record t, u, u', u'', energy to "every3.csv" every 3
  record t, u to "every2.csv" every 2
  record t, u'' to "all.csv"
  record u, t to "every10.csv" every 10
}
EOF
run every
if status_is every 0; then
	[ -s "$dir/every.stdout" ] && fail "every.dyn printed something: $(cat "$dir/every.stdout")"
	[ -s "$dir/every.stderr" ] && fail "every.dyn wrote on stderr: $(cat "$dir/every.stderr")"
	expect "$dir/out/every3.csv" <<'EOF'
t,u,u',u'',kinetic,stored,dissipated,work,residual
0,1,0,-3,0,1.5,0,0,0
6,1,0,-3,0,1.5,0,0,0
12,1,0,-3,0,1.5,0,0,0
14,-0.5,-1.5,1.5,1.125,0.375,0,0,0
EOF
	expect "$dir/out/every2.csv" <<'EOF'
t,u
0,1
4,-0.5
8,-0.5
12,1
14,-0.5
EOF
	expect "$dir/out/all.csv" <<'EOF'
t,u''
0,-3
2,1.5
4,1.5
6,-3
8,1.5
10,1.5
12,-3
14,1.5
EOF
	expect "$dir/out/every10.csv" <<'EOF'
u,t
1,0
-0.5,14
EOF
fi

# 1b. Single energies, by the names that `energy` expands to (the message
#    "cannot record 'v': not t, energy, kinetic, stored, dissipated, work,
#    residual or a dof" lists them as recordable).
cat > "$dir/single.dyn" <<'EOF'
model osc {
  dof u
  mass [1]
  stiffness [3]
  init u = 1
}
let r = run osc with trapezoidal from 0 to 6 step 2 {
  record t, kinetic, stored, residual to "single.csv"
}
EOF
run single
if status_is single 0; then
	expect "$dir/out/single.csv" <<'EOF'
t,kinetic,stored,residual
0,0,1.5,0
2,1.125,0.375,0
4,1.125,0.375,0
6,0,1.5,0
EOF
fi

# 2. Vector dofs, derivatives and recorded expressions: x expands to
#    x[1], x[2]; x[2]' and x[1]'' keep their names; an expression is
#    recorded under its name (and is a history of the run too).
cat > "$dir/names.dyn" <<'EOF'
model two {
  dof x[2]
  mass eye(2)
  stiffness 3*eye(2)
  init x = [1, 2]
}
let q = run two with trapezoidal from 0 to 4 step 2 {
  record t, x, x[2]', x[1]'', sq = x[1]^2 + x[2]'', third = 1/3 + t to "names.csv"
  record x[2], x[2]', x[2]'' to "x2.csv"
}
print q.sq(2), q.third(4)
EOF
run names
if status_is names 0; then
	expect "$dir/out/names.csv" <<'EOF'
t,x[1],x[2],x[2]',x[1]'',sq,third
0,1,2,0,-3,-5,0.3333333333333333
2,-0.5,-1,-3,1.5,3.25,2.3333333333333335
4,-0.5,-1,3,1.5,3.25,4.333333333333333
EOF
	expect "$dir/out/x2.csv" <<'EOF'
x[2],x[2]',x[2]''
2,0,-6
-1,-3,3
-1,3,3
EOF
	expect "$dir/names.stdout" <<'EOF'
3.25 4.333333333333333
EOF
fi

# 3. Numbers in C format: a damped, loaded run with non-trivial values.
#    Every field of every row is a number as C's strtod reads it in the C
#    locale (no comma decimals, no padding), every row has as many fields
#    as the header, and the history printed by the script at a step time
#    equals the CSV value exactly (the CSV keeps every digit).
cat > "$dir/format.dyn" <<'EOF'
model loaded {
  dof x[2]
  mass      diag([2, 1])
  damping   [0.3, -0.1; -0.1, 0.2]
  stiffness [40, -20; -20, 20]
  force     x[2]: 3*sin(5*t)
  support   cos(2*t) along [1, 1]
  init x = [0.1, 0]
}
let r = run loaded with newmark(beta = 1/4, gamma = 1/2) from 0 to 2 step 0.01 {
  record t, x, x[1]', energy, big = 1e300*x[1], small = 1e-300*x[2] to "format.csv" every 7
}
print r.x[1](1.4), r.x[1]'(2), r.residual(2)
EOF
run format
if status_is format 0; then
	f=$dir/out/format.csv
	if [ ! -f "$f" ]; then
		fail "format.csv was not written"
	else
		head -n 1 "$f" > "$dir/format.header"
		echo "t,x[1],x[2],x[1]',kinetic,stored,dissipated,work,residual,big,small" > "$dir/format.hexp"
		cmp -s "$dir/format.header" "$dir/format.hexp" ||
			fail "format.csv header is '$(cat "$dir/format.header")'"
		# 200 steps every 7: steps 0, 7, ..., 196 and 200 -> 30 rows + header
		rows=$(wc -l < "$f" | tr -d ' ')
		[ "$rows" = 31 ] || fail "format.csv has $rows lines, expected 31 (header + 30 rows)"
		bad=$(awk -F, 'NR > 1 {
			if (NF != 11) { print "line " NR ": " NF " fields"; next }
			for (i = 1; i <= NF; i++)
				if ($i !~ /^-?(0|[1-9][0-9]*)(\.[0-9]+)?(e[-+][0-9][0-9][0-9]?)?$/)
					print "line " NR ", field " i ": \"" $i "\""
		}' "$f" | head -5)
		[ -n "$bad" ] && fail "format.csv has fields that are not C numbers: $bad"
		last=$(tail -n 1 "$f" | cut -d, -f1)
		[ "$last" = 2 ] || fail "format.csv: the last row is at t = $last, expected 2"
		second=$(sed -n 3p "$f" | cut -d, -f1)
		[ "$second" = 0.07 ] || fail "format.csv: the second row is at t = $second, expected 0.07"
		# the printed values (shortest round-trip form) against the CSV ones
		# (15 to 17 digits, reading back to the same double): compare them
		# as the numbers they denote, with awk reading both the same way
		# shellcheck disable=SC2046
		set -- $(cat "$dir/format.stdout")
		x1=$(awk -F, 'NR > 1 && $1 - 1.4 < 1e-9 && 1.4 - $1 < 1e-9 { print $2 }' "$f")
		v2=$(awk -F, 'NR > 1 && $1 == 2 { print $4 }' "$f")
		res=$(awk -F, 'NR > 1 && $1 == 2 { print $9 }' "$f")
		same=$(awk -v a="${1:-}" -v b="$x1" -v c="${2:-}" -v d="$v2" -v e="${3:-}" -v f="$res" \
			'BEGIN { print (a + 0 == b + 0 && c + 0 == d + 0 && e + 0 == f + 0 && b != "" && d != "" && f != "") }')
		[ "$same" = 1 ] || fail "printed '$*' but format.csv has x[1](1.4) = '$x1', x[1]'(2) = '$v2', residual(2) = '$res'"
	fi
fi

# 3b. The time column is the grid t_k = t0 + k*tau, computed and never
#    accumulated (DESIGN.md, "Time grid"), with t_N = T1 exactly: adding
#    0.1 eight times gives 0.7999999999999999, 8*0.1 is 0.8.
cat > "$dir/grid.dyn" <<'EOF'
model m {
  dof u
  mass [1]
  stiffness [1]
}
let r = run m with trapezoidal from 0 to 1 step 0.1 {
  record t to "grid0.csv"
}
let q = run m with trapezoidal from 1 to 2 step 0.1 {
  record t to "grid1.csv"
}
EOF
run grid
if status_is grid 0; then
	expect "$dir/out/grid0.csv" <<'EOF'
t
0
0.1
0.2
0.30000000000000004
0.4
0.5
0.6000000000000001
0.7000000000000001
0.8
0.9
1
EOF
	expect "$dir/out/grid1.csv" <<'EOF'
t
1
1.1
1.2
1.3
1.4
1.5
1.6
1.7000000000000002
1.8
1.9
2
EOF
fi

# 4. -o DIR: nothing is written in the working folder.
leftover=$(ls -A "$dir/cwd")
[ -n "$leftover" ] && fail "files written outside -o DIR: $leftover"

# 5. A run that fails while stepping (DESIGN.md, "Errors": exit 4, and
#    whatever was recorded stays on disk, complete and parseable).
#    newmark(beta = 0, gamma = 0.6) with damping is refused before
#    stepping only where its critical step does not depend on the
#    damping (gamma = 1/2): here omega*tau = 1.833 lies just above the
#    damped bound (1.826 at zeta = 5e-4), the energy grows about 1.14-fold
#    per step and the run stops it, 1e12 times its initial value, at step
#    208.  (The damping's share of the ledger is no scale for that bound:
#    with it, this run went on to u = 6e32.)
cat > "$dir/blowup.dyn" <<'EOF'
model m {
  dof u
  mass [1]
  damping [0.002]
  stiffness [3.36]
  init u = 1
}
let r = run m with newmark(beta = 0, gamma = 0.6) from 0 to 1000 step 1 {
  record t, u, u' to "blowup.csv"
  record t, u to "blowup10.csv" every 10
}
print "not reached"
EOF
run blowup
if status_is blowup 4; then
	[ -s "$dir/blowup.stdout" ] && fail "blowup.dyn: the script went on after the failed run: $(cat "$dir/blowup.stdout")"
	msg=$(head -n 1 "$dir/blowup.stderr")
	case $msg in
	*"blowup.dyn:8:"*"grew beyond any physical bound"*) ;;
	*) fail "blowup.dyn: unexpected message: $msg" ;;
	esac
	f=$dir/out/blowup.csv
	if [ ! -f "$f" ]; then
		fail "blowup.csv was not kept"
	else
		[ "$(head -n 1 "$f")" = "t,u,u'" ] || fail "blowup.csv header is '$(head -n 1 "$f")'"
		[ -z "$(tail -c 1 "$f")" ] || fail "blowup.csv does not end with a newline (a truncated row)"
		# rows t = 0, 1, 2, ... in order, 3 finite C numbers each
		bad=$(awk -F, 'NR > 1 {
			if (NF != 3) { print "line " NR ": " NF " fields"; next }
			if ($1 != NR - 2) print "line " NR ": t = " $1 ", expected " NR - 2
			for (i = 1; i <= NF; i++)
				if ($i !~ /^-?(0|[1-9][0-9]*)(\.[0-9]+)?(e[-+][0-9][0-9][0-9]?)?$/)
					print "line " NR ", field " i ": \"" $i "\""
		}' "$f" | head -5)
		[ -n "$bad" ] && fail "blowup.csv is not a clean table: $bad"
		last=$(tail -n 1 "$f" | cut -d, -f1)
		case $last in
		''|*[!0-9]*) fail "blowup.csv: the last row's time is '$last'" ;;
		*)
			{ [ "$last" -ge 100 ] && [ "$last" -lt 1000 ]; } ||
				fail "blowup.csv ends at t = $last: the run should fail mid-way (after 100 steps, before 1000)"
			# the failure is reported at the step after the last row
			next=$((last + 1))
			case $msg in
			*"t = $next (step $next)"*) ;;
			*) fail "blowup.csv ends at t = $last but the failure is reported as: $msg" ;;
			esac
			# the every-10 file holds steps 0, 10, ... and, as its last
			# row, the last step computed (DESIGN.md: rows for t0 and the
			# last step are always written)
			n10=$(($(wc -l < "$dir/out/blowup10.csv") - 1))
			want=$((last / 10 + 1))
			[ $((last % 10)) -ne 0 ] && want=$((want + 1))
			[ "$n10" = "$want" ] ||
				fail "blowup10.csv has $n10 rows, expected $want"
			last10=$(tail -n 1 "$dir/out/blowup10.csv" | cut -d, -f1)
			[ "$last10" = "$last" ] || fail "blowup10.csv ends at t = $last10, not at the last step $last"
			[ -z "$(tail -c 1 "$dir/out/blowup10.csv")" ] || fail "blowup10.csv does not end with a newline"
			;;
		esac
	fi
fi

# a recorded expression with no value (the square root of a negative
# number) is written nan, as print writes it, never printf's -nan
cat > "$dir/nan.dyn" <<'EOF'
model m {
  dof u
  mass [1]
  stiffness [1]
  init u = 1
}
run m with newmark from 0 to 0.2 step 0.1 { record t, q = sqrt(u - 0.995) to "n.csv" }
EOF
mkdir -p "$dir/out"
"$DYN" -o "$dir/out" "$dir/nan.dyn" || fail "nan.dyn failed"
[ "$(tail -n 1 "$dir/out/n.csv")" = "0.2,nan" ] || fail "a NaN record is written $(tail -n 1 "$dir/out/n.csv")"

[ $status -eq 0 ] && echo "csv_records: all checks passed"
exit $status
