# lang/local.mk — from text to IR, the interpreter of statements and the
# dyn driver.
bin_PROGRAMS += dyn
noinst_LIBRARIES += lang/libdynlang.a
lang_libdynlang_a_SOURCES = \
	lang/diag.c lang/diag.h \
	lang/ast.c lang/ast.h \
	lang/lexer.l lang/parser.y lang/parse.c lang/parse.h \
	lang/value.c lang/value.h \
	lang/eval.c lang/eval.h lang/interp.h \
	lang/check.c lang/check.h lang/names.c lang/names.h \
	lang/builtin.c lang/fe.c lang/fe.h lang/lower.c lang/lower_energy.c lang/exec.c lang/outpath.c lang/repl.c lang/repl.h
nodist_lang_libdynlang_a_SOURCES = lang/stdlib_schemes.inc
dyn_SOURCES = lang/main.c
dyn_LDADD = lang/libdynlang.a runtime/libdynrt.a ir/libdynir.a $(LIBS)
if HAVE_PETSC
# the PETSc module (runtime/local.mk) resolves la_* in dyn
dyn_LDFLAGS = -rdynamic
endif
BUILT_SOURCES += lang/parser.h
# The generated headers before the objects that include them, so that
# `make dyn` builds on a fresh tree too (BUILT_SOURCES are made first by
# `make`, `make all` and `make check` alone).
$(lang_libdynlang_a_OBJECTS): lang/parser.h lang/stdlib_schemes.inc
