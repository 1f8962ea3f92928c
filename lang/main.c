/* main.c — the dyn command: options (GNU getopt_long), then a script, or
 * statements from standard input (DESIGN.md, "Errors" for exit codes). */
#include <config.h>

#include "eval.h"
#include "interp.h"
#include "run.h"
#include "repl.h"
#include "outfile.h"
#include "la.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined HAVE_MALLOC_H && defined HAVE_MALLOPT
#include <malloc.h>
#endif

enum { EXIT_CHECK = 1, EXIT_USAGE = 2, EXIT_INPUT = 3 };

static void usage(FILE *f)
{
	fputs("Usage: dyn [OPTION]... [FILE] [PETSC-OPTION]...\n"
	      "Run a dyn script: a mechanical dynamics problem and its time integration.\n"
	      "With no FILE on a terminal, start an interactive session; otherwise, with no\n"
	      "FILE or when FILE is -, read statements from standard input.\n"
	      "\n"
	      "  -s, --set NAME=VALUE   override a param (MODEL.NAME for a model's own);\n"
	      "                         may be repeated\n"
	      "  -c, --check            parse the script and check its names; run nothing\n"
	      "      --dump-ir          print the IR of the first run instead of running it\n"
	      "      --list-schemes     list the scheme families and named schemes\n"
	      "  -o, --output DIR       write recorded files and plots under DIR\n"
	      "      --memory-limit MB  refuse a run whose histories would take more than\n"
	      "                         MB megabytes (default: half the physical memory)\n"
	      "      --allow-write-anywhere\n"
	      "                         let the script write outside the output folder\n"
	      "                         (by default its files go into it or below it)\n"
	      "  -q, --quiet            no warnings, no progress bar\n"
	      "      --progress         show a progress bar on a terminal (automatic for\n"
	      "                         runs longer than a second)\n"
	      "  -i, --interactive FILE run FILE, then read commands and statements\n"
	      "                         (dyn alone on a terminal starts the same prompt)\n"
	      "  -h, --help             show this help and exit\n"
	      "  -V, --version          show the version and exit\n"
	      "\n"
	      "PETSc's options (-ksp_type cg, -pc_type gamg, ...) go to its solvers.\n"
	      "\n"
	      "Exit status: 0 ok, 1 a check failed, 2 usage error, 3 error before\n"
	      "stepping (language, model, files), 4 numerical failure while stepping,\n"
	      "128 + N stopped by signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP,\n"
	      "152 SIGXCPU), the records whole up to the last step.\n"
	      "See dyn(1) and dyn(5).\n", f);
}

/* The arena's out-of-memory handler: a clean exit with the purpose of the
 * memory, never an abort and a core dump (dyn(1), EXIT STATUS). */
static _Noreturn void out_of_memory(const char *what, const char *file)
{
	fprintf(stderr, "dyn: out of memory while %s%s%s\n", what, file ? " " : "", file ? file : "");
	exit(EXIT_INPUT);
}

static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap);
	if (!buf)
		return NULL;
	for (;;) {
		if (n == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		size_t k = fread(buf + n, 1, cap - n, f);
		if (k == 0)
			break;
		n += k;
		/* a NUL byte is not text: the lexer reports the first one
		 * (wherever it is, comments included), and nothing after it
		 * is read (dyn /dev/zero read until memory ran out) */
		if (memchr(buf + n - k, 0, k))
			break;
	}
	if (ferror(f)) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

static int parse_set(struct session *s, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg) {
		fprintf(stderr, "dyn: --set %s: expected NAME=VALUE\n", arg);
		return -1;
	}
	char *end;
	errno = 0;
	double v = strtod(eq + 1, &end);
	/* underflow to zero or a subnormal is a number (as 1e-400 in a
	 * script); overflow is not (the script's "too large for a double") */
	if (end != eq + 1 && *end == '\0' && errno == ERANGE && fabs(v) > 1) {
		fprintf(stderr, "dyn: --set %s: '%s' is too large for a double\n", arg, eq + 1);
		return -1;
	}
	/* a number as the language writes it: strtod's hexadecimal (0x10)
	 * and leading blanks (" 3") are not */
	const char *val = eq + 1;
	int decimal = (isdigit((unsigned char)*val) || *val == '.' || *val == '-' || *val == '+') &&
	              !strpbrk(val, "xXpP");
	if (end == eq + 1 || *end != '\0' || !isfinite(v) || !decimal) {
		fprintf(stderr, "dyn: --set %s: '%s' is not a number\n", arg, eq + 1);
		return -1;
	}
	/* a point is followed by a digit, as in a script (lexer.l: "5." is
	 * malformed there) */
	const char *point = strchr(val, '.');
	if (point && !isdigit((unsigned char)point[1])) {
		fprintf(stderr, "dyn: --set %s: '%s' is not a number as a script writes it: a point is followed by a "
		        "digit (5.0 or 5, not 5.)\n", arg, eq + 1);
		return -1;
	}
	if (s->nset == (int)(sizeof s->set / sizeof s->set[0])) {
		fprintf(stderr, "dyn: too many --set options\n");
		return -1;
	}
	char *name = strndup(arg, (size_t)(eq - arg));
	if (!name)
		return -1;
	s->set[s->nset].name = name;
	s->set[s->nset].value = v;
	s->nset++;
	return 0;
}

