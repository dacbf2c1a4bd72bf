/* test_mapfile.c - the library's reading of inputs that are not regular files (issue 16
 * items 17 and 19): a FIFO without a writer does not block mapfile_open or the trace
 * reader's open, the trace reader refuses a pipe or device (it reads its path more than
 * once), and a folder without profiles says it is a folder. The CLI's own bounded reads
 * of streams are tested by tests/cli/conventions.sh. */
#define _GNU_SOURCE
#include "testutil.h"

#include "formats/trace_json.h"
#include "io/mapfile.h"

#include <signal.h>

static void on_alarm(int sig)
{
    (void)sig;
    _exit(3); /* an open that blocked: the test binary fails */
}

static char *make_fifo(char **dir)
{
    *dir = tu_mkdtemp();
    char *p = malloc(PATH_MAX);
    assert_non_null(p);
    snprintf(p, PATH_MAX, "%s/fifo", *dir);
    assert_int_equal(mkfifo(p, 0600), 0);
    return p;
}

static int count_event(void *ctx, const tj_event *e, pq_error *err)
{
    (void)e;
    (void)err;
    ++*(int *)ctx;
    return 0;
}

static void test_fifo_without_writer(void **state)
{
    (void)state;
    char *dir, *fifo = make_fifo(&dir);
    signal(SIGALRM, on_alarm);
    alarm(10);
    mapped_file m;
    pq_error err;
    /* no writer: the open returns, the read sees the end, the input is empty */
    assert_int_equal(mapfile_open(fifo, &m, &err), PQ_OK);
    assert_int_equal(m.size, 0);
    mapfile_close(&m);
    int n = 0;
    tj_info info;
    assert_int_equal(tj_read_file(fifo, NULL, count_event, &n, &info, &err), PQ_ERR_IO);
    assert_non_null(strstr(err.message, "not a regular file"));
    assert_string_equal(err.path, fifo);
    alarm(0);
    tu_rm_rf(dir);
    free(fifo);
    free(dir);
}

static void test_device_refused_by_trace_reader(void **state)
{
    (void)state;
    int n = 0;
    tj_info info;
    pq_error err;
    assert_int_equal(tj_read_file("/dev/zero", NULL, count_event, &n, &info, &err), PQ_ERR_IO);
    assert_non_null(strstr(err.message, "not a regular file"));
    assert_int_equal(n, 0);
}

static void test_folder_without_profiles(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    pathlist l;
    pq_error err;
    assert_int_equal(discover_profiles(dir, &l, &err), PQ_ERR_NOT_FOUND);
    assert_string_equal(err.message, "is a directory holding no profile (no *.xplane.pb, nsys-jax "
                                     "archive or trace JSON under it)");
    assert_string_equal(err.path, dir);
    tu_rm_rf(dir);
    free(dir);
}

/* RssFile of this process in KiB (/proc/self/status): file pages mapped and touched. */
static long rss_file_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    assert_non_null(f);
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "RssFile: %ld", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

/* mapfile_drop_resident (issue 15, a Dask worker's memory): the mapped file's pages leave
 * the process's RSS, and reading the mapping again gives the file's bytes. */
static void test_drop_resident_keeps_bytes(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/big.bin", dir);
    enum { N = 8 << 20 };
    unsigned char *want = malloc(N);
    assert_non_null(want);
    for (size_t i = 0; i < N; i++)
        want[i] = (unsigned char)(i * 2654435761u >> 13);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(want, 1, N, f), N);
    fclose(f);
    mapped_file m;
    pq_error err;
    assert_int_equal(mapfile_open(path, &m, &err), PQ_OK);
    assert_true(m.map_len > 0); /* mapped, not read */
    unsigned sum = 0;
    for (size_t i = 0; i < N; i += 512)
        sum += m.data[i];
    long touched = rss_file_kib();
    mapfile_drop_resident(&m);
    long dropped = rss_file_kib();
    assert_true(sum > 0);
    assert_true(touched - dropped >= (N >> 10) / 2);
    assert_memory_equal(m.data, want, N);
    mapfile_close(&m);
    free(want);
    tu_rm_rf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_without_writer),
        cmocka_unit_test(test_device_refused_by_trace_reader),
        cmocka_unit_test(test_folder_without_profiles),
        cmocka_unit_test(test_drop_resident_keeps_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
