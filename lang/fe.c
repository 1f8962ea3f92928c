/* fe.c — continuum bodies (dyn(5), MESHES AND FIELDS; fe.h).
 *
 * An integral(MESH, DENSITY) of an energy is one kernel (ir.h, struct
 * ir_kernel): its instances are the cells (or the facets of a region), its
 * slots the local dofs of the fields the density reads, gathered through
 * the fields' cell-to-dof tables (fe_space.h) with fixed dofs eliminated
 * (map entry -1: the unknown is 0).  Its program is the quadrature
 *     Σ_q w_q |det J| density(u_h(ξ_q), ∇u_h(ξ_q), x(ξ_q), t),
 *     u_h = Σ_a φ_a(ξ_q) u_a,   ∇u_h = Σ_a ∇φ_a(ξ_q) u_a,
 * evaluated once with the state as slots; the per-cell numbers w_q|det J|,
 * x(ξ_q), φ_a(ξ_q) and the physical gradients J⁻ᵀ∇̂φ_a(ξ_q) are the
 * kernel's per-instance data (fe_tab_cell), so that the same program
 * serves every cell, affine or not.  Gradients and Hessians in the slots
 * are derived on it by ir_diff as for sums; a quadratic density with
 * constant coefficients folds into constant sparse operators
 * (lower_energy.c, fold_quadratic). */
#include <config.h>

#include "fe.h"
#include "fmt.h"
#include "interp.h"
#include "ir_diff.h"
#include "fe_assemble.h"
#include "fe_ref.h"
#include "fe_space.h"
#include "la.h"
#include "mesh.h"
#include "outfile.h"
#include "vm.h"
#include "mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The slot code of local dof l of field f: negative, so that it never
 * meets an ordinary dof's index among a kernel's slot bases. */
enum { FE_CODE_STRIDE = 4096 };
static long slot_code(const struct fe_field *f, int l)
{
	return -(1 + (long)f->index * FE_CODE_STRIDE + l);
}

/* Where the per-instance data of an integral keeps what (columns). */
struct fe_layout {
	int nq, dim;
	int degree, facets;      /* the rule: its degree, over facets */
	int wdet, x;             /* nq; nq × dim */
	int nfield;
	struct fe_field **field;
	int *phi, *dphi, *d2phi; /* per field: nq × nloc, nq × nloc × dim, (× dim) */
	int ndata;
};

/* The quadrature point being lowered (ev->fe). */
struct fe_point {
	const struct fe_layout *lay;
	int q;
	/* a point of known coordinates (loads, initial values): x, y, z are
	 * these registers rather than data */
	int xreg[3];
	int constant_point;
	/* an integral unrolled over its instances (a record): the data of
	 * the instance's row are constants, the fields read the model's
	 * unknowns of the cell directly */
	const double *row;
	long cell;
	/* the fields' features as slots (fe_integral_features): a field's
	 * value or partial derivative is one input; unsupported is set when
	 * the density reads anything else of the point */
	int features, unsupported;
	unsigned long long feature_slots;   /* the slots interpolate made features */
};

static const char *const fe_functions[] = {
	"integral", "grad", "div", "eps", "tr", "det", "inv", "dot", "inner", "identity", NULL
};

int fe_function_exists(const char *name)
{
	for (int i = 0; fe_functions[i]; i++)
		if (strcmp(fe_functions[i], name) == 0)
			return 1;
	return 0;
}

int fe_is_integral(const struct ast_expr *e)
{
	return e->kind == AST_CALL && e->lhs->kind == AST_NAME && strcmp(e->lhs->name, "integral") == 0;
}

/* ---- mesh statements ---- */

/* What the session frees at its end: meshes and spaces (malloc'ed by the
 * runtime), kept in the arena's list. */
struct fe_owned {
	void *p;
	int is_space;
	struct fe_owned *next;
};

void fe_free_owned(struct fe_owned *list)
{
	/* spaces first: they point into their meshes */
	for (int pass = 1; pass >= 0; pass--)
		for (struct fe_owned *o = list; o; o = o->next)
			if (o->is_space == pass) {
				if (pass)
					fe_space_free(o->p);
				else
					mesh_free(o->p);
			}
}

static void own(struct eval *ev, void *p, int is_space)
{
	struct fe_owned *o = arena_alloc(ev->a, sizeof *o);
	o->p = p;
	o->is_space = is_space;
	o->next = ev->s->fe_owned;
	ev->s->fe_owned = o;
}

/* The session's space of family f with ncomp components on m, made at the
 * first run that needs it.  A space is never changed once made, so every
 * field and every run on the same mesh and element shares one: a loop of
 * runs of a field model made a space per pass, kept to the session's end
 * (43 KB a pass on a 20-cell bar). */
static struct fe_space *shared_space(struct eval *ev, const struct mesh *m, enum fe_family f, int ncomp,
                                     char *err, size_t errlen)
{
	for (struct fe_owned *o = ev->s->fe_owned; o; o = o->next)
		if (o->is_space) {
			struct fe_space *sp = o->p;
			if (sp->mesh == m && sp->family == f && sp->ncomp == ncomp)
				return sp;
		}
	struct fe_space *sp = fe_space_make(m, f, ncomp, err, errlen);
	if (sp)
		own(ev, sp, 1);
	return sp;
}

/* The arguments of a generator: positional numbers, then the named ones
 * it knows (a word for cells = ...). */
struct gen_args {
	int npos;
	double pos[6];
	struct loc pos_loc[6];
	const char *name[4];
	struct ast_arg *named[4];
};

static int gen_args(struct eval *ev, struct ast_expr *call, const char *gen, int npos, const char *const *names,
                    struct gen_args *g)
{
	memset(g, 0, sizeof *g);
	for (int i = 0; i < call->args.n; i++) {
		struct ast_arg *a = call->args.v[i];
		if (!a->name) {
			if (g->npos == npos)
				return eval_error(ev, a->loc, "%s takes %d bounds, then named counts: %d given", gen, npos,
				                  g->npos + 1);
			if (eval_number(ev, a->value, &g->pos[g->npos], "a bound"))
				return -1;
			g->pos_loc[g->npos++] = a->loc;
			continue;
		}
		int k = 0;
		while (names[k] && strcmp(names[k], a->name) != 0)
			k++;
		if (!names[k]) {
			const char *close = name_closest(a->name, names, k);
			return eval_error(ev, a->loc, "%s has no parameter '%s'%s%s%s", gen, a->name,
			                  close ? " (did you mean '" : "", close ? close : "", close ? "'?)" : "");
		}
		if (g->named[k])
			return eval_error(ev, a->loc, "%s = ... is given twice", a->name);
		g->named[k] = a;
	}
	if (g->npos < npos)
		return eval_error(ev, call->loc, "%s takes %d bounds, %d given", gen, npos, g->npos);
	return 0;
}

static int gen_count(struct eval *ev, struct ast_arg *a, long dflt, long *out)
{
	if (!a) {
		*out = dflt;
		return 0;
	}
	if (eval_int(ev, a->value, out, "a number of cells"))
		return -1;
	if (*out < 1)
		return eval_error(ev, a->value->loc, "%s must be at least 1, not %ld", a->name, *out);
	return 0;
}

/* cells = WORD of rectangle and cuboid. */
static int gen_cells(struct eval *ev, struct ast_arg *a, const char *simplex, const char *box,
                     enum mesh_cell_type ts, enum mesh_cell_type tb, enum mesh_cell_type *out)
{
	*out = ts;
	if (!a)
		return 0;
	if (a->value->kind == AST_NAME && strcmp(a->value->name, simplex) == 0)
		return 0;
	if (a->value->kind == AST_NAME && strcmp(a->value->name, box) == 0) {
		*out = tb;
		return 0;
	}
	return eval_error(ev, a->value->loc, "cells = %s or %s", simplex, box);
}

int fe_exec_mesh(struct eval *ev, struct ast_stmt *st)
{
	struct ast_expr *c = st->value;
	char err[512] = "";
	struct mesh *m = NULL;
	if (c->kind != AST_CALL || c->lhs->kind != AST_NAME)
		return eval_error(ev, c->loc, "a mesh is interval(...), rectangle(...), cuboid(...) or gmsh(\"file\")");
	const char *gen = c->lhs->name;
	struct gen_args g;
	if (strcmp(gen, "interval") == 0) {
		static const char *const nm[] = { "cells", NULL };
		long n;
		if (gen_args(ev, c, gen, 2, nm, &g) || gen_count(ev, g.named[0], 10, &n))
			return -1;
		m = mesh_interval(g.pos[0], g.pos[1], n, err, sizeof err);
	} else if (strcmp(gen, "rectangle") == 0) {
		static const char *const nm[] = { "nx", "ny", "cells", NULL };
		long nx, ny;
		enum mesh_cell_type t;
		if (gen_args(ev, c, gen, 4, nm, &g) || gen_count(ev, g.named[0], 10, &nx) ||
		    gen_count(ev, g.named[1], 10, &ny) ||
		    gen_cells(ev, g.named[2], "triangles", "quadrilaterals", MESH_TRIANGLE, MESH_QUADRILATERAL, &t))
			return -1;
		m = mesh_rectangle(g.pos[0], g.pos[1], g.pos[2], g.pos[3], nx, ny, t, err, sizeof err);
	} else if (strcmp(gen, "cuboid") == 0) {
		static const char *const nm[] = { "n", "nx", "ny", "nz", "cells", NULL };
		long n, nx, ny, nz;
		enum mesh_cell_type t;
		/* five names: the fifth, cells, is looked up by hand */
		struct gen_args g2;
		static const char *const nm4[] = { "n", "nx", "ny", "nz", NULL };
		struct ast_arg *cells = NULL;
		struct ast_expr tmp = *c;
		tmp.args.n = 0;
		tmp.args.v = arena_alloc(ev->a, sizeof(void *) * (size_t)(c->args.n + 1));
		for (int i = 0; i < c->args.n; i++) {
			struct ast_arg *a = c->args.v[i];
			if (a->name && strcmp(a->name, "cells") == 0)
				cells = a;
			else
				tmp.args.v[tmp.args.n++] = a;
		}
		(void)nm;
		if (gen_args(ev, &tmp, gen, 6, nm4, &g2) || gen_count(ev, g2.named[0], 10, &n) ||
		    gen_count(ev, g2.named[1], n, &nx) || gen_count(ev, g2.named[2], n, &ny) ||
		    gen_count(ev, g2.named[3], n, &nz) ||
		    gen_cells(ev, cells, "tetrahedra", "hexahedra", MESH_TETRAHEDRON, MESH_HEXAHEDRON, &t))
			return -1;
		m = mesh_cuboid(g2.pos[0], g2.pos[1], g2.pos[2], g2.pos[3], g2.pos[4], g2.pos[5], nx, ny, nz, t, err,
		                sizeof err);
	} else if (strcmp(gen, "gmsh") == 0) {
		const char *path;
		if (c->args.n != 1 || ((struct ast_arg *)c->args.v[0])->name)
			return eval_error(ev, c->loc, "gmsh takes the file's name: gmsh(\"part.msh\")");
		if (eval_string(ev, ((struct ast_arg *)c->args.v[0])->value, &path, "the mesh file"))
			return -1;
		const char *full = path_join(ev->a, ev->script_dir, path);
		m = mesh_read_gmsh(full, err, sizeof err);
		if (m)
			session_add_data_input(ev->s, full);
	} else {
		static const char *const gens[] = { "interval", "rectangle", "cuboid", "gmsh" };
		const char *close = name_closest(gen, gens, 4);
		return eval_error(ev, c->lhs->loc, "unknown mesh generator '%s'%s%s%s: interval, rectangle, cuboid "
		                  "or gmsh", gen, close ? " (did you mean '" : "", close ? close : "", close ? "'?)" : "");
	}
	if (!m)
		return eval_error(ev, c->loc, "%s", err);
	own(ev, m, 0);
	struct fe_mesh *fm = arena_alloc(ev->a, sizeof *fm);
	fm->name = st->name;
	fm->m = m;
	fm->loc = st->name_loc;
	fm->next = ev->s->meshes;
	ev->s->meshes = fm;
	struct binding *b = scope_bind(ev, st->name, B_MESH, st->name_loc);
	if (!b)
		return -1;
	b->mesh = fm;
	return 0;
}

/* ---- fields ---- */

/* The mesh a field item or an integral names. */
static struct fe_mesh *find_mesh(struct eval *ev, struct ast_expr *e)
{
	struct binding *b = scope_lookup(ev->scope, e->name);
	if (b && b->kind == B_MESH)
		return b->mesh;
	if (b && b->kind == B_VALUE && b->val.kind == VAL_DRY) {
		eval_dry(ev);   /* --check: a mesh that failed, already reported */
		return NULL;
	}
	if (b) {
		eval_error(ev, e->loc, "'%s' is not a mesh", e->name);
		return NULL;
	}
	/* the meshes in scope, for the note */
	const char *cand[64];
	int n = 0;
	for (struct fe_mesh *m = ev->s->meshes; m && n < 64; m = m->next)
		cand[n++] = m->name;
	const char *close = name_closest(e->name, cand, n);
	eval_error(ev, e->loc, "undefined mesh '%s'%s%s%s", e->name, close ? " (did you mean '" : "",
	           close ? close : "", close ? "'?)" : "");
	return NULL;
}

/* A region's name as a message shows it: a physical name of a Gmsh file
 * is any text, an escape sequence included ("x\x1b[2J" cleared the
 * terminal), of any length: escaped (rt_escape) and cut to 64 bytes. */
static const char *region_shown(struct eval *ev, const char *name)
{
	char buf[64];
	return arena_printf(ev->a, "%s", rt_escape(buf, sizeof buf, name));
}

/* A region of mesh fm by name, with did-you-mean among its regions. */
static const struct mesh_region *find_region(struct eval *ev, const struct fe_mesh *fm, struct ast_expr *e)
{
	const struct mesh_region *r = mesh_region(fm->m, e->name);
	if (r)
		return r;
	const char **cand = arena_alloc(ev->a, sizeof *cand * (size_t)(fm->m->nregions + 1));
	char *list = arena_printf(ev->a, "%s", "");
	for (int i = 0; i < fm->m->nregions; i++) {
		cand[i] = fm->m->regions[i].name;
		list = arena_printf(ev->a, "%s%s%s", list, i ? ", " : "", region_shown(ev, cand[i]));
	}
	const char *close = name_closest(e->name, cand, fm->m->nregions);
	if (close)
		return eval_error(ev, e->loc, "mesh %s has no region '%s' (did you mean '%s'?)", fm->name, e->name,
		                  region_shown(ev, close)),
		       NULL;
	return eval_error(ev, e->loc, "mesh %s has no region '%s'%s%s", fm->name, e->name,
	                  fm->m->nregions ? ": its regions are " : " (it has no regions)", list),
	       NULL;
}

