#!/bin/sh
# bench/run.sh — wall-clock figures for the closing notes of issues
# (`make bench`).  Speed is measured here, never asserted in a test.
DYN=${DYN:-./dyn}
srcdir=${srcdir:-.}
out=${TMPDIR:-/tmp}/dyn-bench.$$
mkdir -p "$out"
export OPENBLAS_NUM_THREADS=1 LC_ALL=C
now() { date +%s.%N; }
measure() {  # label, then the command
	label=$1
	shift
	best=
	for i in 1 2 3; do
		t0=$(now)
		"$@" > /dev/null 2>&1 || { echo "$label: FAILED"; return; }
		t1=$(now)
		t=$(echo "$t1 - $t0" | bc -l 2>/dev/null || awk "BEGIN { print $t1 - $t0 }")
		if [ -z "$best" ] || [ "$(awk "BEGIN { print ($t < $best) }")" = 1 ]; then best=$t; fi
	done
	printf '%-52s %8.3f s (best of 3)\n' "$label" "$best"
}
measure "examples/seismic.dyn (1e3 steps, CSV, SVG)" $DYN -o "$out" "$srcdir/examples/seismic.dyn"
measure "seismic, 1e6 steps, CSV of 8 columns" $DYN -o "$out" "$srcdir/bench/seismic_long.dyn"
measure "chain n=1000, banded, 1e4 steps" $DYN -o "$out" "$srcdir/bench/chain.dyn"
measure "chain n=200, dense (solver = dense), 1e3 steps" $DYN -o "$out" --set n=200 --set steps=1000 "$srcdir/bench/chain.dyn"
measure "pendulum constraint + ball contacts, 3 x 1e5 steps" $DYN -o "$out" "$srcdir/bench/contact.dyn"
# lowering only: the runtime refuses these models (exit 3) once lowered
lower() {
	label=$1
	shift
	t0=$(now)
	"$@" > /dev/null 2>&1
	t1=$(now)
	printf '%-52s %8.3f s\n' "$label" "$(awk "BEGIN { print $t1 - $t0 }")"
}
lower "lowering a 10^5-term chain energy" $DYN --set n=100000 "$srcdir/bench/chain_energy.dyn"
lower "lowering a 10^6-term chain energy" $DYN --set n=1000000 "$srcdir/bench/chain_energy.dyn"
rm -rf "$out"
