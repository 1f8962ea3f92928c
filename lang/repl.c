/* repl.c — the interactive dyn: GNU readline with history and completion,
 * statements of the language, and commands to inspect models, schemes and
 * runs (:help lists them).  Input continues over several lines while a
 * bracket or brace is open or a line ends with an operator or comma, as
 * the language's scanner decides (parse_needs_more).
 * Ctrl-C at the prompt clears the line; during a run it stops the run and
 * keeps what was computed (a prepared run goes on at the next :step or
 * :run); Ctrl-D leaves.  The prompt uses readline's callback interface,
 * so that a signal never has to leave readline from its handler. */
#include <config.h>

#include "interp.h"
#include "parse.h"
#include "plot.h"
#include "repl.h"
#include "run.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

static struct session *S;
static int exit_requested;
/* Set while a statement or command is evaluated: a Ctrl-C then stops it
 * (rt_interrupted).  At any other time, at the prompt or between two
 * lines of a statement still being typed, it drops the line and the
 * statement (prompt_interrupted, taken by the next read_line): a Ctrl-C
 * that came while the previous line was being parsed was lost before. */
static volatile sig_atomic_t evaluating, prompt_interrupted;

/* The text typed so far, kept whole so that diagnostics can quote any
 * line of it as <stdin>:line:col. */
static char *typed;
static size_t typed_len, typed_cap;
static int typed_lines;

/* The handler only sets a flag: readline is never left from a signal
 * handler (a siglongjmp out of readline() left its state half-updated
 * and crashed at the next Ctrl-D); the prompt's loop sees the flag. */
static void on_sigint(int sig)
{
	(void)sig;
	if (evaluating)
		rt_interrupted = 1;
	else
		prompt_interrupted = 1;
}

/* ---- completion ---- */

static char *generator_any(const char *text, int state);

/* Words that are names to the parser but mean something in context: the
 * constants, and the options and values of a run (lower.c). */
static const char *const context_words[] = {
	"pi", "true", "false", "energy", "rayleigh", "modal", "solver", "history_budget", "tolerance",
	"max_iterations", "on_failure", "halve", "formulation", "index3", NULL
};

/* The commands: one table for :help, its listing and completion. */
static const struct command_info {
	const char *cmd, *args, *summary, *text;
} command_table[] = {
	{ ":help", "[TOPIC]", "this list, or one command or topic explained",
	  ":help [TOPIC] — the commands, or one (:help :eig), or a topic: language, schemes, records,\n"
	  "errors." },
	{ ":show", "NAME", "a model's dofs, parameters, operators and energies; a value",
	  ":show NAME — for a model: its dofs and internal variables, parameters, the matrices it\n"
	  "states (small ones in full, large ones by size, bandwidth and norm) and its other items\n"
	  "as written (energies, loads, support, constraints, contacts, init); for any other name\n"
	  "its value." },
	{ ":ir", "MODEL", "the model's intermediate representation",
	  ":ir MODEL — the lowered model as --dump-ir prints it: operators, load programs,\n"
	  "energies with their derived gradient and Hessian programs." },
	{ ":eig", "MODEL [K]", "natural frequencies and mode shapes (linearised at init)",
	  ":eig MODEL [K] — the generalized symmetric eigenproblem K phi = w^2 M phi at the\n"
	  "initial state: angular frequencies, frequencies in Hz, periods, mode shapes (up to 12\n"
	  "dofs).  All the modes of a model of up to 500 unknowns (LAPACK dsygvd), the lowest 10\n"
	  "of a larger one (ARPACK); K asks for the lowest K.  In a script: modes(MODEL, K)." },
	{ ":scheme", "NAME", "a scheme's parameters, order and spectral radius over omega*tau",
	  ":scheme NAME — the family and parameters a scheme resolves to, its order and\n"
	  "properties, and the spectral radius of its amplification matrix over omega*tau." },
	{ ":start", "let r = run ...", "prepare a run without stepping it",
	  ":start let r = run MODEL with SCHEME from T0 to T1 step DT — prepares the run;\n"
	  "r is the run so far, advanced by :step and :run." },
	{ ":step", "[N]", "advance the prepared run N steps (1) and show its state",
	  ":step [N] — N steps (1) of the prepared run, then its state." },
	{ ":run", "", "advance the prepared run to its end",
	  ":run — the prepared run to its end (Ctrl-C stops it, keeping what was computed; the next\n"
	  ":step or :run goes on from there)." },
	{ ":state", "", "the state of the prepared (or last) run",
	  ":state — time, step, dofs, velocities, internal variables." },
	{ ":energy", "", "the energy ledger of the prepared (or last) run",
	  ":energy — kinetic, stored, dissipated (per term), work and residual." },
	{ ":plot", "Y[, Y2] [vs X] [as \"LABEL\"]", "draw histories here, e.g. :plot r.u",
	  ":plot r.u[, r.v] [vs r.w] [as \"label\"] — a plot drawn with braille characters." },
	{ ":load", "FILE", "execute a script",
	  ":load FILE — execute a script in this session." },
	{ ":quit", "", "leave (Ctrl-D too)",
	  ":quit — leave; the history is kept in ~/.dyn_history." },
};
enum { NCOMMAND = sizeof command_table / sizeof command_table[0] };

/* Completion by context (rl_line_buffer before the word): at the start
 * of a line inside a model only its items; after `with` only schemes (the families, then the schemes the session defines);
 * after `r.` for a run r only its histories (dofs and internal
 * variables, energies, multipliers, recorded columns), the names that
 * `print r` lists.  Both lists come from the registries and the run
 * itself, so they cannot drift. */
enum { CTX_ANY, CTX_SCHEME, CTX_RUN, CTX_ITEM };
static int context;
static const struct run_value *context_run;

/* The word of the line that ends at byte end (skipping blanks back). */
static const char *word_before(const char *line, int end, char *buf, size_t size)
{
	int e = end;
	while (e > 0 && (line[e - 1] == ' ' || line[e - 1] == '\t'))
		e--;
	int b = e;
	while (b > 0 && (isalnum((unsigned char)line[b - 1]) || line[b - 1] == '_'))
		b--;
	size_t n = (size_t)(e - b) < size - 1 ? (size_t)(e - b) : size - 1;
	memcpy(buf, line + b, n);
	buf[n] = '\0';
	return buf;
}

static char *buffer;   /* a statement over several lines, so far */
static size_t blen;

