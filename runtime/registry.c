/* registry.c — the scheme families' types, from schemes.def, and what the
 * driver asks of them. */
#include <config.h>

#include "scheme.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCHEME(fam, type) extern const struct scheme_type type;
#include "schemes.def"
#undef SCHEME

static const struct scheme_type *const registry[IR_NFAMILY] = {
#define SCHEME(fam, type) [fam] = &type,
#include "schemes.def"
#undef SCHEME
};

const struct scheme_type *scheme_of(enum ir_family family)
{
	return (unsigned)family < IR_NFAMILY ? registry[family] : NULL;
}

int scheme_check_params(enum ir_family family, const double *p, char *msg, size_t size)
{
	const struct scheme_type *t = scheme_of(family);
	return t && t->check_params ? t->check_params(p, msg, size) : 0;
}

int scheme_step_digits(double tau, double tc)
{
	for (int p = 6; p < 17; p++) {
		char a[32], b[32];
		snprintf(a, sizeof a, "%.*g", p, tau);
		snprintf(b, sizeof b, "%.*g", p, tc);
		if (fabs(tau - tc) <= 1e-12 * tc || strcmp(a, b) != 0)
			return p;
	}
	return 17;
}

int scheme_step_critical(double tau, double tc)
{
	if (!isfinite(tc))
		return 0;   /* no limit (no stiffness, or no mass's bound) */
	if (fabs(tau - tc) <= 1e-12 * tc)
		return 2;
	return tau > tc;
}

unsigned scheme_caps(const struct scheme_type *t, const void *par)
{
	unsigned caps = ir_family_info[t->family].caps;
	return t->caps ? t->caps(par, caps) : caps;
}

void *scheme_params(const struct scheme_type *t, const double *p)
{
	void *par = calloc(1, t->params_size ? t->params_size : 1);
	if (par && t->params)
		t->params(p, par);
	return par;
}

int scheme_refuse_model(const struct scheme_type *t, unsigned caps, const struct rt_problem *pb,
                        struct rt_error *err)
{
	const char *name = ir_family_info[t->family].name;
	int friction = 0;
	for (int i = 0; i < pb->n && pb->sigma_u; i++)
		friction |= pb->sigma_u[i] > 0;
	if (pb->varmass && !(caps & IR_SCHEME_VARMASS))
		/* midpoint and discrete_gradient take M(u) but no contacts */
		snprintf(err->msg, sizeof err->msg, "%s needs a constant mass%s", t->who ? t->who : name,
		         caps & IR_SCHEME_CONTACTS ? "" : ": for a mass depending on u use midpoint or discrete_gradient");
	else if (pb->m > 0 && !(caps & IR_SCHEME_INTERNAL))
		snprintf(err->msg, sizeof err->msg, "%s does not support internal variables", name);
	else if (pb->nc > 0 && t->family == IR_CENTRAL_DIFFERENCE)
		/* its linear path takes linear constraints (run.c): a model
		 * that does not reach it is not linear */
		snprintf(err->msg, sizeof err->msg, "%s enforces constraints only when they are linear (B u == G(t), "
		         "B constant) on a linear model (constant operators, a potential that is a quadratic form of "
		         "the dofs): a load written in the potential (m*g*x) is a force (force x: -m*g); otherwise "
		         "use an implicit scheme", name);
	else if (pb->nc > 0 && !(caps & IR_SCHEME_CONSTRAINTS) && !(caps & (IR_SCHEME_IMPLICIT | IR_SCHEME_CONTACTS)))
		snprintf(err->msg, sizeof err->msg, "an explicit scheme (beta = 0) cannot enforce constraints: "
		         "use an implicit one");
	else if (pb->nc > 0 && !(caps & IR_SCHEME_CONSTRAINTS))
		snprintf(err->msg, sizeof err->msg, "%s does not support bilateral constraints", name);
	else if (friction && !(caps & IR_SCHEME_FRICTION))
		snprintf(err->msg, sizeof err->msg, "%s does not support dry friction", name);
	else
		return 0;
	err->code = 3;
	return 3;
}
