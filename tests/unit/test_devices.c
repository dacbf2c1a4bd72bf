/* test_devices.c - every format's devices in the model (model/devices.h, pq_source.devices):
 * an XSpace synthesized with testutil.h (which planes become devices, their kinds, ids and
 * names, the capability stats in XProf's order with the types the file gives, the first
 * stat of a name winning, references resolved, bytes stating nothing, each plane linked to
 * its device); then the shared files, skipped with a message when ../shared/data is absent:
 * the MI300 and TPU XSpaces, an Nsight SQLite export (TARGET_INFO_GPU, read here with the
 * values Python's sqlite3 gives for that table) and a Tenstorrent log (its MemoryView lines). */
#include "testutil.h"

#include "model/model.h"

#include <math.h>

enum { ST_VENDOR = 1, ST_CORES, ST_MEM, ST_TYPE, ST_PEAK, ST_NAME_REF, ST_START, ST_CLOCK };

static pq_profile *open_bytes(const tbuf *b)
{
    pq_profile *p = NULL;
    pq_error err;
    pq_open_options o = {0};
    o.skip_sha256 = 1;
    pq_status st = pq_profile_open_memory(b->p, b->n, "devices.xplane.pb", &o, &p, &err);
    if (st != PQ_OK)
        fail_msg("open: %s", err.message);
    return p;
}

static pq_profile *open_path(const char *path)
{
    pq_profile *p = NULL;
    pq_error err;
    pq_open_options o = {0};
    o.skip_sha256 = 1;
    const char *paths[] = {path};
    pq_status st = pq_profile_open(paths, 1, &o, &p, &err);
    if (st != PQ_OK)
        fail_msg("open %s: %s", path, err.message);
    return p;
}

/* The capability KEY of device V, or NULL. */
static const model_device_cap *cap(const model_devices *d, const model_device *v, const char *key)
{
    const model_device_cap *c = devices_caps(d, v);
    for (size_t i = 0; i < v->ncaps; i++)
        if (!strcmp(c[i].key, key))
            return &c[i];
    return NULL;
}

/* The integer value of capability KEY of V (stated signed or unsigned); fails when absent. */
static uint64_t cap_int(const model_devices *d, const model_device *v, const char *key)
{
    const model_device_cap *c = cap(d, v, key);
    if (!c || (c->v.kind != PQ_DEV_INT && c->v.kind != PQ_DEV_UINT))
        fail_msg("%s: no integer %s", v->name, key);
    return c->v.kind == PQ_DEV_INT ? (uint64_t)c->v.i : c->v.u;
}

