/*
 * fc_baseline.c - `fabcert baseline` (fc_baseline.h): the runs read and
 * checked (each must PASS every rack), the source profile (the first
 * run's frozen profile.yaml), and the profile written: its header (the
 * runs, their digests and overrides, the rule), and per derived stage the
 * source's settings, the sweep the runs measured, and the relative rule
 * and limits of fc_baseline_rules.c. The output depends on the runs
 * alone (no clock, no path but the ones given): the same runs give the
 * same file, which is loaded again as check-profile would before it is
 * reported valid.
 */
#include "fc_baseline_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_profile.h"
#include "fc_record.h"
#include "fc_sign.h"
#include "fc_verdict.h"
#include "fc_verdict_plan.h"
#include "fc_version.h"

json_int_t fc_bl_requested(json_t *rec)
{
    json_t *v = json_object_get(rec, "requested_bytes");

    return json_integer_value(v ? v : json_object_get(rec, "bytes"));
}

int fc_bl_point_of(json_t *rec, int s)
{
    return fc_record_id(rec) == FC_RECORD_POINT && !json_object_get(rec, "soak") &&
           strcmp(fc_json_str(rec, "stage"), fc_stage_name((fc_stage_id_t)s)) == 0 &&
           json_number_value(json_object_get(json_object_get(rec, "time_us"), "median")) > 0;
}

/* A size as a profile writes it: "64KiB" when a whole number of a
 * binary unit, else bytes. */
void fc_bl_size(uint64_t z, char *buf, size_t len)
{
    static const char *const units[] = { "GiB", "MiB", "KiB" };

    for (int u = 0; u < 3; ++u) {
        uint64_t unit = 1ull << (10 * (3 - u));

        if (z >= unit && z % unit == 0) {
            snprintf(buf, len, "%llu%s", (unsigned long long)(z / unit), units[u]);
            return;
        }
    }
    snprintf(buf, len, "%llu", (unsigned long long)z);
}

/* The distinct values of what a stage measured, in the order of their
 * table (from_name) or of size: "[a, b]". */
static void fc_bl_list(FILE *f, const char *key, json_t *set, int (*from_name)(const char *))
{
    const char *name;
    json_t *v;
    int first = 1;

    fprintf(f, "    %s: [", key);
    for (int id = 0; id < 64; ++id)
        json_object_foreach(set, name, v)
            if (from_name(name) == id) {
                fprintf(f, "%s%s", first ? "" : ", ", name);
                first = 0;
            }
    fprintf(f, "]\n");
}

static void fc_bl_sizes(FILE *f, json_t *sizes)
{
    uint64_t z[FC_PROFILE_MAX_SIZES];
    const char *name;
    json_t *v;
    int n = 0;

    json_object_foreach(sizes, name, v)
        if (n < FC_PROFILE_MAX_SIZES)
            z[n++] = strtoull(name, NULL, 10);
    for (int i = 1; i < n; ++i)         /* a handful: insertion sort */
        for (int j = i; j > 0 && z[j] < z[j - 1]; --j) {
            uint64_t t = z[j];

            z[j] = z[j - 1];
            z[j - 1] = t;
        }
    fprintf(f, "    sizes: [");
    for (int i = 0; i < n; ++i) {
        char text[32];

        fc_bl_size(z[i], text, sizeof(text));
        fprintf(f, "%s%s", i ? ", " : "", text);
    }
    fprintf(f, "]\n");
}

