/* parser.y — dyn's grammar (DESIGN.md, "The language by example").
 *
 * A pure parser with locations; actions only call AST constructors.  Errors
 * recover at the end of the statement, so one run reports several.  The
 * expression grammar uses precedence declarations; the ones worth knowing:
 * '^' is right-associative and binds tighter than unary minus (-x^2 is
 * -(x^2)); the summand of sum(i in a..b) extends over '*' and '/' but stops
 * at '+' and '-', like Σ.
 */
%define api.pure full
%locations
%define parse.error custom
%define parse.lac full
%expect 0
%param {void *scanner}
%parse-param {struct parse_ctx *ctx}

%code requires {
#include "ast.h"
struct parse_ctx;
}

%code {
#include <string.h>
#include "arena.h"
#include "names.h"
#include "parse.h"

int yylex(YYSTYPE *lval, YYLTYPE *lloc, void *scanner);
static void yyerror(YYLTYPE *lloc, void *scanner, struct parse_ctx *ctx, const char *msg);

#define A (ctx->arena)
#define L(l) loc_of(ctx, &(l))
/* room for PARSE_MAX_DEPTH levels of the deepest rule (a^b^c...: two
 * stack entries a level), so that nest() says the limit, not bison's
 * "memory exhausted" at 4997 */
#define YYMAXDEPTH (4 * PARSE_MAX_DEPTH + 1000)

static struct loc loc_of(const struct parse_ctx *c, const YYLTYPE *l)
{
	struct loc loc = { c->file, l->first_line, l->first_column, 1 };
	if (l->last_line == l->first_line && l->last_column > l->first_column)
		loc.len = l->last_column - l->first_column;
	return loc;
}

/* The scanner's tokens as the parser sees them: the open braces and the
 * current statement's first token are noted for the messages of
 * yyreport_syntax_error, and after a misspelt keyword (ctx->skip) the rest
 * of its statement, a block included, is dropped up to the end of line
 * that closes it, so that the block's contents raise no errors of their
 * own. */
static int next_token(YYSTYPE *lval, YYLTYPE *lloc, void *scanner, struct parse_ctx *ctx)
{
	for (;;) {
		int prev = ctx->last;
		int t = yylex(lval, lloc, scanner);
		if (prev == 0 || prev == NEWLINE || prev == '{' || prev == '}') {
			ctx->ntok = 0;
			ctx->lead = t == IDENT ? lval->str : NULL;
			ctx->lead_loc = loc_of(ctx, lloc);
		}
		ctx->ntok++;
		ctx->tok_str = t == IDENT ? lval->str : NULL;
		ctx->prev_line = ctx->tok_line;
		ctx->tok_line = lloc->first_line;
		if (t == '{') {
			if (ctx->nbrace < (int)(sizeof ctx->braces / sizeof ctx->braces[0]))
				ctx->braces[ctx->nbrace] = loc_of(ctx, lloc);
			ctx->nbrace++;
		} else if (t == '}' && ctx->nbrace > 0) {
			ctx->nbrace--;
		}
		if (!ctx->skip || t == 0)
			return t;
		if (t == NEWLINE && ctx->nbrace <= ctx->skip_base) {
			ctx->skip = 0;
			return t;
		}
	}
}
#define yylex(lval, lloc, scanner) next_token(lval, lloc, scanner, ctx)

static struct ast_vec vec1(struct arena *a, void *p)
{
	struct ast_vec v = { 0, 0, NULL };
	ast_vec_push(a, &v, p);
	return v;
}

static struct ast_expr *run_expr(struct parse_ctx *ctx, struct ast_run *run)
{
	struct ast_expr *e = ast_expr_new(ctx->arena, AST_RUN, run->loc);
	e->run = run;
	return e;
}

/* The height of e's tree from its children's (a leaf is 0); past
 * PARSE_MAX_DEPTH the parse stops (YYABORT), before a long line builds a
 * tree of gigabytes. */
static int nest(struct parse_ctx *ctx, struct ast_expr *e)
{
	int d = 0;
	struct ast_expr *kids[] = { e->lhs, e->rhs, e->cond, e->lo, e->hi };
	for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
		if (kids[i] && kids[i]->depth >= d)
			d = kids[i]->depth + 1;
	for (int i = 0; i < e->args.n; i++) {
		struct ast_expr *v = ((struct ast_arg *)e->args.v[i])->value;
		if (v && v->depth >= d)
			d = v->depth + 1;
	}
	for (int i = 0; i < e->rows.n; i++) {
		struct ast_vec *r = e->rows.v[i];
		for (int j = 0; j < r->n; j++)
			if (((struct ast_expr *)r->v[j])->depth >= d)
				d = ((struct ast_expr *)r->v[j])->depth + 1;
	}
	e->depth = d;
	if (d <= PARSE_MAX_DEPTH)
		return 0;
	diag_error(ctx->diag, e->loc, "expression nested too deeply (more than %d levels): "
	           "use sum(i in a..b) for long sums", PARSE_MAX_DEPTH);
	return -1;
}

#define NESTED(e) do { if (nest(ctx, (e))) YYABORT; } while (0)

static struct ast_expr *name_expr(struct parse_ctx *ctx, const char *name, struct loc loc)
{
	struct ast_expr *e = ast_expr_new(ctx->arena, AST_NAME, loc);
	e->name = name;
	return e;
}

/* constraint FIELD on REGION == EXPR, contact FIELD on REGION >= EXPR, or
 * FIELD[i] on ... for a component: the field (target) and the component
 * (dir) from the expression before `on`, whose form lowering checks */
static struct ast_item *region_item(struct parse_ctx *ctx, enum ast_item_kind kind, struct loc loc,
                                    struct ast_expr *f, struct ast_expr *value)
{
	struct ast_item *it = ast_item_new(ctx->arena, kind, loc);
	it->target = f->kind == AST_INDEX ? f->lhs : f;
	it->dir = f->kind == AST_INDEX ? f->rhs : NULL;
	it->value = value;
	return it;
}

/* a contact on a region; restitution and friction may be NULL */
static struct ast_item *region_contact(struct parse_ctx *ctx, struct loc loc, struct ast_expr *f,
                                       struct ast_expr *value, struct ast_expr *restitution,
                                       struct ast_expr *friction)
{
	struct ast_item *it = region_item(ctx, AST_ITEM_CONTACT, loc, f, value);
	it->restitution = restitution;
	it->friction = friction;
	return it;
}
}

