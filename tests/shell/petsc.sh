#!/bin/sh
# petsc.sh — the PETSc backend of the matrix layer (dyn(1), PETSC; dyn(5),
# solver = direct | iterative), when it is built in:
#
#   - tests/petsc/*.dyn: a chain of 10⁴ masses and a 2-D elastic block
#     under newmark, Newton on a Fermi–Pasta–Ulam chain, a cantilever
#     started in equilibrium under its weight, and constrained models
#     (a saddle point: field split under solver = iterative) give the
#     default path's answers to 1e-10 with solver = direct and to the
#     solver's tolerance with solver = iterative (see each script);
#   - a solver that does not solve (-ksp_type preonly -pc_type jacobi:
#     one Jacobi sweep, which KSP reports as converged) is a named error
#     with its residual, exit 4; so is KSP's own divergence
#     (DIVERGED_ITS), with PETSc's options before the script or in
#     PETSC_OPTIONS; and through Newton;
#   - a mass that is singular is refused by MUMPS (its null pivots) as
#     by CHOLMOD; a singular Newton Jacobian under MUMPS's LU is named,
#     and on_failure = halve retries its step as with the default solver;
#   - solver = iterative sets BoomerAMG as hypre advises for 3-D solids
#     (HMIS coarsening, ext+i interpolation), the user's options first;
#   - PETSc (and MPI) start only when a run asks for it: PETSC_OPTIONS =
#     -log_view prints PETSc's log at exit after solver = direct, nothing
#     after a default run;
#   - mpirun -n 1 runs as dyn alone, and mpirun -n 2 prints once
#     (tests/shell/mpi.sh tests runs on several processes).
# Built without PETSc, solver = iterative is refused before any run
# (exit 3), and so is a start by mpirun on 2 processes (exit 2, said
# once); the rest is skipped (exit 77: "skipped", not failed).
set -u
: "${DYN:?DYN is not set}" "${OUT:?OUT is not set}"
unset DYN_PATH DYN_STDLIB DYN_HISTORY_BUDGET PETSC_OPTIONS OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_RANK PMI_SIZE PMI_RANK
LC_ALL=C
export LC_ALL
. "$srcdir/tests/shell/common.inc"
test_folder petsc petsc
# under make check-sanitize: Open MPI's own allocations are not dyn's
# leaks (tests/petsc/lsan.supp says which and why)
if [ -n "${DYN_SANITIZED:-}" ]; then
	LSAN_OPTIONS="suppressions=$srcdir/tests/petsc/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:fast_unwind_on_malloc=0"
	export LSAN_OPTIONS ASAN_OPTIONS
fi
cd "$dir" || exit 1

cat > it.dyn <<'EOS'
param nb = 100, k = 1e4
model chain {
  dof x[nb]
  kinetic     sum(i in 1..nb) 0.5*x[i]'^2
  potential   0.5*k*x[1]^2 + sum(i in 1..nb-1) 0.5*k*(x[i+1] - x[i])^2
  force       x[nb]: sin(30*t)
}
let r = run chain with newmark from 0 to 0.1 step 1e-2, solver = iterative
print "done"
EOS
sed 's/, solver = iterative//' it.dyn > plain.dyn
sed 's/solver = iterative/solver = direct/' it.dyn > direct.dyn
cat > fpu.dyn <<'EOS'
param nb = 50
model fpu {
  dof x[nb]
  kinetic     sum(i in 1..nb) 0.5*x[i]'^2
  potential   0.5*x[1]^2 + 0.25*x[1]^4 + sum(i in 1..nb-1) (0.5*(x[i+1] - x[i])^2 + 0.25*(x[i+1] - x[i])^4)
  force       x[1]: 1e3*sin(30*t)
}
let r = run fpu with newmark from 0 to 0.5 step 5e-2, solver = direct
print "done"
EOS

# run NAME ARGS...: dyn ARGS > NAME.out 2> NAME.err, status in rc
run() {
	name=$1
	shift
	"$DYN" "$@" > "$name.out" 2> "$name.err" < /dev/null
	rc=$?
}
want() {  # NAME RC
	[ "$rc" = "$2" ] || fail "$1: exit $rc, expected $2: $(head -3 "$1.err")"
}
has_err() {  # NAME TEXT
	grep -qF -- "$2" "$1.err" || fail "$1: stderr lacks '$2': $(head -3 "$1.err")"
}

