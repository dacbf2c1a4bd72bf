/* xplane_xla.h - capturing the XLA stats of a GPU or host-thread plane's events while the
 * XPlane reader validates its lines (formats/xplane_xla.c). Included by xplane.c after
 * pbwire.h, so that its BMI2 build keeps its PEXT varints (xplane_bmi2.c). */
#ifndef PQ_FORMATS_XPLANE_XLA_H
#define PQ_FORMATS_XPLANE_XLA_H
#include "core/hmap.h"
#include "formats/xplane_opstats.h"
#include "model/model.h"

/* The XLA stats of one GPU or host-thread plane's events while its lines are read
 * (formats/xplane_xla.c): xla_capture_begin (0: the plane has none to capture; a host-thread
 * plane is captured only with HOST_THREADS: the source has no TPU or GPU plane), then
 * xla_capture_event for each event of a line, xla_capture_line once the line is read,
 * xla_capture_end once the plane is (0 when memory ran out). */
typedef struct xla_class_set {
    xp_xla_class *v; /* the distinct XLA stats, in the order met */
    size_t n, cap;
    pq_hmap map;
} xla_class_set;

typedef struct xla_capture {
    pq_source *src;
    xp_plane *pl;
    int gpu, oom;
    stat_ids ids;
    op_stats *ms; /* by metadata entry: its stats, read once (mread) */
    unsigned char *mread;
    xla_class_set set;
    uint32_t *pend; /* the line's (event index, set index + 1) pairs */
    size_t npend, cappend;
} xla_capture;

int xla_capture_begin(xla_capture *cp, pq_source *src, xp_plane *pl, int host_threads);
/* The event of metadata id MID whose body is BODY (LEN bytes), the INDEX-th of its line. */
void xla_capture_event(xla_capture *cp, int64_t mid, const uint8_t *body, size_t len,
                       uint64_t index);
int xla_capture_line(xla_capture *cp, xp_line *line);
int xla_capture_end(xla_capture *cp);

#endif
