#!/bin/sh
# cli.sh — the command line (dyn --help, man/dyn.1, DESIGN.md "Errors"):
# every option, the exit statuses of usage errors (2) and unreadable
# scripts (3), --quiet, and scripts read from standard input.
#
# Environment (tests/run-tests): DYN the binary, srcdir the source tree,
# OUT a writable folder for outputs.
set -u
: "${DYN:?DYN is not set}" "${srcdir:?srcdir is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB DYN_HISTORY_BUDGET
LC_ALL=C
export LC_ALL

. "$srcdir/tests/shell/common.inc"
test_folder cli cli
cd "$dir" || exit 1

# t NAME ARGS...: run dyn with ARGS (stdin from /dev/null unless NAME.in
# exists), leaving NAME.out, NAME.err and the exit status in $rc.
t() {
	name=$1
	shift
	if [ -f "$name.in" ]; then
		"$DYN" "$@" < "$name.in" > "$name.out" 2> "$name.err"
	else
		"$DYN" "$@" < /dev/null > "$name.out" 2> "$name.err"
	fi
	rc=$?
	if [ $rc -ge 128 ]; then
		fail "$name: dyn $*: killed by a signal (exit status $rc)"
	fi
}

want_rc() {  # NAME EXPECTED
	[ "$rc" = "$2" ] || fail "$1: exit status $rc, expected $2; stderr: $(head -c 300 "$1.err")"
}
empty() {  # FILE WHAT
	[ -s "$1" ] && fail "$2 should be empty: $(head -c 300 "$1")"
	return 0
}
has() {  # FILE TEXT WHAT
	grep -F -q -e "$2" "$1" || fail "$3: expected '$2' in: $(head -c 300 "$1")"
}

cat > ok.dyn <<'EOF'
param k = 3
model osc {
  param c = 0
  dof u
  mass [1]
  damping [c]
  stiffness [k]
  init u = 1
}
let r = run osc with trapezoidal from 0 to 6 step 2
print r.u(2), r.u''(0)
EOF

# --help, -h: usage on stdout, exit 0
for opt in --help -h; do
	t help "$opt"
	want_rc help 0
	has help.out "--set" "dyn $opt"
	has help.out "Usage: dyn" "dyn $opt"
	empty help.err "stderr of dyn $opt"
done

# --version, -V: "dyn VERSION", then the backends built in, exit 0
for opt in --version -V; do
	t version "$opt"
	want_rc version 0
	grep -q '^dyn [0-9][0-9]*\.[0-9][0-9]*' version.out || fail "dyn $opt printed: $(cat version.out)"
	grep -q '^backends: LAPACK (dense, banded), CHOLMOD, UMFPACK, ARPACK, \(PETSc [0-9]\|no PETSc\)' version.out ||
		fail "dyn $opt does not list the backends: $(cat version.out)"
	[ "$(wc -l < version.out | tr -d ' ')" = 2 ] || fail "dyn $opt printed other than two lines"
	empty version.err "stderr of dyn $opt"
done

# unknown options: exit 2, a message naming the option and --help
t unknown --bogus ok.dyn
want_rc unknown 2
has unknown.err "bogus" "dyn --bogus"
# getopt's message names the program as dyn's own messages do, not the
# path it was started by
grep -q "^dyn: unrecognized option '--bogus'" unknown.err || fail "dyn --bogus: not 'dyn: ...': $(head -1 unknown.err)"
has unknown.err "--help" "dyn --bogus"
empty unknown.out "stdout of dyn --bogus"
t unknown_short -Z ok.dyn
want_rc unknown_short 2
has unknown_short.err "Z" "dyn -Z"
empty unknown_short.out "stdout of dyn -Z"

# an option without its argument
t noarg ok.dyn --set
want_rc noarg 2
has noarg.err "set" "dyn ok.dyn --set"
t noarg_o ok.dyn -o
want_rc noarg_o 2
empty noarg_o.out "stdout of dyn ok.dyn -o"

# two scripts: exit 2, nothing run
t two ok.dyn ok.dyn
want_rc two 2
has two.err "one script at a time" "dyn ok.dyn ok.dyn"
empty two.out "stdout of dyn ok.dyn ok.dyn"