if ! "$DYN" --version | grep -q '^backends: .*PETSc [0-9]'; then
	run nopetsc it.dyn
	want nopetsc 3
	has_err nopetsc "it.dyn:8:66: error: solver = iterative is PETSc's, and this dyn is built without PETSc (see dyn --version; configure finds PETSc through pkg-config)"
	# a start by mpirun on several processes (its environment: no MPI
	# without PETSc) is refused, rank 0 alone saying so
	OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 run mpi2 plain.dyn
	want mpi2 2
	has_err mpi2 "dyn: started as 2 MPI processes: runs on several processes need PETSc (this dyn is built without PETSc); run one process (mpirun -n 1, or dyn alone)"
	OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1 run mpi2r1 plain.dyn
	want mpi2r1 2
	[ -s mpi2r1.err ] && fail "rank 1 repeated the refusal: $(head -c 300 mpi2r1.err)"
	[ "$status" = 0 ] || exit 1
	echo "petsc: skipped: PETSc not built"
	exit 77
fi

for f in chain block newton preload saddle; do
	run "$f" -o "$dir" "$srcdir/tests/petsc/$f.dyn"
	want "$f" 0
done

run preonly it.dyn -ksp_type preonly -pc_type jacobi
want preonly 4
has_err preonly "it.dyn:8:9: error: t = 0.01 (step 1): PETSc's solve (ksp preonly, pc jacobi) left a residual "
has_err preonly "above 1e-09 (100 times -ksp_rtol, at least 1e-9)"

# a negative value is the option's, not an option of dyn's (-ksp_rtol -1
# was taken for dyn's option -1: "invalid option")
run negative it.dyn -ksp_type cg -ksp_max_it 2 -ksp_atol -1
want negative 4
has_err negative "PETSc's solve (ksp cg, pc "

run before -ksp_type cg -pc_type none -ksp_max_it 2 it.dyn
want before 4
has_err before "it.dyn:8:9: error: t = 0.01 (step 1): PETSc's solve (ksp cg, pc none) failed: DIVERGED_ITS after 2 iterations"

PETSC_OPTIONS="-ksp_type richardson -pc_type none -ksp_max_it 1" run env it.dyn
want env 4
has_err env "PETSc's solve (ksp richardson, pc none) failed: DIVERGED_ITS after 1 iterations"

run newton fpu.dyn -pc_type jacobi
want newton 4

# a solve that fails at the initial acceleration is named there, with
# PETSc's reason (the first step said only that its right-hand side was
# not finite)
sed 's/^  force .*/  init x[1] = 1/' it.dyn > accel.dyn
run maxit0 accel.dyn -ksp_max_it 0
want maxit0 4
has_err maxit0 "accel.dyn:8:9: error: t = 0: the initial acceleration: PETSc's solve"
has_err newton "fpu.dyn:8:9: error: t = 0.05 (step 1): PETSc's solve (ksp preonly, pc jacobi) left a residual "

# a preconditioner chosen by the user is kept (-pc_type hypre breaks down
# on the saddle point's zero block), and a step's first failed solve is
# the one named, not the next solve's NaN right-hand side
cat > twodof.dyn <<'EOS'
model two {
  dof x, y
  kinetic 0.5*x'^2 + 0.5*y'^2
  potential 0.5*x^2 + 2*y^2
  constraint x + y == 0
  init x = 0.1, y = -0.1
}
let r = run two with midpoint from 0 to 0.01 step 1e-3, solver = iterative
EOS
run userpc twodof.dyn -pc_type hypre
want userpc 4
# the split's outer solver is flexible GMRES, which preconditions on the
# right only: a side asked for keeps GMRES (FGMRES stopped on PETSc's
# error), and the run ends as the default's does
run pcside twodof.dyn -ksp_pc_side left
want pcside 0
has_err userpc "twodof.dyn:8:9: error: t = 0.001 (step 1): PETSc's solve (ksp gmres, pc hypre) failed: "

# an indefinite step matrix (a negative stiffness) is refused as by the
# other backends, where MUMPS's LDL^T factored it and the run went on to
# 1e12: the inertia of the factor (14 negative pivots, Sylvester's law)
run negk "$srcdir/tests/petsc/negk.dyn"
want negk 3
has_err negk "negk.dyn:14:47: error: the step matrix M + gamma*tau*C + beta*tau^2*K is singular or not positive definite (PETSc's factorization (ksp preonly, pc cholesky) found the matrix not positive definite: 14 negative pivots)"

# a mass that is not positive definite, likewise (20 negative pivots)
sed "s/kinetic   integral(bar, 0.5\*u'\^2)/kinetic   integral(bar, -0.5*u'^2)/; s/-50\*grad/50*grad/" \
	"$srcdir/tests/petsc/negk.dyn" > negm.dyn
run negm negm.dyn
want negm 3
has_err negm "negm.dyn:9:3: error: the mass matrix is not positive definite (PETSc's factorization (ksp preonly, pc cholesky) found the matrix not positive definite: 20 negative pivots)"