static void find_context(int start)
{
	char w[64];
	context = CTX_ANY;
	context_run = NULL;
	/* the first word of a line inside `model NAME {`: a model item */
	int first = 1;
	for (int i = 0; i < start; i++)
		if (rl_line_buffer[i] != ' ' && rl_line_buffer[i] != '\t')
			first = 0;
	if (first && buffer && strncmp(buffer + strspn(buffer, " \t"), "model", 5) == 0) {
		context = CTX_ITEM;
		return;
	}
	if (start > 0 && rl_line_buffer[start - 1] == '.') {
		word_before(rl_line_buffer, start - 1, w, sizeof w);
		for (struct binding *b = S->globals->head; b; b = b->next)
			if (strcmp(b->name, w) == 0) {
				if (b->kind == B_VALUE && b->val.kind == VAL_RUN && b->val.run && b->val.run->res) {
					context = CTX_RUN;
					context_run = b->val.run;
				}
				break;
			}
		return;
	}
	if (strcmp(word_before(rl_line_buffer, start, w, sizeof w), "with") == 0)
		context = CTX_SCHEME;
}

/* The i-th history name of run rv (NULL past the last); names of a
 * vector dof once, without their index. */
static const char *run_word(const struct run_value *rv, int i, char *buf, size_t size)
{
	const struct ir_model *m = rv->plan->model;
	const struct rt_result *r = rv->res;
	for (int pass = 0; pass < 2; pass++) {
		const struct ir_dof_list *l = pass ? &m->intvars : &m->dofs;
		for (int g = 0; g < l->ngroup; g++)
			if (l->group[g].size > 0 && i-- == 0) {
				snprintf(buf, size, "%s", l->group[g].name);
				return buf;
			}
	}
	if (i < RT_NENERGY)
		return rt_energy_name[i];
	i -= RT_NENERGY;
	if (r->nlam > r->nimp + r->nimpt && i-- == 0)
		return "lambda";
	if (r->nimp && i-- == 0)
		return "impulse";
	if (r->nimpt && i-- == 0)
		return "impulse_t";
	if (i-- == 0)
		return "t";
	return i < r->ncol ? r->col_name[i] : NULL;
}

static char *generator(const char *text, int state)
{
	if (context == CTX_SCHEME) {
		static int k;
		static struct binding *sb;
		size_t len = strlen(text);
		if (!state) {
			k = 0;
			sb = S->globals->head;
		}
		while (k < IR_NFAMILY)
			if (strncmp(ir_family_info[k++].name, text, len) == 0)
				return strdup(ir_family_info[k - 1].name);
		while (sb) {
			struct binding *x = sb;
			sb = sb->next;
			if (x->kind == B_SCHEME && strncmp(x->name, text, len) == 0)
				return strdup(x->name);
		}
		return NULL;
	}
	if (context == CTX_ITEM) {
		static int k;
		if (!state)
			k = 0;
		while (parse_item_words[k])
			if (strncmp(parse_item_words[k++], text, strlen(text)) == 0)
				return strdup(parse_item_words[k - 1]);
		return NULL;
	}
	if (context == CTX_RUN) {
		static int k;
		char buf[128];
		const char *w;
		if (!state)
			k = 0;
		while ((w = run_word(context_run, k++, buf, sizeof buf)))
			if (strncmp(w, text, strlen(text)) == 0)
				return strdup(w);
		return NULL;
	}
	return generator_any(text, state);
}

static char *generator_any(const char *text, int state)
{
	static int phase, i;
	static struct binding *b;
	size_t len = strlen(text);
	if (!state) {
		phase = text[0] == ':' ? 0 : 1;
		i = 0;
		b = S->globals->head;
	}
	if (phase == 0) {
		while (i < NCOMMAND)
			if (strncmp(command_table[i++].cmd, text, len) == 0)
				return strdup(command_table[i - 1].cmd);
		return NULL;
	}
	if (phase == 1) {
		/* the scanner's own keyword table, then the words in context */
		while (parse_keywords[i].name)
			if (strncmp(parse_keywords[i++].name, text, len) == 0)
				return strdup(parse_keywords[i - 1].name);
		phase = 5;
		i = 0;
	}
	if (phase == 5) {
		while (context_words[i])
			if (strncmp(context_words[i++], text, len) == 0)
				return strdup(context_words[i - 1]);
		phase = 2;
		i = 0;
	}
	if (phase == 2) {
		while (builtin_names[i])
			if (strncmp(builtin_names[i++], text, len) == 0)
				return strdup(builtin_names[i - 1]);
		phase = 3;
		i = 0;
	}
	if (phase == 3) {
		while (i < IR_NFAMILY)
			if (strncmp(ir_family_info[i++].name, text, len) == 0)
				return strdup(ir_family_info[i - 1].name);
		phase = 4;
	}
	/* names in scope: params, lets, functions, models, schemes */
	while (b) {
		struct binding *x = b;
		b = b->next;
		if (strncmp(x->name, text, len) == 0 && x->name[0] != '$')
			return strdup(x->name);
	}
	return NULL;
}

static char **complete(const char *text, int start, int end)
{
	(void)end;
	rl_attempted_completion_over = 1;   /* no file names */
	find_context(start);
	/* a history is followed by (T) or an operator, not a blank */
	rl_completion_append_character = context == CTX_RUN ? '\0' : ' ';
	return rl_completion_matches(text, generator);
}

/* ---- input ---- */

static void remember(const char *text)
{
	size_t n = strlen(text);
	if (typed_len + n + 1 > typed_cap) {
		size_t cap = typed_cap ? typed_cap : 4096;
		while (cap < typed_len + n + 1)
			cap *= 2;
		char *t = realloc(typed, cap);
		if (!t)
			return;
		typed = t;
		typed_cap = cap;
	}
	memcpy(typed + typed_len, text, n + 1);
	typed_len += n;
}

static void execute(const char *text)
{
	int first = typed_lines + 1;
	size_t off = typed_len;
	remember(text);
	for (const char *p = text; *p; p++)
		typed_lines += *p == '\n';
	/* the diagnostics quote the whole input: copy it into the arena so
	 * later growth of the buffer does not move what they point at */
	char *whole = arena_strndup(S->arena, typed, typed_len);
	struct ast_program *prog = parse_text_at(S->arena, &S->diag, "<stdin>", whole + off, typed_len - off, first,
	                                         whole, typed_len);
	S->status = 0;
	rt_interrupted = 0;   /* a Ctrl-C before this input is not for it */
	if (prog)
		session_exec_program(S, prog);
	S->diag.errors = 0;
}

/* ---- commands ---- */

