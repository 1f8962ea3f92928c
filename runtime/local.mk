# runtime/local.mk — executes IR: VM, linear algebra, steppers, recorders.
noinst_LIBRARIES += runtime/libdynrt.a
# runtime/ sees ir/ and itself, never lang/.
runtime_libdynrt_a_CPPFLAGS = -I$(srcdir)/runtime -I$(srcdir)/ir -DDYN_PKGLIBDIR='"$(pkglibexecdir)"'
runtime_libdynrt_a_CFLAGS = $(AM_CFLAGS) $(VECT_CFLAGS)
runtime_libdynrt_a_SOURCES = \
	runtime/la.c runtime/la.h runtime/la_rows.h runtime/la_impl.h runtime/la_mat.c \
	runtime/la_dense.c runtime/la_band.c runtime/la_cholmod.c runtime/la_umfpack.c runtime/la_plugin.c runtime/la_eigs.c runtime/la_eigmax.c \
	runtime/extlib.c runtime/extlib.h \
	runtime/vm.c runtime/vm.h \
	runtime/kernel.c runtime/kernel.h \
	runtime/scheme.h runtime/stepper.h runtime/schemes.def runtime/registry.c \
	runtime/step_matrix.c runtime/part.c runtime/part.h runtime/part_phi.c runtime/part_phi.h \
	runtime/run.c runtime/run.h \
	runtime/problem.c runtime/problem.h \
	runtime/varmass.c runtime/varmass.h \
	runtime/newton.c runtime/newton.h runtime/jacobian.c runtime/jacobian.h runtime/omega.c runtime/omega.h \
	runtime/stage.c runtime/stage.h \
	runtime/nlstep.c runtime/nlstep.h \
	runtime/scheme_newmark.c runtime/scheme_central_difference.c runtime/scheme_backward_euler.c \
	runtime/scheme_bathe.c \
	runtime/scheme_midpoint.c runtime/scheme_staggered_midpoint.c \
	runtime/midpoint_varmass.c runtime/midpoint_varmass.h \
	runtime/scheme_paoli_schatzman.c runtime/scheme_moreau_jean.c \
	runtime/amplification.c runtime/modes.c runtime/plot_term.c \
	runtime/plot_svg.c runtime/plot.h \
	runtime/table.c runtime/table.h \
	runtime/spectrum.c runtime/spectrum.h \
	runtime/mtx.c runtime/mtx.h \
	runtime/fe_output.c runtime/fe_output.h \
	runtime/outfile.c runtime/outfile.h \
	runtime/mesh.c runtime/mesh_gmsh.c runtime/mesh.h runtime/mesh_impl.h runtime/fe_ref.c runtime/fe_ref.h runtime/fe_space.c runtime/fe_space.h runtime/fe_assemble.c runtime/fe_assemble.h runtime/vtu.c runtime/vtu.h
# The PETSc backend (solver = direct | iterative) is a module that
# runtime/la_plugin.c loads at its first use, so that PETSc's shared
# libraries are not loaded at every start of dyn; it calls back into dyn,
# which exports its symbols for it (-rdynamic).
if HAVE_PETSC
pkglibexec_PROGRAMS = dyn-petsc.so
dyn_petsc_so_SOURCES = runtime/la_petsc.c runtime/la_impl.h runtime/la.h
dyn_petsc_so_CPPFLAGS = -I$(srcdir)/runtime -I$(srcdir)/ir $(PETSC_INCLUDES)
dyn_petsc_so_CFLAGS = $(AM_CFLAGS) -fPIC
dyn_petsc_so_LDFLAGS = -shared
dyn_petsc_so_LDADD = $(PETSC_LIBS)
endif