# init equilibrium names the solver's failure, not the NaN it left
run eqfail "$srcdir/tests/petsc/preload.dyn" -pc_type jacobi
want eqfail 3
has_err eqfail "preload.dyn:19:3: error: init equilibrium: PETSc's solve (ksp preonly, pc jacobi) left a residual "

# a consistent mass that the solver does not invert: the initial
# acceleration's solve is named with its residual (the first step said
# only that its solve was given a right-hand side that is not finite)
cat > mass.dyn <<'EOS'
mesh blk = rectangle(0, 1, 0, 1, nx = 4, ny = 4)
model block {
  field u on blk : P1^2
  kinetic   integral(blk, 0.5*dot(u', u'))
  potential integral(blk, 0.5*2*tr(eps(u))^2 + inner(eps(u), eps(u)))
  fix u on left
  init u = [0, 0.01*x^2]
}
let d = run block with newmark from 0 to 0.01 step 1e-3, solver = direct
EOS
run mass mass.dyn -pc_type jacobi
want mass 4
has_err mass "mass.dyn:9:9: error: t = 0: the initial acceleration: PETSc's solve (ksp preonly, pc jacobi) left a residual "

# an option PETSc refuses is named with PETSc's reason (it was reported
# as "out of memory for the mass matrix"), on the command line or in
# PETSC_OPTIONS
run badtype it.dyn -ksp_type nonsense
want badtype 3
has_err badtype "error: the mass matrix: PETSc refused its options (command line or PETSC_OPTIONS): "
has_err badtype "nonsense"
PETSC_OPTIONS="-ksp_type nonsense" run badenv it.dyn
want badenv 3
has_err badenv "PETSc refused its options"
# an options file PETSc could not read to its end is refused before it
# starts (-options_file /dev/zero hung)
run optzero it.dyn -options_file /dev/zero
want optzero 2
has_err optzero "dyn: -options_file '/dev/zero' is not a regular file"
run optmissing it.dyn -options_file no-such-file
want optmissing 2
has_err optmissing "dyn: -options_file 'no-such-file': No such file or directory"
run optnone it.dyn -options_file
want optnone 2
has_err optnone "dyn: -options_file needs a file name"
printf -- '-ksp_type cg\n-ksp_view\n' > opts.txt
run optfile it.dyn -options_file opts.txt
want optfile 0
grep -q "type: cg" optfile.out || fail "-options_file: the file's -ksp_type cg was not used"

# the options given are the ones used: -ksp_view shows them
run view it.dyn -ksp_type gmres -ksp_view
want view 0
grep -q "type: gmres" view.out || fail "-ksp_type gmres -ksp_view: no 'type: gmres' in the output"

