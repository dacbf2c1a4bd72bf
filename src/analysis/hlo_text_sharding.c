/* hlo_text_sharding.c - the parts of XLA's HLO text that describe how an instruction is
 * partitioned, for hlo_text.c: `sharding=` (HloSharding::ToString of the OpSharding, field 40,
 * with IotaTileAssignment's canonical form) and the mesh-axes replica group list of a
 * collective (field 93: `replica_groups=mesh[...] {...}`), as XProf 2.24.2 prints them. Not
 * here: the rest of the instruction (hlo_text.c), sharding metadata (XProf's options leave it
 * out). Field numbers: xla/xla_data.proto (OpSharding, MeshProto, AxisRefProto). */
#include "analysis/hlo_text_internal.h"

#include <inttypes.h>
#include <string.h>

/* Every value of the repeated integer field NUM of MSG, SEP between them (no length limit:
 * explicit device lists can be long). */
static void put_ints_sep(buf *b, pq_str msg, uint32_t num, const char *sep)
{
    pb_cursor c;
    pb_field f = {0};
    uint32_t k = 0;
    pb_init(&c, (const uint8_t *)msg.p, msg.n, NULL);
    while (pb_next(&c, &f) == PB_FIELD) {
        pb_repeated r;
        uint64_t v;
        if (f.num != num || !pb_repeated_init(&r, &c, &f, PB_VARINT))
            continue;
        while (pb_repeated_next(&r, &v) == PB_FIELD)
            buf_printf(b, "%s%" PRId64, k++ ? sep : "", (int64_t)v);
    }
}

/* "<=[dims]T(perm)" of an iota tile assignment after IotaTileAssignment's canonical form:
 * reshape dims of size 1 dropped, dims adjacent in the transpose merged; T() only when the
 * transpose is not the identity. */
static void put_iota(buf *b, pq_str s)
{
    int64_t d[MAX_INTS], p[MAX_INTS];
    uint8_t seen[MAX_INTS] = {0};
    uint32_t n = ht_field_ints(s, 9, d), np = ht_field_ints(s, 10, p), perm = np == n;
    for (uint32_t i = 0; perm && i < n; i++) { /* a damaged transpose counts as none */
        perm = p[i] >= 0 && p[i] < (int64_t)n && !seen[p[i]];
        if (perm)
            seen[p[i]] = 1;
    }
    for (uint32_t i = 0; !perm && i < n; i++)
        p[i] = (int64_t)i;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t i = 0; i < n && !changed; i++) { /* merge or drop reshape dim p[i] */
            int64_t q = p[i];
            int one = d[q] == 1, merge = i + 1 < n && p[i + 1] == q + 1;
            if (!one && !merge)
                continue;
            int64_t gone = one ? q : q + 1;
            if (merge)
                d[q] = (int64_t)((uint64_t)d[q] * (uint64_t)d[q + 1]); /* no UB */
            memmove(&d[gone], &d[gone + 1], (n - 1 - (uint32_t)gone) * sizeof *d);
            memmove(&p[one ? i : i + 1], &p[(one ? i : i + 1) + 1],
                    (n - 1 - (one ? i : i + 1)) * sizeof *p);
            n--;
            for (uint32_t j = 0; j < n; j++)
                p[j] -= p[j] > gone;
            changed = 1;
        }
    }
    int ident = 1;
    buf_puts(b, "<=[");
    for (uint32_t i = 0; i < n; i++) {
        buf_printf(b, "%s%" PRId64, i ? "," : "", d[i]);
        ident &= p[i] == (int64_t)i;
    }
    buf_printf(b, "%s]", n ? "" : "1");
    if (!ident) {
        buf_puts(b, "T(");
        for (uint32_t i = 0; i < n; i++)
            buf_printf(b, "%s%" PRId64, i ? "," : "", p[i]);
        buf_putc(b, ')');
    }
}

/* HloSharding::ToString of the OpSharding S without metadata: "{replicated}", "{maximal
 * device=3}", "{devices=[2,4]<=[8] last_tile_dims={manual}}", a tuple's "{{...}, {...}}";
 * " shard_as N" / " shard_like N" for a shard group. */
