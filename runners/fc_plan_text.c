/*
 * fc_plan_text.c - the plan for people and for files (fc_plan.h): the
 * table `fabcert plan` prints (a line per stage: backend, ranks, groups,
 * work, estimate; under it the sweep and what the stage proves), the few
 * lines `fabcert run` prints at its start, DIR/plan.txt and plan.json; an
 * earlier run's measured stage times beside the estimate (--from DIR);
 * and the command itself, which takes run's own options.
 */
#include "fc_plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_results.h"

void fc_plan_duration(double s, char *buf, size_t len)
{
    long t = (long)(s + 0.5);

    if (t >= 3600)
        snprintf(buf, len, "%ldh%02ldm", t / 3600, (t % 3600 + 30) / 60 % 60);
    else if (t >= 60)
        snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, len, "%lds", t);
}

static long long fc_plan_int(const json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

/* "all_reduce,all_gather" from a list of names; "1 MiB,64 MiB" from one
 * of sizes (sizes), "1,2,4" from one of counts. */
static void fc_plan_list(const json_t *a, int sizes, char *buf, size_t len)
{
    json_t *v;
    size_t i;

    buf[0] = '\0';
    json_array_foreach(a, i, v) {
        char item[64];

        if (json_is_integer(v) && sizes)
            fc_format_size((uint64_t)json_integer_value(v), item, sizeof(item));
        else if (json_is_integer(v))
            snprintf(item, sizeof(item), "%lld", (long long)json_integer_value(v));
        else
            snprintf(item, sizeof(item), "%s", json_string_value(v));
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "," : "", item);
    }
}

