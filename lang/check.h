/* check.h — static name checks of a whole program before it runs. */
#ifndef DYN_CHECK_H
#define DYN_CHECK_H

#include "ast.h"

struct session;

/* Report undefined and duplicate names; returns 0 or -1. */
int check_program(struct session *s, const struct ast_program *prog);

#endif
