/* test_vtu.c — unit tests of runtime/vtu.c: base64 against RFC 4648's
 * test vectors; a .vtu of a small mesh read back — its XML well formed
 * (tags balanced), its counts, and every appended array decoded from its
 * offset to the exact values written (points padded to 3-D, 2-vectors
 * padded with a zero, a strided field, connectivity, offsets, VTK cell
 * types), the block ending where the last array does; a P2 space on
 * quadratic cells; the .pvd text;
 * the error messages (no such folder, a full disk), no temporary left
 * behind.  Files are written in the current directory (tests/run-tests
 * runs each unit test in its own).  Exit status 0 when every check
 * passes, 1 otherwise. */
#define _POSIX_C_SOURCE 200809L

#include "fe_space.h"
#include "mesh.h"
#include "vtu.h"

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

#define CHECK_STR(a, b) do { \
	if (strcmp((a), (b)) != 0) { \
		fprintf(stderr, "%s:%d: \"%s\", expected \"%s\"\n", \
		        __FILE__, __LINE__, (a), (b)); \
		failures++; \
	} \
} while (0)

static char err[512];

static char *slurp(const char *path, long *len)
{
	FILE *f = fopen(path, "rb");
	char *s;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*len = ftell(f);
	fseek(f, 0, SEEK_SET);
	s = malloc((size_t)*len + 1);
	if (s && fread(s, 1, (size_t)*len, f) != (size_t)*len) {
		free(s);
		s = NULL;
	}
	if (s)
		s[*len] = '\0';
	fclose(f);
	return s;
}