static void test_xplane_synthetic(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    /* A GPU plane: capabilities out of XProf's order, a duplicate core_count (the first
     * wins), a bytes-valued memory_size (states nothing), an unrelated stat. */
    size_t pl = plane_begin(&b, 7, "/device:GPU:0");
    put_stat_metas(&b, ST_VENDOR, "device_vendor", "core_count", "memory_size",
                   "device_type_string", "peak_teraflops_per_second", "A100", "profile_start_time",
                   "clock_rate", NULL);
    put_stat_u(&b, 6, ST_CORES, 108);
    put_stat_s(&b, 6, ST_VENDOR, "Nvidia");
    put_stat_u(&b, 6, ST_CORES, 7);
    put_stat_bytes(&b, 6, ST_MEM, "\x01\x02", 2);
    put_stat_ref(&b, 6, ST_TYPE, ST_NAME_REF); /* device_type_string -> "A100" */
    put_stat_i(&b, 6, ST_START, 12345);
    put_stat_i(&b, 6, ST_CLOCK, -5);
    msg_end(&b, pl);
    pl = plane_begin(&b, 0, "/host:metadata");
    msg_end(&b, pl);
    pl = plane_begin(&b, 2, "/device:TPU:0");
    put_stat_metas(&b, 1, "peak_teraflops_per_second", "memory_size", NULL);
    put_stat_d(&b, 6, 1, 918.5);
    put_stat_u(&b, 6, 2, UINT64_C(18446744073709551615));
    msg_end(&b, pl);
    pl = plane_begin(&b, 0, "/host:CPU");
    msg_end(&b, pl);
    pl = plane_begin(&b, 3, "Task Environment");
    put_stat_metas(&b, 1, "profile_start_time", NULL);
    put_stat_u(&b, 6, 1, 1);
    msg_end(&b, pl);
    pl = plane_begin(&b, 4, "/host:python");
    put_stat_metas(&b, 1, "memory_size", NULL);
    put_stat_u(&b, 6, 1, 4096);
    msg_end(&b, pl);

    pq_profile *p = open_bytes(&b);
    const pq_source *src = &p->sources[0];
    const model_devices *d = &src->devices;
    assert_int_equal(d->dev.n, 4);
    const model_device *gpu = &d->dev.v[0], *tpu = &d->dev.v[1], *cpu = &d->dev.v[2],
                       *other = &d->dev.v[3];
    assert_int_equal(gpu->id, 7);
    assert_string_equal(gpu->kind, "GPU");
    assert_string_equal(gpu->name, "/device:GPU:0");
    /* XProf's order: vendor, type string, clock rate, core count; not the bytes stat. */
    assert_int_equal(gpu->ncaps, 4);
    const model_device_cap *c = devices_caps(d, gpu);
    assert_string_equal(c[0].key, "device_vendor");
    assert_int_equal(c[0].v.kind, PQ_DEV_STR);
    assert_string_equal(c[0].v.s.p, "Nvidia");
    assert_string_equal(c[1].key, "device_type_string");
    assert_string_equal(c[1].v.s.p, "A100");
    assert_string_equal(c[2].key, "clock_rate");
    assert_int_equal(c[2].v.kind, PQ_DEV_INT);
    assert_int_equal(c[2].v.i, -5);
    assert_string_equal(c[3].key, "core_count");
    assert_int_equal(c[3].v.kind, PQ_DEV_UINT);
    assert_int_equal(c[3].v.u, 108);
    assert_null(cap(d, gpu, "memory_size"));

    assert_string_equal(tpu->kind, "TPU");
    assert_int_equal(tpu->id, 2);
    assert_int_equal(tpu->ncaps, 2);
    assert_int_equal(cap(d, tpu, "peak_teraflops_per_second")->v.kind, PQ_DEV_NUM);
    assert_true(cap(d, tpu, "peak_teraflops_per_second")->v.d == 918.5);
    assert_true(cap(d, tpu, "memory_size")->v.u == UINT64_C(18446744073709551615));

    assert_string_equal(cpu->kind, "CPU");
    assert_string_equal(cpu->name, "/host:CPU");
    assert_int_equal(cpu->ncaps, 0);

    assert_string_equal(other->kind, "other"); /* not a device plane, but states memory */
    assert_string_equal(other->name, "/host:python");
    assert_true(cap(d, other, "memory_size")->v.u == 4096);

    /* Each plane links to its device; metadata and Task Environment are none. */
    const int32_t want[] = {0, -1, 1, 2, -1, 3};
    assert_int_equal(src->nplanes, 6);
    for (uint32_t k = 0; k < src->nplanes; k++) {
        assert_int_equal(src->planes[k].device, want[k]);
        const model_device *v = xp_plane_device(src, &src->planes[k]);
        if (v)
            assert_true(pq_str_eq(src->planes[k].name, v->name));
    }
    pq_profile_free(p);
    tb_free(&b);
}

/* A host-only XSpace: the CPU is a device that states nothing (no capability anywhere). */
static void test_xplane_host_only(void **state)
{
    (void)state;
    tbuf b;
    tb_init(&b);
    size_t pl = plane_begin(&b, 0, "/host:CPU");
    msg_end(&b, pl);
    pq_profile *p = open_bytes(&b);
    const model_devices *d = &p->sources[0].devices;
    assert_int_equal(d->dev.n, 1);
    assert_string_equal(d->dev.v[0].kind, "CPU");
    assert_int_equal(d->dev.v[0].ncaps, 0);
    assert_null(devices_caps(d, &d->dev.v[0]));
    pq_profile_free(p);
    tb_free(&b);
}

static void test_xplane_shared(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    pq_profile *p = open_path(shared_path("xplane/mi300_jax08_attention.xplane.pb"));
    const model_devices *d = &p->sources[0].devices;
    assert_int_equal(d->dev.n, 9); /* 8 GPUs and the host CPU */
    for (int k = 0; k < 8; k++) {
        const model_device *v = &d->dev.v[k];
        char name[32];
        snprintf(name, sizeof name, "/device:GPU:%d", k);
        assert_string_equal(v->kind, "GPU");
        assert_string_equal(v->name, name);
        assert_int_equal(v->id, k);
        assert_int_equal(v->ncaps, 7);
        assert_string_equal(cap(d, v, "device_vendor")->v.s.p, "AMD");
        assert_true(cap_int(d, v, "memory_size") == UINT64_C(206141652992));
        assert_true(cap_int(d, v, "memory_bandwidth") == UINT64_C(2662400000000));
        assert_true(cap_int(d, v, "core_count") == 304);
        assert_true(cap_int(d, v, "clock_rate") == 2100000);
        assert_true(cap_int(d, v, "compute_cap_major") == 9);
        assert_true(cap_int(d, v, "compute_cap_minor") == 4);
    }
    assert_string_equal(d->dev.v[8].kind, "CPU");
    pq_profile_free(p);

    p = open_path(shared_path("xplane/tpu_inference_2.xplane.pb"));
    d = &p->sources[0].devices;
    size_t tpus = 0;
    for (size_t k = 0; k < d->dev.n; k++) {
        const model_device *v = &d->dev.v[k];
        if (strcmp(v->kind, "TPU"))
            continue;
        tpus++;
        assert_string_equal(cap(d, v, "device_type_string")->v.s.p, "TPU v6 Lite");
        assert_true(cap(d, v, "peak_teraflops_per_second")->v.d == 918);
        assert_true(fabs(cap(d, v, "peak_hbm_bw_gigabytes_per_second")->v.d - 1637.993152512) <
                    1e-9);
    }
    assert_int_equal(tpus, 4);
    pq_profile_free(p);
}

