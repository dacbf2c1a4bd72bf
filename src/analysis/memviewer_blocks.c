/* memviewer_blocks.c - the two parts of XProf's memory viewer that read no heap trace:
 * the largest scoped VMEM allocation of a color, scanned from each instruction's
 * backend_config JSON (spec 3.6), and the buffer-block layout of the allocation timeline
 * (ConvertAllocationTimeline: XProf's node numbering and 209-colour palette). Split from
 * memviewer.c (index, replay, peak snapshot), which calls both. */
#include "memviewer.h"

#include <stdint.h>
#include <string.h>

/* "used_scoped_memory_configs":[{"memory_space":"1","size":"123"},...] in backend_config
 * JSON; numbers or quoted numbers (spec 3.6). A small scanner, not a JSON parser: it finds
 * the key, then reads the objects of its array. Malformed text yields nothing. */
static const char *skip_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
        p++;
    return p;
}

static const char *skip_string(const char *p, const char *e)
{
    if (p >= e || *p != '"')
        return NULL;
    for (p++; p < e; p++) {
        if (*p == '\\')
            p++;
        else if (*p == '"')
            return p + 1;
    }
    return NULL;
}

static const char *skip_value(const char *p, const char *e, int depth)
{
    p = skip_ws(p, e);
    if (p >= e || depth > 64)
        return NULL;
    if (*p == '"')
        return skip_string(p, e);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = skip_ws(p + 1, e);
        if (p < e && *p == close)
            return p + 1;
        for (;;) {
            if (close == '}') {
                p = skip_string(skip_ws(p, e), e);
                if (!p)
                    return NULL;
                p = skip_ws(p, e);
                if (p >= e || *p != ':')
                    return NULL;
                p++;
            }
            p = skip_value(p, e, depth + 1);
            if (!p)
                return NULL;
            p = skip_ws(p, e);
            if (p < e && *p == ',') {
                p++;
                continue;
            }
            return p < e && *p == close ? p + 1 : NULL;
        }
    }
    while (p < e && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n')
        p++;
    return p;
}

static int64_t json_int_value(const char *p, const char *e)
{
    p = skip_ws(p, e);
    if (p < e && *p == '"')
        p++;
    int neg = p < e && *p == '-';
    p += neg;
    int64_t v = 0;
    int digits = 0;
    while (p < e && *p >= '0' && *p <= '9' && v < INT64_MAX / 10) {
        v = v * 10 + (*p++ - '0');
        digits++;
    }
    return digits ? (neg ? -v : v) : 0;
}

void memviewer_scoped_vmem(const char *p, const char *e, int64_t color, int64_t *best, pq_str name,
                           pq_str *best_name)
{
    static const char KEY[] = "\"used_scoped_memory_configs\"";
    p = skip_ws(p, e);
    if (p >= e || *p != '{')
        return;
    p++;
    for (;;) {
        p = skip_ws(p, e);
        const char *ks = p;
        p = skip_string(p, e);
        if (!p)
            return;
        int is_key = (size_t)(p - ks) == sizeof KEY - 1 && memcmp(ks, KEY, sizeof KEY - 1) == 0;
        p = skip_ws(p, e);
        if (p >= e || *p != ':')
            return;
        p = skip_ws(p + 1, e);
        if (is_key && p < e && *p == '[') {
            const char *q = skip_ws(p + 1, e);
            while (q < e && *q == '{') {
                const char *end = skip_value(q, e, 0);
                if (!end)
                    return;
                int64_t ms = 0, size = 0;
                const char *f = q + 1;
                while (f < end - 1) {
                    f = skip_ws(f, end);
                    const char *fk = f;
                    f = skip_string(f, end);
                    if (!f)
                        break;
                    f = skip_ws(f, end);
                    if (f >= end || *f != ':')
                        break;
                    f = skip_ws(f + 1, end);
                    if (f - fk >= 0 && (size_t)(f - fk) > 0) {
                        const char *vs = f;
                        f = skip_value(f, end, 1);
                        if (!f)
                            break;
                        size_t kl = 0;
                        while (fk + 1 + kl < end && fk[1 + kl] != '"')
                            kl++;
                        if (kl == 12 && memcmp(fk + 1, "memory_space", 12) == 0)
                            ms = json_int_value(vs, f);
                        else if (kl == 4 && memcmp(fk + 1, "size", 4) == 0)
                            size = json_int_value(vs, f);
                    }
                    f = skip_ws(f, end);
                    if (f < end && *f == ',')
                        f++;
                }
                if (ms == color && size > *best) {
                    *best = size;
                    *best_name = name;
                }
                q = skip_ws(end, e);
                if (q < e && *q == ',')
                    q = skip_ws(q + 1, e);
            }
        }
        p = skip_value(p, e, 0);
        if (!p)
            return;
        p = skip_ws(p, e);
        if (p < e && *p == ',') {
            p++;
            continue;
        }
        return;
    }
}