static void test_base64(void)
{
	static const char *const in[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	static const char *const out[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };
	char buf[32];
	unsigned char back[32];

	for (int i = 0; i < 7; i++) {
		vtu_base64((const unsigned char *)in[i], strlen(in[i]), buf);
		CHECK_STR(buf, out[i]);
		CHECK(vtu_base64_decode(buf, strlen(buf), back) == (long)strlen(in[i]));
		CHECK(memcmp(back, in[i], strlen(in[i])) == 0);
	}
	CHECK(vtu_base64_decode("Zm9v!", 5, back) == -1);
}

/* Tags balanced: every <name ...> closed by </name> in order, <.../> and
 * <?...?> standing alone; the text between tags ignored. */
static int well_formed(const char *s)
{
	char stack[32][64];
	int depth = 0;

	while ((s = strchr(s, '<'))) {
		const char *e = strchr(s, '>');
		size_t n;
		if (!e)
			return 0;
		if (s[1] == '?') {
			if (e[-1] != '?')
				return 0;
		} else if (s[1] == '/') {
			n = strcspn(s + 2, " >");
			if (!depth || strlen(stack[depth - 1]) != n || strncmp(stack[depth - 1], s + 2, n))
				return 0;
			depth--;
		} else if (e[-1] != '/') {
			n = strcspn(s + 1, " />");
			if (depth == 32 || n >= 64)
				return 0;
			memcpy(stack[depth], s + 1, n);
			stack[depth++][n] = '\0';
		}
		s = e + 1;
	}
	return depth == 0;
}

/* The value of attribute attr in the tag starting at tag. */
static int attr(const char *tag, const char *name, char *val, size_t cap)
{
	const char *end = strchr(tag, '>'), *p;
	char key[64];

	snprintf(key, sizeof key, " %s=\"", name);
	p = strstr(tag, key);
	if (!p || p > end)
		return -1;
	p += strlen(key);
	snprintf(val, cap, "%.*s", (int)strcspn(p, "\""), p);
	return 0;
}

/* The DataArray named name (or the k-th unnamed one) decoded: the bytes
 * after its header, *n of them; the header must say n. */
static unsigned char *array(const char *xml, const char *name, long *n, int *ncomp, char *type)
{
	const char *p = xml, *app = strstr(xml, "<AppendedData encoding=\"base64\">");
	char v[64];
	unsigned char hdr[9], *out;
	long off, nb;
	const char *data;

	for (;;) {
		p = strstr(p, "<DataArray ");
		if (!p)
			return NULL;
		if (name ? attr(p, "Name", v, sizeof v) == 0 && !strcmp(v, name)
		         : attr(p, "Name", v, sizeof v) != 0)
			break;
		p++;
	}
	CHECK(attr(p, "format", v, sizeof v) == 0 && !strcmp(v, "appended"));
	CHECK(attr(p, "type", type, 16) == 0);
	*ncomp = attr(p, "NumberOfComponents", v, sizeof v) == 0 ? atoi(v) : 1;
	CHECK(attr(p, "offset", v, sizeof v) == 0);
	off = atol(v);
	CHECK(app != NULL);
	if (!app)
		return NULL;
	data = strchr(app, '_') + 1 + off;
	CHECK(vtu_base64_decode(data, 12, hdr) == 8);
	nb = 0;
	for (int i = 7; i >= 0; i--)
		nb = nb * 256 + hdr[i];
	out = malloc((size_t)nb + 3);
	CHECK(vtu_base64_decode(data + 12, (size_t)(4 * ((nb + 2) / 3)), out) == nb);
	*n = nb;
	return out;
}

static double f64(const unsigned char *p)
{
	uint64_t u = 0;
	double d;
	for (int i = 7; i >= 0; i--)
		u = u << 8 | p[i];
	memcpy(&d, &u, sizeof d);
	return d;
}

static int64_t i64(const unsigned char *p)
{
	uint64_t u = 0;
	for (int i = 7; i >= 0; i--)
		u = u << 8 | p[i];
	return (int64_t)u;
}

static void test_vtu(void)
{
	struct mesh *m = mesh_rectangle(0, 2, 0, 1, 2, 1, MESH_TRIANGLE, err, sizeof err);
	double T[6], u[12], p[4];
	struct vtu_field pf[3] = {
		{ "T", 1, T, 0 }, { "u", 2, u, 0 }, { "u_x", 1, u, 2 }
	};
	struct vtu_field cf[1] = { { "p<0>", 1, p, 0 } };
	long len, n;
	int nc;
	char type[16], *xml;
	unsigned char *a;
	DIR *d;
	struct dirent *de;

	for (long i = 0; i < 6; i++) {
		T[i] = m->x[2 * i] + 10 * m->x[2 * i + 1];
		u[2 * i] = 0.1 * (double)i;
		u[2 * i + 1] = -1.0 / (double)(i + 3);
	}
	for (long c = 0; c < 4; c++)
		p[c] = 0.5 * (double)c;
	CHECK(vtu_write("grid.vtu", m, pf, 3, cf, 1, err, sizeof err) == 0);
	xml = slurp("grid.vtu", &len);
	CHECK(xml != NULL);
	if (!xml)
		goto out;
	CHECK(well_formed(xml));
	CHECK(strstr(xml, "<Piece NumberOfPoints=\"6\" NumberOfCells=\"4\">") != NULL);
	CHECK(strstr(xml, "Name=\"p&lt;0&gt;\"") != NULL);

	a = array(xml, "T", &n, &nc, type);
	CHECK(a && n == 48 && nc == 1 && !strcmp(type, "Float64"));
	for (int i = 0; a && i < 6; i++)
		CHECK(f64(a + 8 * i) == T[i]);
	free(a);
	a = array(xml, "u", &n, &nc, type);
	CHECK(a && n == 144 && nc == 3);
	for (int i = 0; a && i < 6; i++) {
		CHECK(f64(a + 24 * i) == u[2 * i]);
		CHECK(f64(a + 24 * i + 8) == u[2 * i + 1]);
		CHECK(f64(a + 24 * i + 16) == 0);
	}
	free(a);
	a = array(xml, "u_x", &n, &nc, type);
	CHECK(a && n == 48 && nc == 1);
	for (int i = 0; a && i < 6; i++)
		CHECK(f64(a + 8 * i) == u[2 * i]);
	free(a);
	a = array(xml, "p<0>", &n, &nc, type);
	CHECK(a == NULL);  /* the name is escaped in the file */
	a = array(xml, "p&lt;0&gt;", &n, &nc, type);
	CHECK(a && n == 32);
	for (int i = 0; a && i < 4; i++)
		CHECK(f64(a + 8 * i) == p[i]);
	free(a);
	/* Points: the unnamed array, (x, y, 0). */
	a = array(xml, NULL, &n, &nc, type);
	CHECK(a && n == 144 && nc == 3);
	for (int i = 0; a && i < 6; i++) {
		CHECK(f64(a + 24 * i) == m->x[2 * i]);
		CHECK(f64(a + 24 * i + 8) == m->x[2 * i + 1]);
		CHECK(f64(a + 24 * i + 16) == 0);
	}
	free(a);
	a = array(xml, "connectivity", &n, &nc, type);
	CHECK(a && n == 96 && !strcmp(type, "Int64"));
	for (int i = 0; a && i < 12; i++)
		CHECK(i64(a + 8 * i) == m->cells[i]);
	free(a);
	a = array(xml, "offsets", &n, &nc, type);
	CHECK(a && n == 32);
	for (int i = 0; a && i < 4; i++)
		CHECK(i64(a + 8 * i) == 3 * (i + 1));
	free(a);
	a = array(xml, "types", &n, &nc, type);
	CHECK(a && n == 4 && !strcmp(type, "UInt8"));
	for (int i = 0; a && i < 4; i++)
		CHECK(a[i] == 5);  /* VTK_TRIANGLE */
	free(a);
	/* The last array (types, 4 bytes: 12 + 8 characters) ends the block. */
	{
		char v[32];
		const char *t = strstr(xml, "Name=\"types\"");
		const char *u_ = strchr(strstr(xml, "<AppendedData"), '_');
		while (t > xml && *t != '<')
			t--;
		CHECK(attr(t, "offset", v, sizeof v) == 0);
		CHECK(!strcmp(u_ + 1 + atol(v) + 20, "\n  </AppendedData>\n</VTKFile>\n"));
	}
	free(xml);
	/* Written under a temporary, renamed: none left. */
	d = opendir(".");
	while (d && (de = readdir(d)))
		CHECK(strncmp(de->d_name, ".grid.vtu.", 10) != 0);
	if (d)
		closedir(d);
out:
	mesh_free(m);
}

/* A P2 space written whole: its 15 nodes as points, its triangles as
 * VTK_QUADRATIC_TRIANGLE (22) over the nodes in fe_ref.h's order. */
static void test_space(void)
{
	struct mesh *m = mesh_rectangle(0, 2, 0, 1, 2, 1, MESH_TRIANGLE, err, sizeof err);
	struct fe_space *s = fe_space_make(m, FE_P2, 1, err, sizeof err), *h;
	double u[15];
	struct vtu_field pf = { "u", 1, u, 0 };
	long len, n;
	int nc;
	char type[16], *xml;
	unsigned char *a;

	CHECK(s && s->nnode == 15);
	for (int i = 0; i < 15; i++)
		u[i] = s->node_x[2 * i] * s->node_x[2 * i];
	CHECK(vtu_write_space("p2.vtu", s, &pf, 1, NULL, 0, err, sizeof err) == 0);
	xml = slurp("p2.vtu", &len);
	CHECK(xml && well_formed(xml));
	if (!xml)
		goto out;
	CHECK(strstr(xml, "<Piece NumberOfPoints=\"15\" NumberOfCells=\"4\">") != NULL);
	a = array(xml, "u", &n, &nc, type);
	CHECK(a && n == 120);
	for (int i = 0; a && i < 15; i++)
		CHECK(f64(a + 8 * i) == u[i]);
	free(a);
	a = array(xml, NULL, &n, &nc, type);
	CHECK(a && n == 360);
	for (int i = 0; a && i < 15; i++)
		CHECK(f64(a + 24 * i) == s->node_x[2 * i] && f64(a + 24 * i + 8) == s->node_x[2 * i + 1]);
	free(a);
	a = array(xml, "connectivity", &n, &nc, type);
	CHECK(a && n == 4 * 6 * 8);
	for (int i = 0; a && i < 24; i++)
		CHECK(i64(a + 8 * i) == s->cell_nodes[i]);
	free(a);
	a = array(xml, "offsets", &n, &nc, type);
	for (int i = 0; a && i < 4; i++)
		CHECK(i64(a + 8 * i) == 6 * (i + 1));
	free(a);
	a = array(xml, "types", &n, &nc, type);
	for (int i = 0; a && i < 4; i++)
		CHECK(a[i] == 22);
	free(a);
	free(xml);
out:
	fe_space_free(s);
	mesh_free(m);
	m = mesh_interval(0, 1, 2, err, sizeof err);
	h = fe_space_make(m, FE_HERMITE3, 1, err, sizeof err);
	CHECK(vtu_write_space("h.vtu", h, NULL, 0, NULL, 0, err, sizeof err) == -1);
	CHECK_STR(err, "a Hermite field is written on its mesh (vtu_write): its nodes are not points");
	fe_space_free(h);
	mesh_free(m);
}

static void test_pvd(void)
{
	static const char *const files[] = { "block_0.vtu", "block_1.vtu" };
	static const double t[] = { 0, 0.1 };
	long len;
	char *s;

	CHECK(vtu_write_pvd("block.pvd", 2, files, t, err, sizeof err) == 0);
	s = slurp("block.pvd", &len);
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK_STR(s, "<?xml version=\"1.0\"?>\n"
	          "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
	          "  <Collection>\n"
	          "    <DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"block_0.vtu\"/>\n"
	          "    <DataSet timestep=\"0.10000000000000001\" group=\"\" part=\"0\" file=\"block_1.vtu\"/>\n"
	          "  </Collection>\n</VTKFile>\n");
	CHECK(well_formed(s));
	free(s);
}

static void test_errors(void)
{
	struct mesh *m = mesh_interval(0, 1, 3, err, sizeof err);
	double v[4] = { 0, 1, 2, 3 };
	struct vtu_field bad = { "v", 4, v, 0 };

	CHECK(vtu_write("nodir/x.vtu", m, NULL, 0, NULL, 0, err, sizeof err) == -1);
	CHECK_STR(err, "cannot write 'nodir/x.vtu': No such file or directory");
	CHECK(vtu_write_pvd("nodir/x.pvd", 0, NULL, NULL, err, sizeof err) == -1);
	CHECK_STR(err, "cannot write 'nodir/x.pvd': No such file or directory");
	CHECK(vtu_write("x.vtu", m, &bad, 1, NULL, 0, err, sizeof err) == -1);
	CHECK_STR(err, "point field 0: 1 to 3 components, values, a name");
	if (access("/dev/full", W_OK) == 0) {
		CHECK(vtu_write("/dev/full", m, NULL, 0, NULL, 0, err, sizeof err) == -1);
		CHECK_STR(err, "cannot write '/dev/full': No space left on device");
	}
	mesh_free(m);
}

int main(void)
{
	test_base64();
	test_vtu();
	test_space();
	test_pvd();
	test_errors();
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures != 0;
}
