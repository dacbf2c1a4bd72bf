/* info_tt.h - the Tenstorrent part of `profq info`: what the runtime log holds. */
#ifndef PQ_RENDER_INFO_TT_H
#define PQ_RENDER_INFO_TT_H
#include "core/buf.h"
#include "core/json.h"
#include "model/model.h"

/* The "tenstorrent" object of a source in profq.info.v1 (W is inside the source object). */
void info_tt_json(json_writer *w, const pq_source *src);
/* The text lines of a Tenstorrent source, after its header. */
void info_tt_text(buf *b, const pq_source *src);

#endif
