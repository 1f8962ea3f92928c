/* diag.c — formats diagnostics the way compilers do (jq's locfile_locate,
 * bison's bistromathic): location, severity, message, then the source line
 * with a ^~~~ underline.  Nothing here exits: callers count errors and
 * decide. */
#include "diag.h"
#include "outfile.h"

#include <stdarg.h>
#include <string.h>

void diag_init(struct diag *d)
{
	memset(d, 0, sizeof *d);
	d->out = stderr;
	d->max_errors = 20;
}

void diag_add_source(struct diag *d, const char *name, const char *text, size_t len)
{
	for (int i = 0; i < d->nsource; i++) {
		if (strcmp(d->source[i].name, name) == 0) {
			d->source[i].text = text;
			d->source[i].len = len;
			return;
		}
	}
	if (d->nsource == (int)(sizeof d->source / sizeof d->source[0]))
		memmove(d->source, d->source + 1, sizeof d->source - sizeof d->source[0]), d->nsource--;
	d->source[d->nsource].name = name;
	d->source[d->nsource].text = text;
	d->source[d->nsource].len = len;
	d->nsource++;
}

/* The text of line `line` of the named source, or NULL. */
const char *diag_source_line(const struct diag *d, const char *file, int line, size_t *len);
static const char *find_line(const struct diag *d, const char *file, int line, size_t *len);

const char *diag_source_line(const struct diag *d, const char *file, int line, size_t *len)
{
	return find_line(d, file, line, len);
}

static const char *find_line(const struct diag *d, const char *file, int line, size_t *len)
{
	if (!file)
		return NULL;
	for (int i = d->nsource - 1; i >= 0; i--) {
		if (strcmp(d->source[i].name, file) != 0)
			continue;
		const char *p = d->source[i].text, *end = p + d->source[i].len;
		for (int l = 1; l < line && p < end; l++) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl)
				return NULL;
			p = nl + 1;
		}
		if (p > end)
			return NULL;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		*len = (size_t)((nl ? nl : end) - p);
		if (*len && p[*len - 1] == '\r')
			(*len)--;
		return p;
	}
	return NULL;
}

/* A line longer than QUOTE_MAX bytes is quoted as a window of QUOTE_WIDTH
 * bytes around the caret, "..." marking what is cut: a generated script
 * with a 10 MB line must not print 10 MB per diagnostic. */
enum { QUOTE_MAX = 160, QUOTE_WIDTH = 120 };

