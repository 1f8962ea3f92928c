/* run.h — executing a run plan (struct ir_run) and what it leaves behind:
 * the histories, the energy ledger and the recorded columns. */
#ifndef DYN_RUN_H
#define DYN_RUN_H

#include <signal.h>
#include <stddef.h>
#include "ir.h"

/* A failure with the quantity and place it concerns.  code is the exit
 * status it deserves: 3 when found before stepping starts (a model or file
 * problem), 4 for a numerical failure while stepping. */
struct rt_error {
	char msg[1024];
	struct ir_loc loc;   /* loc.file == NULL when there is no source place */
	int code;
};

enum { RT_NENERGY = 5 };
extern const char *const rt_energy_name[RT_NENERGY];  /* kinetic, stored, ... */

struct rt_result {
	int nstep;            /* steps taken; rows 0..nstep */
	double *t;            /* nstep + 1 times */
	int ndof;
	/* Per dof, the history of u, v and a (nstep + 1 values each), or NULL
	 * for a dof not kept (history beyond the budget and not recorded). */
	double **u, **v, **a;
	int kept_all;
	int nint;             /* internal variables: z and ż, or NULL when not kept */
	double **z, **zd;
	double *energy[RT_NENERGY];
	int nterm;            /* dissipation per term: the `dissipation`
	                         statements, then the damping matrix */
	double **dterm;
	int nlam;             /* constraint multipliers λ_k, or NULL */
	int nimp;             /* of which nimp are the contacts' impulses of
	                         each step (record impulse), after the
	                         constraints' multipliers */
	int nimpt;            /* and the last nimpt (nimp with friction at
	                         contacts, else 0) their tangential impulses'
	                         magnitudes |P_t| (record impulse_t) */
	double **lam;
	int ncol;             /* recorded expressions (IR_REC_EXPR), by name */
	const char **col_name;
	double **col;
	size_t history_bytes; /* what keeping every dof would have needed */
};

/* Run the plan.  On success returns 0 and a result owned by the caller;
 * on failure returns the exit status (3 or 4), fills err, and still
 * returns in *res whatever was computed (rows 0..nstep), which the caller
 * frees.  Recorded files are complete and parseable in both cases. */
int rt_run(const struct ir_run *run, struct rt_result **res, struct rt_error *err);

/* The stiffness columns c0 .. c1 − 1 that this process assembles for a
 * run on several MPI processes whose rows it will step alone (part_init
 * in run.c; dyn(1), MPI): 1 when the plan's scheme, step failure policy
 * and solver allow such a run and its n unknowns are many (beyond
 * IR_DENSE_MAX), its model being still to lower; 0 otherwise (every
 * column).  The rows are P blocks of n/P.  A run that turns out not to
 * step by rows (a mass that is not diagonal, constraints) gathers the
 * columns first (la_mat_part_complete): the serial matrix. */
int rt_run_columns(const struct ir_run *plan, int n, int *c0, int *c1);

/* The same in steps, for the REPL (:step, :run): rt_begin prepares the run
 * and records row 0 (NULL only when out of memory); rt_advance takes up to
 * nsteps steps (0, or the error status); rt_end closes the records and
 * frees the run, returning the run's status.  *res stays valid after.
 * Record files are written under temporary names and renamed by rt_end
 * (outfile.h); a run refused by rt_begin leaves them untouched. */
struct rt_stepper_run;
struct rt_stepper_run *rt_begin(const struct ir_run *plan, struct rt_result **res, struct rt_error *err);
int rt_advance(struct rt_stepper_run *r, int nsteps, struct rt_error *err);
int rt_end(struct rt_stepper_run *r, struct rt_error *err);
/* After rt_advance was interrupted (status 128 + signal): forget the
 * interruption, so that the REPL's :step and :run continue the run where
 * it stopped and rt_end does not report it again.  Other failures stay. */
