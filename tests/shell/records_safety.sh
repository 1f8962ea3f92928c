#!/bin/sh
# records_safety.sh — what a user finds in a record file after each kind
# of stop (dyn(1), "FILES WRITTEN"):
#   - a run refused before its first step (a step above the critical step,
#     an initial state off a constraint, an init equilibrium that Newton
#     does not solve) leaves an existing file as it was;
#   - SIGINT, SIGTERM, SIGHUP and SIGXCPU stop a run after its current
#     step with exit status 128 + the signal's number (130, 143, 129, 152):
#     the file then holds a header and whole rows only, up to the step
#     reached, and no temporary is left;
#   - SIGKILL leaves the old file untouched (the rows written so far are
#     in the hidden temporary .NAME.XXXXXX beside it);
#   - a normal end replaces the old file by the new one whole, with the
#     old one's permissions (a new file: 0666 less the umask);
#   - a name that is a link to the process's standard output
#     (/proc/self/fd/1, as /dev/stdout is) is not replaced: the rows go
#     to the output, after what was printed before, and the link stays;
#   - a name that is a folder is refused before the run (status 3), a
#     record's or a field's; a link to a folder is replaced by the file.
#
# The long run is 10^7 steps of an oscillator (about a minute when it is
# not stopped); it is stopped once its temporary holds some rows.
#
# Environment (tests/run-tests): DYN the binary, srcdir the source tree,
# OUT a writable folder for outputs.
set -u
: "${DYN:?DYN is not set}" "${srcdir:?srcdir is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB DYN_HISTORY_BUDGET
LC_ALL=C
export LC_ALL

. "$srcdir/tests/shell/common.inc"
test_folder records_safety records_safety

OLD='old,content
1,2
'

