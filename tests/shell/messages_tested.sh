#!/bin/sh
# messages_tested.sh — the rule "every error message has a test", kept
# true by a test: every message the sources can print must appear in some
# test under tests/ (a golden case's expected stderr, a shell test, a unit
# test), or be listed with its reason in tests/messages_untested.txt (the
# messages no script can reach: out of memory, internal checks that an
# earlier one always beats, limits beyond the suite, library failures).
#
# A message is a string literal given as the format of a diagnostic call
# in lang/*.c, lang/parser.y and runtime/*.c: diag_error, diag_warning,
# diag_plain, eval_error, and the runtime's setters (fail, fail_at,
# set_err, mesh_errf, nl_refuse, snprintf into err/msg).  Adjacent literals
# are joined, as C joins them; a ternary's literals ("a" : "b") are two
# messages.  Its key is the longest piece between printf conversions (so
# "step %g exceeds the critical step" is looked for as " exceeds the
# critical step"); a message whose longest piece is shorter than 6
# characters ("%s: %s") only passes another message on and is not checked.
#
#   sh tests/shell/messages_tested.sh          the test (tests/run-tests)
#   sh tests/shell/messages_tested.sh --list   every message: FILE:LINE,
#                                              tested/allowed/UNTESTED, key
#
# POSIX sh, awk, grep and sed only (no python on the CI machine needed).
set -u
: "${srcdir:=.}"
LC_ALL=C
export LC_ALL
list=0
[ "${1:-}" = --list ] && list=1

allow=$srcdir/tests/messages_untested.txt
[ -f "$allow" ] || { echo "messages_tested: FAIL: $allow is missing"; exit 1; }

tmp=${TMPDIR:-/tmp}/messages_tested.$$
mkdir "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

