# tests/local.mk — unit tests of the numeric kernels, golden tests of the
# language, verification scripts.  `make check` runs tests/run-tests, which
# ends with the line "N passed, N failed".
RT_LIBS = runtime/libdynrt.a $(LIBS)
check_PROGRAMS += tests/test_la tests/test_plot tests/test_table tests/test_fmt tests/ptyrun
tests_ptyrun_LDADD = -lutil
tests_test_la_LDADD = $(RT_LIBS)
tests_test_plot_LDADD = $(RT_LIBS)
tests_test_table_LDADD = $(RT_LIBS)
tests_test_fmt_LDADD = $(RT_LIBS)

# Whole folders: every .test, .dyn, .csv and .sh in them ships.
EXTRA_DIST += tests/run-tests tests/setup tests/golden tests/verify tests/shell examples

check-local: dyn$(EXEEXT) $(check_PROGRAMS)
	@srcdir=$(srcdir) builddir=. $(SHELL) $(srcdir)/tests/run-tests

clean-local:
	rm -rf tests/out
