#!/bin/sh
# bench/run.sh — the figures of issue 9's table, measured in one run on
# one machine (`make bench`).  Speed is measured here, never asserted in a
# test: a figure that misses its target is printed with "no", and a run
# that does not work yet is printed as refused, FAILED or timed out, not
# left out.  See bench/README for what each part states and why.
#
# Environment (default in brackets):
#   BENCH_PARTS        the parts, in order [linear lower fpu memory csv other
#                      siconos fe mpi]; "profile" adds perf's profile of dyn at n = 10
#   BENCH_FE_SIZES     unknowns of the 2-D elastic block [100000 1000000]
#   BENCH_FE_STEPS     two step counts of the block [1 11]
#   BENCH_FE_CUBE      cells per edge of the 3-D cube, 3 (n + 1)^3 unknowns
#                      [20 40 68]
#   BENCH_FE_NH_SIZES  unknowns of the neo-Hookean block under central
#                      differences [10000 100000]
#   BENCH_MPI_SIZE     unknowns of the 2-D block under mpirun -n 1, 2 [1000000]
#   BENCH_MPI_STEPS    its two step counts [1 11]
#   BENCH_MPI_SIZE3    unknowns (at most) of the 3-D block under mpirun [1000000]
#   BENCH_MPI_STEPS_CD the explicit runs' two step counts [1 201]
#   BENCH_MPI_NH_SIZE  unknowns of the neo-Hookean block under mpirun -n 1, 2
#                      (central differences, BENCH_MPI_STEPS) [100000]
#   BENCH_MPI_NH_IMPLICIT_SIZE  the same block's unknowns under midpoint [40000]
#   BENCH_MPI_STEPS_NH the midpoint runs' two step counts [1 5]
#   BENCH_MPI_TIMEOUT  CPU seconds before an mpirun run is stopped [1800]
#   BENCH_SIZES        the linear chain's sizes [10 1000 100000 1000000]
#   BENCH_LOWER_SIZES  terms of the lowered energy [10000 100000 1000000]
#   BENCH_FPU_SIZES    the FPU chain's sizes [1000 10000 100000 1000000]
#   BENCH_FPU_STEPS    two step counts; time per step is the difference of
#                      their times over the difference of the counts [1 6];
#                      below n = 10^5 the difference is multiplied by
#                      10^5/n, so that every size steps about as long
#   BENCH_RUNS         runs per figure, the median shown [3] (a run that
#                      fails is not repeated)
#   BENCH_TIMEOUT      CPU seconds before a run is stopped [60]
#   BENCH_MEMORY       MB of address space a run may take (ulimit -v) [8000]:
#                      the machine is shared; a run beyond it fails
#   DYN, REF, RUNSTAT  the programs [./dyn, ./bench/newmark_ref, ./bench/runstat]
#   PYTHON             the Python that imports Siconos [python3]
#
# Figures are of the whole process (parse, lowering, setup, stepping,
# writing), measured by bench/runstat: CPU seconds (user + system, to the
# microsecond) and wall seconds; memory is the peak resident set in MB
# (10^6 bytes).  Ratios are of CPU times: on a shared machine the wall time
# mostly measures the other processes (the load average is printed first).
DYN=${DYN:-./dyn}
REF=${REF:-./bench/newmark_ref}
RUNSTAT=${RUNSTAT:-./bench/runstat}
srcdir=${srcdir:-.}
PARTS=${BENCH_PARTS:-linear lower fpu memory csv other siconos fe mpi}
MPI_SIZE=${BENCH_MPI_SIZE:-1000000}
MPI_STEPS=${BENCH_MPI_STEPS:-1 11}
MPI_SIZE3=${BENCH_MPI_SIZE3:-1000000}
MPI_STEPS_CD=${BENCH_MPI_STEPS_CD:-1 201}
MPI_TIMEOUT=${BENCH_MPI_TIMEOUT:-1800}
MPI_NH_SIZE=${BENCH_MPI_NH_SIZE:-100000}
MPI_NH_IMPLICIT_SIZE=${BENCH_MPI_NH_IMPLICIT_SIZE:-40000}
MPI_STEPS_NH=${BENCH_MPI_STEPS_NH:-1 5}
FE_SIZES=${BENCH_FE_SIZES:-100000 1000000}
FE_STEPS=${BENCH_FE_STEPS:-1 11}
FE_CUBE=${BENCH_FE_CUBE:-20 40 68}
FE_NH_SIZES=${BENCH_FE_NH_SIZES:-10000 100000}
SIZES=${BENCH_SIZES:-10 1000 100000 1000000}
LOWER_SIZES=${BENCH_LOWER_SIZES:-10000 100000 1000000}
FPU_SIZES=${BENCH_FPU_SIZES:-1000 10000 100000 1000000}
FPU_STEPS=${BENCH_FPU_STEPS:-1 6}
RUNS=${BENCH_RUNS:-3}
TIMEOUT=${BENCH_TIMEOUT:-60}
MEMORY=${BENCH_MEMORY:-8000}
PYTHON=${PYTHON:-python3}
# the time seismic_long.dyn took before fast records (issue 9, item 8)
CSV_BEFORE=6.61
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 LC_ALL=C

