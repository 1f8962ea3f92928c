#!/bin/sh
# tests/fuzz/fuzz.sh — `make fuzz`: build the libFuzzer harnesses of
# tests/fuzz/fuzz.c with FUZZ_CC (clang) and run each for FUZZ_SECONDS.
#
# A copy of the distributed tree (make distdir) is built in
# tests/fuzz/build/dyn with -fsanitize=fuzzer-no-link,address,undefined, the
# harnesses linked with -fsanitize=fuzzer.  The seed corpus is every
# example, verification script and golden test's input; tests/fuzz/dyn.dict
# holds the language's keywords, operators and scheme names.  The corpus
# grows in tests/fuzz/build/corpus-TARGET (kept between runs), crashes are
# written to tests/fuzz/build/artifacts as crash-*, leak-*, timeout-* or
# oom-* files: reproduce one with
#   tests/fuzz/build/dyn/tests/fuzz/fuzz_run FILE
# Exit status 1 when a target found a failure.
#
# Inputs are at most 64 KB; each is stopped after 200 ms like a Ctrl-C
# (tests/fuzz/fuzz.c), and one still running after 10 s (-timeout) is a
# failure, as is one using more than 2 GB.  Allocations beyond 4 GB return
# NULL (dyn reports "out of memory"), so a script asking for a history of
# 10^9 steps is not reported as a crash.  FUZZ_JOBS (1) runs several
# processes per target.  FUZZ_KEEP_GOING=1 does not stop at the first
# failure (libFuzzer's fork mode, -ignore_crashes and the like): every
# failure found in the time is written to the artifacts.
set -u
: "${MAKE:=make}" "${FUZZ_CC:=clang}" "${FUZZ_SECONDS:=60}" "${FUZZ_JOBS:=1}" "${FUZZ_KEEP_GOING:=}" "${srcdir:=.}"
mode="-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS"
[ -n "$FUZZ_KEEP_GOING" ] && mode="-fork=$FUZZ_JOBS -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
srcdir=$(cd "$srcdir" && pwd)
dir=$(pwd)/tests/fuzz/build
flags="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
mkdir -p "$dir" || exit 1
if ! command -v "$FUZZ_CC" > /dev/null 2>&1; then
	echo "fuzz: $FUZZ_CC not found: install clang (Debian package: clang), or set FUZZ_CC"
	exit 1
fi
echo "fuzz: building a copy of the tree in $dir/dyn with $FUZZ_CC $flags"
rm -rf "$dir/dyn"
$MAKE --no-print-directory distdir distdir="$dir/dyn" > "$dir/distdir.log" 2>&1 ||
	{ cat "$dir/distdir.log"; exit 1; }
(
	cd "$dir/dyn" &&
	./configure -q CC="$FUZZ_CC" CFLAGS="$flags" > ../configure.log 2>&1 &&
	$MAKE --no-print-directory all > ../make.log 2>&1 &&
	$MAKE --no-print-directory tests/fuzz/fuzz_lower tests/fuzz/fuzz_run >> ../make.log 2>&1
) || { tail -30 "$dir/make.log" "$dir/configure.log" 2>/dev/null; exit 1; }

# The seed corpus: whole scripts, and each golden case's input.
seeds=$dir/seeds
rm -rf "$seeds"
mkdir -p "$seeds"
for f in "$srcdir"/examples/*.dyn "$srcdir"/tests/verify/*.dyn; do
	[ -f "$f" ] && cp "$f" "$seeds/$(basename "$(dirname "$f")")-$(basename "$f")"
done
for g in "$srcdir"/tests/golden/*.test; do
	[ -f "$g" ] || continue
	awk -v dir="$seeds" -v group="$(basename "$g" .test)" '
		/^%%TEST / { file = dir "/golden-" group "-" $2 ".dyn"; part = 0; next }
		/^%%INPUT$/ { part = 1; printf "" > file; next }
		/^%%/ { if (part) close(file); part = 0; next }
		part { print > file }
	' "$g"
done
echo "fuzz: $(ls "$seeds" | wc -l) seeds, $FUZZ_SECONDS s per target"

rm -rf "$dir/artifacts" "$dir/work"
mkdir -p "$dir/artifacts" "$dir/work"
found=0
for target in fuzz_lower fuzz_run; do
	corpus=$dir/corpus-$target
	mkdir -p "$corpus"
	log=$dir/$target.log
	(
		cd "$dir/artifacts" &&
		FUZZ_WORKDIR=$dir/work \
		ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=4096:detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$dir/dyn/tests/fuzz/$target" -max_total_time="$FUZZ_SECONDS" -timeout=10 \
			-rss_limit_mb=2048 -malloc_limit_mb=8192 -max_len=4096 \
			-dict="$srcdir/tests/fuzz/dyn.dict" -artifact_prefix="$dir/artifacts/$target-" \
			$mode -print_final_stats=1 \
			"$corpus" "$seeds"
	) > "$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{ s += $1 } END { print s + 0 }')
	# fork mode reports "#N: cov: ..." lines instead of final stats
	[ "$execs" -eq 0 ] && execs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' "$log" | tail -1)
	crashes=$(ls "$dir/artifacts" | grep -c "^$target-")
	echo "fuzz: $target: ${execs:-0} executions in $FUZZ_SECONDS s, corpus $(ls "$corpus" | wc -l) inputs, exit $rc, $crashes artifacts"
	if [ "$rc" -ne 0 ] || [ "$crashes" -gt 0 ]; then
		found=1
		grep -E '^==[0-9]+==ERROR|runtime error|SUMMARY|Test unit written' "$log" | sort | uniq -c | sort -rn | head -20 | sed 's/^/    /'
		echo "    (the whole report is in $log)"
	fi
done
rm -rf "$dir/work"
[ "$found" -eq 0 ] && echo "fuzz: no failure found"
exit "$found"
