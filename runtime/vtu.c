/* vtu.c — VTK XML unstructured grids and their .pvd collections
 * (vtu.h): the mesh and its fields for ParaView.
 *
 * The layout follows VTK's own writer (vtkXMLWriter, appended data,
 * base64, no compression): every array in <AppendedData> is its byte
 * count (UInt64, header_type="UInt64") base64-encoded on its own, then its
 * values base64-encoded on their own, and the offset="" of its DataArray
 * counts the base64 characters from the '_' that opens the block. */
#define _POSIX_C_SOURCE 200809L

#include "vtu.h"
#include "fe_space.h"
#include "mesh_impl.h"
#include "outfile.h"
#include "mem.h"

#include <errno.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void vtu_base64(const unsigned char *in, size_t n, char *out)
{
	size_t i = 0;

	for (; i + 3 <= n; i += 3, out += 4) {
		unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8 | in[i + 2];
		out[0] = alphabet[v >> 18];
		out[1] = alphabet[(v >> 12) & 63];
		out[2] = alphabet[(v >> 6) & 63];
		out[3] = alphabet[v & 63];
	}
	if (i < n) {
		unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0);
		out[0] = alphabet[v >> 18];
		out[1] = alphabet[(v >> 12) & 63];
		out[2] = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
		out[3] = '=';
		out += 4;
	}
	*out = '\0';
}

long vtu_base64_decode(const char *in, size_t len, unsigned char *out)
{
	long k = 0;
	unsigned v = 0;
	int bits = 0;

	for (size_t i = 0; i < len; i++) {
		const char *p;
		if (in[i] == '=')
			break;
		p = in[i] ? strchr(alphabet, in[i]) : NULL;
		if (!p)
			return -1;
		v = (v << 6) | (unsigned)(p - alphabet);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[k++] = (unsigned char)(v >> bits);
			v &= (1u << bits) - 1;
		}
	}
	return k;
}

/* A streaming encoder: bytes in, base64 out to f, padded at b64_end. */
struct b64 {
	FILE *f;
	unsigned char carry[3];
	int n;
	char out[4 * 1024 + 1];
	int nout;
};

static void b64_flush(struct b64 *b)
{
	fwrite(b->out, 1, (size_t)b->nout, b->f);
	b->nout = 0;
}

static void b64_put(struct b64 *b, const void *data, size_t n)
{
	const unsigned char *p = data;

	while (n--) {
		b->carry[b->n++] = *p++;
		if (b->n == 3) {
			vtu_base64(b->carry, 3, b->out + b->nout);
			b->nout += 4;
			b->n = 0;
			if (b->nout == 4 * 1024)
				b64_flush(b);
		}
	}
}

static void b64_end(struct b64 *b)
{
	if (b->n) {
		vtu_base64(b->carry, (size_t)b->n, b->out + b->nout);
		b->nout += 4;
		b->n = 0;
	}
	b64_flush(b);
}

/* Values little-endian whatever the host. */
static int little_endian(void)
{
	const uint16_t one = 1;
	return *(const unsigned char *)&one == 1;
}

static void put_le(struct b64 *b, const void *v, size_t size)
{
	if (little_endian()) {
		b64_put(b, v, size);
	} else {
		unsigned char t[8];
		for (size_t i = 0; i < size; i++)
			t[i] = ((const unsigned char *)v)[size - 1 - i];
		b64_put(b, t, size);
	}
}

/* An array: its byte count as a block, then its values as a block. */
static void put_header(struct b64 *b, uint64_t bytes)
{
	put_le(b, &bytes, sizeof bytes);
	b64_end(b);
}

/* Base64 characters of an array of n bytes with its header. */
static uint64_t encoded(uint64_t n)
{
	return 12 + 4 * ((n + 2) / 3);
}

static int vtk_type(enum mesh_cell_type t)
{
	static const int v[] = { 3, 5, 9, 10, 12 };
	return v[t];
}

/* name with the characters XML reserves escaped. */
static void put_name(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		}
}

/* Components written for a field of ncomp: vectors of 2 become 3. */
static int width(int ncomp)
{
	return ncomp == 2 ? 3 : ncomp;
}

static void field_header(FILE *f, const struct vtu_field *v, uint64_t *offset, long count)
{
	fputs("        <DataArray type=\"Float64\" Name=\"", f);
	put_name(f, v->name);
	fprintf(f, "\" NumberOfComponents=\"%d\" format=\"appended\" offset=\"%llu\"/>\n",
	        width(v->ncomp), (unsigned long long)*offset);
	*offset += encoded((uint64_t)count * (uint64_t)width(v->ncomp) * 8);
}

