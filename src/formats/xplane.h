/* xplane.h - XSpace reader into the model. */
#ifndef PQ_FORMATS_XPLANE_H
#define PQ_FORMATS_XPLANE_H
#include "model/model.h"

/* Decodes src->file as an XSpace into src (planes, lines, metadata, programs).
 * Every structure is bounds-checked; errors name src->path and a byte offset.
 * With SCAN not NULL, every stat value is also decoded and counted into *SCAN in the
 * same pass (the single-pass full decode behind `profq scan`). */
pq_status xplane_read(pq_source *src, pq_scan_totals *scan, pq_error *err);

/* Fills src->devices from the planes read (formats/xplane_devices.c) and links each plane to
 * its device. 0, or -1 when memory ran out. */
int xplane_devices(pq_source *src);

/* States into src->ops the ops of its TensorCore planes' event metadata and links each
 * entry to its op (xp_plane.emeta_op; formats/xplane_ops.c), after xplane_devices. 0, or -1
 * when memory ran out. */
int xplane_ops(pq_source *src);

/* States into src->ops the ops of its GPU kernels and XLA:CPU thunks (by their hlo_op,
 * hlo_module and program_id stats) and gives their planes and lines the XLA stats of each
 * event (xp_plane.xla, xp_line.xla; formats/xplane_xla.c), after the programs are located.
 * 0, or -1 when memory ran out. */
int xplane_xla_ops(pq_source *src);

/* The two builds behind xplane_read (see xplane.c): portable, and x86-64 BMI2. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define XPLANE_HAVE_BMI2 1
#else
#define XPLANE_HAVE_BMI2 0
#endif
pq_status xplane_read_generic(pq_source *src, pq_scan_totals *scan, pq_error *err);
#if XPLANE_HAVE_BMI2
pq_status xplane_read_bmi2(pq_source *src, pq_scan_totals *scan, pq_error *err);
#endif

#endif
