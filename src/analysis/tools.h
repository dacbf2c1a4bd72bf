/* tools.h - which analyses will produce data for a profile, and why the others will not;
 * and which analyses each input feeds. */
#ifndef PQ_ANALYSIS_TOOLS_H
#define PQ_ANALYSIS_TOOLS_H
#include "model/model.h"

enum { TOOLS_MAX = 24, TOOLS_MAX_INPUTS = 64 };

typedef struct tool_verdict {
    const char *name;  /* the profq command */
    const char *xprof; /* the XProf tool it matches, or NULL */
    int available;     /* 1: this input has what the analysis needs */
    int implemented;   /* 1: this profq build has the command */
    char reason[256];  /* why (not) */
} tool_verdict;

/* One input and the analyses it feeds on its own (names of tool_verdict, in their order). */
typedef struct tool_input {
    const char *path; /* the source's (owned by the profile) */
    const char *feeds[TOOLS_MAX];
    int nfeeds;
} tool_input;

typedef struct tools_result {
    tool_verdict items[TOOLS_MAX]; /* over all inputs */
    int n;
    tool_input inputs[TOOLS_MAX_INPUTS]; /* the first TOOLS_MAX_INPUTS inputs */
    size_t ninputs;                      /* all inputs */
} tools_result;

pq_status tools_compute(const pq_profile *prof, tools_result *out, pq_error *err);

#endif
