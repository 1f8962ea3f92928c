# tests/fuzz/local.mk — two harder looks at the interpreter than make check:
#
#   make fuzz            libFuzzer over scripts (tests/fuzz/fuzz.c) for
#                        FUZZ_SECONDS (60) per target, with clang (FUZZ_CC)
#   make check-sanitize  the whole suite with AddressSanitizer and
#                        UndefinedBehaviorSanitizer
#
# Each builds a copy of the distributed tree (make distdir) in its own
# folder, so the build here stays as it is; see the scripts for details.
EXTRA_PROGRAMS = tests/fuzz/fuzz_lower tests/fuzz/fuzz_run
tests_fuzz_fuzz_lower_SOURCES = tests/fuzz/fuzz.c
tests_fuzz_fuzz_lower_LDADD = lang/libdynlang.a runtime/libdynrt.a ir/libdynir.a $(LIBS)
tests_fuzz_fuzz_lower_LDFLAGS = -fsanitize=fuzzer
tests_fuzz_fuzz_run_SOURCES = tests/fuzz/fuzz.c
tests_fuzz_fuzz_run_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_RUN=1
tests_fuzz_fuzz_run_LDADD = lang/libdynlang.a runtime/libdynrt.a ir/libdynir.a $(LIBS)
tests_fuzz_fuzz_run_LDFLAGS = -fsanitize=fuzzer
EXTRA_DIST += tests/fuzz/fuzz.sh tests/fuzz/dyn.dict tests/check-sanitize

FUZZ_SECONDS = 60
FUZZ_CC = clang

fuzz:
	@env srcdir=$(srcdir) MAKE='$(MAKE)' FUZZ_SECONDS='$(FUZZ_SECONDS)' FUZZ_CC='$(FUZZ_CC)' \
		$(SHELL) $(srcdir)/tests/fuzz/fuzz.sh

check-sanitize:
	@env srcdir=$(srcdir) MAKE='$(MAKE)' SANITIZE_CC='$(CC)' $(SHELL) $(srcdir)/tests/check-sanitize

clean-local: clean-fuzz
clean-fuzz:
	rm -rf tests/fuzz/build tests/sanitize-build

.PHONY: fuzz check-sanitize clean-fuzz