static void list_schemes(struct session *s)
{
	puts("Families (built in):");
	for (int i = 0; i < IR_NFAMILY; i++) {
		const struct ir_family_info *fi = &ir_family_info[i];
		printf("  %-20s order %d, %s%s%s%s\n", fi->name, fi->order,
		       fi->caps & IR_SCHEME_IMPLICIT ? "implicit" : "explicit",
		       fi->caps & IR_SCHEME_CONSERVING ? ", energy-conserving" : "",
		       fi->caps & IR_SCHEME_DISSIPATIVE ? ", dissipative" : "",
		       fi->caps & IR_SCHEME_CONDITIONAL ? ", conditionally stable" : "");
		if (fi->nparam) {
			printf("  %-20s (", "");
			for (int k = 0; k < fi->nparam; k++) {
				char num[32];
				value_format_num(fi->dflt[k], num);
				printf("%s%s = %s", k ? ", " : "", fi->param[k], num);
			}
			puts(")");
		}
		printf("  %-20s %s\n", "", fi->summary);
	}
	/* Named schemes: declared in the language (stdlib/schemes.dyn). */
	puts("Named schemes (stdlib/schemes.dyn):");
	int n = 0;
	for (struct binding *b = s->globals->head; b; b = b->next)
		n += b->kind == B_SCHEME;
	for (int k = n - 1; k >= 0; k--) {
		/* bindings are newest first: print in definition order */
		int i = 0;
		for (struct binding *b = s->globals->head; b; b = b->next) {
			if (b->kind != B_SCHEME || i++ != k)
				continue;
			/* the declaration's text from '=' on, over as many lines as
			 * its brackets span, blanks collapsed */
			char def[512];
			size_t dn = 0;
			int depth = 0, started = 0;
			for (int ln = b->stmt->loc.line; dn < sizeof def - 1; ln++) {
				size_t len;
				const char *line = diag_source_line(&s->diag, b->stmt->loc.file, ln, &len);
				if (!line)
					break;
				const char *p = line, *end = line + len;
				if (!started) {
					p = memchr(line, '=', len);
					if (!p)
						break;
					p++;
					started = 1;
				}
				for (; p < end && *p != '#' && dn < sizeof def - 1; p++) {
					if (*p == '(')
						depth++;
					else if (*p == ')')
						depth--;
					if ((*p == ' ' || *p == '\t') && (dn == 0 || def[dn - 1] == ' ' || def[dn - 1] == '('))
						continue;
					def[dn++] = *p == '\t' ? ' ' : *p;
				}
				if (depth <= 0)
					break;
				if (dn && def[dn - 1] != ' ' && def[dn - 1] != '(')
					def[dn++] = ' ';
			}
			while (dn && def[dn - 1] == ' ')
				dn--;
			def[dn] = '\0';
			char head[128];
			size_t hn = (size_t)snprintf(head, sizeof head, "%s", b->name);
			for (int a = 0; a < b->stmt->params.n && hn < sizeof head - 32; a++)
				hn += (size_t)snprintf(head + hn, sizeof head - hn, "%s%s", a ? ", " : "(",
				                       ((struct ast_arg *)b->stmt->params.v[a])->name);
			if (b->stmt->params.n && hn < sizeof head - 1)
				snprintf(head + hn, sizeof head - hn, ")");
			printf("  %-22s = %s\n", head, def);
		}
	}
}

static volatile sig_atomic_t in_repl;