/* ELEMENT: P1, P2, Q1, hermite, each with ^d for a vector field; P0 or
 * Q for an internal variable (internal), *qp set for Q. */
static int element(struct eval *ev, struct ast_expr *e, int dim, int internal, enum fe_family *fam, int *ncomp,
                   int *vector, int *qp)
{
	*ncomp = 1;
	*vector = 0;
	*qp = 0;
	if (e->kind == AST_BINARY && e->op == AST_OP_POW) {
		long d;
		if (internal)
			return eval_error(ev, e->loc, "an internal variable on a mesh is scalar: internal NAME on MESH : P0 "
			                  "or Q");
		if (eval_int(ev, e->rhs, &d, "the number of components"))
			return -1;
		if (d != dim)
			return eval_error(ev, e->rhs->loc, "a vector field on a %d-D mesh has %d components, not %ld "
			                  "(write ^%d)", dim, dim, d, dim);
		*ncomp = (int)d;
		*vector = 1;
		e = e->lhs;
	}
	if (e->kind != AST_NAME)
		return eval_error(ev, e->loc, internal ? "the element of an internal variable is P0 (one value per cell) "
		                  "or Q (one per quadrature point)"
		                  : "an element is P1, P2, Q1 or hermite (with ^d for a vector field)");
	if (internal && strcmp(e->name, "Q") == 0) {
		*fam = FE_P0;
		*qp = 1;
		return 0;
	}
	static const char *const names[] = { "P1", "P2", "Q1", "hermite", "P0", "Q" };
	static const enum fe_family fams[] = { FE_P1, FE_P2, FE_Q1, FE_HERMITE3, FE_P0 };
	for (int i = 0; i < 5; i++)
		if (strcmp(e->name, names[i]) == 0) {
			*fam = fams[i];
			if (*fam == FE_HERMITE3 && *vector)
				return eval_error(ev, e->loc, "hermite is a scalar element (a beam's deflection): not hermite^%d",
				                  *ncomp);
			if (*fam == FE_P0 && !internal)
				return eval_error(ev, e->loc, "P0 is for internal variables (internal p on MESH : P0, one "
				                  "value per cell), not for fields of dofs");
			if (*fam != FE_P0 && internal)
				return eval_error(ev, e->loc, "an internal variable on a mesh has one value per cell or per "
				                  "quadrature point: internal NAME on MESH : P0 or Q, not %s", e->name);
			return 0;
		}
	if (!internal && strcmp(e->name, "Q") == 0)
		return eval_error(ev, e->loc, "Q (values at the quadrature points) is for internal variables "
		                  "(internal p on MESH : Q), not for fields of dofs");
	const char *close = name_closest(e->name, internal ? names + 4 : names, internal ? 2 : 4);
	if (internal)
		return eval_error(ev, e->loc, "unknown element '%s'%s%s%s: an internal variable is P0 or Q", e->name,
		                  close ? " (did you mean '" : "", close ? close : "", close ? "'?)" : "");
	return eval_error(ev, e->loc, "unknown element '%s'%s%s%s: P1, P2, Q1 or hermite", e->name,
	                  close ? " (did you mean '" : "", close ? close : "", close ? "'?)" : "");
}

/* Whether expression e reads name (a syntactic look: a model's lets are
 * values of parameters, so a density reads an internal variable only by
 * its name). */
static int mentions(const struct ast_expr *e, const char *name)
{
	if (!e)
		return 0;
	if (e->kind == AST_NAME)
		return strcmp(e->name, name) == 0;
	if (mentions(e->lhs, name) || mentions(e->rhs, name) || mentions(e->cond, name) || mentions(e->lo, name) ||
	    mentions(e->hi, name))
		return 1;
	for (int i = 0; i < e->args.n; i++)
		if (mentions(((struct ast_arg *)e->args.v[i])->value, name))
			return 1;
	for (int i = 0; i < e->rows.n; i++) {
		const struct ast_vec *row = e->rows.v[i];
		for (int j = 0; j < row->n; j++)
			if (mentions(row->v[j], name))
				return 1;
	}
	return 0;
}

/* The degree of the rule whose points carry internal f : Q: that of every
 * integral over f's mesh (or a region of it) in an energy whose density
 * reads f (its degree = k, or twice the highest degree of the model's
 * fields on the mesh); two different ones are refused.  first: the first
 * such integral seen, NULL before. */
struct qp_rule {
	long degree, dflt;
	const struct ast_expr *first;
};

static int qp_scan(struct eval *ev, const struct ast_expr *e, const struct fe_field *f, struct qp_rule *qr)
{
	if (!e)
		return 0;
	if (fe_is_integral(e)) {
		const struct ast_expr *dom = NULL, *dens = NULL;
		const struct ast_arg *deg = NULL;
		int npos = 0;
		for (int i = 0; i < e->args.n; i++) {
			const struct ast_arg *a = e->args.v[i];
			if (a->name && strcmp(a->name, "degree") == 0)
				deg = a;
			else if (!a->name && npos++ == 0)
				dom = a->value;
			else if (!a->name && npos == 2)
				dens = a->value;
		}
		if (dom && dens && dom->kind == AST_NAME && mentions(dens, f->name) &&
		    (strcmp(dom->name, f->mesh->name) == 0 || mesh_region(f->mesh->m, dom->name))) {
			long d = qr->dflt;
			if (deg && eval_int(ev, deg->value, &d, "a degree"))
				return -1;
			if (!qr->first) {
				qr->first = e;
				qr->degree = d;
			} else if (d != qr->degree) {
				return eval_error(ev, deg ? deg->loc : e->loc, "%s : Q has one value per point of one "
				                  "quadrature rule, but the integrals reading it use degree %ld (line %d) and "
				                  "degree %ld: give them the same degree = k", f->name, qr->degree,
				                  qr->first->loc.line, d);
			}
		}
	}
	if (qp_scan(ev, e->lhs, f, qr) || qp_scan(ev, e->rhs, f, qr) || qp_scan(ev, e->cond, f, qr))
		return -1;
	for (int i = 0; i < e->args.n; i++)
		if (qp_scan(ev, ((struct ast_arg *)e->args.v[i])->value, f, qr))
			return -1;
	return 0;
}

/* The rule of internal f : Q (qp_scan over the model's energies) and its
 * number of points: f->qdegree, f->qp. */
static int qp_declare(struct eval *ev, struct ast_model *am, struct fe_field *f, struct loc where)
{
	struct qp_rule qr = { 0, 0, NULL };
	/* the default degree of an integral over the mesh (fe_integral_build):
	 * twice the highest degree of the model's fields there */
	for (int i = 0; i < am->items.n; i++) {
		struct ast_item *it = am->items.v[i];
		if (it->kind != AST_ITEM_FIELD || it->internal || it->value->kind != AST_NAME ||
		    strcmp(it->value->name, f->mesh->name) != 0)
			continue;
		enum fe_family fam = FE_P1;
		int ncomp, vector, qp;
		if (element(ev, it->dir, f->mesh->m->dim, 0, &fam, &ncomp, &vector, &qp))
			return -1;
		if (2 * fe_ref_degree(fam) > qr.dflt)
			qr.dflt = 2 * fe_ref_degree(fam);
	}
	qr.degree = qr.dflt;
	for (int i = 0; i < am->items.n; i++) {
		struct ast_item *it = am->items.v[i];
		if ((it->kind == AST_ITEM_KINETIC || it->kind == AST_ITEM_POTENTIAL || it->kind == AST_ITEM_DISSIPATION) &&
		    qp_scan(ev, it->value, f, &qr))
			return -1;
	}
	if (qr.degree < 0 || qr.degree > FE_QUAD_MAX_DEGREE)
		return 0;   /* the integral reports it */
	struct fe_quad quad;
	char err[512];
	if (fe_quad_cell(f->mesh->m->type, (int)qr.degree, &quad, err, sizeof err))
		return eval_error(ev, where, "%s", err);
	f->qp = quad.n;
	f->qdegree = (int)qr.degree;
	fe_quad_free(&quad);
	return 0;
}

int fe_model_fields(struct model_ctx *mc, struct fe_field ***out)
{
	*out = mc->field;
	return mc->nfield;
}

int fe_declare_fields(struct eval *ev, struct model_ctx *mc, struct ast_model *am, int *cap, int *zcap)
{
	struct ir_model *m = mc->m;
	int nf = 0;
	for (int i = 0; i < am->items.n; i++)
		nf += ((struct ast_item *)am->items.v[i])->kind == AST_ITEM_FIELD;
	mc->field = arena_alloc(ev->a, sizeof *mc->field * (size_t)(nf + 1));
	mc->nfield = 0;
	m->fe = arena_alloc(ev->a, sizeof *m->fe * (size_t)(nf + 1));
	m->nfe = 0;
	char err[512];
	for (int i = 0; i < am->items.n; i++) {
		struct ast_item *it = am->items.v[i];
		if (it->kind != AST_ITEM_FIELD)
			continue;
		struct fe_mesh *fm = find_mesh(ev, it->value);
		if (!fm)
			return -1;
		enum fe_family fam = FE_P1;
		int ncomp, vector, qp;
		if (element(ev, it->dir, fm->m->dim, it->internal, &fam, &ncomp, &vector, &qp))
			return -1;
		if (!fe_ref_supported(fam, fm->m->type, err, sizeof err))
			return eval_error(ev, it->dir->loc, "%s", err);
		struct fe_field *f = arena_alloc(ev->a, sizeof *f);
		f->name = it->target->name;
		f->mesh = fm;
		/* : Q is P0 with one component per point of the cells' rule */
		if (qp && qp_declare(ev, am, f, it->dir->loc))
			return -1;
		if (qp && f->qp > FE_SPACE_MAX_POINTS)
			return eval_error(ev, it->dir->loc, "%s : Q would have %d points per cell (degree %d): at most %d",
			                  f->name, f->qp, f->qdegree, FE_SPACE_MAX_POINTS);
		struct fe_space *sp = shared_space(ev, fm->m, fam, qp ? f->qp : ncomp, err, sizeof err);
		if (!sp)
			return eval_error(ev, it->dir->loc, "%s", err);
		/* the space lives as long as the model's IR: the session's */
		f->space = sp;
		f->ncomp = ncomp;
		f->vector = vector;
		f->internal = it->internal;
		f->index = mc->nfield;
		f->loc = it->target->loc;
		mc->field[mc->nfield++] = f;
		/* fix f on REGION: those dofs are eliminated */
		f->dof = arena_alloc(ev->a, sizeof(long) * (size_t)(sp->ndofs + 1));
		for (int j = 0; j < am->items.n; j++) {
			struct ast_item *fx = am->items.v[j];
			if (fx->kind != AST_ITEM_FIX || strcmp(fx->target->name, f->name) != 0)
				continue;
			if (f->internal)
				return eval_error(ev, fx->loc, "%s is an internal variable: it is not fixed but follows "
				                  "its own equation (∂Ψ(%s') + ∂Φ/∂%s ∋ 0)", f->name, f->name, f->name);
			const struct mesh_region *r = find_region(ev, fm, fx->value);
			if (!r)
				return -1;
			long comp = 0;
			if (fx->dir) {
				if (eval_int(ev, fx->dir, &comp, "a component"))
					return -1;
				if (!vector)
					return eval_error(ev, fx->dir->loc, "field %s is scalar: fix %s on REGION, without a "
					                  "component", f->name, f->name);
				if (comp < 1 || comp > ncomp)
					return eval_error(ev, fx->dir->loc, "field %s has components 1..%d, not %ld", f->name,
					                  ncomp, comp);
			}
			long *d = NULL;
			long nd = fe_space_region_dofs(sp, r, (int)comp - 1, 0, &d, err, sizeof err);
			if (nd < 0)
				return eval_error(ev, fx->value->loc, "%s", err);
			for (long k = 0; k < nd; k++)
				f->dof[d[k]] = -1;
			free(d);
		}
		struct binding *b = scope_bind(ev, f->name, B_DOF, it->target->loc);
		if (!b)
			return -1;
		/* an internal field's values are internal variables z, after
		 * the model's other ones */
		int *count = f->internal ? &m->nint : &m->ndof, *capp = f->internal ? zcap : cap;
		struct dof_group *g = arena_alloc(ev->a, sizeof *g);
		g->name = f->name;
		g->first = *count;
		g->loc = it->target->loc;
		g->field = f;
		g->internal = f->internal;
		b->group = g;
		f->first = *count;
		long nfree = 0;
		for (long k = 0; k < sp->ndofs; k++)
			nfree += f->dof[k] == 0;
		if (*count + nfree > 100000000L)
			return eval_error(ev, it->target->loc, "field %s has %ld unknowns: too many", f->name, nfree);
		/* the unknowns' names number the space's dofs: f[k] for dof k,
		 * an index table only when some are fixed */
		struct ir_dof_group *dg = lower_dof_group(ev, mc, f->internal, capp);
		dg->name = f->name;
		dg->size = (int)nfree;
		dg->vector = 1;
		dg->loc = ir_loc_of(it->target->loc);
		/* on several processes, which step contiguous blocks of the
		 * unknowns (a model beyond IR_DENSE_MAX unknowns: smaller ones
		 * run replicated), a field whose mesh is numbered wide (a Gmsh
		 * mesh's numbering coupled every block to every other: 33 581
		 * ghosts of 33 580 rows on a 73 000-unknown box) has its
		 * unknowns numbered by the parts of PETSc's partition of its
		 * nodes (1560 ghosts), or in a narrow order of them (2543); the
		 * names stay the space's dofs (dyn(1), MPI) */
		int *order = NULL, *part = NULL, o = 0, P = la_mpi_size();
		if (!f->internal && mc->run && P > 1 && nfree > IR_DENSE_MAX) {
			order = mem_alloc(sizeof *order * (size_t)(sp->nnode + 1));
			part = mem_alloc(sizeof *part * (size_t)(sp->nnode + 1));
			o = order && part ? fe_space_node_order(sp, P, order, part) : -1;
			if (o <= 0) {
				free(order);
				free(part);
				order = part = NULL;
			}
			if (o == -2)
				return eval_error(ev, it->target->loc, "ordering the nodes of field %s: %s", f->name,
				                  la_backend_failure());
			if (o < 0)
				return eval_error(ev, it->target->loc, "out of memory ordering the nodes of field %s", f->name);
		}
		int *index = nfree < sp->ndofs || order ? arena_alloc(ev->a, sizeof *index * (size_t)(nfree + 1)) : NULL;
		int *unknown_of = order ? arena_alloc(ev->a, sizeof *unknown_of * (size_t)(sp->ndofs + 1)) : NULL;
		dg->index = index;
		dg->unknown_of = unknown_of;
		dg->extent = (int)sp->ndofs;
		for (long q = 0; q < sp->ndofs; q++) {
			long k = order ? (long)order[q / sp->ncomp] * sp->ncomp + q % sp->ncomp : q;
			if (unknown_of)
				unknown_of[k] = f->dof[k] < 0 ? -1 : *count - f->first;
			if (f->dof[k] < 0)
				continue;
			if (index)
				index[*count - f->first] = (int)(k + 1);
			f->dof[k] = *count;
			(*count)++;
		}
		if (unknown_of) {
			int *by_name = arena_alloc(ev->a, sizeof *by_name * (size_t)(nfree + 1)), j = 0;
			for (long k = 0; k < sp->ndofs; k++)
				if (unknown_of[k] >= 0)
					by_name[j++] = unknown_of[k];
			dg->by_name = by_name;
		}
		if (o == 2) {
			/* each part's block of unknowns: its nodes' free dofs, the
			 * parts in order; used when no part is empty */
			int *bounds = arena_alloc(ev->a, sizeof *bounds * (size_t)(P + 1)), empty = 0;
			for (int r = 0; r <= P; r++)
				bounds[r] = 0;
			for (long k = 0; k < sp->ndofs; k++)
				if (unknown_of[k] >= 0)
					bounds[part[k / sp->ncomp] + 1]++;
			for (int r = 0; r < P; r++) {
				empty |= bounds[r + 1] == 0;
				bounds[r + 1] += bounds[r];
			}
			for (int r = 0; r <= P; r++)
				bounds[r] += f->first;
			if (!empty) {
				mc->part_bounds = bounds;
				mc->part_first = f->first;
				mc->part_count = (int)nfree;
			}
		}
		free(order);
		free(part);
		f->nfree = nfree;
		g->size = (int)nfree;
		struct ir_fe_info *fi = &m->fe[m->nfe++];
		fi->field = f->name;
		fi->mesh = fm->name;
		fi->cell = mesh_cell_name(fm->m->type);
		fi->element = qp ? arena_printf(ev->a, "Q (%d points per cell, degree %d)", f->qp, f->qdegree)
		                 : fe_family_name(fam);
		fi->ncomp = ncomp;
		fi->internal = f->internal;
		fi->ncells = fm->m->ncells;
		fi->nnodes = fm->m->nnodes;
		fi->ndofs = sp->ndofs;
		fi->nfree = nfree;
		fi->node_order = o > 0 ? o : 0;
	}
	/* one vector field, nothing fixed, values at the nodes only (P1,
	 * Q1): a free body, whose rigid motions discrete_gradient keeps (on
	 * an interval its translation, the field scalar or P1^1) */
	if (mc->nfield == 1) {
		const struct fe_field *f = mc->field[0];
		const struct mesh *me = f->mesh->m;
		if ((f->vector || me->dim == 1) && f->ncomp == me->dim && !f->internal && f->nfree == f->space->ndofs &&
		    f->space->ndofs == me->nnodes * f->ncomp && f->first == 0) {
			struct ir_rigid *r = arena_alloc(ev->a, sizeof *r);
			r->dim = me->dim;
			r->nnode = me->nnodes;
			r->first = f->first;
			r->X = me->x;
			/* X by unknown: node p's unknowns first + p·dim + c, or
			 * when they are numbered by the nodes (above), node p's
			 * go where f->dof puts them, each node's components
			 * together */
			int ncomp = f->ncomp, moved = 0;
			for (long p = 0; p < me->nnodes && !moved; p++)
				moved = f->dof[p * ncomp] != f->first + p * ncomp;
			if (moved) {
				double *X = arena_alloc(ev->a, sizeof(double) * (size_t)me->nnodes * (size_t)me->dim);
				for (long p = 0; p < me->nnodes; p++) {
					long b = (f->dof[p * ncomp] - f->first) / ncomp;
					memcpy(X + b * me->dim, me->x + p * me->dim, sizeof(double) * (size_t)me->dim);
				}
				r->X = X;
			}
			m->rigid = r;
		}
	}
	/* a fix item must name a field */
	for (int j = 0; j < am->items.n; j++) {
		struct ast_item *fx = am->items.v[j];
		if (fx->kind != AST_ITEM_FIX)
			continue;
		int k = 0;
		while (k < mc->nfield && strcmp(mc->field[k]->name, fx->target->name) != 0)
			k++;
		if (k == mc->nfield)
			return eval_error(ev, fx->target->loc, "'%s' is not a field of model %s: fix applies to a field "
			                  "(field %s on MESH : P1)", fx->target->name, am->name, fx->target->name);
	}
	return 0;
}

