/* ttmem.h (render) - the outputs of the Tenstorrent memory analysis: the two JSON files and
 * the markdown summary (ttmem.c), the HTML report (tthtml.c). Formatting only. */
#ifndef PQ_RENDER_TTMEM_H
#define PQ_RENDER_TTMEM_H
#include "analysis/ttmem.h"
#include "core/buf.h"

/* Writes output WHAT of LOG (R: its analysis; unused by the JSON outputs) into B. */
void ttmem_render(const tt_log *log, const ttmem_result *r, pq_tt_output what, const char *name,
                  buf *b);
/* Padding bytes as a person reads them: "1792 B" under 1 MiB, else "3.500 MB". */
void ttmem_fmt_bytes(buf *b, uint64_t bytes);
/* A padding ratio cell: "700.0%", or "-" under PQ_TT_PAD_RATIO_MIN_BYTES unpadded. */
void ttmem_fmt_ratio(buf *b, uint64_t unpadded, uint64_t padded);
/* "over 40000 B unpadded", or "+63.8% over 3.500 MB unpadded" from 1 MiB unpadded on. */
void ttmem_fmt_pad_of(buf *b, uint64_t unpadded, uint64_t pad);
/* The sentence saying how padding is reported (no HTML or markdown in it). */
extern const char TTMEM_PAD_NOTE[];
void tthtml_render(const tt_log *log, const ttmem_result *r, const char *name, buf *b);

#endif