/* SIGINT (Ctrl-C), SIGTERM, SIGHUP and SIGXCPU stop the run in progress
 * after its current step: its records get their names with whole rows,
 * and the script exits with 128 + the signal's number (130 for SIGINT).
 * With no run to stop — or at the REPL, which has its own SIGINT handler
 * and may hold a prepared run while it waits for a command — the
 * temporaries of unfinished files are removed and the signal ends dyn as
 * it would have by default: the old files stay. */
static void on_signal(int sig)
{
	if (rt_running && (!in_repl || rt_stepping)) {
		rt_signal = sig;
		rt_interrupted = 1;
		return;
	}
	rt_outfile_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void handled_signals(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof rt_handled_signals / sizeof rt_handled_signals[0]; i++)
		sigaddset(set, rt_handled_signals[i]);
}

static int dyn_main(int argc, char **argv);

struct main_args {
	int argc;
	char **argv;
	int status;
};

static void *main_thread(void *p)
{
	struct main_args *a = p;
	sigset_t set;
	handled_signals(&set);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	a->status = dyn_main(a->argc, a->argv);
	return NULL;
}

/* The interpreter recurses as deep as expressions nest: it runs on a
 * thread with a large stack (256 MB of address space, used only as deep
 * as a script goes), the only one that takes the handled signals. */
int main(int argc, char **argv)
{
	struct main_args a = { argc, argv, 0 };
#if defined HAVE_MALLOC_H && defined HAVE_MALLOPT
	/* A large array (a model's O(n) vectors, operators, factors, the
	 * setup's temporaries) in a mapping of its own, given back to the
	 * system when freed: glibc otherwise raises this threshold at the
	 * first such free, and what setup frees after that stays in the
	 * heap for the whole run (a 10⁶-dof chain stepped in 286 MB
	 * instead of 211). */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
	pthread_attr_t attr;
	pthread_t th;
	sigset_t set;
	handled_signals(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, (size_t)256 << 20) == 0 &&
	    pthread_create(&th, &attr, main_thread, &a) == 0) {
		pthread_join(th, NULL);
		return a.status;
	}
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	return dyn_main(argc, argv);
}

/* PETSc's own options (dyn(1), PETSC): the arguments that start with a
 * PETSc prefix (-ksp_, -pc_, -mat_, ...), each with the next argument as
 * its value unless that starts with '-' or names a script (.dyn), are
 * taken out of argv before dyn's parser sees them and kept for PETSc's
 * start (la_backend_args).  Returns the new argc, or -1 (with the
 * message printed) for an -options_file that PETSc could not read. */
static int petsc_args(int argc, char **argv)
{
	static const char *const prefix[] = { "ksp_", "pc_", "mat_", "vec_", "log_", "options_", "mg_", "snes_",
		                              "fieldsplit_", "malloc", "info", "on_error_" };
	static char *kept[256];
	int nk = 0, out = 1;
	for (int k = 1; k < argc; k++) {
		const char *a = argv[k];
		int petsc = 0;
		if (strcmp(a, "--") == 0) {
			/* after --, dyn's operands only */
			while (k < argc)
				argv[out++] = argv[k++];
			break;
		}
		for (size_t q = 0; a[0] == '-' && a[1] != '-' && q < sizeof prefix / sizeof prefix[0]; q++)
			petsc |= strncmp(a + 1, prefix[q], strlen(prefix[q])) == 0;
		if (!petsc || nk >= (int)(sizeof kept / sizeof kept[0]) - 1) {
			argv[out++] = argv[k];
			continue;
		}
		kept[nk++] = argv[k];
		/* its value, when the next word is one: not an option, or a
		 * negative number (-pc_gamg_threshold -1 took -1 for an option
		 * of dyn's) */
		const char *v = k + 1 < argc ? argv[k + 1] : NULL;
		char *end;
		int negative = v && v[0] == '-' && (isdigit((unsigned char)v[1]) || v[1] == '.') &&
		               (strtod(v, &end), *end == '\0');
		if (v && (v[0] != '-' || negative)) {
			size_t len = strlen(argv[k + 1]);
			if (!(len > 4 && strcmp(argv[k + 1] + len - 4, ".dyn") == 0))
				kept[nk++] = argv[++k];
		}
		/* PETSc reads an options file to its end when it starts: one
		 * that is not a regular file (-options_file /dev/zero) hung it */
		if (strcmp(a, "-options_file") == 0) {
			struct stat st;
			const char *f = strcmp(kept[nk - 1], a) ? kept[nk - 1] : NULL;
			char q[256];
			if (!f) {
				fprintf(stderr, "dyn: -options_file needs a file name\n");
				return -1;
			}
			if (stat(f, &st) != 0) {
				fprintf(stderr, "dyn: -options_file '%s': %s\n", rt_escape(q, sizeof q, f), strerror(errno));
				return -1;
			}
			if (!S_ISREG(st.st_mode)) {
				fprintf(stderr, "dyn: -options_file '%s' is not a regular file\n", rt_escape(q, sizeof q, f));
				return -1;
			}
		}
	}
	argv[out] = NULL;
	la_backend_args(nk, kept);
	return out;
}

