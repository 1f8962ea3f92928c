#!/bin/sh
# repl_lines.sh — the REPL names errors <stdin>:LINE:COL with the lines
# counted as the user typed them (dyn(1), REPL): the file given to -i is
# not a line of the session (the first line typed is line 1; it was 2), a
# command that stands for a statement (:show NAME, :start, :plot) is one
# line (each :show added one more), and its statement's errors point
# into the command's own line; :show of an undefined name is a diagnostic
# there (it printed "no name" without a place); -i on a folder is refused
# (it started an empty session).
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}" "${srcdir:?srcdir is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder repl_lines repl_lines home
HOME=$dir/home
export HOME
cat > "$dir/m.dyn" <<'EOF'
model m {
  dof u
  mass [1]
  stiffness [1]
  init u = 1
}
EOF
printf 'foo\n' | "$DYN" -i "$dir/m.dyn" > "$dir/a.out" 2>&1
grep -q "^<stdin>:1:1: error: undefined name 'foo'" "$dir/a.out" ||
	fail "-i FILE: the first line typed is not line 1: $(grep error "$dir/a.out")"
printf 'let k = 1\n:show k\n:show k\nfoo\n:start let q = run mm with newmark from 0 to 1 step 0.1\n' |
	"$DYN" -i "$dir/m.dyn" > "$dir/b.out" 2>&1
grep -q "^<stdin>:4:1: error: undefined name 'foo'" "$dir/b.out" ||
	fail ":show counted as more lines: $(grep error "$dir/b.out" | head -1)"
grep -q "^<stdin>:5:20: error: undefined model 'mm'" "$dir/b.out" ||
	fail ":start's error not at its line and column: $(grep "model 'mm'" "$dir/b.out")"
printf 'let x = 1\n:show nothing\n' | "$DYN" -i "$dir/m.dyn" > "$dir/d.out" 2>&1
grep -q "^<stdin>:2:7: error: undefined name 'nothing'" "$dir/d.out" ||
	fail ":show of an undefined name is not a diagnostic at its argument: $(grep nothing "$dir/d.out" | head -1)"
"$DYN" -i "$dir" < /dev/null > "$dir/c.out" 2>&1
rc=$?
[ "$rc" = 3 ] || fail "-i on a folder: exit $rc, expected 3"
grep -q "^dyn: cannot read '.*': Is a directory" "$dir/c.out" || fail "-i on a folder: $(cat "$dir/c.out")"
# nor a device: -i /dev/null printed :load's note and opened the session
# with status 0
"$DYN" -i /dev/null < /dev/null > "$dir/n.out" 2>&1
rc=$?
[ "$rc" = 3 ] || fail "-i /dev/null: exit $rc, expected 3"
grep -q "^dyn: cannot read '/dev/null': not a regular file" "$dir/n.out" || fail "-i /dev/null: $(cat "$dir/n.out")"
[ "$status" -eq 0 ] && echo "repl_lines: ok"
exit "$status"
