/* memviewer.c - renders a memory viewer result (pq_memory_viewer_result, computed by
 * analysis/memviewer_select.c and memviewer.c): XProf's PreprocessResult JSON field for
 * field (--format xprof: proto3 JSON, fields at default omitted, int64 as strings, fields in
 * field-number order), profq's own JSON (profq.memory_viewer.v1) and text; and the module
 * list when no module was chosen. Formats only: the module choice, the decode and the
 * viewer are the analysis's (the stack-frame text is built here, once per frame id). */
#include "analysis/memviewer.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "render/text.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double MIB = 1048576.0;

/* A literal of profq's that needs no escaping (a category name, a palette color). */
static void plain_cstr(json_writer *w, const char *s)
{
    json_str_escaped(w, s, strlen(s));
}

/* A key and a literal of profq's that needs no escaping. */
static void key_plain(json_writer *w, const char *k, size_t kn, const char *s)
{
    json_key_str_escaped(w, k, kn, s, strlen(s));
}

static void opt_str(json_writer *w, const char *k, size_t kn, pq_str s)
{
    if (s.n)
        json_key_str(w, k, kn, s.p, s.n);
}

static void opt_double(json_writer *w, const char *k, size_t kn, double v)
{
    if (v != 0.0) {
        json_key_text(w, k, kn);
        json_double(w, v);
    }
}

/* A byte count XProf writes as a double: under 10^15 its %.15g form (json_double's) is the
 * integer's digits, written without the double formatting (a few thousand a module). */
static void opt_bytes(json_writer *w, const char *k, size_t kn, int64_t v)
{
    if (v > -1000000000000000 && v < 1000000000000000) {
        if (v)
            json_key_int(w, k, kn, v);
        return;
    }
    opt_double(w, k, kn, (double)v);
}

/* The heap-size series in MiB: a value seen recently (a step that allocates nothing in
 * this memory space, a heap size returning to an earlier level, unpadded equal to padded)
 * reuses its text from a small cache by the value's bits (direct-mapped, 128 slots: 3,786
 * -> ~3,090 values formatted on the H100 viewer's 4,522, about what a cache of any size
 * would keep). */
enum { MIB_MEMO_SLOTS = 128, MIB_MEMO_TEXT = 32 };
typedef struct mib_memo {
    uint64_t bits[MIB_MEMO_SLOTS];
    uint8_t len[MIB_MEMO_SLOTS]; /* 0: empty */
    char text[MIB_MEMO_SLOTS][MIB_MEMO_TEXT];
} mib_memo;

static void memo_double(json_writer *w, mib_memo *mm, double v)
{
    if (!isfinite(v)) {
        json_double(w, v);
        return;
    }
    uint64_t bits; /* bits: -0 is not 0 */
    memcpy(&bits, &v, sizeof bits);
    unsigned h = (unsigned)((bits * 0x9e3779b97f4a7c15ull) >> 57);
    if (!mm->len[h] || mm->bits[h] != bits) {
        mm->len[h] = (uint8_t)json_format_double(mm->text[h], MIB_MEMO_TEXT, v);
        mm->bits[h] = bits;
    }
    json_raw(w, mm->text[h], mm->len[h]);
}

static void opt_int(json_writer *w, const char *k, size_t kn, int64_t v)
{
    if (v)
        json_key_int(w, k, kn, v);
}

/* An int64 as a JSON string (proto3 JSON): digits, nothing to escape. */
static void i64str(json_writer *w, buf *t, int64_t v)
{
    t->n = 0;
    json_put_i64(t, v);
    json_str_escaped(w, t->p ? t->p : "", t->n);
    t->n = 0;
}

static void key_i64str(json_writer *w, buf *t, const char *k, size_t kn, int64_t v)
{
    t->n = 0;
    json_put_i64(t, v);
    json_key_str_escaped(w, k, kn, t->p ? t->p : "", t->n);
    t->n = 0;
}

/* "name{0,1}" when the shape index is non-empty. */
static void name_with_index(buf *b, const mv_lb *lb)
{
    json_put(b, lb->instr->name.p, lb->instr->name.n);
    if (lb->proto->nshape_index) {
        buf_putc(b, '{');
        for (uint32_t i = 0; i < lb->proto->nshape_index; i++) {
            if (i)
                buf_putc(b, ',');
            json_put_i64(b, lb->proto->shape_index[i]);
        }
        buf_putc(b, '}');
    }
}