/* A start by mpirun on several processes (Open MPI's and MPICH's
 * launchers say how many in the environment, before MPI starts): every
 * process runs the whole script on a replicated state, and the PETSc
 * solvers of the matrix layer are distributed over them (dyn(1), MPI).
 * The processes other than rank 0 print nothing and write no file.
 * Without PETSc there is nothing to distribute: refused, rank 0 alone
 * saying so.  Returns 0 or EXIT_USAGE. */
static int mpi_setup(void)
{
	const char *size = getenv("OMPI_COMM_WORLD_SIZE"), *rank = getenv("OMPI_COMM_WORLD_RANK");
	if (!size) {
		size = getenv("PMI_SIZE");
		rank = getenv("PMI_RANK");
	}
	if (!size || atoi(size) <= 1)
		return 0;
	int P = atoi(size), r = rank ? atoi(rank) : 0;
	const char *why = la_backend_load_error();
	if (why) {
		if (r == 0)
			fprintf(stderr, "dyn: started as %d MPI processes: runs on several processes need PETSc (%s); "
			        "run one process (mpirun -n 1, or dyn alone)\n", P, why);
		return EXIT_USAGE;
	}
	la_mpi_set(r, P);
	if (r > 0) {
		/* the same messages and records as rank 0's: said and written once */
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			return EXIT_USAGE;
		rt_outfile_silence(1);
	}
	return 0;
}

static void print_version(void)
{
	const char *petsc = la_backend_petsc();
	printf("dyn %s\n", PACKAGE_VERSION);
#ifdef HAVE_PETSC
	if (!petsc)
		printf("backends: LAPACK (dense, banded), CHOLMOD, UMFPACK, ARPACK, no PETSc (its module does not "
		       "load: %s)\n", la_backend_load_error());
	else
#endif
		printf("backends: LAPACK (dense, banded), CHOLMOD, UMFPACK, ARPACK, %s\n",
		       petsc ? petsc : "no PETSc (configure --without-petsc, or PETSc not found)");
}

