/* nsys.c - `profq nsys` output: the nsys-jax module table (analysis/nsys_modules.c) as text,
 * in the notebook's layout (share, total ms, rows, name (program id)), or as JSON
 * profq.nsys.v1. Formats only; no computing beyond the analysis's result. */
#include "analysis/nsys_modules.h"
#include "analysis/nsys_xplane.h"
#include "render/nsys_comm.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "render/doc.h"
#include "render/nsys_sections.h"

#include <stdio.h>

#include <inttypes.h>
#include <string.h>

static const char *const FRAME_NAMES[NSYS_NFRAMES] = {"all", "steady", "init"};

/* modules[] and top_module_ids[] of profq.nsys.v1. */
static void modules_json(json_writer *w, const nsys_modules_result *r)
{
    json_key(w, "modules");
    json_arr_begin(w);
    char id[24];
    for (size_t k = 0; k < r->nmodules; k++) {
        const nsys_module_row *m = &r->modules[k];
        json_obj_begin(w);
        json_key(w, "program_id");
        snprintf(id, sizeof id, "%" PRId64, m->program_id);
        json_cstr(w, id);
        json_key(w, "name");
        json_cstr(w, m->name);
        json_key(w, "rows");
        json_uint(w, m->rows);
        json_key(w, "total_ms");
        json_double(w, m->total_ms);
        json_key(w, "share");
        json_double(w, m->share);
        json_key(w, "thunks_mean");
        json_double(w, m->thunks_mean);
        json_key(w, "thunks_std");
        json_double(w, m->thunks_std);
        json_key(w, "wait_share");
        json_double(w, m->wait_share);
        json_obj_end(w);
    }
    json_arr_end(w);
    json_key(w, "top_module_ids");
    json_arr_begin(w);
    for (size_t k = 0; k < r->ntop; k++) {
        snprintf(id, sizeof id, "%" PRId64, r->modules[k].program_id);
        json_cstr(w, id);
    }
    json_arr_end(w);
}

static void nsys_json(const nsys_modules_result *r, const nsys_comm_result *c,
                      const nsys_more *more, unsigned sections, buf *b)
{
    json_writer w;
    json_doc_begin(&w, b, "profq.nsys.v1");
    json_key(&w, "sources");
    json_uint(&w, r->sources);
    json_key(&w, "devices");
    json_uint(&w, r->devices);
    json_key(&w, "compiled_programs");
    json_uint(&w, r->compiled_programs);
    json_key(&w, "frames");
    json_obj_begin(&w);
    for (int f = 0; f < NSYS_NFRAMES; f++) {
        json_key(&w, FRAME_NAMES[f]);
        json_obj_begin(&w);
        json_key(&w, "module_rows");
        json_uint(&w, r->frames[f].module_rows);
        json_key(&w, "thunk_rows");
        json_uint(&w, r->frames[f].thunk_rows);
        json_key(&w, "communication_rows");
        json_uint(&w, c->communication_rows[f]);
        nsys_more_json_rows(&w, more, f);
        json_obj_end(&w);
    }
    json_obj_end(&w);
    modules_json(&w, r);
    nsys_comm_json(&w, c, sections);
    nsys_more_json(&w, more);
    json_obj_end(&w);
}

/* The module table's rows and top module ids, in the notebook's layout. */
static void modules_text(const nsys_modules_result *r, buf *b)
{
    buf_puts(b, "  share     total ms   wait   rows   thunks  name (program id)\n");
    for (size_t k = 0; k < r->nmodules; k++) {
        const nsys_module_row *m = &r->modules[k];
        buf_printf(b, "%6.2f%% %12.3f ", m->share * 100, m->total_ms);
        if (m->wait_share == m->wait_share)
            buf_printf(b, "%5.2f%%", m->wait_share * 100);
        else
            buf_puts(b, "    --");
        buf_printf(b, " %6" PRIu64 " %5.0f", m->rows, m->thunks_mean);
        if (m->rows > 1)
            buf_printf(b, "±%-3.0f ", m->thunks_std);
        else
            buf_puts(b, "     ");
        json_escape_into(b, m->name, strlen(m->name));
        buf_printf(b, " (%" PRId64 ")\n", m->program_id);
    }
    buf_puts(b, "top module ids (99% of the time):");
    for (size_t k = 0; k < r->ntop; k++)
        buf_printf(b, " %" PRId64, r->modules[k].program_id);
    buf_putc(b, '\n');
}

static void nsys_text(const nsys_modules_result *r, const nsys_comm_result *c, unsigned sections,
                      buf *b)
{
    buf_printf(b,
               "nsys-jax: %zu archive(s), %zu device(s); %zu program(s) compiled in the profile\n",
               r->sources, r->devices, r->compiled_programs);
    buf_puts(b, "\nframe    module rows  thunk rows  communication rows\n");
    for (int f = 0; f < NSYS_NFRAMES; f++)
        buf_printf(b, "%-8s %11" PRIu64 " %11" PRIu64 " %19" PRIu64 "\n", FRAME_NAMES[f],
                   r->frames[f].module_rows, r->frames[f].thunk_rows, c->communication_rows[f]);
    if (r->all_steady)
        buf_puts(b, "warning: the HEAD warm-up rule leaves no steady rows of a kind: all of "
                    "them taken as steady (as the HEAD loader does)\n");
    if ((sections & (PQ_NSYS_WARMUP_HEAD - 1)) && !(sections & PQ_NSYS_MODULES))
        return;
    buf_printf(b, "\nsteady modules (%.3f ms; %s)\n", (double)r->total_ns / 1e6,
               c->warmup_head ? "HEAD warm-up rule: executions below (compiled in the profile) + "
                                "(profile has communication) are not steady"
                              : "executions 0 and 1 of the programs compiled in the profile "
                                "are not steady");
    modules_text(r, b);
}