static void help(const char *topic)
{
	if (!topic || !*topic) {
		puts("Statements of the language are executed as typed; an expression alone prints its value.\n"
		     "Commands:");
		int w = 0;
		for (int i = 0; i < NCOMMAND; i++) {
			int k = (int)(strlen(command_table[i].cmd) + 1 + strlen(command_table[i].args));
			w = k > w ? k : w;
		}
		for (int i = 0; i < NCOMMAND; i++) {
			char head[64];
			snprintf(head, sizeof head, "%s %s", command_table[i].cmd, command_table[i].args);
			printf("  %-*s  %s\n", w, head, command_table[i].summary);
		}
		puts("Tab completes names, keywords, schemes and commands; Ctrl-C stops a run.\n"
		     "Topics: language, schemes, records, errors.  See dyn(1) and dyn(5).");
		return;
	}
	if (topic[0] != ':') {
		if (strcmp(topic, "schemes") == 0) {
			/* from the registries, so that the list cannot drift:
			 * the families (ir_families.def) and the named schemes
			 * in scope (the library's and the session's) */
			fputs("Scheme families:", stdout);
			for (int i = 0; i < IR_NFAMILY; i++) {
				const struct ir_family_info *fi = &ir_family_info[i];
				printf("%s %s", i ? "," : "", fi->name);
				for (int j = 0; j < fi->nparam; j++)
					printf("%s%s", j ? ", " : "(", fi->param[j]);
				fputs(fi->nparam ? ")" : "", stdout);
			}
			fputs(".\nNamed schemes:", stdout);
			int first = 1;
			for (struct binding *b = S->globals->head; b; b = b->next)
				if (b->kind == B_SCHEME) {
					printf("%s %s", first ? "" : ",", b->name);
					first = 0;
				}
			puts(".\nTry :scheme NAME, or dyn --list-schemes.");
		}		else if (strcmp(topic, "records") == 0)
			puts("run ... { record t, u, u', energy, NAME = EXPR to \"file.csv\" every N }\n"
			     "energy is kinetic, stored, dissipated, work, residual; dissipated[k] per term.\n"
			     "A run r gives r.u(T), r.u'(T), r.x[2](T), r.kinetic(T), r.NAME(T) and r.u for plots.");
		else if (strcmp(topic, "errors") == 0)
			puts("Errors name file:line:col (<stdin> here).  Exit codes of scripts: 0 ok, 1 a check failed,\n"
			     "2 usage, 3 before stepping, 4 numerical failure, 130 interrupted.");
		else if (strcmp(topic, "language") == 0) {
			/* the scanner's keyword table */
			fputs("Keywords:", stdout);
			for (int i = 0; parse_keywords[i].name; i++)
				printf("%s %s", i ? "," : "", parse_keywords[i].name);
			puts(".\nSee dyn(5) for each.");
		} else
			printf("no help on '%s'; topics: language, schemes, records, errors, or a command (:help :eig)\n",
			       topic);
		return;
	}
	for (int i = 0; i < NCOMMAND; i++)
		if (strcmp(command_table[i].cmd, topic) == 0) {
			puts(command_table[i].text);
			return;
		}
	printf("no help on '%s'; :help lists the commands\n", topic);
}

/* A source line without its indentation. */
static const char *skip_blanks(const char *line, size_t *len)
{
	while (*len && (*line == ' ' || *line == '\t')) {
		line++;
		(*len)--;
	}
	return line;
}

static void print_matrix(const char *name, int n, const struct ir_matrix *op)
{
	const double *a = op->a;
	if (!a && ir_matrix_has_entries(op)) {
		/* held as its entries (beyond the dense operators' size, or
		 * read from a file), as --dump-ir says */
		printf("  %s: %d x %d, %ld entries stored (sparse)\n", name, n, n, ir_matrix_count(op));
		return;
	}
	if (!a) {
		printf("  %s: none\n", name);
		return;
	}
	if (n <= 8) {
		/* columns as wide as the widest entry, so that long ones line up */
		int w = 1;
		for (size_t i = 0; i < (size_t)n * n; i++) {
			char buf[32];
			value_format_num(a[i], buf);
			if ((int)strlen(buf) > w)
				w = (int)strlen(buf);
		}
		printf("  %s:\n", name);
		for (int i = 0; i < n; i++) {
			fputs("    [", stdout);
			for (int j = 0; j < n; j++) {
				char buf[32];
				value_format_num(a[i + (size_t)j * n], buf);
				printf(" %*s", w, buf);
			}
			puts(" ]");
		}
		return;
	}
	int kl = 0, ku = 0;
	double fro = 0, mx = 0;
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++) {
			double x = a[i + (size_t)j * n];
			if (x != 0) {
				if (i - j > kl)
					kl = i - j;
				if (j - i > ku)
					ku = j - i;
			}
			fro += x * x;
			mx = fmax(mx, fabs(x));
		}
	printf("  %s: %d x %d, bandwidth %d below and %d above the diagonal, Frobenius norm %.6g, "
	       "largest entry %.6g\n", name, n, n, kl, ku, sqrt(fro), mx);
}

/* Where the current command's argument is: the command's line is part of
 * the session's text, so that its errors quote it (not an earlier line). */
static int cmd_line, arg_col;

/* The statement a command stands for (:show NAME, :start, :plot),
 * parsed at the command's own line, its columns shifted by col so that
 * they fall where the user typed them: the session's lines stay counted
 * as typed (the statement is not a line of its own). */
static void execute_for_command(const char *text, int col)
{
	size_t n = strlen(text), pad = col > 0 ? (size_t)col : 0;
	char *src = arena_alloc(S->arena, n + pad + 1);
	memset(src, ' ', pad);
	memcpy(src + pad, text, n + 1);
	char *whole = arena_strndup(S->arena, typed, typed_len);
	struct ast_program *prog = parse_text_at(S->arena, &S->diag, "<stdin>", src, n + pad, cmd_line, whole,
	                                         typed_len);
	S->status = 0;
	rt_interrupted = 0;
	if (prog)
		session_exec_program(S, prog);
	S->diag.errors = 0;
}

/* Whether a :start argument is a run statement: [let NAME =] run ... */
static int is_run_statement(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	if (strncmp(s, "let", 3) == 0 && isspace((unsigned char)s[3])) {
		s += 3;
		while (isspace((unsigned char)*s))
			s++;
		while (isalnum((unsigned char)*s) || *s == '_')
			s++;
		while (isspace((unsigned char)*s))
			s++;
		if (*s++ != '=')
			return 0;
		while (isspace((unsigned char)*s))
			s++;
	}
	return strncmp(s, "run", 3) == 0 && (isspace((unsigned char)s[3]) || s[3] == '\0');
}

static struct ir_model *model_of(const char *name)
{
	struct eval ev;
	session_eval_init(S, &ev);
	struct loc loc = { "<stdin>", cmd_line, arg_col, (int)strlen(name) };
	struct ir_model *m = NULL;
	if (lower_model_named(&ev, name, loc, &m))
		return NULL;
	return m;
}