%union {
	double num;
	const char *str;
	struct ast_expr *expr;
	struct ast_stmt *stmt;
	struct ast_item *item;
	struct ast_arg *arg;
	struct ast_run *run;
	struct ast_record *record;
	struct ast_record_item *ritem;
	struct ast_model *model;
	struct ast_vec vec;
}

%token <num> NUMBER "number"
%token <str> IDENT "name" STRING "string"
%token NEWLINE "end of line" PRIME "'" DOTDOT ".."
%token EQ "==" NE "!=" LE "<=" GE ">="
%token BADTOKEN "invalid token"
%token PARAM "param" LET "let" FUNCTION "function" FOR "for" IN "in"
%token MODEL "model" DOF "dof" MASS "mass" DAMPING "damping"
%token STIFFNESS "stiffness" FORCE "force" SUPPORT "support" ALONG "along"
%token INIT "init" RUN "run" WITH "with" FROM "from" TO "to" STEP "step"
%token RECORD "record" EVERY "every" PRINT "print" CHECK "check"
%token WITHIN "within" RELATIVE "relative" PLOT "plot" VS "vs"
%token IMPORT "import" SCHEME "scheme" REQUIRE "require"
%token KINETIC "kinetic" POTENTIAL "potential" DISSIPATION "dissipation"
%token INTERNAL "internal" EQUILIBRIUM "equilibrium" CONSTRAINT "constraint"
%token CONTACT "contact" RESTITUTION "restitution" FRICTION "friction" LUMPED "lumped"
%token MESH "mesh" FIELD_KW "field" ON "on" FIX "fix" AT "at"
%token IF "if" THEN "then" ELSE "else" AND "and" OR "or" NOT "not" SUM "sum"

%type <expr> expr postfix primary dof_decl init_target
%type <stmt> stmt
%type <item> item
%type <arg> def arg run_option
%type <expr> init_item force_item
%type <run> run
%type <record> record
%type <ritem> record_item
%type <model> model_body
%type <vec> stmts block items defs names_opt names args_opt args
%type <expr> plot_item plot_curve
%type <vec> exprs plot_items run_options run_block records record_items
%type <vec> rows row dof_decls init_items force_items
%type <expr> record_to record_every require_opt

%precedence ELSE
%left OR
%left AND
%precedence NOT
%nonassoc EQ NE '<' LE '>' GE
%left '+' '-'
%precedence SUMMAND
%left '*' '/'
%precedence UMINUS
%right '^'

%start program

/* The REPL parses each input after the previous ones: lines keep counting. */
%initial-action {
	@$.first_line = @$.last_line = ctx->first_line;
	@$.first_column = @$.last_column = 1;
}

%%

program:
	stmts                   { ctx->prog->stmts = $1; }
	;

stmts:
	%empty                  { $$ = (struct ast_vec){ 0, 0, NULL }; }
	| stmts NEWLINE         { $$ = $1; }
	| stmts stmt NEWLINE    { $$ = $1; ast_vec_push(A, &$$, $2); }
	| stmts error NEWLINE   { $$ = $1; yyerrok; }
	;

block:
	'{' stmts '}'           { $$ = $2; }
	| '{' stmts stmt '}'    { $$ = $2; ast_vec_push(A, &$$, $3); }
	;

