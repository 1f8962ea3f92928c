/* ir.c — building expression programs and printing the IR.
 *
 * Programs are in SSA form: instruction i defines register i.  The
 * emitters do the two optimisations every program gets: constant folding
 * (an instruction whose operands are all constants becomes a constant) and
 * common-subexpression elimination (an instruction identical to an earlier
 * one returns the earlier register), through a hash table keyed on
 * (op, operands, constant).  Algebraic identities that are exact in
 * floating point (x + 0, x * 1, x * 0 for the IR's finite inputs is not
 * one of them) are applied too.
 */
#include <config.h>

#include "ir.h"
#include "arena.h"
#include "fmt.h"
#include "mem.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const ir_op_name[IR_NOPS] = {
#define OP(name, text, arity) text,
#include "ir_ops.def"
#undef OP
};

const int ir_op_arity[IR_NOPS] = {
#define OP(name, text, arity) arity,
#include "ir_ops.def"
#undef OP
};

/* The CSE table lives beside the program; programs are arena-allocated,
 * so the table is too. */
struct ir_prog_ext {
	struct ir_prog p;
	struct arena *arena;
	int *hash;        /* open addressing, -1 empty */
	int hcap;
	int outcap;
	struct const_cache *cc;
};

/* The last constants emitted, by their bits: sums emit the same few
 * constants for every term, and a hit here skips the hash table.  Made
 * when a program grows past a few instructions: a script statement's
 * program (one per statement, a loop's pass included) stays small, and
 * 768 bytes each made a loop of 10^6 passes take 1.5 GB. */
struct const_cache {
	unsigned long long bits[64];
	int reg[64];
};
enum { CONST_CACHE_AFTER = 32 };

struct ir_prog *ir_prog_new(struct arena *a)
{
	struct ir_prog_ext *x = arena_alloc(a, sizeof *x);
	x->arena = a;
	return &x->p;
}

