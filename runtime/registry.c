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