stmt:
	PARAM defs              { $$ = ast_stmt_new(A, AST_STMT_PARAM, L(@1)); $$->defs = $2; }
	| LET IDENT '=' expr    { $$ = ast_stmt_new(A, AST_STMT_LET, L(@1)); $$->name = $2; $$->name_loc = L(@2); $$->value = $4; }
	| LET IDENT '=' expr ',' defs {
		/* let a = 1, b = 2: several values (not runs: a run's options
		 * follow a comma too) */
		$$ = ast_stmt_new(A, AST_STMT_LET, L(@1)); $$->defs = vec1(A, ast_arg_new(A, $2, L(@2), $4));
		for (int i = 0; i < $6.n; i++) ast_vec_push(A, &$$->defs, $6.v[i]); }
	| LET IDENT '=' run     { $$ = ast_stmt_new(A, AST_STMT_LET, L(@1)); $$->name = $2; $$->name_loc = L(@2); $$->value = run_expr(ctx, $4); }
	| run                   { $$ = ast_stmt_new(A, AST_STMT_EXPR, $1->loc); $$->value = run_expr(ctx, $1); }
	| FUNCTION IDENT '(' names_opt ')' '=' expr {
		$$ = ast_stmt_new(A, AST_STMT_FUNCTION, L(@1)); $$->name = $2; $$->name_loc = L(@2);
		$$->params = $4; $$->value = $7; }
	| FOR IDENT IN expr DOTDOT expr block {
		$$ = ast_stmt_new(A, AST_STMT_FOR, L(@1)); $$->name = $2; $$->name_loc = L(@2);
		$$->lo = $4; $$->hi = $6; $$->body = $7; }
	| MODEL IDENT model_body { $$ = ast_stmt_new(A, AST_STMT_MODEL, L(@1)); $$->name = $2; $$->name_loc = L(@2);
		$$->model = $3; $3->name = $2; $3->loc = L(@2); }
	| SCHEME IDENT '(' names_opt ')' '=' expr require_opt {
		$$ = ast_stmt_new(A, AST_STMT_SCHEME, L(@1)); $$->name = $2; $$->name_loc = L(@2);
		$$->params = $4; $$->value = $7; $$->cond = $8; }
	| SCHEME IDENT '=' expr require_opt {
		$$ = ast_stmt_new(A, AST_STMT_SCHEME, L(@1)); $$->name = $2; $$->name_loc = L(@2);
		$$->value = $4; $$->cond = $5; }
	| PRINT exprs           { $$ = ast_stmt_new(A, AST_STMT_PRINT, L(@1)); $$->exprs = $2; }
	| CHECK expr            { $$ = ast_stmt_new(A, AST_STMT_CHECK, L(@1)); $$->value = $2; }
	| CHECK expr WITHIN expr { $$ = ast_stmt_new(A, AST_STMT_CHECK, L(@1)); $$->value = $2; $$->tol = $4; }
	| CHECK expr WITHIN expr RELATIVE {
		$$ = ast_stmt_new(A, AST_STMT_CHECK, L(@1)); $$->value = $2; $$->tol = $4; $$->relative = 1; }
	| PLOT plot_items TO expr run_options {
		$$ = ast_stmt_new(A, AST_STMT_PLOT, L(@1)); $$->exprs = $2; $$->path = $4; $$->defs = $5; }
	| PLOT plot_items       { $$ = ast_stmt_new(A, AST_STMT_PLOT, L(@1)); $$->exprs = $2; /* :plot's; a script's needs TO */ }
	| IMPORT IDENT          { $$ = ast_stmt_new(A, AST_STMT_IMPORT, L(@1)); $$->name = $2; $$->name_loc = L(@2); }
	| MESH IDENT '=' expr   { $$ = ast_stmt_new(A, AST_STMT_MESH, L(@1)); $$->name = $2; $$->name_loc = L(@2); $$->value = $4; }
	| expr                  { $$ = ast_stmt_new(A, AST_STMT_EXPR, $1->loc); $$->value = $1; }
	;

require_opt:
	%empty                  { $$ = NULL; }
	| REQUIRE expr          { $$ = $2; }
	;

defs:
	def                     { $$ = vec1(A, $1); }
	| defs ',' def          { $$ = $1; ast_vec_push(A, &$$, $3); }
	;

def:
	IDENT '=' expr          { $$ = ast_arg_new(A, $1, L(@1), $3); }
	;

names_opt:
	%empty                  { $$ = (struct ast_vec){ 0, 0, NULL }; }
	| names                 { $$ = $1; }
	;

names:
	IDENT                   { $$ = vec1(A, ast_arg_new(A, $1, L(@1), NULL)); }
	| names ',' IDENT       { $$ = $1; ast_vec_push(A, &$$, ast_arg_new(A, $3, L(@3), NULL)); }
	;

exprs:
	expr                    { $$ = vec1(A, $1); }
	| exprs ',' expr        { $$ = $1; ast_vec_push(A, &$$, $3); }
	;

/* plot Y, Y2 vs X as "label": each item is y or the pair (y vs x),
 * optionally named for the legend.  `as` is a word of this clause only,
 * not a reserved keyword. */
plot_items:
	plot_item               { $$ = vec1(A, $1); }
	| plot_items ',' plot_item { $$ = $1; ast_vec_push(A, &$$, $3); }
	;

plot_item:
	plot_curve
	| plot_curve IDENT STRING {
		if (strcmp($2, "as") != 0) {
			static const char *const after_curve[] = { "as", "to" };
			const char *close = name_closest($2, after_curve, 2);
			diag_error(ctx->diag, loc_of(ctx, &@2), "expected 'as \"label\"', ',' or 'to' after a curve of a plot, not '%s'%s%s%s",
			           $2, close ? "; did you mean '" : "", close ? close : "", close ? "'?" : "");
			YYERROR;
		}
		$$ = $1; $$->label = $3; }
	;

plot_curve:
	expr                    { $$ = $1; }
	| expr VS expr          { $$ = ast_pair(A, $1, $3, L(@2)); }
	;

/* ---- models ---- */

model_body:
	'{' items '}'           { $$ = arena_alloc(A, sizeof *$$); $$->items = $2; }
	| '{' items item '}'    { $$ = arena_alloc(A, sizeof *$$); $$->items = $2; ast_vec_push(A, &$$->items, $3); }
	;