/* ---- densities at a quadrature point ---- */

static int data_reg(struct eval *ev, int col, struct loc loc)
{
	if (ev->fe && ev->fe->features)
		ev->fe->unsupported = 1;
	if (ev->fe && ev->fe->row)
		return ir_emit_const(ev->prog, ev->fe->row[col], ir_loc_of(loc));
	return ir_emit_input(ev->prog, IR_DATA, col, ir_loc_of(loc));
}

/* Local dof l of field f at the point: a slot of the kernel, or (an
 * unrolled integral) the model's unknown of the cell, -2 when it is
 * fixed (0). */
static int local_input(struct eval *ev, const struct fe_field *f, enum ir_op op, int l, struct loc loc)
{
	if (!ev->fe->row)
		return eval_model_input(ev, op, slot_code(f, l), 0, loc);
	const struct fe_space *sp = f->space;
	long md = f->dof[fe_space_cell_dof(sp, ev->fe->cell, l)];
	return md < 0 ? -2 : ir_emit_input(ev->prog, op, (int)md, ir_loc_of(loc));
}

static int emit(struct eval *ev, enum ir_op op, int a, int b, struct loc loc)
{
	return ir_emit(ev->prog, op, a, b, 0, ir_loc_of(loc));
}

static int konst(struct eval *ev, double k, struct loc loc)
{
	return ir_emit_const(ev->prog, k, ir_loc_of(loc));
}

/* The field's column in the layout, or -1 when the integral's mesh is
 * not the field's. */
static int layout_field(const struct fe_layout *lay, const struct fe_field *f)
{
	for (int i = 0; i < lay->nfield; i++)
		if (lay->field[i] == f)
			return i;
	return -1;
}

/* Σ_a c_a slot(a, comp) over the local nodes, c_a read from the data at
 * column col + a·step. */
static int interpolate(struct eval *ev, const struct fe_field *f, enum ir_op op, int comp, int col, int step,
                       int deriv, struct loc loc)
{
	int nloc = f->space->nloc, acc = -1;
	if (ev->fe->features) {
		/* the feature itself: (field, comp, deriv) coded as a slot base */
		enum fe_family fam = f->space->family;
		if (deriv < -1 || f->internal || (fam != FE_P1 && fam != FE_P2 && fam != FE_Q1))
			ev->fe->unsupported = 1;
		long code = ((long)layout_field(ev->fe->lay, f) * 4 + comp) * 8 + deriv + 2;
		int s = eval_model_input(ev, op, code, 0, loc);
		if (s < 0)
			ev->fe->unsupported = 1;
		for (int k = 0; s >= 0 && ev->kern && k < ev->kern->nslot; k++)
			if (ev->kern->kind[k] == op && ev->kern->base[k] == code && ev->kern->stride[k] == 0)
				ev->fe->feature_slots |= 1ull << k;
		return s < 0 ? konst(ev, 0, loc) : s;
	}
	if (f->space->family == FE_P0) {
		/* one value per cell (φ = 1): the slot itself, so that a term
		 * σ|p'| of a density is recognised as rate-independent */
		int s = local_input(ev, f, op, comp, loc);
		if (s == -2)
			return konst(ev, 0, loc);
		return s < 0 ? eval_error(ev, loc, "the density reads too many unknowns per cell (more than %d)",
		                          KERN_MAX_SLOTS) : s;
	}
	for (int a = 0; a < nloc; a++) {
		int s = local_input(ev, f, op, a * f->ncomp + comp, loc);
		if (s == -2)
			continue;
		if (s < 0)
			return eval_error(ev, loc, "the density reads too many unknowns per cell (more than %d)",
			                  KERN_MAX_SLOTS);
		int term = emit(ev, IR_MUL, data_reg(ev, col + a * step, loc), s, loc);
		acc = acc < 0 ? term : emit(ev, IR_ADD, acc, term, loc);
	}
	return acc < 0 ? konst(ev, 0, loc) : acc;
}

static int field_here(struct eval *ev, struct ast_expr *e, const struct fe_field *f, int *li)
{
	if (!ev->fe || ev->fe->constant_point)
		return eval_error(ev, e->loc, "%s is a field: it has a value at each point of mesh %s, read inside "
		                  "integral(%s, ...) or recorded as '%s at (x)'", f->name, f->mesh->name,
		                  f->mesh->name, f->name);
	*li = layout_field(ev->fe->lay, f);
	if (*li < 0)
		return eval_error(ev, e->loc, "field %s lives on mesh %s, not on the mesh of this integral", f->name,
		                  f->mesh->name);
	return 0;
}

int fe_eval_name(struct eval *ev, struct ast_expr *e, const struct fe_field *f, int primes, struct value *out)
{
	int li;
	if (field_here(ev, e, f, &li))
		return -1;
	if (primes > 1)
		return eval_error(ev, e->loc, "a density reads a field and its velocity (%s, %s'), not its acceleration",
		                  f->name, f->name);
	const struct fe_layout *lay = ev->fe->lay;
	int q = ev->fe->q, nloc = f->space->nloc;
	enum ir_op op = f->internal ? (primes ? IR_INTVEL : IR_INT) : primes ? IR_VEL : IR_DOF;
	int col = lay->phi[li] + q * nloc;
	memset(out, 0, sizeof *out);
	if (f->qp) {
		/* : Q, the value at point q is its component q */
		if (lay->facets || lay->degree != f->qdegree)
			return eval_error(ev, e->loc, "%s : Q has values at the %d points of the degree-%d rule of the "
			                  "cells: it is read in integrals over cells with that rule, not %s", f->name,
			                  f->qp, f->qdegree, lay->facets ? "over facets" :
			                  arena_printf(ev->a, "with degree = %d", lay->degree));
		out->kind = VAL_NUM;
		out->reg = interpolate(ev, f, op, q, col, 1, -1, e->loc);
		return out->reg < 0 ? -1 : 0;
	}
	if (!f->vector) {
		out->kind = VAL_NUM;
		out->reg = interpolate(ev, f, op, 0, col, 1, -1, e->loc);
		return out->reg < 0 ? -1 : 0;
	}
	*out = value_mat(ev, f->ncomp, 1);
	for (int c = 0; c < f->ncomp; c++)
		if ((out->m[c] = interpolate(ev, f, op, c, col, 1, -1, e->loc)) < 0)
			return -1;
	return 0;
}

int fe_eval_coord(struct eval *ev, struct ast_expr *e, struct value *out)
{
	int k = e->name[0] - 'x';
	if (!ev->fe)
		return eval_error(ev, e->loc, "%s is a coordinate of the point: it exists in the density of an "
		                  "integral, a load on a field and a field's initial value", e->name);
	memset(out, 0, sizeof *out);
	out->kind = VAL_NUM;
	if (ev->fe->constant_point) {
		if (ev->fe->xreg[k] < 0)
			return eval_error(ev, e->loc, "%s is not a coordinate of this mesh", e->name);
		out->reg = ev->fe->xreg[k];
		return 0;
	}
	const struct fe_layout *lay = ev->fe->lay;
	if (k >= lay->dim)
		return eval_error(ev, e->loc, "%s is not a coordinate of a %d-D mesh", e->name, lay->dim);
	out->reg = data_reg(ev, lay->x + ev->fe->q * lay->dim + k, e->loc);
	return 0;
}

/* grad(u), grad(u'), grad(grad(w)) (hermite, 1-D): its argument. */
static int grad_arg(struct eval *ev, struct ast_expr *a, const struct fe_field **f, int *primes)
{
	*primes = 0;
	if (a->kind == AST_PRIME) {
		*primes = a->primes;
		a = a->lhs;
	}
	struct binding *b = a->kind == AST_NAME ? scope_lookup(ev->scope, a->name) : NULL;
	if (!b && a->kind == AST_NAME && ev->mc && ev->mc->what && strcmp(ev->mc->what, "a let value") == 0)
		/* a model's lets are values of its parameters, made before its
		 * dofs and fields are declared */
		return eval_error(ev, a->loc, "a model's let is a value of its parameters, computed before its "
		                  "fields: grad, div and eps of a field are read inside a density, integral(MESH, ...) "
		                  "(name a function of them instead: function W(G) = ..., then "
		                  "integral(MESH, W(grad(%s))))", a->name);
	if (!b || b->kind != B_DOF || !b->group->field)
		return eval_error(ev, a->loc, "grad, div and eps apply to a field (grad(u), eps(u')), not to an "
		                  "expression");
	*f = b->group->field;
	if (*primes > 1)
		return eval_error(ev, a->loc, "a density reads a field and its velocity, not its acceleration");
	return 0;
}

/* The gradient of field f at the point: 1-D scalar → number; scalar →
 * d×1; vector → ncomp×d (∂u_i/∂x_j).  second: the second derivative
 * (1-D). */