# whole FILE NCOL: FILE is a header of NCOL names and rows of NCOL
# numbers, and ends with a newline.
whole() {
	if [ ! -s "$1" ]; then
		fail "$1 is missing or empty"
		return
	fi
	if [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" != '\n' ]; then
		fail "$1 does not end with a newline: its last row is cut"
	fi
	bad=$(awk -F, -v n="$2" '
		NR == 1 { if (NF != n) { print "header: " $0; exit } next }
		NF != n { print "line " NR " has " NF " fields"; exit }
		{ for (i = 1; i <= NF; i++)
			if ($i !~ /^-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?$/) { print "line " NR ": field " i; exit } }
		END { if (NR < 2) print "no row" }' "$1")
	[ -z "$bad" ] || fail "$1: not whole rows: $bad"
}

# 1. Refused before the first step: the old file stays.
cat > "$dir/critical.dyn" <<'EOF'
model m {
  dof u
  mass [1]
  stiffness [100]
  init u = 1
}
let r = run m with central_difference from 0 to 1 step 0.25 {
  record t, u to "a.csv"
}
EOF
cat > "$dir/constraint.dyn" <<'EOF'
model m {
  dof x, y
  kinetic 0.5*(x'^2 + y'^2)
  potential 9.81*y
  constraint x^2 + y^2 == 1
  init x = 0.5, y = 0.5
}
let r = run m with midpoint from 0 to 1 step 0.01 {
  record t, x to "a.csv"
}
EOF
cat > "$dir/equilibrium.dyn" <<'EOF'
model m {
  dof u
  kinetic 0.5*u'^2
  potential 1 - cos(u)
  force 2
  init equilibrium
}
let r = run m with midpoint from 0 to 1 step 0.01 {
  record t, u to "a.csv"
}
EOF
for case in critical constraint equilibrium; do
	printf '%s' "$OLD" > "$dir/a.csv"
	(cd "$dir" && "$DYN" "$case.dyn" > "$case.out" 2> "$case.err")
	rc=$?
	[ "$rc" -eq 3 ] || fail "$case: exit status $rc, expected 3: $(head -1 "$dir/$case.err")"
	[ "$(cat "$dir/a.csv")" = "$(printf '%s' "$OLD")" ] ||
		fail "$case: the refused run changed a.csv: $(head -2 "$dir/a.csv")"
	no_temporary "$case" a.csv
done

# 2. Signals during a long run.
cat > "$dir/long.dyn" <<'EOF'
model m {
  dof u
  mass [1]
  stiffness [1]
  init u = 1
}
let r = run m with trapezoidal from 0 to 1e6 step 0.1 {
  record t, u, u' to "a.csv"
}
EOF

# start_long: run long.dyn in the background ($pid) and wait until its
# temporary holds rows (at most 20 s).
start_long() {
	printf '%s' "$OLD" > "$dir/a.csv"
	(cd "$dir" && exec "$DYN" long.dyn > long.out 2> long.err) &
	pid=$!
	i=0
	while [ $i -lt 200 ]; do
		for f in "$dir"/.a.csv.*; do
			[ -s "$f" ] && return 0
		done
		sleep 0.1
		i=$((i + 1))
	done
	fail "$1: no temporary .a.csv.XXXXXX appeared beside a.csv within 20 s"
	kill -s KILL $pid
	wait $pid
	return 1
}

for sig in INT:2 TERM:15 HUP:1 XCPU:24; do
	name=${sig%:*}
	num=${sig#*:}
	start_long "SIG$name" || continue
	kill -s "$name" $pid
	# A signal ignored by whoever started the tests (nohup for SIGHUP)
	# stays ignored by dyn, which is right: then stop it with SIGTERM.
	i=0
	while kill -0 $pid 2> /dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 $pid 2> /dev/null; then
		echo "records_safety: SIG$name is ignored here (nohup?): not tested"
		kill -s TERM $pid
		wait $pid
		continue
	fi
	wait $pid
	rc=$?
	[ "$rc" -eq $((128 + num)) ] || fail "SIG$name: exit status $rc, expected $((128 + num))"
	whole "$dir/a.csv" 3
	no_temporary "SIG$name" a.csv
	if [ "$name" = INT ]; then
		grep -q '^long.dyn:7:9: error: interrupted at t = [0-9.e+]* (step [0-9]* of 10000000)$' "$dir/long.err" ||
			fail "SIGINT: message: $(head -1 "$dir/long.err")"
	else
		grep -q "^long.dyn:7:9: error: stopped by SIG$name at t = [0-9.e+]* (step [0-9]* of 10000000)\$" "$dir/long.err" ||
			fail "SIG$name: message: $(head -1 "$dir/long.err")"
	fi
	# the last row is the step named in the message
	step=$(sed -n 's/.*(step \([0-9]*\) of.*/\1/p' "$dir/long.err")
	rows=$(($(wc -l < "$dir/a.csv") - 1))
	[ "$rows" -eq $((step + 1)) ] || fail "SIG$name: $rows rows for steps 0..$step"
done

# 3. SIGKILL: nothing can be done at the time; the old file is intact.
if start_long SIGKILL; then
	kill -s KILL $pid
	wait $pid
	[ "$(cat "$dir/a.csv")" = "$(printf '%s' "$OLD")" ] || fail "SIGKILL: a.csv changed"
	rm -f "$dir"/.a.csv.*
fi

# 4. A normal end replaces the old file whole, with the permissions of a
#    new file (0666 less the umask), not those of a private temporary.
cat > "$dir/short.dyn" <<'EOF'
model m {
  dof u
  mass [1]
  stiffness [1]
  init u = 1
}
let r = run m with trapezoidal from 0 to 1 step 0.1 {
  record t, u to "a.csv"
}
EOF
printf '%s' "$OLD" > "$dir/a.csv"
(cd "$dir" && umask 022 && "$DYN" short.dyn) || fail "short.dyn failed"
[ "$(wc -l < "$dir/a.csv")" -eq 12 ] || fail "normal end: $(wc -l < "$dir/a.csv") lines, expected 12"
whole "$dir/a.csv" 2
no_temporary "normal end" a.csv
case $(ls -l "$dir/a.csv") in
-rw-r--r--*) ;;
*) fail "normal end: permissions $(ls -l "$dir/a.csv")" ;;
esac
# a file that replaces another keeps its permissions; a new one has
# 0666 less the umask
chmod 640 "$dir/a.csv"
(cd "$dir" && umask 022 && "$DYN" short.dyn) || fail "short.dyn failed"
case $(ls -l "$dir/a.csv") in
-rw-r-----*) ;;
*) fail "a record over a file of mode 640: permissions $(ls -l "$dir/a.csv")" ;;
esac
rm -f "$dir/a.csv"
(cd "$dir" && umask 027 && "$DYN" short.dyn) || fail "short.dyn failed"
case $(ls -l "$dir/a.csv") in
-rw-r-----*) ;;
*) fail "a new record under umask 027: permissions $(ls -l "$dir/a.csv")" ;;
esac