void rt_resume(struct rt_stepper_run *r);
/* Where a run is: returns 1 when it has reached its end time. */
int rt_position(const struct rt_stepper_run *r, double *t, int *k, int *nstep);
/* Its state at that step: u, v, a of the dofs (n each) and z, ż of the
 * internal variables, the stepper's own vectors (valid until the next
 * rt_advance or rt_end): the REPL's :state of a run whose histories are
 * not kept. */
void rt_current(const struct rt_stepper_run *r, const double **u, const double **v, const double **a,
                const double **z, const double **zd);

/* Natural frequencies ω² (ascending) and M-normalised mode shapes
 * (columns; may be NULL) of a model linearised at its initial state: all
 * of them (kmax <= 0; n×n room for phi) or the lowest kmax (n×kmax
 * room); w2 has n room in both cases.  *nmodes receives their number (all: n less
 * the number of constraints).  Up to RT_MODES_DENSE_MAX unknowns by
 * LAPACK (dsygvd), beyond by ARPACK's shift-invert Lanczos on the sparse
 * operators (lowest kmax only, constant operators only). */
enum { RT_MODES_DENSE_MAX = 500 };
int rt_modes(const struct ir_model *m, int kmax, double *w2, double *phi, int *nmodes, struct rt_error *err);
/* init equilibrium (dyn(5)): x->u from its initial value to the static
 * equilibrium ∇ᵤΦ(u, z) + ∇ᵥΨ(0) = f(t0) by Newton (relative tolerance
 * tol, at most maxit iterations), x->v to 0, x->z kept.  0, or a status
 * with err (at the model's init item). */
struct rt_problem;
struct rt_state;
int rt_equilibrium(struct rt_problem *pb, double t0, double tol, int maxit, struct rt_state *x, struct rt_error *err);
/* For k M-normalised modes phi (n × k) of model m and a direction d (n):
 * the participation factors Γ_j = φ_jᵀ M d, the effective masses Γ_j²
 * and the total mass dᵀ M d (M at the initial state). */
int rt_modal_mass(const struct ir_model *m, int k, const double *phi, const double *d, double *gamma, double *meff,
                  double *total, struct rt_error *err);

/* Set from a signal handler: the run in progress stops after its current
 * step with status 128 + rt_signal (130 when rt_signal is 0: SIGINT), its
 * records complete. */
extern volatile sig_atomic_t rt_interrupted;
extern volatile sig_atomic_t rt_signal;
/* Set while a run is prepared (between rt_begin and rt_end). */
extern volatile sig_atomic_t rt_running;
/* Set while rt_advance takes steps: only then is rt_interrupted read soon
 * at the REPL, where a prepared run may wait for the next command. */
extern volatile sig_atomic_t rt_stepping;
void rt_result_free(struct rt_result *r);

/* The value at time T of dof i's u (deriv 0), u' (1) or u'' (2): exact at
 * the step times, cubic Hermite between them for u and u' (with their
 * derivatives), linear for u''.  T must lie in [t_0, t_n]. */
double rt_result_dof(const struct rt_result *r, int dof, int deriv, double T);
/* Linear interpolation of a series (energy, recorded column, internal
 * variable). */
double rt_result_series(const struct rt_result *r, const double *y, double T);

/* The spectral radius of the one-step amplification matrix of a scheme on
 * the undamped oscillator at ωτ = omega_tau (amplification.c). */
int rt_spectral_radius(const struct ir_scheme *scheme, double omega_tau, double *rho, struct rt_error *err);
/* The smallest ωτ at which that spectral radius exceeds 1 (by 1e-9), to
 * 1e-12 of it, into *omega_tau, and the radius where it was found into
 * *rho: 0 when it exceeds 1 by 1e-13 already at ωτ = 0.01 (the scheme
 * amplifies every mode: unstable at any step), INFINITY when nowhere up
 * to 1e6.  0, or -1 when the scheme cannot be analysed. */
int rt_stability_limit(const struct ir_scheme *scheme, double *omega_tau, double *rho);

#endif
