/* memattr.c - `profq memory`: per source and device, the memory viewer of the module the
 * device ran (analysis/memviewer.c), its maxHeapBySize rows classified by rules into
 * buckets, gradient hits, and the seed's three sanity checks. Not here: printing
 * (render/memattr.c). Modules a device ran come from its "XLA Modules" line; a device
 * without one (or a standalone HloProto) is attributed every program of its source, and a
 * device plane without any event gets a row that says it ran nothing. Devices are the
 * source's model devices of kind TPU or GPU (their names), their planes' lines the modules. */
#include "memattr.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "formats/xplane_walk.h"
#include "memviewer.h"
#include "model/model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* memcmp that accepts the NULL pointer of an empty view. */
static int mem_eq(const void *a, const void *b, size_t n)
{
    return n == 0 || memcmp(a, b, n) == 0;
}

const char *const MA_CHECK_NAMES[3] = {"groups_sum_to_peak", "parameter_rows_match_entry_params",
                                       "buckets_sum_to_parameter_rows"};

static const char DEFAULT_RULES[] = "kv_cache group=Parameter tf_op exact init_carry[2]\n"
                                    "kv_cache group=Parameter tf_op exact init_carry[3]\n"
                                    "model_params group=Parameter tf_op prefix params['\n"
                                    "other_carry_state group=Parameter tf_op prefix init_carry[\n"
                                    "other_parameter group=Parameter any regex .*\n";

static const char GRADIENT_RE[] =
    "\\bgrad(ient)?s?\\b|backward|optimizer|adam|momentum|rmsprop|weight_decay";

static int parse_rules(ma_rules *r, const char *text, const char *path, pq_error *err)
{
    int line = 0;
    const char *p = text;
    while (*p) {
        line++;
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char buf1[1024];
        if (n >= sizeof buf1)
            return err_set(err, PQ_ERR_INPUT, path, -1, "line %d: expected at most 1023 bytes",
                           line);
        memcpy(buf1, p, n);
        buf1[n] = 0;
        if (n && buf1[n - 1] == '\r')
            buf1[n - 1] = 0;
        p = e ? e + 1 : p + n;
        char *s = buf1;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '#')
            continue;
        if (r->n == MA_MAX_RULES)
            return err_set(err, PQ_ERR_INPUT, path, -1, "line %d: expected at most %d rules", line,
                           MA_MAX_RULES);
        ma_rule *u = &r->items[r->n];
        memset(u, 0, sizeof *u);
        char *tok[5];
        int nt = 0;
        /* BUCKET [group=NAME] FIELD MATCH PATTERN: the pattern is the rest of the line. */
        while (nt < 4 && *s) {
            tok[nt++] = s;
            while (*s && *s != ' ' && *s != '\t')
                s++;
            if (*s)
                *s++ = 0;
            while (*s == ' ' || *s == '\t')
                s++;
            if (nt == 2 && strncmp(tok[1], "group=", 6) != 0)
                break;
        }
        int k = 0;
        if (nt >= 1)
            snprintf(u->bucket, sizeof u->bucket, "%s", tok[k++]);
        if (nt >= 2 && strncmp(tok[1], "group=", 6) == 0) {
            snprintf(u->group, sizeof u->group, "%s", tok[1] + 6);
            k++;
        }
        if (nt - k < 1 || !*s) {
            /* re-split: FIELD MATCH PATTERN after bucket/group */
        }
        char *field = NULL, *match = NULL;
        if (k < nt)
            field = tok[k++];
        else {
            field = s;
            while (*s && *s != ' ' && *s != '\t')
                s++;
            if (*s)
                *s++ = 0;
            while (*s == ' ' || *s == '\t')
                s++;
        }
        if (k < nt)
            match = tok[k++];
        else {
            match = s;
            while (*s && *s != ' ' && *s != '\t')
                s++;
            if (*s)
                *s++ = 0;
            while (*s == ' ' || *s == '\t')
                s++;
        }
        char *pattern = s;
        static const char *const FIELDS[] = {"group", "tf_op", "instruction",
                                             "shape", "label", "any"};
        static const char *const MATCHES[] = {"exact", "prefix", "contains", "regex"};
        int fi = -1, mi = -1;
        for (int i = 0; i < 6; i++)
            if (field && strcmp(field, FIELDS[i]) == 0)
                fi = i;
        for (int i = 0; i < 4; i++)
            if (match && strcmp(match, MATCHES[i]) == 0)
                mi = i;
        if (!u->bucket[0] || fi < 0 || mi < 0 || !*pattern)
            return err_set(err, PQ_ERR_INPUT, path, -1,
                           "line %d: expected BUCKET [group=NAME] "
                           "group|tf_op|instruction|shape|label|any "
                           "exact|prefix|contains|regex PATTERN",
                           line);
        u->field = (ma_field)fi;
        u->match = (ma_match)mi;
        u->pattern = pq_strdup(pattern);
        if (!u->pattern)
            return err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
        if (u->match == MA_M_REGEX) {
            if (regcomp(&u->re, pattern, REG_EXTENDED | REG_NOSUB) != 0) {
                pq_free(u->pattern);
                return err_set(err, PQ_ERR_INPUT, path, -1,
                               "line %d: expected a POSIX extended regular expression", line);
            }
            u->has_re = 1;
        }
        r->n++;
    }
    return PQ_OK;
}

