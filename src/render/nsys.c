/* nsys.c - `profq nsys` output from the composed nsys result (analysis/nsys.c): the
 * nsys-jax module table as text, in the notebook's layout (share, total ms, rows, name
 * (program id)), or as JSON profq.nsys.v1, then the other sections through
 * render/nsys_comm.c and render/nsys_sections.c; the XPlane path's module table. Formats
 * only: no analysis is called here and no file is read. */
#include "render/nsys.h"
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
/* frames.FRAME's row counts of the module, thunk and communication frames. */
static void frame_rows_json(json_writer *w, const nsys_modules_result *r, const nsys_comm_result *c,
                            int f)
{
    json_key(w, "module_rows");
    json_uint(w, r->frames[f].module_rows);
    json_key(w, "thunk_rows");
    json_uint(w, r->frames[f].thunk_rows);
    json_key(w, "communication_rows");
    json_uint(w, c->communication_rows[f]);
}

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
        json_cstr(w, m->key ? m->key : id);
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
        json_cstr(w, r->modules[k].key ? r->modules[k].key : id);
    }
    json_arr_end(w);
}

/* The sections an input cannot give (analysis/nsys.h nsys_unavailable), named in the text
 * and in the JSON key "unavailable". */
static const struct {
    unsigned bit;
    const char *name;
} UNAVAILABLE[] = {{PQ_NSYS_BIAS, "bias"},
                   {PQ_NSYS_COMPILE, "compile"},
                   {PQ_NSYS_HEAP, "heap"},
                   {PQ_NSYS_FLAME, "flame"}};

static void unavailable_text(const nsys_result *r, buf *b)
{
    if (!r->unavailable)
        return;
    buf_printf(b, "\nnot available on %s:", nsys_input_name(r));
    const char *sep = " ";
    for (size_t k = 0; k < sizeof UNAVAILABLE / sizeof UNAVAILABLE[0]; k++)
        if (r->unavailable & UNAVAILABLE[k].bit) {
            buf_printf(b, "%s%s", sep, UNAVAILABLE[k].name);
            sep = ", ";
        }
    buf_puts(b, " (they need an nsys-jax archive)\n");
}

static void unavailable_json(json_writer *w, const nsys_result *r)
{
    if (!r->unavailable)
        return;
    json_key(w, "unavailable");
    json_obj_begin(w);
    json_key(w, "sections");
    json_arr_begin(w);
    for (size_t k = 0; k < sizeof UNAVAILABLE / sizeof UNAVAILABLE[0]; k++)
        if (r->unavailable & UNAVAILABLE[k].bit)
            json_cstr(w, UNAVAILABLE[k].name);
    json_arr_end(w);
    json_key(w, "reason");
    json_cstr(w, r->xplane ? "an XPlane has no push/pop report (compile), no HLO dumps (heap, "
                             "flame) and no projected per-device thunk ranges (bias)"
                           : "profq reads no push/pop report (compile) and no HLO dumps (heap, "
                             "flame) from an Nsight SQLite export");
    json_obj_end(w);
}

static void nsys_json(const nsys_result *res, unsigned sections, buf *b)
{
    const nsys_modules_result *r = &res->modules;
    const nsys_comm_result *c = &res->comm;
    json_writer w;
    json_doc_begin(&w, b, "profq.nsys.v1");
    if (res->unavailable) {
        json_key(&w, "input");
        json_cstr(&w, "nsys-sqlite");
    }
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
        frame_rows_json(&w, r, c, f);
        nsys_more_json_rows(&w, res, f);
        json_obj_end(&w);
    }
    json_obj_end(&w);
    modules_json(&w, r);
    nsys_comm_json(&w, c, sections);
    nsys_more_json(&w, res);
    unavailable_json(&w, res);
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
        if (m->key)
            buf_printf(b, " (%s)\n", m->key);
        else
            buf_printf(b, " (%" PRId64 ")\n", m->program_id);
    }
    buf_puts(b, "top module ids (99% of the time):");
    for (size_t k = 0; k < r->ntop; k++)
        if (r->modules[k].key)
            buf_printf(b, " %s", r->modules[k].key);
        else
            buf_printf(b, " %" PRId64, r->modules[k].program_id);
    buf_putc(b, '\n');
}

