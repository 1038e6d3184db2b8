/*
 * fc_plan_cmd.c - `fabcert plan` (fc_plan.h): run's own options (the
 * profile, the inventory, --ppn or --np, --stages, the sweep overrides,
 * --soak-duration, --backend) read by run's own parser, so a plan is
 * exactly the run that command line would make; --from DIR puts an
 * earlier run's measured stage times beside the model's (fc_plan_from),
 * --json prints the plan as JSON. And, for `fabcert run`, the plan at the
 * start of a run (fc_run_plan_start). Nothing is launched or written.
 */
#include "fc_plan.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_input.h"

/* The stage's time in DIR: the runner's stage_done seconds (launches and
 * attempts included), else the sum of its attempts' stage_end seconds. */
typedef struct fc_plan_measured {
    json_t *done, *ends;        /* stage name -> seconds */
    int hosts;                  /* DIR's plan: its inventory's hosts */
} fc_plan_measured_t;

/* Read DIR/results.jsonl: 0, or 2 naming the file and line. */
static int fc_plan_read_results(const char *dir, fc_plan_measured_t *m)
{
    char path[PATH_MAX + 32], *line = NULL;
    size_t cap = 0;
    ssize_t got;
    long lineno = 0;
    int rc = 0;
    FILE *f;

    snprintf(path, sizeof(path), "%s/results.jsonl", dir);
    if ((f = fc_input_fopen(path, "results file", FC_INPUT_RESULTS_MAX)) == NULL) {
        fprintf(stderr, "fabcert: --from %s: not a run's output directory\n", dir);
        return 2;
    }
    m->hosts = -1;
    while (rc == 0 && (got = getline(&line, &cap, f)) > 0) {
        json_error_t err;
        json_t *rec;
        const char *type, *stage;

        ++lineno;
        if (memchr(line, '\0', (size_t)got) != NULL) {
            fprintf(stderr, "fabcert: %s:%ld: a NUL byte in the record\n", path, lineno);
            rc = 2;
            break;
        }
        if (line[strspn(line, " \t\r\n")] == '\0')
            continue;
        if ((rec = json_loads(line, JSON_REJECT_DUPLICATES, &err)) == NULL ||
            !json_is_object(rec)) {
            fprintf(stderr, "fabcert: %s:%ld: not a JSON record (%s)\n", path, lineno,
                    rec ? "not an object" : err.text);
            json_decref(rec);
            rc = 2;
            break;
        }
        type = json_string_value(json_object_get(rec, "type"));
        stage = json_string_value(json_object_get(rec, "stage"));
        if (type && strcmp(type, "plan") == 0)
            m->hosts = (int)json_array_size(json_object_get(json_object_get(rec, "inventory"),
                                                            "hosts"));
        else if (type && stage && strcmp(type, "stage_done") == 0 &&
                 json_is_number(json_object_get(rec, "seconds")))
            json_object_set_new(m->done, stage, json_real(json_number_value(
                                    json_object_get(rec, "seconds"))));
        else if (type && stage && strcmp(type, "stage_end") == 0 &&
                 json_is_number(json_object_get(rec, "seconds")))
            json_object_set_new(m->ends, stage, json_real(
                                    json_number_value(json_object_get(m->ends, stage)) +
                                    json_number_value(json_object_get(rec, "seconds"))));
        json_decref(rec);
    }
    free(line);
    fclose(f);
    if (rc == 0 && m->hosts < 0) {
        fprintf(stderr, "fabcert: --from %s: %s:1: no plan record: not the results of a run\n",
                dir, path);
        rc = 2;
    }
    return rc;
}

/* DIR's own estimate of a stage, from its plan.json (absent: -1). */
static double fc_plan_then(const json_t *then, const char *name)
{
    json_t *e;
    size_t i;

    json_array_foreach(json_object_get(then, "stages"), i, e)
        if (strcmp(json_string_value(json_object_get(e, "name")), name) == 0)
            return json_real_value(json_object_get(e, "estimate_s"));
    return -1;
}