# a mass zero on half a bar is refused by the direct solver as by the
# default one (MUMPS's LDL^T has no negative pivot there, only null
# ones, and the run went on with status 0)
cat > massless.dyn <<'EOS'
mesh bar = interval(0, 1, cells = 50)
model wave {
  field u on bar : P1
  kinetic integral(bar, 0.5*max(x - 0.5, 0)*u'^2)
  potential integral(bar, 0.5*grad(u)^2)
  fix u on left
  force u on right: 0.01*sin(t)
}
let r = run wave with newmark from 0 to 1 step 1e-2, solver = direct
EOS
run massless massless.dyn
want massless 3
has_err massless "the mass matrix is not positive definite (PETSc's factorization (ksp preonly, pc cholesky) found the matrix singular: 24 null pivots)"

# a neo-Hookean plate whose Newmark predictor leaves the domain of
# log det F at step 3: solver = direct says what the sparse path says,
# the NaN equation named (the residual's norm let a NaN hide behind the
# finite equations after it, a line search accepted such an iterate, and
# MUMPS's LU of its Jacobian met a zero pivot at step 2, whose step does
# converge); on_failure = halve retries the steps as with the default
# solver, to the same records up to the step where the halves fail too
# (rounding: 1e-10)
cat > nhsing.dyn <<'EOS'
mesh plate = rectangle(0, 2, 0, 1, nx = 8, ny = 4)
param mu = 3.846, lam = 5.769, F = 30
model nh {
  field u on plate : P1^2
  kinetic   integral(plate, 0.5*dot(u', u'))
  potential integral(plate, 0.5*mu*(tr(transpose(identity(2) + grad(u))*(identity(2) + grad(u))) - 2) - mu*log(det(identity(2) + grad(u))) + 0.5*lam*log(det(identity(2) + grad(u)))^2)
  fix   u on left
  force u on right: [-F*t, -F*sin(3*t)]
}
let d = run nh with newmark from 0 to 3 step 0.1, solver = direct { record t, tip = u at (2, 0.5) to "nhsing.csv" }
EOS
run nhsing nhsing.dyn
want nhsing 4
has_err nhsing "t = 0.3 (step 3): Newton diverged: the equation of u[15] is NaN at u[15] = -0.46 after 0 iterations"
sed 's/solver = direct {/solver = sparse {/; s/nhsing.csv/nhsingsp.csv/' nhsing.dyn > nhsingsp.dyn
run nhsingsp nhsingsp.dyn
want nhsingsp 4
[ "$(grep error: nhsing.err)" = "$(grep error: nhsingsp.err | sed 's/nhsingsp.dyn/nhsing.dyn/; s/solver = sparse/solver = direct/')" ] ||
	fail "nhsing: solver = direct's message is not solver = sparse's: $(grep error: nhsing.err)"
# a factorization that fails is named with PETSc's reason: PETSc's own
# LU with every pivot "zero" (-pc_factor_zeropivot 1e300) on the mass
run zeropivot nhsing.dyn -pc_factor_mat_solver_type petsc -pc_factor_zeropivot 1e300
want zeropivot 3
has_err zeropivot "nhsing.dyn:5:3: error: the mass matrix is not positive definite (PETSc's factorization (ksp preonly, pc cholesky) failed: FACTOR_NUMERIC_ZEROPIVOT)"
sed 's/solver = direct {/solver = direct, on_failure = halve(4) {/; s/nhsing.csv/nhhalf.csv/' nhsing.dyn > nhhalf.dyn
sed 's/solver = direct {/solver = sparse, on_failure = halve(4) {/; s/nhsing.csv/nhsparse.csv/' nhsing.dyn > nhsparse.dyn
run nhhalf nhhalf.dyn
run nhsparse nhsparse.dyn
awk -F, 'NR == FNR { a[FNR] = $0; n = FNR; next }
	{ split(a[FNR], x, ","); for (i = 1; i <= NF; i++) if ((x[i] - $i)^2 > 1e-20) bad = 1 }
	END { exit bad || FNR != n || n < 12 }' nhsparse.csv nhhalf.csv ||
	fail "solver = direct with halve(4): its record differs from solver = sparse's: $(wc -l < nhhalf.csv) rows against $(wc -l < nhsparse.csv)"

# solver = iterative's BoomerAMG takes hypre's settings for 3-D solids
# (HMIS, ext+i, ...: runtime/la_petsc.c, amg_default) unless the user
# gives that option, and only the user's are left in PETSc's options
# (a PETSc without hypre takes GAMG: nothing to check then)
run amgview it.dyn -ksp_view
want amgview 0
if grep -q "type: hypre" amgview.out; then
	grep -q "Coarsen type *HMIS" amgview.out || fail "solver = iterative: BoomerAMG's coarsening is not HMIS by default"
	grep -q "Interpolation type *ext+i" amgview.out || fail "solver = iterative: BoomerAMG's interpolation is not ext+i"
	run amguser it.dyn -ksp_view -pc_hypre_boomeramg_coarsen_type PMIS -options_left
	want amguser 0
	grep -q "Coarsen type *PMIS" amguser.out || fail "-pc_hypre_boomeramg_coarsen_type PMIS was not used"
	grep -q "There are no unused options" amguser.out amguser.err ||
		fail "-options_left: dyn's BoomerAMG settings were left among the options"
fi

PETSC_OPTIONS=-log_view run lazy plain.dyn
want lazy 0
grep -q "PETSc Performance Summary" lazy.out && fail "a default run started PETSc (-log_view printed its log)"
PETSC_OPTIONS=-log_view run eager direct.dyn
want eager 0
grep -q "PETSc Performance Summary" eager.out || fail "solver = direct: PETSC_OPTIONS=-log_view printed no log"

# mpirun itself (not under the sanitizers: Open MPI's launcher is not
# built with them); runs on several processes are tests/shell/mpi.sh's
if command -v mpirun > /dev/null 2>&1 && [ -z "${DYN_SANITIZED:-}" ]; then
	mpirun --allow-run-as-root -n 1 "$DYN" it.dyn > mpirun1.out 2> mpirun1.err < /dev/null
	rc=$?
	want mpirun1 0
	grep -q '^done$' mpirun1.out || fail "mpirun -n 1: no 'done' printed"
	mpirun --allow-run-as-root --oversubscribe -n 2 "$DYN" it.dyn > mpirun2.out 2> mpirun2.err < /dev/null
	rc=$?
	want mpirun2 0
	[ "$(cat mpirun2.out)" = done ] || fail "mpirun -n 2: not one 'done' printed: $(head -c 200 mpirun2.out)"
fi
exit "$status"
