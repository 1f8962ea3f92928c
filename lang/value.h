/* value.h — what expressions evaluate to in the interpreter of statements.
 *
 * A scalar is an IR register of the program being built: at top level all
 * registers fold to constants; inside a model, a scalar may depend on t and
 * on the state, and is then a program to run at every step. */
#ifndef DYN_VALUE_H
#define DYN_VALUE_H

#include "ast.h"
#include "ir.h"
#include "run.h"

enum value_kind {
	VAL_NUM,      /* reg */
	VAL_MAT,      /* rows, cols, m (registers, row-major) */
	VAL_STR,      /* str */
	VAL_RUN,      /* run */
	VAL_HIST,     /* run, hist: a whole history, for plot */
	VAL_SYMBOL,   /* str: a bare name in an option value (formulation = ggl) */
	VAL_SPECTRUM, /* spec: spectrum(ACCEL, periods, xi) */
	VAL_MODES,    /* modes: modes(MODEL, k) */
	VAL_DRY       /* --check: a value computed from a run's results,
	                 which a check does not compute (see session.dry_hit) */
};

/* An elastic response spectrum: for each period, the spectral displacement
 * and the pseudo-velocity and pseudo-acceleration (runtime/spectrum.h). */
struct spectrum_value {
	int n;
	double xi;
	double *period, *sd, *psv, *psa;
};

/* The lowest k modes of a model (runtime/modes.c): ω (rad/s), f (Hz),
 * periods, the M-normalised shapes (n × k, columns), participation
 * factors and effective masses along the support direction (all dofs
 * along 1 without a support), their cumulated share of the total mass. */
struct modes_value {
	int n, k;
	const char *model;
	double total;
	double *omega, *f, *period, *gamma, *meff, *share, *phi;
};

/* A finished run, as the language sees it. */
struct run_value {
	const char *name;          /* the let name, for labels */
	const struct ir_run *plan;
	struct rt_result *res;
	struct run_value *next;    /* all runs of the session, freed at exit */
	unsigned long serial;      /* 1, 2, ... in the order made (the list
	                              is newest first) */
};

/* Which series of a run a history or a value refers to. */
struct series_ref {
	enum { SER_T, SER_DOF, SER_INT, SER_ENERGY, SER_DTERM, SER_LAM, SER_COL } kind;
	int index;                 /* dof, internal variable, energy or column */
	int deriv;                 /* for SER_DOF and SER_INT */
	const char *label;         /* "r.u'" */
};

struct value {
	enum value_kind kind;
	int reg;
	int rows, cols;
	int *m;
	/* A value bound to a name outlives the program it was computed in, so
	 * it is kept as constants (frozen) and re-emitted where it is used. */
	int frozen;
	double k;
	double *km;
	const char *str;
	struct run_value *run;
	struct series_ref ser;
	struct spectrum_value *spec;
	struct modes_value *modes;
};

/* Shortest decimal form that reads back to the same double (C locale). */
void value_format_num(double x, char buf[32]);

#endif
