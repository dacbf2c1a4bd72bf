/* wandb.c - W&B inputs and outputs through the official `wandb` command-line client,
 * run as a child process with an argv (fork + exec, no shell, stdin from /dev/null so it
 * can never stop at a prompt). No HTTP client of our own (spec/seed-tools.md 1.26):
 *   --artifact REF    wandb artifact get --root DIR --type jax_profile ENTITY/PROJECT/NAME[:V]
 *   --run-target T    wandb pull -e ENTITY -p PROJECT RUN_ID   (in DIR: pull writes to cwd)
 * then the folder is summarised like any jax_profile directory. */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int cli_on_path(const char *prog, char *out, size_t cap)
{
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    while (*path) {
        const char *c = strchr(path, ':');
        size_t n = c ? (size_t)(c - path) : strlen(path);
        snprintf(out, cap, "%.*s/%s", (int)n, n ? path : ".", prog);
        struct stat st;
        if (access(out, X_OK) == 0 && stat(out, &st) == 0 && S_ISREG(st.st_mode))
            return 1;
        path += n + (c ? 1 : 0);
    }
    return 0;
}

int cli_spawn(char *const argv[], const char *cwd)
{
    cli_progress_stop(); /* the child's own output follows */
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "profq: cannot run %s: %s\n", argv[0], strerror(errno));
        return -1;
    }
    if (pid == 0) {
        int fd = open("/dev/null", O_RDONLY);
        if (fd >= 0 && fd != 0) {
            dup2(fd, 0);
            close(fd);
        }
        /* The child's own chatter goes to stderr: stdout carries profq's output. */
        dup2(2, 1);
        if (cwd && chdir(cwd) != 0)
            _exit(126);
        signal(SIGPIPE, SIG_DFL); /* profq ignores it (main.c); the child gets the default */
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* 1 when the client will find an API key: $WANDB_API_KEY, an identity token file, or a
 * netrc entry for the W&B host that `wandb login` writes. Only presence is checked. */
static int have_credentials(void)
{
    const char *k = getenv("WANDB_API_KEY"), *t = getenv("WANDB_IDENTITY_TOKEN_FILE");
    if ((k && *k) || (t && *t))
        return 1;
    char path[4096];
    const char *netrc = getenv("NETRC"), *home = getenv("HOME");
    if (netrc && *netrc)
        snprintf(path, sizeof path, "%s", netrc);
    else if (home && *home)
        snprintf(path, sizeof path, "%s/.netrc", home);
    else
        return 0;
    /* The host `wandb login` wrote: $WANDB_BASE_URL's, or the default service, which
     * the client reaches as api.forge.coreweave.com or api.wandb.ai. */
    const char *base = getenv("WANDB_BASE_URL");
    char host[256] = "wandb.ai";
    if (base && *base) {
        const char *h = strstr(base, "://");
        h = h ? h + 3 : base;
        size_t n = strcspn(h, "/:");
        snprintf(host, sizeof host, "%.*s", (int)(n < sizeof host ? n : sizeof host - 1), h);
    }
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[1024];
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, host) != NULL ||
                (!(base && *base) && strstr(line, "forge.coreweave.com") != NULL);
    fclose(f);
    return found;
}