pq_status memattr_rules_init(ma_rules *r, const char *text, const char *path, pq_error *err)
{
    memset(r, 0, sizeof *r);
    if (regcomp(&r->gradient, GRADIENT_RE, REG_EXTENDED | REG_ICASE | REG_NOSUB) != 0)
        return err_set(err, PQ_ERR_INTERNAL, "", -1, "gradient regex");
    pq_status st = PQ_OK;
    if (text)
        st = parse_rules(r, text, path, err);
    if (st == PQ_OK)
        st = parse_rules(r, DEFAULT_RULES, "(default rules)", err);
    return st;
}

void memattr_rules_free(ma_rules *r)
{
    for (int i = 0; i < r->n; i++) {
        pq_free(r->items[i].pattern);
        if (r->items[i].has_re)
            regfree(&r->items[i].re);
    }
    regfree(&r->gradient);
    r->n = 0;
}

typedef struct row_fields {
    const char *v[5]; /* group, tf_op, instruction, shape, label */
} row_fields;

static int field_matches(const ma_rule *u, const char *v)
{
    switch (u->match) {
    case MA_M_EXACT:
        return strcmp(v, u->pattern) == 0;
    case MA_M_PREFIX:
        return strncmp(v, u->pattern, strlen(u->pattern)) == 0;
    case MA_M_CONTAINS:
        return strstr(v, u->pattern) != NULL;
    case MA_M_REGEX:
        return regexec(&u->re, v, 0, NULL, 0) == 0;
    }
    return 0;
}

static int rule_matches(const ma_rule *u, const row_fields *f)
{
    if (u->group[0] && strcmp(u->group, f->v[0]) != 0)
        return 0;
    if (u->field == MA_F_ANY) {
        for (int i = 1; i < 5; i++)
            if (field_matches(u, f->v[i]))
                return 1;
        return 0;
    }
    return field_matches(u, f->v[u->field]);
}

static int bucket_index(ma_result *out, const char *name)
{
    for (int i = 0; i < out->nbuckets; i++)
        if (strcmp(out->bucket_names[i], name) == 0)
            return i;
    if (out->nbuckets == MA_MAX_BUCKETS)
        return MA_MAX_BUCKETS - 1;
    out->bucket_names[out->nbuckets] = name;
    return out->nbuckets++;
}

static char *dup_str(arena *a, pq_str s)
{
    return arena_strndup(a, s.p ? s.p : "", s.n);
}

/* One computed memory viewer per (source, program), shared by the devices that ran it. */
typedef struct mv_cache {
    const pq_program *prog;
    mv_result *r;
    hlo_module *m;
    int failed;
} mv_cache;

