/* midpoint_varmass.h — the midpoint rule with a mass depending on u on
 * the matrix layer (midpoint_varmass.c), for scheme_midpoint.c. */
#ifndef DYN_MIDPOINT_VARMASS_H
#define DYN_MIDPOINT_VARMASS_H

#include "nlstep.h"

struct mpv;

/* NULL when out of memory. */
struct mpv *mpv_alloc(struct rt_problem *pb, const struct nl_options *opt);
void mpv_free(struct mpv *s);
/* One step, as struct scheme_newton's step. */
int mpv_step(struct mpv *s, double t0, double t1, double tau, struct rt_state *x, double *dW, double *dD,
             double *dterm, struct rt_error *err);

#endif