# --set without '=', with a non-number (nan and inf are not numbers a
# param can take), with an empty name
t set_noeq --set k ok.dyn
want_rc set_noeq 2
has set_noeq.err "--set k: expected NAME=VALUE" "dyn --set k"
empty set_noeq.out "stdout of dyn --set k"
# (0x10 and ' 3' are strtod's numbers, not the language's: 0x10 was 16)
for v in abc 1.5x '' 0,5 nan inf -inf 0x10 ' 3' 1p3; do
	t set_nan --set "k=$v" ok.dyn
	want_rc set_nan 2
	has set_nan.err "is not a number" "dyn --set k=$v"
	empty set_nan.out "stdout of dyn --set k=$v"
done
# a point followed by no digit is malformed in a script (5.), so here too
for v in 5. 1.e1 -3.; do
	t set_point --set "k=$v" ok.dyn
	want_rc set_point 2
	has set_point.err "is not a number as a script writes it: a point is followed by a digit" "dyn --set k=$v"
	empty set_point.out "stdout of dyn --set k=$v"
done
t set_point_ok --set k=.5 ok.dyn
want_rc set_point_ok 0
t o_empty -o '' ok.dyn
want_rc o_empty 2
has o_empty.err "dyn: -o: the folder name is empty" "dyn -o ''"
t set_huge --set k=1e400 ok.dyn
want_rc set_huge 2
has set_huge.err "dyn: --set k=1e400: '1e400' is too large for a double" "dyn --set k=1e400"
empty set_huge.out "stdout of dyn --set k=1e400"
t set_noname --set =3 ok.dyn
want_rc set_noname 2
empty set_noname.out "stdout of dyn --set =3"

# --set of a name the script does not declare: exit 2 before anything runs
t set_unknown --set kk=2 ok.dyn
want_rc set_unknown 2
has set_unknown.err "kk" "dyn --set kk=2"
empty set_unknown.out "stdout of dyn --set kk=2"
t set_model_unknown --set osc.k=2 ok.dyn
want_rc set_model_unknown 2
has set_model_unknown.err "osc.k" "dyn --set osc.k=2"
t set_model_wrong --set other.c=2 ok.dyn
want_rc set_model_wrong 2
has set_model_wrong.err "other.c" "dyn --set other.c=2"

# --set that works, short and long, before and after the script; u''(0)
# = -k u(0) - c u'(0) shows the value used
t set_plain ok.dyn
want_rc set_plain 0
[ "$(cat set_plain.out)" = "-0.5 -3" ] || fail "dyn ok.dyn printed $(cat set_plain.out), expected -0.5 -3"
t set_ok --set k=12 -s osc.c=0.5 ok.dyn
want_rc set_ok 0
case $(cat set_ok.out) in *" -12") ;; *) fail "dyn --set k=12 -s osc.c=0.5: printed $(cat set_ok.out)" ;; esac
t set_after ok.dyn --set=k=12
want_rc set_after 0
case $(cat set_after.out) in *" -12") ;; *) fail "dyn ok.dyn --set=k=12 (option after the script): printed $(cat set_after.out)" ;; esac

# -o: a folder that does not exist, or a file: exit 2, nothing run
t out_missing -o "$dir/no/such/folder" ok.dyn
want_rc out_missing 2
has out_missing.err "no/such/folder" "dyn -o no/such/folder"
empty out_missing.out "stdout of dyn -o no/such/folder"
t out_file -o "$dir/ok.dyn" ok.dyn
want_rc out_file 2
empty out_file.out "stdout of dyn -o FILE"

# a script that does not exist or cannot be read: exit 3
t missing "$dir/nonexistent.dyn"
want_rc missing 3
has missing.err "nonexistent.dyn" "dyn nonexistent.dyn"
empty missing.out "stdout of dyn nonexistent.dyn"
t missing_dir "$dir"
want_rc missing_dir 3
has missing_dir.err "$dir" "dyn DIR"

# --check, -c: a valid script, no output, exit 0, nothing written
cat > rec.dyn <<'EOF'
model osc {
  dof u
  mass [1]
  stiffness [3]
  init u = 1
}
let r = run osc with trapezoidal from 0 to 6 step 2 {
  record t, u to "rec.csv"
}
print r.u(6)
EOF
mkdir -p check_out
for opt in --check -c; do
	t check "$opt" -o check_out rec.dyn
	want_rc check 0
	empty check.out "stdout of dyn $opt"
	empty check.err "stderr of dyn $opt"
	[ -f check_out/rec.csv ] && fail "dyn $opt wrote rec.csv: it must not step"
