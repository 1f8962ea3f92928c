#!/bin/sh
# mpi.sh — a script under mpirun on several processes (dyn(1), MPI), when
# PETSc and mpirun are there:
#
#   - a 2-D elastic block (1922 dofs, P1² triangles, consistent mass,
#     clamped on its left edge, a traction on its right, released from a
#     bent shape) under newmark, on 2 processes and on 3 (oversubscribed
#     on this 2-core machine), gives the serial run's records (CHOLMOD) to
#     1e-10 of the response with the distributed direct solver (MUMPS on
#     MPIAIJ rows partitioned by PT-Scotch: the two factorizations differ
#     by rounding only, measured 1e-15), and to 2e-9 with solver =
#     iterative (CG + algebraic multigrid to -ksp_rtol 1e-12: tests/petsc/
#     block.dyn's bound, a solve's relative error at most 4e-12 and 100
#     steps adding at most 4e-10); the energies to the same fractions of
#     the energy in play, and the ledger's residual is the serial one to
#     1e-12 of that energy (it is rounding, 1e-18 against energies of
#     1e-4, in both);
#   - the same block at 4324 unknowns under newmark, generalized_alpha
#     with rayleigh damping, and newmark with solver = iterative, each
#     process assembling and keeping its own columns of K, M, C and of
#     the step matrix, its MPIAIJ rows (--dump-ir shows the columns):
#     the serial records to 1e-10 (2e-9 iterative); newmark(0.1, 0.6),
#     stable below a critical step, gathers the operators first;
#   - the block with a lumped mass under central differences gives the
#     serial records too (1e-10; each process steps its own rows, the
#     ledger's sums added over the processes), with records every 7th
#     step, a history read back and a field series as well; a load that
#     is NaN from t = 0.051 stops every process there with one message
#     and exit 4, the record ending at the last good step;
#   - the same with mass-proportional damping (rayleigh(2, 0): C
#     diagonal by value, each process stepping its rows with c ṽ on the
#     right and m + ½τc on the left): the serial records to 1e-10, the
#     dissipation (a tenth of the energy in play) included, the ledger's
#     residual the serial one to 1e-12 of the energy;
#   - a neo-Hookean block under central differences (each process
#     evaluating the energy's kernels at the cells that reach its rows)
#     gives the serial records to 1e-10, a history read back and a field
#     series; a NaN load stops every process at one step; a hardening
#     bar whose stiffness outgrows the step is refused at the serial
#     step with the serial message;
#   - Newton's steps of newmark, backward_euler and bathe on a small
#     neo-Hookean plate under solver = auto solve replicated, on a plate
#     of 4224 unknowns through MUMPS, with the serial records to 1e-10;
#     a load that leaves the domain of log det F gives the serial
#     message;
#   - a cantilever on a Gmsh mesh (tests/data/rect_tri41.msh, unstructured
#     triangles, clamped on its physical group "left", a traction on
#     "right") and a visco-elasto-plastic bar (40 P1 cells with a plastic
#     strain per cell, hardening, sigma_y |p'|: Roubicek's solid of
#     tests/verify/fe_plastic_bar.dyn) under midpoint and
#     staggered_midpoint (Newton on the distributed solver) give the
#     serial records to 1e-10 with the direct solver (measured 1e-15 of
#     the response: the iterates differ by the factorisations' rounding)
#     and to 2e-9 with the iterative one (measured 6e-12 and 8e-14), the
#     ledger's residual the serial one to 1e-12 of the energy;
#   - a Gmsh mesh numbered wide (tests/data/rect_fine41.msh, 5420
#     unknowns) has its unknowns numbered by the parts of PETSc's
#     partition of its nodes on several processes, each process's
#     columns its part's (--dump-ir says so, serially not), its names
#     unchanged: central differences and newmark give the serial records
#     to 1e-10, print r the serial lines, r.u[k] the serial values;
#     a force vector, a support direction and a stiffness file reach
#     the dofs of the serial run, and a free body keeps its angular
#     momentum under discrete_gradient;
#   - a field record is one .pvtu per frame (listed by the .pvd) naming
#     one VTU piece per process, whose points and values reassemble the
#     serial VTU's; stepped by rows, each piece is the cells of its
#     process's rows, which fetches their ghosts at the frame alone;
#   - what is printed and written is rank 0's alone: one "done", one
#     record file, no temporary left;
#   - a moving constraint solved iteratively (field split, flexible
#     GMRES) gives the serial direct solve's displacement and multiplier;
#   - a model stated with dofs runs replicated: the serial answer, bit for
#     bit;
#   - a solver that fails fails on every process: one message, exit 4;
#     so does a file that one process alone cannot write (rank 0's
#     record, rank 1's piece of a field record), at the step it fails;
#   - Ctrl-C (mpirun sends SIGTERM to each process) stops every process
#     at one step: one message, the record whole up to that step;
#     a failure before any solve (a script error) exits as serially;
#   - a script on standard input (which reaches rank 0 alone) and the
#     REPL are refused (exit 2);
#   - processes started by a launcher whose environment dyn does not
#     read are refused when PETSc starts (exit 3).
# Without PETSc or mpirun (or under the sanitizers: Open MPI's launcher is
# not built with them) the test is skipped (exit 77).
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB DYN_HISTORY_BUDGET PETSC_OPTIONS OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_RANK PMI_SIZE PMI_RANK
LC_ALL=C
export LC_ALL
. "$srcdir/tests/shell/common.inc"
test_folder mpi mpi s p2 p3
if ! "$DYN" --version | grep -q '^backends: .*PETSc [0-9]' || ! command -v mpirun > /dev/null 2>&1 ||
	[ -n "${DYN_SANITIZED:-}" ]; then
	echo "mpi: skipped: PETSc or mpirun missing, or under the sanitizers"
	exit 77
fi
cd "$dir" || exit 1

cat > block.dyn <<'EOS'
param lam = 2, mu = 1, rho = 1
mesh blk = rectangle(0, 1, 0, 1, nx = 30, ny = 30)
model block {
  field u on blk : P1^2
  kinetic   integral(blk, 0.5*rho*dot(u', u'))
  potential integral(blk, 0.5*lam*tr(eps(u))^2 + mu*inner(eps(u), eps(u)))
  fix u on left
  force u on right: [0, -1e-2*sin(10*t)]
  init u = [0, 0.01*x^2]
}
run block with newmark from 0 to 0.1 step 1e-3 { record t, p = u at (1, 0.5), q = u at (0.5, 1), energy to "d.csv" }
run block with newmark from 0 to 0.1 step 1e-3, solver = iterative {
  record t, p = u at (1, 0.5), q = u at (0.5, 1), energy to "it.csv"
}
print "done"
EOS
# the same block with a lumped mass under central differences: its step
# matrix is diagonal, solved on every process as by one (dyn(1), MPI)
sed -e 's/kinetic   integral/kinetic lumped integral/' -e 's/with newmark/with central_difference/' \
	-e 's/"d.csv"/"cd.csv"/' -e '/solver = iterative/,/^}/d' block.dyn > cd.dyn
# ... stepped by rows on several processes (part.h): records every 7th
# step, a history read back (kept: the state gathered every step), a
# field series; and a load that turns NaN half way, which every process
# meets at the same step
cat > cd2.dyn <<'EOS'
param lam = 2, mu = 1, rho = 1
mesh blk = rectangle(0, 1, 0, 1, nx = 30, ny = 30)
model block {
  field u on blk : P1^2
  kinetic lumped integral(blk, 0.5*rho*dot(u', u'))
  potential integral(blk, 0.5*lam*tr(eps(u))^2 + mu*inner(eps(u), eps(u)))
  fix u on left
  force u on right: [0, -1e-2*sin(10*t)]
  init u = [0, 0.01*x^2]
}
let r = run block with central_difference from 0 to 0.1 step 1e-3 {
  record t, p = u at (1, 0.5), q = u at (0.5, 1), energy to "cd2.csv" every 7
  record field u to "cd2.pvd" every 25
}
print r.p_y(0.05), r.q_x(0.1), r.p_y(0.1)
EOS
sed -e 's/sin(10\*t)\]/sin(10*t) + (if t > 0.05 then sqrt(t - 1) else 0)]/' -e 's/"cd2.csv"/"nan.csv"/' \
	-e '/record field/d' -e '/^print/d' cd2.dyn > cdnan.dyn
# ... with records at every step that read a few rows (a point, the
# right edge's integral, a history read back): those rows alone are
# gathered at each step (rt_part_gather_rows), the whole state at the
# last
sed -e 's/"cd2.csv" every 7/"cd4.csv"/' \
	-e 's/record field u to "cd2.pvd" every 25/record t, s = integral(right, dot(u'"'"', [0; 1])), w = u at (0.9, 0.1) to "cd4s.csv"/' \
	cd2.dyn > cd4.dyn
# ... damped by C = 2 M (diagonal by value, on K's pattern)
sed -e 's/^  fix u on left/  damping rayleigh(2, 0)\n&/' -e 's/"cd2.csv"/"cd3.csv"/' -e '/record field/d' \
	-e '/^print/d' cd2.dyn > cd3.dyn
cat > chain.dyn <<'EOS'
param nb = 100, k = 1e4
model chain {
  dof x[nb]
  kinetic     sum(i in 1..nb) 0.5*x[i]'^2
  potential   0.5*k*x[1]^2 + sum(i in 1..nb-1) 0.5*k*(x[i+1] - x[i])^2
  force       x[nb]: sin(30*t)
}
let r = run chain with newmark from 0 to 0.1 step 1e-2 { record t, x to "chain.csv" }
print r.x[nb](0.1)
EOS