/* The stage's groups and work, as one phrase each. */
static void fc_plan_work(const json_t *e, char *groups, size_t glen, char *work, size_t wlen)
{
    json_t *g = json_object_get(e, "groups"), *sw = json_object_get(e, "sweep"), *x;
    char sizes[256] = "", colls[256] = "", dtypes[128] = "", ops[64] = "";

    if (fc_plan_int(g, "largest_ranks") == 1 || json_object_get(e, "rails"))
        snprintf(groups, glen, "%lld %s(s), %lld rank(s) each", fc_plan_int(g, "count"),
                 json_string_value(json_object_get(g, "kind")), fc_plan_int(e,
                                                                           "ranks_per_node"));
    else
        snprintf(groups, glen, "%lld %s(s) of up to %lld ranks", fc_plan_int(g, "count"),
                 json_string_value(json_object_get(g, "kind")), fc_plan_int(g, "largest_ranks"));
    fc_plan_list(json_object_get(sw, "sizes"), 1, sizes, sizeof(sizes));
    work[0] = '\0';
    if ((x = json_object_get(e, "pairs")) != NULL)
        snprintf(work, wlen, "%lld rounds of up to %lld pairs (%s), sizes %s, %lld+%lld "
                 "iterations", fc_plan_int(x, "rounds"), fc_plan_int(x, "concurrent"),
                 json_string_value(json_object_get(x, "mode")), sizes,
                 fc_plan_int(sw, "warmup"), fc_plan_int(sw, "iters"));
    else if ((x = json_object_get(e, "rails")) != NULL)
        snprintf(work, wlen, "%lld rails (%s, %s) at once, %lld rounds each, sizes %s, "
                 "%lld+%lld iterations", fc_plan_int(x, "count"),
                 json_string_value(json_object_get(x, "nics")),
                 json_string_value(json_object_get(x, "transport")), fc_plan_int(x, "rounds"),
                 sizes, fc_plan_int(sw, "warmup"), fc_plan_int(sw, "iters"));
    else if (json_object_get(sw, "collectives") != NULL) {
        fc_plan_list(json_object_get(sw, "collectives"), 0, colls, sizeof(colls));
        fc_plan_list(json_object_get(sw, "dtypes"), 0, dtypes, sizeof(dtypes));
        fc_plan_list(json_object_get(sw, "ops"), 0, ops, sizeof(ops));
        snprintf(work, wlen, "%lld points (%s; %s; %s; %s), %lld+%lld calls%s",
                 fc_plan_int(sw, "points"), colls, dtypes, ops, sizes,
                 fc_plan_int(sw, "warmup"), fc_plan_int(sw, "iters"),
                 json_is_true(json_object_get(sw, "batched")) ? " (+iters batched)" : "");
    } else if (sw != NULL)
        snprintf(work, wlen, "sizes %s, %lld+%lld iterations", sizes,
                 fc_plan_int(sw, "warmup"), fc_plan_int(sw, "iters"));
    else
        snprintf(work, wlen, "each node's inventory against the profile");
    if ((x = json_object_get(e, "series")) != NULL) {
        char counts[128];

        fc_plan_list(x, 0, counts, sizeof(counts));
        snprintf(work + strlen(work), wlen - strlen(work), "; on %s node(s)", counts);
        snprintf(groups, glen, "series of %zu node count(s)", json_array_size(x));
    }
    if ((x = json_object_get(e, "contention")) != NULL) {
        char kinds[128];

        fc_plan_list(json_object_get(x, "kinds"), 0, kinds, sizeof(kinds));
        snprintf(work + strlen(work), wlen - strlen(work), "; %lld phases of >= %.1f s per "
                 "point (%s)", fc_plan_int(x, "phases_per_point"),
                 json_real_value(json_object_get(x, "phase_s")), kinds);
    }
    if ((x = json_object_get(e, "soak")) != NULL) {
        char d[32];

        fc_plan_duration(json_real_value(json_object_get(x, "duration_s")), d, sizeof(d));
        snprintf(work + strlen(work), wlen - strlen(work), "; for %s in windows of %.0f s%s%s",
                 d, json_real_value(json_object_get(x, "window_s")),
                 strcmp(json_string_value(json_object_get(e, "backend")), "mpi") ? ", GEMM burn "
                 : "", strcmp(json_string_value(json_object_get(e, "backend")), "mpi")
                           ? json_string_value(json_object_get(x, "gpu_burn")) : "");
    }
    if ((x = json_object_get(e, "overlap")) != NULL)
        snprintf(work + strlen(work), wlen - strlen(work), "; beside %.0f ms of compute",
                 json_real_value(json_object_get(x, "compute_ms")));
}