int cli_wandb_ready(const char *what, char *wandb, size_t cap)
{
    if (!cli_on_path("wandb", wandb, cap)) {
        fprintf(stderr,
                "profq: %s needs the official W&B command-line client `wandb` on PATH "
                "(pip install wandb); it was not found\n",
                what);
        return EXIT_USAGE;
    }
    if (!have_credentials()) {
        fprintf(stderr,
                "profq: %s needs W&B credentials: set WANDB_API_KEY or run `wandb login` "
                "(neither was found)\n",
                what);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* Splits S on '/' into at most MAX non-empty parts (pointers into BUF). */
static int split_parts(const char *s, char *buf, size_t cap, char **parts, int max)
{
    snprintf(buf, cap, "%s", s);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (n == max)
            return max + 1;
        parts[n++] = t;
    }
    return n;
}

static int bad_word(const char *s)
{
    if (!*s || *s == '-')
        return 1;
    for (; *s; s++)
        if ((unsigned char)*s <= ' ')
            return 1;
    return 0;
}

int cli_wandb_parse_run_target(const char *cmd, const char *target, const char *entity,
                               const char *project, cli_fetched *f)
{
    char buf[2048], *all[64];
    const char *t = target;
    int url = strncmp(t, "http://", 7) == 0 || strncmp(t, "https://", 8) == 0;
    int forge = 0;
    if (url) {
        t = strstr(t, "://") + 3;
        size_t hn = strcspn(t, "/:?#");
        /* CoreWeave Forge serves the W&B app under /wandb: .../wandb/ENTITY/PROJECT/runs/ID */
        forge = hn >= 19 && strncmp(t + hn - 19, "forge.coreweave.com", 19) == 0;
        t += strcspn(t, "/"); /* drop the host */
        snprintf(buf, sizeof buf, "%.*s", (int)strcspn(t, "?#"), t);
    } else {
        snprintf(buf, sizeof buf, "%s", t);
    }
    char tmp[2048];
    char **p = all;
    int n = split_parts(buf, tmp, sizeof tmp, all, 63);
    if (forge && n >= 4 && strcmp(p[0], "wandb") == 0)
        p++, n--;
    const char *e = NULL, *pr = NULL, *id = NULL;
    if (url && n < 3)
        return cli_usage_error(cmd, "could not parse run information from URL: %s", target);
    if (n == 1) {
        if (!entity || !*entity || !project || !*project)
            return cli_usage_error(cmd, "Bare run ids require --entity and --project.");
        e = entity, pr = project, id = p[0];
    } else if (n >= 3) {
        e = p[0], pr = p[1], id = strcmp(p[2], "runs") == 0 && n >= 4 ? p[3] : p[2];
    } else {
        return cli_usage_error(cmd, "Unrecognized run target: %s", target);
    }
    if (bad_word(e) || bad_word(pr) || bad_word(id))
        return cli_usage_error(cmd, "Unrecognized run target: %s", target);
    snprintf(f->entity, sizeof f->entity, "%s", e);
    snprintf(f->project, sizeof f->project, "%s", pr);
    snprintf(f->run_id, sizeof f->run_id, "%s", id);
    snprintf(f->run_path, sizeof f->run_path, "%s/%s/%s", e, pr, id);
    return EXIT_OK;
}

int cli_wandb_parse_artifact(const char *cmd, const char *ref, const char *entity,
                             const char *project, cli_fetched *f)
{
    char tmp[2048], *p[4];
    int n = split_parts(ref, tmp, sizeof tmp, p, 3);
    const char *e = entity && *entity ? entity : NULL, *pr = project && *project ? project : NULL;
    if (n == 3)
        e = p[0], pr = p[1];
    else if (n == 2)
        pr = p[0];
    const char *name = n >= 1 && n <= 3 ? p[n - 1] : NULL;
    if (!name || !e || !pr || bad_word(e) || bad_word(pr) || bad_word(name) || *ref == '/')
        return cli_usage_error(cmd,
                               "--artifact wants ENTITY/PROJECT/NAME[:VERSION] (or NAME with "
                               "--entity and --project): '%s'",
                               ref);
    snprintf(f->entity, sizeof f->entity, "%s", e);
    snprintf(f->project, sizeof f->project, "%s", pr);
    snprintf(f->artifact_name, sizeof f->artifact_name, "%s", name);
    snprintf(f->artifact_ref, sizeof f->artifact_ref, "%s/%s/%s", e, pr, name);
    return EXIT_OK;
}

static int mkdirs(const char *path)
{
    char b[4096];
    snprintf(b, sizeof b, "%s", path);
    for (char *s = b + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(b, 0777) != 0 && errno != EEXIST)
            return -1;
        *s = '/';
    }
    return mkdir(b, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* The folder the download goes to: ROOT/LEAF (created), or a fresh temporary folder. */
static int make_dir(const char *root, const char *leaf, cli_fetched *f)
{
    if (root && *root) {
        snprintf(f->dir, sizeof f->dir, "%s/%s", root, leaf);
        f->temp = 0;
        if (mkdirs(f->dir) == 0)
            return EXIT_OK;
    } else {
        const char *t = getenv("TMPDIR");
        snprintf(f->dir, sizeof f->dir, "%s/profq-wandb-XXXXXX", t && *t ? t : "/tmp");
        f->temp = 1;
        if (mkdtemp(f->dir))
            return EXIT_OK;
    }
    fprintf(stderr, "profq: %s: cannot create: %s\n", f->dir, strerror(errno));
    f->temp = 0;
    return EXIT_OUTPUT;
}

int cli_wandb_fetch(const char *what, const char *download_root, cli_fetched *f)
{
    char wandb[4096];
    int code = cli_wandb_ready(what, wandb, sizeof wandb);
    if (code != EXIT_OK)
        return code;
    char *argv[12];
    int k = 0, rc;
    argv[k++] = wandb;
    if (f->artifact_ref[0]) {
        if ((code = make_dir(download_root, f->artifact_name, f)) != EXIT_OK)
            return code;
        argv[k++] = "artifact";
        argv[k++] = "get";
        argv[k++] = "--root";
        argv[k++] = f->dir;
        argv[k++] = "--type";
        argv[k++] = "jax_profile";
        argv[k++] = f->artifact_ref;
        argv[k] = NULL;
        rc = cli_spawn(argv, NULL);
    } else {
        if ((code = make_dir(download_root, f->run_id, f)) != EXIT_OK)
            return code;
        argv[k++] = "pull";
        argv[k++] = "-e";
        argv[k++] = f->entity;
        argv[k++] = "-p";
        argv[k++] = f->project;
        argv[k++] = f->run_id;
        argv[k] = NULL;
        rc = cli_spawn(argv, f->dir);
    }
    if (rc != 0) {
        fprintf(stderr, "profq: `wandb %s` failed (exit %d) for %s\n",
                f->artifact_ref[0] ? "artifact get" : "pull", rc,
                f->artifact_ref[0] ? f->artifact_ref : f->run_path);
        cli_fetched_done(f);
        return EXIT_INPUT;
    }
    return EXIT_OK;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    remove(p);
    return 0;
}

void cli_remove_tree(const char *dir)
{
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void cli_fetched_done(cli_fetched *f)
{
    if (f->temp && f->dir[0])
        cli_remove_tree(f->dir);
    f->temp = 0;
}

void cli_fetched_meta(const cli_fetched *f, pq_summary_options *o)
{
    o->artifact_ref = f->artifact_ref[0] ? f->artifact_ref : NULL;
    o->artifact_name = f->artifact_name[0] ? f->artifact_name : NULL;
    o->run_path = f->run_path[0] ? f->run_path : NULL;
    o->run_id = f->run_id[0] ? f->run_id : NULL;
}
