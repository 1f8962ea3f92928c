# ir/local.mk — the intermediate representation, the layer that lang/
# produces and runtime/ executes, with the two leaf modules it needs: the
# arenas its programs live in and the number formatting of its dumps.
# Depends on nothing else of dyn, so it sees only its own folder.
noinst_LIBRARIES += ir/libdynir.a
ir_libdynir_a_CPPFLAGS = -I$(srcdir)/ir
ir_libdynir_a_SOURCES = \
	ir/ir.c ir/ir.h ir/ir_ops.def ir/ir_families.def \
	ir/ir_diff.c ir/ir_diff.h \
	ir/arena.c ir/arena.h ir/mem.c ir/mem.h \
	ir/fmt.c ir/fmt.h