static pq_status viewer_for(const pq_source *src, const pq_program *prog, int64_t space, arena *a,
                            mv_cache *cache, int *ncache, mv_result **out, pq_error *err)
{
    for (int i = 0; i < *ncache; i++)
        if (cache[i].prog == prog) {
            *out = cache[i].failed ? NULL : cache[i].r;
            return PQ_OK;
        }
    mv_cache *c = &cache[(*ncache)++];
    memset(c, 0, sizeof *c);
    c->prog = prog;
    int64_t off;
    const char *what;
    pq_status st = hlo_decode(prog->hlo, prog->hlo_len, src->file.data, a, &c->m, &off, &what);
    if (st == PQ_ERR_INPUT)
        return err_set(err, st, src->path, off, "expected %s in an HloProto", what);
    if (st != PQ_OK)
        return err_set(err, st, src->path, -1, "out of memory");
    st = memviewer_compute(c->m, space, a, &c->r, &what);
    if (st == PQ_ERR_NOMEM)
        return err_set(err, st, src->path, -1, "out of memory");
    c->failed = st != PQ_OK;
    *out = c->failed ? NULL : c->r;
    return PQ_OK;
}

static int key_matches(const pq_program *p, pq_str name)
{
    /* "<name>(<id>)" or the bare name */
    if (name.n == p->name.n && mem_eq(name.p, p->name.p, name.n))
        return 1;
    char k[32];
    snprintf(k, sizeof k, "(%" PRIu64 ")", p->program_id);
    size_t kl = strlen(k);
    return name.n == p->name.n + kl && mem_eq(name.p, p->name.p, p->name.n) &&
           memcmp(name.p + p->name.n, k, kl) == 0;
}

static int prefix_ok(const pq_program *p, const char *prefix)
{
    return memviewer_key_has_prefix(p->name, p->program_id, prefix);
}