static int dyn_main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	handled_signals(&sa.sa_mask);
	for (size_t i = 0; i < sizeof rt_handled_signals / sizeof rt_handled_signals[0]; i++) {
		struct sigaction cur;
		/* a signal ignored by whoever started dyn (nohup) stays ignored */
		if (sigaction(rt_handled_signals[i], NULL, &cur) == 0 && cur.sa_handler == SIG_IGN &&
		    rt_handled_signals[i] != SIGINT)
			continue;
		sigaction(rt_handled_signals[i], &sa, NULL);
	}
	/* A file beyond the size limit (ulimit -f) is a write error (EFBIG)
	 * that stops the run with its message, not a silent kill. */
	signal(SIGXFSZ, SIG_IGN);
	/* Likewise a reader that stops reading (dyn script | head): the
	 * write fails with EPIPE and dyn exits 3 with its message, or 4 for
	 * a record, instead of dying of the signal (status 141). */
	signal(SIGPIPE, SIG_IGN);

	arena_on_oom(out_of_memory);
	struct session s;
	session_init(&s);
	int status = 0;
	if ((argc = petsc_args(argc, argv)) < 0) {
		status = EXIT_USAGE;
		goto out;
	}
	if ((status = mpi_setup()))
		goto out;
	const char *env_stdlib = getenv("DYN_STDLIB");
	s.stdlib_dir = env_stdlib && *env_stdlib ? env_stdlib : DYN_DATADIR;

	static const struct option opts[] = {
		{ "set", required_argument, NULL, 's' },
		{ "check", no_argument, NULL, 'c' },
		{ "dump-ir", no_argument, NULL, 'D' },
		{ "list-schemes", no_argument, NULL, 'L' },
		{ "output", required_argument, NULL, 'o' },
		{ "allow-write-anywhere", no_argument, NULL, 'W' },
		{ "memory-limit", required_argument, NULL, 'M' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "progress", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "interactive", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 }
	};
	int list = 0, c;
	const char *interactive = NULL;
	/* getopt's messages name argv[0]: "dyn: unrecognized option", as
	 * dyn's own, not the path it was started by */
	argv[0] = (char *)"dyn";
	while ((c = getopt_long(argc, argv, "s:co:qhVi:", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_set(&s, optarg)) {
				status = EXIT_USAGE;
				goto out;
			}
			break;
		case 'c': s.check_only = 1; break;
		case 'D': s.dump_ir = 1; break;
		case 'L': list = 1; break;
		case 'o': s.outdir = optarg; break;
		case 'W': s.allow_anywhere = 1; break;
		case 'M': {
			char *end;
			double mb = strtod(optarg, &end);
			if (end == optarg || *end || !(mb >= 1 && mb <= 1e12)) {
				fprintf(stderr, "dyn: --memory-limit %s: expected a number of MB from 1 to 1e12\n", optarg);
				status = EXIT_USAGE;
				goto out;
			}
			s.memory_limit = (size_t)(mb * 1e6);
			break;
		}
		case 'q': s.quiet = 1; break;
		case 'P': s.progress = 1; break;
		case 'i': interactive = optarg; break;
		case 'h': usage(stdout); goto out;
		case 'V': print_version(); goto out;
		default:
			fputs("Try 'dyn --help' for more information.\n", stderr);
			status = EXIT_USAGE;
			goto out;
		}
	}
	if (optind < argc - 1) {
		char q1[256], q2[256];
		fprintf(stderr, "dyn: one script at a time (got '%s' and '%s')\n"
		        "Try 'dyn --help' for more information.\n", rt_escape(q1, sizeof q1, argv[optind]),
		        rt_escape(q2, sizeof q2, argv[optind + 1]));
		status = EXIT_USAGE;
		goto out;
	}
	if (s.quiet)
		s.diag.warnings_off = 1;
	if (session_load_stdlib(&s) != 0) {
		fputs("dyn: internal error: the standard library does not load\n", stderr);
		status = EXIT_INPUT;
		goto out;
	}
	if (list) {
		list_schemes(&s);
		goto out;
	}
	if (s.outdir && !*s.outdir) {
		/* it probed the root folder, then wrote into the current one */
		fprintf(stderr, "dyn: -o: the folder name is empty\n");
		status = EXIT_USAGE;
		goto out;
	}
	if (s.outdir) {
		FILE *probe;
		char *p = malloc(strlen(s.outdir) + 32);
		if (!p)
			goto out;
		sprintf(p, "%s/.dyn-probe-%ld", s.outdir, (long)getpid());
		probe = fopen(p, "w");
		if (!probe) {
			char q[256];
			int e = errno;
			fprintf(stderr, "dyn: -o %s: cannot write there: %s\n", rt_escape(q, sizeof q, s.outdir), strerror(e));
			free(p);
			status = EXIT_USAGE;
			goto out;
		}
		fclose(probe);
		remove(p);
		free(p);
	}

	/* -c and --dump-ir look at a script without running it; -i runs one
	 * and goes on at the prompt: either, not both (-i was obeyed and
	 * the others ignored), and never the REPL for want of a file */
	const char *look = s.check_only ? "-c" : s.dump_ir ? "--dump-ir" : NULL;
	if (look && interactive) {
		fprintf(stderr, "dyn: %s checks a script without running it, -i runs one and then reads the prompt: "
		        "give one or the other\n", look);
		status = EXIT_USAGE;
		goto out;
	}
	if (look && optind == argc && isatty(0)) {
		fprintf(stderr, "dyn: %s needs a script: a FILE, or - for standard input\n", look);
		status = EXIT_USAGE;
		goto out;
	}
	if (interactive && strcmp(interactive, "-") == 0) {
		fprintf(stderr, "dyn: -i takes a script file: standard input is the prompt's (dyn - runs a script "
		        "from it)\n");
		status = EXIT_USAGE;
		goto out;
	}
	/* under mpirun standard input reaches rank 0 alone: the script must
	 * be a file that every process reads, and there is no REPL */
	if (la_mpi_size() > 1 && (interactive || optind == argc || strcmp(argv[optind], "-") == 0)) {
		fprintf(stderr, "dyn: on %d MPI processes the script must be a file that each reads (standard input "
		        "reaches rank 0 alone, and the REPL runs on one process)\n", la_mpi_size());
		status = EXIT_USAGE;
		goto out;
	}
	/* the REPL: dyn -i FILE, or dyn alone on a terminal */
	if (interactive || (optind == argc && isatty(0) && isatty(1))) {
		if (optind < argc) {
			char q[256];
			fprintf(stderr, "dyn: -i takes the script itself (got '%s' too)\n", rt_escape(q, sizeof q, argv[optind]));
			status = EXIT_USAGE;
			goto out;
		}
		in_repl = 1;
		status = repl_main(&s, interactive);
		goto out;
	}
	const char *file = optind < argc ? argv[optind] : "-";
	FILE *in = strcmp(file, "-") == 0 ? stdin : fopen(file, "rb");
	if (!in) {
		char q[256];
		int e = errno;
		fprintf(stderr, "dyn: cannot open '%s': %s\n", rt_escape(q, sizeof q, file), strerror(e));
		status = EXIT_INPUT;
		goto out;
	}
	size_t len = 0;
	errno = 0;
	char *text = read_all(in, &len);
	int read_errno = errno;
	if (in != stdin)
		fclose(in);
	if (!text && read_errno == ENOMEM) {
		fprintf(stderr, "dyn: out of memory while reading %s\n", file);
		status = EXIT_INPUT;
		goto out;
	}
	if (!text) {
		char q[256];
		int e = errno;
		fprintf(stderr, "dyn: cannot read '%s': %s\n", rt_escape(q, sizeof q, file), strerror(e));
		status = EXIT_INPUT;
		goto out;
	}
	const char *name = strcmp(file, "-") == 0 ? "<stdin>" : file;
	struct ast_program *prog = session_parse(&s, name, text, len);
	if (!prog) {
		free(text);
		status = EXIT_INPUT;
		goto out;
	}
	for (int i = 0; i < s.nset; i++)
		if (!program_declares_param(prog, s.set[i].name)) {
			const char *model = program_model_with_param(prog, s.set[i].name);
			char q[256], f[256];
			const char *set = rt_escape(q, sizeof q, s.set[i].name), *script = rt_escape(f, sizeof f, name);
			if (model)
				fprintf(stderr, "dyn: --set %s: %s declares no top-level parameter '%s'; "
				        "model %s has one: --set %s.%s\n", set, script, set, model, model, set);
			else
				fprintf(stderr, "dyn: --set %s: %s declares no parameter '%s'\n", set, script, set);
			status = EXIT_USAGE;
		}
	if (status == 0)
		status = session_exec_program(&s, prog);
	if (status == 0 && s.dump_ir && !s.dumped) {
		/* it printed nothing and said nothing */
		fprintf(stderr, "dyn: --dump-ir: the script has no run statement: there is no plan to print\n");
		status = EXIT_INPUT;
	}
	free(text);
	if (status == 0 && s.failed_checks)
		status = EXIT_CHECK;