static void show(const char *name)
{
	struct binding *b = scope_lookup(S->globals, name);
	if (!b && strcmp(name, "pi") == 0) {
		execute_for_command("pi\n", arg_col - 1);
		return;
	}
	if (!b && builtin_exists(name)) {
		printf("%s: a built-in function (:help language lists them, dyn(5) explains them)\n", name);
		return;
	}
	for (int i = 0; !b && i < IR_NFAMILY; i++)
		if (strcmp(ir_family_info[i].name, name) == 0) {
			printf("%s: a built-in scheme family (:scheme %s shows its parameters and spectral radius)\n", name,
			       name);
			return;
		}
	if (!b) {
		/* a diagnostic at the command's argument, as :eig's */
		struct eval ev;
		session_eval_init(S, &ev);
		struct loc loc = { "<stdin>", cmd_line, arg_col, (int)strlen(name) };
		eval_error(&ev, loc, "undefined name '%s'", name);
		S->diag.errors = 0;
		return;
	}
	if (b->kind == B_VALUE) {
		char *buf = arena_printf(S->arena, "%s\n", name);
		execute_for_command(buf, arg_col - 1);
		return;
	}
	if (b->kind != B_MODEL) {
		size_t len;
		const char *line = diag_source_line(&S->diag, b->stmt->loc.file, b->stmt->loc.line, &len);
		printf("%s: %s", name, b->kind == B_FUNCTION ? "a function" : "a scheme");
		if (line)
			printf(", %.*s", (int)len, line);
		putchar('\n');
		return;
	}
	struct ir_model *m = model_of(name);
	if (!m)
		return;
	printf("model %s: %d dof%s", m->name, m->ndof, m->ndof == 1 ? "" : "s");
	if (m->nint)
		printf(", %d internal variable%s", m->nint, m->nint == 1 ? "" : "s");
	putchar('\n');
	for (int i = 0; i < m->nfe; i++) {
		/* a continuum body: its meshes, elements and unknowns */
		const struct ir_fe_info *fi = &m->fe[i];
		printf("  %s %s on %s (%ld %s cells, %ld nodes): %s", fi->internal ? "internal" : "field", fi->field,
		       fi->mesh, fi->ncells, fi->cell, fi->nnodes, fi->element);
		if (fi->ncomp > 1)
			printf("^%d", fi->ncomp);
		printf(", %ld %s, %ld fixed\n", fi->nfree, fi->internal ? "internal variables" : "unknowns",
		       fi->ndofs - fi->nfree);
	}
	ir_dump_storage(stdout, m, NULL);
	char nm[IR_NAME_SIZE];
	fputs("  dofs:", stdout);
	for (int i = 0; i < m->ndof && i < 20; i++)
		printf(" %s", ir_dof_name(m, i, nm, sizeof nm));
	puts(m->ndof > 20 ? " ..." : "");
	if (m->nint) {
		fputs("  internal:", stdout);
		for (int j = 0; j < m->nint; j++)
			printf(" %s", ir_intvar_name(m, j, nm, sizeof nm));
		putchar('\n');
	}
	/* parameters: each source line once, however many it defines */
	int shown = 0;
	for (int i = 0; i < b->stmt->model->items.n; i++) {
		struct ast_item *it = b->stmt->model->items.v[i];
		if (it->kind != AST_ITEM_PARAM)
			continue;
		for (int k = 0; k < it->defs.n; k++) {
			struct ast_arg *d = it->defs.v[k];
			if (d->loc.line == shown)
				continue;
			shown = d->loc.line;
			size_t len;
			const char *line = diag_source_line(&S->diag, d->loc.file, d->loc.line, &len);
			if (line)
				printf("  %.*s\n", (int)len, skip_blanks(line, &len));
		}
	}
	/* the matrices a model states; a model of energies has its operators
	 * in its energies (an all-zero stiffness said nothing) */
	if (!m->kinetic)
		print_matrix("mass", m->ndof, &m->mass);
	if (m->kinetic)
		puts("  mass: depends on the configuration (kinetic energy)");
	if (m->damping_kind == IR_DAMP_MODAL)
		if (m->nmodal_xi == 1) {
			printf("  damping: modal, %g of critical in every mode\n", m->modal_xi[0]);
		} else {
			printf("  damping: modal, of critical");
			for (int k = 0; k < m->nmodal_xi; k++)
				printf(" %g", m->modal_xi[k]);
			printf(" from the lowest mode (the last beyond)\n");
		}
	else if (!m->dissipation)
		print_matrix("damping", m->ndof, &m->damping);
	if (!m->potential)
		print_matrix("stiffness", m->ndof, &m->stiffness);
	/* every other item as written: energies, loads, support, constraints,
	 * contacts, initial state */
	shown = 0;
	for (int i = 0; i < b->stmt->model->items.n; i++) {
		struct ast_item *it = b->stmt->model->items.v[i];
		switch (it->kind) {
		case AST_ITEM_DOF: case AST_ITEM_INTERNAL: case AST_ITEM_PARAM:
		case AST_ITEM_MASS: case AST_ITEM_DAMPING: case AST_ITEM_STIFFNESS:
			continue;
		default:
			break;
		}
		if (it->loc.line == shown)
			continue;
		shown = it->loc.line;
		size_t len;
		const char *line = diag_source_line(&S->diag, it->loc.file, it->loc.line, &len);
		if (line)
			printf("  %.*s\n", (int)len, skip_blanks(line, &len));
	}
	if (m->potential)
		printf("  potential: %s, gradient of %d entries, Hessian with %d nonzeros (:ir %s shows them)\n",
		       m->potential->quadratic ? "quadratic" : "nonlinear", m->potential->nvar, m->potential->nnz, name);
	if (m->dissipation)
		printf("  dissipation: %s%s, Hessian with %d nonzeros\n", m->dissipation->quadratic ? "quadratic" : "nonlinear",
		       m->dissipation->nonsmooth ? ", nonsmooth" : "", m->dissipation->nnz);
	/* one line per term, up to a few: an internal variable per cell has
	 * one per cell */
	int nsig = 0;
	shown = 0;
	for (int j = 0; j < m->nint; j++)
		nsig += m->sigma[j] > 0;
	for (int j = 0; j < m->nint && shown < (nsig > 6 ? 3 : 6); j++)
		if (m->sigma[j] > 0) {
			printf("  rate-independent: %g |%s'| (solved exactly by return mapping)\n", m->sigma[j],
			       ir_intvar_name(m, j, nm, sizeof nm));
			shown++;
		}
	if (nsig > shown)
		printf("  rate-independent: ... %d terms in all\n", nsig);
}

/* :eig MODEL [K] */
/* :eig's model, MODEL or MODEL(p = v, ...) as modes() takes it, parsed
 * at the command's line (errors point where it was typed) */
static struct ir_model *model_expr_of(const char *text, size_t len)
{
	struct eval ev;
	session_eval_init(S, &ev);
	size_t pad = arg_col > 1 ? (size_t)arg_col - 1 : 0;
	char *src = arena_alloc(S->arena, len + pad + 2);
	memset(src, ' ', pad);
	memcpy(src + pad, text, len);
	memcpy(src + pad + len, "\n", 2);
	char *whole = arena_strndup(S->arena, typed, typed_len);
	struct ast_program *prog = parse_text_at(S->arena, &S->diag, "<stdin>", src, len + pad + 1, cmd_line, whole,
	                                         typed_len);
	struct ir_model *m = NULL;
	if (prog && prog->stmts.n == 1 && ((struct ast_stmt *)prog->stmts.v[0])->kind == AST_STMT_EXPR)
		lower_model_expr(&ev, ((struct ast_stmt *)prog->stmts.v[0])->value, ":eig", &m);
	else if (prog)
		puts("usage: :eig MODEL [K] or :eig MODEL(p = v, ...) [K]");
	S->diag.errors = 0;
	return m;
}