static int field_grad(struct eval *ev, struct ast_expr *e, const struct fe_field *f, int primes, int second,
                      struct value *out)
{
	int li;
	if (field_here(ev, e, f, &li))
		return -1;
	if (f->internal)
		return eval_error(ev, e->loc, f->qp ? "%s is an internal variable with values at quadrature points (Q): "
		                  "it has no gradient" : "%s is an internal variable, constant on each cell (P0): it has "
		                  "no gradient", f->name);
	const struct fe_layout *lay = ev->fe->lay;
	int q = ev->fe->q, nloc = f->space->nloc, d = lay->dim;
	enum ir_op op = primes ? IR_VEL : IR_DOF;
	memset(out, 0, sizeof *out);
	if (second) {
		if (d != 1 || f->vector || lay->d2phi[li] < 0)
			return eval_error(ev, e->loc, "grad(grad(%s)) is the second derivative of a hermite field on "
			                  "an interval", f->name);
		out->kind = VAL_NUM;
		out->reg = interpolate(ev, f, op, 0, lay->d2phi[li] + q * nloc, 1, -2, e->loc);
		return out->reg < 0 ? -1 : 0;
	}
	int col = lay->dphi[li] + q * nloc * d;
	if (!f->vector && d == 1) {
		out->kind = VAL_NUM;
		out->reg = interpolate(ev, f, op, 0, col, 1, 0, e->loc);
		return out->reg < 0 ? -1 : 0;
	}
	*out = value_mat(ev, f->ncomp == 1 ? d : f->ncomp, f->ncomp == 1 ? 1 : d);
	for (int c = 0; c < f->ncomp; c++)
		for (int l = 0; l < d; l++)
			if ((out->m[c * d + l] = interpolate(ev, f, op, c, col + l, d, l, e->loc)) < 0)
				return -1;
	return 0;
}

static int square(struct eval *ev, const struct value *v, struct loc loc, const char *fn)
{
	if (v->kind != VAL_MAT || v->rows != v->cols)
		return eval_error(ev, loc, "%s takes a square matrix", fn);
	return 0;
}

int fe_call(struct eval *ev, struct ast_expr *call, const char *name, struct value *out)
{
	struct loc loc = call->loc;
	int n = call->args.n;
	for (int i = 0; i < n; i++)
		if (((struct ast_arg *)call->args.v[i])->name && strcmp(name, "integral") != 0)
			return eval_error(ev, ((struct ast_arg *)call->args.v[i])->loc, "%s has no named parameters", name);
	struct ast_expr *a0 = n > 0 ? ((struct ast_arg *)call->args.v[0])->value : NULL;
	memset(out, 0, sizeof *out);
	if (strcmp(name, "integral") == 0 && ev->mc && ev->mc->in_record && !ev->fe) {
		/* record NAME = integral(REGION, DENSITY): unrolled */
		struct fe_integral in;
		int r;
		if (fe_integral_build(ev, call, NULL, &r, &in))
			return -1;
		fe_integral_free(&in);
		out->kind = VAL_NUM;
		out->reg = r;
		return 0;
	}
	if (strcmp(name, "integral") == 0)
		return eval_error(ev, loc, "integral(...) is a term of a kinetic energy, a potential or a dissipation, "
		                  "or a recorded value (record NAME = integral(REGION, DENSITY))");
	if (strcmp(name, "identity") == 0) {
		long d;
		if (n != 1)
			return eval_error(ev, loc, "identity takes the dimension: identity(2)");
		if (eval_int(ev, a0, &d, "a dimension"))
			return -1;
		if (d < 1 || d > 3)
			return eval_error(ev, a0->loc, "identity(d) takes d = 1, 2 or 3, not %ld", d);
		*out = value_mat(ev, (int)d, (int)d);
		for (int i = 0; i < d * d; i++)
			out->m[i] = konst(ev, i % (d + 1) == 0, loc);
		return 0;
	}
	if (strcmp(name, "grad") == 0 || strcmp(name, "div") == 0 || strcmp(name, "eps") == 0) {
		if (n != 1)
			return eval_error(ev, loc, "%s takes one field: %s(u)", name, name);
		const struct fe_field *f = NULL;
		int primes, second = 0;
		struct ast_expr *arg = a0;
		if (strcmp(name, "grad") == 0 && arg->kind == AST_CALL && arg->lhs->kind == AST_NAME &&
		    strcmp(arg->lhs->name, "grad") == 0 && arg->args.n == 1) {
			second = 1;
			arg = ((struct ast_arg *)arg->args.v[0])->value;
		}
		if (grad_arg(ev, arg, &f, &primes))
			return -1;
		struct value g;
		if (field_grad(ev, call, f, primes, second, &g))
			return -1;
		if (strcmp(name, "grad") == 0) {
			*out = g;
			return 0;
		}
		if (!f->vector)
			return eval_error(ev, loc, "%s applies to a vector field (P1^d, P2^d, Q1^d); %s is scalar: use grad(%s)",
			                  name, f->name, f->name);
		int d = g.rows;
		if (strcmp(name, "div") == 0) {
			out->kind = VAL_NUM;
			out->reg = g.m[0];
			for (int i = 1; i < d; i++)
				out->reg = emit(ev, IR_ADD, out->reg, g.m[i * d + i], loc);
			return 0;
		}
		/* eps(u) = ½(∇u + ∇uᵀ) */
		*out = value_mat(ev, d, d);
		int half = konst(ev, 0.5, loc);
		for (int i = 0; i < d; i++)
			for (int j = 0; j < d; j++)
				out->m[i * d + j] = i == j ? g.m[i * d + i]
				                           : emit(ev, IR_MUL, half, emit(ev, IR_ADD, g.m[i * d + j], g.m[j * d + i], loc), loc);
		return 0;
	}
	struct value v[2];
	int want = strcmp(name, "dot") == 0 || strcmp(name, "inner") == 0 ? 2 : 1;
	if (n != want)
		return eval_error(ev, loc, "%s takes %d argument%s, %d given", name, want, want == 1 ? "" : "s", n);
	for (int i = 0; i < n; i++)
		if (eval_expr(ev, ((struct ast_arg *)call->args.v[i])->value, &v[i]))
			return -1;
	if (want == 2) {
		if (v[0].kind == VAL_NUM && v[1].kind == VAL_NUM) {
			out->kind = VAL_NUM;
			out->reg = emit(ev, IR_MUL, v[0].reg, v[1].reg, loc);
			return 0;
		}
		/* dot: a row and a column vector of one length are the same
		 * vector (dyn(5): either serves where a vector is expected) */
		int isdot = strcmp(name, "dot") == 0, vecs = v[0].kind == VAL_MAT && v[1].kind == VAL_MAT &&
		            (v[0].rows == 1 || v[0].cols == 1) && (v[1].rows == 1 || v[1].cols == 1) &&
		            v[0].rows * v[0].cols == v[1].rows * v[1].cols;
		if (!(isdot && vecs) &&
		    (v[0].kind != VAL_MAT || v[1].kind != VAL_MAT || v[0].rows != v[1].rows || v[0].cols != v[1].cols))
			return eval_error(ev, loc, "%s takes two %s of the same size", name, isdot ? "vectors" : "matrices");
		if (strcmp(name, "dot") == 0 && v[0].cols != 1 && v[0].rows != 1)
			return eval_error(ev, loc, "dot takes two vectors: inner(A, B) is for matrices");
		out->kind = VAL_NUM;
		out->reg = -1;
		for (int i = 0; i < v[0].rows * v[0].cols; i++) {
			int t = emit(ev, IR_MUL, v[0].m[i], v[1].m[i], loc);
			out->reg = out->reg < 0 ? t : emit(ev, IR_ADD, out->reg, t, loc);
		}
		return 0;
	}
	if (v[0].kind == VAL_NUM) {
		/* a 1×1 matrix is a number: tr, det are itself, inv 1/it */
		out->kind = VAL_NUM;
		out->reg = strcmp(name, "inv") == 0 ? emit(ev, IR_DIV, konst(ev, 1, loc), v[0].reg, loc) : v[0].reg;
		return 0;
	}
	if (square(ev, &v[0], loc, name))
		return -1;
	int d = v[0].rows;
	const int *A = v[0].m;
	if (strcmp(name, "tr") == 0) {
		out->kind = VAL_NUM;
		out->reg = A[0];
		for (int i = 1; i < d; i++)
			out->reg = emit(ev, IR_ADD, out->reg, A[i * d + i], loc);
		return 0;
	}
	if (d > 3)
		return eval_error(ev, loc, "%s takes matrices of size 1, 2 or 3", name);
	/* det by cofactors of the first row; inv = adj / det */
	int cof[9];
	if (d == 1) {
		cof[0] = konst(ev, 1, loc);
	} else if (d == 2) {
		cof[0] = A[3];
		cof[1] = emit(ev, IR_NEG, A[2], 0, loc);
		cof[2] = emit(ev, IR_NEG, A[1], 0, loc);
		cof[3] = A[0];
	} else {
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++) {
				int r1 = (i + 1) % 3, r2 = (i + 2) % 3, c1 = (j + 1) % 3, c2 = (j + 2) % 3;
				cof[i * 3 + j] = emit(ev, IR_SUB, emit(ev, IR_MUL, A[r1 * 3 + c1], A[r2 * 3 + c2], loc),
				                      emit(ev, IR_MUL, A[r1 * 3 + c2], A[r2 * 3 + c1], loc), loc);
			}
	}
	int det = -1;
	for (int j = 0; j < d; j++) {
		int t = emit(ev, IR_MUL, A[j], cof[j], loc);
		det = det < 0 ? t : emit(ev, IR_ADD, det, t, loc);
	}
	if (strcmp(name, "det") == 0) {
		out->kind = VAL_NUM;
		out->reg = det;
		return 0;
	}
	/* inv(A)_ij = cof_ji / det */
	*out = value_mat(ev, d, d);
	for (int i = 0; i < d; i++)
		for (int j = 0; j < d; j++)
			out->m[i * d + j] = emit(ev, IR_DIV, cof[j * d + i], det, loc);
	return 0;
}

/* ---- integrals as kernels ---- */

/* The domain of integral(D, ...): a mesh, or a region of the mesh of one
 * of the model's fields. */
static int integral_domain(struct eval *ev, struct ast_expr *d, struct fe_mesh **fm,
                           const struct mesh_region **reg)
{
	*reg = NULL;
	if (d->kind != AST_NAME)
		return eval_error(ev, d->loc, "integral(D, density): D is a mesh or a region of one");
	struct binding *b = scope_lookup(ev->scope, d->name);
	if (b && b->kind == B_MESH) {
		*fm = b->mesh;
		return 0;
	}
	struct model_ctx *mc = ev->mc;
	for (int i = 0; i < mc->nfield; i++) {
		const struct mesh_region *r = mesh_region(mc->field[i]->mesh->m, d->name);
		if (r) {
			*fm = mc->field[i]->mesh;
			*reg = r;
			if (r->kind == MESH_REGION_NODES)
				return eval_error(ev, d->loc, "region %s of mesh %s is a set of nodes: an integral is over "
				                  "cells or facets", d->name, (*fm)->name);
			return 0;
		}
	}
	/* did you mean: meshes and the regions of the fields' meshes */
	int nc = 0, cap = 8;
	const char **cand = arena_alloc(ev->a, sizeof *cand * (size_t)cap);
	for (struct fe_mesh *m = ev->s->meshes; m; m = m->next) {
		if (nc == cap) {
			cand = arena_grow(ev->a, cand, sizeof *cand * (size_t)cap, sizeof *cand * (size_t)(2 * cap));
			cap *= 2;
		}
		cand[nc++] = m->name;
	}
	for (int i = 0; i < mc->nfield; i++)
		for (int k = 0; k < mc->field[i]->mesh->m->nregions; k++) {
			if (nc == cap) {
				cand = arena_grow(ev->a, cand, sizeof *cand * (size_t)cap, sizeof *cand * (size_t)(2 * cap));
				cap *= 2;
			}
			cand[nc++] = mc->field[i]->mesh->m->regions[k].name;
		}
	const char *close = name_closest(d->name, cand, nc);
	return eval_error(ev, d->loc, "'%s' is neither a mesh nor a region of the mesh of a field of model %s%s%s%s",
	                  d->name, mc->m->name, close ? " (did you mean '" : "", close ? region_shown(ev, close) : "",
	                  close ? "'?)" : "");
}

/* Σ_k Σ_q w_q |det J| density(ξ_q) over the instances of a built
 * integral, each with its data as constants and its cell's unknowns as
 * inputs (ev->kern NULL): a record's program, of a size proportional to
 * the instances. */
enum { FE_UNROLL_MAX = 4000000 };
static int unrolled(struct eval *ev, struct ast_expr *dens, const struct fe_layout *lay,
                    const struct fe_integral *in, int *reg)
{
	long size = 0;
	for (int i = 0; i < lay->nfield; i++)
		size += lay->field[i]->space->nloc * lay->field[i]->ncomp;
	if ((double)in->ninst * lay->nq * (double)size > FE_UNROLL_MAX)
		return eval_error(ev, dens->loc, "a recorded integral is expanded cell by cell: %ld cells with %d "
		                  "points each are too many (at most %d values read in all)", in->ninst, lay->nq,
		                  FE_UNROLL_MAX);
	struct fe_point pt = { 0 };
	pt.lay = lay;
	struct fe_point *saved = ev->fe;
	struct kern_build *saved_kb = ev->kern;
	ev->fe = &pt;
	ev->kern = NULL;
	int acc = -1, rc = 0;
	for (long k = 0; k < in->ninst && rc == 0; k++) {
		pt.row = in->data + (size_t)k * (size_t)in->ndata;
		pt.cell = in->rg ? in->rg->cell[k] : k;
		for (int q = 0; q < lay->nq; q++) {
			pt.q = q;
			struct value v;
			if (eval_expr(ev, dens, &v)) {
				rc = -1;
				break;
			}
			if (v.kind != VAL_NUM) {
				rc = eval_error(ev, dens->loc, "a density is a number, not %s", value_kind_name(&v));
				break;
			}
			int term = emit(ev, IR_MUL, data_reg(ev, lay->wdet + q, dens->loc), v.reg, dens->loc);
			acc = acc < 0 ? term : emit(ev, IR_ADD, acc, term, dens->loc);
		}
	}
	ev->fe = saved;
	ev->kern = saved_kb;
	*reg = acc;
	return rc;
}

