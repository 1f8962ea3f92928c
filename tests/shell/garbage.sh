#!/bin/sh
# garbage.sh — input that is not a script: binary bytes, NUL and 0xff
# bytes, a UTF-8 byte order mark, deep nesting.  dyn must reject it with a
# diagnostic at a line:col (DESIGN.md, "Errors": exit 3 for anything found
# before stepping), never crash (exit status >= 128) and never hang.
#
# The "random" inputs come from a fixed linear congruential generator in
# awk (x = 69069 x + 1 mod 2^32, exact in double arithmetic), not from
# /dev/urandom, so that every run feeds the same bytes.
#
# Environment (tests/run-tests): DYN the binary, srcdir the source tree,
# OUT a writable folder for outputs.
set -u
: "${DYN:?DYN is not set}" "${srcdir:?srcdir is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB DYN_HISTORY_BUDGET
LC_ALL=C
export LC_ALL

. "$srcdir/tests/shell/common.inc"
test_folder garbage garbage
cd "$dir" || exit 1

# A runner that stops a hang: timeout(1) when there is one.
if command -v timeout > /dev/null 2>&1; then
	TIMEOUT="timeout 10"
else
	TIMEOUT=
fi

# bytes SEED COUNT: COUNT pseudo-random bytes (0..255, NUL included).
# awk writes them as octal escapes and printf(1) turns them into bytes,
# which works with any POSIX awk (no printf "%c" of NUL or of bytes > 127).
bytes() {
	fmt=$(awk -v seed="$1" -v n="$2" 'BEGIN {
		x = seed
		for (i = 0; i < n; i++) {
			x = (69069 * x + 1) % 4294967296
			b = int(x / 16777216)          # the high byte
			printf "\\%03o", b
		}
	}')
	# shellcheck disable=SC2059
	printf "$fmt"
}

# check NAME [ARGS...]: run dyn on NAME (a file in $dir) and require exit
# status 3, no crash, no hang, and a FILE:LINE:COL diagnostic on stderr.
# NAME.want may hold the expected first line of stderr.
check() {
	name=$1
	shift
	$TIMEOUT "$DYN" "$@" "$name" > "$name.out" 2> "$name.err" < /dev/null
	rc=$?
	result "$name" "$name" $rc
}

result() {  # NAME FILE-NAME-IN-DIAGNOSTICS STATUS
	if [ "$3" = 124 ] && [ -n "$TIMEOUT" ]; then
		fail "$1: dyn did not finish within 10 s"
		return
	fi
	if [ "$3" -ge 128 ]; then
		fail "$1: dyn crashed (exit status $3)"
		return
	fi
	[ "$3" = 3 ] || fail "$1: exit status $3, expected 3"
	[ -s "$1.out" ] && fail "$1: something was printed on stdout: $(head -c 200 "$1.out" | od -c | head -3)"
	grep -q "^$2:[0-9][0-9]*:[0-9][0-9]*: error: " "$1.err" ||
		fail "$1: no '$2:LINE:COL: error:' diagnostic: $(head -c 300 "$1.err")"
	# the quoted source lines are sanitised: no control bytes other than
	# tab and newline reach the terminal, and above 0x7e only well-formed
	# UTF-8 that a terminal draws (lang/diag.c, diag_utf8_glyph): no C1
	# control, direction mark, separator, byte-order mark or tag
	if ! perl -e 'local $/; my $s = <STDIN>;
		exit 1 if $s =~ /\xC2[\x80-\x9F]|\xE2\x80[\x8B-\x8F\xA8-\xAE]|\xE2\x81[\xA0-\xAF]|\xEF\xBB\xBF|\xEF\xBF[\xB0-\xBF]|\xF3\xA0[\x80-\x81]/;
		$s =~ s/[\xC2-\xDF][\x80-\xBF]|[\xE0-\xEF][\x80-\xBF]{2}|[\xF0-\xF4][\x80-\xBF]{3}//g;
		exit($s =~ /[^\t\n\x20-\x7E]/ ? 1 : 0)' < "$1.err"; then
		fail "$1: stderr contains raw control bytes or non-ASCII bytes that are not a drawn UTF-8 character"
	fi
	if [ -f "$1.want" ]; then
		head -n 1 "$1.err" > "$1.first"
		cmp -s "$1.want" "$1.first" || fail "$1: first diagnostic is '$(cat "$1.first")', expected '$(cat "$1.want")'"
	fi
}

# 1. pseudo-random binary files of 4 KiB, several seeds
for seed in 1 2 3 42 2024; do
	bytes $seed 4096 > "random$seed.bin"
	n=$(wc -c < "random$seed.bin" | tr -d ' ')
	[ "$n" = 4096 ] || fail "random$seed.bin has $n bytes, expected 4096 (printf cannot write NUL bytes?)"
	check "random$seed.bin"
done

# 2. the same from standard input: diagnostics name <stdin>
$TIMEOUT "$DYN" < random1.bin > stdin.out 2> stdin.err
result stdin "<stdin>" $?

# 3. random bytes after a valid first line, and a valid line after them:
#    nothing is executed when the script does not parse
{ printf 'print "first"\n'; bytes 7 512; printf '\nprint "last"\n'; } > mixed.bin
check mixed.bin

