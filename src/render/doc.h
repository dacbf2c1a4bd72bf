/* doc.h - the opening and closing of a rendered document, shared by the renderers. */
#ifndef PQ_RENDER_DOC_H
#define PQ_RENDER_DOC_H
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"

/* Starts a pretty-printed JSON object on B with its "schema" key. */
static inline void json_doc_begin(json_writer *w, buf *b, const char *schema)
{
    json_init(w, b, 1);
    json_obj_begin(w);
    json_key(w, "schema");
    json_cstr(w, schema);
}

/* Flushes B into its sink and releases it; a failure is set in ERR and returned. */
static inline pq_status render_finish(buf *b, pq_error *err)
{
    pq_status st = buf_flush(b);
    buf_release(b);
    if (st != PQ_OK)
        err_set(err, st, NULL, -1, "cannot write the output");
    return st;
}

#endif