done

# --dump-ir: the IR on stdout, nothing run, exit 0
t dump --dump-ir -o check_out rec.dyn
want_rc dump 0
has dump.out "model osc: 1 dof" "dyn --dump-ir"
has dump.out "record to" "dyn --dump-ir"
[ -f check_out/rec.csv ] && fail "dyn --dump-ir wrote rec.csv: it must not step"

# --list-schemes: the families, exit 0, no script read
t list --list-schemes
want_rc list 0
has list.out "newmark" "dyn --list-schemes"
has list.out "central_difference" "dyn --list-schemes"
empty list.err "stderr of dyn --list-schemes"
t list_noscript --list-schemes "$dir/nonexistent.dyn"
want_rc list_noscript 0

# long options may be abbreviated; -- ends the options
t abbrev --vers
want_rc abbrev 0
grep -q '^dyn ' abbrev.out || fail "dyn --vers printed: $(cat abbrev.out)"
cp ok.dyn ./-dash.dyn
t dashdash -- -dash.dyn
want_rc dashdash 0
[ "$(cat dashdash.out)" = "-0.5 -3" ] || fail "dyn -- -dash.dyn printed $(cat dashdash.out)"

# --quiet, -q: no warning for a shortened last step; errors still shown
cat > short.dyn <<'EOF'
model osc {
  dof u
  mass [1]
  stiffness [3]
  init u = 1
}
let r = run osc with trapezoidal from 0 to 1 step 0.3
print r.t(1)
EOF
t loud short.dyn
want_rc loud 0
has loud.err "warning: the last step is shortened" "dyn short.dyn"
for opt in --quiet -q; do
	t quiet "$opt" short.dyn
	want_rc quiet 0
	empty quiet.err "stderr of dyn $opt short.dyn"
	[ "$(cat quiet.out)" = 1 ] || fail "dyn $opt short.dyn printed $(cat quiet.out)"
done
printf 'print 1\nprint 1/0\n' > err.dyn
t quiet_error -q err.dyn
want_rc quiet_error 3
has quiet_error.err "err.dyn:2:" "dyn -q err.dyn"

# exit 1: a failed check, the script goes on
printf 'check 1 == 2 within 0.5\nprint "after"\n' > checkfail.dyn
t checkfail checkfail.dyn
want_rc checkfail 1
[ "$(cat checkfail.out)" = after ] || fail "dyn checkfail.dyn printed $(cat checkfail.out)"
has checkfail.err "checkfail.dyn:1:1: check failed" "dyn checkfail.dyn"

# exit 3 when standard output cannot be written
if [ -w /dev/full ]; then
	"$DYN" ok.dyn > /dev/full 2> full.err < /dev/null
	rc=$?
	want_rc full 3
	# a print, then a run: the failed write's reason, never a later
	# call's errno (it said "Inappropriate ioctl for device")
	printf 'model m {\n  dof u\n  mass [1]\n  stiffness [1]\n  init u = 1\n}\nprint 1\nlet r = run m with newmark from 0 to 1 step 0.1\n' > fullrun.dyn
	"$DYN" fullrun.dyn > /dev/full 2> fullrun.err < /dev/null
	rc=$?
	want_rc fullrun 3
	grep -q "ioctl\|No such file" fullrun.err && fail "dyn fullrun.dyn > /dev/full: a stale reason: $(cat fullrun.err)"
	grep -q "^dyn: error writing the standard output" fullrun.err || fail "dyn fullrun.dyn > /dev/full: $(cat fullrun.err)"
fi

# a reader that closes the pipe early: exit 3 and the message, not death
# by SIGPIPE (status 141)
printf 'for i in 1..200000 {\n  print i\n}\n' > many.dyn
{ "$DYN" many.dyn 2> pipe.err < /dev/null; echo $? > pipe.rc; } | head -n 1 > pipe.out
rc=$(cat pipe.rc)
want_rc pipe 3
[ "$(cat pipe.out)" = 1 ] || fail "dyn many.dyn | head -n 1 printed $(cat pipe.out)"
has pipe.err "dyn: error writing the standard output" "dyn many.dyn | head -n 1"