static void classify(const mv_result *r, const ma_rules *rules, ma_result *out, ma_row *row,
                     arena *a)
{
    (void)a;
    double add = (double)r->indefinite_bytes;
    row->peak_bytes = r->peak_bytes + (int64_t)add;
    row->entry_params_bytes = r->entry_params_bytes;
    int gi_temp = bucket_index(out, "temporary"), gi_out = bucket_index(out, "output"),
        gi_grad = bucket_index(out, "gradients"), gi_other = bucket_index(out, "other");
    buf t;
    buf_init(&t, NULL);
    for (uint32_t i = 0; i < r->nobjects; i++) {
        const mv_object *o = &r->objects[r->by_size[i]];
        row_fields f;
        const char *group = o->lb ? memviewer_category(o->lb->alloc) : "Small";
        int g;
        for (g = 0; g < row->ngroups; g++)
            if (strcmp(row->group_names[g], group) == 0)
                break;
        if (g == row->ngroups && g < MA_MAX_GROUPS)
            row->group_names[row->ngroups++] = group;
        if (g < MA_MAX_GROUPS)
            row->group_bytes[g] += o->size_bytes;
        if (!o->lb) {
            row->bucket_bytes[gi_other] += o->size_bytes;
            continue;
        }
        const hlo_instruction *ins = o->lb->instr;
        t.n = 0;
        buf_put(&t, ins->op_name.p, ins->op_name.n);
        buf_putc(&t, 0);
        size_t o_inst = t.n;
        buf_put(&t, ins->name.p, ins->name.n);
        if (o->lb->proto->nshape_index) {
            buf_putc(&t, '{');
            for (uint32_t k = 0; k < o->lb->proto->nshape_index; k++)
                buf_printf(&t, "%s%" PRId64, k ? "," : "", o->lb->proto->shape_index[k]);
            buf_putc(&t, '}');
        }
        buf_putc(&t, 0);
        size_t o_label = t.n;
        buf_put(&t, ins->name.p, ins->name.n);
        buf_printf(&t, ": %s # ", o->lb->shape_string);
        buf_put(&t, ins->op_name.p, ins->op_name.n);
        buf_putc(&t, 0);
        if (t.status != PQ_OK)
            break;
        f.v[0] = group;
        f.v[1] = t.p;
        f.v[2] = t.p + o_inst;
        f.v[3] = o->lb->shape_string;
        f.v[4] = t.p + o_label;
        int hit = 0;
        for (int k = 1; k < 5 && !hit; k++)
            hit = regexec(&rules->gradient, f.v[k], 0, NULL, 0) == 0;
        if (hit) {
            row->gradient_hits++;
            row->bucket_bytes[gi_grad] += o->size_bytes;
        }
        if (strcmp(group, "Parameter") == 0) {
            row->parameter_rows_bytes += o->size_bytes;
            for (int k = 0; k < rules->n; k++)
                if (rule_matches(&rules->items[k], &f)) {
                    row->bucket_bytes[bucket_index(out, rules->items[k].bucket)] += o->size_bytes;
                    break;
                }
        } else if (strcmp(group, "Temporary") == 0) {
            row->bucket_bytes[gi_temp] += o->size_bytes;
        } else if (strcmp(group, "Output") == 0) {
            row->bucket_bytes[gi_out] += o->size_bytes;
        } else {
            int matched = 0;
            for (int k = 0; k < rules->n && !matched; k++)
                if (rules->items[k].group[0] && rule_matches(&rules->items[k], &f)) {
                    row->bucket_bytes[bucket_index(out, rules->items[k].bucket)] += o->size_bytes;
                    matched = 1;
                }
            if (!matched)
                row->bucket_bytes[gi_other] += o->size_bytes;
        }
    }
    buf_release(&t);
    int64_t gsum = 0;
    for (int g = 0; g < row->ngroups; g++)
        gsum += row->group_bytes[g];
    row->check_delta[0] = gsum - row->peak_bytes;
    row->check_ok[0] = row->check_delta[0] == 0;
    /* Parameter rows under 16 KiB land in the "small" aggregate: allow that much per entry
     * parameter allocation, as the seed's "~=" does. */
    row->check_delta[1] = row->parameter_rows_bytes - row->entry_params_bytes;
    int64_t params = 0;
    for (uint32_t i = 0; i < r->nindefinite; i++)
        params += r->indefinite[i]->is_entry_computation_parameter;
    int64_t tol = params * 16384;
    row->check_ok[1] = row->check_delta[1] <= 0 && -row->check_delta[1] <= tol;
    int64_t bsum = 0;
    for (int k = 0; k < rules->n; k++) {
        /* sum the buckets that Parameter rules name, each once */
        int seen = 0;
        for (int j = 0; j < k; j++)
            seen |= strcmp(rules->items[j].bucket, rules->items[k].bucket) == 0;
        if (!seen && strcmp(rules->items[k].group, "Parameter") == 0)
            bsum += row->bucket_bytes[bucket_index(out, rules->items[k].bucket)];
    }
    row->check_delta[2] = bsum - row->parameter_rows_bytes;
    row->check_ok[2] = row->check_delta[2] == 0;
}

int64_t pq_memory_figure(const pq_memory_result *r, const pq_memory_row *row, int f)
{
    if (f == 0)
        return row->peak_bytes;
    if (f == 1)
        return row->entry_params_bytes;
    if (f < 2 + r->nbuckets)
        return row->bucket_bytes[f - 2];
    return row->gradient_hits;
}

/* The figures (peak, entry params, each bucket, gradient hits) and their min/avg/max over
 * the rows of devices that ran something (issue 16 item 5: idle GPUs skewed them). */