static void eig(const char *arg)
{
	char name[256];
	/* MODEL, or MODEL(...) up to its closing parenthesis */
	size_t len = strcspn(arg, " \t(");
	if (arg[len] == '(') {
		int depth = 0;
		for (; arg[len]; len++)
			if (arg[len] == '(')
				depth++;
			else if (arg[len] == ')' && --depth == 0) {
				len++;
				break;
			}
	}
	if (len >= sizeof name) {
		printf("undefined model '%s'\n", arg);
		return;
	}
	memcpy(name, arg, len);
	name[len] = 0;
	const char *karg = arg + len + strspn(arg + len, " \t");
	long kwant = 0;
	if (*karg) {
		char *end;
		errno = 0;
		kwant = strtol(karg, &end, 10);
		if (errno || end == karg || *end || kwant < 1) {
			printf("usage: :eig MODEL [K], K the number of modes (a whole number >= 1), not '%s'\n", karg);
			return;
		}
	}
	struct ir_model *m = strchr(name, '(') ? model_expr_of(name, len) : model_of(name);
	if (!m)
		return;
	int n = m->ndof;
	if (kwant > n) {
		printf("model %s has %d dof%s: at most %d mode%s, not %ld\n", name, n, n == 1 ? "" : "s", n,
		       n == 1 ? "" : "s", kwant);
		return;
	}
	/* all the modes of a small model (the first K shown when asked);
	 * the lowest K, or 10, of a large one (ARPACK, rt_modes) */
	int large = n + m->nint > RT_MODES_DENSE_MAX;
	int kmax = large ? (kwant ? (int)kwant : (n < 10 ? n : 10)) : 0;
	double *w2 = malloc(sizeof(double) * (size_t)n);
	double *phi = malloc(sizeof(double) * (size_t)n * (size_t)(kmax ? kmax : n));
	struct rt_error err;
	int nm = 0;
	if (!w2 || !phi || rt_modes(m, kmax, w2, phi, &nm, &err)) {
		printf("%s\n", w2 && phi ? err.msg : "out of memory");
		free(w2);
		free(phi);
		return;
	}
	if (kwant && nm > kwant)
		nm = (int)kwant;
	if (large && !kwant)
		printf("the lowest %d modes of %d unknowns (:eig %s K for the lowest K)\n", nm, n, name);
	printf("%-5s %16s %16s %16s\n", "mode", "omega (rad/s)", "f (Hz)", "period (s)");
	int unstable = 0;
	for (int k = 0; k < nm; k++) {
		if (w2[k] < 0) {
			/* K not positive there: the state moves away exponentially,
			 * at the rate sqrt(-omega^2); no frequency or period */
			printf("%-5d unstable: omega^2 = %.8g < 0, growth rate %.8g 1/s\n", k + 1, w2[k], sqrt(-w2[k]));
			unstable = 1;
			continue;
		}
		double w = sqrt(w2[k]);
		printf("%-5d %16.8g %16.8g %16.8g\n", k + 1, w, w / (2 * M_PI), w > 0 ? 2 * M_PI / w : INFINITY);
	}
	if (unstable)
		puts("the initial state is not a stable equilibrium (a mode with omega^2 < 0)");
	if (n <= 12) {
		puts("mode shapes (mass-normalised, columns):");
		for (int i = 0; i < n; i++) {
			char name[IR_NAME_SIZE];
			printf("  %-8s", ir_dof_name(m, i, name, sizeof name));
			for (int k = 0; k < nm; k++)
				printf(" %11.5g", phi[i + (size_t)k * n]);
			putchar('\n');
		}
	}
	free(w2);
	free(phi);
}

static void scheme_info(const char *text)
{
	struct eval ev;
	session_eval_init(S, &ev);
	struct arena *a = S->arena;
	/* parse "NAME" or "NAME(args)" as an expression statement, at the
	 * command's line and columns (execute_for_command) so that its
	 * errors point where the user typed */
	size_t n = strlen(text), pad = arg_col > 1 ? (size_t)arg_col - 1 : 0;
	char *src = arena_alloc(a, n + pad + 2);
	memset(src, ' ', pad);
	memcpy(src + pad, text, n);
	memcpy(src + pad + n, "\n", 2);
	char *whole = arena_strndup(a, typed, typed_len);
	struct ast_program *prog = parse_text_at(a, &S->diag, "<stdin>", src, n + pad + 1, cmd_line, whole, typed_len);
	S->diag.errors = 0;
	if (!prog || prog->stmts.n != 1 || ((struct ast_stmt *)prog->stmts.v[0])->kind != AST_STMT_EXPR) {
		puts("usage: :scheme NAME or :scheme NAME(ARGS)");
		return;
	}
	struct ast_expr *e = ((struct ast_stmt *)prog->stmts.v[0])->value;
	struct ir_scheme sch;
	if (lower_scheme(&ev, e, &sch)) {
		S->diag.errors = 0;
		return;
	}
	const struct ir_family_info *fi = &ir_family_info[sch.family];
	printf("%s: family %s", text, fi->name);
	for (int i = 0; i < fi->nparam; i++) {
		char num[32];
		value_format_num(sch.p[i], num);
		printf("%s%s = %s", i ? ", " : " (", fi->param[i], num);
	}
	puts(fi->nparam ? ")" : "");
	printf("  order %d, %s%s%s%s\n  %s\n", fi->order, fi->caps & IR_SCHEME_IMPLICIT ? "implicit" : "explicit",
	       fi->caps & IR_SCHEME_CONSERVING ? ", energy-conserving family" : "",
	       fi->caps & IR_SCHEME_DISSIPATIVE ? ", dissipative" : "",
	       fi->caps & IR_SCHEME_CONDITIONAL ? ", conditionally stable" : "", fi->summary);
	static const double wt[] = { 0.01, 0.1, 0.3, 1, 2, 3, 10, 100, 1e3, 1e6 };
	puts("  spectral radius of the amplification matrix (undamped oscillator):");
	printf("  %12s %14s\n", "omega*tau", "rho");
	for (size_t i = 0; i < sizeof wt / sizeof wt[0]; i++) {
		double rho;
		struct rt_error err;
		if (rt_spectral_radius(&sch, wt[i], &rho, &err))
			printf("  %12g %14s\n", wt[i], "-");
		else
			printf("  %12g %14.8g\n", wt[i], rho);
	}
}

