#!/bin/sh
# locale.sh — numbers are read and written in the C locale whatever the
# environment (DESIGN.md, "Output of numbers"): under a locale whose
# decimal separator is a comma, `print`, the CSV records, the SVG plots,
# numbers in the script, in --set and in table() files all use '.'.
#
# The test needs such a locale installed (de_DE.UTF-8, fr_FR.UTF-8, ...).
# Without one it FAILS rather than pass without testing anything.  On
# Debian/Ubuntu:
#   apt-get install -y locales
#   localedef -i de_DE -f UTF-8 de_DE.UTF-8
# (or: echo 'de_DE.UTF-8 UTF-8' >> /etc/locale.gen && locale-gen).
# DYN_TEST_LOCALE=NAME picks the locale to use; with glibc's LOCPATH it can
# be one compiled without root:
#   localedef -i de_DE -f UTF-8 /tmp/loc/de_DE.UTF-8
#   LOCPATH=/tmp/loc DYN_TEST_LOCALE=de_DE.UTF-8 make check
#
# Environment (tests/run-tests): DYN the binary, srcdir the source tree,
# OUT a writable folder for outputs.
set -u
: "${DYN:?DYN is not set}" "${srcdir:?srcdir is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB DYN_HISTORY_BUDGET

. "$srcdir/tests/shell/common.inc"
test_folder locale locale out

# The decimal point of locale $1 ("" when it cannot be used).
decimal_point() {
	LC_ALL=$1 locale decimal_point 2>/dev/null
}

loc=${DYN_TEST_LOCALE:-}
if [ -z "$loc" ]; then
	for l in $(locale -a 2>/dev/null); do
		case $l in C|C.*|POSIX) continue ;; esac
		if [ "$(decimal_point "$l")" = "," ]; then
			loc=$l
			break
		fi
	done
fi
if [ -n "${DYN_TEST_LOCALE:-}" ] && [ "$(decimal_point "$loc")" != "," ]; then
	echo "locale: FAIL: DYN_TEST_LOCALE=$loc is not installed or has no comma decimal separator"
	exit 1
fi
if [ -z "$loc" ]; then
	echo "locale: FAIL: no locale with a comma decimal separator is installed"
	echo "  (locale -a lists: $(locale -a 2>/dev/null | tr '\n' ' '))"
	echo "  install one, e.g. on Debian/Ubuntu:"
	echo "    apt-get install -y locales && localedef -i de_DE -f UTF-8 de_DE.UTF-8"
	exit 1
fi
echo "locale: using $loc (decimal point ',')"

printf 't,f\n0,0.5\n1,1.5\n2,2.5\n' > "$dir/tab.csv"
cat > "$dir/loc.dyn" <<'EOF'
param a = 0.25
print 0.5, a, 1/3, -1.25e-7, [0.5, 1.5]
model m {
  dof u
  mass [2]
  stiffness [0.5]
  force table("tab.csv", 2)
  init u = 0.5
}
let r = run m with trapezoidal from 0 to 1 step 0.25 {
  record t, u, f = table("tab.csv", 2), energy to "loc.csv"
}
print r.f(0.5), r.t(0.75)
check r.f(0.75) == 1.25 within 1e-15
plot r.u to "loc.svg"
EOF

(cd "$dir" && LC_ALL=$loc "$DYN" -o "$dir/out" --set a=0.75 loc.dyn > "$dir/stdout" 2> "$dir/stderr")
rc=$?
if [ $rc -ne 0 ]; then
	fail "exit status $rc under LC_ALL=$loc, expected 0"
	sed 's/^/    /' "$dir/stderr" | head -20
fi
printf '0.5 0.75 0.3333333333333333 -1.25e-07 [0.5, 1.5]\n1 0.75\n' > "$dir/expected"
if ! cmp -s "$dir/expected" "$dir/stdout"; then
	fail "print under LC_ALL=$loc:"
	diff "$dir/expected" "$dir/stdout" | sed 's/^/    /'
fi

f=$dir/out/loc.csv
if [ ! -f "$f" ]; then
	fail "loc.csv was not written"
else
	[ "$(head -n 1 "$f")" = "t,u,f,kinetic,stored,dissipated,work,residual" ] ||
		fail "loc.csv header: $(head -n 1 "$f")"
	# 4 steps: t = 0, 0.25, 0.5, 0.75, 1 with 8 fields each, all C numbers
	[ "$(sed -n 2p "$f")" = "0,0.5,0.5,0,0.0625,0,0,0" ] || fail "loc.csv first row: $(sed -n 2p "$f")"
	[ "$(sed -n '$p' "$f" | cut -d, -f1,3)" = "1,1.5" ] || fail "loc.csv last row: $(sed -n '$p' "$f")"
	bad=$(awk -F, 'NR > 1 {
		if (NF != 8) { print "line " NR ": " NF " fields"; next }
		for (i = 1; i <= NF; i++)
			if ($i !~ /^-?(0|[1-9][0-9]*)(\.[0-9]+)?(e[-+][0-9][0-9][0-9]?)?$/)
				print "line " NR ", field " i ": \"" $i "\""
	}' "$f" | head -5)
	[ -n "$bad" ] && fail "loc.csv has fields that are not C numbers: $bad"
	rows=$(wc -l < "$f" | tr -d ' ')
	[ "$rows" = 6 ] || fail "loc.csv has $rows lines, expected 6"
fi

s=$dir/out/loc.svg
if [ ! -f "$s" ]; then
	fail "loc.svg was not written"
else
	# coordinates are attributes like x1="80.00": a comma decimal would
	# show as a digit, a comma and a digit inside one attribute value
	commas=$(grep -o '[a-z0-9]="-\{0,1\}[0-9][0-9]*,[0-9][0-9]*"' "$s" | head -3)
	[ -n "$commas" ] && fail "loc.svg has comma decimals: $commas"
	grep -q '="[0-9][0-9]*\.[0-9][0-9]*"' "$s" || fail "loc.svg has no decimal coordinates at all"
fi

# --set reads its value in the C locale: a comma is not a decimal point.
(cd "$dir" && LC_ALL=$loc "$DYN" -o "$dir/out" --set a=0,75 loc.dyn > "$dir/comma.stdout" 2> "$dir/comma.stderr")
rc=$?
[ $rc -eq 2 ] || fail "--set a=0,75 under LC_ALL=$loc: exit status $rc, expected 2 (not a number)"
[ -s "$dir/comma.stdout" ] && fail "--set a=0,75 printed: $(cat "$dir/comma.stdout")"

[ $status -eq 0 ] && echo "locale: all checks passed"
exit $status