static void nsys_text(const nsys_modules_result *r, const nsys_comm_result *c, unsigned sections,
                      int sqlite, buf *b)
{
    buf_printf(b, "%s: %zu %s, %zu device(s); %zu program(s) compiled in the profile\n",
               sqlite ? "Nsight SQLite" : "nsys-jax", r->sources,
               sqlite ? "export(s)" : "archive(s)", r->devices, r->compiled_programs);
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

/* `profq nsys` on XPlane GPU profiles (analysis/nsys_xplane.c): the module table, then the
 * communication sections as on an archive. */
static void render_xplane(const nsys_result *res, unsigned sections, pq_output fmt, buf *b)
{
    const nsys_modules_result *r = &res->modules;
    const nsys_comm_result *c = &res->comm;
    if (fmt == PQ_OUT_JSON) {
        json_writer w;
        json_doc_begin(&w, b, "profq.nsys.v1");
        json_key(&w, "input");
        json_cstr(&w, "xplane");
        json_key(&w, "sources");
        json_uint(&w, r->sources);
        json_key(&w, "devices");
        json_uint(&w, r->devices);
        json_key(&w, "frames");
        json_obj_begin(&w);
        for (int f = 0; f < NSYS_NFRAMES; f++) {
            json_key(&w, FRAME_NAMES[f]);
            json_obj_begin(&w);
            frame_rows_json(&w, r, c, f);
            json_obj_end(&w);
        }
        json_obj_end(&w);
        modules_json(&w, r);
        nsys_comm_json(&w, c, sections);
        unavailable_json(&w, res);
        json_obj_end(&w);
        return;
    }
    buf_printf(b,
               "XPlane GPU profile: %zu file(s), %zu device(s)\n"
               "module executions are runs of consecutive kernels of one module; a thunk is the "
               "kernels of one hlo_op in one\n"
               "execution (its time the sum of theirs), classified from the XSpace's HloProtos\n",
               r->sources, r->devices);
    buf_puts(b, "\nframe    module rows  thunk rows  communication rows\n");
    for (int f = 0; f < NSYS_NFRAMES; f++)
        buf_printf(b, "%-8s %11" PRIu64 " %11" PRIu64 " %19" PRIu64 "\n", FRAME_NAMES[f],
                   r->frames[f].module_rows, r->frames[f].thunk_rows, c->communication_rows[f]);
    if (sections & PQ_NSYS_MODULES) {
        buf_printf(b,
                   "\nsteady modules (%.3f ms; every execution is steady: an XPlane does not "
                   "show compilation)\n",
                   (double)r->total_ns / 1e6);
        modules_text(r, b);
    }
    nsys_comm_text(b, c, sections);
    unavailable_text(res, b);
}

pq_status nsys_render(const nsys_result *r, pq_output fmt, pq_sink *sink, pq_error *err)
{
    unsigned sections = nsys_shown_sections(r);
    buf b;
    buf_init(&b, sink);
    if (r->xplane && fmt != PQ_OUT_SVG)
        render_xplane(r, sections, fmt, &b);
    else if (fmt == PQ_OUT_SVG) {
        if (r->sections & PQ_NSYS_FLAME)
            nsys_more_svg(r, &b);
        else
            nsys_comm_svg(&b, &r->comm);
    } else if (fmt == PQ_OUT_JSON) {
        nsys_json(r, sections, &b);
    } else {
        nsys_text(&r->modules, &r->comm, sections, r->unavailable != 0, &b);
        nsys_comm_text(&b, &r->comm, sections);
        nsys_more_text(r, &b);
        unavailable_text(r, &b);
    }
    return render_finish(&b, err);
}