static void put_tmp(json_writer *w, const char *k, size_t kn, buf *t)
{
    json_key_str(w, k, kn, t->p ? t->p : "", t->n);
    t->n = 0;
}

/* The stack text of each stack frame id ("file:line:column" lines, innermost first), built
 * once per id and kept JSON-escaped (the same frames repeat over thousands of blocks, and
 * their text is most of the output), with its first line raw (source_info reads the file
 * and line from it). Each frame's own line is escaped once (LINES, by frame), and a
 * stack's text is its frames' escaped lines joined by an escaped newline: the escape is
 * byte by byte (a UTF-8 sequence never spans a newline), so this is the escape of the
 * whole text. */
typedef struct src_cache {
    const hlo_module *m;
    /* by frame id - 1; esc_len 0: not yet; line_len 0: its line not yet escaped; info_len
     * 0: not yet, else 1 + the length of the compact "sourceInfo" member (may be empty) */
    uint32_t *raw_off, *raw_len, *esc_off, *esc_len, *line_off, *line_len, *info_off, *info_len;
    struct src_key {
        pq_str file;
        int32_t line;
        int stack; /* the head ends with the stack text's quote: the text, '"' and '}' follow */
    } * info_key;  /* the source file and line the member has */
    buf raw, esc, lines, chain, info;
} src_cache;

static void src_cache_init(src_cache *c, const hlo_module *m, arena *a)
{
    memset(c, 0, sizeof *c);
    c->m = m;
    buf_init(&c->raw, NULL);
    buf_init(&c->esc, NULL);
    buf_init(&c->lines, NULL);
    buf_init(&c->chain, NULL);
    buf_init(&c->info, NULL);
    size_t n = m->nstack_frames ? m->nstack_frames : 1;
    uint32_t *v = arena_alloc(a, 8 * n * sizeof *v);
    c->info_key = arena_alloc(a, n * sizeof *c->info_key);
    if (!v || !c->info_key) {
        c->raw.status = PQ_ERR_NOMEM;
        return;
    }
    memset(v, 0, 8 * n * sizeof *v);
    c->raw_off = v, c->raw_len = v + n, c->esc_off = v + 2 * n, c->esc_len = v + 3 * n;
    c->line_off = v + 4 * n, c->line_len = v + 5 * n, c->info_off = v + 6 * n;
    c->info_len = v + 7 * n;
}

static void src_cache_release(src_cache *c)
{
    buf_release(&c->raw);
    buf_release(&c->esc);
    buf_release(&c->lines);
    buf_release(&c->chain);
    buf_release(&c->info);
}

/* The raw line of frame F ("file:line:column") into CH, emptied first. */
static void frame_line(buf *ch, const hlo_module *m, const hlo_stack_frame *f)
{
    pq_str file = {"", 0};
    int32_t line = -1, col = -1;
    int32_t fl = f->file_location_id;
    if (fl > 0 && (uint32_t)fl <= m->nfile_locations) {
        const hlo_file_location *loc = &m->file_locations[fl - 1];
        line = loc->line;
        col = loc->column;
        if (loc->file_name_id > 0 && (uint32_t)loc->file_name_id <= m->nfile_names)
            file = m->file_names[loc->file_name_id - 1];
    }
    ch->n = 0;
    buf_put(ch, file.p, file.n);
    buf_putc(ch, ':');
    json_put_i64(ch, line);
    buf_putc(ch, ':');
    json_put_i64(ch, col);
}