static void field_data(struct b64 *b, const struct vtu_field *v, long count)
{
	long stride = v->stride ? v->stride : v->ncomp;
	int w = width(v->ncomp);
	const double zero = 0;

	put_header(b, (uint64_t)count * (uint64_t)w * 8);
	for (long i = 0; i < count; i++)
		for (int k = 0; k < w; k++)
			put_le(b, k < v->ncomp ? &v->v[i * stride + k] : &zero, 8);
	b64_end(b);
}

static int check_fields(const struct vtu_field *v, int n, const char *where,
                        char *err, size_t errlen)
{
	for (int i = 0; i < n; i++)
		if (v[i].ncomp < 1 || v[i].ncomp > 3 || !v[i].v || !v[i].name ||
		    (v[i].stride && v[i].stride < v[i].ncomp)) {
			mesh_errf(err, errlen, "%s field %d: 1 to 3 components, values, a name", where, i);
			return -1;
		}
	return 0;
}

/* Flush and give the file its name, or remove it and keep the old one:
 * a VTU cut short is not a VTU. */
static int finish(struct rt_outfile *o, const char *path, char *err, size_t errlen)
{
	char name[256];
	int e;

	if (fflush(o->f) != 0 && !o->err)
		o->err = errno ? errno : EIO;
	e = rt_outfile_check(o);
	if (e) {
		rt_outfile_discard(o);
	} else {
		e = rt_outfile_commit(o);
	}
	if (e) {
		mesh_errf(err, errlen, "cannot write '%s': %s",
		          rt_escape(name, sizeof name, path), strerror(e));
		return -1;
	}
	return 0;
}

/* The points and cells written: a mesh's, or a P2 space's nodes and
 * quadratic cells. */
struct grid {
	int dim;
	long npts;
	const double *x;      /* npts × dim */
	long ncells;
	int nv;
	const int32_t *conn;  /* ncells × nv */
	int type;             /* the VTK cell type */
};

static int write_grid(const char *path, const struct grid *m,
                      const struct vtu_field *point, int npoint,
                      const struct vtu_field *cell, int ncell,
                      char *err, size_t errlen, int own)
{
	struct rt_outfile o;
	struct b64 b;
	FILE *f;
	uint64_t off = 0;
	char name[256];
	double xyz[3];

	if (check_fields(point, npoint, "point", err, errlen) ||
	    check_fields(cell, ncell, "cell", err, errlen))
		return -1;
	if ((own ? rt_outfile_open_own(&o, path) : rt_outfile_open(&o, path))) {
		mesh_errf(err, errlen, "cannot write '%s': %s",
		          rt_escape(name, sizeof name, path), strerror(errno));
		return -1;
	}
	f = o.f;
	fprintf(f, "<?xml version=\"1.0\"?>\n"
	        "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
	        "header_type=\"UInt64\">\n"
	        "  <UnstructuredGrid>\n"
	        "    <Piece NumberOfPoints=\"%ld\" NumberOfCells=\"%ld\">\n",
	        m->npts, m->ncells);
	fputs("      <PointData>\n", f);
	for (int i = 0; i < npoint; i++)
		field_header(f, &point[i], &off, m->npts);
	fputs("      </PointData>\n      <CellData>\n", f);
	for (int i = 0; i < ncell; i++)
		field_header(f, &cell[i], &off, m->ncells);
	fprintf(f, "      </CellData>\n      <Points>\n"
	        "        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"appended\" "
	        "offset=\"%llu\"/>\n      </Points>\n      <Cells>\n", (unsigned long long)off);
	off += encoded((uint64_t)m->npts * 24);
	fprintf(f, "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"appended\" "
	        "offset=\"%llu\"/>\n", (unsigned long long)off);
	off += encoded((uint64_t)m->ncells * (uint64_t)m->nv * 8);
	fprintf(f, "        <DataArray type=\"Int64\" Name=\"offsets\" format=\"appended\" "
	        "offset=\"%llu\"/>\n", (unsigned long long)off);
	off += encoded((uint64_t)m->ncells * 8);
	fprintf(f, "        <DataArray type=\"UInt8\" Name=\"types\" format=\"appended\" "
	        "offset=\"%llu\"/>\n", (unsigned long long)off);
	fputs("      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n"
	      "  <AppendedData encoding=\"base64\">\n   _", f);
	b.f = f;
	b.n = b.nout = 0;
	for (int i = 0; i < npoint; i++)
		field_data(&b, &point[i], m->npts);
	for (int i = 0; i < ncell; i++)
		field_data(&b, &cell[i], m->ncells);
	put_header(&b, (uint64_t)m->npts * 24);
	for (long i = 0; i < m->npts; i++) {
		for (int k = 0; k < 3; k++)
			xyz[k] = k < m->dim ? m->x[i * m->dim + k] : 0;
		for (int k = 0; k < 3; k++)
			put_le(&b, &xyz[k], 8);
	}
	b64_end(&b);
	put_header(&b, (uint64_t)m->ncells * (uint64_t)m->nv * 8);
	for (long i = 0; i < m->ncells * m->nv; i++) {
		int64_t v = m->conn[i];
		put_le(&b, &v, 8);
	}
	b64_end(&b);
	put_header(&b, (uint64_t)m->ncells * 8);
	for (long i = 1; i <= m->ncells; i++) {
		int64_t v = (int64_t)i * m->nv;
		put_le(&b, &v, 8);
	}
	b64_end(&b);
	put_header(&b, (uint64_t)m->ncells);
	for (long i = 0; i < m->ncells; i++) {
		unsigned char t = (unsigned char)m->type;
		b64_put(&b, &t, 1);
	}
	b64_end(&b);
	fputs("\n  </AppendedData>\n</VTKFile>\n", f);
	return finish(&o, path, err, errlen);
}