int fe_integral_build(struct eval *ev, struct ast_expr *call, struct kern_build *kb, int *reg,
                      struct fe_integral *out)
{
	memset(out, 0, sizeof *out);
	struct ast_expr *dom = NULL, *dens = NULL;
	struct ast_arg *deg = NULL;
	int npos = 0;
	for (int i = 0; i < call->args.n; i++) {
		struct ast_arg *a = call->args.v[i];
		if (a->name && strcmp(a->name, "degree") == 0) {
			deg = a;
		} else if (a->name) {
			return eval_error(ev, a->loc, "integral has no parameter '%s' (its one named parameter is degree)",
			                  a->name);
		} else if (npos++ == 0) {
			dom = a->value;
		} else if (npos == 2) {
			dens = a->value;
		}
	}
	if (npos != 2)
		return eval_error(ev, call->loc, "integral takes a mesh or region and a density: integral(MESH, "
		                  "DENSITY[, degree = k]); %d given", npos);
	struct fe_mesh *fm = NULL;
	const struct mesh_region *rg;
	if (integral_domain(ev, dom, &fm, &rg))
		return -1;
	struct model_ctx *mc = ev->mc;
	struct fe_layout *lay = arena_alloc(ev->a, sizeof *lay);
	lay->field = arena_alloc(ev->a, sizeof *lay->field * (size_t)(mc->nfield + 1));
	int maxdeg = 0, second = 0;
	for (int i = 0; i < mc->nfield; i++)
		if (mc->field[i]->mesh == fm) {
			lay->field[lay->nfield++] = mc->field[i];
			int dg = fe_ref_degree(mc->field[i]->space->family);
			maxdeg = dg > maxdeg ? dg : maxdeg;
			second |= mc->field[i]->space->family == FE_HERMITE3;
		}
	if (lay->nfield == 0)
		return eval_error(ev, dom->loc, "no field of model %s lives on mesh %s", mc->m->name, fm->name);
	long degree = 2 * maxdeg;
	if (deg) {
		if (eval_int(ev, deg->value, &degree, "a degree"))
			return -1;
		if (degree < 0 || degree > FE_QUAD_MAX_DEGREE)
			return eval_error(ev, deg->value->loc, "degree = %ld: a quadrature is exact to a degree in 0..%d",
			                  degree, FE_QUAD_MAX_DEGREE);
	}
	const struct mesh *m = fm->m;
	int facets = rg && rg->kind == MESH_REGION_FACETS;
	long ninst = !rg ? m->ncells : rg->n;
	if (ninst == 0)
		return eval_error(ev, dom->loc, "region %s is empty", dom->name);
	char err[512];
	/* the rules: one per local facet for a facet region */
	int nrule = facets ? mesh_cell_nfacets(m->type) : 1;
	struct fe_quad *quad = mem_calloc((size_t)nrule, sizeof *quad);
	struct fe_tab *tab = mem_calloc((size_t)lay->nfield, sizeof *tab);
	int rc = -1;
	if (!quad || !tab) {
		eval_error(ev, call->loc, "out of memory");
		goto out;
	}
	for (int f = 0; f < nrule; f++)
		if ((facets ? fe_quad_facet(m->type, f, (int)degree, &quad[f], err, sizeof err)
		            : fe_quad_cell(m->type, (int)degree, &quad[f], err, sizeof err))) {
			eval_error(ev, call->loc, "%s", err);
			goto out;
		}
	for (int i = 0; i < lay->nfield; i++)
		if (fe_tab_alloc(&tab[i], lay->field[i]->space, &quad[0], second && lay->field[i]->space->family ==
		                 FE_HERMITE3, err, sizeof err)) {
			eval_error(ev, call->loc, "%s", err);
			goto out;
		}
	int nq = quad[0].n, dim = m->dim;
	lay->nq = nq;
	lay->dim = dim;
	lay->degree = (int)degree;
	lay->facets = facets;
	lay->phi = arena_alloc(ev->a, sizeof(int) * (size_t)lay->nfield);
	lay->dphi = arena_alloc(ev->a, sizeof(int) * (size_t)lay->nfield);
	lay->d2phi = arena_alloc(ev->a, sizeof(int) * (size_t)lay->nfield);
	int col = 0;
	lay->wdet = col;
	col += nq;
	lay->x = col;
	col += nq * dim;
	for (int i = 0; i < lay->nfield; i++) {
		int nloc = lay->field[i]->space->nloc;
		lay->phi[i] = col;
		col += nq * nloc;
		lay->dphi[i] = col;
		col += nq * nloc * dim;
		lay->d2phi[i] = -1;
		if (tab[i].d2phi) {
			lay->d2phi[i] = col;
			col += nq * nloc * dim * dim;
		}
	}
	lay->ndata = col;
	out->ninst = ninst;
	out->ndata = col;
	out->nfield = lay->nfield;
	out->fields = (const struct fe_field *const *)lay->field;
	out->lay = lay;
	out->mesh = m;
	out->rg = rg;
	out->degree = (int)degree;
	out->second = second;
	if (!kb) {
		rc = fe_integral_data(ev, out, call->loc) ? -1 : unrolled(ev, dens, lay, out, reg);
		goto out;
	}
	kb->lo = 0;
	kb->hi = ninst - 1;
	/* the program: Σ_q w_q |det J| density(ξ_q) */
	struct fe_point pt = { 0 };
	pt.lay = lay;
	struct fe_point *saved = ev->fe;
	struct kern_build *saved_kb = ev->kern;
	ev->fe = &pt;
	ev->kern = kb;
	int acc = -1;
	out->nq = nq;
	out->wdet = lay->wdet;
	out->qreg = mem_alloc(sizeof(int) * (size_t)nq);
	if (!out->qreg) {
		ev->fe = saved;
		ev->kern = saved_kb;
		eval_error(ev, call->loc, "out of memory");
		goto out;
	}
	for (int q = 0; q < nq; q++) {
		pt.q = q;
		struct value v;
		if (eval_expr(ev, dens, &v)) {
			ev->fe = saved;
			ev->kern = saved_kb;
			goto out;
		}
		if (v.kind != VAL_NUM) {
			ev->fe = saved;
			ev->kern = saved_kb;
			eval_error(ev, dens->loc, "a density is a number, not %s", value_kind_name(&v));
			goto out;
		}
		out->qreg[q] = v.reg;
		int term = emit(ev, IR_MUL, data_reg(ev, lay->wdet + q, dens->loc), v.reg, dens->loc);
		acc = acc < 0 ? term : emit(ev, IR_ADD, acc, term, dens->loc);
	}
	ev->fe = saved;
	ev->kern = saved_kb;
	*reg = acc;
	rc = 0;
out:
	for (int f = 0; quad && f < nrule; f++)
		fe_quad_free(&quad[f]);
	for (int i = 0; tab && i < lay->nfield; i++)
		fe_tab_free(&tab[i]);
	free(quad);
	free(tab);
	if (rc)
		fe_integral_free(out);
	return rc;
}

int fe_integral_data(struct eval *ev, struct fe_integral *in, struct loc where)
{
	const struct fe_layout *lay = in->lay;
	const struct mesh *m = in->mesh;
	const struct mesh_region *rg = in->rg;
	int facets = rg && rg->kind == MESH_REGION_FACETS, nq = lay->nq, dim = lay->dim, col = lay->ndata;
	long ninst = in->ninst;
	char err[512];
	int nrule = facets ? mesh_cell_nfacets(m->type) : 1, rc = -1;
	struct fe_quad *quad = mem_calloc((size_t)nrule, sizeof *quad);
	struct fe_tab *tab = mem_calloc((size_t)lay->nfield, sizeof *tab);
	if (!quad || !tab) {
		eval_error(ev, where, "out of memory");
		goto out;
	}
	for (int f = 0; f < nrule; f++)
		if ((facets ? fe_quad_facet(m->type, f, in->degree, &quad[f], err, sizeof err)
		            : fe_quad_cell(m->type, in->degree, &quad[f], err, sizeof err))) {
			eval_error(ev, where, "%s", err);
			goto out;
		}
	for (int i = 0; i < lay->nfield; i++)
		if (fe_tab_alloc(&tab[i], lay->field[i]->space, &quad[0], in->second && lay->field[i]->space->family ==
		                 FE_HERMITE3, err, sizeof err)) {
			eval_error(ev, where, "%s", err);
			goto out;
		}
	if ((size_t)ninst > ((size_t)1 << 40) / (size_t)col / sizeof(double)) {
		eval_error(ev, where, "the integral's data would pass 1 TiB");
		goto out;
	}
	in->data = mem_alloc(sizeof(double) * (size_t)ninst * (size_t)col);
	if (!in->data) {
		eval_error(ev, where, "out of memory for the data of an integral over %ld cells", ninst);
		goto out;
	}
	for (long k = 0; k < ninst; k++) {
		long c = rg ? rg->cell[k] : k;
		int lf = facets ? rg->facet[k] : 0;
		double *row = in->data + (size_t)k * (size_t)col;
		for (int i = 0; i < lay->nfield; i++) {
			struct fe_tab *t = &tab[i];
			if ((facets ? fe_tab_facet(t, lay->field[i]->space, c, lf, &quad[lf], err, sizeof err)
			            : fe_tab_cell(t, lay->field[i]->space, c, &quad[0], err, sizeof err))) {
				eval_error(ev, where, "%s", err);
				goto out;
			}
			int nloc = t->nloc;
			if (i == 0) {
				memcpy(row + lay->wdet, t->wdet, sizeof(double) * (size_t)nq);
				memcpy(row + lay->x, t->x, sizeof(double) * (size_t)(nq * dim));
			}
			memcpy(row + lay->phi[i], t->phi, sizeof(double) * (size_t)(nq * nloc));
			memcpy(row + lay->dphi[i], t->dphi, sizeof(double) * (size_t)(nq * nloc * dim));
			if (lay->d2phi[i] >= 0)
				memcpy(row + lay->d2phi[i], t->d2phi, sizeof(double) * (size_t)(nq * nloc * dim * dim));
		}
	}
	rc = 0;
out:
	for (int f = 0; quad && f < nrule; f++)
		fe_quad_free(&quad[f]);
	for (int i = 0; tab && i < lay->nfield; i++)
		fe_tab_free(&tab[i]);
	free(quad);
	free(tab);
	return rc;
}

int fe_integral_features(struct eval *ev, struct ast_expr *call, const struct fe_integral *in,
                         struct kern_build *fkb, int *reg)
{
	struct ast_expr *dens = NULL;
	int npos = 0;
	for (int i = 0; i < call->args.n; i++) {
		struct ast_arg *a = call->args.v[i];
		if (!a->name && npos++ == 1)
			dens = a->value;
	}
	const struct fe_layout *lay = in->lay;
	if (lay->nfield > FE_FORM_MAXFIELD)
		return 1;
	int nslot = 0;
	for (int i = 0; i < lay->nfield; i++) {
		enum fe_family fam = lay->field[i]->space->family;
		if (lay->field[i]->internal || (fam != FE_P1 && fam != FE_P2 && fam != FE_Q1))
			return 1;
		nslot += lay->field[i]->space->ndof_cell;
	}
	if (nslot > FE_FORM_MAXSLOT)
		return 1;
	struct fe_point pt = { 0 };
	pt.lay = lay;
	pt.features = 1;
	struct fe_point *saved = ev->fe;
	struct kern_build *saved_kb = ev->kern;
	ev->fe = &pt;
	ev->kern = fkb;
	ev->quiet++;
	struct value v;
	int bad = eval_expr(ev, dens, &v);
	ev->quiet--;
	ev->fe = saved;
	ev->kern = saved_kb;
	if (bad || v.kind != VAL_NUM || pt.unsupported)
		return 1;
	/* every slot a feature of the fields: a dof of the model read in the
	 * density (0.5*(u - w)^2, w a dof) took a slot whose code is no
	 * feature, and was assembled as the field's value */
	for (int s = 0; s < fkb->nslot; s++)
		if (!(pt.feature_slots >> s & 1))
			return 1;
	*reg = v.reg;
	return 0;
}

void fe_integral_form(struct eval *ev, const struct fe_integral *in, const struct kern_build *fkb, const double *D,
                      struct fe_form *form)
{
	const struct fe_layout *lay = in->lay;
	memset(form, 0, sizeof *form);
	form->mesh = in->mesh;
	form->region = in->rg;
	form->degree = in->degree;
	form->nfield = lay->nfield;
	for (int i = 0; i < lay->nfield; i++) {
		form->space[i] = lay->field[i]->space;
		form->dof[i] = lay->field[i]->dof;
	}
	int nf = fkb->nslot;
	form->nfeat = nf;
	for (int a = 0; a < nf; a++) {
		long code = fkb->base[a];
		form->feat[a].deriv = (int)(code % 8) - 2;
		form->feat[a].comp = (int)(code / 8 % 4);
		form->feat[a].field = (int)(code / 32);
	}
	form->D = arena_alloc(ev->a, sizeof(double) * (size_t)nf * (size_t)nf + 1);
	memcpy(form->D, D, sizeof(double) * (size_t)nf * (size_t)nf);
}

void fe_integral_free(struct fe_integral *in)
{
	free(in->data);
	free(in->qreg);
	in->data = NULL;
	in->qreg = NULL;
}

/* The field of a slot code (slot_code), its local dof in *l. */
static const struct fe_field *code_field(const struct fe_integral *in, long code, int *l)
{
	if (code >= 0)
		return NULL;
	long c = -code - 1;
	*l = (int)(c % FE_CODE_STRIDE);
	for (int i = 0; i < in->nfield; i++)
		if (in->fields[i]->index == c / FE_CODE_STRIDE)
			return in->fields[i];
	return NULL;
}

int fe_integral_cellwise(const struct fe_integral *in, long code)
{
	int l;
	const struct fe_field *f = code_field(in, code, &l);
	return f && f->space->family == FE_P0;
}

const char *fe_integral_unlumpable(const struct fe_integral *in, long code, const char **elem)
{
	int l;
	const struct fe_field *f = code_field(in, code, &l);
	if (!f || f->space->family == FE_P1 || f->space->family == FE_Q1)
		return NULL;
	*elem = fe_family_name(f->space->family);
	return f->name;
}

long fe_integral_index(const struct fe_integral *in, long code, long k)
{
	int l;
	const struct fe_field *f = code_field(in, code, &l);
	if (!f)
		return code;
	const struct fe_space *sp = f->space;
	long c = in->rg ? in->rg->cell[k] : k;
	return f->dof[fe_space_cell_dof(sp, c, l)];
}

