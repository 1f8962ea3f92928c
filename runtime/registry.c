/* registry.c — the scheme families, generated from schemes.def: the
 * linear fast path's lookup and the list behind --list-schemes. */
#include <config.h>

#include "stepper.h"

const struct step_entry step_registry[] = {
#define SCHEME(fam, linear, order, flags, summary) { fam, linear, order, flags, summary },
#include "schemes.def"
#undef SCHEME
};
const int step_nregistry = sizeof step_registry / sizeof step_registry[0];

const struct stepper_type *step_lookup(enum ir_family family)
{
	for (int i = 0; i < step_nregistry; i++)
		if (step_registry[i].family == family)
			return step_registry[i].linear ? *step_registry[i].linear : NULL;
	return NULL;
}

unsigned step_flags(enum ir_family family)
{
	for (int i = 0; i < step_nregistry; i++)
		if (step_registry[i].family == family)
			return step_registry[i].flags;
	return 0;
}

const struct stepper_type *step_linear(enum ir_family family, const double *p, double *q)
{
	q[0] = p[0];
	q[1] = p[1];
	q[2] = p[2];
	q[3] = p[3];
	switch (family) {
	case IR_NEWMARK:
		return step_newmark;
	case IR_CENTRAL_DIFFERENCE:
		return step_central_difference;
	case IR_GENERALIZED_ALPHA:
		return step_generalized_alpha;
	case IR_BACKWARD_EULER:
		return step_backward_euler;
	case IR_MIDPOINT:
	case IR_DISCRETE_GRADIENT:
	case IR_STAGGERED_MIDPOINT:
		/* DESIGN.md: on linear models midpoint is newmark(1/4, 1/2),
		 * and the others reduce to it without internal variables */
		q[0] = 0.25;
		q[1] = 0.5;
		return step_newmark;
	default:
		return NULL;
	}
}