static unsigned long long key_of(const struct ir_insn *in)
{
	unsigned long long h = (unsigned long long)in->op * 0x9E3779B97F4A7C15ull;
	h ^= (unsigned long long)(unsigned)in->a * 0xC2B2AE3D27D4EB4Full;
	h ^= (unsigned long long)(unsigned)in->b * 0x165667B19E3779F9ull;
	h ^= (unsigned long long)(unsigned)in->c * 0x27D4EB2F165667C5ull;
	unsigned long long kb;
	memcpy(&kb, &in->k, sizeof kb);
	h ^= kb * 0x94D049BB133111EBull;
	/* murmur3's finalizer: the table index takes the low bits, and the
	 * bits of small integer constants are all high. */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static int same(const struct ir_insn *x, const struct ir_insn *y)
{
	return x->op == y->op && x->a == y->a && x->b == y->b && x->c == y->c &&
	       memcmp(&x->k, &y->k, sizeof x->k) == 0;
}

static void rehash(struct ir_prog_ext *x)
{
	int cap = x->hcap ? 2 * x->hcap : 16;
	while (cap < 2 * (x->p.n + 1))
		cap *= 2;
	x->hash = arena_alloc(x->arena, sizeof(int) * (size_t)cap);
	for (int i = 0; i < cap; i++)
		x->hash[i] = -1;
	x->hcap = cap;
	for (int i = 0; i < x->p.n; i++) {
		unsigned long long h = key_of(&x->p.insn[i]);
		int j = (int)(h & (unsigned long long)(cap - 1));
		while (x->hash[j] >= 0)
			j = (j + 1) & (cap - 1);
		x->hash[j] = i;
	}
}

/* Append `in` unless an identical instruction exists; returns its register. */
static int intern(struct ir_prog_ext *x, const struct ir_insn *in)
{
	if (2 * (x->p.n + 1) > x->hcap)
		rehash(x);
	unsigned long long h = key_of(in);
	int j = (int)(h & (unsigned long long)(x->hcap - 1));
	while (x->hash[j] >= 0) {
		if (same(&x->p.insn[x->hash[j]], in))
			return x->hash[j];
		j = (j + 1) & (x->hcap - 1);
	}
	if (x->p.n == x->p.cap) {
		int cap = x->p.cap ? 2 * x->p.cap : 4;
		x->p.insn = arena_grow(x->arena, x->p.insn, sizeof *x->p.insn * (size_t)x->p.n,
		                       sizeof *x->p.insn * (size_t)cap);
		x->p.cap = cap;
	}
	x->p.insn[x->p.n] = *in;
	x->hash[j] = x->p.n;
	return x->p.n++;
}

/* The hash table is linear probing, each instruction put at the first
 * free slot of its probe sequence, in register order (intern, and rehash
 * in the same order): emptying the slots of the last ones, last first,
 * leaves the table the earlier ones alone would have made. */
void ir_prog_truncate(struct ir_prog *p, int n)
{
	struct ir_prog_ext *x = (struct ir_prog_ext *)p;
	for (int r = p->n - 1; r >= n && x->hash; r--) {
		int j = (int)(key_of(&p->insn[r]) & (unsigned long long)(x->hcap - 1));
		while (x->hash[j] != r)
			j = (j + 1) & (x->hcap - 1);
		x->hash[j] = -1;
	}
	for (size_t s = 0; x->cc && s < sizeof x->cc->reg / sizeof *x->cc->reg; s++)
		if (x->cc->reg[s] - 1 >= n)
			x->cc->reg[s] = 0;
	if (n < p->n)
		p->n = n;
}

int ir_is_const(const struct ir_prog *p, int reg, double *k)
{
	if (reg < 0 || reg >= p->n || p->insn[reg].op != IR_CONST)
		return 0;
	if (k)
		*k = p->insn[reg].k;
	return 1;
}

int ir_emit_const(struct ir_prog *p, double k, struct ir_loc loc)
{
	struct ir_prog_ext *x = (struct ir_prog_ext *)p;
	struct ir_insn in = { IR_CONST, 0, 0, 0, k, loc };
	if (k == 0)
		in.k = 0;   /* one zero: -0 and +0 fold alike */
	unsigned long long bits;
	memcpy(&bits, &in.k, sizeof bits);
	if (!x->cc) {
		if (p->n < CONST_CACHE_AFTER)
			return intern(x, &in);
		x->cc = arena_alloc(x->arena, sizeof *x->cc);
	}
	int slot = (int)((bits * 0x9E3779B97F4A7C15ull) >> 58);
	int r = x->cc->reg[slot] - 1;
	if (r >= 0 && x->cc->bits[slot] == bits && r < p->n && p->insn[r].op == IR_CONST)
		return r;
	r = intern(x, &in);
	x->cc->bits[slot] = bits;
	x->cc->reg[slot] = r + 1;
	return r;
}

/* The input a program reads through an instruction (IR_USES_* bit), or 0. */
static unsigned input_use(enum ir_op op)
{
	switch (op) {
	case IR_TIME: return IR_USES_T;
	case IR_DOF: return IR_USES_U;
	case IR_VEL: return IR_USES_V;
	case IR_ACC: return IR_USES_A;
	case IR_INT: return IR_USES_Z;
	case IR_INTVEL: return IR_USES_ZD;
	default: return 0;
	}
}

int ir_emit_input(struct ir_prog *p, enum ir_op op, int index, struct ir_loc loc)
{
	struct ir_insn in = { op, op == IR_TIME ? 0 : index, 0, 0, 0, loc };
	p->uses |= input_use(op);
	return intern((struct ir_prog_ext *)p, &in);
}

/* The value of a pure operation on constants; must agree with runtime/vm.c. */
static double fold(enum ir_op op, double x, double y, double z)
{
	switch (op) {
	case IR_NEG: return -x;
	case IR_ADD: return x + y;
	case IR_SUB: return x - y;
	case IR_MUL: return x * y;
	case IR_DIV: return x / y;
	case IR_POW: return pow(x, y);
	case IR_LT: return x < y;
	case IR_LE: return x <= y;
	case IR_GT: return x > y;
	case IR_GE: return x >= y;
	case IR_EQ: return x == y;
	case IR_NE: return x != y;
	case IR_AND: return x != 0 && y != 0;
	case IR_OR: return x != 0 || y != 0;
	case IR_NOT: return x == 0;
	case IR_SELECT: return x != 0 ? y : z;
	/* min and max propagate NaN (fmin and fmax would drop it): dyn(5). */
	case IR_MIN: return isnan(x) || isnan(y) ? x + y : fmin(x, y);
	case IR_MAX: return isnan(x) || isnan(y) ? x + y : fmax(x, y);
	case IR_ATAN2: return atan2(x, y);
	case IR_HYPOT: return hypot(x, y);
	case IR_FMOD: return fmod(x, y);
	case IR_SIN: return sin(x);
	case IR_COS: return cos(x);
	case IR_TAN: return tan(x);
	case IR_ASIN: return asin(x);
	case IR_ACOS: return acos(x);
	case IR_ATAN: return atan(x);
	case IR_SINH: return sinh(x);
	case IR_COSH: return cosh(x);
	case IR_TANH: return tanh(x);
	case IR_EXP: return exp(x);
	case IR_LOG: return log(x);
	case IR_LOG10: return log10(x);
	case IR_SQRT: return sqrt(x);
	case IR_ABS: return fabs(x);
	case IR_SIGN: return isnan(x) ? x : (x > 0) - (x < 0);   /* sign(NaN) is NaN, not 0 */
	case IR_FLOOR: return floor(x);
	case IR_CEIL: return ceil(x);
	default: return NAN;
	}
}

int ir_emit(struct ir_prog *p, enum ir_op op, int a, int b, int c, struct ir_loc loc)
{
	int arity = ir_op_arity[op];
	double x = 0, y = 0, z = 0;
	int ka = arity < 1 || ir_is_const(p, a, &x);
	int kb = arity < 2 || ir_is_const(p, b, &y);
	int kc = arity < 3 || ir_is_const(p, c, &z);
	if (op != IR_TABLE && ka && kb && kc)
		return ir_emit_const(p, fold(op, x, y, z), loc);

	/* Identities exact in IEEE arithmetic. */
	switch (op) {
	case IR_ADD:
		if (ka && x == 0) return b;
		if (kb && y == 0) return a;
		break;
	case IR_SUB:
		if (kb && y == 0) return a;
		if (ka && x == 0) return ir_emit(p, IR_NEG, b, 0, 0, loc);
		break;
	case IR_MUL:
		if (ka && x == 1) return b;
		if (kb && y == 1) return a;
		if (ka && x == -1) return ir_emit(p, IR_NEG, b, 0, 0, loc);
		if (kb && y == -1) return ir_emit(p, IR_NEG, a, 0, 0, loc);
		break;
	case IR_DIV:
		if (kb && y == 1) return a;
		break;
	case IR_POW:
		if (kb && y == 1) return a;
		if (kb && y == 2) return ir_emit(p, IR_MUL, a, a, 0, loc);
		break;
	case IR_NEG:
		if (p->insn[a].op == IR_NEG) return p->insn[a].a;
		break;
	case IR_SELECT:
		if (ka) return x != 0 ? b : c;
		break;
	default:
		break;
	}
	/* Commutative operations: one canonical operand order for CSE. */
	if ((op == IR_ADD || op == IR_MUL || op == IR_MIN || op == IR_MAX ||
	     op == IR_EQ || op == IR_NE || op == IR_AND || op == IR_OR) && a > b) {
		int s = a; a = b; b = s;
	}
	struct ir_insn in = { op, a, arity >= 2 ? b : 0, arity >= 3 || op == IR_TABLE ? c : 0, 0, loc };
	return intern((struct ir_prog_ext *)p, &in);
}

void ir_matrix_release(struct ir_matrix *m)
{
	if (!m->arena || m->a)
		return;
	arena_release(m->arena, m->row);
	arena_release(m->arena, m->col);
	arena_release(m->arena, m->val);
	for (int b = 0; b < m->nblock; b++)
		if (m->block[b].per_instance)
			arena_release(m->arena, (void *)m->block[b].val);
	m->row = m->col = NULL;
	m->val = NULL;
	m->nnz = 0;
	m->nblock = 0;
	m->block = NULL;
	m->arena = NULL;
}

int ir_matrix_has_entries(const struct ir_matrix *m)
{
	return m->nnz > 0 || m->nblock > 0;
}

static long block_index(const struct ir_kernel *k, int s, long i)
{
	return k->map ? k->map[(i - k->lo) * k->nslot + s] : k->base[s] + k->stride[s] * i;
}

static void block_each(const struct ir_matrix_block *b, void (*add)(void *ctx, int i, int j, double v), void *ctx)
{
	const struct ir_kernel *k = b->k;
	for (long i = k->lo; i <= k->hi; i++) {
		const double *v = b->val + (b->per_instance ? (size_t)(i - k->lo) * (size_t)k->nnz : 0);
		for (int e = 0; e < k->nnz; e++) {
			if (v[e] == 0)
				continue;
			long I = block_index(k, k->row[e], i);
			if (I < 0)
				continue;
			if (b->lumped) {
				add(ctx, (int)I, (int)I, v[e]);
				continue;
			}
			long J = block_index(k, k->col[e], i);
			if (J >= 0)
				add(ctx, (int)I, (int)J, v[e]);
		}
	}
}

void ir_matrix_each(const struct ir_matrix *m, void (*add)(void *ctx, int i, int j, double v), void *ctx)
{
	int k = 0;
	for (int b = 0; b < m->nblock; b++) {
		for (; k < m->block[b].at; k++)
			add(ctx, m->row[k], m->col[k], m->val[k]);
		block_each(&m->block[b], add, ctx);
	}
	for (; k < m->nnz; k++)
		add(ctx, m->row[k], m->col[k], m->val[k]);
}

static void count_entry(void *ctx, int i, int j, double v)
{
	(void)i;
	(void)j;
	(void)v;
	++*(long *)ctx;
}

long ir_matrix_count(const struct ir_matrix *m)
{
	long c = 0;
	if (m->nblock == 0)
		return m->nnz;
	ir_matrix_each(m, count_entry, &c);
	return c;
}

const struct ir_dof_group *ir_dof_group_of(const struct ir_dof_list *l, int i)
{
	/* the last group whose first is at most i */
	int lo = 0, hi = l->ngroup - 1;
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;
		if (l->group[mid].first <= i)
			lo = mid;
		else
			hi = mid - 1;
	}
	return &l->group[lo];
}