int vtu_write(const char *path, const struct mesh *m,
              const struct vtu_field *point, int npoint,
              const struct vtu_field *cell, int ncell,
              char *err, size_t errlen)
{
	struct grid g = {
		m->dim, m->nnodes, m->x, m->ncells, m->nv, m->cells, vtk_type(m->type)
	};
	return write_grid(path, &g, point, npoint, cell, ncell, err, errlen, 0);
}

/* The grid of space s (NULL: of mesh m): P1 and Q1 on the mesh's
 * nodes and cells, P2 on all its nodes with quadratic cells.  0, or −1
 * with a message for a space whose nodes are not points. */
static int space_grid(const struct mesh *m, const struct fe_space *s, struct grid *g, char *err, size_t errlen)
{
	struct grid mg = { m->dim, m->nnodes, m->x, m->ncells, m->nv, m->cells, vtk_type(m->type) };
	*g = mg;
	if (!s || s->family == FE_P1 || s->family == FE_Q1)
		return 0;
	if (s->family == FE_P2) {
		/* VTK_QUADRATIC_EDGE, _TRIANGLE, _TETRA: fe_ref.h's order. */
		struct grid sg = { m->dim, s->nnode, s->node_x, m->ncells, s->nloc, s->cell_nodes,
		                   m->type == MESH_INTERVAL ? 21 : m->type == MESH_TRIANGLE ? 22 : 24 };
		*g = sg;
		return 0;
	}
	mesh_errf(err, errlen, "a %s field is written on its mesh (vtu_write): its nodes "
	          "are not points", fe_family_name(s->family));
	return -1;
}

int vtu_write_space(const char *path, const struct fe_space *s,
                    const struct vtu_field *point, int npoint,
                    const struct vtu_field *cell, int ncell,
                    char *err, size_t errlen)
{
	struct grid g;
	if (space_grid(s->mesh, s, &g, err, errlen))
		return -1;
	return write_grid(path, &g, point, npoint, cell, ncell, err, errlen, 0);
}