void hlo_text_sharding(buf *b, pq_str s, int depth)
{
    static const char *const TYPE[] = {"replicated", "maximal", "tuple",    "other",
                                       "manual",     "unknown", "unreduced"};
    int64_t type = ht_field_int(s, 1, 0);
    buf_putc(b, '{');
    if (type == 2 && depth < 8) {
        pb_cursor c;
        pb_field f = {0};
        uint32_t k = 0;
        pb_init(&c, (const uint8_t *)s.p, s.n, NULL);
        while (pb_next(&c, &f) == PB_FIELD)
            if (f.num == 5 && f.wire == PB_LEN) {
                buf_puts(b, k++ ? ", " : "");
                hlo_text_sharding(b, pq_str_of((const char *)f.data, f.len), depth + 1);
            }
    } else if (type == 1) {
        int64_t dev[MAX_INTS]; /* ht_field_ints fills up to MAX_INTS */
        buf_printf(b, "maximal device=%" PRId64, ht_field_ints(s, 4, dev) ? dev[0] : 0);
    } else if (type == 3) {
        int64_t t[MAX_INTS];
        buf_puts(b, "devices=[");
        put_ints_sep(b, s, 3, ",");
        buf_putc(b, ']');
        if (ht_field(s, 9, &(pb_field){0}))
            put_iota(b, s);
        else
            put_ints_sep(b, s, 4, ",");
        if (ht_field_int(s, 6, 0))
            buf_puts(b, " last_tile_dim_replicate");
        uint32_t nt = ht_field_ints(s, 8, t);
        for (uint32_t i = 0; i < nt; i++)
            buf_printf(b, "%s%s", i ? ", " : " last_tile_dims={",
                       t[i] >= 0 && t[i] <= 6 ? TYPE[t[i]] : "other");
        buf_puts(b, nt ? "}" : "");
    } else {
        buf_puts(b, type >= 0 && type <= 6 ? TYPE[type] : "unknown");
    }
    if (ht_field_int(s, 11, 0))
        buf_printf(b, " shard_%s %" PRId64, ht_field_int(s, 13, 0) ? "like" : "as",
                   ht_field_int(s, 12, 0));
    buf_putc(b, '}');
}

/* ", replica_groups=mesh['a'=4,'b'=2], device_ids=(...) {'a','b':(1)2}" from the mesh axes
 * replica group list (93: mesh {axes {name, size}, device_ids}, axes {mesh_axis_index,
 * sub_axis_info {pre_size, size}}); 0 when the instruction has none. */
int hlo_text_mesh_replica_groups(buf *b, pq_str raw)
{
    pq_str list = ht_field_bytes(raw, 93), mesh = ht_field_bytes(list, 1);
    enum { MAX_AXES = 64 };
    pq_str names[MAX_AXES];
    uint32_t na = 0;
    pb_cursor c;
    pb_field f = {0};
    if (!ht_field(raw, 93, &f))
        return 0;
    buf_puts(b, ", replica_groups=mesh[");
    pb_init(&c, (const uint8_t *)mesh.p, mesh.n, NULL);
    while (pb_next(&c, &f) == PB_FIELD)
        if (f.num == 1 && f.wire == PB_LEN) {
            pq_str a = pq_str_of((const char *)f.data, f.len), name = ht_field_bytes(a, 1);
            if (na < MAX_AXES)
                names[na] = name;
            buf_printf(b, "%s'%.*s'=%" PRId64, na++ ? "," : "", (int)name.n, name.p,
                       ht_field_int(a, 2, 0));
        }
    buf_putc(b, ']');
    if (ht_field(mesh, 2, &f)) {
        buf_puts(b, ", device_ids=(");
        put_ints_sep(b, mesh, 2, ",");
        buf_putc(b, ')');
    }
    buf_puts(b, " {");
    uint32_t k = 0;
    pb_init(&c, (const uint8_t *)list.p, list.n, NULL);
    while (pb_next(&c, &f) == PB_FIELD)
        if (f.num == 2 && f.wire == PB_LEN) {
            pq_str r = pq_str_of((const char *)f.data, f.len), sub = ht_field_bytes(r, 2);
            int64_t i = ht_field_int(r, 1, 0);
            pq_str name = i >= 0 && i < (int64_t)na && i < MAX_AXES ? names[i] : pq_str_of("?", 1);
            buf_printf(b, "%s'%.*s'", k++ ? "," : "", (int)name.n, name.p);
            if (ht_field(r, 2, &(pb_field){0}))
                buf_printf(b, ":(%" PRId64 ")%" PRId64, ht_field_int(sub, 1, 0),
                           ht_field_int(sub, 2, 0));
        }
    buf_putc(b, '}');
    return 1;
}