static void test_sqlite_shared(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    pq_profile *p = open_path(shared_path("nsys/gtx1060_con_kernel.sqlite"));
    const pq_source *src = &p->sources[0];
    const model_devices *d = &src->devices;
    /* TARGET_INFO_GPU: (0, 'GeForce GTX 1060 with Max-Q Design', 'GP106', 6442450944,
     * 192192000000, 1341500000, 10, 6, 1), then two GPUs with only their names. */
    assert_int_equal(d->dev.n, 3);
    const model_device *g = devices_find(d, 0);
    assert_non_null(g);
    assert_string_equal(g->kind, "GPU");
    assert_string_equal(g->name, "GeForce GTX 1060 with Max-Q Design");
    assert_int_equal(g->ncaps, 7);
    assert_string_equal(cap(d, g, "chipName")->v.s.p, "GP106");
    assert_true(cap(d, g, "totalMemory")->v.i == INT64_C(6442450944));
    assert_true(cap(d, g, "memoryBandwidth")->v.i == INT64_C(192192000000));
    assert_true(cap(d, g, "clockRate")->v.i == 1341500000);
    assert_int_equal(cap(d, g, "smCount")->v.i, 10);
    assert_int_equal(cap(d, g, "computeMajor")->v.i, 6);
    assert_int_equal(cap(d, g, "computeMinor")->v.i, 1);
    g = devices_find(d, 1);
    assert_string_equal(g->name, "Intel(R) HD Graphics 630");
    assert_int_equal(g->ncaps, 0); /* its row states zeros: nothing */
    assert_string_equal(devices_find(d, 2)->name, "Microsoft Basic Render Driver");
    /* The activity counts stay with the export. */
    assert_int_equal(src->nsys_export->ngpus, 3);
    assert_int_equal(src->nsys_export->gpus[0].id, 0);
    assert_true(src->nsys_export->gpus[0].kernels > 0);
    pq_profile_free(p);
}

static void test_ttlog_shared(void **state)
{
    (void)state;
    REQUIRE_SHARED();
    /* Its first block: DRAM 12 banks of 1024.000 MB, L1 64 of 1.269, L1_SMALL 64 of 0.062,
     * TRACE 12 of 0.000. */
    pq_profile *p = open_path(shared_path("tenstorrent/mochi_only_norm2.log"));
    const model_devices *d = &p->sources[0].devices;
    assert_int_equal(d->dev.n, 1);
    const model_device *v = &d->dev.v[0];
    assert_string_equal(v->kind, "Tenstorrent");
    assert_int_equal(v->ncaps, 8);
    assert_int_equal(cap(d, v, "DRAM.numBanks")->v.i, 12);
    assert_true(cap(d, v, "DRAM.totalBytesPerBank_MB")->v.d == 1024.0);
    assert_int_equal(cap(d, v, "L1.numBanks")->v.i, 64);
    assert_true(cap(d, v, "L1.totalBytesPerBank_MB")->v.d == 1.269);
    assert_int_equal(cap(d, v, "L1_SMALL.numBanks")->v.i, 64);
    assert_true(cap(d, v, "L1_SMALL.totalBytesPerBank_MB")->v.d == 0.062);
    assert_int_equal(cap(d, v, "TRACE.numBanks")->v.i, 12);
    assert_true(cap(d, v, "TRACE.totalBytesPerBank_MB")->v.d == 0.0);
    pq_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xplane_synthetic), cmocka_unit_test(test_xplane_host_only),
        cmocka_unit_test(test_xplane_shared),    cmocka_unit_test(test_sqlite_shared),
        cmocka_unit_test(test_ttlog_shared),
    };
    return tu_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