/* The stack text of frame ID (1-based, in range) into the cache; returns its index. */
static uint32_t src_cache_frame(src_cache *c, int32_t id)
{
    uint32_t i = (uint32_t)id - 1;
    if (c->esc_len[i] || c->raw.status != PQ_OK || c->esc.status != PQ_OK)
        return i;
    const hlo_module *m = c->m;
    buf *ch = &c->chain;
    size_t start = c->esc.n;
    int guard = 0;
    while (id > 0 && (uint32_t)id <= m->nstack_frames && guard++ < 100000) {
        uint32_t j = (uint32_t)id - 1;
        const hlo_stack_frame *f = &m->stack_frames[j];
        id = f->parent_frame_id;
        if (guard == 1) { /* the first line, raw */
            frame_line(ch, m, f);
            c->raw_off[i] = (uint32_t)c->raw.n;
            c->raw_len[i] = (uint32_t)ch->n;
            buf_put(&c->raw, ch->p, ch->n);
        }
        if (!c->line_len[j]) {
            frame_line(ch, m, f);
            c->line_off[j] = (uint32_t)c->lines.n;
            json_escape_into(&c->lines, ch->p, ch->n);
            c->line_len[j] = (uint32_t)(c->lines.n - c->line_off[j]);
        }
        if (c->lines.status != PQ_OK || ch->status != PQ_OK)
            break;
        if (c->esc.n > start)
            json_put(&c->esc, "\\n", 2);
        json_put(&c->esc, c->lines.p + c->line_off[j], c->line_len[j]);
    }
    if (ch->status != PQ_OK || c->lines.status != PQ_OK) {
        c->raw.status = ch->status != PQ_OK ? ch->status : c->lines.status;
        return i;
    }
    c->esc_off[i] = (uint32_t)start;
    c->esc_len[i] = (uint32_t)(c->esc.n - start);
    return i;
}

/* GetSourceInfo (XP hlo_module_utils.cc): metadata source_file first, else the first line
 * of the stack built from stack_frame_id ("file:line:column", innermost first). */
static int source_info_text(json_writer *w, src_cache *sc, const hlo_instruction *ins, int head)
{
    const hlo_module *m = sc->m;
    const char *raw = "", *esc = "";
    size_t nraw = 0, nesc = 0;
    int32_t id = ins->stack_frame_id;
    if (id > 0 && (uint32_t)id <= m->nstack_frames) {
        uint32_t i = src_cache_frame(sc, id);
        if (sc->raw.status != PQ_OK || sc->esc.status != PQ_OK) {
            w->b->status = sc->raw.status != PQ_OK ? sc->raw.status : sc->esc.status;
            return 0;
        }
        raw = sc->raw.p + sc->raw_off[i], nraw = sc->raw_len[i];
        esc = sc->esc.p + sc->esc_off[i], nesc = sc->esc_len[i];
    }
    pq_str fname = ins->source_file;
    int32_t line = ins->source_line;
    if (!fname.n && nraw) {
        const char *s = raw, *nl = memchr(s, '\n', nraw);
        size_t first = nl ? (size_t)(nl - s) : nraw;
        const char *c1 = memchr(s, ':', first);
        if (c1) {
            fname = (pq_str){s, (size_t)(c1 - s)};
            const char *c2 = memchr(c1 + 1, ':', first - (size_t)(c1 + 1 - s));
            size_t ln = c2 ? (size_t)(c2 - c1 - 1) : first - (size_t)(c1 + 1 - s);
            char num[16];
            line = 0;
            if (ln && ln < sizeof num) {
                memcpy(num, c1 + 1, ln);
                num[ln] = 0;
                char *end;
                long v = strtol(num, &end, 10);
                if (!*end && v >= INT32_MIN && v <= INT32_MAX)
                    line = (int32_t)v;
            }
        }
    }
    if (!fname.n)
        return 0;
    json_key_text(w, JSON_KEY("sourceInfo"));
    json_obj_begin(w);
    opt_str(w, JSON_KEY("fileName"), fname);
    opt_int(w, JSON_KEY("lineNumber"), line);
    if (nraw && head) { /* up to the stack text's opening quote */
        json_key_text(w, JSON_KEY("stackFrame"));
        buf_putc(w->b, '"');
        return 1;
    }
    if (nraw)
        json_key_str_escaped(w, JSON_KEY("stackFrame"), esc, nesc);
    json_obj_end(w);
    return 0;
}

/* source_info_text; in compact output the member's text (it depends on the stack frame id,
 * the source file and the source line only) up to its stack text is built once per frame
 * id and copied, then the frame's escaped stack text, while the next instructions with that
 * frame have its file and line (the H100 module: 57 distinct members in 1,051; the stack
 * texts, 1.5 KiB each, are not copied into the cache: its pages cost more than the rest). */