int ir_dof_group_unknown(const struct ir_dof_group *g, long k)
{
	if (k < 1 || k > ir_dof_group_extent(g))
		return -1;
	if (!g->index)
		return g->first + (int)k - 1;
	if (g->unknown_of)
		return g->unknown_of[k - 1] < 0 ? -1 : g->first + g->unknown_of[k - 1];
	/* index is ascending: bisect it */
	int lo = 0, hi = g->size - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (g->index[mid] == k)
			return g->first + mid;
		if (g->index[mid] < k)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

char *ir_dof_list_name(const struct ir_dof_list *l, int i, char *buf, size_t size)
{
	const struct ir_dof_group *g = l->ngroup ? ir_dof_group_of(l, i) : NULL;
	if (!g)
		snprintf(buf, size, "?");
	else if (!g->vector)
		snprintf(buf, size, "%s", g->name);
	else
		snprintf(buf, size, "%s[%d]", g->name, ir_dof_group_element(g, i));
	return buf;
}

char *ir_dof_name(const struct ir_model *m, int i, char *buf, size_t size)
{
	return ir_dof_list_name(&m->dofs, i, buf, size);
}

char *ir_intvar_name(const struct ir_model *m, int j, char *buf, size_t size)
{
	return ir_dof_list_name(&m->intvars, j, buf, size);
}

char *ir_unknown_name(const struct ir_model *m, int i, char *buf, size_t size)
{
	return i < m->ndof ? ir_dof_name(m, i, buf, size) : ir_intvar_name(m, i - m->ndof, buf, size);
}

void ir_model_release_start(struct ir_model *m)
{
	if (!m->arena)
		return;
	arena_release(m->arena, m->u0);
	arena_release(m->arena, m->v0);
	if (m->translation)
		arena_release(m->arena, m->translation);
	m->u0 = m->v0 = NULL;
	m->translation = NULL;
}

void ir_prog_add_output(struct ir_prog *p, int reg)
{
	struct ir_prog_ext *x = (struct ir_prog_ext *)p;
	if (p->nout >= x->outcap) {
		int cap = x->outcap ? 2 * x->outcap : 8;
		p->out = arena_regrow_uninit(x->arena, p->out, sizeof(int) * (size_t)p->nout, sizeof(int) * (size_t)cap);
		x->outcap = cap;
	}
	p->out[p->nout++] = reg;
}

/* The folding evaluation of ir_eval_const and ir_eval_index into the
 * scratch r (p->n doubles); index NULL: a program without INDEX. */
static int eval_fold(const struct ir_prog *p, const double *index, const double *data, const double *u,
                     const double *v, const double *z, const double *zd, double *r, double *out)
{
	for (int i = 0; i < p->n; i++) {
		const struct ir_insn *in = &p->insn[i];
		switch (in->op) {
		case IR_CONST: r[i] = in->k; break;
		case IR_INDEX:
			if (!index)
				return -1;
			r[i] = *index;
			break;
		case IR_DATA:
			if (!data)
				return -1;
			r[i] = data[in->a];
			break;
		case IR_DOF: r[i] = u ? u[in->a] : 0; break;
		case IR_VEL: r[i] = v ? v[in->a] : 0; break;
		case IR_INT: r[i] = z ? z[in->a] : 0; break;
		case IR_INTVEL: r[i] = zd ? zd[in->a] : 0; break;
		case IR_TIME: case IR_ACC: case IR_TABLE:
			return -1;
		default: {
			int ar = ir_op_arity[in->op];
			r[i] = fold(in->op, r[in->a], ar >= 2 ? r[in->b] : 0, ar >= 3 ? r[in->c] : 0);
		}
		}
	}
	for (int j = 0; j < p->nout; j++)
		out[j] = r[p->out[j]];
	return 0;
}

int ir_eval_const(const struct ir_prog *p, const double *u, const double *v, const double *z, const double *zd,
                  double *out)
{
	double *r = mem_alloc(sizeof(double) * (size_t)(p->n + 1));
	if (!r)
		return -1;
	int rc = eval_fold(p, NULL, NULL, u, v, z, zd, r, out);
	free(r);
	return rc;
}

int ir_eval_index(const struct ir_prog *p, double index, double *scratch, double *out)
{
	return eval_fold(p, &index, NULL, NULL, NULL, NULL, NULL, scratch, out);
}

int ir_eval_instance(const struct ir_prog *p, double index, const double *data, double *scratch, double *out)
{
	return eval_fold(p, &index, data, NULL, NULL, NULL, NULL, scratch, out);
}

/* Dead-code elimination: keep the instructions the outputs need, in
 * order, renumbered.  Differentiation leaves unused adjoints behind, and
 * the VM runs every instruction it is given. */
/* A program nothing will read again (an energy folded into operators,
 * lower_energy.c): its arrays go back to the arena where they have chunks
 * of their own (the outputs of a model-sized program, 4 bytes per dof)
 * and it is left empty, as made by ir_prog_new, so that a caller still
 * holding it emits into fresh arrays. */
void ir_prog_release(struct ir_prog *p)
{
	struct ir_prog_ext *x = (struct ir_prog_ext *)p;
	if (!p)
		return;
	arena_release(x->arena, p->out);
	arena_release(x->arena, p->insn);
	arena_release(x->arena, x->hash);
	struct arena *a = x->arena;
	memset(x, 0, sizeof *x);
	x->arena = a;
}

void ir_prog_compact(struct ir_prog *p)
{
	struct ir_prog_ext *x = (struct ir_prog_ext *)p;
	if (p->n == 0)
		return;
	int *map = arena_alloc(x->arena, sizeof(int) * (size_t)p->n);
	char *live = arena_alloc(x->arena, (size_t)p->n);
	for (int j = 0; j < p->nout; j++)
		live[p->out[j]] = 1;
	for (int i = p->n - 1; i >= 0; i--) {
		if (!live[i])
			continue;
		const struct ir_insn *in = &p->insn[i];
		int ar = ir_op_arity[in->op];
		if (in->op == IR_DOF || in->op == IR_VEL || in->op == IR_ACC || in->op == IR_INT ||
		    in->op == IR_INTVEL || in->op == IR_CONST || in->op == IR_TIME)
			ar = 0;
		if (ar >= 1)
			live[in->a] = 1;
		if (ar >= 2)
			live[in->b] = 1;
		if (ar >= 3)
			live[in->c] = 1;
	}
	int n = 0;
	p->uses = 0;
	for (int i = 0; i < p->n; i++) {
		if (!live[i])
			continue;
		struct ir_insn in = p->insn[i];
		int ar = ir_op_arity[in.op];
		if (in.op == IR_DOF || in.op == IR_VEL || in.op == IR_ACC || in.op == IR_INT ||
		    in.op == IR_INTVEL || in.op == IR_CONST || in.op == IR_TIME)
			ar = 0;
		if (ar >= 1)
			in.a = map[in.a];
		if (ar >= 2)
			in.b = map[in.b];
		if (ar >= 3)
			in.c = map[in.c];
		p->uses |= input_use(in.op);
		map[i] = n;
		p->insn[n++] = in;
	}
	p->n = n;
	for (int j = 0; j < p->nout; j++)
		p->out[j] = map[p->out[j]];
	x->hcap = 0;   /* the CSE table is rebuilt if anything is emitted again */
	x->hash = NULL;
	if (x->cc)
		memset(x->cc->reg, 0, sizeof x->cc->reg);
}

struct ir_prog *ir_prog_copy(struct arena *a, const struct ir_prog *p)
{
	struct ir_prog *q = ir_prog_new(a);
	q->insn = arena_alloc(a, sizeof *q->insn * (size_t)(p->n + 1));
	memcpy(q->insn, p->insn, sizeof *q->insn * (size_t)p->n);
	q->n = q->cap = p->n;
	for (int j = 0; j < p->nout; j++)
		ir_prog_add_output(q, p->out[j]);
	q->uses = p->uses;
	return q;
}

/* ---- printing (--dump-ir) ---- */

/* %.15g, or %.16g or %.17g when needed to read back as k. */
static void print_num(FILE *f, double k)
{
	char buf[FMT_BUFSZ];
	fmt_g(buf, k, 15);
	fputs(buf, f);
}

void ir_dump_prog(FILE *f, const struct ir_prog *p, const char *indent)
{
	for (int i = 0; i < p->n; i++) {
		const struct ir_insn *in = &p->insn[i];
		fprintf(f, "%sr%-4d = %s", indent, i, ir_op_name[in->op]);
		switch (in->op) {
		case IR_CONST:
			fputc(' ', f);
			print_num(f, in->k);
			break;
		case IR_TIME: case IR_INDEX:
			break;
		case IR_DOF: case IR_VEL: case IR_ACC: case IR_INT: case IR_INTVEL: case IR_DATA:
			fprintf(f, "[%d]", in->a);
			break;
		case IR_TABLE:
			fprintf(f, " #%d r%d", in->c, in->a);
			break;
		default:
			for (int j = 0; j < ir_op_arity[in->op]; j++)
				fprintf(f, " r%d", j == 0 ? in->a : j == 1 ? in->b : in->c);
		}
		if (in->loc.file)
			fprintf(f, "    ; %s:%d:%d", in->loc.file, in->loc.line, in->loc.col);
		fputc('\n', f);
	}
	fprintf(f, "%sout", indent);
	for (int j = 0; j < p->nout; j++)
		fprintf(f, " r%d", p->out[j]);
	fputc('\n', f);
}

static void dump_matrix(FILE *f, const char *name, int n, const double *a)
{
	if (!a) {
		fprintf(f, "  %s: none\n", name);
		return;
	}
	if (n > IR_DENSE_MAX)
		return;
	fprintf(f, "  %s: %d x %d\n", name, n, n);
	int show = n <= 12 ? n : 12;
	for (int i = 0; i < show; i++) {
		fputs("    [", f);
		for (int j = 0; j < show; j++) {
			if (j)
				fputs(", ", f);
			print_num(f, a[i + (size_t)j * (size_t)n]);
		}
		fputs(n > show ? ", ...]\n" : "]\n", f);
	}
	if (n > show)
		fputs("    ...\n", f);
}

const struct ir_family_info ir_family_info[IR_NFAMILY] = {
#define FAMILY(e, name, order, caps, summary, np, p1, d1, p2, d2, p3, d3, p4, d4) \
	{ name, order, caps, summary, np, { p1, p2, p3, p4 }, { d1, d2, d3, d4 } },
#include "ir_families.def"
#undef FAMILY
};

int ir_family_find(const char *name)
{
	for (int i = 0; i < IR_NFAMILY; i++)
		if (strcmp(ir_family_info[i].name, name) == 0)
			return i;
	return -1;
}

static void dump_run_plan(FILE *f, const struct ir_run *r);

/* An energy with its derived programs: value, gradient, Hessian pattern. */
static void dump_kernels(FILE *f, const struct ir_kernel *kv, int nk, int constraint)
{
	for (int q = 0; q < nk; q++) {
		const struct ir_kernel *k = &kv[q];
		fprintf(f, "    kernel over i = %ld..%ld (%s:%d:%d), %s%s; slots:", k->lo, k->hi, k->loc.file,
		        k->loc.line, k->loc.col, k->quadratic ? "quadratic" : "nonlinear",
		        k->nonsmooth ? ", nonsmooth" : "");
		for (int s = 0; s < k->nslot; s++)
			fprintf(f, " %s[%ld%+ld i]", ir_op_name[k->kind[s]], k->base[s], k->stride[s]);
		if (k->ndata > 0)
			fprintf(f, "; %d data per instance", k->ndata);
		if (constraint && k->rstride > 0)
			fprintf(f, "; row %d%+d k", k->term + 1, k->rstride);
		else if (constraint)
			fprintf(f, "; into row %d", k->term + 1);
		fprintf(f, "; outputs value, %d gradient entries, %d Hessian entries:", k->nslot, k->nnz);
		for (int e = 0; e < k->nnz; e++)
			fprintf(f, " (%d,%d)", k->row[e] + 1, k->col[e] + 1);
		fputc('\n', f);
		ir_dump_prog(f, k->prog, "      ");
	}
}

static void dump_func(FILE *f, const char *what, const struct ir_func *fn)
{
	fprintf(f, "  %s: %s%s; outputs value, %d gradient entries, %d Hessian entries:",
	        what, fn->quadratic ? "quadratic" : "nonlinear", fn->nonsmooth ? ", nonsmooth" : "",
	        fn->nvar, fn->nnz);
	for (int k = 0; k < fn->nnz && k < 32; k++)
		fprintf(f, " (%d,%d)", fn->row[k] + 1, fn->col[k] + 1);
	fputs(fn->nnz > 32 ? " ...\n" : "\n", f);
	ir_dump_prog(f, fn->prog, "    ");
	dump_kernels(f, fn->kernel, fn->nkernel, 0);
}

/* The counting sort of ir_model_pattern_nnz: pass 0 counts the nonzero
 * entries of each column, pass 1 puts their rows in place. */
struct bucket {
	int pass;
	int *first, *row;
};

static void bucket_entry(void *ctx, int i, int j, double v)
{
	struct bucket *b = ctx;
	if (v == 0)
		return;
	if (b->pass)
		b->row[b->first[j + 1]++] = i;
	else
		b->first[j + 2]++;
}

long ir_model_pattern_nnz(const struct ir_model *m)
{
	const struct ir_matrix *ops[3] = { &m->mass, &m->damping, &m->stiffness };
	long long n = m->ndof;
	size_t cnt = 0;
	for (int o = 0; o < 3; o++) {
		if (ops[o]->a) {
			for (long long k = 0; k < n * n; k++)
				cnt += ops[o]->a[k] != 0;
		} else {
			cnt += (size_t)ir_matrix_count(ops[o]);
		}
	}
	/* operators in compressed-column order (assembled on a mesh): their
	 * columns merged, nothing allocated */
	int all_csc = 1;
	for (int o = 0; o < 3; o++)
		all_csc &= !ops[o]->a && ops[o]->nblock == 0 && (ops[o]->nnz == 0 || ops[o]->csc);
	if (all_csc) {
		long d = 0;
		int at[3] = { 0, 0, 0 };
		for (int j = 0; j < n; j++)
			for (;;) {
				/* the least row of column j not yet counted */
				int r = INT_MAX;
				for (int o = 0; o < 3; o++) {
					const struct ir_matrix *a = ops[o];
					while (at[o] < a->nnz && a->col[at[o]] == j && a->val[at[o]] == 0)
						at[o]++;
					if (at[o] < a->nnz && a->col[at[o]] == j && a->row[at[o]] < r)
						r = a->row[at[o]];
				}
				if (r == INT_MAX)
					break;
				d++;
				for (int o = 0; o < 3; o++)
					if (at[o] < ops[o]->nnz && ops[o]->col[at[o]] == j && ops[o]->row[at[o]] == r)
						at[o]++;
			}
		return d;
	}
	/* rows bucketed by column (a counting sort), then the distinct ones
	 * of each column counted with a mark per row: O(n + entries) */
	int *first = mem_calloc((size_t)n + 2, sizeof *first);
	int *mark = mem_alloc(sizeof *mark * ((size_t)n + 1));
	int *row = mem_alloc(sizeof *row * (cnt + 1));
	long d = -1;
	if (!first || !mark || !row || cnt > INT_MAX)
		goto out;
	for (int pass = 0; pass < 2; pass++)
		for (int o = 0; o < 3; o++) {
			const struct ir_matrix *a = ops[o];
			if (a->a) {
				for (long long j = 0; j < n; j++)
					for (long long i = 0; i < n; i++)
						if (a->a[i + j * n] != 0) {
							if (pass)
								row[first[j + 1]++] = (int)i;
							else
								first[j + 2]++;
						}
			} else {
				struct bucket b = { pass, first, row };
				ir_matrix_each(a, bucket_entry, &b);
			}
			if (!pass && o == 2)
				for (long long j = 0; j < n; j++)
					first[j + 2] += first[j + 1];
		}
	/* first[j] .. first[j + 1] - 1 now hold column j's rows */
	d = 0;
	for (long long i = 0; i < n; i++)
		mark[i] = -1;
	for (long long j = 0; j < n; j++)
		for (int k = first[j]; k < first[j + 1]; k++)
			if (mark[row[k]] != (int)j) {
				mark[row[k]] = (int)j;
				d++;
			}
out:
	free(first);
	free(mark);
	free(row);
	return d;
}

static void dump_operator(FILE *f, const char *name, int n, const struct ir_matrix *a)
{
	if (!a->a && ir_matrix_has_entries(a) && a->part)
		fprintf(f, "  %s: %d x %d, %ld entries stored (sparse): columns %d to %d, this process's rows "
		        "(each process assembles its own)\n", name, n, n, ir_matrix_count(a), a->c0 + 1, a->c1);
	else if (!a->a && ir_matrix_has_entries(a))
		fprintf(f, "  %s: %d x %d, %ld entries stored (sparse)\n", name, n, n, ir_matrix_count(a));
	else
		dump_matrix(f, name, n, a->a);
}

static void dump_model(FILE *f, const struct ir_model *m, const struct ir_run *run);

void ir_dump_run(FILE *f, const struct ir_run *r)
{
	const struct ir_model *m = r->model;
	dump_model(f, m, r);
	dump_run_plan(f, r);
}

void ir_dump_model(FILE *f, const struct ir_model *m)
{
	dump_model(f, m, NULL);
}

/* The mass is diagonal (a lumped one), held as entries. */
static void off_diagonal(void *ctx, int i, int j, double v)
{
	*(int *)ctx |= i != j && v != 0;
}

static int diagonal_mass(const struct ir_model *m)
{
	if (m->mass.a || !ir_matrix_has_entries(&m->mass))
		return 0;
	int off = 0;
	ir_matrix_each(&m->mass, off_diagonal, &off);
	return !off;
}

void ir_dump_storage(FILE *f, const struct ir_model *m, const struct ir_run *r)
{
	if (!m->storage)
		return;
	/* auto: the matrix layer's rule from the pattern (la_mat_triplets'),
	 * the step matrix then factored as la_backend_choose decides; any
	 * other option is what the run takes, whatever the pattern */
	static const char *const how[] = {
		[IR_SOLVER_DENSE] = "dense (LAPACK)",
		[IR_SOLVER_BANDED] = "banded (LAPACK)",
		[IR_SOLVER_SPARSE] = "sparse (compressed columns; CHOLMOD, or UMFPACK when not symmetric positive "
		                     "definite)",
		[IR_SOLVER_DIRECT] = "sparse (compressed columns; PETSc's direct solver)",
		[IR_SOLVER_ITERATIVE] = "sparse (compressed columns; PETSc's iterative solver)",
	};
	static const char *const name[] = { "auto", "dense", "banded", "sparse", "direct", "iterative" };
	const char *what = !r || r->solver == IR_SOLVER_AUTO ? m->storage : how[r->solver];
	if (r)
		fprintf(f, "  storage (this run, solver = %s): %s; %ld nonzeros in the pattern of M, C and K\n",
		        name[r->solver], what, ir_model_pattern_nnz(m));
	else
		fprintf(f, "  storage (what solver = auto picks): %s; %ld nonzeros in the pattern of M, C and K\n", what,
		        ir_model_pattern_nnz(m));
	/* central_difference on the linear path: the step matrix is
	 * M + tau/2 C, K is not in it (runtime/step_matrix.c) */
	if (r && r->scheme.family == IR_CENTRAL_DIFFERENCE && !ir_model_nonlinear(m) &&
	    m->damping_kind == IR_DAMP_NONE && diagonal_mass(m))
		fputs("  step matrix: the diagonal mass (central_difference, lumped, undamped): K is not factored, a "
		      "step divides by the diagonal\n", f);
}

static void dump_model(FILE *f, const struct ir_model *m, const struct ir_run *run)
{
	fprintf(f, "model %s: %d dof\n", m->name, m->ndof);
	for (int i = 0; i < m->nfe; i++) {
		const struct ir_fe_info *fi = &m->fe[i];
		fprintf(f, "  %s %s on %s (%ld %s cells, %ld nodes): %s", fi->internal ? "internal" : "field", fi->field,
		        fi->mesh, fi->ncells, fi->cell, fi->nnodes, fi->element);
		if (fi->ncomp > 1)
			fprintf(f, "^%d", fi->ncomp);
		fprintf(f, ", %ld %s, %ld fixed%s\n", fi->nfree, fi->internal ? "internal variables" : "unknowns",
		        fi->ndofs - fi->nfree,
		        fi->node_order == 2 ? ", numbered by the parts of PETSc's partition of the nodes"
		        : fi->node_order == 1 ? ", numbered in reverse Cuthill-McKee order of the nodes" : "");
	}
	char nm[IR_NAME_SIZE];
	fputs("  dofs:", f);
	for (int i = 0; i < m->ndof; i++)
		fprintf(f, " %s", ir_dof_name(m, i, nm, sizeof nm));
	fputc('\n', f);
	if (m->mass.a)
		dump_matrix(f, "mass", m->ndof, m->mass.a);
	else
		fprintf(f, "  mass: %d x %d, %ld entries stored (sparse)\n", m->ndof, m->ndof, ir_matrix_count(&m->mass));
	if (m->damping_kind == IR_DAMP_MODAL) {
		fputs("  damping: modal xi =", f);
		for (int k = 0; k < m->nmodal_xi; k++) {
			fputc(' ', f);
			print_num(f, m->modal_xi[k]);
		}
		fputc('\n', f);
	} else {
		dump_operator(f, "damping", m->ndof, &m->damping);
	}
	dump_operator(f, "stiffness", m->ndof, &m->stiffness);
	fprintf(f, "  bandwidth: kl = %d, ku = %d\n", m->kl, m->ku);
	ir_dump_storage(f, m, run);
	if (m->force) {
		fputs("  force:\n", f);
		ir_dump_prog(f, m->force, "    ");
	}	dump_kernels(f, m->fkernel, m->nfkernel, 1);

	if (m->support) {
		fputs("  support acceleration along [", f);
		for (int i = 0; i < m->ndof; i++) {
			if (i)
				fputs(", ", f);
			print_num(f, m->support_dir[i]);
		}
		fputs("]:\n", f);
		ir_dump_prog(f, m->support, "    ");
	}
	if (m->nint) {
		fputs("  internal:", f);
		for (int j = 0; j < m->nint; j++)
			fprintf(f, " %s", ir_intvar_name(m, j, nm, sizeof nm));
		fputc('\n', f);
	}
	if (m->potential)
		dump_func(f, "potential", m->potential);
	if (m->dissipation)
		dump_func(f, "dissipation", m->dissipation);
	for (int j = 0; j < m->nint; j++)
		if (m->sigma[j] > 0) {
			fputs("  rate-independent dissipation: ", f);
			print_num(f, m->sigma[j]);
			fprintf(f, " |%s'|\n", ir_intvar_name(m, j, nm, sizeof nm));
		}
	if (m->kinetic) {
		fprintf(f, "  kinetic (mass depending on u): outputs T, dT/du, %d entries of M(u)\n", m->kinetic->nnz);
		ir_dump_prog(f, m->kinetic->prog, "    ");
	}
	if (m->nconstraint) {
		fprintf(f, "  constraints: %d%s; outputs c, %d gradient entries, %d Hessian entries%s:",
		        m->nconstraint, m->constraint_moving ? ", moving" : "", m->ngrad, m->nhess,
		        m->constraint_moving ? ", dc/dt, d2c/dt2, dG/dt" : "");
		for (int q = 0; q < m->ngrad && q < 32; q++)
			fprintf(f, " G(%d,%d)", m->gk[q] + 1, m->gi[q] + 1);
		for (int q = 0; q < m->nhess && q < 32; q++)
			fprintf(f, " H%d(%d,%d)", m->hk[q] + 1, m->hi[q] + 1, m->hj[q] + 1);
		fputs(m->ngrad > 32 || m->nhess > 32 ? " ...\n" : "\n", f);
		ir_dump_prog(f, m->constraint, "    ");
		dump_kernels(f, m->ckernel, m->nckernel, 1);
	}
	if (m->contact.n) {
		const struct ir_gaps *g = &m->contact;
		fprintf(f, "  contacts: %d, restitution", g->n);
		for (int k = 0; k < g->n; k++) {
			fputc(' ', f);
			print_num(f, g->restitution[k]);
		}
		for (int k = 0; k < g->n && g->friction; k++) {
			fputs(k ? " " : ", friction ", f);
			print_num(f, g->friction[k]);
		}
		fprintf(f, "; outputs phi, %d gradient entries, %d Hessian entries\n", g->ngrad, g->nhess);
		ir_dump_prog(f, g->prog, "    ");
		dump_kernels(f, g->kernel, g->nkernel, 1);
	}
	if (m->init_equilibrium)
		fputs("  init equilibrium\n", f);
	for (int i = 0; i < m->ntable; i++)
		fprintf(f, "  table #%d: %s, %d rows\n", i, m->table[i].path, m->table[i].n);
	fputs("  init u =", f);
	for (int i = 0; i < m->ndof; i++) {
		fputc(' ', f);
		print_num(f, m->u0[i]);
	}
	fputs("\n  init v =", f);
	for (int i = 0; i < m->ndof; i++) {
		fputc(' ', f);
		print_num(f, m->v0[i]);
	}
}

static void dump_run_plan(FILE *f, const struct ir_run *r)
{
	const struct ir_model *m = r->model;
	const struct ir_family_info *fi = &ir_family_info[r->scheme.family];
	fprintf(f, "\nrun %s with %s (%s", m->name, r->scheme.name, fi->name);
	for (int i = 0; i < fi->nparam; i++) {
		fprintf(f, "%s%s = ", i ? ", " : " ", fi->param[i]);
		print_num(f, r->scheme.p[i]);
	}
	fputs(")\n  from ", f);
	print_num(f, r->t0);
	fputs(" to ", f);
	print_num(f, r->t1);
	fputs(" step ", f);
	print_num(f, r->dt);
	fprintf(f, " (%d step%s), solver %s\n", r->nstep, r->nstep == 1 ? "" : "s",
	        r->solver == IR_SOLVER_BANDED ? "banded" : r->solver == IR_SOLVER_SPARSE ? "sparse"
	        : r->solver == IR_SOLVER_AUTO ? "auto" : r->solver == IR_SOLVER_DIRECT ? "direct"
	        : r->solver == IR_SOLVER_ITERATIVE ? "iterative" : "dense");
	for (int o = 0; o < r->noutput; o++) {
		const struct ir_output *out = &r->output[o];
		fprintf(f, "  record to %s every %d:", out->path ? out->path : "(memory)", out->every);
		for (int j = 0; j < out->nrecord; j++)
			fprintf(f, " %s", out->record[j].name);
		fputc('\n', f);
		for (int j = 0; j < out->nrecord; j++) {
			if (out->record[j].kind == IR_REC_EXPR) {
				fprintf(f, "  record %s:\n", out->record[j].name);
				ir_dump_prog(f, out->record[j].expr, "    ");
			}
		}
	}
	/* record field U to "F.pvd": what each frame writes */
	for (int o = 0; o < r->nfield_output; o++) {
		const struct ir_field_output *fo = &r->field_output[o];
		fprintf(f, "  record field %s to %s every %d: %ld nodes%s, %d component%s\n", fo->name, fo->path,
		        fo->every > 0 ? fo->every : 1, fo->nnode, fo->space ? " (the space's, quadratic cells)" : "",
		        fo->ncomp, fo->ncomp == 1 ? "" : "s");
	}
}