static const char *const PALETTE[209] = {
    "#e91e63", "#2196f3", "#81c784", "#4dd0e1", "#3f51b5", "#e53935", "#ff9100", "#b39ddb",
    "#90a4ae", "#26c6da", "#ad1457", "#03a9f4", "#2196f3", "#c2185b", "#795548", "#f9a825",
    "#00bfa5", "#880e4f", "#d500f9", "#ce93d8", "#ec407a", "#4caf50", "#ff8f00", "#ffca28",
    "#ab47bc", "#00e5ff", "#ff9800", "#40c4ff", "#1e88e5", "#9fa8da", "#bf360c", "#00b8d4",
    "#f57f17", "#64b5f6", "#e040fb", "#ffab91", "#4caf50", "#01579b", "#66bb6a", "#ef9a9a",
    "#558b2f", "#fb8c00", "#ff4081", "#00e676", "#388e3c", "#424242", "#6d4c41", "#c62828",
    "#616161", "#00897b", "#448aff", "#0d47a1", "#607d8b", "#673ab7", "#00c853", "#2e7d32",
    "#ffa726", "#5e35b1", "#ba68c8", "#8d6e63", "#00bcd4", "#ff6f00", "#f4511e", "#ff1744",
    "#9e9e9e", "#d81b60", "#4a148c", "#26a69a", "#689f38", "#7b1fa2", "#b0bec5", "#304ffe",
    "#f48fb1", "#ffd600", "#ffb74d", "#8bc34a", "#303f9f", "#5d4037", "#80cbc4", "#ffcc80",
    "#00acc1", "#3e2723", "#ff5252", "#ff7043", "#e91e63", "#ea80fc", "#e65100", "#d84315",
    "#212121", "#ff5722", "#1976d2", "#2962ff", "#bdbdbd", "#3949ab", "#69f0ae", "#d50000",
    "#ffd740", "#c0ca33", "#ff6e40", "#00b0ff", "#2979ff", "#e64a19", "#7c4dff", "#607d8b",
    "#009688", "#ffb300", "#c51162", "#ffc400", "#29b6f6", "#3d5afe", "#76ff03", "#cddc39",
    "#b388ff", "#5c6bc0", "#9e9d24", "#7cb342", "#ef5350", "#fdd835", "#ef6c00", "#4fc3f7",
    "#6200ea", "#004d40", "#ff8a65", "#ffab00", "#80deea", "#0097a7", "#7e57c2", "#ff6d00",
    "#1565c0", "#455a64", "#ffc107", "#4527a0", "#ff5722", "#f44336", "#f57c00", "#827717",
    "#a5d6a7", "#82b1ff", "#9c27b0", "#ff80ab", "#e1bee7", "#78909c", "#311b92", "#00695c",
    "#4e342e", "#3f51b5", "#651fff", "#9e9e9e", "#81d4fa", "#f8bbd0", "#b71c1c", "#0091ea",
    "#673ab7", "#a1887f", "#4db6ac", "#ffa000", "#6a1b9a", "#43a047", "#bcaaa4", "#546e7a",
    "#aeea00", "#e57373", "#ffccbc", "#006064", "#fbc02d", "#ffeb3b", "#8bc34a", "#039be5",
    "#8e24aa", "#80d8ff", "#009688", "#9ccc65", "#512da8", "#ffc107", "#757575", "#0277bd",
    "#ff3d00", "#33691e", "#03a9f4", "#00838f", "#ff8a80", "#283593", "#f50057", "#1a237e",
    "#90caf9", "#9c27b0", "#aa00ff", "#aed581", "#afb42b", "#9575cd", "#d32f2f", "#64dd17",
    "#f44336", "#795548", "#cddc39", "#ff9e80", "#7986cb", "#dd2c00", "#0288d1", "#ff9800",
    "#263238", "#00796b", "#42a5f5", "#8c9eff", "#1b5e20", "#ffab40", "#536dfe", "#00bcd4",
    "#f06292"};

