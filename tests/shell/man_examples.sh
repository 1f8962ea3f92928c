#!/bin/sh
# man_examples.sh — the scripts in the EXAMPLES sections of man/dyn.1 and
# man/dyn.5 run and print exactly what the pages say; the pages are clean
# under "mandoc -Tlint" when mandoc is installed.
#
# Marking, in the roff source (roff comment lines, invisible in the page):
#
#   .\" example: NAME            the lines up to the next .\" end are the
#   script text                  script NAME (request lines, those that
#   .\" end                      start with '.', are skipped)
#   .\" output: ARGS             a run of "dyn -o DIR ARGS NAME.dyn" and its
#   .\" a line of stdout         exact standard output, one comment line
#   .\" end                      per line; exit status 0
#   .\" output exit N: ARGS      the same, with exit status N
#   .\" output tol REL: ARGS     the numbers compared within REL (relative)
#   .\" output exit N tol REL: ARGS
#
# Numbers in the output are compared within a relative 1e-12 by default
# (tests/numdiff), the text between them exactly: the examples' numbers
# come out of at most a few thousand steps of dense and banded linear
# algebra, whose last digits depend on the order of the operations inside
# BLAS and LAPACK (the reference library and OpenBLAS differ by a few ulps
# per step: 4e-16 relative on the decay example, 1.5e-15 on the schemes
# one); a stable integration carries such a difference along without
# growth, so steps x ulps stays below 1000 x 4 x 2.2e-16 ~ 1e-12.  A block
# whose numbers are more sensitive states its tolerance and the reason in a
# comment in the page.
# An example may have several output blocks (one run each); one without
# any is run once with no ARGS and must print nothing.  When the last ARG
# is "-", the script is fed on standard input instead.  Every expected
# line must also appear in the page's visible text, so that what readers
# see is what was checked.
#
# Environment (tests/run-tests): DYN the binary, srcdir the source tree,
# OUT a writable folder for outputs.
set -u
: "${DYN:?DYN is not set}" "${srcdir:?srcdir is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB DYN_HISTORY_BUDGET
LC_ALL=C
export LC_ALL

. "$srcdir/tests/shell/common.inc"
test_folder man_examples man