int fe_integral_component(const struct fe_integral *in, long code, long k)
{
	int l;
	const struct fe_field *f = code_field(in, code, &l);
	if (!f)
		return -1;
	const struct fe_space *sp = f->space;
	long c = in->rg ? in->rg->cell[k] : k;
	long dof = fe_space_cell_dof(sp, c, l);
	return sp->node_kind[dof / sp->ncomp] == FE_NODE_VALUE ? (int)(dof % sp->ncomp) : -1;
}

int *fe_integral_map(struct eval *ev, const struct fe_integral *in, const struct kern_build *kb)
{
	int ns = kb->nslot;
	int *map = arena_alloc(ev->a, sizeof(int) * ((size_t)in->ninst * (size_t)ns + 1));
	for (int s = 0; s < ns; s++) {
		long code = kb->base[s];
		/* an ordinary dof or internal variable read by the density is
		 * the same at every instance */
		for (long k = 0; k < in->ninst; k++)
			map[k * ns + s] = (int)fe_integral_index(in, code, k);
	}
	return map;
}

/* ---- loads and initial values ---- */

/* The field a target names (u, or u' with *primes), NULL when it is not a
 * field. */
static const struct fe_field *target_field(struct eval *ev, struct ast_expr *t, int *primes)
{
	*primes = 0;
	if (t->kind == AST_PRIME) {
		*primes = t->primes;
		t = t->lhs;
	}
	if (t->kind != AST_NAME)
		return NULL;
	struct binding *b = scope_lookup(ev->scope, t->name);
	return b && b->kind == B_DOF && b->group->field ? b->group->field : NULL;
}

/* EXPR evaluated at a point of known coordinates xr (registers; the
 * mesh's dimension of them): x, y, z read them. */
static int eval_at_point(struct eval *ev, struct ast_expr *e, const struct fe_field *f, const int *xr,
                         struct value *v)
{
	struct fe_point pt = { 0 };
	pt.constant_point = 1;
	for (int k = 0; k < 3; k++)
		pt.xreg[k] = k < f->mesh->m->dim ? xr[k] : -1;
	struct fe_point *saved = ev->fe;
	ev->fe = &pt;
	int rc = eval_expr(ev, e, v);
	ev->fe = saved;
	return rc;
}

/* The value of a load or initial value at a point of known coordinates
 * xr: ncomp registers into g. */
static int point_value(struct eval *ev, struct ast_expr *e, const struct fe_field *f, const int *xr, int *g)
{
	struct value v;
	if (eval_at_point(ev, e, f, xr, &v))
		return -1;
	if (!f->vector) {
		if (v.kind != VAL_NUM)
			return eval_error(ev, e->loc, "field %s is scalar: its value here is a number, not %s", f->name,
			                  value_kind_name(&v));
		g[0] = v.reg;
		return 0;
	}
	if (v.kind != VAL_MAT || v.rows * v.cols != f->ncomp || (v.rows != 1 && v.cols != 1)) {
		char what[64];
		if (v.kind == VAL_MAT && (v.rows == 1 || v.cols == 1))
			snprintf(what, sizeof what, "a vector of %d", v.rows * v.cols);
		else if (v.kind == VAL_MAT)
			snprintf(what, sizeof what, "a %d x %d matrix", v.rows, v.cols);
		else
			snprintf(what, sizeof what, "%s", value_kind_name(&v));
		return eval_error(ev, e->loc, "field %s has %d components: its value here is a vector of %d, not %s",
		                  f->name, f->ncomp, f->ncomp, what);
	}
	memcpy(g, v.m, sizeof(int) * (size_t)f->ncomp);
	return 0;
}

/* Loads f[dof] += c·reg, coalesced while reg stays the same for a dof (a
 * load uniform in x costs one multiplication per dof). */
struct load_acc {
	int *reg;
	double *c;
};

static void load_add(struct eval *ev, struct load_acc *la, int *f, long dof, int reg, double c, struct loc loc)
{
	if (dof < 0 || c == 0)
		return;
	if (la->reg[dof] == reg) {
		la->c[dof] += c;
		return;
	}
	if (la->reg[dof] >= 0)
		f[dof] = emit(ev, IR_ADD, f[dof], emit(ev, IR_MUL, konst(ev, la->c[dof], loc), la->reg[dof], loc), loc);
	la->reg[dof] = reg;
	la->c[dof] = c;
}

int fe_force(struct eval *ev, struct model_ctx *mc, struct ast_expr *pair, int *f)
{
	if (pair->kind != AST_PAIR)
		return 1;
	int primes;
	const struct fe_field *fd = target_field(ev, pair->lhs, &primes);
	if (!fd) {
		if (!pair->cond)
			return 1;
		return eval_error(ev, pair->lhs->loc, "force ... on REGION applies to a field (field %s on MESH : P1)",
		                  pair->lhs->kind == AST_NAME ? pair->lhs->name : "u");
	}
	if (primes)
		return eval_error(ev, pair->lhs->loc, "a force acts on a field, not on its velocity");
	if (fd->internal)
		return eval_error(ev, pair->lhs->loc, "%s is an internal variable: a force acts on a field of dofs",
		                  fd->name);
	const struct mesh *m = fd->mesh->m;
	const struct mesh_region *rg = NULL;
	if (pair->cond && !(rg = find_region(ev, fd->mesh, pair->cond)))
		return -1;
	struct loc loc = pair->rhs->loc;
	int n = mc->m->ndof, dim = m->dim, rc = -1;
	struct load_acc la = { mem_alloc(sizeof(int) * (size_t)n), mem_alloc(sizeof(double) * (size_t)n) };
	int nrule = rg && rg->kind == MESH_REGION_FACETS ? mesh_cell_nfacets(m->type) : 1;
	struct fe_quad *quad = mem_calloc((size_t)nrule, sizeof *quad);
	struct fe_tab tab = { 0 };
	char err[512];
	if (!la.reg || !la.c || !quad) {
		eval_error(ev, loc, "out of memory");
		goto out;
	}
	for (int i = 0; i < n; i++)
		la.reg[i] = -1;
	const struct fe_space *sp = fd->space;
	int g[3], xr[3];
	if (rg && rg->kind == MESH_REGION_NODES) {
		/* point loads at the region's nodes */
		for (long k = 0; k < rg->nnodes; k++) {
			long node = sp->family == FE_HERMITE3 ? 2 * rg->nodes[k] : rg->nodes[k];
			for (int d = 0; d < dim; d++)
				xr[d] = konst(ev, m->x[rg->nodes[k] * dim + d], loc);
			if (point_value(ev, pair->rhs, fd, xr, g))
				goto out;
			for (int c = 0; c < fd->ncomp; c++)
				load_add(ev, &la, f, fd->dof[node * fd->ncomp + c], g[c], 1, loc);
		}
	} else {
		int facets = rg && rg->kind == MESH_REGION_FACETS;
		int degree = 2 * fe_ref_degree(sp->family);
		for (int r = 0; r < nrule; r++)
			if (facets ? fe_quad_facet(m->type, r, degree, &quad[r], err, sizeof err)
			           : fe_quad_cell(m->type, degree, &quad[r], err, sizeof err)) {
				eval_error(ev, loc, "%s", err);
				goto out;
			}
		if (fe_tab_alloc(&tab, sp, &quad[0], 0, err, sizeof err)) {
			eval_error(ev, loc, "%s", err);
			goto out;
		}
		long ninst = rg ? rg->n : m->ncells;
		for (long k = 0; k < ninst; k++) {
			long c = rg ? rg->cell[k] : k;
			int lf = facets ? rg->facet[k] : 0;
			if (facets ? fe_tab_facet(&tab, sp, c, lf, &quad[lf], err, sizeof err)
			           : fe_tab_cell(&tab, sp, c, &quad[0], err, sizeof err)) {
				eval_error(ev, loc, "%s", err);
				goto out;
			}
			for (int q = 0; q < tab.nq; q++) {
				for (int d = 0; d < dim; d++)
					xr[d] = konst(ev, tab.x[q * dim + d], loc);
				if (point_value(ev, pair->rhs, fd, xr, g))
					goto out;
				for (int a = 0; a < sp->nloc; a++)
					for (int cc = 0; cc < fd->ncomp; cc++) {
						long sd = fe_space_cell_dof(sp, c, a * fd->ncomp + cc);
						load_add(ev, &la, f, fd->dof[sd], g[cc], tab.wdet[q] * tab.phi[q * sp->nloc + a], loc);
					}
			}
		}
	}
	for (int i = 0; i < n; i++)
		if (la.reg[i] >= 0)
			f[i] = emit(ev, IR_ADD, f[i], emit(ev, IR_MUL, konst(ev, la.c[i], loc), la.reg[i], loc), loc);
	rc = 0;
out:
	for (int r = 0; quad && r < nrule; r++)
		fe_quad_free(&quad[r]);
	free(quad);
	fe_tab_free(&tab);
	free(la.reg);
	free(la.c);
	return rc;
}

/* The rule of internal f : Q and a table on it, which fe_tab_cell fills
 * with a cell's physical points and weights × |det J|; the caller frees
 * both (fe_tab_free, fe_quad_free). */
static int qp_tab_open(struct eval *ev, const struct fe_field *f, struct fe_quad *quad, struct fe_tab *t,
                       struct loc where)
{
	char err[512];
	memset(t, 0, sizeof *t);
	if (fe_quad_cell(f->mesh->m->type, f->qdegree, quad, err, sizeof err))
		return eval_error(ev, where, "%s", err);
	if (fe_tab_alloc(t, f->space, quad, 0, err, sizeof err)) {
		fe_quad_free(quad);
		return eval_error(ev, where, "%s", err);
	}
	return 0;
}

/* An initial value of field fd that is not finite at a point (its free
 * dofs only: a held node takes 0 whatever the expression gives), said at
 * the expression with the point. */
static int init_not_finite(struct eval *ev, const struct ast_expr *pair, const struct fe_field *fd, int primes,
                           int slope, double v, const double *x, int dim)
{
	char c[3][FMT_BUFSZ];
	for (int d = 0; d < dim; d++)
		fmt_num(c[d], x[d]);
	return eval_error(ev, pair->rhs->loc, "the initial %s of %s%s is %s at (%s%s%s%s%s)",
	                  slope ? "slope" : "value", fd->name, primes ? "'" : "",
	                  isnan(v) ? "NaN" : "infinite", c[0], dim > 1 ? ", " : "", dim > 1 ? c[1] : "",
	                  dim > 2 ? ", " : "", dim > 2 ? c[2] : "");
}

int fe_init(struct eval *ev, struct model_ctx *mc, struct ast_expr *pair)
{
	int primes;
	const struct fe_field *fd = target_field(ev, pair->lhs, &primes);
	if (!fd)
		return 1;
	if (primes > 1)
		return eval_error(ev, pair->lhs->loc, "initial accelerations follow from the equation of motion");
	if (fd->internal && primes)
		return eval_error(ev, pair->lhs->loc, "internal variables have no initial rate: it follows from the "
		                  "equations");
	/* a second value would silently replace the first (as for dofs,
	 * lower.c's init) */
	struct fe_field *given = mc->field[fd->index];
	if (given->init_given & (1u << (primes != 0)))
		return eval_error(ev, pair->lhs->loc, "%s%s is given an initial value twice", fd->name, primes ? "'" : "");
	given->init_given |= 1u << (primes != 0);
	double *dst = fd->internal ? mc->m->z0 : primes ? mc->m->v0 : mc->m->u0;
	const struct fe_space *sp = fd->space;
	const struct mesh *m = fd->mesh->m;
	int dim = m->dim;
	/* the expression once, with x, y, z as the inputs DOF 0, 1, 2 of a
	 * program of its own; for hermite's derivative nodes its derivative
	 * in x too (exact, by ir_diff) */
	struct ir_prog *saved = ev->prog;
	struct ir_prog *p = ir_prog_new(ev->a);
	ev->prog = p;
	int xr[3], g[3];
	for (int d = 0; d < dim; d++)
		xr[d] = ir_emit_input(p, IR_DOF, d, ir_loc_of(pair->rhs->loc));
	int rc = point_value(ev, pair->rhs, fd, xr, g);
	ev->prog = saved;
	if (rc)
		return -1;
	int nout = fd->ncomp;
	for (int c = 0; c < fd->ncomp; c++)
		ir_prog_add_output(p, g[c]);
	if (sp->family == FE_HERMITE3) {
		struct ir_diff_ws *w = ir_diff_ws_new();
		struct ir_diff_inputs in = { 1, 1, { { IR_DOF, 0 } } };
		int dg;
		if (!w || ir_gradient(p, w, g[0], &in, &dg)) {
			ir_diff_ws_free(w);
			return eval_error(ev, pair->rhs->loc, "out of memory");
		}
		ir_diff_ws_free(w);
		ir_prog_add_output(p, dg);
		nout++;
	}
	double val[4];
	if (fd->qp) {
		/* : Q, the value at each point of each cell */
		struct fe_quad quad;
		struct fe_tab t;
		char err[512];
		if (qp_tab_open(ev, fd, &quad, &t, pair->rhs->loc))
			return -1;
		int bad = 0;
		for (long c = 0; c < m->ncells && !bad; c++) {
			if (fe_tab_cell(&t, sp, c, &quad, err, sizeof err)) {
				bad = eval_error(ev, pair->rhs->loc, "%s", err);
				break;
			}
			for (int q = 0; q < fd->qp; q++) {
				if (ir_eval_const(p, t.x + q * dim, NULL, NULL, NULL, val)) {
					bad = eval_error(ev, pair->rhs->loc, "an initial value must not depend on t");
					break;
				}
				long md = fd->dof[fe_space_cell_dof(sp, c, q)];
				if (md >= 0 && !isfinite(val[0])) {
					bad = init_not_finite(ev, pair, fd, primes, 0, val[0], t.x + q * dim, dim);
					break;
				}
				if (md >= 0)
					dst[md] = val[0];
			}
		}
		fe_tab_free(&t);
		fe_quad_free(&quad);
		return bad;
	}
	for (long node = 0; node < sp->nnode; node++) {
		if (ir_eval_const(p, sp->node_x + node * dim, NULL, NULL, NULL, val))
			return eval_error(ev, pair->rhs->loc, "an initial value must not depend on t");
		int deriv = sp->node_kind && sp->node_kind[node] == FE_NODE_DERIV;
		for (int c = 0; c < fd->ncomp; c++) {
			long md = fd->dof[node * fd->ncomp + c];
			double x = deriv ? val[fd->ncomp] : val[c];
			if (md >= 0 && !isfinite(x))
				return init_not_finite(ev, pair, fd, primes, deriv, x, sp->node_x + node * dim, dim);
			if (md >= 0)
				dst[md] = x;
		}
	}
	return 0;
}

