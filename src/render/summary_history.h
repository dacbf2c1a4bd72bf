/* summary_history.h - the history digest (analysis/summary_history.h) as its JSON document. */
#ifndef PQ_RENDER_SUMMARY_HISTORY_H
#define PQ_RENDER_SUMMARY_HISTORY_H
#include "analysis/summary_history.h"
#include "core/buf.h"

/* The digest D of history file PATH as json.dumps(indent=2, sort_keys=True) writes it (no
 * trailing newline). */
void su_history_write(buf *b, const char *path, const sm_history_digest *d);

#endif
