/* parse.h — the front end's entry point: text in, syntax tree out. */
#ifndef DYN_PARSE_H
#define DYN_PARSE_H

#include <stddef.h>
#include "ast.h"

struct arena;

/* State shared by the scanner and the parser (yyextra and the parser's
 * parameter). */
struct parse_ctx {
	struct arena *arena;
	struct diag *diag;
	const char *file;
	struct ast_program *prog;
	/* scanner state: the stack of open brackets ('(' or '['), the last
	 * token returned (to decide whether a newline ends a statement), and
	 * whether the final newline has been sent */
	char brackets[64];
	int depth;
	int last;
	int eof_sent;
};

/* Parse text (len bytes, any content) as the named file.  Returns the
 * program, or NULL after reporting errors through diag. */
struct ast_program *parse_text(struct arena *a, struct diag *d, const char *file,
                               const char *text, size_t len);

#endif
