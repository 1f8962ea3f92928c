/* parse.h — the front end's entry point: text in, syntax tree out. */
#ifndef DYN_PARSE_H
#define DYN_PARSE_H

#include <stddef.h>
#include "ast.h"

struct arena;

/* Brackets open at once: far beyond any written expression (a generated
 * one may wrap every operation in parentheses), and each one
 * costs the parser stack a few entries (dyn(5), EXPRESSIONS). */
enum { PARSE_MAX_BRACKETS = 1000 };

/* An expression nests at most PARSE_MAX_DEPTH operations deep (the
 * evaluator's limit, applied while parsing so that a long line is refused
 * before its tree is built), and the syntax tree of one text takes at most
 * PARSE_MAX_TREE bytes (10^6 definitions take about 500 MiB): work and
 * memory stay proportional to a sane input, whatever the input (dyn(5),
 * EXPRESSIONS). */
enum { PARSE_MAX_DEPTH = 5000 };
#define PARSE_MAX_TREE ((size_t)1 << 30)

/* State shared by the scanner and the parser (yyextra and the parser's
 * parameter). */
struct parse_ctx {
	struct arena *arena;
	struct diag *diag;
	const char *file;
	struct ast_program *prog;
	/* scanner state: the stack of open brackets ('(' or '['; at most
	 * PARSE_MAX_BRACKETS, beyond which an opening bracket is an error and
	 * depth still counts), the last token returned (to decide whether a
	 * newline ends a statement), and whether the final newline has been
	 * sent */
	char brackets[PARSE_MAX_BRACKETS];
	int depth;
	int last;
	int eof_sent;
	size_t tree_start;  /* arena_used() when the parse began */
	int too_large;      /* the tree passed PARSE_MAX_TREE: the parse stops */
	int first_line;     /* the line number of the text's first line */
	/* the parser's view of the tokens (parser.y, next_token): the open
	 * braces' places (the innermost PARSE_MAX_BRACES; nbrace counts them
	 * all), for a missing '}' reported at its '{'; the current
	 * statement's token count and its first token's text when a name,
	 * for "did you mean" on a misspelt keyword (and the last token's text,
 * for one misspelt in the middle of a statement); and, after such an
	 * error, skip: the tokens up to the end of the statement, its block
	 * included, are dropped (one error for `modle a { ... }`) */
	struct loc braces[64];
	int nbrace;
	int ntok;
	const char *lead;
	struct loc lead_loc;
	const char *tok_str;   /* the last token's text when a name */
	int prev_line, tok_line;   /* the lines of the token before the
	                              last one and of the last one */
	int skip, skip_base;
};

/* Parse text (len bytes, any content) as the named file.  Returns the
 * program, or NULL after reporting errors through diag. */
struct ast_program *parse_text(struct arena *a, struct diag *d, const char *file,
                               const char *text, size_t len);

/* The same for a piece of a longer text (the REPL's inputs): text starts
 * at line first_line of the named source, whose whole text (so far) is
 * whole, for quoting lines in diagnostics. */
struct ast_program *parse_text_at(struct arena *a, struct diag *d, const char *file, const char *text,
                                  size_t len, int first_line, const char *whole, size_t whole_len);

/* The keywords and their tokens, ending with { NULL, 0 } (lexer.l). */
struct parse_keyword {
	const char *name;
	int token;
};
extern const struct parse_keyword parse_keywords[];
/* The words that start a statement, and a model item (NULL-terminated). */
extern const char *const parse_stmt_words[];
extern const char *const parse_item_words[];

/* Whether a line break after the token tok does not end the statement
 * (an operator, a comma, an opening bracket...; lexer.l). */
int parse_token_continues(int tok);

/* The REPL asks the scanner, never a second lexer of its own: whether a
 * text needs another line (a bracket, parenthesis or brace is open, or its
 * last token is one after which a line break does not end the statement),
 * and how many bytes of a line are code, before the blanks and the
 * comment that end it.  Errors in the text are not reported here: the
 * parser reports them when the text is executed. */
int parse_needs_more(const char *text, size_t len);
size_t parse_code_length(const char *text, size_t len);

#endif