items:
	%empty                  { $$ = (struct ast_vec){ 0, 0, NULL }; }
	| items NEWLINE         { $$ = $1; }
	| items item NEWLINE    { $$ = $1; ast_vec_push(A, &$$, $2); }
	| items error NEWLINE   { $$ = $1; yyerrok; }
	;

item:
	DOF dof_decls           { $$ = ast_item_new(A, AST_ITEM_DOF, L(@1)); $$->names = $2; }
	| INTERNAL dof_decls    { $$ = ast_item_new(A, AST_ITEM_INTERNAL, L(@1)); $$->names = $2; }
	| KINETIC expr          { $$ = ast_item_new(A, AST_ITEM_KINETIC, L(@1)); $$->value = $2; }
	| KINETIC LUMPED expr   {
		/* kinetic lumped integral(...): a diagonal (row-sum) mass */
		$$ = ast_item_new(A, AST_ITEM_KINETIC, L(@1)); $$->value = $3; $$->lumped = 1; }
	| POTENTIAL expr        { $$ = ast_item_new(A, AST_ITEM_POTENTIAL, L(@1)); $$->value = $2; }
	| DISSIPATION expr      { $$ = ast_item_new(A, AST_ITEM_DISSIPATION, L(@1)); $$->value = $2; }
	| CONSTRAINT expr       { $$ = ast_item_new(A, AST_ITEM_CONSTRAINT, L(@1)); $$->value = $2; }
	| CONSTRAINT expr ON expr {
		/* constraint u on REGION == EXPR (or u[i] on ...): value is REGION == EXPR */
		$$ = region_item(ctx, AST_ITEM_CONSTRAINT, L(@1), $2, $4); }
	| FIELD_KW IDENT ON IDENT ':' expr {
		$$ = ast_item_new(A, AST_ITEM_FIELD, L(@1)); $$->target = name_expr(ctx, $2, L(@2));
		$$->value = name_expr(ctx, $4, L(@4)); $$->dir = $6; }
	| INTERNAL IDENT ON IDENT ':' expr {
		/* an internal variable on a mesh: one value per cell (P0) */
		$$ = ast_item_new(A, AST_ITEM_FIELD, L(@1)); $$->target = name_expr(ctx, $2, L(@2));
		$$->value = name_expr(ctx, $4, L(@4)); $$->dir = $6; $$->internal = 1; }
	| FIX IDENT ON IDENT    {
		$$ = ast_item_new(A, AST_ITEM_FIX, L(@1)); $$->target = name_expr(ctx, $2, L(@2));
		$$->value = name_expr(ctx, $4, L(@4)); }
	| FIX IDENT '[' expr ']' ON IDENT {
		/* one component of a vector field (dir: its number) */
		$$ = ast_item_new(A, AST_ITEM_FIX, L(@1)); $$->target = name_expr(ctx, $2, L(@2)); $$->dir = $4;
		$$->value = name_expr(ctx, $7, L(@7)); }
	| CONTACT expr          { $$ = ast_item_new(A, AST_ITEM_CONTACT, L(@1)); $$->value = $2; }
	| CONTACT expr RESTITUTION expr {
		$$ = ast_item_new(A, AST_ITEM_CONTACT, L(@1)); $$->value = $2; $$->restitution = $4;
	}
	| CONTACT expr FRICTION expr {
		$$ = ast_item_new(A, AST_ITEM_CONTACT, L(@1)); $$->value = $2; $$->friction = $4;
	}
	| CONTACT expr RESTITUTION expr FRICTION expr {
		$$ = ast_item_new(A, AST_ITEM_CONTACT, L(@1)); $$->value = $2; $$->restitution = $4;
		$$->friction = $6;
	}
	| CONTACT expr FRICTION expr RESTITUTION expr {
		$$ = ast_item_new(A, AST_ITEM_CONTACT, L(@1)); $$->value = $2; $$->restitution = $6;
		$$->friction = $4;
	}
	| CONTACT expr FRICTION expr ALONG expr {
		$$ = ast_item_new(A, AST_ITEM_CONTACT, L(@1)); $$->value = $2; $$->friction = $4; $$->along = $6;
	}
	| CONTACT expr FRICTION expr RESTITUTION expr ALONG expr {
		$$ = ast_item_new(A, AST_ITEM_CONTACT, L(@1)); $$->value = $2; $$->restitution = $6;
		$$->friction = $4; $$->along = $8;
	}
	| CONTACT expr FRICTION expr ALONG expr RESTITUTION expr {
		$$ = ast_item_new(A, AST_ITEM_CONTACT, L(@1)); $$->value = $2; $$->restitution = $8;
		$$->friction = $4; $$->along = $6;
	}
	| CONTACT expr RESTITUTION expr FRICTION expr ALONG expr {
		$$ = ast_item_new(A, AST_ITEM_CONTACT, L(@1)); $$->value = $2; $$->restitution = $4;
		$$->friction = $6; $$->along = $8;
	}
	| CONTACT expr ON expr  { $$ = region_contact(ctx, L(@1), $2, $4, NULL, NULL); }
	| CONTACT expr ON expr RESTITUTION expr { $$ = region_contact(ctx, L(@1), $2, $4, $6, NULL); }
	| CONTACT expr ON expr FRICTION expr { $$ = region_contact(ctx, L(@1), $2, $4, NULL, $6); }
	| CONTACT expr ON expr RESTITUTION expr FRICTION expr {
		$$ = region_contact(ctx, L(@1), $2, $4, $6, $8);
	}
	| CONTACT expr ON expr FRICTION expr RESTITUTION expr {
		$$ = region_contact(ctx, L(@1), $2, $4, $8, $6);
	}
	| INIT EQUILIBRIUM      { $$ = ast_item_new(A, AST_ITEM_INIT, L(@1)); $$->equilibrium = 1; }
	| PARAM defs            { $$ = ast_item_new(A, AST_ITEM_PARAM, L(@1)); $$->defs = $2; }
	| LET defs              { $$ = ast_item_new(A, AST_ITEM_LET, L(@1)); $$->defs = $2; }
	| MASS expr             { $$ = ast_item_new(A, AST_ITEM_MASS, L(@1)); $$->value = $2; }
	| DAMPING expr          { $$ = ast_item_new(A, AST_ITEM_DAMPING, L(@1)); $$->value = $2; }
	| STIFFNESS expr        { $$ = ast_item_new(A, AST_ITEM_STIFFNESS, L(@1)); $$->value = $2; }
	| FORCE force_items     { $$ = ast_item_new(A, AST_ITEM_FORCE, L(@1)); $$->names = $2; }
	| SUPPORT expr ALONG expr { $$ = ast_item_new(A, AST_ITEM_SUPPORT, L(@1)); $$->value = $2; $$->dir = $4; }
	| INIT init_items       { $$ = ast_item_new(A, AST_ITEM_INIT, L(@1)); $$->names = $2; }
	| FOR IDENT IN expr DOTDOT expr model_body {
		/* a family of constraints: the items are checked by check.c */
		$$ = ast_item_new(A, AST_ITEM_FOR, L(@1)); $$->target = name_expr(ctx, $2, L(@2)); $$->value = $4;
		$$->dir = $6; $$->names = $7->items; }
	;

