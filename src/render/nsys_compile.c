/* nsys_compile.c - the compile section of `profq nsys` (analysis/nsys_compile.c): the
 * notebook's compile summary as text ("Top 97%+ of T s compilation time", one line per
 * pass: share, seconds, name) and as the "compile" object of profq.nsys.v1, plus the
 * compile frame's row counts. Formats only. */
#include "analysis/nsys_modules.h"
#include "render/nsys_sections.h"

#include <inttypes.h>
#include <string.h>

void nsys_compile_json_rows(json_writer *w, const nsys_compile_result *r, int frame)
{
    json_key(w, "compile_rows");
    json_uint(w, frame == NSYS_STEADY ? 0 : r->rows); /* the whole frame is initialisation */
}

void nsys_compile_json(json_writer *w, const nsys_compile_result *r)
{
    json_key(w, "compile");
    json_obj_begin(w);
    json_key(w, "rows");
    json_uint(w, r->rows);
    json_key(w, "rows_autotuning_detail_removed");
    json_uint(w, r->rows_detail_removed);
    json_key(w, "parallel_regions");
    json_uint(w, r->parallel_regions);
    json_key(w, "total_s");
    json_double(w, r->total_ns / 1e9);
    json_key(w, "threshold");
    json_double(w, 0.97);
    json_key(w, "names");
    json_uint(w, r->npasses);
    json_key(w, "passes");
    json_arr_begin(w);
    for (size_t k = 0; k < r->ntop; k++) {
        const nsys_compile_pass *p = &r->passes[k];
        json_obj_begin(w);
        json_key(w, "name");
        json_cstr(w, nsys_compile_name(r, p));
        json_key(w, "non_child_s");
        json_double(w, p->non_child_ns / 1e9);
        json_key(w, "child_s");
        json_double(w, p->child_ns / 1e9);
        json_key(w, "share");
        json_double(w, p->share);
        json_obj_end(w);
    }
    json_arr_end(w);
    json_obj_end(w);
}

void nsys_compile_text(const nsys_compile_result *r, buf *b)
{
    buf_printf(b,
               "\ncompile: top 97%% of %.2f s compilation time (%" PRIu64 " ranges, %" PRIu64
               " without autotuning detail; %" PRIu64 " parallel region(s))\n",
               r->total_ns / 1e9, r->rows, r->rows_detail_removed, r->parallel_regions);
    for (size_t k = 0; k < r->ntop; k++) {
        const nsys_compile_pass *p = &r->passes[k];
        const char *name = nsys_compile_name(r, p);
        buf_printf(b, "%6.2f%% %8.2f s  ", p->share * 100, p->non_child_ns / 1e9);
        json_escape_into(b, name, strlen(name));
        buf_putc(b, '\n');
    }
}
