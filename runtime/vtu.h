/* vtu.h — fields on a mesh written for ParaView: VTK XML unstructured
 * grids (.vtu) and the collection (.pvd) that indexes a series of them by
 * time ("VTK File Formats", VTK User's Guide, XML formats).
 *
 * A .vtu holds the points, the cells (VTK_LINE 3, VTK_TRIANGLE 5, VTK_QUAD
 * 9, VTK_TETRA 10, VTK_HEXAHEDRON 12), point data (one value or a 3-vector
 * per point: 2-D vectors are padded with a zero z, as ParaView's glyphs
 * want) and cell data (one value or a vector per cell, P0 fields).  Arrays
 * are in one <AppendedData encoding="base64"> block: each array is a
 * UInt64 byte count (header_type="UInt64") base64-encoded on its own,
 * then its little-endian Float64 / Int64 / UInt8 values base64-encoded on
 * their own, as VTK's writer does (so the file is valid XML and still
 * read at the speed of binary); offsets count base64 characters from the
 * '_' opening the block, as VTK reads them.  Point data are nodal
 * values: with vtu_write, a P2 field is written at the vertices only (its first nnodes nodes, see fe_space.h,
 * stride ncomp), a Hermite field by its values w (stride 2); vtu_write_space
 * writes a P2 field whole, on quadratic cells.
 *
 * Files are replaced whole (runtime/outfile.h): written under a temporary
 * name and renamed when complete.  Errors (cannot create, disk full) come
 * back as messages naming the file and the system's reason. */
#ifndef DYN_VTU_H
#define DYN_VTU_H

#include <stddef.h>

#include "mesh.h"

/* One array to write. */
struct vtu_field {
	const char *name;
	int ncomp;            /* 1 (scalar) or dim ≤ 3 (vector) */
	const double *v;      /* (nnodes or ncells) × ncomp values */
	long stride;          /* values between entities (≥ ncomp; 0: ncomp) */
};

/* Write mesh m with npoint point fields and ncell cell fields to path.
 * Returns 0, or −1 with a message in err. */
int vtu_write(const char *path, const struct mesh *m,
              const struct vtu_field *point, int npoint,
              const struct vtu_field *cell, int ncell,
              char *err, size_t errlen);

/* Write the nodes and cells of space s (P1, Q1: its mesh, as vtu_write;
 * P2: every node, edge midpoints included, as a point, and the cells as
 * VTK_QUADRATIC_EDGE 21, _TRIANGLE 22, _TETRA 24, which ParaView draws
 * curved), point fields of s->nnode values.  Hermite and P0 spaces are
 * refused: write them on the mesh with vtu_write.  Returns 0 or −1 with
 * a message. */
struct fe_space;
int vtu_write_space(const char *path, const struct fe_space *s,
                    const struct vtu_field *point, int npoint,
                    const struct vtu_field *cell, int ncell,
                    char *err, size_t errlen);

/* A piece of a parallel VTU (a run on several processes, dyn(1) MPI):
 * cells c0 ≤ c < c1 of mesh m, or with a list the cells list[c0 .. c1 −
 * 1], and the points they use, numbered in the order first met, with
 * point fields of one value per point (gathered to the piece's points).
 * The points are the mesh's nodes, or with a space s those of
 * vtu_write_space (a P2 space's edge midpoints and quadratic cells;
 * Hermite and P0 refused).  Written by the calling process whatever
 * rt_outfile_silence says.  Returns 0 or −1 with a message. */
int vtu_write_piece(const char *path, const struct mesh *m, const struct fe_space *s, long c0, long c1,
                    const int32_t *list,
                    const struct vtu_field *point, int npoint,
                    char *err, size_t errlen);

/* The .pvtu that names npiece pieces (names relative to its folder),
 * declaring the point fields they hold.  Returns 0 or −1 with a
 * message. */
int vtu_write_pvtu(const char *path, const struct vtu_field *point, int npoint,
                   int npiece, const char *const *pieces,
                   char *err, size_t errlen);

/* The index of a series: n files (names as written in the .pvd, relative
 * to its folder) at times t.  Rewritten whole at every new file, so that
 * it is complete whenever the run stops.  Returns 0 or −1 with a message. */
int vtu_write_pvd(const char *path, int n, const char *const *files,
                  const double *t, char *err, size_t errlen);

/* Base64 (RFC 4648, with padding) of n bytes into out (4⌈n/3⌉ characters
 * and a NUL), and its inverse, which returns the number of bytes decoded
 * or −1 on a character outside the alphabet.  For the writer and its test. */
void vtu_base64(const unsigned char *in, size_t n, char *out);
long vtu_base64_decode(const char *in, size_t len, unsigned char *out);

#endif