/* What the stage's records say it swept; 0 when it measured nothing. */
static int fc_bl_sweep(const fc_baseline_t *bl, int s, FILE *f)
{
    json_t *sizes = json_object(), *colls = json_object(), *dtypes = json_object();
    json_t *ops = json_object(), *rec, *z, *ov;
    int iters = 0, warmup = -1, n = 0;
    size_t i, k;

    for (int r = 0; r < bl->nruns; ++r)
        json_array_foreach(bl->runs[r].records, i, rec) {
            char size[32];

            if (fc_bl_pairs(s) && fc_record_id(rec) == FC_RECORD_PAIR) {
                json_array_foreach(json_object_get(rec, "sizes"), k, z) {
                    json_int_t of = json_integer_value(json_object_get(json_object_get(
                        z, "samples"), "of"));

                    snprintf(size, sizeof(size), "%lld",
                             (long long)json_integer_value(json_object_get(z, "bytes")));
                    json_object_set_new(sizes, size, json_true());
                    iters = of > iters ? (int)of : iters;
                    ++n;
                }
            } else if (!fc_bl_pairs(s) && fc_bl_point_of(rec, s)) {
                snprintf(size, sizeof(size), "%lld", (long long)fc_bl_requested(rec));
                json_object_set_new(sizes, size, json_true());
                json_object_set_new(colls, fc_json_str(rec, "collective"), json_true());
                json_object_set_new(dtypes, fc_json_str(rec, "dtype"), json_true());
                if (fc_reduce_op_from_name(fc_json_str(rec, "op")) >= 0)
                    json_object_set_new(ops, fc_json_str(rec, "op"), json_true());
                iters = (int)fmax(iters, json_integer_value(json_object_get(rec, "iters")));
                warmup = (int)fmax(warmup, json_integer_value(json_object_get(rec, "warmup")));
                ++n;
            }
        }
    if (n > 0) {
        const fc_stage_profile_t *sp = &bl->src.stages[s];

        /* pairs records do not say their warm-up: the source's, or the
         * runs' --warmup */
        ov = json_object_get(bl->runs[0].overrides, "--warmup");
        if (warmup < 0)
            warmup = json_is_string(ov) ? atoi(json_string_value(ov)) : sp->warmup;
        fprintf(f, "    warmup: %d\n    iters: %d\n", warmup, iters > 0 ? iters : sp->iters);
        fc_bl_sizes(f, sizes);
        if (!fc_bl_pairs(s)) {
            fc_bl_list(f, "collectives", colls, fc_coll_from_name);
            fc_bl_list(f, "dtypes", dtypes, fc_dtype_from_name);
            if (json_object_size(ops) > 0)
                fc_bl_list(f, "ops", ops, fc_reduce_op_from_name);
        }
    }
    json_decref(sizes);
    json_decref(colls);
    json_decref(dtypes);
    json_decref(ops);
    return n;
}

static void fc_bl_stage(const fc_baseline_t *bl, int s, FILE *f)
{
    const fc_stage_profile_t *sp = &bl->src.stages[s];
    const fc_stage_desc_t *d = fc_stage_desc((fc_stage_id_t)s);
    char where[600] = "";
    double worst;

    fprintf(f, "  %s:\n    required: %s\n    timeout_s: %.6g\n", fc_stage_name((fc_stage_id_t)s),
            sp->present && !sp->required ? "false" : "true", sp->present ? sp->timeout_s : 900);
    fc_bl_sweep(bl, s, f);
    fprintf(f, "    max_wrong: 0\n");
    if (sp->present && sp->backend[0] && (d->sections & FC_SECT_BACKEND))
        fprintf(f, "    backend: %s\n", sp->backend);
    if (d->sections & FC_SECT_RELATIVE) {
        worst = fc_bl_relative(bl, s, where, sizeof(where));
        if (worst == -INFINITY) {
            fprintf(f, "    # no relative rule: no group had a peer of its shape in these runs\n");
        } else {
            double pct = 100 * (1 - (1 - fmax(worst, 0)) / (1 + bl->margin));

            pct = fmin(95, fmax(pct, 100 * bl->margin));
            fprintf(f, "    relative:\n      # the worst group: %s;\n      # allowed: 1 - "
                    "(1 - %.1f%%) / (1 + margin %.4g%%), at least the margin, at most 95%%\n"
                    "      max_below_median_pct: %.1f\n", where, 100 * fmax(worst, 0),
                    100 * bl->margin, ceil(pct * 10) / 10);
            if (sp->relative_min_bytes > 0) {
                char size[32];

                fc_bl_size(sp->relative_min_bytes, size, sizeof(size));
                fprintf(f, "      min_bytes: %s\n", size);
            }
        }
    }
    fc_bl_limits(bl, s, f);
}

