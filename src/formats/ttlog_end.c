/* ttlog_end.c - what the end of a Tenstorrent log says: a log cut short (a crashed run, a
 * copy that stopped, `head -c`) ends inside an op's line, a memory block or a runtime line's
 * header. The reader says so, as it does for a malformed block: one warning at the byte
 * offset where the cut item starts, naming the byte where the log ends (metadata.warnings,
 * pq_ttlog_info.truncated; the CLI prints it on stderr). A cut op line is not read as an op;
 * a cut block is skipped (and counted in malformed_blocks). A log that ends between whole
 * lines is read as it is. Not here: the blocks themselves (ttlog_block.c). */
#define _GNU_SOURCE /* memmem */
#include "ttlog_parse.h"
#include "core/alloc.h"

#include <stdio.h>

void ttlog_truncated(parser *ps, int64_t off, const char *what)
{
    tt_log *log = ps->log;
    if (log->truncated)
        return;
    char tail[64];
    int k = snprintf(tail, sizeof tail, " (the log ends at byte %lld)", (long long)ps->size);
    size_t n = strlen(what);
    char *msg = arena_alloc(&log->arena, n + (size_t)k + 1);
    if (!msg) {
        ps->nomem = 1;
        return;
    }
    memcpy(msg, what, n);
    memcpy(msg + n, tail, (size_t)k + 1);
    log->truncated = msg;
    log->truncated_offset = off;
    /* Past the warning cap too: the one truncation of a log is always listed. */
    tt_warning *w = tt_warning_vec_add(&ps->warnings, TT_MAX_ELEMS);
    if (!w) {
        ps->nomem = 1;
        return;
    }
    w->offset = off;
    w->what = msg;
}

/* 1 when S is a proper prefix of one of the messages the reader acts on. */
static int message_prefix(pq_str s)
{
    static const char *const MESSAGES[] = {
        "Executing operation:",
        "Device memory state before operation",
        "Device memory state before submit",
        "Device memory state after submit",
        "Device DRAM memory state:",
        "Device L1 memory state:",
        "Device L1_SMALL memory state:",
        "Device L1 SMALL memory state:",
        "Device TRACE memory state:",
    };
    for (size_t i = 0; i < sizeof MESSAGES / sizeof MESSAGES[0]; i++)
        if (s.n < strlen(MESSAGES[i]) && memcmp(s.p, MESSAGES[i], s.n) == 0)
            return 1;
    return 0;
}

/* 1 when LINE could be the start of a runtime line's "<type> | <LEVEL> |" header: spaces, a
 * word, spaces, then at most a '|' followed by spaces and capital letters (or only spaces). */
static int header_prefix(pq_str line)
{
    size_t i = 0;
    while (i < line.n && line.p[i] == ' ')
        i++;
    if (i == line.n)
        return 1; /* only the indentation of the header was written */
    size_t w = i;
    while (i < line.n && is_word(line.p[i]))
        i++;
    if (i == w)
        return 0;
    while (i < line.n && line.p[i] == ' ')
        i++;
    if (i == line.n)
        return 1;
    if (line.p[i++] != '|')
        return 0;
    while (i < line.n && line.p[i] == ' ')
        i++;
    while (i < line.n && line.p[i] >= 'A' && line.p[i] <= 'Z')
        i++;
    while (i < line.n && line.p[i] == ' ')
        i++;
    return i == line.n;
}

int ttlog_partial_line(parser *ps, pq_str line, pq_str msg, int64_t off)
{
    /* LINE is never empty in the file (the last line holds at least one byte), but may be
     * after its colour codes were removed: then it is a header cut inside a colour code. */
    if (!msg.p) {
        if (!ps->in_module && header_prefix(line))
            ttlog_truncated(ps, off,
                            "expected a whole runtime line: the log ends inside this line's "
                            "header (truncated?)");
        return 0;
    }
    if (starts(msg, "Executing operation:")) {
        if (ttlog_op_text_complete(trim(sv(msg.p + 20, msg.n - 20))))
            return 0;
        ttlog_block_abort(ps);
        ttlog_truncated(ps, off,
                        "expected the rest of this operation's text: the log ends inside it "
                        "(truncated?); the operation is not read");
        return 1;
    }
    if (message_prefix(msg))
        ttlog_truncated(ps, off,
                        "expected a whole runtime line: the log ends inside this line's "
                        "message (truncated?)");
    return 0;
}

void ttlog_end_checks(parser *ps)
{
    tt_log *log = ps->log;
    if (log->shape != TT_SHAPE_SUBMIT && ps->has_pending)
        ttlog_truncated(ps, ps->pending.offset,
                        "expected the memory block of this operation: the log ends after its "
                        "line (truncated?)");
}