out=$(mktemp -d "${TMPDIR:-/tmp}/dyn-bench.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$out/dyn"

# run_once CMD...: one run under the timeout; sets w (wall s), c (CPU s),
# mb (peak MB) and rc; its output is in $out/stdout and $out/stderr.
run_once() {
	(ulimit -v $((MEMORY * 1000000 / 1024)) && exec "$RUNSTAT" "$TIMEOUT" "$out/stat" "$@") \
		> "$out/stdout" 2> "$out/stderr"
	read -r w c kb rc < "$out/stat" || { w=0 c=0 kb=0 rc=125; }
	mb=$(awk "BEGIN { printf \"%.1f\", $kb * 1024 / 1e6 }")
}

median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# measure LABEL RUNS CMD...: the medians of RUNS runs, stopping at the
# first that fails; sets W, C (3 decimals), MB and STATUS ("" when it
# ran, else what happened), and notes the error of a failed run.
measure() {
	label_=$1 n_=$2
	shift 2
	ws= cs= ms= i=0
	while [ "$i" -lt "$n_" ]; do
		run_once "$@"
		ws="$ws $w" cs="$cs $c" ms="$ms $mb"
		i=$((i + 1))
		[ "$rc" -ne 0 ] && break
	done
	W=$(printf '%.3f' "$(median $ws)")
	C=$(printf '%.3f' "$(median $cs)")
	MB=$(median $ms)
	case $rc in
	0) STATUS= ;;
	3) STATUS="refused (exit 3)" ;;
	124) STATUS="timeout (> $TIMEOUT s of CPU)" ;;
	*) STATUS="FAILED (exit $rc)" ;;
	esac
	if [ "$rc" -ne 0 ]; then
		msg=$(grep -m 1 'error' "$out/stderr" | sed 's/^.*error: //' | cut -c 1-110)
		notes="$notes
  $label_: ${msg:-$STATUS}"
	fi
}

# yes when awk's condition holds, else no
ok() { awk "BEGIN { print (($1) ? \"ok\" : \"no\") }"; }

# the largest difference between two one-column CSV files, relative to the
# largest value of the second ("rows differ" when they do not line up)
agree() {
	if [ "$(wc -l < "$1")" != "$(wc -l < "$2")" ]; then
		echo "rows differ"
		return
	fi
	paste -d, "$1" "$2" | awk -F, 'NR > 1 {
		d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d
		c = $2 < 0 ? -$2 : $2; if (c > s) s = c
	} END { printf "%.1e\n", (s > 0 ? m / s : m) }'
}

# the 2 x 1 block of the fe and mpi parts nearest N unknowns: nx = 2 ny
# squares, its left edge clamped, into nx, ny and unk
block2d() {
	ny=$(awk "BEGIN { printf \"%d\", sqrt($1 / 4) + 0.5 }")
	nx=$((2 * ny))
	unk=$((2 * (nx + 1) * (ny + 1) - 2 * (ny + 1)))
}

sci() { awk "BEGIN { e = log($1) / log(10); if ($1 == 10 ^ int(e + 0.5)) printf \"10^%d\", int(e + 0.5); else printf \"%d\", $1 }"; }

notes=
echo "dyn bench: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $(nproc 2>/dev/null || echo '?') cores," \
	"load average $(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo '?')"
echo "$($DYN --version 2>/dev/null | head -n 1)$(git -C "$srcdir" describe --always --dirty 2>/dev/null | sed 's/^/, commit /')"
echo "whole process: CPU s (user + system), wall s, peak MB; median of $RUNS runs (a failed run is not repeated); limits $TIMEOUT s of CPU, $MEMORY MB"