void memattr_aggregate(ma_result *r)
{
    r->nfigures = 2 + r->nbuckets + 1;
    for (int f = 0; f < r->nfigures; f++) {
        r->figure_names[f] = f == 0                ? "peak_bytes"
                             : f == 1              ? "entry_params_bytes"
                             : f < 2 + r->nbuckets ? r->bucket_names[f - 2]
                                                   : "gradient_hits";
        pq_memory_stat *a = &r->aggregate[f];
        memset(a, 0, sizeof *a);
        int n = 0;
        for (int i = 0; i < r->nrows; i++) {
            if (r->rows[i].ran_nothing)
                continue;
            int64_t v = pq_memory_figure(r, &r->rows[i], f);
            if (n == 0 || v < a->min)
                a->min = v;
            if (n == 0 || v > a->max)
                a->max = v;
            a->avg += (double)v;
            n++;
        }
        if (n)
            a->avg /= n;
    }
}

/* A device plane without a single event ran nothing (MI300 GPU:1-7 of a one-GPU job):
 * attributing its source's modules to it would report memory it never held. */
static int ran_nothing(const xp_plane *plane)
{
    for (uint32_t l = 0; l < plane->nlines; l++)
        if (plane->lines[l].events)
            return 0;
    return 1;
}

/* A TPU TensorCore or a GPU, as the model's devices name their kind (model/devices.h). */
static int is_accelerator(const model_device *dev)
{
    return dev && (strcmp(dev->kind, "TPU") == 0 || strcmp(dev->kind, "GPU") == 0);
}

/* --module matched no row (issue 16 item 6): exit 3 as memory-viewer and heap do, naming
 * whether no module has that prefix or no device ran one that has. */
static pq_status no_module(const pq_profile *p, const char *prefix, pq_error *err)
{
    int any = 0;
    for (size_t s = 0; s < p->nsources && !any; s++)
        for (uint32_t i = 0; i < p->sources[s].nprograms && !any; i++)
            any = prefix_ok(&p->sources[s].programs[i], prefix);
    if (any)
        return err_set(err, PQ_ERR_NOT_FOUND, "", -1,
                       "no device ran a module matching '%s' (with a memory viewer)", prefix);
    return err_set(err, PQ_ERR_NOT_FOUND, "", -1,
                   "no module matches '%s' (profq memory-viewer PATH lists them)", prefix);
}

