/* parse.c — runs the scanner and parser over a text held in memory (the
 * whole text is kept so that diagnostics can quote any line of it). */
#include <config.h>

#include <string.h>

#include "arena.h"
#include "parse.h"
#include "parser.h"

typedef void *yyscan_t;
int yylex_init_extra(struct parse_ctx *extra, yyscan_t *scanner);
int yylex_destroy(yyscan_t scanner);
struct yy_buffer_state *yy_scan_bytes(const char *bytes, int len, yyscan_t scanner);
void yyset_lineno(int line, yyscan_t scanner);

struct ast_program *parse_text(struct arena *a, struct diag *d, const char *file,
                               const char *text, size_t len)
{
	return parse_text_at(a, d, file, text, len, 1, NULL, 0);
}

struct ast_program *parse_text_at(struct arena *a, struct diag *d, const char *file, const char *text,
                                  size_t len, int first_line, const char *whole, size_t whole_len)
{
	struct parse_ctx ctx = { 0 };
	ctx.first_line = first_line;
	ctx.arena = a;
	ctx.diag = d;
	ctx.file = arena_strdup(a, file);
	ctx.prog = arena_alloc(a, sizeof *ctx.prog);
	/* a UTF-8 byte-order mark, as some editors write, is not part of the
	 * program */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		text += 3;
		len -= 3;
	}
	if (whole)
		diag_add_source(d, ctx.file, whole, whole_len);
	else
		diag_add_source(d, ctx.file, text, len);
	if (len > (size_t)1 << 30) {
		struct loc loc = { ctx.file, 1, 1, 1 };
		diag_error(d, loc, "file too large (%zu bytes)", len);
		return NULL;
	}

	int errors = d->errors;
	ctx.tree_start = arena_used(a);
	yyscan_t scanner;
	if (yylex_init_extra(&ctx, &scanner) != 0) {
		diag_plain(d, "cannot start the scanner");
		return NULL;
	}
	yy_scan_bytes(text, (int)len, scanner);
	int rc = yyparse(scanner, &ctx);
	yylex_destroy(scanner);
	if (rc != 0 || d->errors > errors)
		return NULL;
	return ctx.prog;
}