static void source_info(json_writer *w, src_cache *sc, const hlo_instruction *ins)
{
    int32_t id = ins->stack_frame_id;
    if (w->pretty || id <= 0 || (uint32_t)id > sc->m->nstack_frames) {
        source_info_text(w, sc, ins, 0);
        return;
    }
    uint32_t i = (uint32_t)id - 1;
    const struct src_key *o = sc->info_len[i] ? &sc->info_key[i] : NULL;
    if (o && (o->line != ins->source_line || o->file.n != ins->source_file.n ||
              (o->file.n && memcmp(o->file.p, ins->source_file.p, o->file.n) != 0))) {
        source_info_text(w, sc, ins, 0);
        return;
    }
    if (!o) {
        json_writer iw; /* inside an object of its own, so the member has no comma */
        json_init(&iw, &sc->info, 0);
        json_obj_begin(&iw);
        size_t start = sc->info.n;
        int stack = source_info_text(&iw, sc, ins, 1);
        if (sc->info.status != PQ_OK) {
            w->b->status = sc->info.status;
            return;
        }
        sc->info_key[i] = (struct src_key){ins->source_file, ins->source_line, stack};
        sc->info_off[i] = (uint32_t)start;
        sc->info_len[i] = (uint32_t)(sc->info.n - start + 1);
    }
    if (sc->info_len[i] > 1)
        json_raw(w, sc->info.p + sc->info_off[i], sc->info_len[i] - 1);
    if (sc->info_key[i].stack) { /* the stack text (built with the head), its quote, '}' */
        json_put(w->b, sc->esc.p + sc->esc_off[i], sc->esc_len[i]);
        json_put(w->b, "\"}", 2);
    }
}

static void heap_object(json_writer *w, const mv_object *o, buf *t, src_cache *sc)
{
    json_obj_begin(w);
    json_key_int(w, JSON_KEY("numbered"), o->color);
    if (!o->lb) {
        json_key_text(w, JSON_KEY("label"));
        plain_cstr(w, "small (<16384 bytes)");
        json_key_int(w, JSON_KEY("logicalBufferId"), -1);
        opt_double(w, JSON_KEY("logicalBufferSizeMib"), (double)o->size_bytes / MIB);
        json_obj_end(w);
        return;
    }
    const mv_lb *lb = o->lb;
    const hlo_instruction *ins = lb->instr;
    t->n = 0;
    json_put(t, ins->name.p, ins->name.n);
    json_put(t, ": ", 2);
    buf_puts(t, lb->shape_string);
    json_put(t, " # ", 3);
    json_put(t, ins->op_name.p, ins->op_name.n);
    put_tmp(w, JSON_KEY("label"), t);
    opt_int(w, JSON_KEY("logicalBufferId"), (int32_t)lb->proto->id);
    opt_double(w, JSON_KEY("logicalBufferSizeMib"), (double)lb->proto->size / MIB);
    opt_double(w, JSON_KEY("unpaddedShapeMib"), (double)lb->unpadded / MIB);
    name_with_index(t, lb);
    if (t->n)
        put_tmp(w, JSON_KEY("instructionName"), t);
    opt_str(w, JSON_KEY("shapeString"), (pq_str){lb->shape_string, strlen(lb->shape_string)});
    opt_str(w, JSON_KEY("tfOpName"), ins->op_name);
    key_plain(w, JSON_KEY("groupName"), memviewer_category(lb->alloc));
    opt_str(w, JSON_KEY("opCode"), ins->opcode);
    source_info(w, sc, ins);
    json_obj_end(w);
}

/* One indefiniteLifetimes entry: allocation X with its logical buffers. */
static void indefinite_lifetime(json_writer *w, const mv_result *r, const hlo_allocation *x, buf *t)
{
    json_obj_begin(w);
    if (x->index)
        key_i64str(w, t, JSON_KEY("id"), x->index);
    opt_double(w, JSON_KEY("sizeMib"), (double)x->size / MIB);
    int reusable = !x->is_thread_local && !x->is_tuple;
    if (x->is_entry_computation_parameter || x->maybe_live_out || reusable) {
        json_key_text(w, JSON_KEY("attributes"));
        json_arr_begin(w);
        if (x->is_entry_computation_parameter)
            plain_cstr(w, "entry computation parameter");
        if (x->maybe_live_out)
            plain_cstr(w, "may-be live out");
        if (reusable)
            plain_cstr(w, "reusable");
        json_arr_end(w);
    }
    const char *common = NULL;
    int same = 1;
    if (x->nassigned) {
        json_key_text(w, JSON_KEY("logicalBuffers"));
        json_arr_begin(w);
        for (uint32_t q = 0; q < x->nassigned; q++) {
            const hlo_assigned *as = &x->assigned[q];
            const mv_lb *lb = memviewer_lb(r, as->logical_buffer_id);
            json_obj_begin(w);
            if (as->logical_buffer_id)
                key_i64str(w, t, JSON_KEY("id"), as->logical_buffer_id);
            const char *shape = lb ? lb->shape_string : "";
            if (lb && *shape) {
                json_key_text(w, JSON_KEY("shape"));
                json_cstr(w, shape);
            }
            opt_double(w, JSON_KEY("sizeMib"), (double)as->size / MIB);
            if (lb) {
                opt_str(w, JSON_KEY("hloName"), lb->instr->name);
                if (lb->proto->nshape_index) {
                    json_key_text(w, JSON_KEY("shapeIndex"));
                    json_arr_begin(w);
                    for (uint32_t k = 0; k < lb->proto->nshape_index; k++)
                        i64str(w, t, lb->proto->shape_index[k]);
                    json_arr_end(w);
                }
            }
            json_obj_end(w);
            if (q == 0)
                common = shape;
            else if (strcmp(common, shape) != 0)
                same = 0;
        }
        json_arr_end(w);
        if (same && common && *common) {
            json_key_text(w, JSON_KEY("commonShape"));
            json_cstr(w, common);
        }
    }
    json_obj_end(w);
}

