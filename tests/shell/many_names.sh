#!/bin/sh
# many_names.sh — scopes are hashed: 10⁵ definitions are checked and run
# in a fraction of a second (they took 25 s when each definition walked
# the list of the previous ones), and the hash keeps the rules of the
# list: a name defined twice is an error naming both places, the newest
# definition wins at the REPL, a name is found through outer scopes.
# Completion is asserted under timeout 20, never timed.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder many_names many_names

awk 'BEGIN { for (i = 1; i <= 100000; i++) printf "let a%d = %d\n", i, i
             print "function f(x) = x + a99999 + a1"
             print "for i in 1..3 { let a1 = i }"
             print "print a100000 + a50000, f(1)" }' > "$dir/lets.dyn"
timeout 20 "$DYN" -c "$dir/lets.dyn" > "$dir/check.out" 2> "$dir/check.err"
st=$?
[ "$st" -eq 0 ] || fail "dyn -c: exit status $st (124: did not finish in 20 s)"
timeout 20 "$DYN" "$dir/lets.dyn" > "$dir/run.out" 2> "$dir/run.err"
st=$?
[ "$st" -eq 0 ] || fail "run: exit status $st (124: did not finish in 20 s)"
[ "$(cat "$dir/run.out")" = "150000 100001" ] || fail "run printed '$(head -c 200 "$dir/run.out")'"

# a name defined twice among 10⁵ (the first definition long indexed)
{ cat "$dir/lets.dyn"; echo "let a17 = 0"; } > "$dir/dup.dyn"
timeout 20 "$DYN" -c "$dir/dup.dyn" > "$dir/dup.out" 2> "$dir/dup.err"
st=$?
[ "$st" -eq 3 ] || fail "duplicate: exit status $st, expected 3"
grep -q "^.*dup.dyn:100004:5: error: 'a17' is already defined$" "$dir/dup.err" ||
	fail "duplicate: $(head -c 300 "$dir/dup.err")"
grep -q "^.*dup.dyn:17:5: note: 'a17' was defined here$" "$dir/dup.err" ||
	fail "duplicate: no note at the first definition"
[ "$status" -eq 0 ] && echo "many_names: ok"
exit "$status"