static void state(void)
{
	struct run_value *rv = S->pending_run ? S->pending_run : S->last_run;
	if (!rv) {
		puts("no run yet: start one with ':start let r = run ...' or run one");
		return;
	}
	const struct rt_result *r = rv->res;
	const struct ir_model *m = rv->plan->model;
	int k = r->nstep;
	char nm[IR_NAME_SIZE];
	/* a run statement without let is named "run": "the run of ..." */
	int unnamed = strcmp(rv->name, "run") == 0;
	printf("%s%s of %s with %s: t = %.10g, step %d of %d%s\n", unnamed ? "the run" : "run ", unnamed ? "" : rv->name,
	       m->name, rv->plan->scheme.name,
	       r->t[k], k, rv->plan->nstep, S->pending_run ? " (in progress)" : "");
	/* a run in progress from the stepper's own state, which it holds
	 * whether the histories are kept or not (history_budget) */
	const double *u = NULL, *v = NULL, *a = NULL, *z = NULL, *zd = NULL;
	if (S->pending_run == rv && S->pending)
		rt_current(S->pending, &u, &v, &a, &z, &zd);
	int shown = 0;
	for (int i = 0; i < m->ndof && i < 12; i++)
		if (u || (r->u && r->u[i])) {
			printf("  %-10s u = %-14.8g u' = %-14.8g u'' = %.8g\n", ir_dof_name(m, i, nm, sizeof nm),
			       u ? u[i] : r->u[i][k], u ? v[i] : r->v[i][k], u ? a[i] : r->a[i][k]);
			shown = 1;
		}
	/* at most 12 lines of each, as of the dofs: a plastic strain per
	 * cell of a mesh printed thousands */
	for (int j = 0; j < m->nint && j < 12; j++)
		if (z || r->z[j]) {
			printf("  %-10s z = %-14.8g z' = %.8g\n", ir_intvar_name(m, j, nm, sizeof nm), z ? z[j] : r->z[j][k],
			       z ? zd[j] : r->zd[j][k]);
			shown = 1;
		}
	if (!shown && m->ndof + m->nint > 0)
		puts("  (its histories were not kept, history_budget: record what you want to see)");
}

static void energy(void)
{
	struct run_value *rv = S->pending_run ? S->pending_run : S->last_run;
	if (!rv) {
		puts("no run yet");
		return;
	}
	const struct rt_result *r = rv->res;
	int k = r->nstep;
	printf("t = %.10g (step %d)\n", r->t[k], k);
	for (int e = 0; e < RT_NENERGY; e++)
		printf("  %-12s %.12g\n", rt_energy_name[e], r->energy[e][k]);
	for (int q = 0; q < r->nterm; q++)
		printf("  dissipated[%d] %.12g\n", q + 1, r->dterm[q][k]);
}

static void finish_pending(void)
{
	struct rt_error err = { 0 };
	rt_resume(S->pending);   /* its interruption was reported when it came */
	int status = rt_end(S->pending, &err);
	/* a run that failed while stepping was reported then (step): its end
	 * has the status but nothing more to say */
	if (status && err.msg[0]) {
		struct loc loc = { err.loc.file, err.loc.line, err.loc.col, 1 };
		diag_error(&S->diag, loc, "%s", err.msg);
		S->diag.errors = 0;
	}
	/* the run just finished is the last one (:state, :energy), even
	 * when another ran to its end while it waited */
	S->last_run = S->pending_run;
	S->pending = NULL;
	S->pending_run = NULL;
}

static void step(const char *arg, int to_end)
{
	if (!S->pending) {
		puts("no run in progress: ':start let r = run ...' prepares one");
		return;
	}
	long n = 1;
	if (arg && *arg) {
		/* a count past int would wrap in rt_advance (4294967297 steps
		 * is 1): refuse it, as anything but a whole number */
		char *end;
		errno = 0;
		n = strtol(arg, &end, 10);
		if (end == arg || *end || errno == ERANGE || n < 1 || n > INT_MAX) {
			printf(":step %s: the count must be a whole number from 1 to %d\n", arg, INT_MAX);
			return;
		}
	}
	struct rt_error err = { 0 };
	double t;
	int k, nstep;
	rt_resume(S->pending);   /* a Ctrl-C stopped it: continue where it stopped */
	rt_position(S->pending, &t, &k, &nstep);
	int rc = rt_advance(S->pending, to_end ? nstep : (int)n, &err);
	if (rc) {
		struct loc loc = { err.loc.file, err.loc.line, err.loc.col, 1 };
		diag_error(&S->diag, loc, "%s", err.msg);
		S->diag.errors = 0;
		if (rc != 130) {
			finish_pending();
			return;
		}
	}
	int done = rt_position(S->pending, &t, &k, &nstep);
	if (done)
		finish_pending();
	state();
}

/* The commands without an argument refuse one, at its column: `:run 5`
 * ran to the end as if the 5 were not there (:step 5 takes it). */
static int no_argument(const char *cmd, const char *arg)
{
	static const char *const bare[] = { ":run", ":state", ":energy", ":quit", ":q" };
	if (!*arg)
		return 0;
	for (size_t i = 0; i < sizeof bare / sizeof bare[0]; i++)
		if (strcmp(cmd, bare[i]) == 0) {
			struct eval ev;
			session_eval_init(S, &ev);
			struct loc loc = { "<stdin>", cmd_line, arg_col, 1 };
			eval_error(&ev, loc, "%s takes no argument%s", cmd,
			           strcmp(cmd, ":run") == 0 ? ": :step N advances N steps" : "");
			S->diag.errors = 0;
			return 1;
		}
	return 0;
}

