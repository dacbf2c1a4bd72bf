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

static const char usage[] =
    "profq publish --summary S [--report R] [--entity E] [--project P] [--artifact-name N]\n"
    "              [--alias A]... [--dry-run] [-o FILE]\n"
    "\n"
    "Uploads S (and R) as a W&B artifact of type profile_summary through the official\n"
    "`wandb` command-line client (`wandb artifact put`), which must be on PATH and logged\n"
    "in; without it, exit 2 and a message naming what is missing. Entity and project\n"
    "default to $WANDB_ENTITY / $WANDB_PROJECT, else marin-community / marin; the name to\n"
    "profile-summary-<run_id> or profile-summary-<UTC timestamp>; aliases to latest.\n"
    "Prints {status, entity, project, artifact_name, artifact_type, aliases, summary_path,\n"
    "report_path, metadata} (the seed's metadata keys). --dry-run: status dry_run, no W&B.\n";

enum { OPT_SUMMARY = CLI_OPT_OWN, OPT_REPORT, OPT_ARTIFACT_NAME, OPT_ALIAS, OPT_DRY_RUN };
static const struct option options[] = {
    {"summary", required_argument, NULL, OPT_SUMMARY},
    {"report", required_argument, NULL, OPT_REPORT},
    {"entity", required_argument, NULL, CLI_OPT_ENTITY},
    {"project", required_argument, NULL, CLI_OPT_PROJECT},
    {"artifact-name", required_argument, NULL, OPT_ARTIFACT_NAME},
    {"alias", required_argument, NULL, OPT_ALIAS},
    {"dry-run", no_argument, NULL, OPT_DRY_RUN},
    CLI_LONG_OUTPUT,
    CLI_LONG_END};

/* cp SRC DIR/ through the same child runner (no shell). */
static int copy_into(const char *src, const char *dir)
{
    char cp[4096];
    if (!cli_on_path("cp", cp, sizeof cp))
        return -1;
    char *argv[] = {cp, (char *)src, (char *)dir, NULL};
    return cli_spawn(argv, NULL);
}

typedef struct publish_args {
    const char *summary, *report, *name, *entity, *project;
    const char *aliases[32];
    size_t naliases;
    int dry;
} publish_args;

static int take(void *ctx, int id, const char *v)
{
    publish_args *p = ctx;
    switch (id) {
    case OPT_SUMMARY:
        p->summary = v;
        break;
    case OPT_REPORT:
        p->report = v;
        break;
    case CLI_OPT_ENTITY:
        p->entity = v;
        break;
    case CLI_OPT_PROJECT:
        p->project = v;
        break;
    case OPT_ARTIFACT_NAME:
        p->name = v;
        break;
    case OPT_ALIAS:
        if (p->naliases == 32)
            return cli_usage_error("publish", "--alias needs a value (at most 32)");
        p->aliases[p->naliases++] = v;
        break;
    default:
        p->dry = 1; /* --dry-run */
    }
    return EXIT_OK;
}

static int cmd_publish(int argc, char **argv)
{
    publish_args p;
    memset(&p, 0, sizeof p);
    p.entity = getenv("WANDB_ENTITY");
    p.project = getenv("WANDB_PROJECT");
    const cli_spec spec = {"publish", "o:", options, NULL, take, &p};
    cli_common c;
    int code = cli_parse(&spec, argc, argv, &c);
    if (code == 0 && (c.npaths > 1 || (c.npaths == 1 && p.summary)))
        code = cli_usage_error("publish", "unknown argument '%s'", c.paths[c.npaths - 1]);
    else if (code == 0 && c.npaths == 1)
        p.summary = c.paths[0];
    free(c.paths);
    if (code != 0)
        return code;
    const char *summary = p.summary, *report = p.report, *name = p.name, *out_path = c.out_path;
    const char *entity = p.entity, *project = p.project;
    const char **aliases = p.aliases;
    size_t naliases = p.naliases;
    int dry = p.dry;
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
    code = cli_load_summary(summary, &s);
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

const cli_command cli_cmd_publish = {
    "publish", cmd_publish, "publish a summary as a W&B artifact (official wandb client)", usage};
