/* fe.h — continuum bodies in the language (dyn(5), MESHES AND FIELDS):
 * mesh statements, fields on meshes, integrals as kernels over the cells,
 * fix, tractions and body forces, point and field records.  The meshes,
 * spaces and quadrature are the runtime's (runtime/mesh.h, fe_space.h,
 * fe_ref.h); this module turns the script's forms into IR. */
#ifndef DYN_FE_H
#define DYN_FE_H

#include "ast.h"
#include "ir.h"

struct mesh;
struct mesh_region;
struct fe_layout;

struct eval;
struct model_ctx;
struct ast_model;
struct value;
struct kern_build;
struct mesh;
struct fe_space;

/* A mesh bound by a mesh statement (a B_MESH binding). */
struct fe_mesh {
	const char *name;
	struct mesh *m;
	struct loc loc;
	struct fe_mesh *next;   /* the session's meshes, freed at its end */
};

/* A field of a model being lowered: its space and where its free dofs
 * sit among the model's. */
struct fe_field {
	const char *name;
	struct fe_mesh *mesh;
	struct fe_space *space;
	int ncomp;              /* 1, or d for P1^d, P2^d, Q1^d */
	int vector;             /* declared ELEMENT^d */
	int internal;           /* internal NAME on MESH : P0 or Q: its values
	                           are internal variables z (dof indexes z) */
	int qp;                 /* : Q, the number of points per cell (its
	                           space is P0 with qp components), else 0 */
	int qdegree;            /* : Q, the degree of the cells' rule */
	int index;              /* among the model's fields */
	long *dof;              /* space dof -> model dof, -1 when fixed */
	int first;              /* its first model dof */
	long nfree;
	unsigned init_given;    /* bit 0: init NAME = ..., bit 1: init NAME' = ... */
	struct loc loc;
};

/* Whether name is a function of densities (grad, div, eps, ...), for the
 * name checks before anything runs. */
int fe_function_exists(const char *name);
/* Whether `fix` holds some of the field's dofs. */
int fe_field_fixed(const struct fe_field *fd);
/* Whether `fix` holds a dof of the field that the ground moves along
 * dir (a direction in space, ncomp entries): a value's component that
 * dir does not zero (a roller along the direction moves none). */
int fe_field_moved(const struct fe_field *fd, const double *dir);

/* Drop the point locators of the session's meshes (mesh_locator_drop):
 * after a run's records are lowered, which located their points. */
void fe_drop_locators(struct eval *ev);
/* mesh NAME = GENERATOR(...): build the mesh, bind it. */
int fe_exec_mesh(struct eval *ev, struct ast_stmt *st);
/* Free the session's meshes and spaces. */
struct fe_owned;
void fe_free_owned(struct fe_owned *list);

/* The model's fields (field items, with their fix items): spaces made,
 * free dofs declared after the model's other dofs, the values of internal
 * fields after its other internal variables (*cap, *zcap as for
 * declare_dofs).  0 when the model has none. */
int fe_declare_fields(struct eval *ev, struct model_ctx *mc, struct ast_model *am, int *cap, int *zcap);
/* The model's fields after fe_declare_fields (NULL, 0 when none). */
int fe_model_fields(struct model_ctx *mc, struct fe_field ***out);

/* Whether e is integral(...). */
int fe_is_integral(const struct ast_expr *e);

/* An integral(MESH or REGION, DENSITY[, degree = k]) as a kernel: its
 * program in ev->prog (a fresh one) with the slots in *kb, the value's
 * register in *reg; the instances (cells or facets) 0..*ninst-1, their
 * gather map (*ninst × kb->nslot model indices, -1 for a fixed dof,
 * decided after the slots are known: fe_integral_map) and per-instance
 * data.  -1 on error (reported). */
struct fe_integral {
	long ninst;
	int ndata;
	double *data;           /* ninst × ndata, malloc'ed */
	const struct fe_field *const *fields;
	int nfield;
	int ncell_table;        /* fields' tables are per cell */
	int nq;                 /* quadrature points */
	int *qreg;              /* nq: the density's register at each point */
	int wdet;               /* the data column of w_q |det J| at point 0 */
	/* what fe_integral_data needs (a kernel's data is filled only when
	 * its density is not an element form, fe_integral_form) */
	const struct fe_layout *lay;
	const struct mesh *mesh;
	const struct mesh_region *rg;  /* NULL: every cell */
	int degree, second;
};
/* With kb (a kernel): the layout, the program and the instances, but no
 * data yet (in->data NULL: fe_integral_data fills it); without (a record):
 * everything, unrolled. */
int fe_integral_build(struct eval *ev, struct ast_expr *call, struct kern_build *kb, int *reg,
                      struct fe_integral *out);
/* Fill in->data (ninst × ndata).  -1 on error (reported at where). */
int fe_integral_data(struct eval *ev, struct fe_integral *in, struct loc where);