# Undo the roff escapes used in the examples (\e last: its backslash must
# not start another escape).
unroff() {
	sed -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" -e 's/\\(dq/"/g' -e 's/\\(ha/^/g' \
	    -e 's/\\(ti/~/g' -e 's/\\(ga/`/g' -e 's/\\&//g' -e 's/\\e/\\/g'
}

: > "$dir/CASES"
for page in "$srcdir/man/dyn.1" "$srcdir/man/dyn.5"; do
	base=$(basename "$page")
	if [ ! -f "$page" ]; then
		fail "$page is missing"
		continue
	fi
	# Split the page: NAME.roff (the script), NAME.K.expected, .args,
	# .exit; one "NAME K" line per run in CASES; the visible text (no
	# comment lines) in PAGE.visible.
	awk -v dir="$dir" -v page="$base" '
		function die(msg) { printf "%s:%d: %s\n", page, NR, msg > "/dev/stderr"; bad = 1; exit 1 }
		/^\.SH / { section = $0; sub(/^\.SH +/, "", section); gsub(/"/, "", section) }
		mode == "" && /^\.\\" example: / {
			if (section != "EXAMPLES") die("example outside the EXAMPLES section")
			name = $0; sub(/^\.\\" example: */, "", name)
			if (name !~ /^[A-Za-z0-9_]+$/) die("bad example name \"" name "\"")
			if (system("test -e \"" dir "/" name ".roff\" || test -e \"" dir "/" name ".dyn\"") == 0)
				die("example " name " defined twice")
			file = dir "/" name ".roff"; printf "" > file
			runs[name] = 0; order[++nex] = name; mode = "script"; next
		}
		mode == "" && /^\.\\" output( exit [0-9]+)?( tol [0-9.eE+-]+)?:/ {
			if (name == "") die("output block before any example")
			head = $0; sub(/:.*/, "", head)
			code = 0
			if (head ~ / exit /) { code = head; sub(/.* exit /, "", code); sub(/ .*/, "", code) }
			tol = "1e-12"
			if (head ~ / tol /) { tol = head; sub(/.* tol /, "", tol) }
			args = $0; sub(/^[^:]*: ?/, "", args)
			k = ++runs[name]; stem = dir "/" name "." k
			print args > (stem ".args"); close(stem ".args")
			print code > (stem ".exit"); close(stem ".exit")
			print tol > (stem ".tol"); close(stem ".tol")
			printf "" > (stem ".expected")
			print name, k >> (dir "/CASES")
			mode = "output"; next
		}
		/^\.\\" end$/ {
			if (mode == "") die("\"end\" without an example or output block")
			if (mode == "script") close(file)
			if (mode == "output") close(stem ".expected")
			mode = ""; next
		}
		mode == "script" { if ($0 !~ /^\./) print > file; next }
		mode == "output" {
			if ($0 !~ /^\.\\"/) die("a line of expected output must be a comment line (.\\\" ...)")
			line = $0; sub(/^\.\\" ?/, "", line)
			print line > (stem ".expected"); next
		}
		$0 !~ /^\.\\"/ { print > (dir "/" page ".visible") }
		END {
			if (bad) exit 1
			if (mode != "") { printf "%s: unterminated %s block of %s\n", page, mode, name > "/dev/stderr"; exit 1 }
			for (i = 1; i <= nex; i++)
				if (runs[order[i]] == 0) {
					stem = dir "/" order[i] ".1"
					printf "" > (stem ".args"); print 0 > (stem ".exit"); printf "" > (stem ".expected")
					print "1e-12" > (stem ".tol")
					print order[i], 1 >> (dir "/CASES")
				}
		}
	' "$page" || { fail "$base: cannot extract the examples"; continue; }
	for r in "$dir"/*.roff; do
		[ -f "$r" ] || continue
		unroff < "$r" > "${r%.roff}.dyn"
		rm -f "$r"
	done
	if [ -f "$dir/$base.visible" ]; then
		unroff < "$dir/$base.visible" | sed -e 's/^[ 	]*//' -e 's/[ 	]*$//' > "$dir/$base.text"
	else
		: > "$dir/$base.text"
	fi
	# Every expected line must be shown to the reader too.
	for e in "$dir"/*.expected; do
		[ -f "$e" ] || continue
		[ -f "$e.page" ] && continue
		echo "$base" > "$e.page"
		sed -e 's/^[ 	]*//' -e 's/[ 	]*$//' "$e" | while IFS= read -r line; do
			[ -n "$line" ] || continue
			grep -F -x -q -e "$line" "$dir/$base.text" ||
				echo "man_examples: FAIL: $base: expected output of $(basename "$e" .expected) is not shown in the page: $line"
		done > "$e.unshown"
		if [ -s "$e.unshown" ]; then
			cat "$e.unshown"
			status=1
		fi
	done
done

n=$(wc -l < "$dir/CASES")
if [ "$n" -eq 0 ]; then
	fail "no examples found in man/dyn.1 and man/dyn.5"
	exit 1
fi

# Run every case in $OUT/man, as the pages' readers would in their folder.
set -f
while read -r name k; do
	stem=$dir/$name.$k
	args=$(cat "$stem.args")
	want=$(cat "$stem.exit")
	# shellcheck disable=SC2086
	set -- $args
	last=
	for a in "$@"; do last=$a; done
	(
		cd "$dir" || exit 99
		if [ "$last" = "-" ]; then
			"$DYN" -o "$dir" "$@" < "$name.dyn"
		else
			"$DYN" -o "$dir" "$@" "$name.dyn" < /dev/null
		fi
	) > "$stem.stdout" 2> "$stem.stderr"
	got=$?
	ok=1
	if [ "$got" != "$want" ]; then
		fail "example $name (dyn $args): exit status $got, expected $want"
		ok=0
	fi
	if ! "$srcdir/tests/numdiff" "$(cat "$stem.tol")" "$stem.expected" "$stem.stdout" > "$stem.numdiff"; then
		fail "example $name (dyn $args): standard output differs from the page"
		sed 's/^/    /' "$stem.numdiff"
		diff -u "$stem.expected" "$stem.stdout" | sed 's/^/    /'
		ok=0
	fi
	if [ "$ok" = 0 ] && [ -s "$stem.stderr" ]; then
		echo "    standard error:"
		sed 's/^/    /' "$stem.stderr"
	fi
	[ "$ok" = 1 ] && echo "ok: example $name (dyn $args)"
done < "$dir/CASES"
set +f

# The pages themselves.
if command -v mandoc > /dev/null 2>&1; then
	for page in "$srcdir/man/dyn.1" "$srcdir/man/dyn.5"; do
		[ -f "$page" ] || continue
		lint=$(mandoc -Tlint "$page" 2>&1)
		rc=$?
		if [ -n "$lint" ] || [ "$rc" -ne 0 ]; then
			fail "mandoc -Tlint $(basename "$page"):"
			printf '%s\n' "$lint" | sed 's/^/    /'
		else
			echo "ok: mandoc -Tlint $(basename "$page")"
		fi
	done
else
	echo "mandoc is not installed: the pages are not linted"
fi

[ "$status" -eq 0 ] && echo "$n example runs match the manual pages"
exit "$status"