part_linear() {
	echo
	echo "Linear chain, newmark(beta = 1/4, gamma = 1/2), x[n] recorded every 100 steps, against bench/newmark_ref"
	echo "(C + LAPACK dpttrf/dpttrs, the same arithmetic).  Targets: dyn/C <= 1.15 (CPU), dyn MB <= C MB + 20."
	echo "|dyn-C|: the largest difference of the recorded columns over the largest value (0: the same bytes)."
	printf '%-5s %-5s %-8s %8s %8s %7s %-3s %8s %8s %8s %7s %-3s %-7s %s\n' \
		n steps form "dyn cpu" "C cpu" ratio "" "dyn wall" "C wall" "dyn MB" "C MB" "" "|dyn-C|" status
	for n in $SIZES; do
		if [ "$n" -lt 100 ]; then steps=1000000; else steps=1000; fi
		forms=chain_sum
		[ "$n" -le 1000 ] && forms="chain_matrix chain_sum"
		# dyn first: the reference is run BENCH_RUNS times only when one
		# of dyn's forms ran, once otherwise (its figures are the floor)
		rows=
		ran=0
		for form in $forms; do
			rm -f "$out/dyn/chain.csv"
			measure "$form.dyn n=$n steps=$steps" "$RUNS" \
				"$DYN" -q -o "$out/dyn" --set n="$n" --set steps="$steps" "$srcdir/bench/$form.dyn"
			[ -z "$STATUS" ] && ran=1 && cp "$out/dyn/chain.csv" "$out/$form.csv"
			rows="$rows$form|$C|$W|$MB|$STATUS
"
		done
		refruns=1
		[ "$ran" = 1 ] && refruns=$RUNS
		measure "newmark_ref $n $steps" "$refruns" "$REF" "$n" "$steps" "$out/ref.csv"
		cw=$W cc=$C cm=$MB rstat=$STATUS
		printf '%s' "$rows" | while IFS='|' read -r form C W MB STATUS; do
			label=matrices
			[ "$form" = chain_sum ] && label=energies
			if [ -z "$STATUS" ] && [ -z "$rstat" ]; then
				ratio=$(awk "BEGIN { printf \"%.2f\", ($cc > 0 ? $C / $cc : 0) }")
				printf '%-5s %-5s %-8s %8s %8s %7s %-3s %8s %8s %8s %7s %-3s %-7s\n' "$(sci "$n")" "$(sci "$steps")" \
					"$label" "$C" "$cc" "$ratio" "$(ok "$ratio <= 1.15")" "$W" "$cw" "$MB" "$cm" \
					"$(ok "$MB <= $cm + 20")" "$(agree "$out/$form.csv" "$out/ref.csv")"
			else
				printf '%-5s %-5s %-8s %8s %8s %7s %-3s %8s %8s %8s %7s %-3s %-7s %s\n' "$(sci "$n")" "$(sci "$steps")" \
					"$label" "$C" "$cc" - "" "$W" "$cw" "$MB" "$cm" "" - "${STATUS:-newmark_ref: $rstat}"
			fi
		done
	done
}

part_lower() {
	echo
	echo "Lowering: bench/chain_energy.dyn, a potential of n terms (and a kinetic energy of n), one midpoint step;"
	echo "bench/constraint_sum.dyn, one constraint summing n terms, and bench/constraint_family.dyn, a family of"
	echo "n - 1 constraints (for i in 1..n-1 { constraint ... }), and bench/load_family.dyn, n loads (for i in 1..n"
	echo "{ force x[i]: ... }), lowered and dumped (--dump-ir): the front end alone."
	echo "Target at 10^6 terms: <= 1 s and <= 300 MB.  Exit 3 is the runtime refusing the model once lowered."
	printf '%-6s %-10s %8s %8s %8s %-3s %s\n' terms form cpu wall MB "" status
	for n in $LOWER_SIZES; do
		for form in energy sum family loads; do
			case $form in
			energy) measure "chain_energy.dyn n=$n" "$RUNS" "$DYN" -q -o "$out/dyn" --set n="$n" \
				"$srcdir/bench/chain_energy.dyn" ;;
			sum) measure "constraint_sum.dyn n=$n" "$RUNS" "$DYN" -q --dump-ir --set n="$n" \
				"$srcdir/bench/constraint_sum.dyn" ;;
			family) measure "constraint_family.dyn n=$n" "$RUNS" "$DYN" -q --dump-ir --set n="$n" \
				"$srcdir/bench/constraint_family.dyn" ;;
			loads) measure "load_family.dyn n=$n" "$RUNS" "$DYN" -q --dump-ir --set n="$n" \
				"$srcdir/bench/load_family.dyn" ;;
			esac
			printf '%-6s %-10s %8s %8s %8s %-3s %s\n' "$(sci "$n")" "$form" "$C" "$W" "$MB" \
				"$(ok "$C <= 1 && $MB <= 300")" "${STATUS:-ran}"
		done
	done
}

part_fpu() {
	set -- $FPU_STEPS
	s1=$1 d=$(($2 - $1))
	echo
	echo "Fermi-Pasta-Ulam chain (bench/fpu.dyn) under midpoint; time per step = (cpu(s2 steps) - cpu($s1)) / (s2 - $s1),"
	echo "s2 - $s1 = $d times max(1, 10^5/n)."
	echo "Target: the time per step grows at most as n^1.1 from 10^3 to 10^6."
	printf '%-6s %6s %10s %10s %12s %8s %s\n' n s2 "cpu($s1)" "cpu(s2)" "ms per step" MB status
	fit=
	for n in $FPU_SIZES; do
		# a step of a small chain takes a millisecond: more of them, so
		# that the difference is not the noise of a process's start
		s2=$(awk "BEGIN { k = 100000 / $n; if (k < 1) k = 1; printf \"%d\", $s1 + $d * k }")
		measure "fpu.dyn n=$n steps=$s1" "$RUNS" "$DYN" -q -o "$out/dyn" --set n="$n" --set steps="$s1" "$srcdir/bench/fpu.dyn"
		a=$C
		if [ -n "$STATUS" ]; then
			printf '%-6s %6s %10s %10s %12s %8s %s\n' "$(sci "$n")" "$s2" "$a" - - "$MB" "$STATUS"
			continue
		fi
		measure "fpu.dyn n=$n steps=$s2" "$RUNS" "$DYN" -q -o "$out/dyn" --set n="$n" --set steps="$s2" "$srcdir/bench/fpu.dyn"
		if [ -n "$STATUS" ]; then
			printf '%-6s %6s %10s %10s %12s %8s %s\n' "$(sci "$n")" "$s2" "$a" "$C" - "$MB" "$STATUS"
			continue
		fi
		per=$(awk "BEGIN { printf \"%.3f\", ($C - $a) / ($s2 - $s1) * 1000 }")
		printf '%-6s %6s %10s %10s %12s %8s\n' "$(sci "$n")" "$s2" "$a" "$C" "$per" "$MB"
		fit="$fit $n $per"
	done
	# the exponent p of a step's time ~ n^p: least squares on the logs
	# over the sizes that ran (a time <= 0 is noise and is skipped)
	echo "$fit" | awk '{
		for (i = 1; i < NF; i += 2) if ($(i + 1) > 0) {
			x = log($i); y = log($(i + 1)); k++; sx += x; sy += y; sxx += x * x; sxy += x * y
			if (k == 1) lo = $i
			hi = $i
		}
		if (k < 2) { print "fitted exponent: fewer than two sizes ran"; exit }
		p = (k * sxy - sx * sy) / (k * sxx - sx * sx)
		printf "fitted exponent over n = %g..%g (%d sizes): %.2f  %s\n", lo, hi, k, p, p <= 1.1 ? "ok" : "no"
	}'
}