/* One bufferBlocks entry. */
static void buffer_block(json_writer *w, const mv_block *bl, buf *t, src_cache *sc)
{
    const char *cat = memviewer_category(bl->alloc);
    json_obj_begin(w);
    json_key_int(w, JSON_KEY("logicalBufferId"), bl->lb ? (int32_t)bl->lb->proto->id : -1);
    if (bl->lb && !bl->lb->proto->nshape_index) { /* the name alone: no copy into T */
        opt_str(w, JSON_KEY("name"), bl->lb->instr->name);
    } else {
        if (bl->lb)
            name_with_index(t, bl->lb);
        else
            buf_puts(t, cat);
        if (t->n)
            put_tmp(w, JSON_KEY("name"), t);
    }
    opt_bytes(w, JSON_KEY("offset"), bl->offset);
    opt_bytes(w, JSON_KEY("size"), bl->size);
    opt_int(w, JSON_KEY("startStep"), (int32_t)bl->start_step);
    opt_int(w, JSON_KEY("endStep"), (int32_t)bl->end_step);
    if (bl->lb)
        opt_str(w, JSON_KEY("tfOpName"), bl->lb->instr->op_name);
    key_plain(w, JSON_KEY("category"), cat);
    if (bl->lb) {
        source_info(w, sc, bl->lb->instr);
        if (*bl->lb->shape_string) {
            json_key_str(w, JSON_KEY("shapeString"), bl->lb->shape_string,
                         strlen(bl->lb->shape_string));
        }
        opt_bytes(w, JSON_KEY("unpaddedSize"), bl->lb->unpadded);
    }
    key_plain(w, JSON_KEY("color"), bl->color);
    json_obj_end(w);
}

/* Room in OB for the compact text of every maxHeap object, faulted in at once (its
 * stack frames are built first: their text is most of it). Without it, OB grew by
 * doubling and each new page cost a full page fault (the H100 module: ~150 KiB). */
static void presize_objects(buf *ob, const mv_result *r, src_cache *sc)
{
    size_t need = 4096;
    for (uint32_t i = 0; i < r->nobjects; i++) {
        const mv_lb *lb = r->objects[i].lb;
        need += 256;
        if (!lb)
            continue;
        const hlo_instruction *ins = lb->instr;
        need += 2 * (ins->name.n + strlen(lb->shape_string) + ins->op_name.n) + ins->opcode.n +
                ins->source_file.n;
        int32_t id = ins->stack_frame_id;
        if (id > 0 && (uint32_t)id <= sc->m->nstack_frames) {
            uint32_t k = src_cache_frame(sc, id);
            need += sc->esc_len[k] + sc->raw_len[k];
        }
    }
    ob->p = pq_malloc(need);
    if (ob->p) {
        ob->cap = need;
        pq_populate(ob->p, need);
    }
}

