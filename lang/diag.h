/* diag.h — the one path for diagnostics: "file:line:col: error: message",
 * the source line and a caret underline, on stderr. */
#ifndef DYN_DIAG_H
#define DYN_DIAG_H

#include <stddef.h>
#include <stdio.h>

/* A span in a source file; lines and columns count from 1.  Columns count
 * bytes, as the caret line reproduces tabs. */
struct loc {
	const char *file;
	int line, col;
	int len;          /* length of the underlined span on that line, >= 1 */
};

/* Source texts registered with diag_add_source, so that a diagnostic can
 * quote the line it is about. */
struct diag {
	int nsource;
	struct diag_source {
		const char *name;
		const char *text;
		size_t len;
	} source[16];
	int errors, warnings;
	int max_errors;   /* stop reporting after this many (0: no limit) */
	int warnings_off; /* --quiet */
	int muted;        /* the last error or warning was not shown: nor are
	                     its notes */
	FILE *out;        /* stderr, or a capture for tests */
};

void diag_init(struct diag *d);
/* The length of the well-formed UTF-8 character beyond ASCII at s[i] (2
 * to 4 bytes, all before end) that a terminal draws as a glyph, or 0 (a
 * control, a direction mark, a malformed byte): what a message and its
 * quoted line may show as itself. */
size_t diag_utf8_glyph(const char *s, size_t i, size_t end);
void diag_add_source(struct diag *d, const char *name, const char *text, size_t len);
void diag_error(struct diag *d, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_warning(struct diag *d, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A note attached to the previous diagnostic ("note: defined here"). */
void diag_note(struct diag *d, struct loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Line `line` of a registered source (len bytes, no newline), or NULL. */
const char *diag_source_line(const struct diag *d, const char *file, int line, size_t *len);

/* A message without a location: "dyn: error: ...". */
void diag_plain(struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
