/* profile.c - the profile's lifetime and its public accessors: freeing a profile with
 * everything its sources own, the sources' facts, format names. Loading (which reader fills
 * the model) is formats/load.c; the public open calls are api/open.c. */
#include "core/alloc.h"
#include "model.h"

#include <string.h>

const char *pq_format_name(pq_format format)
{
    switch (format) {
    case PQ_FORMAT_XSPACE:
        return "xspace";
    case PQ_FORMAT_HLO_PROTO:
        return "hlo_proto";
    case PQ_FORMAT_TRACE_JSON:
        return "trace_json";
    case PQ_FORMAT_TT_LOG:
        return "tt_log";
    case PQ_FORMAT_NSYS_JAX:
        return "nsys_jax";
    case PQ_FORMAT_NSYS_SQLITE:
        return "nsys_sqlite";
    case PQ_FORMAT_UNKNOWN:
        break;
    }
    return "unknown";
}
void pq_profile_free(pq_profile *profile)
{
    if (!profile)
        return;
    for (size_t i = 0; i < profile->nsources; i++) {
        pq_source *s = &profile->sources[i];
        mapfile_close(&s->file);
        if (s->slices) {
            slices_free(s->slices);
            pq_free(s->slices);
        }
        pq_ttlog_free(s->ttlog);
        for (uint32_t d = 0; d < s->nnsys_dumps; d++) {
            mapfile_close(&s->nsys_dumps[d].pb);
            pq_free(s->nsys_dumps[d].member);
        }
        pq_free(s->nsys_dumps);
        devices_free(&s->devices);
        model_ops_free(&s->ops);
        arena_release(&s->mem);
        pq_free(s->path);
    }
    pq_free(profile->sources);
    pq_free(profile);
}
size_t pq_profile_source_count(const pq_profile *profile)
{
    return profile ? profile->nsources : 0;
}

const pq_source_info *pq_profile_source(const pq_profile *profile, size_t i)
{
    if (!profile || i >= profile->nsources)
        return NULL;
    return &profile->sources[i].info;
}
