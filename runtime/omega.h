/* omega.h — the largest frequency ω_max of a nonlinear model's
 * linearisation, K(u) φ = ω² M φ with K(u) = ∂²Φ/∂u² (K of a stiffness
 * matrix included) and the constant mass M, on the matrix layer: the
 * critical step 2/ω_max of the explicit schemes for models of any size,
 * where the dense eigensolver (LAPACK dsygv) stops at IR_DENSE_MAX. */
#ifndef DYN_OMEGA_H
#define DYN_OMEGA_H

#include "problem.h"

struct omega;

/* For pb (a constant mass, factored by problem_init: pb->Mf).  NULL when
 * out of memory. */
struct omega *omega_alloc(struct rt_problem *pb);
void omega_free(struct omega *o);
/* K(u) at (u, z), for the estimates that follow. */
void omega_stiffness(struct omega *o, const double *u, const double *z);
/* ∇²Ψ(v, ż) in place of K(u): omega_max2 then estimates μ_max, the
 * largest eigenvalue of C φ = μ M φ (C the damping's Hessian). */
void omega_damping(struct omega *o, const double *v, const double *zd);
/* An estimate of ω_max² for the current K(u), from below, with at most
 * it power iterations per iterate (500 the first time), warm-started from
 * the last call's vectors. */
double omega_max2(struct omega *o, int it);
/* ω_max² for the current K(u) by Lanczos (la_eig_max: at most 1000
 * steps, to a Ritz residual of 1e-12 of it), into *l: the cold estimate,
 * converged where the power iterations of omega_max2 stall on a dense
 * top of the spectrum.  0; -1 out of memory; -2 a failed product; -3 a
 * product that is not finite (a Hessian with a NaN). */
int omega_lanczos(struct omega *o, double *l);

#endif