static void command(char *line)
{
	rt_interrupted = 0;   /* a Ctrl-C before this command is not for it */
	/* a comment ends a command as it ends a statement: the language's
	 * scanner says where the code ends */
	line[parse_code_length(line, strlen(line))] = '\0';
	remember(line);
	remember("\n");
	cmd_line = ++typed_lines;
	for (const char *p = line; *p; p++)   /* :start's run block may span lines */
		typed_lines += *p == '\n';
	char *whole = arena_strndup(S->arena, typed, typed_len);
	diag_add_source(&S->diag, "<stdin>", whole, typed_len);
	char *cmd = line, *arg = line;
	while (*arg && *arg != ' ' && *arg != '\t')
		arg++;
	if (*arg)
		*arg++ = '\0';
	while (*arg == ' ' || *arg == '\t')
		arg++;
	size_t n = strlen(arg);
	while (n && (arg[n - 1] == ' ' || arg[n - 1] == '\t'))
		arg[--n] = '\0';
	arg_col = (int)(arg - line) + 1;
	if (strcmp(cmd, ":help") == 0 || strcmp(cmd, ":h") == 0)
		help(arg);
	else if (strcmp(cmd, ":show") == 0 && *arg)
		show(arg);
	else if (strcmp(cmd, ":ir") == 0 && *arg) {
		struct ir_model *m = model_of(arg);
		if (m) {
			ir_dump_model(stdout, m);
			putchar('\n');   /* the dump's last line has none */
		}
	} else if (strcmp(cmd, ":eig") == 0 && *arg)
		eig(arg);
	else if (strcmp(cmd, ":scheme") == 0 && *arg)
		scheme_info(arg);
	else if (strcmp(cmd, ":start") == 0 && *arg) {
		if (!is_run_statement(arg)) {
			/* a diagnostic at the argument: anything else would be
			 * executed as typed, not prepared */
			struct eval ev;
			session_eval_init(S, &ev);
			struct loc loc = { "<stdin>", cmd_line, arg_col, 1 };
			eval_error(&ev, loc, ":start prepares a run: :start let NAME = run MODEL with SCHEME from T0 to T1 "
			           "step TAU");
			S->diag.errors = 0;
			return;
		}
		if (S->pending)
			finish_pending();
		S->prepare_only = 1;
		char *src = arena_printf(S->arena, "%s\n", arg);
		execute_for_command(src, arg_col - 1);
		S->prepare_only = 0;
		if (S->pending)
			state();
	} else if (strcmp(cmd, ":step") == 0)
		step(arg, 0);
	else if (no_argument(cmd, arg))
		return;
	else if (strcmp(cmd, ":run") == 0)
		step(NULL, 1);
	else if (strcmp(cmd, ":state") == 0)
		state();
	else if (strcmp(cmd, ":energy") == 0)
		energy();
	else if (strcmp(cmd, ":plot") == 0 && *arg) {
		/* as wide as the terminal; colours unless NO_COLOR or a dumb
		 * terminal (https://no-color.org) */
		int rows = 0, cols = 0;
		const char *term = getenv("TERM");
		rl_get_screen_size(&rows, &cols);
		S->term_width = cols > 0 ? cols - 1 : 80;
		S->term_color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR") && term && strcmp(term, "dumb") != 0;
		char *src = arena_printf(S->arena, "plot %s\n", arg);
		S->term_plot = 1;
		execute_for_command(src, arg_col - 6);
		S->term_plot = 0;
	} else if (strcmp(cmd, ":load") == 0 && *arg) {
		/* a script is a regular file (a folder opens, and reads as
		 * nothing; a FIFO's open blocks), stated before it is opened */
		struct stat st;
		if (stat(arg, &st) == 0 && !S_ISREG(st.st_mode)) {
			printf("cannot read '%s': %s\n", arg, S_ISDIR(st.st_mode) ? strerror(EISDIR) : "not a regular file");
			return;
		}
		FILE *f = fopen(arg, "rb");
		if (!f) {
			printf("cannot open '%s': %s\n", arg, strerror(errno));
			return;
		}
		char *text = NULL;
		size_t len = 0, cap = 0;
		for (;;) {
			if (len + 4096 > cap) {
				cap = cap ? 2 * cap : 8192;
				text = arena_grow(S->arena, text, len, cap);
			}
			size_t k = fread(text + len, 1, cap - len - 1, f);
			if (k == 0)
				break;
			len += k;
		}
		fclose(f);
		text[len] = '\0';
		S->status = 0;
		session_exec_text(S, arena_strdup(S->arena, arg), text, len);
		S->diag.errors = 0;
	} else if (strcmp(cmd, ":quit") == 0 || strcmp(cmd, ":q") == 0)
		exit_requested = 1;
	else
		printf("unknown command or missing argument: %s (:help lists the commands)\n", cmd);
}

/* ---- the prompt: readline's callback interface ---- */

static char *got_line;
static int line_ready;

static void on_line(char *line)
{
	got_line = line;
	line_ready = 1;
	/* the line is taken: no new prompt until the main loop asks for one */
	rl_callback_handler_remove();
}

/* Is a Ctrl-C waiting (SIGINT is blocked while readline reads)? */
static int sigint_pending(void)
{
	sigset_t pend;
	return sigpending(&pend) == 0 && sigismember(&pend, SIGINT);
}

/* readline asks this before reading ahead: since 8.0 it inserts all the
 * typed-ahead characters of a paste in one call.  None is available
 * past a pending Ctrl-C, so that keys typed after it are read on the
 * next line, not into the line it drops. */
static int input_available(void)
{
	if (sigint_pending())
		return 0;
	int fd = fileno(rl_instream ? rl_instream : stdin);
	struct pollfd p = { fd, POLLIN, 0 };
	return poll(&p, 1, 0) > 0;
}

/* Take a pending Ctrl-C (SIGINT is blocked while the prompt reads). */
static int take_sigint(void)
{
	sigset_t only;
	sigemptyset(&only);
	sigaddset(&only, SIGINT);
	struct timespec zero = { 0, 0 };
	if (sigint_pending() && sigtimedwait(&only, NULL, &zero) == SIGINT)
		prompt_interrupted = 1;
	return prompt_interrupted;
}

/* readline's key reader (rl_getc_function).  Its own rl_getc waits in
 * pselect and then reads, blocking: a Ctrl-C in between flushes the
 * terminal's input (ISIG without NOFLSH), its SIGINT goes to our
 * handler, not readline's, and rl_getc waits again for a key that never
 * comes — the REPL hung when Ctrl-C followed a key closely (seen under
 * AddressSanitizer).  Here the read does not block and the wait lets
 * SIGINT in; after a Ctrl-C readline is told the line is done (rl_done,
 * with NUL, bound to set-mark, as a key that changes nothing visible)
 * and read_line drops it. */
static int read_key(FILE *in)
{
	int fd = fileno(in);
	sigset_t wait;
	pthread_sigmask(SIG_BLOCK, NULL, &wait);
	sigdelset(&wait, SIGINT);
	for (;;) {
		if (take_sigint()) {
			rl_done = 1;
			return 0;
		}
		unsigned char c;
		int flags = fcntl(fd, F_GETFL);
		if (flags >= 0)
			fcntl(fd, F_SETFL, flags | O_NONBLOCK);
		ssize_t k = read(fd, &c, 1);
		int err = errno;
		if (flags >= 0)
			fcntl(fd, F_SETFL, flags);
		if (k == 1)
			return c;
		if (k == 0 || (err != EAGAIN && err != EWOULDBLOCK && err != EINTR))
			return EOF;
		fd_set ready;
		FD_ZERO(&ready);
		FD_SET(fd, &ready);
		pselect(fd + 1, &ready, NULL, NULL, NULL, &wait);
	}
}

/* One line typed at the prompt: 0 and *line (malloc'd), 1 at the end of
 * input (Ctrl-D), 2 when Ctrl-C dropped the line.  SIGINT stays blocked
 * except inside pselect, so that a Ctrl-C is either seen before waiting
 * or ends the wait; readline is cleaned up as its manual says for an
 * application that handles signals itself ("Readline Signal Handling"). */