dof_decls:
	dof_decl                { $$ = vec1(A, $1); }
	| dof_decls ',' dof_decl { $$ = $1; ast_vec_push(A, &$$, $3); }
	;

dof_decl:
	IDENT                   { $$ = name_expr(ctx, $1, L(@1)); }
	| IDENT '[' expr ']'    { $$ = ast_expr_new(A, AST_INDEX, L(@1)); $$->lhs = name_expr(ctx, $1, L(@1)); $$->rhs = $3; }
	;

/* force EXPR (a vector, or a scalar for one dof) or force TARGET: EXPR
 * (the pair target: load). */
force_items:
	force_item              { $$ = vec1(A, $1); }
	| force_items ',' force_item { $$ = $1; ast_vec_push(A, &$$, $3); }
	;

force_item:
	expr                    { $$ = $1; }
	| expr ':' expr         { $$ = ast_pair(A, $1, $3, L(@2)); }
	| IDENT ON IDENT ':' expr {
		/* force u on REGION: traction (cond: the region) */
		$$ = ast_pair(A, name_expr(ctx, $1, L(@1)), $5, L(@4)); $$->cond = name_expr(ctx, $3, L(@3)); }
	;

init_items:
	init_item               { $$ = vec1(A, $1); }
	| init_items ',' init_item { $$ = $1; ast_vec_push(A, &$$, $3); }
	;

init_item:
	init_target '=' expr    { $$ = ast_pair(A, $1, $3, L(@2)); }
	;

init_target:
	IDENT                   { $$ = name_expr(ctx, $1, L(@1)); }
	| IDENT PRIME           { $$ = ast_expr_new(A, AST_PRIME, ast_span(L(@1), L(@2))); $$->lhs = name_expr(ctx, $1, L(@1)); $$->primes = 1; }
	| IDENT PRIME PRIME     { $$ = ast_expr_new(A, AST_PRIME, ast_span(L(@1), L(@3))); $$->lhs = name_expr(ctx, $1, L(@1)); $$->primes = 2; }
	| IDENT '[' expr ']'    { $$ = ast_expr_new(A, AST_INDEX, ast_span(L(@1), L(@4))); $$->lhs = name_expr(ctx, $1, L(@1)); $$->rhs = $3; }
	| IDENT '[' expr ']' PRIME {
		struct ast_expr *ix = ast_expr_new(A, AST_INDEX, ast_span(L(@1), L(@4))); ix->lhs = name_expr(ctx, $1, L(@1)); ix->rhs = $3;
		$$ = ast_expr_new(A, AST_PRIME, ast_span(L(@1), L(@5))); $$->lhs = ix; $$->primes = 1; }
	;

/* ---- runs ---- */

run:
	RUN IDENT WITH expr FROM expr TO expr STEP expr run_options run_block {
		$$ = arena_alloc(A, sizeof *$$); $$->loc = L(@1); $$->model = $2; $$->model_loc = L(@2);
		$$->scheme = $4; $$->t0 = $6; $$->t1 = $8; $$->dt = $10; $$->options = $11; $$->records = $12; }
	| RUN IDENT '(' defs ')' WITH expr FROM expr TO expr STEP expr run_options run_block {
		/* run MODEL(p = v, ...): the model's parameters for this run */
		$$ = arena_alloc(A, sizeof *$$); $$->loc = L(@1); $$->model = $2; $$->model_loc = L(@2);
		$$->overrides = $4;
		$$->scheme = $7; $$->t0 = $9; $$->t1 = $11; $$->dt = $13; $$->options = $14; $$->records = $15; }
	;

