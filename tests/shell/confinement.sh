#!/bin/sh
# confinement.sh — a script writes into the output folder (-o DIR, or the
# current folder) or below it, judged on real paths (dyn(1), "OUTPUT
# FILES"), and never over itself or its modules:
#   - "..", an absolute path elsewhere, a symbolic link to a folder
#     elsewhere: refused with exit 3 and a message naming
#     --allow-write-anywhere, nothing written;
#   - an absolute path inside the folder, a link to a folder inside it:
#     written;
#   - --allow-write-anywhere lifts the restriction, but not the
#     protection of the script and its modules (also through a link, and
#     of a script read from standard input redirected from its file);
#   - two records through a linked folder are one file (exit 3);
#   - file names in messages have their control characters escaped.
#
# Environment (tests/run-tests): DYN the binary, srcdir the source tree,
# OUT a writable folder for outputs.
set -u
: "${DYN:?DYN is not set}" "${srcdir:?srcdir is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB DYN_HISTORY_BUDGET
LC_ALL=C
export LC_ALL

. "$srcdir/tests/shell/common.inc"
test_folder confinement confinement out out/sub elsewhere scripts

ln -s "$dir/elsewhere" "$dir/out/away"
ln -s "$dir/out/sub" "$dir/out/inner"
ln -s . "$dir/out/alias"

# script NAME PATH...: a script writing one record per PATH.
script() {
	name=$1
	shift
	{
		printf 'import helper\nmodel m {\n  dof u\n  mass [1]\n  stiffness [1]\n  init u = 1\n}\n'
		printf 'let r = run m with trapezoidal from 0 to 1 step 0.5 {\n'
		for p in "$@"; do
			printf '  record t, u to "%s"\n' "$p"
		done
		printf '}\nprint "done"\n'
	} > "$dir/scripts/$name.dyn"
}
printf 'param helper_k = 1\n' > "$dir/scripts/helper.dyn"

# run NAME EXPECTED-STATUS [OPTIONS...]: run from $dir with -o out.
run() {
	name=$1
	want=$2
	shift 2
	(cd "$dir" && "$DYN" -o out "$@" "scripts/$name.dyn" > "$name.out" 2> "$name.err")
	rc=$?
	[ "$rc" -eq "$want" ] || fail "$name: exit status $rc, expected $want: $(head -1 "$dir/$name.err")"
}

refused() {  # NAME: the message names the option
	grep -q "is outside the output folder 'out': a script writes there or below unless dyn runs with --allow-write-anywhere\$" "$dir/$1.err" ||
		fail "$1: message: $(head -1 "$dir/$1.err")"
}

script dotdot "../dotdot.csv"
run dotdot 3
refused dotdot
[ -e "$dir/dotdot.csv" ] && fail "dotdot: ../dotdot.csv was written"

script subdotdot "sub/../../subdotdot.csv"
run subdotdot 3
refused subdotdot

script absolute_away "$dir/elsewhere/abs.csv"
run absolute_away 3
refused absolute_away
[ -e "$dir/elsewhere/abs.csv" ] && fail "absolute_away: written"

script link_away "away/link.csv"
run link_away 3
refused link_away
[ -e "$dir/elsewhere/link.csv" ] && fail "link_away: written through the link"

script inside "$dir/out/sub/abs.csv" "inner/linked.csv" "sub/../plain.csv"
run inside 0
for f in sub/abs.csv sub/linked.csv plain.csv; do
	[ -s "$dir/out/$f" ] || fail "inside: out/$f was not written"
done

script allowed "../allowed.csv" "away/allowed.csv"
run allowed 0 --allow-write-anywhere
[ -s "$dir/allowed.csv" ] && [ -s "$dir/elsewhere/allowed.csv" ] || fail "allowed: not written"

# The script and its module, with -o their own folder and the option
# that lifts confinement: still refused, the files untouched.
cp "$dir/scripts/helper.dyn" "$dir/helper.saved"
script self "$dir/scripts/helper.dyn"
(cd "$dir" && "$DYN" -o scripts --allow-write-anywhere scripts/self.dyn > self.out 2> self.err)
rc=$?
[ "$rc" -eq 3 ] || fail "self: exit status $rc, expected 3"
grep -q "is the script '.*helper.dyn': a script's outputs never overwrite it or the modules it imports" "$dir/self.err" ||
	fail "self: message: $(head -1 "$dir/self.err")"
cmp -s "$dir/helper.saved" "$dir/scripts/helper.dyn" || fail "self: the module was overwritten"

ln -s ../scripts/selflink.dyn "$dir/out/selflink.csv"
script selflink "selflink.csv"
cp "$dir/scripts/selflink.dyn" "$dir/selflink.saved"
run selflink 3 --allow-write-anywhere
grep -q "is the script 'scripts/selflink.dyn'" "$dir/selflink.err" || fail "selflink: message: $(head -1 "$dir/selflink.err")"
cmp -s "$dir/selflink.saved" "$dir/scripts/selflink.dyn" || fail "selflink: the script was overwritten"

# A script read from standard input (dyn < FILE) is that file: a record
# to its name is refused, the script untouched.
printf 'model m {\n  dof x\n  mass [1]\n  stiffness [1]\n  init x = 1\n}\nrun m with newmark from 0 to 1 step 0.1 {\n  record x to "piped.dyn"\n}\n' > "$dir/piped.dyn"
cp "$dir/piped.dyn" "$dir/piped.saved"
(cd "$dir" && "$DYN" < piped.dyn > piped.out 2> piped.err)
rc=$?
[ "$rc" -eq 3 ] || fail "piped: exit status $rc, expected 3"
grep -q "^<stdin>:8:15: error: 'piped.dyn' is the script '<stdin>': a script's outputs never overwrite it" "$dir/piped.err" ||
	fail "piped: message: $(head -1 "$dir/piped.err")"
cmp -s "$dir/piped.saved" "$dir/piped.dyn" || fail "piped: the script was overwritten"

# One file through a linked folder (alias -> .): refused at the second.
script twice "a.csv" "alias/a.csv"
run twice 3
grep -q "^scripts/twice.dyn:10:18: error: two records write the same file: 'out/alias/a.csv' is 'out/a.csv'\$" "$dir/twice.err" ||
	fail "twice: message: $(head -1 "$dir/twice.err")"
grep -q "^scripts/twice.dyn:9:18: note: 'out/a.csv' is written here\$" "$dir/twice.err" ||
	fail "twice: note: $(sed -n 4p "$dir/twice.err")"

# Names in messages are shown with their control characters escaped, so
# that a file name cannot drive the terminal.
"$DYN" "$(printf 'no\033[2Jsuch.dyn')" 2> "$dir/escaped.err"
[ "$(cat "$dir/escaped.err")" = 'dyn: cannot open '"'"'no\x1b[2Jsuch.dyn'"'"': No such file or directory' ] ||
	fail "escaped: $(od -c "$dir/escaped.err" | head -3)"

# The same in the location of a diagnostic: a script whose name holds an
# escape sequence, with a syntax error in it.
bad=$(printf 'bad\033[2Jname.dyn')
printf 'let x =\n' > "$dir/$bad"
(cd "$dir" && "$DYN" "$bad" 2> escaped_loc.err)
[ "$(head -1 "$dir/escaped_loc.err")" = 'bad\x1b[2Jname.dyn:1:8: error: syntax error: unexpected end of file' ] ||
	fail "escaped location: $(od -c "$dir/escaped_loc.err" | head -3)"

exit $status
