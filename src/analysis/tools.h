/* tools.h - which analyses will produce data for a profile, and why the others will not. */
#ifndef PQ_ANALYSIS_TOOLS_H
#define PQ_ANALYSIS_TOOLS_H
#include "model/model.h"

enum { TOOLS_MAX = 24 };

typedef struct tool_verdict {
    const char *name;  /* the profq command */
    const char *xprof; /* the XProf tool it matches, or NULL */
    int available;     /* 1: this input has what the analysis needs */
    int implemented;   /* 1: this profq build has the command */
    char reason[256];  /* why (not) */
} tool_verdict;

typedef struct tools_result {
    tool_verdict items[TOOLS_MAX];
    int n;
} tools_result;

pq_status tools_compute(const pq_profile *prof, tools_result *out, pq_error *err);

#endif