run_options:
	%empty                  { $$ = (struct ast_vec){ 0, 0, NULL }; }
	| run_options ',' run_option { $$ = $1; ast_vec_push(A, &$$, $3); }
	;

run_option:
	IDENT '=' expr          { $$ = ast_arg_new(A, $1, L(@1), $3); }
	;

run_block:
	%empty                  { $$ = (struct ast_vec){ 0, 0, NULL }; }
	| '{' records '}'       { $$ = $2; }
	| '{' records record '}' { $$ = $2; ast_vec_push(A, &$$, $3); }
	/* an error in a block's last line, when it ends the line that opened
	 * the block ({ record mass = u }): its '}' closes the block, not a
	 * later one (records' own recovery waits for the end of the line,
	 * which left every later statement inside the block) */
	| '{' records error '}' { $$ = $2; yyerrok; }
	;

records:
	%empty                  { $$ = (struct ast_vec){ 0, 0, NULL }; }
	| records NEWLINE       { $$ = $1; }
	| records record NEWLINE { $$ = $1; ast_vec_push(A, &$$, $2); }
	| records error NEWLINE { $$ = $1; yyerrok; }
	;

record:
	RECORD record_items record_to record_every {
		$$ = arena_alloc(A, sizeof *$$); $$->loc = L(@1); $$->items = $2; $$->path = $3; $$->every = $4; }
	| PLOT plot_items TO expr run_options {
		/* a plot of this run's quantities: plot sigma vs u to "h.svg" */
		$$ = arena_alloc(A, sizeof *$$); $$->loc = L(@1);
		$$->plot = ast_stmt_new(A, AST_STMT_PLOT, L(@1)); $$->plot->exprs = $2; $$->plot->path = $4;
		$$->plot->defs = $5; }
	;

record_items:
	record_item             { $$ = vec1(A, $1); }
	| record_items ',' record_item { $$ = $1; ast_vec_push(A, &$$, $3); }
	;

record_item:
	expr                    { $$ = arena_alloc(A, sizeof *$$); $$->expr = $1; $$->loc = $1->loc; }
	| IDENT '=' expr        { $$ = arena_alloc(A, sizeof *$$); $$->name = $1; $$->expr = $3; $$->loc = L(@1); }
	| postfix AT '(' exprs ')' {
		/* a field's value (u) or velocity (u') at a point */
		$$ = arena_alloc(A, sizeof *$$); $$->expr = $1; $$->loc = $1->loc;
		$$->at = $4; $$->has_at = 1; $$->at_loc = L(@2); }
	| IDENT '=' postfix AT '(' exprs ')' {
		$$ = arena_alloc(A, sizeof *$$); $$->name = $1; $$->expr = $3; $$->loc = L(@1);
		$$->at = $6; $$->has_at = 1; $$->at_loc = L(@4); }
	| FIELD_KW IDENT           {
		/* a whole field, to VTU files and their PVD index */
		$$ = arena_alloc(A, sizeof *$$); $$->expr = name_expr(ctx, $2, L(@2)); $$->loc = L(@1); $$->field = 1; }
	;

record_to:
	%empty                  { $$ = NULL; }
	| TO expr               { $$ = $2; }
	;

record_every:
	%empty                  { $$ = NULL; }
	| EVERY expr            { $$ = $2; }
	;

/* ---- expressions ---- */

expr:
	postfix
	| expr '+' expr         { $$ = ast_binary(A, AST_OP_ADD, $1, $3, L(@2)); NESTED($$); }
	| expr '-' expr         { $$ = ast_binary(A, AST_OP_SUB, $1, $3, L(@2)); NESTED($$); }
	| expr '*' expr         { $$ = ast_binary(A, AST_OP_MUL, $1, $3, L(@2)); NESTED($$); }
	| expr '/' expr         { $$ = ast_binary(A, AST_OP_DIV, $1, $3, L(@2)); NESTED($$); }
	| expr '^' expr         { $$ = ast_binary(A, AST_OP_POW, $1, $3, L(@2)); NESTED($$); }
	| expr '<' expr         { $$ = ast_binary(A, AST_OP_LT, $1, $3, L(@2)); NESTED($$); }
	| expr LE expr          { $$ = ast_binary(A, AST_OP_LE, $1, $3, L(@2)); NESTED($$); }
	| expr '>' expr         { $$ = ast_binary(A, AST_OP_GT, $1, $3, L(@2)); NESTED($$); }
	| expr GE expr          { $$ = ast_binary(A, AST_OP_GE, $1, $3, L(@2)); NESTED($$); }
	| expr EQ expr          { $$ = ast_binary(A, AST_OP_EQ, $1, $3, L(@2)); NESTED($$); }
	| expr NE expr          { $$ = ast_binary(A, AST_OP_NE, $1, $3, L(@2)); NESTED($$); }
	| expr AND expr         { $$ = ast_binary(A, AST_OP_AND, $1, $3, L(@2)); NESTED($$); }
	| expr OR expr          { $$ = ast_binary(A, AST_OP_OR, $1, $3, L(@2)); NESTED($$); }
	| NOT expr              { $$ = ast_unary(A, AST_OP_NOT, $2, L(@1)); NESTED($$); }
	| '-' expr %prec UMINUS { $$ = ast_unary(A, AST_OP_NEG, $2, L(@1)); NESTED($$); }
	| '+' expr %prec UMINUS { $$ = $2; }
	| IF expr THEN expr ELSE expr {
		$$ = ast_expr_new(A, AST_IF, L(@1)); $$->cond = $2; $$->lhs = $4; $$->rhs = $6; NESTED($$); }
	| SUM '(' IDENT IN expr DOTDOT expr ')' expr %prec SUMMAND {
		$$ = ast_expr_new(A, AST_SUM, L(@1)); $$->name = $3; $$->lo = $5; $$->hi = $7; $$->lhs = $9; NESTED($$); }
	;