int fc_plan_from(json_t *plan, const char *dir)
{
    fc_plan_measured_t m = { json_object(), json_object(), -1 };
    char path[PATH_MAX + 32];
    json_t *then = NULL, *e;
    char *text = NULL;
    double total = 0, scaled_total = 0;
    size_t i;
    int rc;

    if ((rc = fc_plan_read_results(dir, &m)) != 0)
        goto out;
    snprintf(path, sizeof(path), "%s/plan.json", dir);
    if (access(path, F_OK) == 0) {     /* there: it must be read, not passed over */
        json_error_t err;
        size_t len = 0;

        if (fc_input_read(path, "plan", FC_INPUT_DOC_MAX, &text, &len) != FC_OK ||
            (then = json_loadb(text, len, 0, &err)) == NULL) {
            if (text)
                fprintf(stderr, "fabcert: %s:%d: not the plan `fabcert run` wrote (%s)\n",
                        path, err.line, err.text);
            free(text);
            rc = 2;
            goto out;
        }
    }
    free(text);
    json_array_foreach(json_object_get(plan, "stages"), i, e) {
        const char *name = json_string_value(json_object_get(e, "name"));
        json_t *v = json_object_get(m.done, name);
        double now = json_real_value(json_object_get(e, "estimate_s")), t, was;

        if (v == NULL)
            v = json_object_get(m.ends, name);
        if (v == NULL || !json_is_true(json_object_get(e, "runs"))) {
            scaled_total += now;
            continue;
        }
        t = json_real_value(v);
        was = then ? fc_plan_then(then, name) : -1;
        json_object_set_new(e, "measured_s", json_real(t));
        json_object_set_new(e, "measured_as", json_string(json_object_get(m.done, name)
                                                          ? "stage_done" : "stage_end"));
        json_object_set_new(e, "from_estimate_s", json_real(was > 0 ? t * now / was : t));
        total += t;
        scaled_total += was > 0 ? t * now / was : t;
    }
    json_object_set_new(plan, "from", json_pack("{s:s, s:i, s:f, s:f, s:s}", "dir", dir,
                        "hosts", m.hosts, "total_s", total, "from_estimate_s", scaled_total,
                        "scaled", then ? "each stage's time x this plan's estimate / the "
                        "run's own (its plan.json); a stage it did not run: the model's"
                        : "as measured (the run has no plan.json); a stage it did not run: "
                          "the model's"));
out:
    json_decref(m.done);
    json_decref(m.ends);
    json_decref(then);
    return rc;
}

/* The inventory the run would have: the files given, else the Slurm
 * allocation's nodes, else this machine. Nothing is written. */
static int fc_plan_inventory(fc_run_state_t *st)
{
    const char *slurm = getenv("SLURM_JOB_NODELIST");
    char host[256] = "";

    if (st->o.hosts[0] || st->o.racks[0])
        return fc_run_parse_inventory(st) == FC_OK ? 0 : 2;
    if (!(slurm && slurm[0])) {
        gethostname(host, sizeof(host) - 1);
        st->o.local = 1;
    }
    return fc_inventory_parse(slurm && slurm[0] ? slurm : host, slurm && slurm[0]
                              ? "SLURM_JOB_NODELIST" : "this host", NULL, NULL, &st->inv)
                   == FC_OK ? 0 : 2;
}

int fc_cmd_plan(int argc, char **argv)
{
    char **rest = fc_xcalloc((size_t)argc + 1, sizeof(*rest), "the plan's options");
    const char *from = NULL;
    fc_run_state_t *st = fc_xcalloc(1, sizeof(*st), "the plan's state");
    int n = 0, json = 0, rc;
    json_t *plan = NULL;

    rest[n++] = argv[0];
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--from") == 0 && i + 1 < argc)
            from = argv[++i];
        else if (strcmp(argv[i], "--from") == 0) {
            fprintf(stderr, "fabcert: plan: --from needs a run's output directory\n");
            rc = 2;
            goto out;
        } else
            rest[n++] = argv[i];
    }
    if ((rc = fc_parse_run(n, rest, &st->o)) != 0)
        goto out;
    if (st->o.resume || st->o.rerun_dir[0]) {
        fprintf(stderr, "fabcert: plan: --resume and --rerun-failed continue a run; plan "
                "the run itself (--profile, --hosts, --racks)\n");
        rc = 2;
        goto out;
    }
    if ((rc = fc_run_load_profile(st)) != 0 || (rc = fc_plan_inventory(st)) != 0)
        goto out;
    plan = fc_plan_build(st);
    if (from && (rc = fc_plan_from(plan, from)) != 0)
        goto out;
    if (json)
        json_dumpf(plan, stdout, JSON_COMPACT | JSON_SORT_KEYS);   /* one line: JSONL */
    else
        fc_plan_print(plan, stdout, 1);
    if (json)
        printf("\n");
out:
    json_decref(plan);
    if (st->inv.nhosts > 0)
        fc_inventory_free(&st->inv);
    free(st);
    free(rest);
    return rc;
}

int fc_run_plan_start(const fc_run_state_t *st)
{
    json_t *plan = fc_plan_build(st);
    int rc = fc_plan_write(plan, st->o.out_dir);

    fc_plan_print(plan, stdout, 0);
    json_decref(plan);
    return rc;
}