void fc_plan_print(const json_t *plan, FILE *f, int full)
{
    json_t *stages = json_object_get(plan, "stages"), *e, *from = json_object_get(plan, "from");
    size_t i, nruns = 0;
    char total[32], d[32];

    json_array_foreach(stages, i, e)
        nruns += json_is_true(json_object_get(e, "runs"));
    fc_plan_duration(json_real_value(json_object_get(plan, "estimate_s")), total, sizeof(total));
    if (!full) {
        fprintf(f, "plan: %zu of %zu stage(s) to run, about %s by the model", nruns,
                json_array_size(stages), total);
        if (from)
            fprintf(f, "; %s scaled from %s",
                    (fc_plan_duration(json_real_value(json_object_get(from, "from_estimate_s")),
                                      d, sizeof(d)), d),
                    json_string_value(json_object_get(from, "dir")));
        fprintf(f, " (the whole plan: plan.txt)\n");
        json_array_foreach(json_object_get(plan, "leaves_out"), i, e)
            if (i < 3)
                fprintf(f, "plan: leaves out: %s\n", json_string_value(e));
        if (json_array_size(json_object_get(plan, "leaves_out")) > 3)
            fprintf(f, "plan: ... and %zu more (plan.txt)\n",
                    json_array_size(json_object_get(plan, "leaves_out")) - 3);
        return;
    }
    fprintf(f, "profile %s (%s, sha256 %.12s), %lld host(s) in %zu rack(s), %s %lld\n",
            json_string_value(json_object_get(plan, "profile")),
            json_string_value(json_object_get(plan, "profile_path")),
            json_string_value(json_object_get(plan, "profile_sha256")),
            fc_plan_int(plan, "hosts"), json_array_size(json_object_get(plan, "racks")) ?: 1,
            json_is_true(json_object_get(plan, "local")) ? "--np" : "--ppn",
            fc_plan_int(plan, json_is_true(json_object_get(plan, "local")) ? "np" : "ppn"));
    fprintf(f, "%-11s %-8s %6s %-30s %9s%s\n", "stage", "backend", "ranks", "groups",
            "estimate", from ? "   measured  scaled" : "");
    json_array_foreach(stages, i, e) {
        char groups[128], work[768], est[32], meas[80] = "";

        fc_plan_work(e, groups, sizeof(groups), work, sizeof(work));
        fc_plan_duration(json_real_value(json_object_get(e, "estimate_s")), est, sizeof(est));
        if (json_object_get(e, "measured_s")) {
            char a[32], b[32];

            fc_plan_duration(json_real_value(json_object_get(e, "measured_s")), a, sizeof(a));
            fc_plan_duration(json_real_value(json_object_get(e, "from_estimate_s")), b,
                             sizeof(b));
            snprintf(meas, sizeof(meas), " %10s %7s", a, b);
        } else if (from)
            snprintf(meas, sizeof(meas), " %10s %7s", "-", "-");
        fprintf(f, "%-11s %-8s %6lld %-30s %9s%s%s\n", json_string_value(json_object_get(e,
                "name")), json_string_value(json_object_get(e, "backend")),
                fc_plan_int(e, "ranks"), groups, json_is_true(json_object_get(e, "runs"))
                ? est : "-", meas, json_is_true(json_object_get(e, "required")) ? ""
                : " (not required)");
        if (!json_is_true(json_object_get(e, "runs")))
            fprintf(f, "            will not run: %s\n",
                    json_string_value(json_object_get(e, "why_not")));
        fprintf(f, "            %s\n", work);
        if (json_object_get(e, "env"))
            fprintf(f, "            sets %s\n", json_string_value(json_object_get(e, "env")));
    }
    fprintf(f, "total: about %s by the model", total);
    if (from) {
        char m[32];

        fc_plan_duration(json_real_value(json_object_get(from, "total_s")), m, sizeof(m));
        fc_plan_duration(json_real_value(json_object_get(from, "from_estimate_s")), d,
                         sizeof(d));
        fprintf(f, "; %s measured in %s (%lld host(s)), %s scaled to this plan", m,
                json_string_value(json_object_get(from, "dir")), fc_plan_int(from, "hosts"), d);
    }
    fprintf(f, "\nmodel: %s\n", json_string_value(json_object_get(json_object_get(plan,
                                                                              "model"),
                                                                   "formula")));
    fprintf(f, "leaves out:%s\n", json_array_size(json_object_get(plan, "leaves_out")) ? ""
                                                                                       : " nothing");
    json_array_foreach(json_object_get(plan, "leaves_out"), i, e)
        fprintf(f, "  - %s\n", json_string_value(e));
    json_array_foreach(json_object_get(plan, "not_applicable"), i, e)
        fprintf(f, "not applicable to this hardware: %s\n", json_string_value(e));
}

int fc_plan_write(const json_t *plan, const char *dir)
{
    char path[PATH_MAX + 32];
    FILE *f;

    snprintf(path, sizeof(path), "%s/plan.txt", dir);
    if ((f = fopen(path, "w")) == NULL) {
        fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fc_plan_print(plan, f, 1);
    if (fclose(f) != 0) {
        fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof(path), "%s/plan.json", dir);
    if (json_dump_file(plan, path, JSON_INDENT(1) | JSON_SORT_KEYS) != 0) {
        fprintf(stderr, "fabcert: cannot write %s\n", path);
        return -1;
    }
    return 0;
}
