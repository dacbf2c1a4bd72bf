/* members.c - the archive members of a model source (members.h): a thin layer over
 * io/zip.h, opened on the source's mapped .zip bytes or, for an extracted archive
 * directory (not mapped), on its path. Lists and reads; decodes nothing. */
#include "model/members.h"

#include "core/alloc.h"
#include "core/err.h"
#include "io/zip.h"

struct model_members {
    pqzip *zip;
};

pq_status model_members_open(const pq_source *src, model_members **out, pq_error *err)
{
    *out = NULL;
    model_members *m = pq_calloc(1, sizeof *m);
    RETURN_ERROR_IF(!m, err, PQ_ERR_NOMEM, NULL, -1, "out of memory");
    pq_status st = src->file.data
                       ? pqzip_open_memory(src->file.data, src->file.size, src->path, &m->zip, err)
                       : pqzip_open(src->path, &m->zip, err);
    if (st != PQ_OK) {
        pq_free(m);
        return st;
    }
    *out = m;
    return PQ_OK;
}

void model_members_close(model_members *m)
{
    if (!m)
        return;
    pqzip_close(m->zip);
    pq_free(m);
}

size_t model_members_count(const model_members *m)
{
    return pqzip_count(m->zip);
}

const char *model_members_name(const model_members *m, size_t i)
{
    const pqzip_member *mb = pqzip_member_at(m->zip, i);
    return mb->is_dir ? NULL : mb->name;
}

pq_status model_members_read(model_members *m, size_t i, mapped_file *out, pq_error *err)
{
    return pqzip_read(m->zip, i, out, err);
}
