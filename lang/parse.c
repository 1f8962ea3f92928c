/* parse.c — runs the scanner and parser over a text held in memory (the
 * whole text is kept so that diagnostics can quote any line of it). */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "parse.h"
#include "parser.h"

typedef void *yyscan_t;
int yylex_init_extra(struct parse_ctx *extra, yyscan_t *scanner);
int yylex_destroy(yyscan_t scanner);
struct yy_buffer_state *yy_scan_bytes(const char *bytes, int len, yyscan_t scanner);
void yyset_lineno(int line, yyscan_t scanner);
int yylex(YYSTYPE *yylval_param, YYLTYPE *yylloc_param, yyscan_t yyscanner);

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

/* How a text ends, by the scanner alone. */
struct scan_end {
	int open;       /* brackets, parentheses and braces open */
	int last;       /* the last token that is not a statement's end; 0: none */
	size_t end;     /* the bytes up to the end of that token */
};

static int scan(const char *text, size_t len, struct scan_end *out)
{
	static FILE *null;   /* the scanner's messages go nowhere */
	memset(out, 0, sizeof *out);
	if (!null)
		null = fopen("/dev/null", "w");
	struct arena *a = arena_new();
	if (!null || !a || len > (size_t)1 << 30) {
		if (a)
			arena_free(a);
		return -1;
	}
	struct diag d;
	diag_init(&d);
	d.out = null;
	d.max_errors = 0;
	struct parse_ctx ctx = { 0 };
	ctx.first_line = 1;
	ctx.arena = a;
	ctx.diag = &d;
	ctx.file = "<scan>";
	yyscan_t scanner;
	if (yylex_init_extra(&ctx, &scanner) != 0) {
		arena_free(a);
		return -1;
	}
	yy_scan_bytes(text, (int)len, scanner);
	YYSTYPE val;
	YYLTYPE loc = { 1, 1, 1, 1 };
	int braces = 0, line = 1, col = 1, tok;
	while ((tok = yylex(&val, &loc, scanner)) != 0) {
		if (tok == '{')
			braces++;
		else if (tok == '}' && braces > 0)
			braces--;
		if (tok != NEWLINE) {
			out->last = tok;
			line = loc.last_line;
			col = loc.last_column;
		}
	}
	out->open = ctx.depth + braces;
	yylex_destroy(scanner);
	arena_free(a);
	/* line and column (in bytes, from 1) of the end of the last token */
	size_t off = 0;
	for (int l = 1; l < line && off < len; off++)
		l += text[off] == '\n';
	out->end = out->last ? off + (size_t)col - 1 : 0;
	if (out->end > len)
		out->end = len;
	return 0;
}

int parse_needs_more(const char *text, size_t len)
{
	struct scan_end e;
	if (scan(text, len, &e))
		return 0;
	return e.open > 0 || (e.last && parse_token_continues(e.last));
}

size_t parse_code_length(const char *text, size_t len)
{
	struct scan_end e;
	if (scan(text, len, &e))
		return len;
	return e.end;
}