static void render_xprof(json_writer *w, const mv_result *r, buf *t, src_cache *sc)
{
    const hlo_module *m = r->module;
    double add = (double)r->indefinite_bytes / MIB;
    json_obj_begin(w);
    if (r->ntimeline) {
        json_key_text(w, JSON_KEY("heapSizes"));
        mib_memo mm;
        memset(mm.len, 0, sizeof mm.len);
        json_arr_begin(w);
        for (uint32_t i = 0; i < r->ntimeline; i++)
            memo_double(w, &mm, (double)r->heap_bytes[i] / MIB + add);
        json_arr_end(w);
        json_key_text(w, JSON_KEY("unpaddedHeapSizes"));
        json_arr_begin(w);
        for (uint32_t i = 0; i < r->ntimeline; i++)
            memo_double(w, &mm, (double)r->unpadded_bytes[i] / MIB + add);
        json_arr_end(w);
    }
    if (r->nobjects) {
        /* maxHeapBySize holds the objects of maxHeap in another order: in compact output
         * each is written once into OB (ending at ENDS[i]) and its text copied. */
        buf ob;
        buf_init(&ob, NULL);
        uint32_t *ends = w->pretty ? NULL : pq_malloc_array(r->nobjects, sizeof *ends);
        if (ends)
            presize_objects(&ob, r, sc);
        json_key_text(w, JSON_KEY("maxHeap"));
        json_arr_begin(w);
        for (uint32_t i = 0; i < r->nobjects; i++) {
            if (!ends) {
                heap_object(w, &r->objects[i], t, sc);
                continue;
            }
            size_t start = ob.n;
            json_writer ow;
            json_init(&ow, &ob, 0);
            heap_object(&ow, &r->objects[i], t, sc);
            ends[i] = (uint32_t)ob.n;
            json_raw(w, ob.p + start, ob.n - start);
        }
        json_arr_end(w);
        json_key_text(w, JSON_KEY("maxHeapBySize"));
        json_arr_begin(w);
        for (uint32_t i = 0; i < r->nobjects; i++) {
            uint32_t k = r->by_size[i];
            if (ends && ob.status == PQ_OK)
                json_raw(w, ob.p + (k ? ends[k - 1] : 0), ends[k] - (k ? ends[k - 1] : 0));
            else
                heap_object(w, &r->objects[k], t, sc);
        }
        json_arr_end(w);
        if (ob.status != PQ_OK && w->b->status == PQ_OK)
            w->b->status = ob.status;
        pq_free(ends);
        buf_release(&ob);
    }
    if (r->nspans) {
        json_key_text(w, JSON_KEY("logicalBufferSpans"));
        json_obj_begin(w);
        for (uint32_t i = 0; i < r->nspans; i++) {
            t->n = 0;
            json_put_i64(t, r->spans[i]->proto->id);
            buf_putc(t, 0);
            json_key(w, t->status == PQ_OK ? t->p : "");
            t->n = 0;
            json_obj_begin(w);
            opt_int(w, JSON_KEY("start"), (int32_t)r->spans[i]->span_start);
            opt_int(w, JSON_KEY("limit"), (int32_t)r->spans[i]->span_end);
            json_obj_end(w);
        }
        json_obj_end(w);
    }
    if (r->nobjects) {
        json_key_text(w, JSON_KEY("maxHeapToBySize"));
        json_arr_begin(w);
        for (uint32_t i = 0; i < r->nobjects; i++)
            json_int(w, r->to_by_size[i]);
        json_arr_end(w);
        json_key_text(w, JSON_KEY("bySizeToMaxHeap"));
        json_arr_begin(w);
        for (uint32_t i = 0; i < r->nobjects; i++)
            json_int(w, r->by_size[i]);
        json_arr_end(w);
    }
    opt_str(w, JSON_KEY("moduleName"), m->name);
    opt_str(w, JSON_KEY("entryComputationName"), m->entry_computation_name);
    opt_double(w, JSON_KEY("peakHeapMib"), (double)r->peak_bytes / MIB + add);
    opt_double(w, JSON_KEY("peakUnpaddedHeapMib"), (double)r->peak_unpadded_bytes / MIB + add);
    opt_int(w, JSON_KEY("peakHeapSizePosition"), (int32_t)r->peak_position);
    opt_double(w, JSON_KEY("entryComputationParametersMib"), (double)r->entry_params_bytes / MIB);
    opt_double(w, JSON_KEY("nonReusableMib"), (double)r->non_reusable_bytes / MIB);
    opt_double(w, JSON_KEY("maybeLiveOutMib"), (double)r->maybe_live_out_bytes / MIB);
    if (r->nindefinite) {
        json_key_text(w, JSON_KEY("indefiniteLifetimes"));
        json_arr_begin(w);
        for (uint32_t i = 0; i < r->nindefinite; i++)
            indefinite_lifetime(w, r, r->indefinite[i], t);
        json_arr_end(w);
    }
    opt_double(w, JSON_KEY("totalBufferAllocationMib"), (double)r->total_bytes / MIB);
    opt_double(w, JSON_KEY("indefiniteBufferAllocationMib"),
               (double)r->indefinite_alloc_bytes / MIB);
    if (r->ntimeline) {
        json_key_text(w, JSON_KEY("hloInstructionNames"));
        json_arr_begin(w);
        for (uint32_t i = 0; i < r->ntimeline; i++)
            json_str(w, r->instruction_names[i].p ? r->instruction_names[i].p : "",
                     r->instruction_names[i].n);
        json_arr_end(w);
    }
    if (r->max_scoped_bytes > 0) {
        opt_double(w, JSON_KEY("maxScopedVmemAllocationMib"), (double)r->max_scoped_bytes / MIB);
        opt_str(w, JSON_KEY("maxScopedVmemInstructionName"), r->max_scoped_instruction);
    }
    if (r->nblocks) {
        json_key_text(w, JSON_KEY("bufferBlocks"));
        json_arr_begin(w);
        for (uint32_t i = 0; i < r->nblocks; i++)
            buffer_block(w, &r->blocks[i], t, sc);
        json_arr_end(w);
    }
    json_obj_end(w);
}

