/* cmd_publish.c - `profq publish --summary S`: a W&B artifact of type profile_summary
 * through the official `wandb` command-line client (`wandb artifact put`); no home-made
 * HTTP client. --dry-run prints the plan without W&B. */
#include "cli.h"

#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The full path of PROG on PATH into OUT, or 0. */
static int on_path(const char *prog, char *out, size_t cap)
{
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    while (*path) {
        const char *c = strchr(path, ':');
        size_t n = c ? (size_t)(c - path) : strlen(path);
        snprintf(out, cap, "%.*s/%s", (int)n, n ? path : ".", prog);
        if (access(out, X_OK) == 0)
            return 1;
        path += n + (c ? 1 : 0);
    }
    return 0;
}

static int run_wait(char *const argv[])
{
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
    if (rc != 0) {
        fprintf(stderr, "profq: cannot run %s: %s\n", argv[0], strerror(rc));
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int cmd_publish(int argc, char **argv)
{
    const char *summary = NULL, *report = NULL, *name = NULL, *out_path = NULL;
    const char *entity = getenv("WANDB_ENTITY"), *project = getenv("WANDB_PROJECT");
    const char *aliases[32];
    size_t naliases = 0;
    int dry = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char **slot = NULL;
        if (strcmp(a, "--summary") == 0)
            slot = &summary;
        else if (strcmp(a, "--report") == 0)
            slot = &report;
        else if (strcmp(a, "--entity") == 0)
            slot = &entity;
        else if (strcmp(a, "--project") == 0)
            slot = &project;
        else if (strcmp(a, "--artifact-name") == 0)
            slot = &name;
        else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)
            slot = &out_path;
        if (slot) {
            if (!v)
                return cli_usage_error("publish", "%s needs a value", a);
            *slot = argv[++i];
        } else if (strcmp(a, "--alias") == 0) {
            if (!v || naliases == 32)
                return cli_usage_error("publish", "--alias needs a value (at most 32)");
            aliases[naliases++] = argv[++i];
        } else if (strcmp(a, "--dry-run") == 0) {
            dry = 1;
        } else if (a[0] != '-' && !summary) {
            summary = a;
        } else {
            return cli_usage_error("publish", "unknown argument '%s'", a);
        }
    }
    if (!summary)
        return cli_usage_error("publish", "--summary is required");
    if (!entity || !*entity)
        entity = "marin-community";
    if (!project || !*project)
        project = "marin";
    if (!naliases)
        aliases[naliases++] = "latest";
    char wandb[4096];
    if (!dry && !on_path("wandb", wandb, sizeof wandb)) {
        fprintf(stderr, "profq: publish needs the official W&B command-line client `wandb` on "
                        "PATH (pip install wandb, then wandb login); it was not found. "
                        "--dry-run shows what would be published.\n");
        return EXIT_USAGE;
    }
    pq_summary *s = NULL;
    int code = cli_load_summary(summary, &s);
    if (code != EXIT_OK)
        return code;
    char stamp[32], when[64];
    cli_generated_at(when, sizeof when);
    /* %Y%m%d-%H%M%S of the same instant. */
    snprintf(stamp, sizeof stamp, "%.4s%.2s%.2s-%.2s%.2s%.2s", when, when + 5, when + 8, when + 11,
             when + 14, when + 17);
    char artifact[512];
    cli_out out;
    code = cli_out_open(&out, out_path);
    if (code != EXIT_OK) {
        pq_summary_free(s);
        return code;
    }
    if (!dry) {
        /* Stage the files in one folder and hand it to `wandb artifact put`; the entity
         * goes through WANDB_ENTITY, the name is project/artifact. */
        char dir[] = "/tmp/profq-publish-XXXXXX";
        if (!mkdtemp(dir)) {
            fprintf(stderr, "profq: cannot create a staging folder: %s\n", strerror(errno));
            code = EXIT_OUTPUT;
        }
        cli_out nul;
        if (code == EXIT_OK && (code = cli_out_open(&nul, "/dev/null")) == EXIT_OK) {
            pq_error err;
            memset(&err, 0, sizeof err);
            pq_summary_publish_plan(s, "published", entity, project, name, stamp, aliases, naliases,
                                    summary, report, artifact, sizeof artifact, &nul.sink, &err);
            cli_out_close(&nul, 1);
        }
        char *cp1[] = {"cp", (char *)summary, dir, NULL};
        char *cp2[] = {"cp", (char *)report, dir, NULL};
        if (code == EXIT_OK && (run_wait(cp1) != 0 || (report && run_wait(cp2) != 0))) {
            fprintf(stderr, "profq: cannot stage the files in %s\n", dir);
            code = EXIT_OUTPUT;
        }
        char qualified[1100];
        snprintf(qualified, sizeof qualified, "%s/%s", project, artifact);
        setenv("WANDB_ENTITY", entity, 1);
        char *pa[8 + 2 * 32];
        int k = 0;
        pa[k++] = wandb;
        pa[k++] = "artifact";
        pa[k++] = "put";
        pa[k++] = "--name";
        pa[k++] = qualified;
        pa[k++] = "--type";
        pa[k++] = "profile_summary";
        for (size_t j = 0; j < naliases; j++) {
            pa[k++] = "--alias";
            pa[k++] = (char *)aliases[j];
        }
        pa[k++] = dir;
        pa[k] = NULL;
        if (code == EXIT_OK) {
            int rc = run_wait(pa);
            if (rc != 0) {
                fprintf(stderr, "profq: wandb artifact put failed (exit %d)\n", rc);
                code = EXIT_OUTPUT;
            }
        }
    }
    if (code == EXIT_OK) {
        pq_error err;
        memset(&err, 0, sizeof err);
        pq_status st = pq_summary_publish_plan(s, dry ? "dry_run" : "published", entity, project,
                                               name, stamp, aliases, naliases, summary, report,
                                               artifact, sizeof artifact, &out.sink, &err);
        code = cli_out_finish(&out, st, &err);
    } else {
        cli_out_close(&out, 0);
    }
    pq_summary_free(s);
    return code;
}
