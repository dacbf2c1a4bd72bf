/* append.c - appending one record to a history file (JSON Lines) so that concurrent
 * writers and a writer killed mid-run never leave a partial or interleaved record; see
 * append.h. */
#define _GNU_SOURCE /* flock */
#include "append.h"

#include "core/err.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Appends LINE (ending in '\n') to PATH: exclusive flock, a '\n' first when a killed writer
 * left the file without one (so the new record starts its own line), one write(2), fsync. */
pq_status io_append_line(const char *path, const char *line, size_t n, pq_error *err)
{
    /* Parent directories are created, as the seed does. */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0777);
            *p = '/';
        }
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    RETURN_ERROR_IF(fd < 0, err, PQ_ERR_OUTPUT, path, -1, "cannot open: %s", strerror(errno));
    pq_status st = PQ_OK;
    if (flock(fd, LOCK_EX) != 0) {
        st = err_set(err, PQ_ERR_OUTPUT, path, -1, "cannot lock: %s", strerror(errno));
        goto out;
    }
    struct stat sb;
    if (fstat(fd, &sb) == 0 && sb.st_size > 0) {
        int rfd = open(path, O_RDONLY | O_CLOEXEC);
        char last = '\n';
        if (rfd >= 0) {
            if (pread(rfd, &last, 1, sb.st_size - 1) != 1)
                last = '\n';
            close(rfd);
        }
        if (last != '\n' && write(fd, "\n", 1) != 1) {
            st = err_set(err, PQ_ERR_OUTPUT, path, -1, "write failed: %s", strerror(errno));
            goto unlock;
        }
    }
    ssize_t w = write(fd, line, n);
    if (w != (ssize_t)n) {
        st = err_set(err, PQ_ERR_OUTPUT, path, -1, "write failed: %s",
                     w < 0 ? strerror(errno) : "short write");
        goto unlock;
    }
    if (fsync(fd) != 0)
        st = err_set(err, PQ_ERR_OUTPUT, path, -1, "fsync failed: %s", strerror(errno));
unlock:
    flock(fd, LOCK_UN);
out:
    if (close(fd) != 0 && st == PQ_OK)
        st = err_set(err, PQ_ERR_OUTPUT, path, -1, "close failed: %s", strerror(errno));
    return st;
}