# a link to standard output: written through, never replaced
ln -sf /proc/self/fd/1 "$dir/tostdout"
cat > "$dir/so.dyn" <<'EOF'
model m {
  dof u
  mass [1]
  stiffness [1]
  init u = 1
}
print "before"
run m with newmark from 0 to 0.2 step 0.1 { record t, u to "tostdout" }
print "after"
EOF
(cd "$dir" && "$DYN" so.dyn > so.out) || fail "so.dyn failed"
[ -L "$dir/tostdout" ] || fail "the link to standard output was replaced"
[ "$(cat "$dir/so.out")" = "before
t,u
0,1
0.1,0.9950124688279303
0.2,0.9800996262461055
after" ] || fail "a record to a link to standard output: $(cat "$dir/so.out")"
no_temporary "standard output" tostdout

# a folder is refused before the run, at the name; a link to one is
# replaced, the folder left as it was
mkdir -p "$dir/afolder" "$dir/afolder.pvd" "$dir/target"
ln -sfn target "$dir/tofolder"
cat > "$dir/folder.dyn" <<'EOF'
model m {
  dof u
  mass [1]
  stiffness [1]
  init u = 1
}
run m with newmark from 0 to 0.2 step 0.1 { record t, u to "afolder" }
EOF
(cd "$dir" && "$DYN" folder.dyn > folder.out 2>&1)
rc=$?
[ $rc -eq 3 ] || fail "a record to a folder: status $rc"
grep -q "^folder.dyn:7:60: error: cannot write 'afolder': it names a folder, not a file" "$dir/folder.out" ||
	fail "a record to a folder: $(cat "$dir/folder.out")"
sed 's/"afolder"/"tofolder"/' "$dir/folder.dyn" > "$dir/tofolder.dyn"
(cd "$dir" && "$DYN" tofolder.dyn > tofolder.out 2>&1) || fail "a record to a link to a folder: $(cat "$dir/tofolder.out")"
[ -f "$dir/tofolder" ] && [ ! -L "$dir/tofolder" ] || fail "the link to a folder was not replaced by the record"
[ "$(head -n 1 "$dir/tofolder")" = "t,u" ] || fail "the record through a link to a folder: $(head -n 2 "$dir/tofolder")"
[ -d "$dir/target" ] && [ -z "$(ls -A "$dir/target")" ] || fail "the linked folder changed: $(ls -A "$dir/target")"
cat > "$dir/ffolder.dyn" <<'EOF'
mesh bar = interval(0, 1, cells = 4)
model w {
  field u on bar : P1
  kinetic   integral(bar, 0.5*u'^2)
  potential integral(bar, 0.5*grad(u)^2)
  fix u on left
}
run w with newmark from 0 to 1 step 0.5 { record field u to "afolder.pvd" }
EOF
(cd "$dir" && "$DYN" ffolder.dyn > ffolder.out 2>&1)
rc=$?
[ $rc -eq 3 ] || fail "a field record to a folder: status $rc"
grep -q "^ffolder.dyn:8:61: error: cannot write 'afolder.pvd': it names a folder, not a file" "$dir/ffolder.out" ||
	fail "a field record to a folder: $(cat "$dir/ffolder.out")"

exit $status