/* The density of integral call at one point with the fields' features
 * (values and partial derivatives of components, struct fe_feature of
 * fe_assemble.h) as the slots of fkb, in ev->prog: its register in *reg.
 * 1 when the density reads something that is not a feature (x, a P0 or
 * hermite field, a second derivative): no element form; -1 on error. */
int fe_integral_features(struct eval *ev, struct ast_expr *call, const struct fe_integral *in,
                         struct kern_build *fkb, int *reg);
/* The element form of a built integral whose density is ½ fᵀ D f in the
 * features of fkb (nf × nf, row-major): into *form (its D copied to the
 * arena). */
struct fe_form;
void fe_integral_form(struct eval *ev, const struct fe_integral *in, const struct kern_build *fkb, const double *D,
                      struct fe_form *form);
/* Whether the slot code (kb->base of a slot) reads a field constant on
 * each cell (P0), and the model index (dof or internal variable) it reads
 * at instance k (-1 for a fixed dof). */
int fe_integral_cellwise(const struct fe_integral *in, long code);
long fe_integral_index(const struct fe_integral *in, long code, long k);
/* The component (0 .. 2) of a value node that slot code reads at
 * instance k; -1 for a derivative node (a Hermite slope, which a rigid
 * translation leaves 0) or a code that is not a field's. */
int fe_integral_component(const struct fe_integral *in, long code, long k);
/* NULL when the slot code reads a P1 or Q1 field (a row-sum lumped mass
 * is positive), else the field's name (and its element's in *elem). */
const char *fe_integral_unlumpable(const struct fe_integral *in, long code, const char **elem);
/* The gather map of the built integral for its final slots. */
int *fe_integral_map(struct eval *ev, const struct fe_integral *in, const struct kern_build *kb);
void fe_integral_free(struct fe_integral *in);

/* Inside a density (ev->fe set): a field's value at the quadrature point
 * (primes: 0, 1 for u'), x/y/z, and the density functions.  Return 1 when
 * the name or call is not theirs. */
int fe_eval_name(struct eval *ev, struct ast_expr *e, const struct fe_field *f, int primes, struct value *out);
int fe_eval_coord(struct eval *ev, struct ast_expr *e, struct value *out);
int fe_call(struct eval *ev, struct ast_expr *call, const char *name, struct value *out);

/* force FIELD on REGION: EXPR (traction) and force FIELD: EXPR (body
 * force), integrated against the basis into the load program's outputs
 * f (model dofs).  1 when pair is not a field's force. */
int fe_force(struct eval *ev, struct model_ctx *mc, struct ast_expr *pair, int *f);
/* init FIELD = EXPR(x, y, z) and init FIELD' = ...: the expression at the
 * field's nodes.  1 when pair is not a field's. */
int fe_init(struct eval *ev, struct model_ctx *mc, struct ast_expr *pair);
/* modes()'s rigid translation of the model without a support (dyn(5),
 * modes): a vector field's dofs along its first component (x), a
 * Hermite field's values (its slopes 0), every other dof along 1; into
 * the model's translation, left NULL when that is every dof along 1.
 * 0, or -1 when out of memory. */
int fe_translation(struct eval *ev, struct model_ctx *mc);
/* A direction in space (nd entries: [dx, dy], a number on a line) as
 * one entry per dof into d: each node's component of a vector field of
 * nd components, a scalar or Hermite field's values (nd = 1; Hermite's
 * slopes 0).  0, or -1 reported at loc: a model with dofs outside its
 * fields, or a field of another number of components. */
int fe_direction(struct eval *ev, struct model_ctx *mc, const double *dir, int nd, double *d, struct loc loc);
/* Whether the model's dofs are all its fields', each field of ncomp
 * components: a direction of ncomp entries is then one in space. */
int fe_fields_only(const struct model_ctx *mc, int ncomp);

/* record FIELD at (x, y, z) (and NAME = FIELD at (...)): one expression
 * column per component, the field interpolated in the cell that contains
 * the point, into r[0 .. *nr - 1] (at most 3). */
int fe_record_at(struct eval *ev, struct ast_record_item *it, struct ir_record *r, int *nr);
/* record field FIELD to "f.pvd": the mesh and the model dof of each of
 * its nodes' values (path and every are the caller's). */
int fe_field_output(struct eval *ev, struct ast_record_item *it, struct ir_field_output *out);
/* constraint FIELD on REGION == EXPR: c[k] = u_d − EXPR(x_d, t) for each
 * free dof d of the region (c NULL: only count them), in ev->prog.  The
 * number of constraints, or -1 on error (reported). */
struct ast_item;
int fe_constraint(struct eval *ev, struct ast_item *it, int *c);
/* contact FIELD[i] on REGION >= EXPR (or <=): the gaps of the region's
 * free nodes (u_d − EXPR(x_node), which may not depend on t) into c, or
 * only their number when c is NULL; -1 after an error. */
int fe_contact(struct eval *ev, struct ast_item *it, int *c);
/* The slip coordinates of a frictional contact on a region: the node's
 * other components, in fe_contact's order (lang/fe.c). */
int fe_contact_slips(struct eval *ev, struct ast_item *it, int *c, int *first);

#endif