int fe_field_moved(const struct fe_field *fd, const double *dir)
{
	for (long k = 0; k < fd->space->ndofs; k++)
		if (fd->dof[k] < 0 && fd->space->node_kind[k / fd->ncomp] == FE_NODE_VALUE && dir[k % fd->ncomp] != 0)
			return 1;
	return 0;
}

int fe_field_fixed(const struct fe_field *fd)
{
	for (long k = 0; k < fd->space->ndofs; k++)
		if (fd->dof[k] < 0)
			return 1;
	return 0;
}

/* ---- records ---- */

void fe_drop_locators(struct eval *ev)
{
	for (struct fe_mesh *m = ev->s->meshes; m; m = m->next)
		mesh_locator_drop(m->m);
}

int fe_record_at(struct eval *ev, struct ast_record_item *it, struct ir_record *r, int *nr)
{
	*nr = 0;
	/* U[i] at (...) (U[i]' or U'[i] for a rate): component i alone */
	struct ast_expr *ex = it->expr, *ci = NULL;
	int primes, cprimes = 0;
	if (ex->kind == AST_PRIME && ex->lhs->kind == AST_INDEX) {
		cprimes = ex->primes;
		ex = ex->lhs;
	}
	if (ex->kind == AST_INDEX) {
		ci = ex->rhs;
		ex = ex->lhs;
	}
	const struct fe_field *fd = target_field(ev, ex, &primes);
	primes += cprimes;
	const struct ast_expr *t = ex->kind == AST_PRIME ? ex->lhs : ex;
	if (fd && primes > 2)
		return eval_error(ev, it->expr->loc, "'at (...)' records a field, its velocity or its acceleration: "
		                  "%s has %d primes", fd->name, primes);
	long comp = 0;
	if (fd && ci) {
		if (eval_int(ev, ci, &comp, "a component"))
			return -1;
		if (!fd->vector)
			return eval_error(ev, ci->loc, "field %s is scalar: record %s at (...), without a component",
			                  fd->name, fd->name);
		if (comp < 1 || comp > fd->ncomp)
			return eval_error(ev, ci->loc, "field %s has components 1..%d, not %ld", fd->name, fd->ncomp, comp);
	}
	if (!fd && t->kind == AST_NAME)
		return eval_error(ev, it->expr->loc, "'%s at (...)' records a field at a point: %s is not a field",
		                  t->name, t->name);
	if (!fd)
		return eval_error(ev, it->expr->loc, "'at (...)' records a field or its rates at a point: "
		                  "U, U' or U'' at (...), U a field");
	struct mesh *m = fd->mesh->m;
	int dim = m->dim;
	if (it->at.n != dim)
		return eval_error(ev, it->at_loc, "mesh %s is %d-D: a point of it has %d coordinate%s, not %d",
		                  fd->mesh->name, dim, dim, dim == 1 ? "" : "s", it->at.n);
	double p[3], xi[3];
	char *label = arena_printf(ev->a, "%s", "");
	for (int d = 0; d < dim; d++) {
		struct ast_expr *e = it->at.v[d];
		if (eval_number(ev, e, &p[d], "a coordinate"))
			return -1;
		char buf[32];
		value_format_num(p[d], buf);
		/* a CSV column's name: no comma */
		label = arena_printf(ev->a, "%s%s%s", label, d ? " " : "", buf);
	}
	long cell;
	char err[512];
	int rc = mesh_locate(m, p, &cell, xi, err, sizeof err);
	if (rc < 0)
		return eval_error(ev, it->at_loc, "%s", err);
	if (rc > 0)
		return eval_error(ev, it->at_loc, "the point (%s) is outside mesh %s", label, fd->mesh->name);
	/* the weights of the cell's dofs at the point: the field with one dof
	 * at 1, the others 0, through fe_space_eval (the physical basis, with
	 * hermite's scaling of its derivative dofs) */
	const struct fe_space *sp = fd->space;
	if (fd->qp) {
		/* : Q, the cell's average Σ_q w_q|det J| p_q / Σ_q w_q|det J| */
		struct fe_quad quad;
		struct fe_tab t;
		if (qp_tab_open(ev, fd, &quad, &t, it->at_loc))
			return -1;
		rc = fe_tab_cell(&t, sp, cell, &quad, err, sizeof err);
		struct ir_prog *prog = ir_prog_new(ev->a);
		struct ir_loc loc = ir_loc_of(it->loc);
		int acc = ir_emit_const(prog, 0, loc);
		double vol = 0;
		for (int q = 0; q < fd->qp && rc == 0; q++)
			vol += t.wdet[q];
		for (int q = 0; q < fd->qp && rc == 0; q++) {
			long md = fd->dof[fe_space_cell_dof(sp, cell, q)];
			int in = ir_emit_input(prog, primes ? IR_INTVEL : IR_INT, (int)md, loc);
			acc = ir_emit(prog, IR_ADD, acc, ir_emit(prog, IR_MUL, ir_emit_const(prog, t.wdet[q] / vol, loc), in, 0,
			              loc), 0, loc);
		}
		fe_tab_free(&t);
		fe_quad_free(&quad);
		if (rc)
			return eval_error(ev, it->at_loc, "%s", err);
		ir_prog_add_output(prog, acc);
		ir_prog_compact(prog);
		struct ir_record *rr = &r[(*nr)++];
		memset(rr, 0, sizeof *rr);
		rr->kind = IR_REC_EXPR;
		rr->expr = prog;
		rr->loc = loc;
		rr->name = it->name ? it->name : arena_printf(ev->a, "%s%s(%s)", fd->name, primes ? "'" : "", label);
		return 0;
	}
	double *u = mem_calloc((size_t)sp->ndofs + 1, sizeof(double));
	if (!u)
		return eval_error(ev, it->at_loc, "out of memory");
	for (int c = comp ? (int)comp - 1 : 0; c < (comp ? (int)comp : fd->ncomp); c++) {
		struct ir_prog *prog = ir_prog_new(ev->a);
		struct ir_loc loc = ir_loc_of(it->loc);
		int acc = ir_emit_const(prog, 0, loc);
		for (int a = 0; a < sp->nloc; a++) {
			long sd = fe_space_cell_dof(sp, cell, a * fd->ncomp + c);
			double out[3];
			u[sd] = 1;
			fe_space_eval(sp, cell, xi, u, out);
			u[sd] = 0;
			long md = fd->dof[sd];
			if (md < 0 || out[c] == 0)
				continue;
			int in = ir_emit_input(prog, fd->internal ? (primes ? IR_INTVEL : IR_INT) : primes == 0 ? IR_DOF
			                       : primes == 1 ? IR_VEL : IR_ACC, (int)md, loc);
			acc = ir_emit(prog, IR_ADD, acc, ir_emit(prog, IR_MUL, ir_emit_const(prog, out[c], loc), in, 0, loc), 0,
			              loc);
		}
		ir_prog_add_output(prog, acc);
		ir_prog_compact(prog);
		struct ir_record *rr = &r[(*nr)++];
		memset(rr, 0, sizeof *rr);
		rr->kind = IR_REC_EXPR;
		rr->expr = prog;
		rr->loc = loc;
		const char *pr = primes == 0 ? "" : primes == 1 ? "'" : "''";
		/* a vector's components are NAME_x, NAME_y, NAME_z: names a run
		 * reads back (r.a_x); NAME itself for the one component asked */
		if (it->name)
			rr->name = fd->vector && !comp ? arena_printf(ev->a, "%s_%c", it->name, 'x' + c) : it->name;
		else
			rr->name = fd->vector ? arena_printf(ev->a, "%s_%c%s(%s)", fd->name, 'x' + c, pr, label)
			                      : arena_printf(ev->a, "%s%s(%s)", fd->name, pr, label);
	}
	free(u);
	return 0;
}

int fe_field_output(struct eval *ev, struct ast_record_item *it, struct ir_field_output *out)
{
	int primes;
	const struct fe_field *fd = target_field(ev, it->expr, &primes);
	if (!fd)
		return eval_error(ev, it->expr->loc, "record field writes a field of the model: %s is not one",
		                  it->expr->name);
	if (fd->internal)
		return eval_error(ev, it->expr->loc, "record field writes fields of dofs: %s is an internal variable "
		                  "(record %s at (x) records its value in a cell)", fd->name, fd->name);
	const struct mesh *m = fd->mesh->m;
	const struct fe_space *sp = fd->space;
	memset(out, 0, sizeof *out);
	out->name = fd->name;
	out->mesh = m;
	out->ncomp = fd->ncomp;
	out->nnode = m->nnodes;
	out->loc = ir_loc_of(it->loc);
	/* the values at the mesh's nodes: P1, Q1 and P2 number them first,
	 * hermite's values are its even nodes (fe_space.h); a P2 field's
	 * every node, on quadratic cells (its mid-edge values are its own) */
	if (sp->family == FE_P2) {
		out->space = sp;
		out->nnode = sp->nnode;
	}
	long *dof = arena_alloc(ev->a, sizeof(long) * ((size_t)out->nnode * (size_t)fd->ncomp + 1));
	for (long i = 0; i < out->nnode; i++) {
		long node = sp->family == FE_HERMITE3 ? 2 * i : i;
		for (int c = 0; c < fd->ncomp; c++)
			dof[i * fd->ncomp + c] = fd->dof[node * fd->ncomp + c];
	}
	out->dof = dof;
	return 0;
}

/* The dof md of a region on a prescribed motion g (register of ev->prog)
 * starts at g(t0) with velocity ġ(t0) (the derivative by ir_diff, both
 * evaluated by the VM on a copy of the program), when the run's start
 * time is known. */
static int prescribe(struct eval *ev, int g, long md, struct loc loc)
{
	struct model_ctx *mc = ev->mc;
	if (!mc->has_t0)
		return 0;
	struct ir_prog *p = ir_prog_copy(ev->a, ev->prog);
	p->nout = 0;
	struct ir_diff_ws *w = ir_diff_ws_new();
	struct ir_diff_inputs in = { 1, 1, { { IR_TIME, 0 } } };
	int dg;
	if (!w || ir_gradient(p, w, g, &in, &dg)) {
		ir_diff_ws_free(w);
		return eval_error(ev, loc, "out of memory");
	}
	ir_diff_ws_free(w);
	ir_prog_add_output(p, g);
	ir_prog_add_output(p, dg);
	ir_prog_compact(p);
	double *reg = mem_alloc(sizeof(double) * (size_t)(p->n + 1)), out[2];
	if (!reg)
		return eval_error(ev, loc, "out of memory");
	struct vm_input vin = { 0 };
	vin.t = mc->t0;
	vin.table = mc->m->table;
	vm_eval(p, reg, &vin, out);
	free(reg);
	if (mc->nprescribed == mc->prescribed_cap) {
		int cap = mc->prescribed_cap ? 2 * mc->prescribed_cap : 16;
		mc->prescribed = arena_grow(ev->a, mc->prescribed, sizeof *mc->prescribed * (size_t)mc->prescribed_cap,
		                            sizeof *mc->prescribed * (size_t)cap);
		mc->prescribed_cap = cap;
	}
	mc->prescribed[mc->nprescribed++] = (struct fe_prescribed){ md, out[0], out[1] };
	return 0;
}

/* The obstacle's position EXPR of a contact on a region at a point of
 * known coordinates xr: a number (of the component the contact holds). */
static int point_value_scalar(struct eval *ev, struct ast_expr *e, const struct fe_field *f, const int *xr, int *g,
                              const char *what)
{
	struct value v;
	if (eval_at_point(ev, e, f, xr, &v))
		return -1;
	if (v.kind != VAL_NUM)
		return eval_error(ev, e->loc, "%s is a number at each point, not %s", what, value_kind_name(&v));
	g[0] = v.reg;
	return 0;
}

/* Whether register reg of p reads the state (a dof, a rate, an
 * acceleration, an internal variable): a prescribed motion must not,
 * its value and rate at t0 are evaluated with no state (prescribe). */
static int reads_state(const struct ir_prog *p, int reg)
{
	unsigned char *seen = mem_calloc((size_t)reg + 1, 1);
	int *stack = mem_alloc(sizeof *stack * ((size_t)reg + 1) * 3 + sizeof *stack), top = 0, found = 0;
	if (!seen || !stack) {
		free(seen);
		free(stack);
		return 0;
	}
	stack[top++] = reg;
	seen[reg] = 1;
	while (top > 0 && !found) {
		const struct ir_insn *x = &p->insn[stack[--top]];
		found = x->op == IR_DOF || x->op == IR_VEL || x->op == IR_ACC || x->op == IR_INT || x->op == IR_INTVEL;
		int ops[3] = { x->a, x->b, x->c }, arity = ir_op_arity[x->op];
		for (int k = 0; k < arity && k < 3; k++)
			if (ops[k] >= 0 && ops[k] <= reg && !seen[ops[k]]) {
				seen[ops[k]] = 1;
				stack[top++] = ops[k];
			}
	}
	free(seen);
	free(stack);
	return found;
}

/* Whether register r of p is 0 wherever it is finite by its form: the
 * constant 0, or a product, a quotient by a constant or a negation of
 * such a value (a sum or difference of two): a prescription with a
 * factor that vanishes at a node, 0.01*sin(t)*x at x = 0, which the IR
 * does not fold to 0 (x·0 is NaN for an infinite x).  depth bounds the
 * search. */
static int zero_by_form(const struct ir_prog *p, int r, int depth)
{
	double k;
	if (ir_is_const(p, r, &k))
		return k == 0;
	if (depth <= 0)
		return 0;
	const struct ir_insn *x = &p->insn[r];
	switch (x->op) {
	case IR_MUL: return zero_by_form(p, x->a, depth - 1) || zero_by_form(p, x->b, depth - 1);
	case IR_DIV: return ir_is_const(p, x->b, &k) && k != 0 && zero_by_form(p, x->a, depth - 1);
	case IR_NEG: return zero_by_form(p, x->a, depth - 1);
	case IR_ADD:
	case IR_SUB: return zero_by_form(p, x->a, depth - 1) && zero_by_form(p, x->b, depth - 1);
	default: return 0;
	}
}