size_t diag_utf8_glyph(const char *s, size_t i, size_t end)
{
	const unsigned char *u = (const unsigned char *)s + i;
	size_t len = u[0] >= 0xC2 && u[0] <= 0xDF ? 2 : u[0] >= 0xE0 && u[0] <= 0xEF ? 3 : u[0] >= 0xF0 && u[0] <= 0xF4 ? 4 : 0;
	if (!len || i + len > end)
		return 0;
	unsigned long cp = u[0] & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
	for (size_t k = 1; k < len; k++) {
		if ((u[k] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (u[k] & 0x3F);
	}
	/* overlong forms, surrogates, beyond U+10FFFF (RFC 3629) */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
		return 0;
	/* what a terminal does not draw: C1 controls, zero-width and
	 * direction marks, line and paragraph separators, embeddings and
	 * isolates (they reorder the rest of the line), the no-break space and
	 * soft hyphen (they look like nothing typed), the byte-order mark,
	 * specials, tags */
	if (cp <= 0xA0 || cp == 0xAD || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
	    (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF || (cp >= 0xFFF0 && cp <= 0xFFFF) ||
	    (cp >= 0xE0000 && cp <= 0xE007F))
		return 0;
	return len;
}

/* The characters shown for bytes [a, b) of a line: a UTF-8 character is
 * one, every other byte one (printed as itself or '?'). */
static size_t glyphs(const char *s, size_t a, size_t b, size_t end)
{
	size_t g = 0;
	for (size_t i = a; i < b; i++, g++) {
		size_t u = (unsigned char)s[i] >= 0x80 ? diag_utf8_glyph(s, i, end) : 0;
		if (u)
			i += u - 1;
	}
	return g;
}

/* Print the source line and the caret line, each composed in a buffer
 * and written at once (stderr is unbuffered: one write per byte took 17 s
 * on a 10 MB line); bytes that are not printable ASCII (binary garbage)
 * are shown as '?' so the terminal stays sane, well-formed UTF-8 (a
 * comment in another language, a name typed as θ) as itself. */
static void quote(struct diag *d, struct loc loc)
{
	size_t n;
	const char *s = find_line(d, loc.file, loc.line, &n);
	if (!s)
		return;
	size_t col = loc.col < 1 ? 0 : (size_t)loc.col - 1;   /* the caret's byte, from 0 */
	if (col > n)
		col = n;
	size_t from = 0, to = n;
	if (n > QUOTE_MAX) {
		from = col > QUOTE_WIDTH / 2 ? col - QUOTE_WIDTH / 2 : 0;
		if (from + QUOTE_WIDTH > n)
			from = n - QUOTE_WIDTH;
		to = from + QUOTE_WIDTH;
	}
	const char *pre = from > 0 ? "..." : "", *post = to < n ? "..." : "";
	char buf[QUOTE_MAX + 16];
	size_t k = 0;
	k += (size_t)snprintf(buf, sizeof buf, "%s", pre);
	for (size_t i = from; i < to; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t u = c >= 0x80 ? diag_utf8_glyph(s, i, to) : 0;
		if (u) {
			memcpy(buf + k, s + i, u);
			k += u;
			i += u - 1;
			continue;
		}
		buf[k++] = c == '\t' || (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	k += (size_t)snprintf(buf + k, sizeof buf - k, "%s\n", post);
	fwrite(buf, 1, k, d->out);
	/* the caret line, tabs reproduced so that it lines up; a space per
	 * character shown (a UTF-8 character's bytes are one) */
	k = (size_t)snprintf(buf, sizeof buf, "%s", from > 0 ? "   " : "");
	for (size_t i = from; i < col; i++) {
		size_t u = (unsigned char)s[i] >= 0x80 ? diag_utf8_glyph(s, i, to) : 0;
		if (u)
			i += u - 1;
		buf[k++] = s[i] == '\t' ? '\t' : ' ';
	}
	buf[k++] = '^';
	size_t len = loc.len > 1 ? (size_t)loc.len : 1;
	if (col + len > to)
		len = to > col ? to - col : 1;
	for (size_t i = 1, g = glyphs(s, col, col + len, to); i < g; i++)
		buf[k++] = '~';
	buf[k++] = '\n';
	fwrite(buf, 1, k, d->out);
}

static void report(struct diag *d, struct loc loc, const char *what, const char *fmt, va_list ap)
{
	if (loc.file && loc.line > 0) {
		/* the file name comes from the command line or an import: its
		 * control characters must not reach the terminal as such */
		char name[512];
		fprintf(d->out, "%s:%d:%d: %s: ", rt_escape(name, sizeof name, loc.file), loc.line, loc.col, what);
	}
	else
		fprintf(d->out, "dyn: %s: ", what);
	vfprintf(d->out, fmt, ap);
	fputc('\n', d->out);
	if (loc.file && loc.line > 0)
		quote(d, loc);
}

void diag_error(struct diag *d, struct loc loc, const char *fmt, ...)
{
	d->errors++;
	d->muted = d->max_errors && d->errors > d->max_errors;
	if (d->muted) {
		if (d->errors == d->max_errors + 1)
			fprintf(d->out, "dyn: too many errors, stopping\n");
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	report(d, loc, "error", fmt, ap);
	va_end(ap);
}

void diag_warning(struct diag *d, struct loc loc, const char *fmt, ...)
{
	d->warnings++;
	d->muted = d->warnings_off;
	if (d->muted)
		return;
	va_list ap;
	va_start(ap, fmt);
	report(d, loc, "warning", fmt, ap);
	va_end(ap);
}

void diag_note(struct diag *d, struct loc loc, const char *fmt, ...)
{
	if (d->muted)
		return;
	va_list ap;
	va_start(ap, fmt);
	report(d, loc, "note", fmt, ap);
	va_end(ap);
}

void diag_plain(struct diag *d, const char *fmt, ...)
{
	d->errors++;
	d->muted = 0;
	va_list ap;
	va_start(ap, fmt);
	fputs("dyn: error: ", d->out);
	vfprintf(d->out, fmt, ap);
	fputc('\n', d->out);
	va_end(ap);
}
