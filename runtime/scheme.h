/* scheme.h — one interface for a scheme family (GSL odeiv2's step type):
 * its named parameters, its capabilities and its two paths, the linear
 * one (constant operators, one factorisation per step size: struct
 * scheme_linear, stepper.h) and the Newton one (energies, internal
 * variables, constraints: struct scheme_newton, nlstep.h).  The driver
 * (run.c) decides from the capabilities and from which paths exist,
 * never from the family's identity.
 *
 * Adding a family: one FAMILY line in ir/ir_families.def (name, order,
 * capabilities, summary, parameters), one file runtime/scheme_NAME.c
 * defining `const struct scheme_type scheme_NAME`, one SCHEME line in
 * runtime/schemes.def. */
#ifndef DYN_SCHEME_H
#define DYN_SCHEME_H

#include "stepper.h"
#include "nlstep.h"

struct scheme_type {
	enum ir_family family;
	/* The family's parameters as its own named struct (params_size
	 * bytes), filled by params from the IR's values p (in the order of
	 * ir_families.def); params NULL when it has none. */
	size_t params_size;
	void (*params)(const double *p, void *par);
	/* Whether the values p a script gave (in the order of
	 * ir_families.def) lie in the family's range: 0, or -1 with the
	 * message in msg (size bytes), which the front end reports at the
	 * scheme before anything runs (scheme_check_params).  NULL: any
	 * values. */
	int (*check_params)(const double *p, char *msg, size_t size);
	/* The capabilities for these parameters, from those of the family
	 * (ir_family_info[].caps); NULL keeps them. */
	unsigned (*caps)(const void *par, unsigned caps);
	/* Whether a run with these parameters can be stable at all: 0, or -1
	 * with the message in msg (newmark with γ < ½ amplifies every mode).
	 * Checked before a run, not by spectral_radius, which shows the
	 * growth.  NULL: it can. */
	int (*check_run)(const void *par, char *msg, size_t size);
	/* ω_max τ below which the undamped linear scheme is stable, for the
	 * message of a run that blew up; NULL or 0 when none is known. */
	double (*critical)(const void *par);
	/* ω_max τ below which the linear scheme is stable whatever its
	 * viscous damping (Newmark with γ = ½), which a run refuses to
	 * exceed before stepping; NULL or 0 when damping moves the bound. */
	double (*critical_damped)(const void *par);
	/* Whether these parameters lie where the family is known stable at
	 * any step (1); where not (0), a run first scans the amplification
	 * of the undamped oscillator for growth (rt_stability_limit: run.c,
	 * conditional_step).  NULL: the family is not scanned. */
	int (*stable_params)(const void *par);
	/* How a refusal of a mass depending on u names the family ("the
	 * Newmark family"); NULL: by its name. */
	const char *who;
	const struct scheme_linear *linear;   /* NULL: no linear path */
	/* The linear path spectral_radius steps, when not the one above
	 * (NULL).  Central differences are newmark(0, 1/2) step for step
	 * (dyn(5)), and their own path refuses a step above the critical
	 * one, the very range where the growth factor is asked for: they
	 * give Newmark's.  Beyond ωτ = 2 the eigenvalues of
	 * λ² − (2 − ω²τ²)λ + 1 = 0 are real and
	 * ρ = ((ω²τ² − 2) + ωτ√(ω²τ² − 4))/2. */
	const struct scheme_linear *amplification;
	const struct scheme_newton *newton;
};

/* The family's type (schemes.def), NULL when it has none. */
const struct scheme_type *scheme_of(enum ir_family family);
/* The family's check of the values p (t->check_params): 0 when they are
 * in range (or it has no check, or no type), else -1 with the message in
 * msg. */
int scheme_check_params(enum ir_family family, const double *p, char *msg, size_t size);
/* A step tau at or above a critical step tc: tau ≥ tc within the
 * rounding of tc's eigensolve (1e-12).  At ωτ equal to the bound the
 * amplification matrix has a double eigenvalue of modulus 1 and the
 * response grows linearly (central differences at ωτ = 2: u = 1, 0,
 * −1, 2, −3, ...), so the bound itself is refused. */
int scheme_step_critical(double tau, double tc);   /* 2 at tc, 1 above, 0 below */
/* The digits (6 to 17) that print tau and tc differently, unless they
 * are equal within that rounding: "step 1 exceeds the critical step 1"
 * at 1.0000000001. */
int scheme_step_digits(double tau, double tc);
/* Its capabilities for parameters par (filled by t->params). */
unsigned scheme_caps(const struct scheme_type *t, const void *par);
/* A copy of the family's parameters in its own struct, from the IR's
 * values: malloc'd (free it), NULL when out of memory. */
void *scheme_params(const struct scheme_type *t, const double *p);
/* Refuse the model features the capabilities caps exclude (a mass
 * depending on u, internal variables, bilateral constraints, dry
 * friction): 0, or 3 with the message in err. */
int scheme_refuse_model(const struct scheme_type *t, unsigned caps, const struct rt_problem *pb,
                        struct rt_error *err);

/* generalized_alpha(alpha_m, alpha_f, beta, gamma) (Chung & Hulbert
 * 1993): newmark is alpha_m = alpha_f = 0, central_difference in
 * addition beta = 0, gamma = 1/2.  The one parameter struct of both
 * paths of scheme_newmark.c and of scheme_central_difference.c, which
 * wraps them. */
struct alpha_params {
	double alpha_m, alpha_f, beta, gamma;
};

/* The algorithmic energy of generalized-α (scheme_newmark.c, with the
 * algebra; dyn(5), ENERGY LEDGER): the ledger's residual of the
 * dissipative members (γ = ½ − α_m + α_f, α_m ≠ α_f) is taken against
 * T + Φ + C(τ; v, a, ε), where ε = M⁻¹e is the scheme's lag behind the
 * equation of motion at tₖ, so that it is minus the scheme's numerical
 * dissipation, a sum of squares.  A is Σ(Cᵏ − Cᵏ⁻¹) over the steps so far. */
struct alpha_energy {
	const struct la_mat *M;
	int n;
	double am, af, kappa, c[4];
	double *eps, *Mx;        /* ε (n), scratch (n) */
	double A;
};
/* 1 and ae ready when family t with parameters par has one, 0 (ae
 * inert) when not, -1 out of memory.  M is the constant mass. */
int alpha_energy_init(struct alpha_energy *ae, const struct scheme_type *t, const void *par,
                      const struct la_mat *M, int n);
/* After a step of size tau from (vprev, aprev) to (v, a): advances ε and
 * adds Cᵏ − Cᵏ⁻¹ to A; returns that change.  Nothing when inert. */
double alpha_energy_step(struct alpha_energy *ae, double tau, const double *vprev, const double *aprev,
                         const double *v, const double *a);
void alpha_energy_free(struct alpha_energy *ae);

#endif