/* Dof md (space dof sd of fd) of constraint item `it`, prescribed by an
 * earlier item already: the same value (the same register, equal
 * constants, or 0 by the form of both: zero_by_form) is dropped; another
 * is an error, which would otherwise be a dependent constraint refused at
 * the run.  Returns 1 (with *rc = -1)
 * on error, else 0. */
static int dup_prescribed(struct eval *ev, const struct ast_item *it, const struct fe_field *fd, long sd, long comp,
                          long md, struct ast_expr *rhs, int *rc)
{
	struct model_ctx *mc = ev->mc;
	const struct mesh *m = fd->mesh->m;
	long node = sd / fd->ncomp;
	int dc = comp ? 0 : (int)(sd % fd->ncomp), xr[3], g[3];
	for (int k = 0; k < m->dim; k++)
		xr[k] = konst(ev, fd->space->node_x[node * m->dim + k], rhs->loc);
	if (comp ? point_value_scalar(ev, rhs, fd, xr, g, "the value of a constraint on one component")
	         : point_value(ev, rhs, fd, xr, g)) {
		*rc = -1;
		return 1;
	}
	int r0 = mc->claim_reg[md];
	double a, b;
	if (r0 == g[dc] || (r0 >= 0 && ir_is_const(ev->prog, r0, &a) && ir_is_const(ev->prog, g[dc], &b) && a == b) ||
	    (r0 >= 0 && zero_by_form(ev->prog, r0, 32) && zero_by_form(ev->prog, g[dc], 32)))
		return 0;
	char nm[IR_NAME_SIZE], where[96];
	int len = snprintf(where, sizeof where, "(");
	for (int k = 0; k < m->dim; k++)
		len += snprintf(where + len, sizeof where - (size_t)len, "%s%.6g", k ? ", " : "",
		                fd->space->node_x[node * m->dim + k]);
	snprintf(where + len, sizeof where - (size_t)len, ")");
	*rc = -1;
	eval_error(ev, it->loc, "%s at the node %s is prescribed by the constraint at line %d too, with another "
	           "value: each dof is prescribed once (leave the node out of one region, or give both the same "
	           "value)", ir_unknown_name(mc->m, (int)md, nm, sizeof nm), where, mc->claim[md]->loc.line);
	return 1;
}

int fe_constraint(struct eval *ev, struct ast_item *it, int *c)
{
	int primes;
	const struct fe_field *fd = target_field(ev, it->target, &primes);
	if (!fd && it->target->kind == AST_NAME)
		return eval_error(ev, it->target->loc, "constraint ... on REGION applies to a field: %s is not one",
		                  it->target->name);
	if (!fd || primes)
		return eval_error(ev, it->target->loc, "constraint ... on REGION applies to a field (or a component of "
		                  "one, u[2]), not this");
	if (fd->internal)
		return eval_error(ev, it->target->loc, "constraint ... on REGION prescribes a field of dofs: %s is an "
		                  "internal variable", fd->name);
	struct ast_expr *e = it->value;
	if (e->kind != AST_BINARY || e->op != AST_OP_EQ || e->lhs->kind != AST_NAME)
		return eval_error(ev, e->loc, "a constraint on a field prescribes it on a region: constraint %s on "
		                  "REGION == EXPR", fd->name);
	/* u[i] on REGION: component i alone, EXPR a number */
	long comp = 0;
	if (it->dir) {
		if (eval_int(ev, it->dir, &comp, "a component"))
			return -1;
		if (!fd->vector)
			return eval_error(ev, it->dir->loc, "field %s is scalar: constraint %s on REGION, without a "
			                  "component", fd->name, fd->name);
		if (comp < 1 || comp > fd->ncomp)
			return eval_error(ev, it->dir->loc, "field %s has components 1..%d, not %ld", fd->name, fd->ncomp,
			                  comp);
	}
	const struct mesh_region *rg = find_region(ev, fd->mesh, e->lhs);
	if (!rg)
		return -1;
	const struct fe_space *sp = fd->space;
	const struct mesh *m = fd->mesh->m;
	char err[512];
	long *d = NULL;
	long nd = fe_space_region_dofs(sp, rg, (int)comp - 1, FE_NODE_VALUE, &d, err, sizeof err);
	if (nd < 0)
		return eval_error(ev, e->lhs->loc, "%s", err);
	struct model_ctx *mc = ev->mc;
	if (!mc->claim) {
		size_t N = (size_t)mc->m->ndof + 1;
		mc->claim = arena_alloc(ev->a, sizeof *mc->claim * N);
		mc->claim_reg = arena_alloc(ev->a, sizeof *mc->claim_reg * N);
		for (size_t k = 0; k < N; k++)
			mc->claim_reg[k] = -1;
	}
	int n = 0, rc = 0, ties = -1;
	for (long q = 0; q < nd; q++) {
		long md = fd->dof[d[q]];
		if (md < 0)
			continue;   /* fixed already */
		if (!mc->claim[md])
			mc->claim[md] = it;
		if (mc->claim[md] != it) {
			/* prescribed by an earlier item (two regions share the
			 * node): once, if both say the same */
			if (c && dup_prescribed(ev, it, fd, d[q], comp, md, e->rhs, &rc))
				break;
			continue;
		}
		if (c) {
			/* u_d − g_comp(x_node, t) = 0 */
			long node = d[q] / fd->ncomp;
			int dc = comp ? 0 : (int)(d[q] % fd->ncomp), xr[3], g[3];
			for (int k = 0; k < m->dim; k++)
				xr[k] = konst(ev, sp->node_x[node * m->dim + k], e->rhs->loc);
			if (comp ? point_value_scalar(ev, e->rhs, fd, xr, g, "the value of a constraint on one component")
			         : point_value(ev, e->rhs, fd, xr, g)) {
				rc = -1;
				break;
			}
			int u = ir_emit_input(ev->prog, IR_DOF, (int)md, ir_loc_of(it->target->loc));
			c[n] = emit(ev, IR_SUB, u, g[dc], e->loc);
			mc->claim_reg[md] = g[dc];
			/* a value that reads the state (a dof: a mass tied to the
			 * region) ties the region to it rather than prescribing a
			 * motion: the dofs start where init puts them */
			if (ties < 0)   /* the expression's, not the node's: asked once */
				ties = reads_state(ev->prog, g[dc]);
			if (!ties && prescribe(ev, g[dc], md, e->loc)) {
				rc = -1;
				break;
			}
		}
		n++;
	}
	free(d);
	if (rc)
		return -1;
	if (n == 0)
		return eval_error(ev, e->lhs->loc, "region %s holds no free dof of %s", e->lhs->name, fd->name);
	return n;
}

int fe_contact(struct eval *ev, struct ast_item *it, int *c)
{
	int primes;
	const struct fe_field *fd = target_field(ev, it->target, &primes);
	if (!fd || primes)
		return eval_error(ev, it->target->loc, "contact ... on REGION applies to a field (or a component of "
		                  "one, u[2]), not this");
	if (fd->internal)
		return eval_error(ev, it->target->loc, "contact ... on REGION acts on a field of dofs: %s is an "
		                  "internal variable", fd->name);
	struct ast_expr *e = it->value;
	if (e->kind != AST_BINARY || (e->op != AST_OP_GE && e->op != AST_OP_LE) || e->lhs->kind != AST_NAME)
		return eval_error(ev, e->loc, "a contact on a field keeps it on one side of an obstacle on a region: "
		                  "contact %s on REGION >= EXPR (or <= EXPR)", fd->name);
	long comp = 0;
	if (it->dir) {
		if (eval_int(ev, it->dir, &comp, "a component"))
			return -1;
		if (!fd->vector)
			return eval_error(ev, it->dir->loc, "field %s is scalar: contact %s on REGION, without a component",
			                  fd->name, fd->name);
		if (comp < 1 || comp > fd->ncomp)
			return eval_error(ev, it->dir->loc, "field %s has components 1..%d, not %ld", fd->name, fd->ncomp,
			                  comp);
	} else if (fd->vector) {
		return eval_error(ev, it->target->loc, "field %s has %d components: a contact holds one of them, "
		                  "contact %s[i] on REGION >= EXPR", fd->name, fd->ncomp, fd->name);
	}
	const struct mesh_region *rg = find_region(ev, fd->mesh, e->lhs);
	if (!rg)
		return -1;
	const struct fe_space *sp = fd->space;
	const struct mesh *m = fd->mesh->m;
	char err[512];
	long *d = NULL;
	long nd = fe_space_region_dofs(sp, rg, (int)comp - 1, FE_NODE_VALUE, &d, err, sizeof err);
	if (nd < 0)
		return eval_error(ev, e->lhs->loc, "%s", err);
	int n = 0, rc = 0;
	for (long q = 0; q < nd; q++) {
		long md = fd->dof[d[q]];
		if (md < 0)
			continue;   /* fixed: nothing to keep off the obstacle */
		if (c) {
			/* φ = u_d − g(x_node) ≥ 0, or g − u_d for <= */
			long node = d[q] / fd->ncomp;
			int xr[3], g[1] = { -1 };
			for (int k = 0; k < m->dim; k++)
				xr[k] = konst(ev, sp->node_x[node * m->dim + k], e->rhs->loc);
			if (point_value_scalar(ev, e->rhs, fd, xr, g, "the obstacle of a contact on a field")) {
				rc = -1;
				break;
			}
			int u = ir_emit_input(ev->prog, IR_DOF, (int)md, ir_loc_of(it->target->loc));
			c[n] = e->op == AST_OP_GE ? emit(ev, IR_SUB, u, g[0], e->loc) : emit(ev, IR_SUB, g[0], u, e->loc);
		}
		n++;
	}
	free(d);
	if (rc)
		return -1;
	if (n == 0)
		return eval_error(ev, e->lhs->loc, "region %s holds no free dof of %s", e->lhs->name, fd->name);
	return n;
}

/* The slip coordinates of `contact U[i] on REGION >= EXPR friction MU`:
 * the gap at a node is measured along axis i, so the contact point slips
 * along the other axes, and its slip coordinates are the node's other
 * components of U (one in the plane, two in space; a fixed one does not
 * slip).  For the q-th gap of fe_contact (same order), its coordinates'
 * registers go to c[first[q]] .. c[first[q + 1] − 1]; with c NULL only
 * the count.  Returns how many in all, or -1. */
int fe_contact_slips(struct eval *ev, struct ast_item *it, int *c, int *first)
{
	int primes;
	const struct fe_field *fd = target_field(ev, it->target, &primes);
	long comp = 0;
	if (!fd || primes)
		return -1;   /* fe_contact said why */
	if (!it->dir)
		return eval_error(ev, it->friction->loc, "friction at a contact on a region needs a vector field, whose "
		                  "other components the contact point slips along: %s is scalar", fd->name);
	if (eval_int(ev, it->dir, &comp, "a component"))
		return -1;
	const struct mesh_region *rg = find_region(ev, fd->mesh, it->value->lhs);
	if (!rg)
		return -1;
	char err[512];
	long *d = NULL;
	long nd = fe_space_region_dofs(fd->space, rg, (int)comp - 1, FE_NODE_VALUE, &d, err, sizeof err);
	if (nd < 0)
		return eval_error(ev, it->value->lhs->loc, "%s", err);
	int n = 0, q = 0;
	if (first)
		first[0] = 0;
	for (long r = 0; r < nd; r++) {
		if (fd->dof[d[r]] < 0)
			continue;   /* no gap at a fixed dof (fe_contact) */
		long node = d[r] / fd->ncomp;
		for (int j = 0; j < fd->ncomp; j++) {
			long md = fd->dof[node * fd->ncomp + j];
			if (j == comp - 1 || md < 0)
				continue;
			if (c)
				c[n] = ir_emit_input(ev->prog, IR_DOF, (int)md, ir_loc_of(it->target->loc));
			n++;
		}
		if (first)
			first[++q] = n;
	}
	free(d);
	return n;
}

/* Field f's dofs along dir (ncomp entries) into d: each value node's
 * components, a Hermite field's slopes 0.  Space dof k is component
 * k mod ncomp of node k / ncomp. */
static void field_along(const struct fe_field *f, const double *dir, double *d)
{
	for (long k = 0; k < f->space->ndofs; k++)
		if (f->dof[k] >= 0)
			d[f->dof[k]] = f->space->node_kind[k / f->ncomp] == FE_NODE_VALUE ? dir[k % f->ncomp] : 0;
}

int fe_translation(struct eval *ev, struct model_ctx *mc)
{
	struct ir_model *m = mc->m;
	int any = 0;
	for (int i = 0; i < mc->nfield; i++) {
		const struct fe_field *f = mc->field[i];
		any |= !f->internal && (f->ncomp > 1 || f->space->family == FE_HERMITE3);
	}
	if (!any)
		return 0;
	double *d = arena_alloc(ev->a, sizeof(double) * ((size_t)m->ndof + 1));
	if (!d)
		return -1;
	for (int j = 0; j < m->ndof; j++)
		d[j] = 1;
	static const double x[3] = { 1, 0, 0 };
	for (int i = 0; i < mc->nfield; i++)
		if (!mc->field[i]->internal)
			field_along(mc->field[i], x, d);
	m->translation = d;
	return 0;
}

int fe_direction(struct eval *ev, struct model_ctx *mc, const double *dir, int nd, double *d, struct loc loc)
{
	struct ir_model *m = mc->m;
	long infield = 0;
	for (int i = 0; i < mc->nfield; i++) {
		const struct fe_field *f = mc->field[i];
		if (f->internal)
			continue;
		infield += f->nfree;
		if (f->ncomp != nd)
			return eval_error(ev, loc, "field %s has %d component%s: a direction in space has as many "
			                  "entries, not %d (or give one per dof, %d)", f->name, f->ncomp,
			                  f->ncomp == 1 ? "" : "s", nd, m->ndof);
	}
	if (infield != m->ndof)
		return eval_error(ev, loc, "model %s has dofs outside its fields: the direction takes one entry per "
		                  "dof (%d), not %d", m->name, m->ndof, nd);
	for (int i = 0; i < mc->nfield; i++)
		if (!mc->field[i]->internal)
			field_along(mc->field[i], dir, d);
	return 0;
}

int fe_fields_only(const struct model_ctx *mc, int ncomp)
{
	long infield = 0;
	for (int i = 0; i < mc->nfield; i++) {
		const struct fe_field *f = mc->field[i];
		if (f->internal)
			continue;
		if (f->ncomp != ncomp)
			return 0;
		infield += f->nfree;
	}
	return infield == mc->m->ndof;
}