part_memory() {
	echo
	echo "A 10-dof model for 2*10^6 steps, one column recorded every 100 steps (chain_matrix.dyn, n = 10)."
	echo "Target: peak <= 20 MB."
	measure "chain_matrix.dyn n=10 steps=2e6" 1 "$DYN" -q -o "$out/dyn" --set n=10 --set steps=2000000 \
		"$srcdir/bench/chain_matrix.dyn"
	printf 'cpu %s s, wall %s s, peak %s MB  %s %s\n' "$C" "$W" "$MB" "$(ok "$MB <= 20")" "$STATUS"
}

part_csv() {
	echo
	echo "A 10^6-step record of 8 columns (bench/seismic_long.dyn: t, u, u', the 5 of energy)."
	echo "Target: >= 5 times faster than $CSV_BEFORE s (the time before fast records): <= $(awk "BEGIN { printf \"%.2f\", $CSV_BEFORE / 5 }") s."
	measure "seismic_long.dyn" "$RUNS" "$DYN" -q -o "$out/dyn" "$srcdir/bench/seismic_long.dyn"
	if [ -z "$STATUS" ]; then
		printf 'cpu %s s, wall %s s, peak %s MB: %.1f times faster  %s\n' "$C" "$W" "$MB" \
			"$(awk "BEGIN { print $CSV_BEFORE / $C }")" "$(ok "$CSV_BEFORE / $C >= 5")"
	else
		printf 'cpu %s s, wall %s s, peak %s MB  %s\n' "$C" "$W" "$MB" "$STATUS"
	fi
}

