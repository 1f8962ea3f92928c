# bench/local.mk — `make bench` prints the figures of issue 9's table
# (bench/run.sh); neither `make all` nor `make check` builds or runs any
# of it.  The C reference is an EXTRA_PROGRAM: built for `make bench` only.
EXTRA_PROGRAMS += bench/newmark_ref bench/runstat
bench_newmark_ref_CPPFLAGS = -I$(srcdir)/ir
bench_newmark_ref_SOURCES = bench/newmark_ref.c
bench_newmark_ref_LDADD = ir/libdynir.a
bench_runstat_SOURCES = bench/runstat.c
CLEANFILES += bench/newmark_ref$(EXEEXT) bench/runstat$(EXEEXT)
EXTRA_DIST += bench/run.sh bench/README bench/chain.dyn bench/chain_matrix.dyn bench/chain_sum.dyn \
	bench/seismic_long.dyn bench/chain_energy.dyn bench/constraint_sum.dyn bench/constraint_family.dyn \
	bench/load_family.dyn bench/fpu.dyn bench/contact.dyn bench/contact_floor.dyn \
	bench/ball.dyn bench/incline.dyn bench/siconos/ball.py bench/siconos/incline.py \
	bench/fe_block.dyn bench/fe_block_cd.dyn bench/fe_block_nh_cd.dyn bench/fe_block_nh.dyn bench/fe_cube.dyn bench/fe_block.edp
bench: dyn$(EXEEXT) bench/newmark_ref$(EXEEXT) bench/runstat$(EXEEXT)
	@DYN=./dyn$(EXEEXT) REF=./bench/newmark_ref$(EXEEXT) RUNSTAT=./bench/runstat$(EXEEXT) srcdir=$(srcdir) \
		$(SHELL) $(srcdir)/bench/run.sh
.PHONY: bench