# The sources' messages: FILE:LINE <TAB> key <TAB> the whole format.
for f in "$srcdir"/lang/*.c "$srcdir"/lang/parser.y "$srcdir"/runtime/*.c; do
	case "$f" in */lang/parser.c | */lang/lexer.c) continue ;; esac  # generated
	[ -f "$f" ] || continue
	awk -v file="${f#"$srcdir"/}" -v sq="'\''" '
	# Emit the literal groups of call text t (from its "(" on).
	function scan(t, ln,   i, c, depth, n, lit, grp, ngrp, after, esc) {
		depth = 0; grp = ""; ngrp = 0; after = 0
		n = length(t)
		for (i = 1; i <= n; i++) {
			c = substr(t, i, 1)
			if (c == "\"") {
				lit = ""
				for (i++; i <= n; i++) {
					c = substr(t, i, 1)
					if (c == "\\") { lit = lit c substr(t, i + 1, 1); i++; continue }
					if (c == "\"") break
					lit = lit c
				}
				if (depth == 1 && (ngrp == 0 || after)) { grp = grp lit; ingrp = 1 }
				continue
			}
			if (c == sq) {  # a character literal: skip it
				if (substr(t, i + 1, 1) == "\\") i += 3; else i += 2
				continue
			}
			if (c ~ /[ \t\n]/) continue
			if (grp != "" || ingrp) { emit(grp, ln); grp = ""; ngrp++; ingrp = 0; after = 0 }
			if (c == "(") depth++
			else if (c == ")") { depth--; if (depth == 0) return }
			else if (depth == 1 && c == ",") { if (ngrp > 0) return }
			else if (depth == 1 && c == ":" && ngrp > 0) after = 1
		}
	}
	function emit(fmt, ln,   s, best, k, parts, np, j, p) {
		s = fmt
		gsub(/%%/, "\001", s)
		gsub(/\\"/, "\"", s); gsub(/\\\\/, "\\", s)
		gsub(/\\[nt]/, "\002", s)
		gsub(/%[-+ #0]*[0-9*]*(\.[0-9*]*)?(hh|h|ll|l|z|j|t|L)?[diouxXeEfFgGaAcsp]/, "\002", s)
		gsub(/\001/, "%", s)
		np = split(s, parts, "\002")
		best = ""
		for (j = 1; j <= np; j++) {
			p = parts[j]
			if (length(p) > length(best)) best = p
		}
		if (length(best) < 6) return
		printf "%s:%d\t%s\t%s\n", file, ln, best, fmt
	}
	{ line[NR] = $0 }
	END {
		for (l = 1; l <= NR; l++) {
			s = line[l]
			if (s ~ /^[ \t]*(\/\/|\/?\*)/) continue  # a comment
			off = 0
			while (match(s, /(diag_error|diag_warning|diag_plain|eval_error|nl_refuse|fail|fail_at|set_err|mesh_errf|snprintf)[ \t]*\(/)) {
				name = substr(s, RSTART, RLENGTH)
				pre = (RSTART > 1) ? substr(s, RSTART - 1, 1) : " "
				rest = substr(s, RSTART + RLENGTH - 1)
				s = substr(s, RSTART + RLENGTH)
				if (pre ~ /[A-Za-z0-9_>.]/) continue  # nl_fail(, o->fail(
				if (name ~ /snprintf/ && rest !~ /^\([ \t]*[a-z_>.-]*(err|msg)[a-z_]*[ \t]*[,+]/) continue
				t = rest
				for (k = l + 1; k <= NR && k < l + 20; k++) t = t "\n" line[k]
				ingrp = 0
				scan(t, l)
			}
		}
	}' "$f"
done | sort -u -t "$(printf '\t')" -k2,2 > "$tmp/messages"

# Everything the tests say: expected output, shell and unit tests.
# In C, a message may be split into adjacent literals: join them.
# (tests/out holds a build's outputs when it is made in the source tree,
# tests/sanitize-build the copy of the whole tree that make
# check-sanitize builds: its sources hold every message.)
find "$srcdir/tests" \( -path "$srcdir/tests/out" -o -path "$srcdir/tests/sanitize-build" \) -prune -o -type f \
	\( -name '*.test' -o -name '*.sh' -o -name '*.dyn' -o -name '*.inc' \) ! -name messages_tested.sh \
	-exec cat {} + > "$tmp/corpus"
find "$srcdir/tests" \( -path "$srcdir/tests/out" -o -path "$srcdir/tests/sanitize-build" \) -prune -o -type f \
	-name '*.c' -exec cat {} + |
	awk 'BEGIN { RS = "\001" } { gsub(/"[ \t]*\n[ \t]*"/, ""); printf "%s", $0 }' >> "$tmp/corpus"

# The allowlist: its lines that are neither blank nor comments are keys.
grep -v -e '^#' -e '^[ \t]*$' "$allow" > "$tmp/allowed"

awk -F '\t' -v list=$list -v allowf="$tmp/allowed" -v corpusf="$tmp/corpus" '
	BEGIN {
		while ((getline l < allowf) > 0) allowed[trim(l)] = 1
		RS = "\001"
		getline corpus < corpusf
		RS = "\n"
	}
	function trim(x) { sub(/^[ \t]+/, "", x); sub(/[ \t]+$/, "", x); return x }
	{
		k = trim($2)
		if (index(corpus, $2)) st = "tested"
		else if (k in allowed) st = "allowed"
		else st = "UNTESTED"
		if (list) printf "%s\t%s\t%s\n", $1, st, $2
		else if (st == "UNTESTED") { printf "messages_tested: FAIL: %s: no test prints \"%s\" (add a case to tests/golden/messages_*.test, or list it with its reason in tests/messages_untested.txt)\n", $1, $2; bad++ }
		seen[k] = 1
	}
	END {
		if (!list)
			for (k in allowed)
				if (!(k in seen)) { printf "messages_tested: FAIL: tests/messages_untested.txt lists \"%s\", which no source prints any more (remove it)\n", k; bad++ }
				else if (index(corpus, k)) { printf "messages_tested: FAIL: tests/messages_untested.txt lists \"%s\", which a test now prints (remove it)\n", k; bad++ }
		if (!list && !bad)
			printf "messages_tested: %d messages, each printed by a test or listed with its reason\n", NR
		exit (bad > 0)
	}' "$tmp/messages"