postfix:
	primary
	| postfix '(' args_opt ')' { $$ = ast_expr_new(A, AST_CALL, $1->loc); $$->lhs = $1; $$->args = $3; NESTED($$); }
	| postfix '[' expr ']'  { $$ = ast_expr_new(A, AST_INDEX, ast_span($1->loc, L(@4))); $$->lhs = $1; $$->rhs = $3; NESTED($$); }
	| postfix '[' expr ',' expr ']' {
		$$ = ast_expr_new(A, AST_ENTRY, ast_span($1->loc, L(@6))); $$->lhs = $1; $$->lo = $3; $$->hi = $5; NESTED($$); }
	| postfix '.' IDENT     { $$ = ast_expr_new(A, AST_FIELD, ast_span($1->loc, L(@3))); $$->lhs = $1; $$->name = $3; NESTED($$); }
	| postfix PRIME         {
		if ($1->kind == AST_PRIME) { $$ = $1; $$->primes++; $$->loc = ast_span($1->loc, L(@2)); }
		else { $$ = ast_expr_new(A, AST_PRIME, ast_span($1->loc, L(@2))); $$->lhs = $1; $$->primes = 1; NESTED($$); } }
	;

primary:
	NUMBER                  { $$ = ast_expr_new(A, AST_NUM, L(@1)); $$->num = $1; }
	| STRING                { $$ = ast_expr_new(A, AST_STR, L(@1)); $$->str = $1; }
	| IDENT                 { $$ = name_expr(ctx, $1, L(@1)); }
	| KINETIC               { $$ = name_expr(ctx, "kinetic", L(@1)); }   /* record kinetic */
	| '(' expr ')'          { $$ = $2; }
	| '[' rows ']'          { $$ = ast_expr_new(A, AST_MATRIX, L(@1)); $$->rows = $2; NESTED($$); }
	;

rows:
	row                     { struct ast_vec *r = arena_alloc(A, sizeof *r); *r = $1; $$ = vec1(A, r); }
	| rows ';' row          { $$ = $1; struct ast_vec *r = arena_alloc(A, sizeof *r); *r = $3; ast_vec_push(A, &$$, r); }
	| rows ';'              { $$ = $1; }
	;

row:
	expr                    { $$ = vec1(A, $1); }
	| row ',' expr          { $$ = $1; ast_vec_push(A, &$$, $3); }
	;

args_opt:
	%empty                  { $$ = (struct ast_vec){ 0, 0, NULL }; }
	| args                  { $$ = $1; }
	;

args:
	arg                     { $$ = vec1(A, $1); }
	| args ',' arg          { $$ = $1; ast_vec_push(A, &$$, $3); }
	;

arg:
	expr                    { $$ = ast_arg_new(A, NULL, $1->loc, $1); }
	| expr DOTDOT expr      { $$ = ast_arg_new(A, NULL, $1->loc, ast_range(A, $1, $3, NULL, ast_span($1->loc, $3->loc))); }
	| expr DOTDOT expr STEP expr {
		$$ = ast_arg_new(A, NULL, $1->loc, ast_range(A, $1, $3, $5, ast_span($1->loc, $5->loc))); }
	| IDENT '=' expr        { $$ = ast_arg_new(A, $1, L(@1), $3); }
	;

%%

/* A token as messages show it: keywords quoted ('let'), classes of
 * tokens bare (name, number, end of line). */
static const char *token_text(yysymbol_kind_t sym, char *buf, size_t size)
{
	const char *s = yysymbol_name(sym);
	if (sym == YYSYMBOL_PRIME)   /* bare, ' reads as an open quote */
		return "prime (')";
	if (sym >= YYSYMBOL_PARAM && sym <= YYSYMBOL_SUM) {
		snprintf(buf, size, "'%s'", s);
		return buf;
	}
	return s;
}

/* The words that start a statement, and those that start a model item
 * (dyn(5), STATEMENTS and MODELS), for "did you mean" and the REPL's
 * completion; they follow the rules stmt and item above. */
const char *const parse_stmt_words[] = {
	"param", "let", "function", "for", "model", "mesh", "scheme", "print", "check", "plot", "import",
	"run", NULL
};
const char *const parse_item_words[] = {
	"dof", "internal", "field", "kinetic", "potential", "dissipation", "constraint", "contact",
	"fix", "param", "let", "mass", "damping", "stiffness", "force", "support", "init", NULL
};
#define stmt_words parse_stmt_words
#define item_words parse_item_words
#define NWORDS(w) ((int)(sizeof w / sizeof w[0]) - 1)