# 4. fixed bytes: a NUL and a 0xff byte after a statement, on line 1
printf 'print 1\000\377\nprint 2\n' > nul_ff.dyn
echo "nul_ff.dyn:1:8: error: unexpected byte 0x00 (is this a text file?)" > nul_ff.dyn.want
check nul_ff.dyn
grep -q "^nul_ff.dyn:1:9: error: unexpected byte 0xff" nul_ff.dyn.err ||
	fail "nul_ff.dyn: the 0xff byte at 1:9 is not reported: $(cat nul_ff.dyn.err)"

# 5. a file of one NUL byte, of 0xff bytes only, of NUL bytes only
printf '\000' > one_nul.dyn
echo "one_nul.dyn:1:1: error: unexpected byte 0x00 (is this a text file?)" > one_nul.dyn.want
check one_nul.dyn
printf '\377\377\377\377' > ff.dyn
echo "ff.dyn:1:1: error: unexpected byte 0xff (is this a text file?)" > ff.dyn.want
check ff.dyn
printf '\000\000\000\000\000\000\000\000\n\000' > nuls.dyn
check nuls.dyn
grep -q "^nuls.dyn:2:1: " nuls.dyn.err || fail "nuls.dyn: the NUL on line 2 is not reported at 2:1: $(tail -n 3 nuls.dyn.err)"

# 6. a 0xff byte on line 3, after valid lines: the location counts lines
printf 'let a = 1\nlet b = 2\nprint a \377 b\n' > line3.dyn
echo "line3.dyn:3:9: error: unexpected byte 0xff (is this a text file?)" > line3.dyn.want
check line3.dyn

# 7. many bad bytes: at most 20 errors, then "too many errors"
bytes 99 64 | tr '\000-\377' '\200-\377\200-\377' > many.bin
check many.bin
[ "$(grep -c ': error: ' many.bin.err)" -le 20 ] || fail "many.bin: more than 20 errors reported"
grep -q "^dyn: too many errors, stopping$" many.bin.err || fail "many.bin: no 'too many errors' line"

# 8. a UTF-8 byte order mark before a valid script.  dyn does not skip it
#    today (exit 3, "unexpected byte 0xef" at 1:1); skipping it and
#    running the script would be fine too.  Either way: no crash, and a
#    located diagnostic when it is refused.
printf '\357\273\277print 1\n' > bom.dyn
$TIMEOUT "$DYN" bom.dyn > bom.dyn.out 2> bom.dyn.err < /dev/null
rc=$?
case $rc in
0)
	[ "$(cat bom.dyn.out)" = 1 ] || fail "bom.dyn: exit 0 but printed '$(cat bom.dyn.out)', expected 1"
	;;
*)
	result bom.dyn bom.dyn $rc
	grep -q "^bom.dyn:1:1: error: " bom.dyn.err || fail "bom.dyn: the BOM is not reported at 1:1"
	;;
esac

# 9. deep nesting of brackets and unary minus: refused with a diagnostic
#    (the parser's stack), not a crash
awk 'BEGIN { printf "print "; for (i = 0; i < 20000; i++) printf "("; printf "1";
             for (i = 0; i < 20000; i++) printf ")"; print "" }' > parens.dyn
check parens.dyn
awk 'BEGIN { printf "print "; for (i = 0; i < 20000; i++) printf "["; print "" }' > brackets.dyn
check brackets.dyn
awk 'BEGIN { printf "print "; for (i = 0; i < 20000; i++) printf "-"; print "1" }' > minus.dyn
check minus.dyn

# 10. an unterminated string running into binary bytes, a huge number
# shellcheck disable=SC2020
{ printf 'print "abc'; bytes 5 100 | tr '\000\n"' 'xxx'; printf '\n'; } > string.bin
check string.bin
awk 'BEGIN { printf "print "; for (i = 0; i < 5000; i++) printf "9"; print "" }' > bignum.dyn
echo "bignum.dyn:1:7: error: number $(awk 'BEGIN { for (i = 0; i < 5000; i++) printf "9" }') is too large for a double" > bignum.dyn.want
check bignum.dyn

# 11. an endless source of NUL bytes: the first NUL stops the reading
#     (dyn /dev/zero read until memory ran out), from a file or stdin
if [ -r /dev/zero ]; then
	$TIMEOUT "$DYN" /dev/zero > zero.out 2> zero.err < /dev/null
	rc=$?
	result zero /dev/zero $rc
	grep -q "^/dev/zero:1:1: error: unexpected byte 0x00" zero.err || fail "/dev/zero: not reported at 1:1"
	$TIMEOUT "$DYN" - > zero_stdin.out 2> zero_stdin.err < /dev/zero
	result zero_stdin "<stdin>" $?
fi

# 12. a NUL inside a comment is reported too (it was skipped with the
#     comment, and the lines after it ran)
printf 'print 1\n# a comment \000 with a NUL\nprint 2\n' > nul_comment.dyn
echo "nul_comment.dyn:2:13: error: unexpected byte 0x00 (is this a text file?)" > nul_comment.dyn.want
check nul_comment.dyn

[ $status -eq 0 ] && echo "garbage: all checks passed"
exit $status
