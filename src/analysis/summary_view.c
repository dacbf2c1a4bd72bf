/* summary_view.c - the slices that the summary's time and op sections see (issue 16 item
 * 4). Kineto writes more than GPU work on a GPU's tracks: `gpu_user_annotation` ranges
 * (record_function, DistributedDataParallel.forward, Optimizer.step, nccl:all_reduce
 * labels projected onto the streams) and `cuda_sync` records (Stream Sync, Context Sync,
 * Event Sync, Stream Wait Event: CUPTI's synchronisation records). Neither is work the GPU
 * did; read as device ops they ranked first in hot_ops and inflated the compute share.
 * sm_leave_out marks them left out of the work view (annotation slices on any track; on a
 * Kineto GPU process, every slice that is not a kernel, memcpy or memset: a bit per
 * slice, sm_work), after keeping the annotation ranges as region windows of 1.16
 * (sm_annot), as HTA and TraceLens read them. The slices themselves are the profile's and
 * are not changed. Not here: the categories themselves (formats/trace_events.c), the sweep
 * that uses the windows (summary_regions.c). */
#include "summary_int.h"

#include "core/alloc.h"

#include <string.h>

/* Whether slice E of M is left out of the time and op sections. */
static int left_out(const sm_builder *b, const model_slices *m, size_t e)
{
    if (m->flags[e] & SLICE_GPU_ANNOTATION)
        return 1;
    return b->kineto && b->tracks[m->track[e]].device && !(m->flags[e] & SLICE_GPU_WORK);
}

/* The annotation slices IDX[0..n) (sorted by track, start, longest first) as windows: each
 * one's path is the names of the annotations that enclose it on its track and its own,
 * joined by "=>". 0, or -1 when memory ran out. */
static int annot_windows(ctx *c, const uint32_t *idx, size_t n)
{
    const model_slices *m = c->b->m;
    intern_pool *names = c->b->names;
    uint32_t *stack = pq_malloc_array(n + 1, sizeof *stack);
    c->ann = pq_malloc_array(n + 1, sizeof *c->ann);
    if (!stack || !c->ann) {
        pq_free(stack);
        return -1;
    }
    size_t sp = 0;
    char path[2048];
    for (size_t k = 0; k < n; k++) {
        uint32_t e = idx[k];
        int64_t start = m->start_ps[e], end = start + m->dur_ps[e];
        while (sp && (m->track[e] != c->ann[stack[sp - 1]].track ||
                      end > c->ann[stack[sp - 1]].start_ps + c->ann[stack[sp - 1]].dur_ps))
            sp--;
        const char *nm = intern_str(names, m->name[e]);
        const char *up = sp ? intern_str(names, c->ann[stack[sp - 1]].path) : "";
        size_t nu = strlen(up), nn = strlen(nm);
        uint32_t id;
        if (sp && nu + 2 + nn < sizeof path) {
            memcpy(path, up, nu);
            memcpy(path + nu, "=>", 2);
            memcpy(path + nu + 2, nm, nn);
            id = intern_add(names, path, nu + 2 + nn);
        } else {
            sp = 0; /* a path too long for the buffer starts again at its own name */
            id = m->name[e];
        }
        c->ann[k] = (sm_annot){start, m->dur_ps[e], id, m->track[e], (int)sp + 1};
        stack[sp++] = (uint32_t)k;
    }
    c->nann = n;
    pq_free(stack);
    return names->failed ? -1 : 0;
}

int sm_leave_out(ctx *c)
{
    sm_builder *b = c->b;
    const model_slices *m = b->m;
    size_t n = m->n, na = 0;
    for (size_t e = 0; e < n; e++)
        na += (m->flags[e] & SLICE_GPU_ANNOTATION) != 0;
    uint32_t *ann = pq_malloc_array(na + 1, sizeof *ann);
    if (!ann)
        return -1;
    na = 0;
    for (size_t e = 0; e < n; e++)
        if (m->flags[e] & SLICE_GPU_ANNOTATION)
            ann[na++] = (uint32_t)e;
    int rc = sm_sort_by_track(b, SORT_END_DESC, ann, na) != 0 || annot_windows(c, ann, na) != 0;
    pq_free(ann);
    if (rc)
        return -1;
    /* A bit per slice, not a copy of the columns: the slices are the profile's, which other
     * analyses read as they are (the html page's), and a copy would double the columns'
     * memory on the traces that have annotations (the 1 GiB benchmark trace has them). */
    size_t nleft = 0;
    for (size_t e = 0; e < n; e++) {
        if (!left_out(b, m, e))
            continue;
        if (!c->left_bits && !(c->left_bits = pq_calloc(n / 64 + 1, sizeof *c->left_bits)))
            return -1;
        c->left_bits[e >> 6] |= (uint64_t)1 << (e & 63);
        nleft++;
    }
    b->left_out = c->left_bits;
    b->nwork = n - nleft;
    return 0;
}