part_other() {
	echo
	echo "Other figures quoted by closing notes (no target):"
	printf '%-52s %8s %8s %8s %s\n' "" cpu wall MB status
	for spec in \
		"examples/seismic.dyn (10^3 steps, CSV, SVG)|$srcdir/examples/seismic.dyn" \
		"chain n=1000, banded, 10^4 steps|$srcdir/bench/chain.dyn" \
		"chain n=200, 10^3 steps|--set n=200 --set steps=1000 $srcdir/bench/chain.dyn" \
		"pendulum constraint + ball contacts, 3 x 10^5 steps|$srcdir/bench/contact.dyn"; do
		label=${spec%%|*}
		measure "$label" "$RUNS" "$DYN" -q -o "$out/dyn" ${spec#*|}
		printf '%-52s %8s %8s %8s %s\n' "$label" "$C" "$W" "$MB" "$STATUS"
	done
}

# dyn's moreau_jean against Siconos' MoreauJeanOSI on the same problems
# (issue 11): the value at T and its error against the closed form, and
# the time per step: Siconos' is its stepping loop alone (timed inside
# the script), dyn's the difference of two whole runs of 10^4 and 10^5
# steps divided by 9 * 10^4, so that parsing and setup drop out.
part_siconos() {
	echo
	echo "Nonsmooth problems, dyn's moreau_jean(0.5) against Siconos' MoreauJeanOSI(0.5) (bench/siconos/):"
	if ! "$PYTHON" -c 'import siconos.kernel' > /dev/null 2>&1; then
		echo "Siconos is not installed for $PYTHON (Debian: apt-get install python3-siconos; or set PYTHON)"
		return
	fi
	printf '%-34s %8s %22s %10s %10s %9s %9s\n' problem tau "dyn value" "dyn err" "Sic. err" "dyn us" "Sic. us"
	for spec in \
		"ball e = 0.9, y(3)|ball|3|" \
		"block on incline mu = 0.3, s(1)|incline|1|0.3" \
		"block on incline mu = 0.5, s(1)|incline|1|0.5"; do
		label=${spec%%|*} rest=${spec#*|}
		name=${rest%%|*} rest=${rest#*|}
		T=${rest%%|*} mu=${rest#*|}
		for tau in 1e-3 1e-4; do
			set -- "$srcdir/bench/siconos/$name.py" "$tau" "$T"
			[ -n "$mu" ] && set -- "$@" "$mu"
			if ! sic=$("$PYTHON" "$@" 2> "$out/stderr"); then
				notes="$notes
  siconos $name.py: $(tail -n 1 "$out/stderr")"
				continue
			fi
			set -- --set tau="$tau" --set T="$T"
			[ -n "$mu" ] && set -- "$@" --set mu="$mu"
			measure "$name.dyn tau=$tau" 1 "$DYN" -q -o "$out/dyn" "$@" "$srcdir/bench/$name.dyn"
			value=$(cat "$out/stdout")
			[ -n "$STATUS" ] && { printf '%-34s %8s %s\n' "$label" "$tau" "$STATUS"; continue; }
			long=$(awk "BEGIN { print 1e5 * $tau }") short=$(awk "BEGIN { print 1e4 * $tau }")
			measure "$name.dyn long" 1 "$DYN" -q -o "$out/dyn" "$@" --set T="$long" "$srcdir/bench/$name.dyn"
			c_long=$C
			measure "$name.dyn short" 1 "$DYN" -q -o "$out/dyn" "$@" --set T="$short" "$srcdir/bench/$name.dyn"
			echo "$sic" | awk -v label="$label" -v tau="$tau" -v dyn="$value" -v cl="$c_long" -v cs="$C" '{
				exact = $2 - $3
				printf "%-34s %8s %22.17g %10.2e %10.2e %9.2f %9.2f\n", label, tau, dyn, dyn - exact, $3,
					(cl - cs) / 9e4 * 1e6, $4
			}'
		done
	done
}

# Continuum bodies (issue 10): the 2-D block's setup (lowering, assembly,
# factorization) and time per newmark step, and the 3-D cube's assembly.
part_fe() {
	set -- $FE_STEPS
	s1=$1 s2=$2
	echo
	echo "2-D elastic block (bench/fe_block.dyn: P1^2 triangles, nx = 2 ny, clamped edge, traction), newmark, linear path."
	echo "setup = cpu($s1 step) - $s1 x per step; per step = (cpu($s2) - cpu($s1)) / $((s2 - s1)); peak MB of the $s2-step run."
	printf '%-9s %6s %6s %10s %10s %12s %8s %s
' unknowns nx ny "cpu($s1)" "cpu($s2)" "ms per step" MB status
	for N in $FE_SIZES; do
		block2d "$N"
		measure "fe_block.dyn $nx x $ny, $s1 step" "$RUNS" "$DYN" -q -o "$out/dyn" --set nx="$nx" --set ny="$ny" \
			--set steps="$s1" "$srcdir/bench/fe_block.dyn"
		a=$C
		if [ -n "$STATUS" ]; then
			printf '%-9s %6s %6s %10s %10s %12s %8s %s\n' "$unk" "$nx" "$ny" "$a" - - "$MB" "$STATUS"
			continue
		fi
		measure "fe_block.dyn $nx x $ny, $s2 steps" "$RUNS" "$DYN" -q -o "$out/dyn" --set nx="$nx" --set ny="$ny" \
			--set steps="$s2" "$srcdir/bench/fe_block.dyn"
		if [ -n "$STATUS" ]; then
			printf '%-9s %6s %6s %10s %10s %12s %8s %s\n' "$unk" "$nx" "$ny" "$a" "$C" - "$MB" "$STATUS"
			continue
		fi
		per=$(awk "BEGIN { printf \"%.1f\", ($C - $a) / ($s2 - $s1) * 1000 }")
		printf '%-9s %6s %6s %10s %10s %12s %8s  setup %.2f s\n' "$unk" "$nx" "$ny" "$a" "$C" "$per" "$MB" \
			"$(awk "BEGIN { print $a - $s1 * $per / 1000 }")"
	done
	echo
	echo "2-D neo-Hookean block (bench/fe_block_nh_cd.dyn: P1^2, lumped mass), central_difference: the energy's"
	echo "program at every cell each step.  per step = (cpu($s2) - cpu($s1)) / $((s2 - s1))."
	printf '%-9s %6s %6s %10s %10s %12s %8s %s\n' unknowns nx ny "cpu($s1)" "cpu($s2)" "ms per step" MB status
	for N in $FE_NH_SIZES; do
		block2d "$N"
		measure "fe_block_nh_cd.dyn $nx x $ny, $s1 step" "$RUNS" "$DYN" -q -o "$out/dyn" --set nx="$nx" \
			--set ny="$ny" --set steps="$s1" "$srcdir/bench/fe_block_nh_cd.dyn"
		a=$C
		[ -z "$STATUS" ] && measure "fe_block_nh_cd.dyn $nx x $ny, $s2 steps" "$RUNS" "$DYN" -q -o "$out/dyn" \
			--set nx="$nx" --set ny="$ny" --set steps="$s2" "$srcdir/bench/fe_block_nh_cd.dyn"
		if [ -n "$STATUS" ]; then
			printf '%-9s %6s %6s %10s %10s %12s %8s %s\n' "$unk" "$nx" "$ny" "$a" - - "$MB" "$STATUS"
			continue
		fi
		printf '%-9s %6s %6s %10s %10s %12s %8s\n' "$unk" "$nx" "$ny" "$a" "$C" \
			"$(awk "BEGIN { printf \"%.1f\", ($C - $a) / ($s2 - $s1) * 1000 }")" "$MB"
	done
	echo
	echo "3-D cube assembly (bench/fe_cube.dyn: P1^3 tetrahedra of cuboid(..., n = n)): dyn --dump-ir lowers the"
	echo "integrals and folds them into the sparse mass and stiffness (their entries), then prints a summary."
	echo "Target: 10^6 unknowns (n = 68) in <= 5 s."
	printf '%-4s %9s %8s %8s %8s %-3s %s\n' n unknowns cpu wall MB "" status
	for n in $FE_CUBE; do
		unk=$((3 * (n + 1) * (n + 1) * (n + 1)))
		measure "fe_cube.dyn n=$n --dump-ir" "$RUNS" "$DYN" --dump-ir --set n="$n" "$srcdir/bench/fe_cube.dyn"
		printf '%-4s %9s %8s %8s %8s %-3s %s\n' "$n" "$unk" "$C" "$W" "$MB" \
			"$( [ "$n" -ge 68 ] && ok "$C <= 5" || echo -)" "${STATUS:-ran}"
	done
	if command -v FreeFem++ > /dev/null 2>&1; then
		echo
		echo "FreeFEM (bench/fe_block.edp, the same block and scheme, $s1 and $s2 steps, 10^5 unknowns):"
		for st in $s1 $s2; do
			measure "FreeFem++ fe_block.edp steps=$st" 1 FreeFem++ -nw -ne "$srcdir/bench/fe_block.edp" -steps "$st"
			printf 'steps %-3s cpu %s s, wall %s s, peak %s MB %s\n' "$st" "$C" "$W" "$MB" "$STATUS"
		done
	else
		echo "FreeFEM: FreeFem++ is not installed (Debian: apt-get install freefem++): no comparison"
	fi
}

# Runs on several processes (issue 13): the 2-D and the 3-D block under
# mpirun -n P, newmark (its step matrix's solve distributed) and central
# differences with a lumped mass (each process stepping its rows), time per step and memory
# per process; then what 10^8 unknowns would take.
mpi_rows() {  # LABEL SIZE-ARGS CONFIGS...: one table
	label=$1 sizes=$2
	shift 2
	for cfg in "$@"; do
		scheme=${cfg%%|*} rest=${cfg#*|}
		solver=${rest%%|*} rest=${rest#*|}
		np=${rest%%|*} script=${rest#*|}
		set -- "$DYN" -q -o "$out/dyn" $sizes
		[ "$np" -gt 1 ] && set -- mpirun --allow-run-as-root --oversubscribe -n "$np" "$@"
		MEMORY_SAVED=$MEMORY TIMEOUT_SAVED=$TIMEOUT
		MEMORY=$((1 << 30)) TIMEOUT=$MPI_TIMEOUT
		measure "$label $scheme P=$np $s1 step" "$RUNS" "$@" --set steps="$s1" "$script"
		c1=$C w1=$W
		[ -z "$STATUS" ] && measure "$label $scheme P=$np $s2 steps" "$RUNS" "$@" --set steps="$s2" "$script"
		MEMORY=$MEMORY_SAVED TIMEOUT=$TIMEOUT_SAVED
		if [ -n "$STATUS" ]; then
			printf '%-18s %-22s %2s %9s %9s %10s %10s %8s %s\n' "$scheme" "$solver" "$np" "$c1" - - - "$MB" \
				"$STATUS"
			continue
		fi
		LAST_MB=$MB
		printf '%-18s %-22s %2s %9s %9s %10s %10s %8s\n' "$scheme" "$solver" "$np" "$c1" "$C" \
			"$(awk "BEGIN { printf \"%.1f ms\", ($C - $c1) / ($s2 - $s1) * 1000 }")" \
			"$(awk "BEGIN { printf \"%.1f ms\", ($W - $w1) / ($s2 - $s1) * 1000 }")" "$MB"
	done
}

# mpi_block LABEL SIZE-ARGS NEWMARK DIRECT EXPLICIT: a block's two tables,
# newmark over BENCH_MPI_STEPS and central differences over
# BENCH_MPI_STEPS_CD; LAST_MB is the explicit run's on two processes.
mpi_block() {
	label=$1 sizes=$2 nm=$3 direct=$4 cd=$5
	set -- $MPI_STEPS
	s1=$1 s2=$2
	hdr
	mpi_rows "$label" "$sizes" "newmark|auto (CHOLMOD)|1|$nm" "newmark|direct (MUMPS)|1|$direct" \
		"newmark|direct (MUMPS, MPIAIJ)|2|$nm"
	set -- $MPI_STEPS_CD
	s1=$1 s2=$2
	hdr
	LAST_MB=
	mpi_rows "$label" "$sizes" "central_difference|auto (diagonal)|1|$cd"
	CD_MB1=$LAST_MB
	LAST_MB=
	mpi_rows "$label" "$sizes" "central_difference|auto (diagonal)|2|$cd"
	# ... and its peak on four processes, one step (oversubscribed: its
	# memory, not its time), for the estimate of 10^8 unknowns: on two
	# and on four the peak falls at the same moment (the columns
	# assembled, the rows set up), on one while assembling all of them
	MEMORY_SAVED=$MEMORY TIMEOUT_SAVED=$TIMEOUT
	MEMORY=$((1 << 30)) TIMEOUT=$MPI_TIMEOUT
	measure "$label central_difference P=4 1 step" 1 mpirun --allow-run-as-root --oversubscribe -n 4 "$DYN" -q \
		-o "$out/dyn" $sizes --set steps=1 "$cd"
	MEMORY=$MEMORY_SAVED TIMEOUT=$TIMEOUT_SAVED
	CD_MB4=
	[ -z "$STATUS" ] && CD_MB4=$MB
}

# mpi_base SCRIPT SIZE-ARGS: the peak resident set of a tiny run of
# SCRIPT on one process (BASE1) and under mpirun -n 2 and -n 4 (BASE2,
# BASE4): the program's and Open MPI's own (which grows with the
# processes), which the model's bytes come on top of
mpi_base() {
	measure "base P=1" 1 "$DYN" -q -o "$out/dyn" $2 --set steps=1 "$1"
	BASE1=$MB
	measure "base P=2" 1 mpirun --allow-run-as-root --oversubscribe -n 2 "$DYN" -q -o "$out/dyn" $2 --set steps=1 "$1"
	BASE2=$MB
	measure "base P=4" 1 mpirun --allow-run-as-root --oversubscribe -n 4 "$DYN" -q -o "$out/dyn" $2 --set steps=1 "$1"
	BASE4=$MB
}

part_mpi() {
	echo
	echo "Blocks under mpirun -n P (issue 13; dyn(1) MPI: the mesh and the state whole on every process; newmark:"
	echo "each process assembles and keeps its own columns of K, M and the step matrix, its MPIAIJ rows, MUMPS;"
	echo "central differences with a lumped mass: each process steps its own rows, ghosts exchanged, no solve; the"
	echo "tip recorded every 100 steps)."
	echo "2-D: bench/fe_block.dyn (newmark, tau = 1e-3)"
	echo "and bench/fe_block_cd.dyn (lumped mass, central_difference, tau = 1e-5); 3-D: bench/fe_block3d.dyn and"
	echo "bench/fe_block3d_cd.dyn (tau = 1e-3, 1e-4).  per step = (t(s2) - t(s1)) / (s2 - s1), the step counts in the"
	echo "header (BENCH_MPI_STEPS, BENCH_MPI_STEPS_CD), of the CPU time (all processes and mpirun) and of the wall"
	echo "time; MB: the peak resident set of the largest process"
	echo "(no address-space limit here: Open MPI and MUMPS reserve large virtual areas)."
	if ! command -v mpirun > /dev/null 2>&1 || ! "$DYN" --version | grep -q 'PETSc [0-9]'; then
		echo "mpirun or dyn's PETSc backend missing: not run"
		return
	fi
	hdr() { printf '%-18s %-22s %2s %9s %9s %10s %10s %8s %s\n' scheme solver P "cpu($s1)" "cpu($s2)" "cpu/step" \
		"wall/step" MB status; }
	block2d "$MPI_SIZE"
	sed 's/step 1e-3 {/step 1e-3, solver = direct {/' "$srcdir/bench/fe_block.dyn" > "$out/fe_block_direct.dyn"
	echo
	echo "2-D block: $unk unknowns (nx = $nx, ny = $ny)"
	mpi_block 2-D "--set nx=$nx --set ny=$ny" "$srcdir/bench/fe_block.dyn" "$out/fe_block_direct.dyn" \
		"$srcdir/bench/fe_block_cd.dyn"
	mb2=$LAST_MB mb21=$CD_MB1 mb24=$CD_MB4 unk2=$unk
	mpi_base "$srcdir/bench/fe_block_cd.dyn" "--set nx=8 --set ny=4"
	b21=$BASE1 b22=$BASE2 b24=$BASE4
	# 3-D: 6 n (n + 1)^2 unknowns, n the cells across (54: 980100)
	n3=$(awk "BEGIN { n = 1; while (6 * (n + 1) * (n + 2)^2 <= $MPI_SIZE3) n++; print n }")
	unk=$((6 * n3 * (n3 + 1) * (n3 + 1)))
	sed 's/step 1e-3 {/step 1e-3, solver = direct {/' "$srcdir/bench/fe_block3d.dyn" > "$out/fe_block3d_direct.dyn"
	echo
	echo "3-D block: $unk unknowns (n = $n3 cells across, 2n along)"
	mpi_block 3-D "--set n=$n3" "$srcdir/bench/fe_block3d.dyn" "$out/fe_block3d_direct.dyn" \
		"$srcdir/bench/fe_block3d_cd.dyn"
	mb3=$LAST_MB mb31=$CD_MB1 mb34=$CD_MB4 unk3=$unk
	mpi_base "$srcdir/bench/fe_block3d_cd.dyn" "--set n=2"
	b31=$BASE1 b32=$BASE2 b34=$BASE4
	# a nonlinear potential: each process evaluates the energy's kernels
	# at the cells that reach its rows (runtime/part_phi.h)
	block2d "$MPI_NH_SIZE"
	echo
	echo "2-D neo-Hookean block: $unk unknowns (nx = $nx, ny = $ny; bench/fe_block_nh_cd.dyn, tau = 1e-5): each"
	echo "process evaluates the energy's kernels at the cells that reach its rows, and the stability monitor's"
	echo "power iterations run on their Hessian"
	set -- $MPI_STEPS
	s1=$1 s2=$2
	hdr
	mpi_rows 2-D-nh "--set nx=$nx --set ny=$ny" "central_difference|auto (diagonal)|1|$srcdir/bench/fe_block_nh_cd.dyn" \
		"central_difference|auto (diagonal)|2|$srcdir/bench/fe_block_nh_cd.dyn"
	# Newton on the same block: each process evaluates a share of the
	# cells, all of them gathered (rt_kernels_split); the Jacobian
	# factored by each (sparse) or by MUMPS on their rows (direct)
	block2d "$MPI_NH_IMPLICIT_SIZE"
	sed 's/step 1e-3 {/step 1e-3, solver = sparse {/' "$srcdir/bench/fe_block_nh.dyn" > "$out/fe_block_nh_sparse.dyn"
	echo
	echo "The same under midpoint: $unk unknowns (nx = $nx, ny = $ny; bench/fe_block_nh.dyn, consistent mass,"
	echo "tau = 1e-3): Newton, each process evaluating a share of the cells"
	set -- $MPI_STEPS_NH
	s1=$1 s2=$2
	hdr
	mpi_rows 2-D-nh-mid "--set nx=$nx --set ny=$ny" "midpoint|sparse (replicated)|1|$out/fe_block_nh_sparse.dyn" \
		"midpoint|sparse (replicated)|2|$out/fe_block_nh_sparse.dyn" \
		"midpoint|auto (MUMPS)|2|$srcdir/bench/fe_block_nh.dyn"
	# 10^8 unknowns: the explicit runs' bytes per unknown above the
	# program's own (a tiny run's at the same P), at P = 2 (b = R + D/2)
	# and P = 4 (c = R + D/4): R what every process holds (mesh, state,
	# loads), D what the processes divide (the stiffness's columns, each
	# process assembling its own); P = 1's peak falls elsewhere (the
	# whole assembly).  A direct solve's factor grows faster (3-D: as
	# n^(4/3) or more)
	echo
	for set in "2-D|$mb2|$mb24|$b22|$b24|$unk2" "3-D|$mb3|$mb34|$b32|$b34|$unk3"; do
		IFS='|' read -r dim m2 m4 c2 c4 u <<-EOS
		$set
		EOS
		[ -n "$m2" ] && [ -n "$m4" ] && [ -n "$c2" ] && [ -n "$c4" ] || continue
		awk -v dim="$dim" -v m2="$m2" -v m4="$m4" -v c2="$c2" -v c4="$c4" -v u="$u" 'BEGIN {
			b = (m2 - c2) * 1e6 / u; c = (m4 - c4) * 1e6 / u
			D = 4 * (b - c); if (D < 0) D = 0
			R = b - D / 2
			printf "10^8 unknowns, %s explicit (%d unknowns, MB %s and %s at P = 2 and 4, %s and %s without the model):\n", dim, u, m2, m4, c2, c4
			printf "  %.0f bytes per unknown on every process and %.0f divided among them;", R, D
			for (P = 2; P <= 4096; P *= 2) { gb = (c4 + (R + D / P) * 1e8 / 1e6) / 1e3; if (gb <= 24) break }
			if (P <= 4096) printf " %.0f GB per process at P = %d, under this machine'\''s 24 GB\n", gb, P
			else printf " the part every process holds is %.0f GB: no P brings it under this machine'\''s 24 GB\n", R * 1e8 / 1e9
		}'
	done
}

# perf's profile of dyn at n = 10, 10^6 steps: where a step's time goes
part_profile() {
	echo
	echo "Profile of dyn, chain_matrix.dyn at n = 10, 10^6 steps (perf record; self time):"
	if ! command -v perf > /dev/null 2>&1; then
		echo "perf is not installed"
		return
	fi
	if ! perf record -q -o "$out/perf.data" -- "$DYN" -q -o "$out/dyn" --set n=10 "$srcdir/bench/chain_matrix.dyn" \
		> /dev/null 2> "$out/stderr"; then
		echo "perf record failed: $(head -n 1 "$out/stderr")"
		return
	fi
	perf report -i "$out/perf.data" --stdio --no-children --sort dso,symbol 2> /dev/null |
		grep -v '^#' | grep -v '^$' | sed 's/[ -]*$//' | head -n 20
}

for part in $PARTS; do
	case $part in
	linear|lower|fpu|memory|csv|other|siconos|fe|mpi|profile) "part_$part" ;;
	*) echo "bench/run.sh: unknown part '$part' (linear lower fpu memory csv other siconos fe mpi profile)" >&2 ;;
	esac
done
if [ -n "$notes" ]; then
	echo
	echo "Why runs did not complete:$notes"
fi
exit 0