# mpi P NAME SCRIPT ARGS...: mpirun -n P dyn -o . SCRIPT ARGS in the
# folder NAME, its output in NAME/out and NAME/err, status in rc
mpi() {
	np=$1 sub=$2 script=$3
	shift 3
	(cd "$sub" && timeout 600 mpirun --allow-run-as-root --oversubscribe -n "$np" "$DYN" "../$script" "$@" > out 2> err < /dev/null)
	rc=$?
}

# same SERIAL PARALLEL TOL: the columns 2..6 (the response) of two
# record files within TOL times their largest value, the energies (7..10)
# within TOL times the largest energy in play, the residual (11) within
# 1e-12 of it
same() {
	msg=$(awk -F, -v tol="$3" -v what="$2" '
	function abs(x) { return x < 0 ? -x : x }
	NR == FNR { if (FNR > 1) for (j = 1; j <= NF; j++) s[FNR, j] = $j; n = FNR; next }
	FNR > 1 {
		for (j = 2; j <= 5; j++) { d = abs($j - s[FNR, j]); if (d > du) du = d; if (abs(s[FNR, j]) > U) U = abs(s[FNR, j]) }
		for (j = 6; j <= 9; j++) { d = abs($j - s[FNR, j]); if (d > de) de = d; if (abs(s[FNR, j]) > E) E = abs(s[FNR, j]) }
		d = abs($10 - s[FNR, 10]); if (d > dr) dr = d
		rows++
	}
	END {
		if (rows != n - 1) { printf "%s: %d rows, serial %d\n", what, rows, n - 1; exit 1 }
		if (!(du <= tol * U)) { printf "%s: response off by %g of %g\n", what, du, U; exit 1 }
		if (!(de <= tol * E)) { printf "%s: energies off by %g of %g\n", what, de, E; exit 1 }
		if (!(dr <= 1e-12 * E)) { printf "%s: ledger residual off by %g of %g\n", what, dr, E; exit 1 }
	}' "$1" "$2") || fail "$msg"
}

(cd s && "$DYN" ../block.dyn > out 2> err < /dev/null) || fail "serial block: $(head -3 s/err)"
(cd s && "$DYN" ../cd.dyn > out 2> err < /dev/null) || fail "serial cd.dyn: $(head -3 s/err)"
(cd s && "$DYN" ../cd2.dyn > cd2.out 2> err < /dev/null) || fail "serial cd2.dyn: $(head -3 s/err)"
(cd s && "$DYN" ../cdnan.dyn > nan.out 2> nan.err < /dev/null)
[ $? = 4 ] && grep -q 'error: t = 0.051 (step 51)' s/nan.err || fail "serial cdnan.dyn: $(head -3 s/nan.err)"
(cd s && "$DYN" ../cd3.dyn > out 2> err < /dev/null) || fail "serial cd3.dyn: $(head -3 s/err)"
(cd s && "$DYN" ../cd4.dyn > cd4.out 2> err < /dev/null) || fail "serial cd4.dyn: $(head -3 s/err)"
# the damping acts: at t = 0.1 the dissipated energy is a tenth of the
# stored (measured 6.07e-6 against 4.22e-5)
tail -n 1 s/cd3.csv | awk -F, '{ exit !($8 > 0.05 * $7) }' || fail "serial cd3.dyn: no dissipation: $(tail -n 1 s/cd3.csv)"
for np in 2 3; do
	mpi "$np" "p$np" block.dyn
	[ "$rc" = 0 ] || { fail "mpirun -n $np block: exit $rc: $(head -3 "p$np/err")"; continue; }
	[ "$(cat "p$np/out")" = done ] || fail "mpirun -n $np: the output is not one 'done': $(head -c 200 "p$np/out")"
	[ -s "p$np/err" ] && fail "mpirun -n $np: stderr not empty: $(head -3 "p$np/err")"
	same s/d.csv "p$np/d.csv" 1e-10
	same s/it.csv "p$np/it.csv" 2e-9
	mpi "$np" "p$np" cd.dyn
	[ "$rc" = 0 ] || fail "mpirun -n $np cd.dyn: exit $rc: $(head -3 "p$np/err")"
	same s/cd.csv "p$np/cd.csv" 1e-10
	mpi "$np" "p$np" cd2.dyn
	[ "$rc" = 0 ] || fail "mpirun -n $np cd2.dyn: exit $rc: $(head -3 "p$np/err")"
	same s/cd2.csv "p$np/cd2.csv" 1e-10
	awk -v a="$(cat s/cd2.out)" -v b="$(cat "p$np/out")" 'BEGIN {
		n = split(a, x, " "); m = split(b, y, " ")
		if (n != 3 || m != 3) exit 1
		for (i = 1; i <= 3; i++) { d = x[i] - y[i]; if (d < 0) d = -d; if (d > 1e-10 * 0.01) exit 1 }
	}' || fail "mpirun -n $np cd2.dyn printed '$(cat "p$np/out")', serially '$(cat s/cd2.out)'"
	[ "$(ls "p$np"/cd2_*.pvtu 2> /dev/null | wc -l)" = 5 ] || fail "mpirun -n $np cd2.dyn: not 5 .pvtu frames"
	mpi "$np" "p$np" cd4.dyn
	[ "$rc" = 0 ] || fail "mpirun -n $np cd4.dyn: exit $rc: $(head -3 "p$np/err")"
	same s/cd4.csv "p$np/cd4.csv" 1e-10
	cmp -s s/cd4s.csv "p$np/cd4s.csv" || fail "mpirun -n $np cd4.dyn: cd4s.csv differs from the serial one"
	cmp -s s/cd4.out "p$np/out" || fail "mpirun -n $np cd4.dyn printed '$(cat "p$np/out")', serially '$(cat s/cd4.out)'"
	mpi "$np" "p$np" cd3.dyn
	[ "$rc" = 0 ] || fail "mpirun -n $np cd3.dyn: exit $rc: $(head -3 "p$np/err")"
	same s/cd3.csv "p$np/cd3.csv" 1e-10
	mpi "$np" "p$np" cdnan.dyn
	[ "$rc" = 4 ] || fail "mpirun -n $np cdnan.dyn: exit $rc, expected 4"
	[ "$(grep -c 'error: t = 0.051 (step 51)' "p$np/err")" = 1 ] ||
		fail "mpirun -n $np cdnan.dyn: not one message at step 51: $(head -3 "p$np/err")"
	cmp -s s/nan.csv "p$np/nan.csv" || [ "$(wc -l < "p$np/nan.csv")" = "$(wc -l < s/nan.csv)" ] ||
		fail "mpirun -n $np cdnan.dyn: its record is not the serial run's rows"
	for f in "p$np"/.d.csv.* "p$np"/.it.csv.*; do
		[ -e "$f" ] && fail "mpirun -n $np: a temporary is left: $f"
	done
done

# a block of more than IR_DENSE_MAX (4000) unknowns under central
# differences: each process assembles only its own columns of K (its rows:
# rt_run_columns, fe_form_assemble), which --dump-ir shows; the response
# is the serial one to the bit (each row's terms are the serial ones, in
# the serial order), the records within 1e-10, with a history read back
# and a field series; the critical step comes from a Lanczos on the rows.
# Runs that do not step by rows gather the columns first (the serial
# matrices): a consistent mass, and rayleigh(a0, a1) whose C holds a1 K;
# one with init equilibrium assembles them whole;
# a stiffness that overflows is named as serially, once, exit 3
sed -e 's/nx = 30, ny = 30/nx = 46, ny = 46/' -e 's/"cd2.csv" every 7/"cb.csv" every 7/' \
	-e 's/"cd2.pvd"/"cb.pvd"/' cd2.dyn > cb.dyn
sed -e 's/kinetic lumped/kinetic/' -e 's/"cb.csv"/"cbc.csv"/' -e '/record field/d' cb.dyn > cbc.dyn
sed -e 's/^  fix u on left/  damping rayleigh(0.5, 1e-3)\n&/' -e 's/"cb.csv"/"cbr.csv"/' -e '/record field/d' \
	cb.dyn > cbr.dyn
sed -e 's/0.5\*lam\*tr(eps(u))^2/0.5*1.5e308*tr(eps(u))^2/' -e '/record field/d' cb.dyn > cbn.dyn
# ... started at its equilibrium under gravity, which Newton solves on the
# whole stiffness before the rows step
sed -e 's/^  init u = .*/  force u: [0, -0.01]\n  init equilibrium/' -e 's/"cb.csv"/"cbe.csv"/' -e '/record field/d' \
	cb.dyn > cbe.dyn
# implicit runs of the block (consistent mass): each process assembles
# its columns of K (the lowering), keeps its columns of M, C and K and of
# the step matrix, which are its MPIAIJ rows (scheme_linear.parts,
# la_mat_part_restrict); newmark, generalized_alpha with rayleigh(0.5,
# 1e-3) damping (C held by columns too), and newmark with the iterative
# solver: the serial records to 1e-10 (direct) and 2e-9 (iterative, the
# bound of block.dyn's it.csv above)
sed -e 's/kinetic lumped/kinetic/' -e 's/with central_difference/with newmark/' -e 's/"cb.csv"/"cbm.csv"/' \
	-e '/record field/d' cb.dyn > cbm.dyn
sed -e 's/^  fix u on left/  damping rayleigh(0.5, 1e-3)\n&/' -e 's/with newmark/with generalized_alpha(0.2, 0.3, 0.36, 0.6)/' \
	-e 's/"cbm.csv"/"cbg.csv"/' cbm.dyn > cbg.dyn
