#!/bin/sh
# out_of_memory.sh — under a memory limit (ulimit -v), a script whose
# syntax tree needs more than the limit (10^6 lets take about 500 MiB) is
# a clean exit 3 with "dyn: out of memory while ..." naming what was being
# done, never abort() and a core dump (status 134).  A long line is
# refused by the nesting limit while it is parsed, in little memory, not
# after building a tree of gigabytes (10^7 terms took 3 GB).
#
# The limit is the smallest of a few that lets dyn start and print; where
# ulimit -v is not supported, or no limit lets dyn start (a sanitizer
# build reserves terabytes of address space), the test passes with a note.
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
. "$srcdir/tests/shell/common.inc"
test_folder out_of_memory out_of_memory

echo 'print 1' > "$dir/one.dyn"
if ! start_limit "$dir/one.dyn" 200000 300000 400000; then
	echo "out_of_memory: NOTE: dyn does not start under ulimit -v 400000 (or ulimit -v is not supported): skipped"
	exit 0
fi
echo "out_of_memory: limit $limit KiB"

# 10^6 definitions: about 500 MiB of syntax tree, more than the limit
awk 'BEGIN { for (i = 1; i <= 1000000; i++) printf "let a%d = %d\n", i, i }' > "$dir/lets.dyn"
for opt in -c -q; do
	(ulimit -v "$limit"; exec timeout 60 "$DYN" $opt "$dir/lets.dyn") > "$dir/lets.out" 2> "$dir/lets.err"
	st=$?
	[ "$st" -eq 3 ] || fail "lets $opt: exit status $st, expected 3"
	grep -Eq "^dyn: out of memory while (reading|parsing) $dir/lets.dyn\$" "$dir/lets.err" ||
		fail "lets $opt: $(head -c 300 "$dir/lets.err")"
done

# a sum of 10^7 terms on one line (20 MB): refused at its 5001st term
awk 'BEGIN { printf "print 1"; for (i = 0; i < 10000000; i++) printf "+1"; print "" }' > "$dir/long.dyn"
(ulimit -v "$limit"; exec timeout 60 "$DYN" "$dir/long.dyn") > "$dir/long.out" 2> "$dir/long.err"
st=$?
[ "$st" -eq 3 ] || fail "long: exit status $st, expected 3"
head -1 "$dir/long.err" | grep -q "long.dyn:1:10008: error: expression nested too deeply (more than 5000 levels): use sum(i in a..b) for long sums\$" ||
	fail "long: $(head -c 300 "$dir/long.err")"
# histories beyond the address space (577 MB of them under 400 MB): the
# message names the run and what helps (it advised "lower history_budget"
# at the model's line, also when that could not help)
printf 'model m {\n  dof x[10]\n  mass 1\n  stiffness 1\n  init x[1] = 1\n}\nlet r = run m with newmark from 0 to 2000 step 1e-3, history_budget = 1000\nprint r.x[1](1)\n' > "$dir/hist.dyn"
(ulimit -v "$limit"; exec timeout 60 "$DYN" --memory-limit 2000 "$dir/hist.dyn") > "$dir/hist.out" 2> "$dir/hist.err"
st=$?
[ "$st" -eq 3 ] || fail "hist: exit status $st, expected 3"
grep -q "hist.dyn:7:9: error: out of memory for the histories of this run (577 MB for 2000000 steps): take a larger step or a shorter run, or record fewer quantities, or lower history_budget (every dof's history is kept within it)\$" "$dir/hist.err" ||
	fail "hist: $(head -c 300 "$dir/hist.err")"
rm -f "$dir/lets.dyn" "$dir/long.dyn"

# Memory running out anywhere in a run's setup: for limits from just
# above the smallest that starts dyn to 12 MiB more, in steps of 128 KiB,
# the examples' pendulum and a Newton run (whose stage was freed twice
# when its allocation failed: "double free detected", status 134), a
# staggered one, a chain on two
# backends with its modes (a history half allocated was freed through a
# missing array: status 139) end with status 0, 3 or 4, never a crash.
set -- $(seq 12000 250 60000)
if start_limit "$dir/one.dyn" "$@"; then
	base=$limit
	echo "out_of_memory: the setup sweep starts at $base KiB"
	cat > "$dir/pend.dyn" <<'EOF'
model pendulum {
  dof th
  kinetic   0.5*th'^2
  potential -9.81*cos(th)
  init th = 2*pi/3
}
let a = run pendulum with midpoint from 0 to 1 step 0.005
let b = run pendulum with staggered_midpoint from 0 to 1 step 0.005
let c = run pendulum with backward_euler from 0 to 1 step 0.005
print a.th(1), b.th(1), c.th(1)
EOF
	cat > "$dir/chain.dyn" <<'EOF'
param n = 200, k = 1e4
model chain {
  dof x[n]
  kinetic   sum(i in 1..n) 0.5*x[i]'^2
  potential 0.5*k*x[1]^2 + sum(i in 1..n-1) 0.5*k*(x[i+1] - x[i])^2
  force     x[n]: sin(10*t)
}
let r = run chain with newmark from 0 to 0.1 step 1e-3
let s = run chain with newmark from 0 to 0.1 step 1e-3, solver = sparse
let md = modes(chain, 3)
print r.x[200](0.1), s.x[200](0.1), md.f
EOF
	cp "$srcdir/examples/pendulum.dyn" "$dir/example.dyn"
	# the windows where an allocation fails are a few tens of KiB wide
	# and move with the address-space layout (randomised at each start):
	# the sweep meets a given window on some runs, not on every one (the
	# double free was met by hand at 21804 to 22000 KiB, beside a start
	# at 21500).  The examples' pendulum every 16 KiB over 4 MiB, the two
	# others every 128 KiB over 12 MiB.
	sweep() {  # SCRIPT FROM TO STEP
		kb=$2
		while [ "$kb" -le "$3" ]; do
			(ulimit -c 0; ulimit -v "$kb"; exec timeout 60 "$DYN" -q -o "$dir" "$dir/$1.dyn") \
				> "$dir/sweep.out" 2> "$dir/sweep.err"
			st=$?
			case $st in
			0|3|4) ;;
			*) fail "$1.dyn under ulimit -v $kb: exit status $st: $(head -c 200 "$dir/sweep.err")" ;;
			esac
			kb=$((kb + $4))
		done
	}
	sweep example $((base + 256)) $((base + 4352)) 16
	sweep pend $((base + 512)) $((base + 12288)) 128
	sweep chain $((base + 512)) $((base + 12288)) 128
else
	echo "out_of_memory: NOTE: no limit up to 60000 KiB starts dyn: the setup sweep is skipped"
fi
[ "$status" -eq 0 ] && echo "out_of_memory: ok"
exit "$status"
