/* opmem.c - what the model's per-op memory state defines beside its types (model/opmem.h):
 * the names of the buffer types. */
#include "model/opmem.h"

const char *const TT_MEM_NAMES[TT_NMEM] = {"DRAM", "L1", "L1_SMALL", "TRACE"};