int vtu_write_piece(const char *path, const struct mesh *m, const struct fe_space *s, long c0, long c1,
                    const int32_t *list, const struct vtu_field *point, int npoint,
                    char *err, size_t errlen)
{
	struct grid w;
	if (space_grid(m, s, &w, err, errlen))
		return -1;
	long nc = c1 - c0, npts = 0;
	int nv = w.nv, rc = -1;
	long *loc = mem_alloc(((size_t)w.npts + 1) * sizeof *loc);
	long *glob = mem_alloc(((size_t)w.npts + 1) * sizeof *glob);
	int32_t *conn = mem_alloc(((size_t)nc * (size_t)nv + 1) * sizeof *conn);
	double *x = NULL;
	struct vtu_field *pf = mem_calloc((size_t)npoint + 1, sizeof *pf);
	double **val = mem_calloc((size_t)npoint + 1, sizeof *val);

	if (check_fields(point, npoint, "point", err, errlen))
		goto out;
	if (!loc || !glob || !conn || !pf || !val)
		goto oom;
	for (long i = 0; i < w.npts; i++)
		loc[i] = -1;
	for (long j = c0; j < c1; j++) {
		long c = list ? list[j] : j;
		for (int v = 0; v < nv; v++) {
			long g = w.conn[c * nv + v];
			if (loc[g] < 0) {
				loc[g] = npts;
				glob[npts++] = g;
			}
			conn[(j - c0) * nv + v] = loc[g];
		}
	}
	if (!(x = mem_alloc(((size_t)npts * (size_t)w.dim + 1) * sizeof *x)))
		goto oom;
	for (long i = 0; i < npts; i++)
		for (int k = 0; k < w.dim; k++)
			x[i * w.dim + k] = w.x[glob[i] * w.dim + k];
	for (int q = 0; q < npoint; q++) {
		long stride = point[q].stride ? point[q].stride : point[q].ncomp;
		int nco = point[q].ncomp;
		if (!(val[q] = mem_alloc(((size_t)npts * (size_t)nco + 1) * sizeof **val)))
			goto oom;
		for (long i = 0; i < npts; i++)
			for (int k = 0; k < nco; k++)
				val[q][i * nco + k] = point[q].v[glob[i] * stride + k];
		pf[q].name = point[q].name;
		pf[q].ncomp = nco;
		pf[q].v = val[q];
	}
	{
		struct grid g = { w.dim, npts, x, nc, nv, conn, w.type };
		rc = write_grid(path, &g, pf, npoint, NULL, 0, err, errlen, 1);
	}
	goto out;
oom:
	mesh_errf(err, errlen, "out of memory for the VTU piece '%s'", path);
out:
	for (int q = 0; val && q < npoint; q++)
		free(val[q]);
	free(val);
	free(pf);
	free(x);
	free(conn);
	free(glob);
	free(loc);
	return rc;
}

int vtu_write_pvtu(const char *path, const struct vtu_field *point, int npoint,
                   int npiece, const char *const *pieces,
                   char *err, size_t errlen)
{
	struct rt_outfile o;
	char name[256];

	if (rt_outfile_open(&o, path)) {
		mesh_errf(err, errlen, "cannot write '%s': %s",
		          rt_escape(name, sizeof name, path), strerror(errno));
		return -1;
	}
	fputs("<?xml version=\"1.0\"?>\n"
	      "<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
	      "header_type=\"UInt64\">\n"
	      "  <PUnstructuredGrid GhostLevel=\"0\">\n"
	      "    <PPointData>\n", o.f);
	for (int i = 0; i < npoint; i++) {
		fputs("      <PDataArray type=\"Float64\" Name=\"", o.f);
		put_name(o.f, point[i].name);
		fprintf(o.f, "\" NumberOfComponents=\"%d\"/>\n", width(point[i].ncomp));
	}
	fputs("    </PPointData>\n    <PCellData>\n    </PCellData>\n    <PPoints>\n"
	      "      <PDataArray type=\"Float64\" NumberOfComponents=\"3\"/>\n    </PPoints>\n", o.f);
	for (int i = 0; i < npiece; i++) {
		fputs("    <Piece Source=\"", o.f);
		put_name(o.f, pieces[i]);
		fputs("\"/>\n", o.f);
	}
	fputs("  </PUnstructuredGrid>\n</VTKFile>\n", o.f);
	return finish(&o, path, err, errlen);
}

int vtu_write_pvd(const char *path, int n, const char *const *files,
                  const double *t, char *err, size_t errlen)
{
	struct rt_outfile o;
	char name[256];
	locale_t c, old = (locale_t)0;
	int r;

	if (rt_outfile_open(&o, path)) {
		mesh_errf(err, errlen, "cannot write '%s': %s",
		          rt_escape(name, sizeof name, path), strerror(errno));
		return -1;
	}
	/* Times with '.', whatever the caller's locale. */
	c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (c != (locale_t)0)
		old = uselocale(c);
	fputs("<?xml version=\"1.0\"?>\n"
	      "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
	      "  <Collection>\n", o.f);
	for (int i = 0; i < n; i++) {
		/* %.17g: the time read back is the time of the step. */
		fprintf(o.f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"", t[i]);
		put_name(o.f, files[i]);
		fputs("\"/>\n", o.f);
	}
	fputs("  </Collection>\n</VTKFile>\n", o.f);
	if (c != (locale_t)0) {
		uselocale(old);
		freelocale(c);
	}
	r = finish(&o, path, err, errlen);
	return r;
}