sed -e 's/step 1e-3 {/step 1e-3, solver = iterative {/' -e 's/"cbm.csv"/"cbi.csv"/' cbm.dyn > cbi.dyn
# ... newmark(0.1, 0.6), stable below a critical step, which is checked
# on the whole operators: gathered first
sed -e 's/with newmark/with newmark(0.1, 0.6)/' -e 's/"cbm.csv"/"cbk.csv"/' cbm.dyn > cbk.dyn
for f in cb cbc cbr cbe cbm cbg cbi cbk; do
	(cd s && "$DYN" "../$f.dyn" > "$f.out" 2> err < /dev/null) || fail "serial $f.dyn: $(head -3 s/err)"
done
(cd s && "$DYN" ../cbn.dyn > out 2> cbn.err < /dev/null)
[ $? = 3 ] && grep -q 'error: the stiffness matrix is not finite' s/cbn.err || fail "serial cbn.dyn: $(head -3 s/cbn.err)"
for np in 2 3; do
	mpi "$np" "p$np" cb.dyn --dump-ir
	c1=$(( 4324 / np ))
	grep -q "stiffness: 4324 x 4324, [0-9]* entries stored (sparse): columns 1 to $c1, this process's rows" \
		"p$np/out" || fail "mpirun -n $np cb.dyn --dump-ir: no columns 1 to $c1: $(grep stiffness "p$np/out")"
	mpi "$np" "p$np" cbm.dyn --dump-ir
	grep -q "stiffness: 4324 x 4324, [0-9]* entries stored (sparse): columns 1 to $c1, this process's rows" \
		"p$np/out" || fail "mpirun -n $np cbm.dyn --dump-ir: no columns 1 to $c1: $(grep stiffness "p$np/out")"
	for f in cb cbc cbr cbe cbm cbg cbi cbk; do
		mpi "$np" "p$np" "$f.dyn"
		[ "$rc" = 0 ] || { fail "mpirun -n $np $f.dyn: exit $rc: $(head -3 "p$np/err")"; continue; }
		tol=1e-10
		[ "$f" = cbi ] && tol=2e-9
		same "s/$f.csv" "p$np/$f.csv" "$tol"
		[ "$f" = cb ] && ! cmp -s s/cb.out "p$np/out" &&
			fail "mpirun -n $np cb.dyn printed '$(cat "p$np/out")', serially '$(cat s/cb.out)'"
	done
	cut -d, -f1-5 s/cb.csv > s/cb5
	cut -d, -f1-5 "p$np/cb.csv" | cmp -s - s/cb5 || fail "mpirun -n $np cb.dyn: the response is not the serial bits"
	[ "$(ls "p$np"/cb_*.pvtu 2> /dev/null | wc -l)" = 5 ] || fail "mpirun -n $np cb.dyn: not 5 .pvtu frames"
	mpi "$np" "p$np" cbn.dyn
	[ "$rc" = 3 ] || fail "mpirun -n $np cbn.dyn: exit $rc, expected 3"
	[ "$(grep -c 'error: ' "p$np/err")" = 1 ] && grep -qxF "$(head -n 1 s/cbn.err)" "p$np/err" ||
		fail "mpirun -n $np cbn.dyn: stderr '$(head -3 "p$np/err")', serially '$(head -3 s/cbn.err)'"
done

# central differences on a neo-Hookean block (a nonlinear potential):
# each process evaluates the energy's kernels at the cells that reach its
# rows (part_phi.h), the stability monitor iterating on their Hessian;
# the serial records to 1e-10, the response to the bit (the gradient of
# a row gathers the same terms in the same order; the energies differ by
# their sums' order, 1e-15), a history read back, a field series; a load turning NaN
# stops every process at one step; and a hardening bar whose stiffness
# outgrows the step is refused at the serial step with the serial
# message
cat > nh.dyn <<'EOS'
param mu = 384.6, lam = 576.9
mesh plate = rectangle(0, 2, 0, 1, nx = 24, ny = 12)
model block {
  field u on plate : P1^2
  kinetic lumped integral(plate, 0.5*dot(u', u'))
  potential integral(plate, 0.5*mu*(tr(transpose(identity(2) + grad(u))*(identity(2) + grad(u))) - 2) - mu*log(det(identity(2) + grad(u))) + 0.5*lam*log(det(identity(2) + grad(u)))^2)
  fix u on left
  force u on right: [0, -50*sin(10*t)]
  init u = [0, 0.05*x^2]
}
let r = run block with central_difference from 0 to 0.05 step 1e-4 {
  record t, p = u at (2, 0.5), q = u at (1, 1), energy to "nh.csv" every 10
  record field u to "nh.pvd" every 100
}
print r.p_y(0.025), r.q_x(0.05)
EOS
sed -e 's/sin(10\*t)\]/sin(10*t) + (if t > 0.02 then sqrt(t - 1) else 0)]/' -e 's/"nh.csv"/"nhnan.csv"/' \
	-e '/record field/d' -e '/^print/d' nh.dyn > nhnan.dyn
