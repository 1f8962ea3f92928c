# tests/local.mk — unit tests of the numeric kernels, golden tests of the
# language, verification scripts, shell tests.
#
# `make check` runs every test file found in the test folders (see
# tests/run-tests: tests/test_*.c, tests/golden/*.test, tests/verify/*.dyn,
# examples/*.dyn, tests/shell/*.sh), so adding a file there adds a test
# without editing a list.  The list is made when `make check` runs, and each
# test is a target of a sub-make (its log is tests/out/log/FILE.log), so
# `make -j2 check` runs them in parallel under make's job server; each runs
# through Automake's test-driver (tap-driver.sh for a golden file: one
# result per case), and the run ends with the line "N passed, N failed".
# `make check T=PATTERN` runs the tests whose file (or golden GROUP/CASE)
# name contains PATTERN.
RT_LIBS = runtime/libdynrt.a ir/libdynir.a $(LIBS)
check_PROGRAMS += tests/test_la tests/test_plot tests/test_table tests/test_fmt tests/test_mtx tests/test_spectrum tests/test_kernel tests/test_fe tests/test_mesh tests/test_gmsh tests/test_vtu tests/test_newton tests/test_eigs tests/ptyrun
tests_ptyrun_LDADD = -lutil
tests_test_la_LDADD = $(RT_LIBS)
tests_test_plot_LDADD = $(RT_LIBS)
tests_test_table_LDADD = $(RT_LIBS)
tests_test_fmt_LDADD = $(RT_LIBS)
tests_test_mtx_LDADD = $(RT_LIBS)
tests_test_spectrum_LDADD = $(RT_LIBS)
tests_test_kernel_LDADD = $(RT_LIBS)
tests_test_fe_LDADD = $(RT_LIBS)
tests_test_mesh_LDADD = $(RT_LIBS)
tests_test_gmsh_LDADD = $(RT_LIBS)
tests_test_vtu_LDADD = $(RT_LIBS)
tests_test_newton_LDADD = $(RT_LIBS)
tests_test_eigs_LDADD = $(RT_LIBS)

# Whole folders: every .test, .dyn, .csv and .sh in them ships.
EXTRA_DIST += tests/unit.h tests/run-tests tests/setup tests/numdiff tests/messages_untested.txt tests/golden tests/verify tests/shell tests/data tests/petsc examples

DYN_TEST_RUN = env srcdir=$(srcdir) builddir=. T='$(T)' $(SHELL) $(srcdir)/tests/run-tests
DYN_TEST_LOGS = tests/out/log/none.log

check-local: dyn$(EXEEXT) $(check_PROGRAMS)
	@rm -rf tests/out
	@logs=`$(DYN_TEST_RUN) --list '$(T)' | sed 's|^\(.*\)$$|tests/out/log/\1.log|' | tr '\n' ' '`; \
	$(MAKE) $(AM_MAKEFLAGS) -k DYN_TEST_LOGS="$$logs" $$logs; \
	$(DYN_TEST_RUN) --summary $$logs

# One test: tests/out/log/FILE.log and .trs from the test FILE.
$(DYN_TEST_LOGS):
	@log='$@'; test=$${log#tests/out/log/}; test=$${test%.log}; \
	$(MKDIR_P) `dirname "$$log"` || exit 1; \
	case $$test in \
	*.test) driver="env AM_TAP_AWK=$(AWK) $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh" ;; \
	*) driver="$(SHELL) $(top_srcdir)/build-aux/test-driver" ;; \
	esac; \
	$$driver --test-name "$$test" --log-file "$$log" --trs-file "$${log%.log}.trs" \
		--color-tests no --enable-hard-errors yes --expect-failure no -- \
		$(DYN_TEST_RUN) --one "$$test"

clean-local: clean-tests
clean-tests:
	rm -rf tests/out
.PHONY: clean-tests
