/* mesh_gmsh.c — the reader of Gmsh's ASCII mesh files, formats 4.1 and
 * 2.2 (Gmsh reference manual, §10 "Gmsh file formats", "MSH file
 * format"), into a struct mesh (mesh.h).
 *
 * The file is read whole, then line by line: every record of the formats
 * used here is one line, so that every mistake is reported with its line
 * ("file:12: error: ...").  Sections dyn does not need ($NodeData,
 * $Periodic, $PartitionedEntities, ...) are skipped up to their $End line.
 * As for tables (table.c), only regular files are read, within a size
 * limit, numbers in the C locale, and no message quotes the file's text
 * except the names of physical groups, escaped.
 *
 * What becomes of the file:
 * - nodes: every node of $Nodes, in the file's order (tags may have gaps:
 *   they are looked up by binary search in a sorted copy);
 * - cells: the elements of the highest dimension present, all of one
 *   linear type; given clockwise (Gmsh orients a surface by its own
 *   normal), they are reordered (mesh_orient);
 * - regions: the physical groups; in format 2.2 an element's first tag
 *   is its physical group, in 4.1 its entity's physical tags (from
 *   $Entities) are.
 */
#define _POSIX_C_SOURCE 200809L

#include "mesh.h"
#include "mesh_impl.h"
#include "outfile.h"
#include "mem.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A mesh file is at most 2 GiB (a tetrahedral mesh of 10^7 nodes is about
 * 1.5 GB of text). */
#define GMSH_MAX_BYTES ((long long)2 << 30)
enum { MAXTOK = 64 };  /* numbers on a line we read: a hexahedron's 8
                        * nodes and tags, entity bounds */

/* The reader: the text, the current line and its number. */
struct rd {
	char *buf, *pos, *end;
	long line;            /* number of the line last read */
	const char *name;     /* the file's name, escaped */
	char *err;
	size_t errlen;
	char *tok[MAXTOK];    /* the tokens of the last line split */
	int ntok;
};

/* An element read: its Gmsh type, dimension, nodes (tags), line and
 * physical groups (indices into the group table). */
struct elem {
	int type, dim, nn;
	long line;
	long nodes;           /* offset into the node-tag pool */
	long phys, nphys;     /* offset and count into the group pool */
};

struct group {            /* a physical group */
	int dim, tag;
	char *name;           /* from $PhysicalNames, or NULL */
	long line;            /* of its name */
};

struct entity {           /* an entity of $Entities (4.1) */
	int dim, tag;
	long phys, nphys;     /* its physical tags, in the pool */
};

struct gm {
	struct rd r;
	double version;
	long nnodes;
	long *ntag;           /* nnodes tags */
	double *nx;           /* nnodes × 3 */
	long *nline;          /* line of each node */
	long nelem, celem;
	struct elem *elem;
	long npool, cpool;
	long *pool;           /* node tags of the elements */
	long nphys, cphys;
	long *phys;           /* physical tags (4.1: entities'; 2.2: elements') */
	int ngroup;
	struct group *group;
	long nent, cent;
	struct entity *ent;
	int have_nodes, have_elements, have_entities, have_names;
	long names_line;
};