static int read_line(const char *prompt, char **line)
{
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	sigset_t wait = old;
	sigdelset(&wait, SIGINT);
	int fd = fileno(rl_instream ? rl_instream : stdin);
	line_ready = 0;
	got_line = NULL;
	rl_callback_handler_install(prompt, on_line);
	int rc = 0;
	while (!line_ready) {
		if (prompt_interrupted) {
			rl_free_line_state();
			rl_callback_sigcleanup();
			rl_cleanup_after_signal();
			rl_callback_handler_remove();
			rc = 2;
			break;
		}
		fd_set in;
		FD_ZERO(&in);
		FD_SET(fd, &in);
		int k = pselect(fd + 1, &in, NULL, NULL, NULL, &wait);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rl_callback_handler_remove();
			rc = 1;
			break;
		}
		/* pselect reports ready input before a pending signal: keys
		 * typed just after Ctrl-C would be read into the line the
		 * Ctrl-C drops.  Take the signal first, so that they start
		 * the next line. */
		if (take_sigint())
			continue;
		rl_callback_read_char();
	}
	if (rc == 0 && prompt_interrupted) {
		/* read_key ended the line for a Ctrl-C: readline has put
		 * itself away (on_line), the line is dropped */
		free(got_line);
		got_line = NULL;
		rc = 2;
	}
	prompt_interrupted = 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0 && !got_line)
		rc = 1;
	*line = rc == 0 ? got_line : NULL;
	if (rc)
		free(got_line);
	return rc;
}

/* One line of input: a command, or a line of a statement, executed when
 * the statement is complete. */
/* A command or a complete statement, with Ctrl-C stopping it. */
static void evaluate_command(char *cmd)
{
	evaluating = 1;
	command(cmd);
	evaluating = 0;
}

static void evaluate_statement(const char *text)
{
	evaluating = 1;
	execute(text);
	evaluating = 0;
}

/* Whether a line is a command that goes on over the next lines: :start
 * with a run whose block is still open. */
static int command_needs_more(const char *text, size_t len)
{
	static const char start[] = ":start";
	size_t k = sizeof start - 1;
	if (len <= k || strncmp(text, start, k) != 0 || !isspace((unsigned char)text[k]))
		return 0;
	return parse_needs_more(text + k, len - k);
}

static void feed(const char *line)
{
	if (!buffer && line[0] == ':' && !command_needs_more(line, strlen(line))) {
		if (line[1])
			add_history(line);
		char *cmd = arena_strdup(S->arena, line);
		evaluate_command(cmd);
		return;
	}
	size_t n = strlen(line);
	char *nb = realloc(buffer, blen + n + 2);
	if (!nb) {
		fputs("dyn: out of memory: the input is dropped\n", stderr);
		free(buffer);
		buffer = NULL;
		blen = 0;
		return;
	}
	buffer = nb;
	memcpy(buffer + blen, line, n);
	blen += n;
	buffer[blen++] = '\n';
	buffer[blen] = '\0';
	if (buffer[0] == ':') {
		/* a command continued over lines: run when its block closes */
		if (command_needs_more(buffer, blen))
			return;
		buffer[blen - 1] = '\0';
		add_history(buffer);
		char *cmd = arena_strdup(S->arena, buffer);
		free(buffer);
		buffer = NULL;
		blen = 0;
		evaluate_command(cmd);
		return;
	}
	if (parse_needs_more(buffer, blen))
		return;
	if (blen > 1) {
		buffer[blen - 1] = '\0';
		add_history(buffer);
		buffer[blen - 1] = '\n';
		evaluate_statement(buffer);
	}
	free(buffer);
	buffer = NULL;
	blen = 0;
}

int repl_main(struct session *s, const char *file)
{
	S = s;
	s->interactive = 1;
	s->allow_redefine = 1;
	s->diag.max_errors = 0;
	if (file) {
		/* a script is a regular file, as :load requires: -i /dev/null
		 * reported :load's "not a regular file" on stdout, without
		 * "dyn:", and opened the session with status 0 (a FIFO's
		 * open would block) */
		struct stat st;
		if (stat(file, &st) == 0 && !S_ISREG(st.st_mode)) {
			fprintf(stderr, "dyn: cannot read '%s': %s\n", file,
			        S_ISDIR(st.st_mode) ? strerror(EISDIR) : "not a regular file");
			return 3;
		}
		FILE *f = fopen(file, "rb");
		if (!f) {
			fprintf(stderr, "dyn: cannot open '%s': %s\n", file, strerror(errno));
			return 3;
		}
		fclose(f);
		/* loaded as :load would, but not a line the user typed: the
		 * session's first line is the first one typed */
		size_t len0 = typed_len;
		int lines0 = typed_lines;
		char *cmd = arena_printf(s->arena, ":load %s", file);
		evaluate_command(cmd);
		typed_len = len0;
		typed_lines = lines0;
		if (typed)
			typed[typed_len] = '\0';
	}
	rl_readline_name = "dyn";
	rl_attempted_completion_function = complete;
	rl_basic_word_break_characters = " \t\n\"(),[]{}+-*/^=<>;.'";
	rl_catch_signals = 0;
	rl_input_available_hook = input_available;
	rl_getc_function = read_key;
	char *hist = getenv("HOME") ? arena_printf(s->arena, "%s/.dyn_history", getenv("HOME")) : NULL;
	if (hist)
		read_history(hist);
	stifle_history(1000);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	printf("dyn %s — :help lists the commands, Ctrl-D leaves\n", PACKAGE_VERSION);

	buffer = NULL;
	blen = 0;
	while (!exit_requested) {
		char *line;
		fflush(stdout);
		int rc = read_line(buffer ? "...> " : "dyn> ", &line);
		if (rc == 2) {
			/* Ctrl-C at the prompt: drop the line and any continuation */
			putchar('\n');
			free(buffer);
			buffer = NULL;
			blen = 0;
			continue;
		}
		if (rc == 1) {
			putchar('\n');
			/* the end of the input inside a statement (an open bracket,
			 * a line ending in an operator): it was never run */
			if (buffer && !exit_requested) {
				char head[64];
				size_t k = 0;
				for (; k < sizeof head - 1 && k < blen && buffer[k]; k++)
					head[k] = buffer[k] == '\n' || buffer[k] == '\t' ? ' ' : buffer[k];
				while (k > 0 && head[k - 1] == ' ')
					k--;
				head[k] = '\0';
				fflush(stdout);
				diag_error(&S->diag, (struct loc){ 0 }, "the input ended inside a statement, which was not "
				           "run: %s%s", head, blen >= sizeof head ? "..." : "");
			}
			break;
		}
		/* a paste (bracketed by the terminal) arrives as one line with
		 * newlines in it: each of its lines is taken as if typed */
		for (char *p = line;;) {
			char *nl = strchr(p, '\n');
			if (nl)
				*nl = '\0';
			feed(p);
			if (!nl || exit_requested)
				break;
			p = nl + 1;
		}
		free(line);
	}
	free(buffer);
	if (S->pending)
		finish_pending();
	if (hist)
		write_history(hist);
	free(typed);
	return 0;
}
