/* nsys_xplane.h - the nsys-jax module table (nsys_modules.h) and communication tables
 * (nsys_comm.h) from a JAX XPlane GPU profile (issue 12 Deliver 4): module executions per
 * GPU plane, thunks = the kernels of one hlo_op per execution, every execution steady (an
 * XPlane does not show which programs were compiled while profiling). */
#ifndef PQ_ANALYSIS_NSYS_XPLANE_H
#define PQ_ANALYSIS_NSYS_XPLANE_H
#include "analysis/nsys_comm.h"
#include "analysis/nsys_modules.h"

/* GPU planes of PROF's XSpace sources whose kernels carry hlo_module (0: nothing to table). */
size_t nsys_xplane_devices(const pq_profile *prof);

/* The module table of PROF's XSpace GPU planes into OUT (frames: all = steady, init empty;
 * compiled_programs 0; wait_share NaN until nsys_xplane_comm). Module executions come from
 * the plane's kernels (its "XLA Modules" line, when one exists, is not read): sorted by
 * start over the plane's stream lines, consecutive kernels of the same (program id,
 * hlo_module) form one execution from the first start to the latest end; its thunk count is
 * the number of distinct hlo_op.
 * PQ_ERR_INPUT when no GPU plane carries XLA kernels. Free with nsys_xplane_free. */
pq_status nsys_xplane_modules(const pq_profile *prof, nsys_modules_result *out, pq_error *err);
void nsys_xplane_free(nsys_modules_result *r);

/* The communication side (nsys_comm.h) over the same executions: per device execution a
 * module row (ProgramExecution counted per device and program id) and one thunk per hlo_op
 * (start: its first kernel's, duration: the sum of its kernels' durations; ns truncated from
 * ps), every row steady; the thunks classified through the HloProtos the XSpace holds
 * (nsys_hlo_open_xspace), so runtime, opcodes, collectives (message and collective size
 * from the instruction's shapes), alignment and variability follow the archive's rules.
 * MODS from nsys_xplane_modules (top module ids; wait_share set for modules with
 * communication). Errors: a corrupt HloProto (PQ_ERR_INPUT), NOMEM. */
pq_status nsys_xplane_comm(const pq_profile *prof, nsys_modules_result *mods, nsys_comm_result *out,
                           pq_error *err);

#endif
