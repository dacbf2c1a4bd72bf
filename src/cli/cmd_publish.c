/* cmd_publish.c - `profq publish --summary S`: a W&B artifact of type profile_summary
 * through the official `wandb` command-line client (`wandb artifact put`); no home-made
 * HTTP client. --dry-run prints the plan without W&B. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* cp SRC DIR/ through the same child runner (no shell). */
static int copy_into(const char *src, const char *dir)
{
    char cp[4096];
    if (!cli_on_path("cp", cp, sizeof cp))
        return -1;
    char *argv[] = {cp, (char *)src, (char *)dir, NULL};
    return cli_spawn(argv, NULL);
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
    if (!dry && cli_wandb_ready("publish (--dry-run shows the plan without W&B)", wandb,
                                sizeof wandb) != EXIT_OK)
        return EXIT_USAGE;
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
        if (code == EXIT_OK &&
            (copy_into(summary, dir) != 0 || (report && copy_into(report, dir) != 0))) {
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
            int rc = cli_spawn(pa, NULL);
            if (rc != 0) {
                fprintf(stderr, "profq: wandb artifact put failed (exit %d)\n", rc);
                code = EXIT_OUTPUT;
            }
        }
        cli_remove_tree(dir);
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