pq_status memattr_compute(const pq_profile *p, const char *module_prefix, int64_t memory_space,
                          const ma_rules *rules, arena *a, ma_result *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    /* Bucket order: the rules' buckets first, then the fixed ones. */
    for (int k = 0; k < rules->n; k++)
        bucket_index(out, rules->items[k].bucket);
    bucket_index(out, "temporary");
    bucket_index(out, "output");
    bucket_index(out, "gradients");
    bucket_index(out, "other");
    int cap = 0;
    for (size_t s = 0; s < p->nsources; s++)
        cap += (int)p->sources[s].nplanes + 1;
    out->rows = arena_alloc(a, (size_t)(cap ? cap : 1) * sizeof *out->rows);
    if (!out->rows)
        return err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory");
    for (size_t s = 0; s < p->nsources; s++) {
        const pq_source *src = &p->sources[s];
        if (!src->nprograms)
            continue;
        mv_cache *cache = pq_calloc(src->nprograms, sizeof *cache);
        if (!cache)
            return err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory");
        int ncache = 0;
        int devices = 0;
        pq_status st = PQ_OK;
        for (uint32_t pl = 0; pl <= src->nplanes && st == PQ_OK; pl++) {
            const xp_plane *plane = pl < src->nplanes ? &src->planes[pl] : NULL;
            const model_device *dev = plane ? xp_plane_device(src, plane) : NULL;
            if (plane && !is_accelerator(dev))
                continue;
            if (!plane && devices)
                break;
            if (plane && ran_nothing(plane)) {
                ma_row *row = &out->rows[out->nrows++];
                memset(row, 0, sizeof *row);
                row->host = dup_str(a, src->info.host);
                row->device = dup_str(a, pq_str_of(dev->name, strlen(dev->name)));
                row->module = "";
                row->ran_nothing = 1;
                out->nidle++;
                continue;
            }
            /* Which programs this device ran. */
            uint8_t *ran = pq_calloc(src->nprograms, 1);
            if (!ran) {
                st = err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory");
                break;
            }
            int any_line = 0;
            if (plane)
                for (uint32_t l = 0; l < plane->nlines; l++) {
                    if (!pq_str_eq(plane->lines[l].name, "XLA Modules"))
                        continue;
                    any_line = 1;
                    xp_event_iter it;
                    xp_event ev;
                    xp_events_begin(&plane->lines[l], &it);
                    while (xp_events_next(&it, &ev)) {
                        const xp_event_meta *em = xp_event_meta_find(plane, ev.metadata_id);
                        if (!em)
                            continue;
                        for (uint32_t q = 0; q < src->nprograms; q++)
                            if (!ran[q] && key_matches(&src->programs[q], em->name))
                                ran[q] = 1;
                    }
                }
            if (!any_line)
                memset(ran, 1, src->nprograms);
            const pq_program *best = NULL;
            mv_result *best_r = NULL;
            for (uint32_t q = 0; q < src->nprograms && st == PQ_OK; q++) {
                if (!ran[q] || !prefix_ok(&src->programs[q], module_prefix))
                    continue;
                mv_result *r = NULL;
                st = viewer_for(src, &src->programs[q], memory_space, a, cache, &ncache, &r, err);
                if (r && (!best_r || r->peak_bytes + r->indefinite_bytes >
                                         best_r->peak_bytes + best_r->indefinite_bytes)) {
                    best = &src->programs[q];
                    best_r = r;
                }
            }
            pq_free(ran);
            if (st != PQ_OK || !best)
                continue;
            devices++;
            ma_row *row = &out->rows[out->nrows++];
            memset(row, 0, sizeof *row);
            row->host = dup_str(a, src->info.host);
            row->device = dev ? dup_str(a, pq_str_of(dev->name, strlen(dev->name))) : "(all)";
            row->module = memviewer_module_key(a, best->name, best->program_id);
            row->program_id = best->program_id;
            classify(best_r, rules, out, row, a);
        }
        pq_free(cache);
        if (st != PQ_OK)
            return st;
    }
    if (arena_failed(a))
        return err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory");
    if (module_prefix && *module_prefix && out->nrows == out->nidle)
        return no_module(p, module_prefix, err);
    memattr_aggregate(out);
    return PQ_OK;
}

const char *pq_memory_check_name(int i)
{
    return i >= 0 && i < 3 ? MA_CHECK_NAMES[i] : NULL;
}

/* A computed attribution with what it owns: the rows' arena and the rules (bucket names
 * point into them). The public struct comes first: pq_memory_free casts back. */
typedef struct ma_handle {
    pq_memory_result pub;
    arena a;
    ma_rules *rules;
} ma_handle;

pq_status pq_memory_compute(const pq_profile *p, const pq_memory_options *opts,
                            pq_memory_result **out, pq_error *err)
{
    *out = NULL;
    ma_handle *h = pq_calloc(1, sizeof *h);
    if (!h)
        return err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory");
    arena_init(&h->a);
    h->rules = pq_malloc(sizeof *h->rules);
    if (!h->rules) {
        pq_free(h);
        return err_set(err, PQ_ERR_NOMEM, "", -1, "out of memory");
    }
    pq_status st = memattr_rules_init(h->rules, opts->rules_text,
                                      opts->rules_path ? opts->rules_path : "", err);
    if (st == PQ_OK)
        st = memattr_compute(p, opts->module_prefix, opts->memory_space, h->rules, &h->a, &h->pub,
                             err);
    if (st != PQ_OK) {
        pq_memory_free(&h->pub);
        return st;
    }
    *out = &h->pub;
    return PQ_OK;
}

void pq_memory_free(pq_memory_result *result)
{
    if (!result)
        return;
    ma_handle *h = (ma_handle *)(void *)result;
    arena_release(&h->a);
    memattr_rules_free(h->rules);
    pq_free(h->rules);
    pq_free(h);
}