static void render_list(const pq_memory_viewer_result *r, pq_output fmt, buf *b)
{
    json_writer w;
    if (fmt == PQ_OUT_JSON) {
        json_init(&w, b, 1);
        json_obj_begin(&w);
        json_key(&w, "schema");
        json_cstr(&w, "profq.memory_viewer.modules.v1");
        json_key(&w, "modules");
        json_arr_begin(&w);
    } else {
        buf_puts(b, "module\tprogram_id\tmemory_spaces\tsource\n");
    }
    for (uint32_t i = 0; i < r->nmodules; i++) {
        const pq_memory_module *q = &r->modules[i];
        char id[32];
        snprintf(id, sizeof id, "%" PRIu64, q->program_id);
        if (fmt == PQ_OUT_JSON) {
            json_obj_begin(&w);
            json_key(&w, "module");
            json_cstr(&w, q->key);
            json_key(&w, "name");
            json_str(&w, q->name.p, q->name.n);
            json_key(&w, "program_id");
            json_cstr(&w, id);
            json_key(&w, "memory_spaces");
            json_arr_begin(&w);
            for (uint32_t c = 0; c < q->nmemory_spaces; c++)
                json_int(&w, q->memory_spaces[c]);
            json_arr_end(&w);
            json_key(&w, "source");
            json_cstr(&w, q->source);
            json_obj_end(&w);
        } else {
            buf_puts(b, q->key);
            buf_printf(b, "\t%s\t", id);
            for (uint32_t c = 0; c < q->nmemory_spaces; c++)
                buf_printf(b, "%s%" PRId64, c ? "," : "", q->memory_spaces[c]);
            buf_printf(b, "\t%s\n", q->source);
        }
    }
    if (fmt == PQ_OUT_JSON) {
        json_arr_end(&w);
        json_obj_end(&w);
        buf_putc(b, '\n');
    }
}

/* "  WHAT  size" (BYTES + ADD, with its unit), then END. */
static void text_size(buf *b, const char *what, int64_t bytes, double add, const char *end)
{
    char t[32];
    buf_printf(b, "  %-20s %s%s", what, text_bytes(t, (double)bytes + add), end);
}

/* The largest buffers: size, category, then name, shape and op within 120 columns (each
 * shortened in the middle unless WIDE). */
