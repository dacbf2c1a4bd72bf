/* ttlog_block.c - memory blocks: a "Device memory state before operation|before submit|after
 * submit" header followed by four MemoryView lines (DRAM, L1, L1_SMALL, TRACE, any order).
 * Parses MemoryView{...} values exactly (no strtod), completes a block into an op (per-op
 * logs) or a submit record, and counts a block that breaks off or does not parse as
 * malformed, with a warning at its byte offset; gives the device those blocks describe to the
 * event interface (ttlog_give_device). Not here: which lines are runtime lines
 * (ttlog_lines.c), op text (ttlog_optext.c). */
#define _GNU_SOURCE /* memmem */
#include "ttlog_parse.h"
#include "core/alloc.h"

#include <stdint.h>

/* Parses a decimal "123.456" exactly as strtod would for up to 18 significant digits. */
static int parse_num(const char **pp, const char *end, double *out)
{
    const char *p = *pp;
    int neg = 0;
    if (p < end && *p == '-')
        neg = 1, p++;
    uint64_t mant = 0;
    int digits = 0, frac = 0;
    while (p < end && is_digit(*p) && digits < 18)
        mant = mant * 10 + (uint64_t)(*p++ - '0'), digits++;
    if (p < end && *p == '.') {
        p++;
        while (p < end && is_digit(*p) && digits < 18)
            mant = mant * 10 + (uint64_t)(*p++ - '0'), digits++, frac++;
    }
    if (digits == 0 || (p < end && is_digit(*p)))
        return 0;
    static const double P10[] = {1,    1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8, 1e9,
                                 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
    /* mant < 2^63 is exact when it has at most 15 digits; both operands exact means the
     * division is the correctly rounded value, which is what strtod returns. */
    double v = (double)mant / P10[frac];
    *out = neg ? -v : v;
    *pp = p;
    return 1;
}

/* ------------------------------------------------------------------------------------------
 * MemoryView{numBanks: 12, totalBytesPerBank: 1024.000 MB, ...} */

static int parse_memview(pq_str s, tt_memview *mv)
{
    const char *p = find(s, "MemoryView{");
    if (!p)
        return 0;
    p += 11;
    const char *end = s.p + s.n;
    unsigned seen = 0;
    memset(mv, 0, sizeof *mv);
    while (p < end && *p != '}') {
        while (p < end && (*p == ' ' || *p == ','))
            p++;
        const char *k = p;
        while (p < end && is_word(*p))
            p++;
        pq_str key = sv(k, (size_t)(p - k));
        if (p >= end || *p != ':' || key.n == 0)
            return 0;
        p++;
        while (p < end && *p == ' ')
            p++;
        double v;
        if (!parse_num(&p, end, &v))
            return 0;
        if (end - p >= 3 && memcmp(p, " MB", 3) == 0)
            p += 3;
        if (key.n == 8 && memcmp(key.p, "numBanks", 8) == 0)
            mv->num_banks = (int64_t)v, seen |= 1;
        else if (key.n == 17 && memcmp(key.p, "totalBytesPerBank", 17) == 0)
            mv->total_mb = v, seen |= 2;
        else if (key.n == 26 && memcmp(key.p, "totalBytesAllocatedPerBank", 26) == 0)
            mv->alloc_mb = v, seen |= 4;
        else if (key.n == 21 && memcmp(key.p, "totalBytesFreePerBank", 21) == 0)
            mv->free_mb = v, seen |= 8;
        else if (key.n == 33 && memcmp(key.p, "largestContiguousBytesFreePerBank", 33) == 0)
            mv->largest_free_mb = v, seen |= 16;
        if (p < end && *p != ',' && *p != '}')
            return 0;
    }
    return p < end && seen == 31;
}

void ttlog_warn(parser *ps, int64_t off, const char *what)
{
    if (ps->warnings.n >= TT_MAX_WARNINGS)
        return;
    tt_warning *w = tt_warning_vec_add(&ps->warnings, TT_MAX_ELEMS);
    if (!w) {
        ps->nomem = 1;
        return;
    }
    w->offset = off;
    w->what = what;
}

void ttlog_malformed(parser *ps, int64_t off, const char *what)
{
    ps->log->malformed_blocks++;
    if (ps->first_malformed < 0)
        ps->first_malformed = off;
    ttlog_warn(ps, off, what);
}

void ttlog_block_abort(parser *ps)
{
    if (ps->block == BLOCK_NONE)
        return;
    ttlog_malformed(ps, ps->block_off,
                    "expected four MemoryView lines (DRAM, L1, L1_SMALL, TRACE) after the memory "
                    "state header");
    ps->block = BLOCK_NONE;
}

void ttlog_block_eof(parser *ps)
{
    if (ps->block == BLOCK_NONE)
        return;
    ps->log->malformed_blocks++;
    if (ps->first_malformed < 0)
        ps->first_malformed = ps->block_off;
    ttlog_truncated(ps, ps->block_off,
                    "expected four MemoryView lines after this memory state header: the log "
                    "ends inside the block (truncated?)");
    ps->block = BLOCK_NONE;
}

static void block_done(parser *ps)
{
    tt_log *log = ps->log;
    if (ps->block == BLOCK_OP) {
        log->op_blocks++;
        int excluded = ttlog_op_type_excluded(ps->block_type);
        if (!excluded && ps->has_pending && ttlog_op_text_excluded(&ps->pending))
            excluded = 1;
        if (excluded) {
            log->excluded_ops++;
            if (ps->has_pending && ttlog_op_text_excluded(&ps->pending))
                ps->has_pending = 0;
        } else {
            tt_op *op = tt_op_vec_add(&ps->blk_ops, TT_MAX_ELEMS);
            if (!op) {
                ps->nomem = 1;
                return;
            }
            if (ps->has_pending) {
                *op = ps->pending;
                ps->has_pending = 0;
            } else {
                op->offset = ps->block_off;
                op->submit = -1;
                ttlog_const_eval_of(ps, op);
            }
            op->op_type = ps->block_type;
            memcpy(op->mem, ps->block_mem, sizeof op->mem);
            op->mem_source = TT_MEM_OPERATION;
        }
    } else {
        int after = ps->block == BLOCK_AFTER_SUBMIT;
        tt_submit *s = tt_submit_vec_add(&ps->submits, TT_MAX_ELEMS);
        if (!s) {
            ps->nomem = 1;
            return;
        }
        if (!after && ps->has_submit)
            ps->submit_number++;
        if (after && ps->has_submit && ps->submit_after)
            ps->submit_number++; /* two "after" in a row: the "before" was not logged */
        s->after = after;
        s->offset = ps->block_off;
        s->number = ps->submit_number;
        s->ops_before = ps->exec_ops.n;
        memcpy(s->mem, ps->block_mem, sizeof s->mem);
        memcpy(ps->submit_mem, ps->block_mem, sizeof ps->submit_mem);
        ps->has_submit = 1;
        ps->submit_after = after;
    }
    ps->block = BLOCK_NONE;
}

static int mem_slot(pq_str msg)
{
    /* "Device DRAM memory state: MemoryView{...}" */
    pq_str r = sv(msg.p + 7, msg.n - 7);
    if (starts(r, "DRAM memory state:"))
        return TT_DRAM;
    if (starts(r, "L1 memory state:"))
        return TT_L1;
    if (starts(r, "L1_SMALL memory state:") || starts(r, "L1 SMALL memory state:"))
        return TT_L1_SMALL;
    if (starts(r, "TRACE memory state:"))
        return TT_TRACE;
    return -1;
}

void ttlog_on_device(parser *ps, pq_str msg, int64_t off)
{
    if (starts(msg, "Device memory state before operation")) {
        ttlog_block_abort(ps);
        pq_str type = trim(sv(msg.p + 36, msg.n - 36));
        size_t k = 0;
        while (k < type.n && is_word(type.p[k]))
            k++;
        ps->block = BLOCK_OP;
        ps->block_type = sv(type.p, k);
    } else if (starts(msg, "Device memory state before submit")) {
        ttlog_block_abort(ps);
        ps->block = BLOCK_BEFORE_SUBMIT;
    } else if (starts(msg, "Device memory state after submit")) {
        ttlog_block_abort(ps);
        ps->block = BLOCK_AFTER_SUBMIT;
    } else {
        int slot = mem_slot(msg);
        if (slot < 0)
            return;
        if (ps->block == BLOCK_NONE) {
            ttlog_malformed(ps, off,
                            "expected a \"Device memory state\" header before this "
                            "MemoryView line");
            return;
        }
        tt_memview mv;
        if (ps->partial && !(ps->block_seen & (1u << slot)) && !parse_memview(msg, &mv)) {
            ttlog_block_eof(ps); /* a MemoryView line cut short by the end of the log */
            return;
        }
        if ((ps->block_seen & (1u << slot)) || !parse_memview(msg, &mv)) {
            ps->block = BLOCK_NONE;
            ttlog_malformed(ps, off,
                            (ps->block_seen & (1u << slot))
                                ? "expected one MemoryView line per memory type in a block"
                                : "expected MemoryView{numBanks: N, totalBytesPerBank: X MB, "
                                  "totalBytesAllocatedPerBank: X MB, totalBytesFreePerBank: X MB, "
                                  "largestContiguousBytesFreePerBank: X MB}");
            return;
        }
        ps->block_mem[slot] = mv;
        ps->block_seen |= 1u << slot;
        if (ps->block_seen == 15)
            block_done(ps);
        return;
    }
    ps->block_off = off;
    ps->block_seen = 0;
    ps->block_lines = 0;
    memset(ps->block_mem, 0, sizeof ps->block_mem);
    return;
}

int ttlog_give_device(const tt_log *log, const pq_events *ev)
{
    /* The first memory block the log holds: an op's, or a submit's when that comes first. */
    const tt_memview *mem = NULL;
    int64_t at = INT64_MAX;
    for (size_t k = 0; k < log->nops && !mem; k++)
        if (log->ops[k].mem_source == TT_MEM_OPERATION)
            mem = log->ops[k].mem, at = log->ops[k].offset;
    if (log->nsubmits && log->submits[0].offset < at)
        mem = log->submits[0].mem;
    if (!mem || !ev->device)
        return 0;
    static const char *const keys[TT_NMEM][2] = {
        {"DRAM.numBanks", "DRAM.totalBytesPerBank_MB"},
        {"L1.numBanks", "L1.totalBytesPerBank_MB"},
        {"L1_SMALL.numBanks", "L1_SMALL.totalBytesPerBank_MB"},
        {"TRACE.numBanks", "TRACE.totalBytesPerBank_MB"}};
    pq_device_cap_in caps[2 * TT_NMEM];
    for (int t = 0; t < TT_NMEM; t++) {
        caps[2 * t] = (pq_device_cap_in){(pq_str){keys[t][0], strlen(keys[t][0])},
                                         {.kind = PQ_DEV_INT, .i = mem[t].num_banks}};
        caps[2 * t + 1] = (pq_device_cap_in){(pq_str){keys[t][1], strlen(keys[t][1])},
                                             {.kind = PQ_DEV_NUM, .d = mem[t].total_mb}};
    }
    pq_device_in in = {0, "Tenstorrent", {"", 0}, caps, 2 * TT_NMEM};
    return ev->device(ev->ctx, &in);
}