/* A name where a model item must start: the closest item, or the list. */
static void report_item(struct parse_ctx *ctx)
{
	const char *close = name_closest(ctx->lead, item_words, NWORDS(item_words));
	if (close) {
		diag_error(ctx->diag, ctx->lead_loc, "unknown model item '%s'; did you mean '%s'?", ctx->lead, close);
		return;
	}
	char list[256];
	int len = 0;
	for (int i = 0; i < NWORDS(item_words); i++)
		len += snprintf(list + len, sizeof list - (size_t)len, "%s%s", i ? ", " : "", item_words[i]);
	diag_error(ctx->diag, ctx->lead_loc, "unknown model item '%s' (items: %s)", ctx->lead, list);
}

/* Syntax errors name what was found and, when there are few, what was
 * expected.  A token the scanner already reported (BADTOKEN) is not
 * reported again.  Three cases say more: the end of the text inside a
 * block is reported at the '{' left open; a name where a model item
 * starts names the items; a statement whose first word is a name a typo
 * away from a keyword, followed by something no expression continues
 * with (`modle a {`), is that keyword misspelt, reported once for the
 * whole statement; a name found where a keyword a typo away from it may
 * come (`run a wiht newmark`, `from 0 to 1 setp 0.1`) is that keyword. */
static int yyreport_syntax_error(const yypcontext_t *pc, void *scanner, struct parse_ctx *ctx)
{
	(void)scanner;
	yysymbol_kind_t found = yypcontext_token(pc);
	if (found == YYSYMBOL_BADTOKEN || ctx->too_large)
		return 0;
	if (found == YYSYMBOL_YYEOF && ctx->nbrace > 0) {
		int k = ctx->nbrace - 1;
		int max = (int)(sizeof ctx->braces / sizeof ctx->braces[0]);
		diag_error(ctx->diag, ctx->braces[k < max ? k : max - 1], "this '{' is never closed: '}' missing");
		return 0;
	}
	yysymbol_kind_t all[YYNTOKENS];
	int nall = yypcontext_expected_tokens(pc, all, YYNTOKENS);
	if (found == YYSYMBOL_IDENT && ctx->ntok == 1 && ctx->lead) {
		for (int i = 0; i < nall; i++)
			if (all[i] == YYSYMBOL_DOF) {
				report_item(ctx);
				return 0;
			}
	}
	if (ctx->ntok == 2 && ctx->lead) {
		const char *close = name_closest(ctx->lead, stmt_words, NWORDS(stmt_words));
		if (close) {
			diag_error(ctx->diag, ctx->lead_loc, "unknown statement '%s'; did you mean '%s'?", ctx->lead, close);
			/* the lookahead, already read, may be the block's '{' */
			ctx->skip = ctx->last != NEWLINE;
			ctx->skip_base = ctx->nbrace - (ctx->last == '{');
			return 0;
		}
	}
	if (found == YYSYMBOL_IDENT && ctx->tok_str) {
		const char *kw[YYNTOKENS];
		int nkw = 0;
		for (int i = 0; i < nall; i++)
			if (all[i] >= YYSYMBOL_PARAM && all[i] <= YYSYMBOL_SUM)
				kw[nkw++] = yysymbol_name(all[i]);
		const char *close = name_closest(ctx->tok_str, kw, nkw);
		if (close) {
			diag_error(ctx->diag, loc_of(ctx, yypcontext_location(pc)),
			           "syntax error: unexpected name '%s'; did you mean '%s'?", ctx->tok_str, close);
			/* the rest of the statement, its block included, says nothing more */
			ctx->skip = 1;
			ctx->skip_base = ctx->nbrace;
			return 0;
		}
	}
	/* a keyword inside a line where a name may stand (record mass = u):
	 * say so (at a line's start it is more likely a statement after an
	 * unfinished one) */
	if (found >= YYSYMBOL_PARAM && found <= YYSYMBOL_SUM && ctx->ntok > 1 && ctx->tok_line == ctx->prev_line)
		for (int i = 0; i < nall; i++)
			if (all[i] == YYSYMBOL_IDENT) {
				diag_error(ctx->diag, loc_of(ctx, yypcontext_location(pc)),
				           "syntax error: '%s' is a keyword, not a name: take another name",
				           yysymbol_name(found));
				return 0;
			}
	enum { MAXEXP = 5 };
	yysymbol_kind_t expected[MAXEXP];
	int n = yypcontext_expected_tokens(pc, expected, MAXEXP);
	char buf[512], name[64];
	int len;
	if (found == YYSYMBOL_IDENT && ctx->tok_str)
		len = snprintf(buf, sizeof buf, "syntax error: unexpected name '%.60s'", ctx->tok_str);
	else
		len = snprintf(buf, sizeof buf, "syntax error: unexpected %s",
		               found == YYSYMBOL_YYEOF ? "end of file" : token_text(found, name, sizeof name));
	if (n > 0 && n < MAXEXP) {
		for (int i = 0; i < n && len < (int)sizeof buf; i++)
			len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%s",
			                i == 0 ? ", expecting " : i == n - 1 ? " or " : ", ",
			                token_text(expected[i], name, sizeof name));
	}
	diag_error(ctx->diag, loc_of(ctx, yypcontext_location(pc)), "%s", buf);
	return 0;
}

static void yyerror(YYLTYPE *lloc, void *scanner, struct parse_ctx *ctx, const char *msg)
{
	(void)scanner;
	if (ctx->too_large)
		return;
	if (strcmp(msg, "memory exhausted") == 0)
		msg = "expression nested too deeply";
	diag_error(ctx->diag, loc_of(ctx, lloc), "%s", msg);
}