static void text_buffer(buf *b, const mv_object *o, int wide)
{
    char t[32];
    const char *sz = text_bytes(t, (double)o->size_bytes);
    buf_printf(b, "    %*s  ", 12 + (int)(strlen(sz) - text_cols(sz, strlen(sz))), sz);
    if (!o->lb) {
        buf_puts(b, "small (<16384 bytes)\n");
        return;
    }
    buf_printf(b, "%-11s ", memviewer_category(o->lb->alloc));
    pq_str nm = o->lb->instr->name, op = o->lb->instr->op_name;
    const char *sh = o->lb->shape_string;
    size_t room = TEXT_COLS - 30; /* after the size and category */
    size_t nc = text_cols(nm.p, nm.n), sc = text_cols(sh, strlen(sh));
    size_t nw = wide || nc <= 40 ? 0 : 40, used = (nw ? nw : nc) + 1;
    size_t sw =
        wide || used + sc + 1 <= room - 16 ? 0 : (room - 16 > used + 8 ? room - 16 - used : 8);
    used += (sw ? sw : sc) + 1;
    text_fit(b, nm.p, nm.n, nw, 0);
    buf_putc(b, ' ');
    text_fit(b, sh, strlen(sh), sw, 0);
    if (op.n)
        buf_putc(b, ' ');
    text_fit(b, op.p, op.n, wide ? 0 : room > used + 3 ? room - used : 3, 0);
    buf_putc(b, '\n');
}

static void render_text(buf *b, const mv_result *r, int wide)
{
    const hlo_module *m = r->module;
    double add = (double)r->indefinite_bytes;
    text_fit(b, m->name.p, m->name.n, wide ? 0 : 80, 0);
    buf_printf(b, " memory space %" PRId64 "\n", r->memory_color);
    text_size(b, "peak heap", r->peak_bytes, add, "");
    buf_printf(b, " (position %" PRId64 ")\n", r->peak_position);
    text_size(b, "peak unpadded", r->peak_unpadded_bytes, add, "\n");
    text_size(b, "entry parameters", r->entry_params_bytes, 0, "\n");
    text_size(b, "maybe live out", r->maybe_live_out_bytes, 0, "\n");
    text_size(b, "total allocations", r->total_bytes, 0, "\n");
    text_size(b, "indefinite", r->indefinite_alloc_bytes, 0, "\n");
    buf_puts(b, "  largest buffers at peak:\n");
    for (uint32_t i = 0; i < r->nobjects && i < 20; i++)
        text_buffer(b, &r->objects[r->by_size[i]], wide);
}

pq_status pq_memory_viewer_render(const pq_memory_viewer_result *res, pq_output fmt, pq_sink *sink,
                                  pq_error *err)
{
    return pq_memory_viewer_render_ex(res, NULL, fmt, sink, err);
}

pq_status pq_memory_viewer_render_ex(const pq_memory_viewer_result *res,
                                     const pq_memviewer_options *opts, pq_output fmt, pq_sink *sink,
                                     pq_error *err)
{
    buf b;
    buf_init(&b, sink);
    pq_status st = PQ_OK;
    arena a;
    arena_init(&a);
    if (res->is_list) {
        render_list(res, fmt == PQ_OUT_XPROF ? PQ_OUT_JSON : fmt, &b);
        goto out;
    }
    const mv_result *r = res->detail;
    const hlo_module *m = r->module;
    buf t;
    buf_init(&t, NULL);
    src_cache sc;
    src_cache_init(&sc, m, &a);
    if (fmt == PQ_OUT_XPROF) {
        json_writer w;
        json_init(&w, &b, 0);
        render_xprof(&w, r, &t, &sc);
    } else if (fmt == PQ_OUT_JSON) {
        json_writer w;
        json_init(&w, &b, 1);
        json_obj_begin(&w);
        json_key(&w, "schema");
        json_cstr(&w, "profq.memory_viewer.v1");
        json_key(&w, "source");
        json_cstr(&w, res->module.source);
        json_key(&w, "program_id");
        char id[32];
        snprintf(id, sizeof id, "%" PRIu64, res->module.program_id);
        json_cstr(&w, id);
        json_key(&w, "memory_space");
        json_int(&w, r->memory_color);
        json_key(&w, "xprof");
        render_xprof(&w, r, &t, &sc);
        json_obj_end(&w);
    } else {
        render_text(&b, r, opts && opts->wide);
    }
    if (fmt != PQ_OUT_TEXT)
        buf_putc(&b, '\n');
    if (t.status != PQ_OK && b.status == PQ_OK)
        b.status = t.status;
    if (sc.raw.status != PQ_OK && b.status == PQ_OK)
        b.status = sc.raw.status;
    buf_release(&t);
    src_cache_release(&sc);
out:
    if (st == PQ_OK)
        st = buf_flush(&b);
    if (st == PQ_ERR_OUTPUT || (st == PQ_OK && b.status != PQ_OK))
        st = err_set(err, PQ_ERR_OUTPUT, "", -1, "could not write the output");
    buf_release(&b);
    arena_release(&a);
    return st;
}
