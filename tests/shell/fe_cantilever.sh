#!/bin/sh
# fe_cantilever.sh — a cantilever of hermite elements (Euler–Bernoulli:
# potential ½ EI w_xx², kinetic ½ ρA w_t², clamped at x = 0: fix fixes
# both the deflection and the slope there), its first three natural
# frequencies by the REPL's :eig against the closed form
#     ω_n = (β_n L)² √(EI/(ρA L⁴)),  β_n L = 1.87510407, 4.69409113, 7.85475744
# (the roots of cos βL cosh βL = −1), EI = ρA = L = 1 so that β_n L = √ω_n.
#
# The cubic Hermite element's frequencies converge as h⁴ (its energy
# error is O(h²) in the second derivative, squared).  :eig prints 8
# digits, which resolve β_1 L's error (1.2e-7 at 16 cells) to about 10%:
# the orders log2(ratio) are taken from 4 to 8 to 16 cells for modes 1
# and 2 (measured 3.98, 4.08 and 3.87, 3.96) and from 8 to 16 to 32 for
# mode 3 (3.94, 3.99), and checked in [3.7, 4.3]; at 32 cells each β_n L
# is within 2e-5 of the closed form (measured 1.8e-8, 7.9e-7, 9.8e-6).
set -u
: "${DYN:?DYN is not set}" "${srcdir:?srcdir is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB DYN_HISTORY_BUDGET
LC_ALL=C
export LC_ALL

. "$srcdir/tests/shell/common.inc"
test_folder fe_cantilever fe_cantilever

for n in 4 8 16 32; do
	cat > "$dir/beam$n.dyn" <<END
mesh bar = interval(0, 1, cells = $n)
model beam {
  field w on bar : hermite
  kinetic   integral(bar, 0.5*w'^2)
  potential integral(bar, 0.5*grad(grad(w))^2)
  fix w on left
}
END
	printf ':eig beam\n' | "$DYN" -q -i "$dir/beam$n.dyn" > "$dir/eig$n" 2>&1 ||
		fail "$n cells: :eig failed: $(cat "$dir/eig$n")"
	awk -v n=$n '$1 ~ /^[123]$/ && NF == 4 { printf "%d %d %.12g\n", n, $1, sqrt($2) }' "$dir/eig$n" >> "$dir/beta"
done
[ "$(wc -l < "$dir/beta")" -eq 12 ] || fail "expected three frequencies per mesh, got: $(cat "$dir/beta")"
report=$(awk '
BEGIN { ex[1] = 1.87510406871; ex[2] = 4.69409113297; ex[3] = 7.85475743824 }
{ e[$1, $2] = $3 - ex[$2]; if (e[$1, $2] < 0) e[$1, $2] = -e[$1, $2] }
END {
	for (m = 1; m <= 3; m++) {
		a = m < 3 ? 4 : 8
		o1 = log(e[a, m] / e[2 * a, m]) / log(2); o2 = log(e[2 * a, m] / e[4 * a, m]) / log(2)
		if (o1 < 3.7 || o1 > 4.3 || o2 < 3.7 || o2 > 4.3)
			printf "mode %d: orders %.3f, %.3f not 4 (errors %.3g %.3g %.3g); ", m, o1, o2, e[a, m], e[2 * a, m], e[4 * a, m]
		if (e[32, m] > 2e-5)
			printf "mode %d: beta L off by %.3g at 32 cells; ", m, e[32, m]
	}
}' "$dir/beta")
[ -z "$report" ] || fail "$report"
exit $status