cat > hard.dyn <<'EOS'
mesh bar = interval(0, 1, cells = 20)
model hard {
  field u on bar : P1
  kinetic lumped integral(bar, 0.5*u'^2)
  potential integral(bar, 0.5*grad(u)^2 + 25*grad(u)^4)
  fix u on left
  force u on right: 0.02*t
}
run hard with central_difference from 0 to 4 step 0.045 { record t, tip = u at (1) to "hard.csv" every 10 }
EOS
sed -e 's/to 4 step 0.045 {/to 20 step 0.045, on_failure = halve(4) {/' -e 's/"hard.csv"/"hardhalve.csv"/' hard.dyn > hardhalve.dyn
cat > nhdomain.dyn <<'EOS'
mesh bar = interval(0, 1, cells = 10)
model m {
  field u on bar : P1
  kinetic lumped integral(bar, 0.5*u'^2)
  potential integral(bar, 0.5*grad(u)^2 + 0.01*sqrt(1 + grad(u)))
  fix u on left
  force u on right: -3*t
}
run m with central_difference from 0 to 3 step 0.01 { record t, p = u at (1) to "nhdomain.csv" }
EOS
(cd s && "$DYN" ../nh.dyn > nh.out 2> err < /dev/null) || fail "serial nh.dyn: $(head -3 s/err)"
(cd s && "$DYN" ../hardhalve.dyn > out 2> err < /dev/null) || fail "serial hardhalve.dyn: $(head -3 s/err)"
[ "$(tail -n 1 s/hardhalve.csv | cut -d, -f1)" = 20 ] || fail "serial hardhalve.dyn: the run did not reach t = 20"
(cd s && "$DYN" ../nhdomain.dyn > out 2> nhdomain.err < /dev/null)
[ $? = 4 ] && grep -q 'Newton diverged: the equation of u\[10\] is NaN' s/nhdomain.err ||
	fail "serial nhdomain.dyn: $(head -3 s/nhdomain.err)"
(cd s && "$DYN" ../nhnan.dyn > out 2> nhnan.err < /dev/null)
[ $? = 4 ] && grep -q 'error: t = 0.0201 (step 201)' s/nhnan.err || fail "serial nhnan.dyn: $(head -3 s/nhnan.err)"
(cd s && "$DYN" ../hard.dyn > out 2> hard.err < /dev/null)
[ $? = 4 ] && grep -q 'exceeds the critical step 2/omega_max' s/hard.err || fail "serial hard.dyn: $(head -3 s/hard.err)"
for np in 2 3; do
	mpi "$np" "p$np" nh.dyn
	[ "$rc" = 0 ] || { fail "mpirun -n $np nh.dyn: exit $rc: $(head -3 "p$np/err")"; continue; }
	same s/nh.csv "p$np/nh.csv" 1e-10
	# ... and t with the response, to the bit (dyn(1), MPI)
	cut -d, -f1-5 s/nh.csv > s/nh.u
	cut -d, -f1-5 "p$np/nh.csv" | cmp -s s/nh.u - || fail "mpirun -n $np nh.dyn: the response is not the serial bits"
	awk -v a="$(cat s/nh.out)" -v b="$(cat "p$np/out")" 'BEGIN {
		n = split(a, x, " "); m = split(b, y, " ")
		if (n != 2 || m != 2) exit 1
		for (i = 1; i <= 2; i++) { d = x[i] - y[i]; if (d < 0) d = -d; if (d > 1e-10 * 0.2) exit 1 }
	}' || fail "mpirun -n $np nh.dyn printed '$(cat "p$np/out")', serially '$(cat s/nh.out)'"
	[ "$(ls "p$np"/nh_*.pvtu 2> /dev/null | wc -l)" = 6 ] || fail "mpirun -n $np nh.dyn: not 6 .pvtu frames"
	mpi "$np" "p$np" nhnan.dyn
	[ "$rc" = 4 ] || fail "mpirun -n $np nhnan.dyn: exit $rc, expected 4"
	[ "$(grep -c 'error: t = 0.0201 (step 201)' "p$np/err")" = 1 ] ||
		fail "mpirun -n $np nhnan.dyn: not one message at step 201: $(head -3 "p$np/err")"
	[ "$(wc -l < "p$np/nhnan.csv")" = "$(wc -l < s/nhnan.csv)" ] ||
		fail "mpirun -n $np nhnan.dyn: its record is not the serial run's rows"
	mpi "$np" "p$np" hard.dyn
	[ "$rc" = 4 ] || fail "mpirun -n $np hard.dyn: exit $rc, expected 4"
	[ "$(grep -c 'error: ' "p$np/err")" = 1 ] && [ "$(grep 'error: ' "p$np/err")" = "$(grep 'error: ' s/hard.err)" ] ||
		fail "mpirun -n $np hard.dyn: not the serial message: $(grep 'error: ' "p$np/err" | head -2)"
	cmp -s s/hard.csv "p$np/hard.csv" || fail "mpirun -n $np hard.dyn: hard.csv differs from the serial one"
	# on_failure = halve(4) halves the refused steps, as serially (the
	# partitioned step has no halving: such a run is replicated)
	mpi "$np" "p$np" hardhalve.dyn
	[ "$rc" = 0 ] || fail "mpirun -n $np hardhalve.dyn: exit $rc: $(head -3 "p$np/err")"
	cmp -s s/hardhalve.csv "p$np/hardhalve.csv" || fail "mpirun -n $np hardhalve.dyn: its record is not the serial one"
	# an energy density without a value at the predictor: the serial
	# Newton message (it said "not finite ... unstable at this step")
	mpi "$np" "p$np" nhdomain.dyn
	[ "$rc" = 4 ] || fail "mpirun -n $np nhdomain.dyn: exit $rc, expected 4"
	[ "$(grep -c 'error: ' "p$np/err")" = 1 ] && [ "$(grep 'error: ' "p$np/err")" = "$(grep 'error: ' s/nhdomain.err)" ] ||
		fail "mpirun -n $np nhdomain.dyn: not the serial message: $(grep 'error: ' "p$np/err" | head -2)"
done

# Newton's steps replicated (solver = sparse: every process solves the
# whole step itself) on a neo-Hookean block with a viscous dissipation,
# each process evaluating a share of the cells of Φ and Ψ and the shares
# gathered (rt_kernels_split): the serial record to the bit, energies
# and ledger included, on 2 processes and on 3 (550 cells: the third
# process has one fewer)
sed -e 's/kinetic lumped integral/kinetic integral/' -e 's/nx = 24, ny = 12/nx = 25, ny = 11/' \
	-e 's|^  fix u on left|  dissipation integral(plate, 0.5*0.3*inner(eps(u'"'"'), eps(u'"'"')))\n  fix u on left|' \
	-e 's/with central_difference from 0 to 0.05 step 1e-4 {/with midpoint from 0 to 0.02 step 1e-3, solver = sparse {/' \
	-e 's/"nh.csv" every 10/"nhimp.csv"/' -e '/record field/d' -e 's/^print .*/print r.p_y(0.01), r.q_x(0.02)/' \
	nh.dyn > nhimp.dyn
grep -q dissipation nhimp.dyn && grep -q 'midpoint from' nhimp.dyn || fail "nhimp.dyn was not made from nh.dyn"
(cd s && "$DYN" ../nhimp.dyn > nhimp.out 2> err < /dev/null) || fail "serial nhimp.dyn: $(head -3 s/err)"
for np in 2 3; do
	mpi "$np" "p$np" nhimp.dyn
	[ "$rc" = 0 ] || { fail "mpirun -n $np nhimp.dyn: exit $rc: $(head -3 "p$np/err")"; continue; }
	cmp -s s/nhimp.csv "p$np/nhimp.csv" || fail "mpirun -n $np nhimp.dyn: nhimp.csv is not the serial bytes"
	cmp -s s/nhimp.out "p$np/out" || fail "mpirun -n $np nhimp.dyn printed '$(cat "p$np/out")', serially '$(cat s/nhimp.out)'"
done

# Newton's steps under solver = auto on several processes: a model of
# more than 4000 unknowns has them through PETSc's direct solver, as its
# linear solves (dyn(1), MPI); a smaller one solves them replicated,
# each process as dyn alone (MUMPS cost 10 times more on a 40-cell bar).
# newmark, backward_euler and bathe on a small neo-Hookean plate (a
# consistent mass) give the serial records to 1e-10; the plate at 4224
# unknowns under newmark starts MUMPS KSPs (-ksp_view) and gives the
# serial records to 1e-10 (they used to solve replicated at any size).
# A load that takes the small plate out of the domain of log det F in
# the first step gives the serial message, the NaN equation named, on
# every process count
sed -e 's/kinetic lumped integral/kinetic integral/' -e 's/nx = 24, ny = 12/nx = 8, ny = 4/' \
	-e 's/with central_difference from 0 to 0.05 step 1e-4 {/with newmark from 0 to 0.01 step 1e-3 {/' \
	-e 's/"nh.csv" every 10/"nhnm.csv"/' -e '/record field/d' -e 's/^print .*/print r.p_y(0.01)/' nh.dyn > nhnm.dyn
sed -e 's/with newmark/with backward_euler/' -e 's/"nhnm.csv"/"nhbe.csv"/' nhnm.dyn > nhbe.dyn
sed -e 's/with newmark/with bathe/' -e 's/"nhnm.csv"/"nhbathe.csv"/' nhnm.dyn > nhbathe.dyn
sed -e 's/nx = 8, ny = 4/nx = 64, ny = 32/' -e 's/from 0 to 0.01 step 1e-3/from 0 to 0.002 step 1e-3/' \
	-e 's/"nhnm.csv"/"nhlarge.csv"/' -e 's/^print .*/print r.p_y(0.002)/' nhnm.dyn > nhlarge.dyn
sed -e 's/-50\*sin(10\*t)/-1e7*t/' -e 's/step 1e-3 {/step 1e-2, on_failure = halve(4) {/' -e 's/"nhnm.csv"/"nhbig.csv"/' \
	-e '/init u/d' nhnm.dyn > nhbig.dyn
grep -q 'newmark from 0 to 0.01 step 1e-3 {' nhnm.dyn && grep -q 'nx = 8' nhnm.dyn && grep -q '1e7' nhbig.dyn &&
	grep -q 'nx = 64' nhlarge.dyn || fail "nhnm.dyn was not made from nh.dyn"
for f in nhnm nhbe nhbathe nhlarge; do
	(cd s && "$DYN" ../$f.dyn > $f.out 2> err < /dev/null) || fail "serial $f.dyn: $(head -3 s/err)"
done
(cd s && "$DYN" ../nhbig.dyn > nhbig.out 2> nhbig.err < /dev/null)
[ $? = 4 ] && grep -q 'error: t = 0.01 (step 1): Newton diverged: the equation of u\[[0-9]*\] is NaN' s/nhbig.err ||
	fail "serial nhbig.dyn: $(head -3 s/nhbig.err)"
mpi 2 p2 nhlarge.dyn -ksp_view
if [ "$rc" = 0 ]; then
	grep -q 'package used to perform factorization: mumps' p2/out || fail "mpirun -n 2 nhlarge.dyn: Newton's solves are not MUMPS's"
	same s/nhlarge.csv p2/nhlarge.csv 1e-10
else
	fail "mpirun -n 2 nhlarge.dyn: exit $rc: $(head -3 p2/err)"
fi
for np in 2 3; do
	for f in nhnm nhbe nhbathe; do
		mpi "$np" "p$np" $f.dyn
		[ "$rc" = 0 ] || { fail "mpirun -n $np $f.dyn: exit $rc: $(head -3 "p$np/err")"; continue; }
		same s/$f.csv "p$np/$f.csv" 1e-10
	done
	mpi "$np" "p$np" nhbig.dyn
	[ "$rc" = 4 ] || fail "mpirun -n $np nhbig.dyn: exit $rc, expected 4"
	[ "$(grep -c 'error: ' "p$np/err")" = 1 ] && [ "$(grep 'error: ' "p$np/err")" = "$(grep 'error: ' s/nhbig.err)" ] ||
		fail "mpirun -n $np nhbig.dyn: not the serial message: $(grep 'error: ' "p$np/err" | head -2)"
done

# a cantilever on a Gmsh mesh, and the visco-elasto-plastic bar under the
# schemes of its paper (Newton's steps on the distributed solver)
cp "$srcdir/tests/data/rect_tri41.msh" . || fail "cannot copy tests/data/rect_tri41.msh"
cat > canti.dyn <<'EOS'
param lam = 2, mu = 1, rho = 1
mesh plate = gmsh("rect_tri41.msh")
model canti {
  field u on plate : P1^2
  kinetic   integral(plate, 0.5*rho*dot(u', u'))
  potential integral(plate, 0.5*lam*tr(eps(u))^2 + mu*inner(eps(u), eps(u)))
  fix u on left
  force u on right: [0, -1e-2*sin(3*t)]
}
run canti with newmark from 0 to 0.5 step 1e-2 { record t, p = u at (2, 0.5), q = u at (1, 1), energy to "g.csv" }
run canti with newmark from 0 to 0.5 step 1e-2, solver = iterative {
  record t, p = u at (2, 0.5), q = u at (1, 1), energy to "gi.csv"
}
print "done"
EOS
cat > plastic.dyn <<'EOS'
param E = 1, H = 0.1, c = 0.01, sy = 0.3, F0 = 0.5, w = 2
mesh bar = interval(0, 1, cells = 40)
model vep {
  field u on bar : P1
  internal p on bar : P0
  kinetic     integral(bar, 0.5*u'^2)
  potential   integral(bar, 0.5*E*(grad(u) - p)^2 + 0.5*H*p^2)
  dissipation integral(bar, 0.5*c*grad(u')^2 + sy*abs(p'))
  fix u on left
  force u on right: F0*sin(w*t)
}
run vep with midpoint from 0 to 5 step 0.01 {
  record t, tip = u at (1), mid = u at (0.5), p1 = p at (0.01), p2 = p at (0.51), energy to "pm.csv"
}
run vep with staggered_midpoint from 0 to 5 step 0.01 {
  record t, tip = u at (1), mid = u at (0.5), p1 = p at (0.01), p2 = p at (0.51), energy to "ps.csv"
}
run vep with midpoint from 0 to 5 step 0.01, solver = iterative {
  record t, tip = u at (1), mid = u at (0.5), p1 = p at (0.01), p2 = p at (0.51), energy to "pi.csv"
}
print "done"
EOS
for f in canti plastic; do
	(cd s && "$DYN" ../$f.dyn > out 2> err < /dev/null) || fail "serial $f.dyn: $(head -3 s/err)"
done
for np in 2 3; do
	for f in canti plastic; do
		mpi "$np" "p$np" $f.dyn
		[ "$rc" = 0 ] || { fail "mpirun -n $np $f.dyn: exit $rc: $(head -3 "p$np/err")"; continue; }
		[ "$(cat "p$np/out")" = done ] || fail "mpirun -n $np $f.dyn: the output is not one 'done'"
	done
	same s/g.csv "p$np/g.csv" 1e-10
	same s/gi.csv "p$np/gi.csv" 2e-9
	same s/pm.csv "p$np/pm.csv" 1e-10
	same s/ps.csv "p$np/ps.csv" 1e-10
	same s/pi.csv "p$np/pi.csv" 2e-9
done

# a Gmsh mesh numbered wide (tests/data/rect_fine.geo: the edges' nodes
# first, each beside interior nodes numbered anywhere), beyond
# IR_DENSE_MAX unknowns: on several processes its unknowns are numbered
# by the parts of PETSc's partition of the nodes, each process's columns
# its part's (--dump-ir says so; in the mesh's order one block's columns
# reached nearly every row of the others), their names staying the
# mesh's (r.u[k], print r); central differences on the rows and newmark
# on the columns give the serial records to 1e-10 and the serial values
# of two dofs read back by name (the right corners', 1e-10)
cp "$srcdir/tests/data/rect_fine41.msh" . || fail "cannot copy tests/data/rect_fine41.msh"
cat > wide.dyn <<'EOS'
param lam = 2, mu = 1, rho = 1
mesh plate = gmsh("rect_fine41.msh")
model canti {
  field u on plate : P1^2
  kinetic   lumped integral(plate, 0.5*rho*dot(u', u'))
  potential integral(plate, 0.5*lam*tr(eps(u))^2 + mu*inner(eps(u), eps(u)))
  fix u on left
  force u on right: [0, -1e-2*sin(30*t)]
}
let r = run canti with central_difference from 0 to 0.2 step 2e-3 {
  record t, p = u at (2, 0.5), q = u at (1, 1), energy to "wc.csv" every 4
  record field u to "wf.pvd" every 25
}
print r
print r.u[4](0.1), r.u[6]'(0.2)
run canti with newmark from 0 to 0.2 step 1e-2 { record t, p = u at (2, 0.5), q = u at (1, 1), energy to "wn.csv" }
EOS
(cd s && "$DYN" ../wide.dyn > wide.out 2> err < /dev/null) || fail "serial wide.dyn: $(head -3 s/err)"
(cd s && "$DYN" --dump-ir ../wide.dyn > wide.ir 2> err < /dev/null) || fail "serial wide.dyn --dump-ir: $(head -3 s/err)"
grep -q 'numbered' s/wide.ir && fail "serial wide.dyn --dump-ir: the unknowns are renumbered serially"
for np in 2 3; do
	mpi "$np" "p$np" wide.dyn --dump-ir
	grep -q "^  field u on plate .* 5420 unknowns, 70 fixed, numbered by the parts of PETSc's partition of the nodes\$" \
		"p$np/out" || fail "mpirun -n $np wide.dyn --dump-ir: not renumbered: $(grep 'field u' "p$np/out")"
	# rank 0's columns: its part's unknowns, about a P-th of them
	c1=$(sed -n 's/^  stiffness: 5420 x 5420, [0-9]* entries stored (sparse): columns 1 to \([0-9]*\), this process.s rows.*/\1/p' \
		"p$np/out")
	[ -n "$c1" ] && [ $((c1 * np * 10)) -ge $((5420 * 9)) ] && [ $((c1 * np * 10)) -le $((5420 * 11)) ] ||
		fail "mpirun -n $np wide.dyn --dump-ir: rank 0's columns are not its part's: $(grep stiffness "p$np/out")"
	mpi "$np" "p$np" wide.dyn
	[ "$rc" = 0 ] || { fail "mpirun -n $np wide.dyn: exit $rc: $(head -3 "p$np/err")"; continue; }
	same s/wc.csv "p$np/wc.csv" 1e-10
	same s/wn.csv "p$np/wn.csv" 1e-10
	[ "$(head -n 6 "p$np/out")" = "$(head -n 6 s/wide.out)" ] ||
		fail "mpirun -n $np wide.dyn: print r is '$(head -n 6 "p$np/out")', serially '$(head -n 6 s/wide.out)'"
	awk 'NR == FNR && FNR == 7 { a = $1; b = $2; next }
	     FNR == 7 { d1 = $1 - a; d2 = $2 - b; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2
	                if (a < 0) a = -a; if (b < 0) b = -b
	                exit !(d1 <= 1e-10 * a && d2 <= 1e-10 * b && a > 0 && b > 0) }' s/wide.out "p$np/out" ||
		fail "mpirun -n $np wide.dyn: r.u[4], r.u[6]' are '$(sed -n 7p "p$np/out")', serially '$(sed -n 7p s/wide.out)'"
done

# ... and a partitioner PETSc refuses stops the run there, as above
mpi 2 p2 wide.dyn -mat_partitioning_type bogus
[ "$rc" = 3 ] && [ "$(grep -c "wide.dyn:4:9: error: ordering the nodes of field u: PETSc refused its options (command line or PETSC_OPTIONS): Unknown partitioning type bogus" p2/err)" = 1 ] ||
	fail "mpirun -n 2 wide.dyn -mat_partitioning_type bogus: exit $rc: $(head -c 600 p2/err)"

# what is stated for all the dofs in the order of their names reaches
# the same dofs when the unknowns are numbered by the partition: a force
# vector and a support direction on dof 5000 (the name u[5070]; on 2
# processes they reached unknown 5000, another node: the work differed
# by 2 %), a stiffness from a file (a spring on that dof: omega_max was
# 1164.72 against the serial 1154.13), and the rigid motions of a free
# body (node p's coordinates with its unknowns: the angular momentum
# kept by discrete_gradient drifted by 1e-3)
cat > wfv.dyn <<'EOS'
param lam = 2, mu = 1, rho = 1
mesh plate = gmsh("rect_fine41.msh")
function g(k) = if k == 5000 then 1 else 0
model canti {
  field u on plate : P1^2
  kinetic   lumped integral(plate, 0.5*rho*dot(u', u'))
  potential integral(plate, 0.5*lam*tr(eps(u))^2 + mu*inner(eps(u), eps(u)))
  fix u on left
  force vector(5420, g)
}
let r = run canti with central_difference from 0 to 0.02 step 2e-3 { record t, u at (2, 0.5) to "wfv.csv" }
print r.u[5070](0.02), r.u[5069](0.02), r.work(0.02)
EOS
sed -e 's/  force vector(5420, g)/  support 1 along vector(5420, g)\n  force u on right: [0, -1e-2]/' -e 's/wfv.csv/wsv.csv/' wfv.dyn > wsv.dyn
printf '%%%%MatrixMarket matrix coordinate real symmetric\n5420 5420 1\n5000 5000 1e3\n' > wk.mtx
sed -e 's/  force vector(5420, g)/  stiffness mtx("wk.mtx")/' -e 's/wfv.csv/wkv.csv/' wfv.dyn > wkv.dyn
cat > wfree.dyn <<'EOS'
mesh plate = gmsh("rect_fine41.msh")
model block {
  param mu = 1, lam = 2, rho = 1, w = 1
  field u on plate : P1^2
  kinetic   integral(plate, 0.5*rho*dot(u', u'))
  potential integral(plate, 0.5*mu*(tr(transpose(identity(2) + grad(u))*(identity(2) + grad(u))) - 2) - mu*log(det(identity(2) + grad(u))) + 0.5*lam*log(det(identity(2) + grad(u)))^2)
  init u' = [-w*(y - 0.5) + 0.3*x, w*(x - 1)]
}
let d = run block with discrete_gradient from 0 to 0.2 step 0.1 {
  record t, L = integral(plate, rho*((x + u[1])*u'[2] - (y + u[2])*u'[1])) to "wfree.csv"
}
print d.L(0.2) - d.L(0)
EOS
for f in wfv wsv wfree; do
	(cd s && "$DYN" "../$f.dyn" > "$f.out" 2> err < /dev/null) || fail "serial $f.dyn: $(head -3 s/err)"
	mpi 2 p2 "$f.dyn"
	[ "$rc" = 0 ] || { fail "mpirun -n 2 $f.dyn: exit $rc: $(head -3 p2/err)"; continue; }
	awk 'NR == FNR { for (j = 1; j <= NF; j++) a[j] = $j; n = NF; next }
	     { if (NF != n) exit 1
	       for (j = 1; j <= NF; j++) { d = $j - a[j]; if (d < 0) d = -d; m = a[j] < 0 ? -a[j] : a[j]
	         if (!(d <= 1e-10 * m || d <= 1e-13)) exit 1 } }' "s/$f.out" p2/out ||
		fail "mpirun -n 2 $f.dyn printed '$(cat p2/out)', serially '$(cat "s/$f.out")'"
done
grep -q '^[0-9.e-]* [0-9.e-]* [0-9.e-]*$' s/wfv.out && ! grep -q '^0 ' s/wfv.out ||
	fail "serial wfv.dyn: the force does not move u[5070]: $(cat s/wfv.out)"
(cd s && "$DYN" ../wkv.dyn > out 2> wkv.err < /dev/null)
mpi 2 p2 wkv.dyn
grep -q 'error: step 0.002 exceeds the critical step 2/omega_max = 0.00173291 of central_difference (omega_max = 1154.13 rad/s)' s/wkv.err &&
	[ "$(grep -c 'error: ' p2/err)" = 1 ] && grep -qxF "$(head -n 1 s/wkv.err)" p2/err ||
	fail "mpirun -n 2 wkv.dyn: '$(head -n 1 p2/err)', serially '$(head -n 1 s/wkv.err)'"

# a moving constraint solved iteratively: PETSc's field split on the
# saddle point, whose inexact inner solves need flexible GMRES outside.
# With plain GMRES the parallel solves stopped short of the tolerance
# (exit 4 at -n 2) or left NaN multipliers in the record with exit 0 (at
# -n 3).  The serial direct solve is the reference: the displacement and
# the multiplier within 1e-9 of their largest values (each solve to
# -ksp_rtol 1e-12, 50 steps: measured 6e-12).
cat > consit.dyn <<'EOS'
mesh bar = interval(0, 1, cells = 20)
model wave {
  field u on bar : P1
  kinetic   integral(bar, 0.5*u'^2)
  potential integral(bar, 0.5*grad(u)^2)
  constraint u on left == 0.01*sin(5*t)
}
run wave with midpoint from 0 to 0.5 step 1e-2, solver = iterative { record t, uc = u at (0.2), lambda[1] to "consit.csv" }
EOS
sed -e "s/solver = iterative/solver = direct/" consit.dyn > consd.dyn
(cd s && "$DYN" ../consd.dyn > out 2> err < /dev/null) || fail "serial consd.dyn: $(head -3 s/err)"
for np in 2 3; do
	mpi "$np" "p$np" consit.dyn
	[ "$rc" = 0 ] || { fail "mpirun -n $np consit.dyn: exit $rc: $(head -3 "p$np/err")"; continue; }
	msg=$(awk -F, 'function abs(x) { return x < 0 ? -x : x }
		NR == FNR { if (FNR > 1) { a[FNR] = $2; b[FNR] = $3 } n = FNR; next }
		FNR > 1 { if (!($2 == $2 + 0 && $3 == $3 + 0)) { print "row " FNR ": " $0; exit 1 }
			d = abs($2 - a[FNR]); if (d > du) du = d; if (abs(a[FNR]) > U) U = abs(a[FNR])
			d = abs($3 - b[FNR]); if (d > dl) dl = d; if (abs(b[FNR]) > L) L = abs(b[FNR]); rows++ }
		END { if (rows != n - 1) { print rows " rows, serial " n - 1; exit 1 }
			if (!(du <= 1e-9 * U && dl <= 1e-9 * L)) { print "off by " du " of " U ", " dl " of " L; exit 1 } }' \
		s/consit.csv "p$np/consit.csv") || fail "mpirun -n $np consit.dyn: $msg"
done

# fields: one .pvtu per frame, indexed by the .pvd, naming one piece per
# process, whose points and values reassemble the serial VTU's (to 1e-10
# of the field: MUMPS against CHOLMOD), cells counted once; for P2 the
# edge midpoints too (a piece held the vertices alone, with linear
# cells)
cat > field.dyn <<'EOS'
mesh blk = rectangle(0, 1, 0, 1, nx = 6, ny = 5)
model block {
  field u on blk : P1^2
  kinetic   integral(blk, 0.5*dot(u', u'))
  potential integral(blk, 0.5*2*tr(eps(u))^2 + inner(eps(u), eps(u)))
  fix u on left
  init u = [0, 0.01*x^2]
}
run block with newmark from 0 to 0.01 step 1e-3 { record field u to "u.pvd" every 5 }
EOS
sed -e 's/P1^2/P2^2/' -e 's/"u.pvd"/"u2.pvd"/' field.dyn > field2.dyn
# vtu_points FILE: "x y z ux uy uz" for each point of a VTU of dyn's whose
# first array is the 2-D vector field (written with 3 components), then
# the points: each array a 12-character base64 header and 32 characters
# per point
vtu_points() {
	npts=$(sed -n 's/.*NumberOfPoints="\([0-9]*\)".*/\1/p' "$1")
	n=$((npts * 32))
	sed -n '/<AppendedData/{n;p;}' "$1" | sed 's/^[[:space:]]*_//' > "$1.b64"
	cut -c13-$((12 + n)) "$1.b64" | base64 -d | od -A n -t f8 -w24 -v > "$1.u"
	cut -c$((n + 25))-$((2 * n + 24)) "$1.b64" | base64 -d | od -A n -t f8 -w24 -v > "$1.x"
	paste "$1.x" "$1.u"
}
for fs in field:u field2:u2; do
f=${fs%:*} u=${fs#*:}
(cd s && "$DYN" ../$f.dyn > fout 2> ferr < /dev/null) || fail "serial $f.dyn: $(head -3 s/ferr)"
for np in 2 3; do
	mpi "$np" "p$np" $f.dyn
	[ "$rc" = 0 ] || { fail "mpirun -n $np $f.dyn: exit $rc: $(head -3 "p$np/err")"; continue; }
	files=$(sed -n 's/.*file="\([^"]*\)".*/\1/p' "p$np/$u.pvd" | tr '\n' ' ')
	[ "$files" = "${u}_000000.pvtu ${u}_000005.pvtu ${u}_000010.pvtu " ] || fail "mpirun -n $np: $u.pvd lists $files"
	pieces=$(sed -n 's/.*Source="\([^"]*\)".*/\1/p' "p$np/${u}_000010.pvtu" | tr '\n' ' ')
	want= q=0
	while [ "$q" -lt "$np" ]; do want="${want}${u}_000010_$q.vtu " q=$((q + 1)); done
	[ "$pieces" = "$want" ] || fail "mpirun -n $np: ${u}_000010.pvtu names $pieces"
	cells=0
	for piece in $pieces; do
		cells=$((cells + $(sed -n 's/.*NumberOfCells="\([0-9]*\)".*/\1/p' "p$np/$piece")))
	done
	[ "$cells" = 60 ] || fail "mpirun -n $np $f.dyn: the pieces hold $cells cells, the mesh 60"
	msg=$({ vtu_points "s/${u}_000010.vtu"; echo END; for piece in $pieces; do vtu_points "p$np/$piece"; done; } | awk '
	function abs(x) { return x < 0 ? -x : x }
	$1 == "END" { part = 1; next }
	!part { k = sprintf("%.12g %.12g", $1, $2); ux[k] = $4; uy[k] = $5
		if (abs($4) > U) U = abs($4); if (abs($5) > U) U = abs($5); next }
	{ k = sprintf("%.12g %.12g", $1, $2)
		if (!(k in ux)) { print "a piece has the point " k ", the serial VTU not"; bad = 1; exit 1 }
		d = abs($4 - ux[k]) + abs($5 - uy[k]); if (d > D) D = d; seen[k] = 1 }
	END { if (bad) exit 1
		for (k in ux) if (!(k in seen)) { print "the point " k " is in no piece"; exit 1 }
		if (!(D <= 1e-10 * U)) { printf "the pieces differ by %g from the serial field (%g)\n", D, U; exit 1 } }') ||
		fail "mpirun -n $np $f.dyn: $msg"
done
done

# central differences by rows (cd2; cb, each process assembling its
# columns): each piece is the cells its process owns (those of its
# rows), whose other rows come from their owners at the frame alone: at
# step 25 no record gathers the state (its records are every 7 steps),
# and a piece that read stale ghosts was off by 1e-5 of 1e-2; the
# response is the serial one to the bit, the pieces too (wide: the
# unknowns numbered by PETSc's partition, to the rounding of the sums'
# order, 1e-10 of the field)
for fct in cd2:1800:0 cb:4232:0 wf:NCW:1e-10; do
f=${fct%%:*} nc=${fct#*:} tol=${fct##*:} nc=${nc%:*}
[ "$nc" = NCW ] && nc=$(sed -n 's/.*NumberOfCells="\([0-9]*\)".*/\1/p' s/wf_000000.vtu)
for np in 2 3; do
	for k in 000025 000050; do
		pieces=$(sed -n 's/.*Source="\([^"]*\)".*/\1/p' "p$np/${f}_$k.pvtu" | tr '\n' ' ')
		cells=0
		for piece in $pieces; do
			cells=$((cells + $(sed -n 's/.*NumberOfCells="\([0-9]*\)".*/\1/p' "p$np/$piece")))
		done
		[ "$cells" = "$nc" ] || fail "mpirun -n $np $f.dyn: the pieces of step $k hold $cells cells, the mesh $nc"
		msg=$({ vtu_points "s/${f}_$k.vtu"; echo END; for piece in $pieces; do vtu_points "p$np/$piece"; done; } | awk -v tol="$tol" '
		function abs(x) { return x < 0 ? -x : x }
		$1 == "END" { part = 1; next }
		!part { key = sprintf("%.12g %.12g", $1, $2); ux[key] = $4; uy[key] = $5
			if (abs($4) > U) U = abs($4); if (abs($5) > U) U = abs($5); next }
		{ key = sprintf("%.12g %.12g", $1, $2)
			if (!(key in ux)) { print "a piece has the point " key ", the serial VTU not"; bad = 1; exit 1 }
			d = abs($4 - ux[key]) + abs($5 - uy[key]); if (d > D) D = d; seen[key] = 1 }
		END { if (bad) exit 1
			for (key in ux) if (!(key in seen)) { print "the point " key " is in no piece"; exit 1 }
			if (!(D <= tol * U) || U == 0) { printf "the pieces differ by %g from the serial field (%g)\n", D, U; exit 1 } }') ||
			fail "mpirun -n $np $f.dyn, step $k: $msg"
	done
done
done

# a model with dofs: replicated, the serial answer bit for bit
(cd s && "$DYN" ../chain.dyn > cout 2> cerr < /dev/null) || fail "serial chain: $(head -3 s/cerr)"
mpi 2 p2 chain.dyn
[ "$rc" = 0 ] || fail "mpirun -n 2 chain: exit $rc: $(head -3 p2/err)"
cmp -s s/cout p2/out || fail "mpirun -n 2 chain: printed $(head -c 100 p2/out), serially $(head -c 100 s/cout)"
cmp -s s/chain.csv p2/chain.csv || fail "mpirun -n 2 chain: chain.csv differs from the serial one"

# a solver that fails on every process: one message, exit 4
mpi 2 p2 block.dyn -ksp_type preonly -pc_type jacobi
[ "$rc" = 4 ] || fail "mpirun -n 2 -pc_type jacobi: exit $rc, expected 4: $(head -3 p2/err)"
[ "$(grep -c "PETSc's solve (ksp preonly, pc jacobi)" p2/err)" = 1 ] ||
	fail "mpirun -n 2 -pc_type jacobi: the solver's failure not said once: $(head -c 600 p2/err)"
grep -q "block.dyn:11:1: error: t = 0: the initial acceleration: PETSc's solve (ksp preonly, pc jacobi) left a residual" p2/err ||
	fail "mpirun -n 2 -pc_type jacobi: not the serial message: $(head -3 p2/err)"
# a partitioner PETSc does not have is refused as any option PETSc
# refuses (it was "out of memory for the mass matrix"), once, status 3;
# one that fails on the graph (square: a grid's alone) leaves contiguous
# blocks of the unknowns, the serial records
mpi 2 p2 block.dyn -mat_partitioning_type bogus
[ "$rc" = 3 ] || fail "mpirun -n 2 -mat_partitioning_type bogus: exit $rc, expected 3: $(head -3 p2/err)"
[ "$(grep -c "block.dyn:5:3: error: the mass matrix: PETSc refused its options (command line or PETSC_OPTIONS): Unknown partitioning type bogus" p2/err)" = 1 ] ||
	fail "mpirun -n 2 -mat_partitioning_type bogus: not said once: $(head -c 600 p2/err)"
mpi 2 p2 block.dyn -mat_partitioning_type square
[ "$rc" = 0 ] || fail "mpirun -n 2 -mat_partitioning_type square: exit $rc: $(head -3 p2/err)"
same s/d.csv p2/d.csv 1e-10
# a factorization that the parallel matrix lacks (icc on MPIAIJ): PETSc's
# own reason, once (it was "stopped on an error of PETSc" alone)
mpi 2 p2 block.dyn -ksp_type cg -pc_type icc
[ "$rc" = 4 ] || fail "mpirun -n 2 -pc_type icc: exit $rc, expected 4: $(head -3 p2/err)"
[ "$(grep -c "PETSc's solve (ksp cg, pc icc) stopped on an error of PETSc: .*ICC.*mpiaij" p2/err)" = 1 ] ||
	fail "mpirun -n 2 -pc_type icc: PETSc's reason not said once: $(head -c 600 p2/err)"
# an indefinite step matrix: refused on every process as serially, once
# (MUMPS counts the negative pivots there with ICNTL(13) = 1)
cp "$srcdir/tests/petsc/negk.dyn" "$dir/negk.dyn"
mpi 2 p2 negk.dyn
[ "$rc" = 3 ] || fail "mpirun -n 2 negk.dyn: exit $rc, expected 3: $(head -3 p2/err)"
[ "$(grep -c "found the matrix not positive definite: 14 negative pivots" p2/err)" = 1 ] ||
	fail "mpirun -n 2 negk.dyn: the refusal not said once: $(head -c 600 p2/err)"
# a file that one process alone cannot write stops every process at that
# step, said once, exit 4, instead of leaving the others waiting in a
# solve: rank 0's record (a full device, solver = direct: the solves are
# shared), then rank 1's piece of a field record (a folder in its name)
cat > "$dir/full.dyn" <<'EOS'
model osc {
  dof u[3]
  mass 1
  stiffness 4
}
run osc with newmark from 0 to 1000 step 0.1, solver = direct {
  record t, u to "/dev/full"
}
EOS
mpi 2 p2 full.dyn --allow-write-anywhere
[ "$rc" = 4 ] || fail "mpirun -n 2 full.dyn: exit $rc, expected 4: $(head -3 p2/err)"
[ "$(grep -c "error: t = .* cannot write '/dev/full': No space left on device" p2/err)" = 1 ] ||
	fail "mpirun -n 2 full.dyn: not said once: $(head -c 600 p2/err)"
# ... at a step that also writes a frame of a field record whose pieces
# fetch their ghosts (central differences by rows): the other process
# went into the exchange while rank 0 stopped to agree on the failure,
# and both waited forever
cat > "$dir/fullf.dyn" <<'EOS'
mesh blk = rectangle(0, 1, 0, 1, nx = 4, ny = 4)
model block {
  field u on blk : P1^2
  kinetic lumped integral(blk, 0.5*dot(u', u'))
  potential integral(blk, 0.5*2*tr(eps(u))^2 + inner(eps(u), eps(u)))
  fix u on left
  init u = [0, 0.01*x^2]
}
run block with central_difference from 0 to 2 step 1e-3 {
  record t, u at (1, 0.5), energy to "/dev/full"
  record field u to "ff.pvd"
}
EOS
rm -rf p2/ff_* p2/ff.pvd
mpi 2 p2 fullf.dyn --allow-write-anywhere
[ "$rc" = 4 ] && [ "$(grep -c "error: t = .* cannot write '/dev/full': No space left on device" p2/err)" = 1 ] ||
	fail "mpirun -n 2 fullf.dyn: exit $rc: $(head -c 600 p2/err)"
rm -rf p2/ff_* p2/ff.pvd
cat > "$dir/piece.dyn" <<'EOS'
mesh bar = interval(0, 1, cells = 4)
model w {
  field u on bar : P1
  kinetic   integral(bar, 0.5*u'^2)
  potential integral(bar, 0.5*grad(u)^2)
  fix u on left
}
run w with newmark from 0 to 1 step 0.5 {
  record t to "piece.csv"
  record field u to "f.pvd"
}
EOS
rm -rf p2/f_* p2/f.pvd p2/piece.csv
mkdir -p p2/f_000001_1.vtu
mpi 2 p2 piece.dyn
[ "$rc" = 4 ] || fail "mpirun -n 2 piece.dyn: exit $rc, expected 4: $(head -3 p2/err)"
[ "$(grep -c "piece.dyn:10:10: error: t = 0.5 (step 1): the process of rank 1 could not write its piece 'f_000001_1.vtu' of the field record" p2/err)" = 1 ] ||
	fail "mpirun -n 2 piece.dyn: not said once: $(head -c 600 p2/err)"
[ "$(cat p2/piece.csv)" = "t
0
0.5" ] || fail "mpirun -n 2 piece.dyn: the record does not end at the step of the failure: $(cat p2/piece.csv)"
# the series ends with the frame before, as serially: the frame of the
# step that stopped the run, whose piece is missing, is not listed (it
# was, and the end of a stopped run listed it twice), nor its .pvtu left
[ "$(grep -c 'f_000000.pvtu' p2/f.pvd) $(grep -c 'f_000001.pvtu' p2/f.pvd)" = "1 0" ] && [ ! -e p2/f_000001.pvtu ] ||
	fail "mpirun -n 2 piece.dyn: f.pvd lists the failed frame: $(cat p2/f.pvd)"
# nor rank 0's piece of that frame, which no .pvtu lists (it was left)
[ ! -e p2/f_000001_0.vtu ] && [ -e p2/f_000000_0.vtu ] ||
	fail "mpirun -n 2 piece.dyn: rank 0's piece of the failed frame is left, or that of the frame before gone"
rm -rf p2/f_000001_1.vtu
# ... and the later field records, which that process did not write
# (it stops at its first failure) while the others did: their frame of
# that step goes too; with their pieces fetched (central differences by
# rows), no process waits in an exchange the failed one skipped
sed -e 's/record field u to "f.pvd"/&\n  record field u to "g.pvd"/' piece.dyn > piece2.dyn
rm -rf p2/f_* p2/g_* p2/f.pvd p2/g.pvd
mkdir -p p2/f_000001_1.vtu
mpi 2 p2 piece2.dyn
[ "$rc" = 4 ] || fail "mpirun -n 2 piece2.dyn: exit $rc, expected 4: $(head -3 p2/err)"
[ "$(grep -c 'g_000000.pvtu' p2/g.pvd) $(grep -c 'g_000001.pvtu' p2/g.pvd)" = "1 0" ] ||
	fail "mpirun -n 2 piece2.dyn: g.pvd lists the failed frame: $(cat p2/g.pvd)"
rm -rf p2/f_000001_1.vtu
sed -e 's/"cd2.csv" every 7/"two.csv" every 7/' -e 's/record field u to "cd2.pvd" every 25/record field u to "ta.pvd" every 25\n  record field u to "tb.pvd" every 25/' \
	cd2.dyn > two.dyn
rm -rf p2/ta_* p2/tb_* p2/ta.pvd p2/tb.pvd
mkdir -p p2/ta_000025_1.vtu
mpi 2 p2 two.dyn
[ "$rc" = 4 ] && [ "$(grep -c "the process of rank 1 could not write its piece 'ta_000025_1.vtu'" p2/err)" = 1 ] ||
	fail "mpirun -n 2 two.dyn: exit $rc: $(head -c 600 p2/err)"
[ "$(grep -c '_000025.pvtu' p2/ta.pvd p2/tb.pvd | tr '\n' ' ')" = "p2/ta.pvd:0 p2/tb.pvd:0 " ] ||
	fail "mpirun -n 2 two.dyn: a .pvd lists the failed frame: $(cat p2/ta.pvd p2/tb.pvd)"
rm -rf p2/ta_000025_1.vtu
# two processes that fail: rank 0 says how many
rm -rf p3/f_* p3/f.pvd p3/piece.csv
mkdir -p p3/f_000001_1.vtu p3/f_000001_2.vtu
mpi 3 p3 piece.dyn
[ "$rc" = 4 ] || fail "mpirun -n 3 piece.dyn: exit $rc, expected 4: $(head -3 p3/err)"
[ "$(grep -c "piece.dyn:8:1: error: t = 0.5 (step 1): 2 other processes could not write their files" p3/err)" = 1 ] ||
	fail "mpirun -n 3 piece.dyn: not said once: $(head -c 600 p3/err)"
[ "$(grep -c 'f_000000.pvtu' p3/f.pvd) $(grep -c 'f_000001.pvtu' p3/f.pvd)" = "1 0" ] ||
	fail "mpirun -n 3 piece.dyn: f.pvd lists the failed frame: $(cat p3/f.pvd)"
rm -rf p3/f_000001_1.vtu p3/f_000001_2.vtu
# Ctrl-C: mpirun forwards it to every process as SIGTERM, which they
# receive at different steps; they stop together (shared_stop), one
# message, the record whole and ending at the step the message names
cat > "$dir/long.dyn" <<'EOS'
mesh blk = rectangle(0, 1, 0, 1, nx = 8, ny = 8)
model block {
  field u on blk : P1^2
  kinetic   integral(blk, 0.5*dot(u', u'))
  potential integral(blk, tr(eps(u))^2 + inner(eps(u), eps(u)))
  fix u on left
  init u = [0, 0.01*x^2]
}
run block with newmark from 0 to 1000 step 1e-3, solver = direct { record t, p = u at (1, 0.5) to "long.csv" }
EOS
# stepping DIR NAME SIZE: wait (20 s at most) until the run writing
# NAME in DIR is stepping: its record's temporary holds SIZE of rows
stepping() {
	i=0
	while [ $i -lt 200 ]; do
		[ -n "$(find "$1" -name ".$2.*" -size "+$3" 2> /dev/null)" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
rm -f p2/long.csv p2/.long.csv.*
(cd p2 && exec mpirun --allow-run-as-root --oversubscribe -n 2 "$DYN" ../long.dyn > out 2> err < /dev/null) &
mpid=$!
stepping p2 long.csv 2k
kill -INT $mpid
wait $mpid
rc=$?
[ "$rc" != 0 ] || fail "mpirun -n 2 long.dyn stopped by Ctrl-C: exit 0"
[ "$(grep -c "error: stopped by SIGTERM at t = " p2/err)" = 1 ] ||
	fail "mpirun -n 2 long.dyn stopped by Ctrl-C: not said once: $(head -c 600 p2/err)"
tstop=$(sed -n 's/.*error: stopped by SIGTERM at t = \([0-9.e+-]*\) (step.*/\1/p' p2/err)
last=$(tail -n 1 p2/long.csv | cut -d, -f1)
# the same step: the record's t is the shortest round trip of the sum of
# the steps (1.8880000000000001), the message's has the step's digits
# (1.888); apart by less than half a step (1e-3) they name one step
[ -n "$tstop" ] && [ -n "$last" ] && awk -v a="$last" -v b="$tstop" 'BEGIN { d = a - b; exit !(d < 5e-4 && d > -5e-4) }' ||
	fail "mpirun -n 2 long.dyn stopped by Ctrl-C: the record ends at t = $last, the message says $tstop"
awk -F, 'NR > 1 && NF != 3 { exit 1 }' p2/long.csv || fail "mpirun -n 2 long.dyn: the record has a cut row"
[ -z "$(find p2 -name '.long.csv.*')" ] || fail "mpirun -n 2 long.dyn: a temporary was left"
# a signal that reaches one process only (kill of rank 2 of a
# partitioned explicit run): the processes agree on it with their sums,
# and the message names it, once (it said "interrupted", SIGINT's, on
# the others)
cat > "$dir/sigone.dyn" <<'EOS'
mesh bar = interval(0, 1, cells = 8)
model m {
  field u on bar : P1
  kinetic lumped integral(bar, 0.5*u'^2)
  potential integral(bar, 0.5*grad(u)^2 + 2*grad(u)^4)
  fix u on left
  force u on right: 0.2*sin(3*t)
}
run m with central_difference from 0 to 1e5 step 0.01 { record t, p = u at (1) to "sigone.csv" every 1000 }
EOS
# sigone SCRIPT NAME: run SCRIPT on 3 processes, send SIGTERM to the
# last process mpirun started (its children, from /proc: procps's pgrep
# is not in every installation; none found, mpirun itself is stopped and
# the test fails) once its record NAME is being written, and wait (120 s
# at most: a process left waiting for the one that stopped would hang)
sigone() {
	rm -f "p3/$2" p3/."$2".*
	(cd p3 && exec timeout 120 mpirun --allow-run-as-root --oversubscribe -n 3 "$DYN" "../$1" > out 2> err \
		< /dev/null) &
	mpid=$!
	stepping p3 "$2" 1k
	victim= launcher=
	for d in /proc/[0-9]*; do
		read -r pid _ _ ppid _ < "$d/stat" 2> /dev/null || continue
		[ "$ppid" = "$mpid" ] && launcher=$pid
	done
	for d in /proc/[0-9]*; do
		read -r pid _ _ ppid _ < "$d/stat" 2> /dev/null || continue
		[ -n "$launcher" ] && [ "$ppid" = "$launcher" ] && { [ -z "$victim" ] || [ "$pid" -gt "$victim" ]; } &&
			victim=$pid
	done
	if [ -n "$victim" ]; then
		kill -TERM "$victim"
	else
		kill -TERM $mpid
		fail "mpirun -n 3 $1: no process of mpirun's found in /proc"
	fi
	wait $mpid
	rc=$?
	[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "mpirun -n 3 $1, SIGTERM to one process: exit $rc (124: it hung)"
	[ "$(grep -c "error: stopped by SIGTERM at t = " p3/err)" = 1 ] ||
		fail "mpirun -n 3 $1, SIGTERM to one process: not said once as SIGTERM: $(head -c 600 p3/err)"
}
sigone sigone.dyn sigone.csv
# the same on a replicated Newton run whose kernels the processes share
# (solver = sparse: each evaluation gathers every process's cells, so
# the one that stopped alone would leave the others waiting in it)
sed -e 's/kinetic lumped integral/kinetic integral/' \
	-e 's/with central_difference from 0 to 1e5 step 0.01 {/with midpoint from 0 to 1e5 step 0.01, solver = sparse {/' \
	-e 's/"sigone.csv" every 1000/"sigsplit.csv" every 100/' "$dir/sigone.dyn" > "$dir/sigsplit.dyn"
grep -q 'midpoint from' "$dir/sigsplit.dyn" || fail "sigsplit.dyn was not made from sigone.dyn"
sigone sigsplit.dyn sigsplit.csv
# a script error: the serial status and message, once
printf 'let a = 1\nprint b\n' > bad.dyn
(cd s && "$DYN" ../bad.dyn > bout 2> berr < /dev/null)
src=$?
mpi 3 p3 bad.dyn
[ "$rc" = "$src" ] || fail "mpirun -n 3 bad.dyn: exit $rc, serially $src: $(head -3 p3/err)"
[ "$(grep -c "error:" p3/err)" = 1 ] || fail "mpirun -n 3 bad.dyn: the error not said once: $(head -c 600 p3/err)"
grep -qF "$(head -1 s/berr)" p3/err || fail "mpirun -n 3 bad.dyn: not the serial message $(head -1 s/berr)"
# the script on standard input (which reaches rank 0 alone), or the
# REPL: refused, said once (status 2)
(cd p2 && mpirun --allow-run-as-root --oversubscribe -n 2 "$DYN" - < ../chain.dyn > out 2> err)
rc=$?
[ "$rc" = 2 ] || fail "mpirun -n 2 dyn -: exit $rc, expected 2: $(head -3 p2/err)"
[ "$(grep -c "dyn: on 2 MPI processes the script must be a file that each reads (standard input reaches rank 0 alone, and the REPL runs on one process)" p2/err)" = 1 ] ||
	fail "mpirun -n 2 dyn -: not said once: $(head -c 400 p2/err)"
(cd p2 && mpirun --allow-run-as-root --oversubscribe -n 2 "$DYN" -i ../chain.dyn > out 2> err < /dev/null)
rc=$?
[ "$rc" = 2 ] || fail "mpirun -n 2 dyn -i: exit $rc, expected 2: $(head -3 p2/err)"

# a launcher whose environment dyn does not read: each process believes
# it runs alone, and PETSc finds it does not
(cd p2 && mpirun --allow-run-as-root --oversubscribe -n 2 sh -c 'unset OMPI_COMM_WORLD_SIZE; exec "$0" "$@"' \
	"$DYN" ../block.dyn -ksp_type cg > out 2> err < /dev/null)
rc=$?
[ "$rc" = 3 ] || fail "a launcher not recognised: exit $rc, expected 3: $(head -3 p2/err)"
grep -q "block.dyn:5:3: error: the mass matrix: started on 2 MPI processes by a launcher that dyn does not recognise (dyn(1), MPI: Open MPI's and MPICH's mpirun); run one process" p2/err ||
	fail "a launcher not recognised: not said: $(head -3 p2/err)"
exit "$status"