/* `profq nsys` on XPlane GPU profiles (analysis/nsys_xplane.c): the module table only. */
static pq_status render_xplane(const pq_profile *profile, unsigned only, pq_output fmt,
                               pq_sink *sink, pq_error *err)
{
    if ((only & ~(unsigned)PQ_NSYS_MODULES) || fmt == PQ_OUT_SVG) {
        const char *p = profile->nsources ? profile->sources[0].path : "";
        return err_set(err, PQ_ERR_INPUT, p, -1,
                       "on an XPlane profile profq nsys has the modules section only (text "
                       "or json); the other sections need an nsys-jax archive");
    }
    nsys_modules_result r;
    pq_status st = nsys_xplane_modules(profile, &r, err);
    if (st != PQ_OK)
        return st;
    buf b;
    buf_init(&b, sink);
    if (fmt == PQ_OUT_JSON) {
        json_writer w;
        json_doc_begin(&w, &b, "profq.nsys.v1");
        json_key(&w, "input");
        json_cstr(&w, "xplane");
        json_key(&w, "sources");
        json_uint(&w, r.sources);
        json_key(&w, "devices");
        json_uint(&w, r.devices);
        json_key(&w, "warmup");
        json_cstr(&w, "unknown: every execution steady");
        json_key(&w, "frames");
        json_obj_begin(&w);
        for (int f = 0; f < NSYS_NFRAMES; f++) {
            json_key(&w, FRAME_NAMES[f]);
            json_obj_begin(&w);
            json_key(&w, "module_rows");
            json_uint(&w, r.frames[f].module_rows);
            json_key(&w, "thunk_rows");
            json_uint(&w, r.frames[f].thunk_rows);
            json_obj_end(&w);
        }
        json_obj_end(&w);
        modules_json(&w, &r);
        json_obj_end(&w);
    } else {
        buf_printf(&b,
                   "XPlane GPU profile: %zu file(s), %zu device(s)\n"
                   "module executions are runs of consecutive kernels of one module, thunks the "
                   "distinct hlo_op in each\n",
                   r.sources, r.devices);
        buf_puts(&b, "\nframe    module rows  thunk rows\n");
        for (int f = 0; f < NSYS_NFRAMES; f++)
            buf_printf(&b, "%-8s %11" PRIu64 " %11" PRIu64 "\n", FRAME_NAMES[f],
                       r.frames[f].module_rows, r.frames[f].thunk_rows);
        buf_printf(&b,
                   "\nsteady modules (%.3f ms; every execution is steady: an XPlane does not show "
                   "compilation)\n",
                   (double)r.total_ns / 1e6);
        modules_text(&r, &b);
    }
    nsys_xplane_free(&r);
    return render_finish(&b, err);
}

/* Whether PROFILE has an XSpace source and no nsys-jax source (nsys_xplane_modules then
 * says when no GPU plane holds XLA kernels). */
static int xplane_only(const pq_profile *profile)
{
    int xspace = 0;
    for (size_t s = 0; s < profile->nsources; s++) {
        if (profile->sources[s].info.format == PQ_FORMAT_NSYS_JAX)
            return 0;
        xspace |= profile->sources[s].info.format == PQ_FORMAT_XSPACE;
    }
    return xspace;
}

pq_status pq_render_nsys(const pq_profile *profile, unsigned sections, pq_output fmt, pq_sink *sink,
                         pq_error *err)
{
    unsigned only = sections & (PQ_NSYS_WARMUP_HEAD - 1); /* the section bits */
    unsigned want = only ? only : ~0u;
    if (xplane_only(profile))
        return render_xplane(profile, only, fmt, sink, err);
    nsys_warmup w = {.head = (sections & PQ_NSYS_WARMUP_HEAD) != 0};
    if (!(sections & (PQ_NSYS_WARMUP_HEAD | PQ_NSYS_WARMUP_ARCHIVE)))
        w.head = nsys_warmup_head_default(profile);
    pq_status st = w.head ? nsys_comm_has_communication(profile, &w.has_communication, err) : PQ_OK;
    nsys_modules_result r;
    if (st == PQ_OK)
        st = nsys_modules_compute_warmup(profile, &w, &r, err);
    if (st != PQ_OK)
        return st;
    nsys_comm_result c;
    st = nsys_comm_compute_warmup(profile, &w, &r, &c, err);
    nsys_more m; /* compile, heap, flame (render/nsys_sections.c) */
    if (st == PQ_OK) {
        st = nsys_more_compute(profile, want, &r, &c, &m, err);
        if (st != PQ_OK)
            nsys_comm_free(&c);
    }
    if (st != PQ_OK) {
        nsys_modules_free(&r);
        return st;
    }
    buf b;
    buf_init(&b, sink);
    if (fmt == PQ_OUT_SVG) {
        if (sections & PQ_NSYS_FLAME)
            nsys_more_svg(&m, &b);
        else
            nsys_comm_svg(&b, &c);
    } else if (fmt == PQ_OUT_JSON) {
        nsys_json(&r, &c, &m, sections, &b);
    } else {
        nsys_text(&r, &c, sections, &b);
        nsys_comm_text(&b, &c, sections);
        nsys_more_text(&m, &b);
    }
    nsys_comm_free(&c);
    nsys_modules_free(&r);
    nsys_more_free(&m);
    return render_finish(&b, err);
}