/* A run to derive from: read whole, and every rack of it PASSed. */
static fc_status_t fc_bl_load(const char *dir, fc_bl_run_t *run)
{
    char path[4200];
    fc_run_verdict_t v;
    int bad = 0;
    fc_status_t st = FC_ERR_INVALID;

    run->dir = dir;
    snprintf(path, sizeof(path), "%s/results.jsonl", dir);
    if (fc_sha256_file(path, "results file", run->sha256) != FC_OK ||
        fc_results_load(path, 0, &run->records, &bad) != FC_OK)
        return FC_ERR_INVALID;
    if (fc_verdict_of_dir(dir, run->records, bad, &v) != FC_OK) {
        fprintf(stderr, "fabcert: %s: not a run to derive a baseline from (above)\n", dir);
        return FC_ERR_INVALID;
    }
    snprintf(run->run_id, sizeof(run->run_id), "%s", v.run_id);
    run->overrides = json_deep_copy(json_object_get(v.plan, "overrides"));
    for (int k = 0; k < v.nracks; ++k)
        if (v.racks[k].verdict != FC_VERDICT_PASS || bad > 0) {
            fprintf(stderr, "fabcert: %s: run %s is not healthy: rack %s is %s%s (a baseline "
                    "is derived from runs that PASS every rack; a fault in one would become "
                    "its limits)\n", dir, v.run_id, v.racks[k].rack,
                    fc_verdict_name(v.racks[k].verdict), bad ? ", and records could not be "
                    "read" : "");
            goto out;
        }
    st = FC_OK;
out:
    fc_verdict_free(&v);
    return st;
}

/* s with control characters shown as '?' (a comment stays one line). */
static void fc_bl_text(FILE *f, const char *s)
{
    for (; *s; ++s)
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

/* s as a double-quoted YAML scalar. */
static void fc_bl_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s)
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else
            fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
    fputc('"', f);
}

static void fc_bl_header(const fc_baseline_t *bl, FILE *f, const char *out, const char *name)
{
    fprintf(f, "# ");
    fc_bl_text(f, out);
    fprintf(f, " - derived by `fabcert baseline` (fabcert %s) from %d healthy run(s)\n"
            "# of the profile ", FC_VERSION, bl->nruns);
    fc_bl_text(f, bl->src.name);
    fprintf(f, " (sha256 %s):\n", bl->src.sha256);
    for (int r = 0; r < bl->nruns; ++r) {
        const char *k;
        json_t *v;

        fprintf(f, "#   run ");
        fc_bl_text(f, bl->runs[r].run_id);
        fprintf(f, " (");
        fc_bl_text(f, bl->runs[r].dir);
        fprintf(f, "), results.jsonl sha256 %s", bl->runs[r].sha256);
        json_object_foreach(bl->runs[r].overrides, k, v)
            if (json_is_string(v)) {
                fprintf(f, ", ");
                fc_bl_text(f, k);
                fprintf(f, " ");
                fc_bl_text(f, json_string_value(v));
            }
        fprintf(f, "\n");
    }
    fprintf(f, "# Each limit: the slowest median any group measured in any run, and the\n"
            "# lowest bandwidth, widened by a margin m = the largest of --margin (%.4g%%),\n"
            "# 3 x the spread of the medians across groups within a run, 2 x the largest\n"
            "# run-to-run difference, and 4 x the iteration noise of a median\n"
            "# (docs/operators-guide.md, \"Baselines\"); relative rules from the worst\n"
            "# group below its peers.\n",
            100 * bl->margin);
    {
        int first = 1;

        for (int s = 0; s < FC_STAGE_COUNT; ++s)
            if (bl->src.stages[s].present &&
                fc_stage_desc((fc_stage_id_t)s)->baseline == FC_BASELINE_NONE) {
                fprintf(f, "%s%s", first ? "# Not derived (copy them from the source profile "
                        "to run them): " : ", ", fc_stage_name((fc_stage_id_t)s));
                first = 0;
            }
        if (!first)
            fprintf(f, "\n");
    }
    {
        char desc[300];

        snprintf(desc, sizeof(desc), "derived from %d run(s) of %s by fabcert baseline",
                 bl->nruns, bl->src.name);
        fprintf(f, "name: ");
        fc_bl_quoted(f, name);
        fprintf(f, "\ndescription: ");
        fc_bl_quoted(f, desc);
        fprintf(f, "\nseed: %u\n", bl->src.seed);
    }
    if (bl->src.require_signature)
        fprintf(f, "certificates: {require_signature: true}\n");
    fprintf(f, "stages:\n");
}