out:
	for (int i = 0; i < s.nset; i++)
		free((char *)s.set[i].name);
	session_free(&s);
	/* PETSc, when a run started it, stops on the thread that started it;
	 * on several processes a failure ends them all (dyn(1), MPI), with
	 * its records written, as in a serial run */
	if (la_mpi_size() > 1) {
		fflush(stdout);
		la_backend_join(status);
	}
	la_backend_finalize();
	/* A failure that every process meets (the script is replicated)
	 * before PETSc has started, which would join them: rank 0 says it,
	 * and the first process to exit with a failure makes mpirun end the
	 * others.  The other ranks let rank 0 end first, so that its message
	 * is not cut off by mpirun when they win the race (mpirun ends them
	 * as soon as rank 0 has exited). */
	if (la_mpi_size() > 1 && la_mpi_rank() != 0 && status != 0)
		sleep(3);
	/* errno names this flush's failure only: a write that failed earlier
	 * (ferror) left no reason, and errno then held a later call's
	 * ("Inappropriate ioctl for device" for a full disk) */
	errno = 0;
	int flushed = fflush(stdout) == 0;
	int why = flushed ? 0 : errno;
	if ((!flushed || ferror(stdout)) && status == 0) {
		if (why)
			fprintf(stderr, "dyn: error writing the standard output: %s\n", strerror(why));
		else
			fprintf(stderr, "dyn: error writing the standard output (an earlier write failed)\n");
		status = EXIT_INPUT;
	}
	return status;
}