static int fail(struct rd *r, const char *fmt, ...) MESH_PRINTF(2, 3);
static int fail(struct rd *r, const char *fmt, ...)
{
	va_list ap;
	int k;

	/* dyn reports it as "script:line:col: error: 'file' line n: ...", the
	 * convention of mtx() and table(): one "error:", the file quoted */
	k = snprintf(r->err, r->errlen, "'%s' line %ld: ", r->name, r->line);
	if (k >= 0 && (size_t)k < r->errlen) {
		va_start(ap, fmt);
		vsnprintf(r->err + k, r->errlen - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* The next line, without its end (\n or \r\n), or NULL at the end of the
 * text. */
static char *next_line(struct rd *r)
{
	char *s = r->pos, *e;

	if (s >= r->end)
		return NULL;
	e = memchr(s, '\n', (size_t)(r->end - s));
	if (!e)
		e = r->end;
	r->pos = e < r->end ? e + 1 : e;
	*e = '\0';
	if (e > s && e[-1] == '\r')
		e[-1] = '\0';
	r->line++;
	return s;
}

/* Split line s into blank-separated tokens (at most MAXTOK). */
static int split(struct rd *r, char *s)
{
	r->ntok = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return r->ntok;
		if (r->ntok == MAXTOK)
			return fail(r, "more than %d numbers on a line", MAXTOK);
		r->tok[r->ntok++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
}

static int tok_long(struct rd *r, int i, const char *what, long *v)
{
	char *e;

	if (i >= r->ntok)
		return fail(r, "%s is missing", what);
	errno = 0;
	*v = strtol(r->tok[i], &e, 10);
	if (*e || e == r->tok[i] || errno)
		return fail(r, "%s is not an integer", what);
	return 0;
}

static int tok_double(struct rd *r, int i, const char *what, double *v)
{
	char *e;

	if (i >= r->ntok)
		return fail(r, "%s is missing", what);
	*v = strtod(r->tok[i], &e);
	if (*e || e == r->tok[i])
		return fail(r, "%s is not a number", what);
	if (!isfinite(*v))
		return fail(r, "%s is not finite", what);
	return 0;
}

/* The next line split, which must hold exactly n tokens (n < 0: at least
 * −n); what names the record for messages. */
static int record(struct rd *r, int n, const char *what)
{
	char *s = next_line(r);

	if (!s)
		return fail(r, "the file ends inside %s", what);
	if (s[0] == '$')
		return fail(r, "%s is missing (found a section line)", what);
	if (split(r, s) < 0)
		return -1;
	if (n >= 0 && r->ntok != n)
		return fail(r, "%s has %d numbers, expected %d", what, r->ntok, n);
	if (n < 0 && r->ntok < -n)
		return fail(r, "%s has %d numbers, expected at least %d", what, r->ntok, -n);
	return 0;
}

static int count(struct rd *r, int i, const char *what, long *v)
{
	if (tok_long(r, i, what, v))
		return -1;
	/* Every item takes at least two bytes of text: a count beyond is
	 * a mistake, not a reason to allocate. */
	if (*v < 0 || *v > (r->end - r->buf) / 2)
		return fail(r, "%s %ld is out of range", what, *v);
	return 0;
}

/* The line closing section sec, which must come now. */
static int section_end(struct rd *r, const char *sec)
{
	char *s = next_line(r);

	if (!s)
		return fail(r, "the file ends before $End%s", sec);
	if (s[0] != '$' || strncmp(s + 1, "End", 3) || strcmp(s + 4, sec))
		return fail(r, "expected $End%s", sec);
	return 0;
}

static int grow(void **p, long *cap, long need, size_t size)
{
	long c = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	q = mem_realloc(*p, (size_t)c * size);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

static int oom(struct rd *r)
{
	return fail(r, "out of memory");
}

/* ---- Element types ---- */

/* The linear types dyn reads: dimension and number of nodes, by Gmsh
 * type number (1 line, 2 triangle, 3 quadrangle, 4 tetrahedron,
 * 5 hexahedron, 15 point). */
static int type_info(int type, int *dim, int *nn)
{
	switch (type) {
	case 1: *dim = 1; *nn = 2; return 0;
	case 2: *dim = 2; *nn = 3; return 0;
	case 3: *dim = 2; *nn = 4; return 0;
	case 4: *dim = 3; *nn = 4; return 0;
	case 5: *dim = 3; *nn = 8; return 0;
	case 15: *dim = 0; *nn = 1; return 0;
	}
	return -1;
}

static const char *type_name(int type)
{
	switch (type) {
	case 1: return "line";
	case 2: return "triangle";
	case 3: return "quadrangle";
	case 4: return "tetrahedron";
	case 5: return "hexahedron";
	case 6: return "prism";
	case 7: return "pyramid";
	case 8: return "3-node second-order line";
	case 9: return "6-node second-order triangle";
	case 10: return "9-node second-order quadrangle";
	case 11: return "10-node second-order tetrahedron";
	case 12: return "27-node second-order hexahedron";
	case 13: return "18-node second-order prism";
	case 14: return "14-node second-order pyramid";
	case 15: return "point";   /* read, as a region of nodes: named in messages */
	case 16: return "8-node second-order quadrangle";
	case 17: return "20-node second-order hexahedron";
	case 18: return "15-node second-order prism";
	case 19: return "13-node second-order pyramid";
	}
	return NULL;
}

static int refuse_type(struct rd *r, long type)
{
	const char *n = type >= 0 && type < 1000 ? type_name((int)type) : NULL;

	if (n)
		return fail(r, "element type %ld (%s) is not supported: dyn reads linear "
		            "lines, triangles, quadrangles, tetrahedra and hexahedra "
		            "(Mesh.ElementOrder = 1, no prisms or pyramids)", type, n);
	return fail(r, "element type %ld is not supported: dyn reads linear lines, "
	            "triangles, quadrangles, tetrahedra and hexahedra", type);
}

/* Record an element; its physical tags are added by the caller. */
static struct elem *add_elem(struct gm *g, int type, long line)
{
	struct elem *e;
	int dim, nn;

	if (type_info(type, &dim, &nn)) {
		refuse_type(&g->r, type);
		return NULL;
	}
	if (grow((void **)&g->elem, &g->celem, g->nelem + 1, sizeof *g->elem) ||
	    grow((void **)&g->pool, &g->cpool, g->npool + nn, sizeof *g->pool)) {
		oom(&g->r);
		return NULL;
	}
	e = &g->elem[g->nelem++];
	e->type = type;
	e->dim = dim;
	e->nn = nn;
	e->line = line;
	e->nodes = g->npool;
	g->npool += nn;
	e->phys = g->nphys;
	e->nphys = 0;
	return e;
}

static int add_phys(struct gm *g, long tag)
{
	if (grow((void **)&g->phys, &g->cphys, g->nphys + 1, sizeof *g->phys))
		return oom(&g->r);
	g->phys[g->nphys++] = tag;
	return 0;
}

/* ---- Sections ---- */

static int read_format(struct gm *g)
{
	struct rd *r = &g->r;
	long type, size;

	if (record(r, 3, "the $MeshFormat line") ||
	    tok_double(r, 0, "the version", &g->version) ||
	    tok_long(r, 1, "the file type", &type) ||
	    tok_long(r, 2, "the data size", &size))
		return -1;
	if (type != 0)
		return fail(r, "binary Gmsh files are not read: save the mesh as ASCII "
		            "(gmsh -format msh41 without -bin, or Mesh.Binary = 0)");
	if (g->version != 4.1 && g->version != 2.2)
		return fail(r, "Gmsh format %g is not supported: dyn reads formats 4.1 "
		            "and 2.2 (gmsh -format msh41 or msh22)", g->version);
	return section_end(r, "MeshFormat");
}

static int read_names(struct gm *g)
{
	struct rd *r = &g->r;
	long n, dim, tag;
	char *s, *q, *e;

	if (g->have_names)
		return fail(r, "a second $PhysicalNames section");
	g->have_names = 1;
	g->names_line = r->line;
	if (record(r, 1, "the number of physical names") || count(r, 0, "the number of physical names", &n))
		return -1;
	g->group = mem_calloc((size_t)(n ? n : 1), sizeof *g->group);
	if (!g->group)
		return oom(r);
	for (long i = 0; i < n; i++) {
		struct group *gr = &g->group[g->ngroup];
		s = next_line(r);
		if (!s || s[0] == '$')
			return fail(r, "the file ends inside $PhysicalNames (%ld of %ld names)", i, n);
		errno = 0;
		dim = strtol(s, &e, 10);
		tag = strtol(e, &q, 10);
		if (e == s || q == e || errno || dim < 0 || dim > 3 || tag <= 0 || tag > INT32_MAX)
			return fail(r, "a physical name is: dimension (0 to 3), tag (> 0), \"name\"");
		while (*q == ' ' || *q == '\t')
			q++;
		e = q[0] == '"' ? strchr(q + 1, '"') : NULL;
		if (!e || e == q + 1 || e[1 + strspn(e + 1, " \t")] != '\0')
			return fail(r, "a physical name is: dimension (0 to 3), tag (> 0), \"name\"");
		for (int j = 0; j < g->ngroup; j++) {
			if (g->group[j].dim == dim && g->group[j].tag == tag)
				return fail(r, "physical group %ld of dimension %ld is named twice", tag, dim);
			if ((size_t)(e - q - 1) == strlen(g->group[j].name) &&
			    !strncmp(g->group[j].name, q + 1, (size_t)(e - q - 1)))
				return fail(r, "two physical groups have the same name (lines %ld and %ld)",
				            g->group[j].line, r->line);
		}
		gr->name = mem_alloc((size_t)(e - q));
		if (!gr->name)
			return oom(r);
		memcpy(gr->name, q + 1, (size_t)(e - q - 1));
		gr->name[e - q - 1] = '\0';
		gr->dim = (int)dim;
		gr->tag = (int)tag;
		gr->line = r->line;
		g->ngroup++;
	}
	return section_end(r, "PhysicalNames");
}

static int read_entities(struct gm *g)
{
	struct rd *r = &g->r;
	long n[4], k;

	g->have_entities = 1;
	if (record(r, 4, "the numbers of entities"))
		return -1;
	for (int d = 0; d < 4; d++)
		if (count(r, d, "the number of entities", &n[d]))
			return -1;
	for (int d = 0; d < 4; d++)
		for (long i = 0; i < n[d]; i++) {
			struct entity *en;
			long tag, np;
			double x;
			int first = d == 0 ? 4 : 7;  /* tag, X Y Z or the box */
			if (record(r, -(first + 1), "an entity"))
				return -1;
			if (tok_long(r, 0, "the entity tag", &tag))
				return -1;
			if (tag <= 0 || tag > INT32_MAX)
				return fail(r, "entity tag %ld is out of range (1 to %d)", tag, INT32_MAX);
			for (int j = 1; j < first; j++)
				if (tok_double(r, j, "an entity's coordinate", &x))
					return -1;
			if (tok_long(r, first, "the number of physical tags", &np))
				return -1;
			if (np < 0 || np > r->ntok - first - 1)
				return fail(r, "the entity lists %ld physical tags, more than the line holds", np);
			if (grow((void **)&g->ent, &g->cent, g->nent + 1, sizeof *g->ent))
				return oom(r);
			en = &g->ent[g->nent++];
			en->dim = d;
			en->tag = (int)tag;
			en->phys = g->nphys;
			en->nphys = np;
			for (long j = 0; j < np; j++) {
				if (tok_long(r, first + 1 + (int)j, "a physical tag", &k))
					return -1;
				/* Gmsh writes a negative tag for a group of the
				 * entity with reversed orientation; a tag is an int
				 * (as $PhysicalNames's, read_names) */
				if (k == 0 || k < -(long)INT32_MAX || k > INT32_MAX)
					return fail(r, "physical tag %ld is out of range (1 to %d, or its negative)", k,
					            INT32_MAX);
				if (add_phys(g, labs(k)))
					return -1;
			}
			if (d > 0) {
				long nb, at = first + 1 + np;
				if (tok_long(r, (int)at, "the number of bounding entities", &nb))
					return -1;
				if (nb != r->ntok - at - 1)
					return fail(r, "the entity lists %ld bounding entities, the line holds %ld",
					            nb, (long)r->ntok - at - 1);
			} else if (r->ntok != first + 1 + np) {
				return fail(r, "the point entity has %d numbers, expected %ld",
				            r->ntok, first + 1 + np);
			}
		}
	return section_end(r, "Entities");
}

static int add_node(struct gm *g, long tag, const double *x, long line, long *cap)
{
	if (grow((void **)&g->ntag, cap, g->nnodes + 1, sizeof *g->ntag))
		return oom(&g->r);
	/* The parallel arrays follow ntag's capacity. */
	{
		double *nx = mem_realloc(g->nx, (size_t)*cap * 3 * sizeof *nx);
		long *nl;
		if (!nx)
			return oom(&g->r);
		g->nx = nx;
		nl = mem_realloc(g->nline, (size_t)*cap * sizeof *nl);
		if (!nl)
			return oom(&g->r);
		g->nline = nl;
	}
	if (tag <= 0)
		return fail(&g->r, "node tag %ld is not positive", tag);
	if (g->nnodes >= MESH_MAX_NODES)
		return fail(&g->r, "more than %d nodes", MESH_MAX_NODES);
	g->ntag[g->nnodes] = tag;
	memcpy(g->nx + 3 * g->nnodes, x, 3 * sizeof *x);
	g->nline[g->nnodes++] = line;
	return 0;
}

static int read_nodes(struct gm *g)
{
	struct rd *r = &g->r;
	long n, cap = 0;
	double x[3];

	if (g->have_nodes)
		return fail(r, "a second $Nodes section");
	g->have_nodes = 1;
	if (g->version == 2.2) {
		long tag;
		if (record(r, 1, "the number of nodes") || count(r, 0, "the number of nodes", &n))
			return -1;
		for (long i = 0; i < n; i++) {
			if (record(r, 4, "a node (tag x y z)") || tok_long(r, 0, "the node tag", &tag))
				return -1;
			for (int k = 0; k < 3; k++)
				if (tok_double(r, k + 1, "a coordinate", &x[k]))
					return -1;
			if (add_node(g, tag, x, r->line, &cap))
				return -1;
		}
		return section_end(r, "Nodes");
	}
	/* 4.1: blocks of node tags, then their coordinates. */
	{
		long nb, total, mintag, maxtag, read = 0;
		if (record(r, 4, "the $Nodes header (blocks, nodes, min and max tags)") ||
		    count(r, 0, "the number of node blocks", &nb) ||
		    count(r, 1, "the number of nodes", &total) ||
		    tok_long(r, 2, "the smallest node tag", &mintag) ||
		    tok_long(r, 3, "the largest node tag", &maxtag))
			return -1;
		for (long b = 0; b < nb; b++) {
			long edim, etag, param, m, first = g->nnodes;
			if (record(r, 4, "a node block header (dimension, entity, parametric, nodes)") ||
			    tok_long(r, 0, "the entity dimension", &edim) ||
			    tok_long(r, 1, "the entity tag", &etag) ||
			    tok_long(r, 2, "the parametric flag", &param) ||
			    count(r, 3, "the number of nodes in the block", &m))
				return -1;
			if (edim < 0 || edim > 3 || (param != 0 && param != 1))
				return fail(r, "a node block header (dimension 0 to 3, entity, parametric 0 or 1, nodes)");
			for (long i = 0; i < m; i++) {
				long tag;
				if (record(r, 1, "a node tag") || tok_long(r, 0, "the node tag", &tag))
					return -1;
				x[0] = x[1] = x[2] = 0;
				if (add_node(g, tag, x, r->line, &cap))
					return -1;
			}
			for (long i = 0; i < m; i++) {
				int want = 3 + (param ? (int)edim : 0);
				if (record(r, want, param ? "a node's coordinates and parameters"
				                          : "a node's coordinates (x y z)"))
					return -1;
				for (int k = 0; k < 3; k++)
					if (tok_double(r, k, "a coordinate", &g->nx[3 * (first + i) + k]))
						return -1;
				g->nline[first + i] = r->line;
			}
			read += m;
		}
		if (read != total)
			return fail(r, "the $Nodes header announces %ld nodes, the blocks hold %ld", total, read);
	}
	return section_end(r, "Nodes");
}

static struct entity *find_entity(struct gm *g, long dim, long tag)
{
	for (long i = 0; i < g->nent; i++)
		if (g->ent[i].dim == dim && g->ent[i].tag == tag)
			return &g->ent[i];
	return NULL;
}

static int read_elements(struct gm *g)
{
	struct rd *r = &g->r;
	long n;

	if (g->have_elements)
		return fail(r, "a second $Elements section");
	g->have_elements = 1;
	if (g->version == 2.2) {
		if (record(r, 1, "the number of elements") || count(r, 0, "the number of elements", &n))
			return -1;
		for (long i = 0; i < n; i++) {
			long type, ntags, v;
			struct elem *e;
			if (record(r, -3, "an element (tag type ntags tags... nodes...)") ||
			    tok_long(r, 1, "the element type", &type) ||
			    tok_long(r, 2, "the number of tags", &ntags))
				return -1;
			if (ntags < 0 || ntags > r->ntok - 3)
				return fail(r, "the element has %ld tags, more than the line holds", ntags);
			e = add_elem(g, (int)(type == (int)type ? type : -1), r->line);
			if (!e)
				return -1;
			if (r->ntok != 3 + ntags + e->nn)
				return fail(r, "a %s element has %d node%s; its line in the file lists %ld", type_name(e->type), e->nn,
				            e->nn == 1 ? "" : "s", (long)r->ntok - 3 - ntags);
			if (ntags >= 1) {
				if (tok_long(r, 3, "the physical tag", &v))
					return -1;
				if (v < 0)
					return fail(r, "the physical tag %ld is negative", v);
				if (v > INT32_MAX)
					return fail(r, "physical tag %ld is out of range (1 to %d)", v, INT32_MAX);
				if (v > 0) {
					if (add_phys(g, v))
						return -1;
					e->nphys = 1;
				}
			}
			for (int k = 0; k < e->nn; k++)
				if (tok_long(r, 3 + (int)ntags + k, "a node tag", &g->pool[e->nodes + k]))
					return -1;
		}
		return section_end(r, "Elements");
	}
	{
		long nb, total, mintag, maxtag, read = 0;
		if (record(r, 4, "the $Elements header (blocks, elements, min and max tags)") ||
		    count(r, 0, "the number of element blocks", &nb) ||
		    count(r, 1, "the number of elements", &total) ||
		    tok_long(r, 2, "the smallest element tag", &mintag) ||
		    tok_long(r, 3, "the largest element tag", &maxtag))
			return -1;
		for (long b = 0; b < nb; b++) {
			long edim, etag, type, m;
			struct entity *en;
			if (record(r, 4, "an element block header (dimension, entity, type, elements)") ||
			    tok_long(r, 0, "the entity dimension", &edim) ||
			    tok_long(r, 1, "the entity tag", &etag) ||
			    tok_long(r, 2, "the element type", &type) ||
			    count(r, 3, "the number of elements in the block", &m))
				return -1;
			en = find_entity(g, edim, etag);
			if (g->have_entities && !en)
				return fail(r, "entity %ld of dimension %ld is not in $Entities", etag, edim);
			for (long i = 0; i < m; i++) {
				struct elem *e;
				if (record(r, -1, "an element (tag nodes...)"))
					return -1;
				e = add_elem(g, (int)(type == (int)type ? type : -1), r->line);
				if (!e)
					return -1;
				if (e->dim != edim)
					return fail(r, "a %s in a block of dimension %ld", type_name(e->type), edim);
				if (r->ntok != 1 + e->nn)
					return fail(r, "a %s element has %d node%s; its line in the file lists %d", type_name(e->type),
					            e->nn, e->nn == 1 ? "" : "s", r->ntok - 1);
				for (int k = 0; k < e->nn; k++)
					if (tok_long(r, 1 + k, "a node tag", &g->pool[e->nodes + k]))
						return -1;
				if (en) {
					e->phys = en->phys;
					e->nphys = en->nphys;
				}
			}
			read += m;
		}
		if (read != total)
			return fail(r, "the $Elements header announces %ld elements, the blocks hold %ld",
			            total, read);
	}
	return section_end(r, "Elements");
}

/* Skip an unknown section up to its $End line. */
static int skip_section(struct rd *r, const char *sec)
{
	long start = r->line;
	char *s;

	while ((s = next_line(r)))
		if (s[0] == '$' && !strncmp(s + 1, "End", 3) && !strcmp(s + 4, sec))
			return 0;
	r->line = start;
	return fail(r, "$%s is not closed by $End%s", sec, sec);
}

/* ---- From the file to the mesh ---- */

static int cmp_tag(const void *a, const void *b)
{
	const long *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* The index of node tag t: binary search in pairs (tag, index). */
static long node_index(const long *sorted, long n, long t)
{
	long key[2] = { t, 0 };
	const long *p = bsearch(key, sorted, (size_t)n, 2 * sizeof *sorted, cmp_tag);
	return p ? p[1] : -1;
}

/* Facet lookup: a hash of every cell's facets by their sorted nodes. */
struct facet_map {
	size_t cap;
	int fnv;
	long *key;            /* cap × fnv, key[0] = −1 when empty */
	long *cell;
	int *f;
};

static void sort_small(long *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			long t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

static size_t facet_hash(const long *k, int n, size_t cap)
{
	uint64_t h = 1469598103934665603u;
	for (int i = 0; i < n; i++)
		h = (h ^ (uint64_t)k[i]) * 1099511628211u;
	h ^= h >> 31;
	return (size_t)h & (cap - 1);
}

static int facet_map_build(struct facet_map *fm, const struct mesh *m)
{
	int nf = mesh_cell_nfacets(m->type);

	fm->fnv = mesh_cell_facet_nv(m->type);
	fm->cap = 16;
	while (fm->cap < 2 * (size_t)m->ncells * (size_t)nf)
		fm->cap *= 2;
	fm->key = mem_alloc(fm->cap * (size_t)fm->fnv * sizeof *fm->key);
	fm->cell = mem_alloc(fm->cap * sizeof *fm->cell);
	fm->f = mem_alloc(fm->cap * sizeof *fm->f);
	if (!fm->key || !fm->cell || !fm->f)
		return -1;
	for (size_t i = 0; i < fm->cap; i++)
		fm->key[i * (size_t)fm->fnv] = -1;
	for (long c = 0; c < m->ncells; c++)
		for (int f = 0; f < nf; f++) {
			const int *fv = mesh_cell_facet(m->type, f);
			long k[4];
			size_t i;
			for (int j = 0; j < fm->fnv; j++)
				k[j] = m->cells[c * m->nv + fv[j]];
			sort_small(k, fm->fnv);
			for (i = facet_hash(k, fm->fnv, fm->cap); fm->key[i * (size_t)fm->fnv] >= 0;
			     i = (i + 1) & (fm->cap - 1))
				if (!memcmp(fm->key + i * (size_t)fm->fnv, k, (size_t)fm->fnv * sizeof *k))
					break;
			if (fm->key[i * (size_t)fm->fnv] >= 0)
				continue;  /* an interior facet: its first cell */
			memcpy(fm->key + i * (size_t)fm->fnv, k, (size_t)fm->fnv * sizeof *k);
			fm->cell[i] = c;
			fm->f[i] = f;
		}
	return 0;
}

static int facet_map_find(const struct facet_map *fm, long *k, long *cell, int *f)
{
	size_t i;

	sort_small(k, fm->fnv);
	for (i = facet_hash(k, fm->fnv, fm->cap); fm->key[i * (size_t)fm->fnv] >= 0;
	     i = (i + 1) & (fm->cap - 1))
		if (!memcmp(fm->key + i * (size_t)fm->fnv, k, (size_t)fm->fnv * sizeof *k)) {
			*cell = fm->cell[i];
			*f = fm->f[i];
			return 0;
		}
	return -1;
}

static void facet_map_free(struct facet_map *fm)
{
	free(fm->key);
	free(fm->cell);
	free(fm->f);
}

static enum mesh_cell_type cell_type_of(int gmsh_type)
{
	switch (gmsh_type) {
	case 1: return MESH_INTERVAL;
	case 2: return MESH_TRIANGLE;
	case 3: return MESH_QUADRILATERAL;
	case 4: return MESH_TETRAHEDRON;
	default: return MESH_HEXAHEDRON;
	}
}

/* Fail at line `line` of the file. */
static int fail_at(struct gm *g, long line, const char *fmt, ...) MESH_PRINTF(3, 4);
static int fail_at(struct gm *g, long line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	g->r.line = line;
	return fail(&g->r, "%s", msg);
}

/* The group of physical tag t and dimension d: its index, made when
 * unnamed. */
static int group_of(struct gm *g, int d, long t, int *idx)
{
	for (int i = 0; i < g->ngroup; i++)
		if (g->group[i].dim == d && g->group[i].tag == t) {
			*idx = i;
			return 0;
		}
	{
		struct group *gr = mem_realloc(g->group, (size_t)(g->ngroup + 1) * sizeof *gr);
		if (!gr)
			return -1;
		g->group = gr;
		gr += g->ngroup;
		gr->dim = d;
		gr->tag = (int)t;
		gr->line = 0;
		gr->name = mem_alloc(24);
		if (!gr->name)
			return -1;
		snprintf(gr->name, 24, "%ld", t);
		*idx = g->ngroup++;
	}
	return 0;
}

/* Elements that repeat another (the same type and the same nodes): MSH
 * 2.2 holds one physical tag per line, so Gmsh writes an element of two
 * physical groups twice (a body and a part of it).  Each repeat is the
 * first occurrence's, which alone becomes a cell or a facet; the repeat
 * only adds its groups.  dup[p] is the first occurrence of element p, or
 * -1 when p is one.  Found by sorting the elements on their sorted
 * nodes: O(E log E). */
static const struct gm *dup_g;
static const long *dup_key;   /* each element's nodes, sorted, at elem[p].nodes */

static int cmp_elem(const void *a, const void *b)
{
	long p = *(const long *)a, q = *(const long *)b;
	const struct elem *e = &dup_g->elem[p], *f = &dup_g->elem[q];
	if (e->type != f->type)
		return e->type < f->type ? -1 : 1;
	for (int k = 0; k < e->nn; k++) {
		long x = dup_key[e->nodes + k], y = dup_key[f->nodes + k];
		if (x != y)
			return x < y ? -1 : 1;
	}
	return p < q ? -1 : p > q;   /* the first occurrence first */
}

static long *repeats(struct gm *g)
{
	long n = g->nelem;
	long *dup = mem_alloc((size_t)(n ? n : 1) * sizeof *dup), *order = mem_alloc((size_t)(n ? n : 1) * sizeof *order);
	long *key = mem_alloc((size_t)(g->npool ? g->npool : 1) * sizeof *key);
	if (!dup || !order || !key) {
		free(dup);
		free(order);
		free(key);
		return NULL;
	}
	memcpy(key, g->pool, (size_t)g->npool * sizeof *key);
	for (long p = 0; p < n; p++) {
		sort_small(key + g->elem[p].nodes, g->elem[p].nn);
		order[p] = p;
		dup[p] = -1;
	}
	dup_g = g;
	dup_key = key;
	qsort(order, (size_t)n, sizeof *order, cmp_elem);
	for (long k = 1; k < n; k++) {
		const struct elem *e = &g->elem[order[k]], *f = &g->elem[order[k - 1]];
		if (e->type == f->type && memcmp(key + e->nodes, key + f->nodes, (size_t)e->nn * sizeof *key) == 0)
			dup[order[k]] = dup[order[k - 1]] >= 0 ? dup[order[k - 1]] : order[k - 1];
	}
	free(order);
	free(key);
	return dup;
}

static struct mesh *build(struct gm *g)
{
	struct mesh *m = NULL;
	long *sorted = NULL, *renum = NULL, *dup = NULL, *cellidx = NULL, ncell = 0, first = -1, nkept = 0;
	int dim = 0, *used = NULL, *mark = NULL;
	struct facet_map fm = { 0, 0, NULL, NULL, NULL };
	static const char *const axis = "xyz";
	char ename[128];

	for (long i = 0; i < g->nelem; i++)
		if (g->elem[i].dim > dim) {
			dim = g->elem[i].dim;
			first = i;
		}
	if (dim == 0) {
		fail_at(g, g->r.line, "no cells: the file has no lines, surfaces or volumes "
		        "(with physical groups, Gmsh saves only their elements: put the "
		        "body in a physical group, or set Mesh.SaveAll = 1)");
		return NULL;
	}
	for (long i = 0; i < g->nelem; i++)
		if (g->elem[i].dim == dim) {
			if (g->elem[i].type != g->elem[first].type) {
				fail_at(g, g->elem[i].line, "a mesh has cells of one type: this %s "
				        "is among %ss (line %ld)", type_name(g->elem[i].type),
				        type_name(g->elem[first].type), g->elem[first].line);
				return NULL;
			}
			ncell++;
		}
	/* Tags to indices; a tag twice is an error. */
	sorted = mem_alloc((size_t)(g->nnodes ? g->nnodes : 1) * 2 * sizeof *sorted);
	if (!sorted)
		goto oom;
	for (long i = 0; i < g->nnodes; i++) {
		sorted[2 * i] = g->ntag[i];
		sorted[2 * i + 1] = i;
	}
	qsort(sorted, (size_t)g->nnodes, 2 * sizeof *sorted, cmp_tag);
	for (long i = 1; i < g->nnodes; i++)
		if (sorted[2 * i] == sorted[2 * i - 2]) {
			long a = sorted[2 * i - 1], b = sorted[2 * i + 1];
			fail_at(g, g->nline[a > b ? a : b], "node tag %ld is defined twice (lines %ld and %ld)",
			        sorted[2 * i], g->nline[a < b ? a : b], g->nline[a > b ? a : b]);
			goto out;
		}
	for (long p = 0; p < g->nelem; p++)
		for (int k = 0; k < g->elem[p].nn; k++) {
			long *t = &g->pool[g->elem[p].nodes + k];
			long ix = node_index(sorted, g->nnodes, *t);
			if (ix < 0) {
				fail_at(g, g->elem[p].line, "node %ld is not in $Nodes", *t);
				goto out;
			}
			*t = ix;
		}
	/* Nodes of no cell carry no unknown: Gmsh writes the geometry's own
	 * points, and with Mesh.SaveAll every node it made, in $Nodes.  Such
	 * a node left in the mesh had a dof of zero mass, reported as a mass
	 * matrix that is not positive definite; it is dropped, and the others
	 * keep their order.  An element of a physical group that touches one
	 * is an error: its region would reach outside the body. */
	renum = mem_alloc((size_t)(g->nnodes ? g->nnodes : 1) * sizeof *renum);
	if (!renum)
		goto oom;
	for (long i = 0; i < g->nnodes; i++)
		renum[i] = -1;
	for (long p = 0; p < g->nelem; p++)
		if (g->elem[p].dim == dim)
			for (int k = 0; k < g->elem[p].nn; k++)
				renum[g->pool[g->elem[p].nodes + k]] = 0;
	for (long i = 0; i < g->nnodes; i++)
		if (renum[i] == 0)
			renum[i] = nkept++;
	for (long p = 0; p < g->nelem; p++)
		for (int k = 0; k < g->elem[p].nn; k++) {
			long *t = &g->pool[g->elem[p].nodes + k];
			if (renum[*t] < 0 && g->elem[p].nphys > 0) {
				int gi;
				if (group_of(g, g->elem[p].dim, g->phys[g->elem[p].phys], &gi))
					goto oom;
				fail_at(g, g->elem[p].line, "node %ld of this %s (physical group %s) belongs "
				        "to no %s of the mesh", g->ntag[*t], type_name(g->elem[p].type),
				        rt_escape(ename, sizeof ename, g->group[gi].name), type_name(g->elem[first].type));
				goto out;
			}
			*t = renum[*t];
		}
	/* A mesh of dimension d < 3 lies in the plane (or on the line) where
	 * the other coordinates are those of its first node. */
	long ref = -1;
	for (long i = 0; i < g->nnodes; i++) {
		if (renum[i] < 0)
			continue;
		if (ref < 0)
			ref = i;
		for (int k = dim; k < 3; k++)
			if (g->nx[3 * i + k] != g->nx[3 * ref + k]) {
				fail_at(g, g->nline[i], "the mesh is %d-D (its cells are %ss) but its "
				        "nodes do not share one %c: %s", dim, type_name(g->elem[first].type), axis[k],
				        dim == 1 ? "a 1-D mesh lies along the x axis, y and z constant"
				                 : "a 2-D mesh lies in a plane z = constant");
				goto out;
			}
	}
	dup = repeats(g);
	cellidx = mem_alloc((size_t)(g->nelem ? g->nelem : 1) * sizeof *cellidx);
	if (!dup || !cellidx)
		goto oom;
	ncell = 0;
	for (long p = 0; p < g->nelem; p++)
		if (g->elem[p].dim == dim)
			cellidx[p] = dup[p] < 0 ? ncell++ : cellidx[dup[p]];
	m = mesh_new(cell_type_of(g->elem[first].type), nkept, ncell, g->r.err, g->r.errlen);
	if (!m)
		goto out;
	for (long i = 0; i < g->nnodes; i++)
		for (int k = 0; k < dim && renum[i] >= 0; k++)
			m->x[renum[i] * dim + k] = g->nx[3 * i + k];
	for (long p = 0; p < g->nelem; p++)
		if (g->elem[p].dim == dim && dup[p] < 0)
			for (int k = 0; k < m->nv; k++)   /* below MESH_MAX_NODES */
				m->cells[cellidx[p] * m->nv + k] = (int32_t)g->pool[g->elem[p].nodes + k];
	{
		long bad = mesh_orient(m);
		if (bad >= 0) {
			long seen = -1;
			for (long p = 0; p < g->nelem; p++)
				if (g->elem[p].dim == dim && dup[p] < 0 && ++seen == bad) {
					static const char *const what[] = { "", "length", "area", "volume" };
					fail_at(g, g->elem[p].line, "this %s is degenerate (zero %s)",
					        type_name(g->elem[p].type), what[dim]);
					break;
				}
			goto out;
		}
	}
	/* Regions: the physical groups of the elements, in the order of
	 * $PhysicalNames, then the unnamed ones as met. */
	for (long p = 0; p < g->nelem; p++)
		for (long j = 0; j < g->elem[p].nphys; j++) {
			int idx;
			if (group_of(g, g->elem[p].dim, g->phys[g->elem[p].phys + j], &idx))
				goto oom;
		}
	used = mem_calloc((size_t)(g->ngroup ? g->ngroup : 1), sizeof *used);
	mark = mem_calloc((size_t)(g->nelem ? g->nelem : 1), sizeof *mark);
	if (!used || !mark)
		goto oom;
	for (long p = 0; p < g->nelem; p++)
		for (long j = 0; j < g->elem[p].nphys; j++) {
			int idx;
			group_of(g, g->elem[p].dim, g->phys[g->elem[p].phys + j], &idx);
			used[idx]++;
		}
	for (int gi = 0; gi < g->ngroup; gi++) {
		struct group *gr = &g->group[gi];
		struct mesh_region *reg;
		enum mesh_region_kind kind = gr->dim == dim ? MESH_REGION_CELLS
		                           : gr->dim == dim - 1 ? MESH_REGION_FACETS : MESH_REGION_NODES;
		long k = 0;
		if (!used[gi])
			continue;  /* a name of a group without elements */
		if (gr->dim > dim) {
			fail_at(g, gr->line, "physical group %s has dimension %d, more than the mesh's %d",
			        rt_escape(ename, sizeof ename, gr->name), gr->dim, dim);
			goto out;
		}
		if (kind == MESH_REGION_FACETS && !fm.key && facet_map_build(&fm, m))
			goto oom;
		reg = mesh_add_region(m, gr->name, kind, gr->tag);
		if (!reg)
			goto oom;
		if (kind == MESH_REGION_NODES) {
			reg->nodes = mem_alloc((size_t)used[gi] * 8 * sizeof *reg->nodes);
			if (!reg->nodes)
				goto oom;
		} else {
			reg->cell = mem_alloc((size_t)used[gi] * sizeof *reg->cell);
			reg->facet = mem_alloc((size_t)used[gi] * sizeof *reg->facet);
			if (!reg->cell || !reg->facet)
				goto oom;
		}
		for (long p = 0; p < g->nelem; p++) {
			const struct elem *e = &g->elem[p];
			int in = 0;
			if (e->dim != gr->dim)
				continue;
			for (long j = 0; j < e->nphys; j++)
				in |= g->phys[e->phys + j] == gr->tag;
			/* a repeat already in this group (the same line twice)
			 * adds nothing */
			long canon = dup[p] < 0 ? p : dup[p];
			if (!in || mark[canon] == gi + 1)
				continue;
			mark[canon] = gi + 1;
			if (kind == MESH_REGION_CELLS) {
				reg->cell[reg->n++] = cellidx[p];
			} else if (kind == MESH_REGION_NODES) {
				for (int j = 0; j < e->nn; j++)
					reg->nodes[reg->nnodes++] = g->pool[e->nodes + j];
			} else {
				long key[4], c;
				int f;
				memcpy(key, g->pool + e->nodes, (size_t)e->nn * sizeof *key);
				if (e->nn != fm.fnv || facet_map_find(&fm, key, &c, &f)) {
					fail_at(g, e->line, "this %s of physical group %s is not a side of "
					        "any %s of the mesh", type_name(e->type),
					        rt_escape(ename, sizeof ename, gr->name),
					        mesh_cell_name(m->type));
					goto out;
				}
				reg->cell[reg->n] = c;
				reg->facet[reg->n++] = f;
				k++;
			}
		}
		if (mesh_region_finish(m, reg))
			goto oom;
	}
	facet_map_free(&fm);
	free(sorted);
	free(renum);
	free(dup);
	free(cellidx);
	free(mark);
	free(used);
	return m;
oom:
	oom(&g->r);
out:
	facet_map_free(&fm);
	mesh_free(m);
	free(sorted);
	free(renum);
	free(dup);
	free(cellidx);
	free(mark);
	free(used);
	return NULL;
}

static struct mesh *parse(struct gm *g)
{
	struct rd *r = &g->r;
	char *s;

	/* The first line must open $MeshFormat. */
	s = next_line(r);
	if (!s || strcmp(s, "$MeshFormat")) {
		r->line = 1;
		fail(r, "not a Gmsh mesh file (it does not start with $MeshFormat)");
		return NULL;
	}
	if (read_format(g))
		return NULL;
	while ((s = next_line(r))) {
		int rc;
		if (s[strspn(s, " \t")] == '\0')
			continue;
		if (s[0] != '$') {
			fail(r, "expected a section ($Nodes, $Elements, ...)");
			return NULL;
		}
		if (!strcmp(s, "$PhysicalNames"))
			rc = read_names(g);
		else if (!strcmp(s, "$Entities"))
			rc = g->version == 2.2 ? skip_section(r, "Entities") : read_entities(g);
		else if (!strcmp(s, "$Nodes"))
			rc = read_nodes(g);
		else if (!strcmp(s, "$Elements"))
			rc = g->have_entities || g->version == 2.2 || !g->have_names
			   ? read_elements(g)
			   : fail(r, "$Elements comes before $Entities: the physical groups are unknown");
		else if (!strncmp(s, "$End", 4))
			rc = fail(r, "%.40s closes no section", s);
		else if (!strcmp(s, "$MeshFormat"))
			rc = fail(r, "a second $MeshFormat");
		else {
			char sec[64];
			snprintf(sec, sizeof sec, "%s", s + 1);
			rc = skip_section(r, sec);
		}
		if (rc)
			return NULL;
	}
	if (!g->have_nodes || !g->have_elements) {
		fail(r, "the file ends without a %s section", g->have_nodes ? "$Elements" : "$Nodes");
		return NULL;
	}
	return build(g);
}

struct mesh *mesh_read_gmsh(const char *path, char *err, size_t errlen)
{
	struct gm g;
	struct stat st;
	char name[256];
	struct mesh *m = NULL;
	locale_t c, old = (locale_t)0;
	int fd;
	size_t got = 0;

	memset(&g, 0, sizeof g);
	rt_escape(name, sizeof name, path);
	g.r.name = name;
	g.r.err = err;
	g.r.errlen = errlen;
	/* O_NONBLOCK: opening a FIFO with no writer would wait forever. */
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		mesh_errf(err, errlen, "cannot open '%s': %s", name, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		mesh_errf(err, errlen, "'%s' is not a regular file: gmsh() reads regular files only", name);
		close(fd);
		return NULL;
	}
	if ((long long)st.st_size > GMSH_MAX_BYTES) {
		mesh_errf(err, errlen, "'%s' is larger than 2 GiB, the limit of gmsh()", name);
		close(fd);
		return NULL;
	}
	g.r.buf = mem_alloc((size_t)st.st_size + 1);
	if (!g.r.buf) {
		mesh_errf(err, errlen, "out of memory reading '%s'", name);
		close(fd);
		return NULL;
	}
	while (got < (size_t)st.st_size) {
		ssize_t k = read(fd, g.r.buf + got, (size_t)st.st_size - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			mesh_errf(err, errlen, "cannot read '%s': %s", name,
			          k < 0 ? strerror(errno) : "it got shorter");
			close(fd);
			free(g.r.buf);
			return NULL;
		}
		got += (size_t)k;
	}
	close(fd);
	g.r.buf[got] = '\0';
	g.r.pos = g.r.buf;
	g.r.end = g.r.buf + got;
	if (memchr(g.r.buf, '\0', got)) {
		g.r.line = 1;
		fail(&g.r, "not a text file (binary data)");
	} else {
		/* Mesh files use '.', whatever the user's locale. */
		c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
		if (c != (locale_t)0)
			old = uselocale(c);
		m = parse(&g);
		if (c != (locale_t)0) {
			uselocale(old);
			freelocale(c);
		}
	}
	free(g.r.buf);
	free(g.ntag);
	free(g.nx);
	free(g.nline);
	free(g.elem);
	free(g.pool);
	free(g.phys);
	for (int i = 0; i < g.ngroup; i++)
		free(g.group[i].name);
	free(g.group);
	free(g.ent);
	return m;
}