# standard input: "dyn < FILE" and "dyn - < FILE" give the same output,
# exit status and files as "dyn FILE" (examples/seismic.dyn, with -o)
seismic=$srcdir/examples/seismic.dyn
if [ ! -f "$seismic" ]; then
	fail "$seismic is missing"
else
	mkdir -p file_out stdin_out dash_out
	"$DYN" -o file_out "$seismic" > file.out 2> file.err < /dev/null
	rc_file=$?
	"$DYN" -o stdin_out < "$seismic" > stdin.out 2> stdin.err
	rc_stdin=$?
	"$DYN" -o dash_out - < "$seismic" > dash.out 2> dash.err
	rc_dash=$?
	[ $rc_file = 0 ] || fail "dyn -o DIR seismic.dyn: exit status $rc_file: $(head -c 300 file.err)"
	[ $rc_stdin = $rc_file ] || fail "dyn < seismic.dyn: exit status $rc_stdin, dyn seismic.dyn: $rc_file"
	[ $rc_dash = $rc_file ] || fail "dyn - < seismic.dyn: exit status $rc_dash, dyn seismic.dyn: $rc_file"
	[ -s file.out ] || fail "dyn seismic.dyn printed nothing"
	cmp -s file.out stdin.out || fail "dyn < seismic.dyn printed '$(cat stdin.out)', dyn seismic.dyn '$(cat file.out)'"
	cmp -s file.out dash.out || fail "dyn - < seismic.dyn printed '$(cat dash.out)', dyn seismic.dyn '$(cat file.out)'"
	for f in seismic.csv seismic.svg; do
		[ -s "file_out/$f" ] || fail "dyn -o DIR seismic.dyn did not write $f"
		cmp -s "file_out/$f" "stdin_out/$f" || fail "$f differs when the script comes from standard input"
		cmp -s "file_out/$f" "dash_out/$f" || fail "$f differs when the script comes from '-'"
	done
fi

# errors in a script read from standard input name <stdin>:LINE:COL
printf 'print 1\nprint 2 +* 3\n' > syntax.in
t syntax
want_rc syntax 3
has syntax.err "<stdin>:2:10: error: syntax error" "dyn < syntax error"
empty syntax.out "stdout of dyn < syntax error"
cp syntax.in syntax_dash.in
t syntax_dash -
want_rc syntax_dash 3
has syntax_dash.err "<stdin>:2:10: error: syntax error" "dyn - < syntax error"
printf 'let a = 1\nprint a\nprint undefined_name + 1\n' > runtime.in
t runtime
want_rc runtime 3
has runtime.err "<stdin>:3:7: error: undefined name 'undefined_name'" "dyn < undefined name"
printf 'check 1 == 2 within 0.5\n' > stdincheck.in
t stdincheck -
want_rc stdincheck 1
has stdincheck.err "<stdin>:1:1: check failed" "dyn - < failed check"
# an empty standard input is an empty script
t emptyin
want_rc emptyin 0
empty emptyin.out "stdout of dyn < /dev/null"
empty emptyin.err "stderr of dyn < /dev/null"

# -c or --dump-ir with -i: one or the other (-i was obeyed, the other
# ignored); -i - : standard input is the prompt's
for o in -c --dump-ir; do
	t check_i "$o" -i ok.dyn
	want_rc check_i 2
	has check_i.err "dyn: $o checks a script without running it, -i runs one and then reads the prompt: give one or the other" "dyn $o -i"
done
t i_stdin -i -
want_rc i_stdin 2
has i_stdin.err "dyn: -i takes a script file: standard input is the prompt's (dyn - runs a script from it)" "dyn -i -"
# -c without a file on a terminal: refused, not the REPL
if [ -n "${PTYRUN:-}" ] && [ -x "$PTYRUN" ]; then
	printf 'expect dyn: -c needs a script: a FILE, or - for standard input\nexit 2\n' > c_tty.pty
	"$PTYRUN" c_tty.pty "$DYN" -c > c_tty.out 2> c_tty.err || fail "dyn -c on a terminal: $(cat c_tty.err c_tty.out)"
fi

[ $status -eq 0 ] && echo "cli: all checks passed"
exit $status
