# stdlib/local.mk — the library written in the language: installed under
# $(pkgdatadir) and embedded in the binary (jq's builtin.jq idea), so that
# dyn works before and after `make install`.
dist_pkgdata_DATA += stdlib/schemes.dyn

lang/stdlib_schemes.inc: stdlib/schemes.dyn
	$(AM_V_GEN)$(MKDIR_P) lang && { \
	  echo 'static const char stdlib_schemes_dyn[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $(srcdir)/stdlib/schemes.dyn; \
	  echo ';'; } > $@-t && mv $@-t $@
BUILT_SOURCES += lang/stdlib_schemes.inc
CLEANFILES += lang/stdlib_schemes.inc
