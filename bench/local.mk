# bench/local.mk — `make bench` prints timings; never part of `make check`.
EXTRA_DIST += bench/run.sh bench/chain.dyn bench/seismic_long.dyn bench/chain_energy.dyn bench/contact.dyn
bench: dyn$(EXEEXT)
	@DYN=./dyn$(EXEEXT) srcdir=$(srcdir) $(SHELL) $(srcdir)/bench/run.sh
.PHONY: bench
