/* eval.h — the interpreter of statements: a session holds the global
 * names, the runs made so far and the exit status; scripts and REPL lines
 * are executed in it. */
#ifndef DYN_EVAL_H
#define DYN_EVAL_H

#include <stdio.h>
#include <sys/types.h>
#include "ast.h"
#include "diag.h"
#include "value.h"

struct arena;
struct scope;

struct param_override {
	const char *name;      /* "xi" or "model.xi" */
	double value;
	int used;
};

/* A file's identity: (dev, ino) of the file when name is NULL, or of its
 * folder when the file does not exist yet and name is its final name. */
struct out_id {
	dev_t dev;
	ino_t ino;
	const char *name;
	int data;      /* an input: 1 a file a model reads (mtx, table,
	                  gmsh), 0 the script or a module */
};

struct session {
	struct diag diag;
	struct arena *arena;         /* every AST and IR of the session */
	struct scope *globals;
	const char *outdir;          /* -o DIR, or NULL for the current directory */
	const char *outdir_real;     /* its real path, once an output asked */
	int allow_anywhere;          /* --allow-write-anywhere */
	size_t memory_limit;         /* --memory-limit, bytes (0: the default) */
	struct out_id *input;        /* the script and its modules, which no
	                                output may overwrite (name: the path) */
	int ninput, input_cap;
	int quiet;
	int interactive;             /* REPL: expression statements print */
	int term_width;              /* REPL: the terminal's columns for :plot
	                                (0: 80) */
	int term_color;              /* REPL: :plot may use ANSI colours */
	int allow_redefine;          /* REPL: names may be defined again */
	int dump_ir;                 /* print the IR of every run, do not step */
	int dumped;                  /* --dump-ir printed a run's plan */
	int term_plot;               /* REPL: :plot's statement, drawn on the
	                                terminal (a plot with no file) */
	int check_only;              /* --check: execute the statements, lowering
	                                every run without stepping it (a dry
	                                run: no results) */
	int dry_hit;                 /* --check: the statement being executed
	                                needs a dry run's results; its errors
	                                are not reported and it is skipped */
	int run_interrupted;         /* REPL: a run stopped by Ctrl-C, kept with
	                                what it computed: the statements after
	                                it (of a :load) do not execute */
	int nset;
	struct param_override set[64];
	int failed_checks;
	int status;                  /* worst exit status so far: 0, 3 or 4 */
	struct run_value *runs;
	const char *stdlib_dir;      /* where `import NAME` looks first */
	int progress;                /* --progress: always show the bar */
	/* REPL: a run prepared by :start, advanced by :step and :run */
	int prepare_only;
	struct rt_stepper_run *pending;
	struct run_value *pending_run;
	struct run_value *last_run;
	struct run_value *held;      /* a loop pass's run kept as last_run only */
	/* continuum bodies (lang/fe.h): the meshes by name, and what the
	 * runtime allocated for them, freed with the session */
	struct fe_mesh *meshes;
	struct fe_owned *fe_owned;
};

void session_init(struct session *s);
/* Remember a file read as source (the script, a module). */
void session_add_input(struct session *s, const char *path);
/* A file a model reads (a Matrix Market file, a table, a Gmsh mesh),
 * which the script's outputs must not overwrite either. */
void session_add_data_input(struct session *s, const char *path);
void session_free(struct session *s);

/* Load stdlib/schemes.dyn (embedded in the binary) into the session. */
int session_load_stdlib(struct session *s);

/* Parse and execute a text.  Returns 0, or the exit status of the first
 * error (3 for language, model and file errors, 4 for numerical failures);
 * failed checks are counted in s->failed_checks. */
int session_exec_text(struct session *s, const char *file, const char *text, size_t len);

/* The same in two steps, for the driver: parse, validate --set, execute. */
struct ast_program *session_parse(struct session *s, const char *file, const char *text, size_t len);
int session_exec_program(struct session *s, struct ast_program *prog);

/* Whether the program declares the parameter ("xi", or "model.xi" for a
 * model-local one), for validating --set before anything runs. */
int program_declares_param(const struct ast_program *prog, const char *name);
/* The model that declares a parameter of this plain name, or NULL. */
const char *program_model_with_param(const struct ast_program *prog, const char *name);

#endif
