#!/bin/sh
# import_cycle.sh — modules that import each other (or themselves) are an
# import cycle, reported with the import that closes it and where the
# module was first imported, under `dyn -c` as in a run; never a recursion
# without end (timeout guards the old behaviour).
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder import_cycle import_cycle

# main -> c -> d -> c: the cycle closes in d, c was first imported by main
printf 'import c\nprint 1\n' > "$dir/main.dyn"
printf 'param pc = 1\nimport d\n' > "$dir/c.dyn"
printf 'param pd = 2\n\nimport c\n' > "$dir/d.dyn"
# a -> b -> a, a being the script run
printf 'import b\nprint 1\n' > "$dir/a.dyn"
printf 'param pb = 2\nimport a\n' > "$dir/b.dyn"
# a module that imports itself
printf 'import e\n' > "$dir/self.dyn"
printf 'param pe = 1\n  import e\n' > "$dir/e.dyn"

expect() {  # NAME OPTION EXPECTED-STDERR
	(cd "$dir" && timeout 20 "$DYN" $2 "$1.dyn" > "$1.out" 2> "$1.err")
	st=$?
	[ "$st" -eq 3 ] || fail "$1 $2: exit status $st, expected 3"
	[ -s "$dir/$1.out" ] && fail "$1 $2: printed $(head -c 200 "$dir/$1.out")"
	printf '%s\n' "$3" > "$dir/$1.expected"
	diff -u "$dir/$1.expected" "$dir/$1.err" || fail "$1 $2: unexpected diagnostics"
}

cycle_cd='./d.dyn:3:8: error: import cycle: c -> d -> c
import c
       ^
main.dyn:1:8: note: '"'c'"' is first imported here
import c
       ^'
cycle_ab='./b.dyn:2:8: error: import cycle: a -> b -> a ('"'a'"' is the script being run)
import a
       ^'
cycle_e='./e.dyn:2:10: error: import cycle: e -> e
  import e
         ^
self.dyn:1:8: note: '"'e'"' is first imported here
import e
       ^'
for opt in -c -q; do
	expect main "$opt" "$cycle_cd"
	expect a "$opt" "$cycle_ab"
	expect self "$opt" "$cycle_e"
done
[ "$status" -eq 0 ] && echo "import_cycle: ok"
exit "$status"