fc_status_t fc_baseline_derive(const char *const *dirs, int nruns, const char *out_path,
                               double margin, const char *name)
{
    fc_baseline_t bl;
    fc_status_t st = FC_ERR_INVALID;
    char path[4200], dname[160], *text = NULL;
    size_t len = 0;
    FILE *f = NULL, *mem;
    fc_profile_t check;
    int stages = 0;

    memset(&bl, 0, sizeof(bl));
    bl.margin = margin;
    bl.runs = fc_xcalloc((size_t)nruns, sizeof(*bl.runs), "the baseline's runs");
    for (; bl.nruns < nruns; ++bl.nruns)
        if (fc_bl_load(dirs[bl.nruns], &bl.runs[bl.nruns]) != FC_OK) {
            ++bl.nruns;
            goto out;
        }
    snprintf(path, sizeof(path), "%s/profile.yaml", dirs[0]);
    if (fc_profile_load(path, &bl.src) != FC_OK)
        goto out;
    snprintf(dname, sizeof(dname), "baseline-%.100s", bl.src.name);
    if ((mem = open_memstream(&text, &len)) == NULL)
        goto out;
    fc_bl_header(&bl, mem, out_path, name ? name : dname);
    for (int s = 0; s < FC_STAGE_COUNT; ++s) {
        FILE *probe;
        int n;

        if (fc_stage_desc((fc_stage_id_t)s)->baseline == FC_BASELINE_NONE)
            continue;
        probe = fopen("/dev/null", "w");
        n = probe ? fc_bl_sweep(&bl, s, probe) : 0;
        if (probe)
            fclose(probe);
        if (n == 0)
            continue;
        fc_bl_stage(&bl, s, mem);
        ++stages;
    }
    fclose(mem);
    if (stages == 0) {
        fprintf(stderr, "fabcert: baseline: the runs measured nothing to derive limits from "
                "(no node, pairs, rack or cluster stage)\n");
        goto out;
    }
    if ((f = fopen(out_path, "w")) == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "fabcert: cannot write %s: %s\n", out_path, strerror(errno));
        f = NULL;
        goto out;
    }
    f = NULL;
    /* what run and check-profile will make of it */
    if (fc_profile_load(out_path, &check) != FC_OK) {
        fprintf(stderr, "fabcert: %s: the derived profile does not load (above): a fault of "
                "fabcert baseline\n", out_path);
        st = FC_ERR_INTERNAL;
        goto out;
    }
    printf("%s: profile '%s' derived from %d run(s), %d stage(s); valid; sha256 %s\n",
           out_path, check.name, nruns, stages, check.sha256);
    st = FC_OK;
out:
    free(text);
    for (int r = 0; r < bl.nruns; ++r) {
        json_decref(bl.runs[r].records);
        json_decref(bl.runs[r].overrides);
    }
    free(bl.runs);
    return st;
}
