/* tools.c - renders `profq tools` (schema profq.tools.v1) from the availability analysis's
 * result: the verdict of each analysis over all inputs, then the analyses each input feeds.
 * Formats only: api/tools.c computes. */
#include "render/tools.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "render/doc.h"

#include <stdio.h>
#include <string.h>

pq_status tools_render(const tools_result *r, pq_output fmt, pq_sink *sink, pq_error *err)
{
    buf b;
    buf_init(&b, sink);
    if (fmt == PQ_OUT_JSON) {
        json_writer w;
        json_doc_begin(&w, &b, "profq.tools.v1");
        json_key(&w, "tools");
        json_arr_begin(&w);
        for (int i = 0; i < r->n; i++) {
            const tool_verdict *v = &r->items[i];
            json_obj_begin(&w);
            json_key(&w, "name");
            json_cstr(&w, v->name);
            json_key(&w, "xprof_tool");
            if (v->xprof)
                json_cstr(&w, v->xprof);
            else
                json_null(&w);
            json_key(&w, "available");
            json_bool(&w, v->available);
            json_key(&w, "implemented");
            json_bool(&w, v->implemented);
            json_key(&w, "reason");
            json_cstr(&w, v->reason);
            json_obj_end(&w);
        }
        json_arr_end(&w);
        json_key(&w, "inputs");
        json_arr_begin(&w);
        for (size_t i = 0; i < r->ninputs && i < TOOLS_MAX_INPUTS; i++) {
            json_obj_begin(&w);
            json_key(&w, "path");
            json_cstr(&w, r->inputs[i].path);
            json_key(&w, "feeds");
            json_arr_begin(&w);
            for (int k = 0; k < r->inputs[i].nfeeds; k++)
                json_cstr(&w, r->inputs[i].feeds[k]);
            json_arr_end(&w);
            json_obj_end(&w);
        }
        json_arr_end(&w);
        json_key(&w, "inputs_total");
        json_uint(&w, r->ninputs);
        json_obj_end(&w);
    } else {
        for (int pass = 0; pass < 2; pass++) {
            buf_puts(&b, pass == 0 ? "will produce data:\n" : "\nwill not produce data:\n");
            for (int i = 0; i < r->n; i++) {
                const tool_verdict *v = &r->items[i];
                if (v->available != (pass == 0))
                    continue;
                buf_printf(&b, "  %-15s %s%s\n", v->name, v->reason,
                           v->implemented ? "" : " [not in this build yet]");
            }
        }
        buf_puts(&b, "\neach input feeds:\n");
        for (size_t i = 0; i < r->ninputs && i < TOOLS_MAX_INPUTS; i++) {
            buf_printf(&b, "  %s\n   ", r->inputs[i].path);
            for (int k = 0; k < r->inputs[i].nfeeds; k++)
                buf_printf(&b, "%s %s", k ? "," : "", r->inputs[i].feeds[k]);
            buf_putc(&b, '\n');
        }
        if (r->ninputs > TOOLS_MAX_INPUTS)
            buf_printf(&b, "  ... and %zu more input(s)\n", r->ninputs - TOOLS_MAX_INPUTS);
    }
    return render_finish(&b, err);
}