/* ConvertAllocationTimeline: the blocks, with XProf's node numbering (a rectangle smaller
 * than one point of the 4096x4096 graph is skipped and takes no node id). */
int memviewer_layout_blocks(mv_result *r, arena *a, const mv_alloc_list *al,
                            const int64_t *alloc_trace, const int32_t *color_of_lb)
{
    const hlo_module *m = r->module;
    uint64_t total_y = 0, total_x = 0;
    uint32_t nblocks = 0;
    for (uint32_t i = 0; i < al->n; i++) {
        const hlo_allocation *x = al->items[i];
        if (x->color != r->memory_color || memviewer_indefinite(x) || alloc_trace[i] < 0)
            continue;
        total_y += (uint64_t)x->size;
        if ((uint64_t)alloc_trace[i] < m->ntraces && m->traces[alloc_trace[i]].nevents > total_x)
            total_x = m->traces[alloc_trace[i]].nevents;
        nblocks += 1 + x->nassigned;
    }
    if (!total_y || !total_x)
        return 1;
    r->blocks = arena_alloc(a, nblocks * sizeof *r->blocks);
    if (!r->blocks)
        return 0;
    double sx = 4096.0 / (double)total_x, sy = 4096.0 / (double)total_y;
    int node_id = 0;
    uint64_t y_off = 0;
    for (uint32_t i = 0; i < al->n; i++) {
        const hlo_allocation *x = al->items[i];
        if (x->color != r->memory_color || memviewer_indefinite(x) || alloc_trace[i] < 0)
            continue;
        uint64_t off = y_off;
        y_off += (uint64_t)x->size;
        r->blocks[r->nblocks++] =
            (mv_block){NULL, x, (int64_t)off, x->size, 0, (int64_t)total_x, "#ffffff"};
        if (!((double)total_x * sx < 1.0 || (double)(uint64_t)x->size * sy < 1.0))
            node_id++;
        for (uint32_t q = 0; q < x->nassigned; q++) {
            const mv_lb *b = memviewer_lb(r, x->assigned[q].logical_buffer_id);
            if (!b || !b->has_span) /* sharers that reused freed memory have spans too */
                continue;
            uint64_t width = (uint64_t)b->span_end - (uint64_t)b->span_start;
            uint64_t y = off + (uint64_t)b->offset;
            uint64_t h = (uint64_t)b->proto->size;
            int32_t pc = color_of_lb ? color_of_lb[b - r->lbs_by_id[0]] : -1;
            const char *color = pc >= 0 ? PALETTE[pc % 209] : PALETTE[node_id % 209];
            r->blocks[r->nblocks++] =
                (mv_block){b, x, (int64_t)y, b->proto->size, b->span_start, b->span_end, color};
            if (!((double)width * sx < 1.0 || (double)h * sy < 1.0))
                node_id++;
        }
    }
    return 1;
}
