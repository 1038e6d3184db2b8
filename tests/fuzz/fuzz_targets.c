/*
 * fuzz_targets.c - see fuzz_targets.h. What fabcert reads from outside:
 * Slurm hostlists, host lists and rack maps, the topologies rack maps are
 * read from (Slurm, ibnetdiscover, Kubernetes nodes), threshold profiles, a run's
 * results.jsonl (through verdicts, certificates, the summary and JUnit;
 * and as `fabcert report` reads a run directory, against its frozen
 * profile and inventory), certificates given to `verify`, and the frames
 * of the control messages the ranks of a stage exchange (lib/base/fc_ctl_frame.h,
 * lib/base/fc_ctl_check.h). The property is the one the project promises for
 * bad input: an error or an answer, never a crash; for certificates and
 * control frames, that any change at all is rejected.
 */
#include "fuzz_targets.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fc_certificate.h"
#include "fc_ctl_check.h"
#include "fc_ctl_frame.h"
#include "fc_inventory.h"
#include "fc_junit.h"
#include "fc_profile.h"
#include "fc_sign.h"
#include "fc_summary.h"
#include "fc_topology.h"
#include "fc_verdict.h"
#include "fc_verdict_plan.h"

static char fc_tmp[256], fc_rundir[300];

static const char *fc_tmp_path(const char *name)
{
    static char path[512];

    snprintf(path, sizeof(path), "%s/%s", fc_tmp, name);
    return path;
}

static int fc_write(const char *path, const char *p, size_t n)
{
    FILE *f = fopen(path, "wb");

    if (f == NULL || fwrite(p, 1, n, f) != n) {
        fprintf(stderr, "fuzz: cannot write %s\n", path);
        abort();
    }
    return fclose(f);
}

/* A NUL-terminated copy (the parsers take strings). */
static char *fc_dup(const char *p, size_t n)
{
    char *s = malloc(n + 1);

    if (s == NULL)
        abort();
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

static int fc_fuzz_hostlist(const char *p, size_t n)
{
    char (*names)[FC_INV_NAME_MAX] = NULL, err[256], *s = fc_dup(p, n);
    int got = 0, ok = fc_hostlist_expand(s, &names, &got, err, sizeof(err)) == FC_OK;

    free(names);
    free(s);
    return ok;
}

static int fc_fuzz_inventory(const char *p, size_t n)
{
    /* the input holds both files, split at the first form feed */
    fc_inventory_t inv;
    char *s = fc_dup(p, n), *racks = strchr(s, '\f');
    int ok;

    if (racks)
        *racks++ = '\0';
    ok = fc_inventory_parse(s, "hosts", racks, "racks", &inv) == FC_OK;
    if (ok)
        fc_inventory_free(&inv);
    free(s);
    return ok;
}

/* a topology of each format, its rack map read back by the inventory */
static int fc_fuzz_topology(const char *format, const char *p, size_t n)
{
    fc_topo_t t;
    fc_inventory_t inv;
    char *s = fc_dup(p, n), *text;
    int ok;

    if (fc_topo_parse_text(format, s, "topology", NULL, &t) != FC_OK) {
        free(s);
        return 0;
    }
    text = fc_topo_racks_text(&t);
    ok = fc_inventory_parse(NULL, NULL, text, "racks", &inv) == FC_OK;
    if (ok)
        fc_inventory_free(&inv);
    else        /* an accepted topology must give a rack map the inventory takes */
        abort();
    free(text);
    fc_topo_free(&t);
    free(s);
    return ok;
}

static int fc_fuzz_slurm(const char *p, size_t n) { return fc_fuzz_topology("slurm", p, n); }
static int fc_fuzz_ibnet(const char *p, size_t n) { return fc_fuzz_topology("ibnetdiscover", p, n); }
static int fc_fuzz_k8s(const char *p, size_t n) { return fc_fuzz_topology("k8s", p, n); }

static int fc_fuzz_profile(const char *p, size_t n)
{
    fc_profile_t profile;

    fc_write(fc_tmp_path("profile.yaml"), p, n);
    return fc_profile_load(fc_tmp_path("profile.yaml"), &profile) == FC_OK;
}

static int fc_fuzz_results(const char *p, size_t n)
{
    json_t *records = NULL;
    fc_run_verdict_t v;
    int bad = 0, ok = 0;
    FILE *devnull = fopen("/dev/null", "w");

    fc_write(fc_tmp_path("results.jsonl"), p, n);
    if (fc_results_load(fc_tmp_path("results.jsonl"), 0, &records, &bad) == FC_OK &&
        fc_verdict_compute(records, NULL, &v) == FC_OK) {
        for (int r = 0; r < v.nracks; ++r)
            json_decref(fc_certificate_build(&v, &v.racks[r]));
        fc_summary_write(devnull, &v, fc_tmp);
        fc_junit_write(fc_tmp_path("junit.xml"), &v);
        fc_verdict_free(&v);
        ok = 1;
    }
    json_decref(records);
    fclose(devnull);
    return ok;
}

/* `fabcert report`'s reading of a run directory: the records against the
 * frozen profile, plan and inventory (a golden run's). */
static int fc_fuzz_rundir(const char *p, size_t n)
{
    char path[400];
    json_t *records = NULL;
    fc_run_verdict_t v;
    int bad = 0, ok = 0;

    snprintf(path, sizeof(path), "%s/results.jsonl", fc_rundir);
    fc_write(path, p, n);
    if (fc_results_load(path, 0, &records, &bad) == FC_OK &&
        fc_verdict_of_dir(fc_rundir, records, bad, &v) == FC_OK) {
        fc_verdict_free(&v);
        ok = 1;
    }
    json_decref(records);
    return ok;
}

static int fc_fuzz_certificate(const char *p, size_t n)
{
    fc_write(fc_tmp_path("rack1.json"), p, n);
    return fc_certificate_verify(fc_tmp_path("rack1.json"), NULL, 0) == FC_OK;
}

/* A control frame as a rank receives it: a point's summary or a pair's
 * side (by its length) from a world of 64 ranks. An accepted frame must
 * be exactly the sealed form of its payload (nothing in it escaped the
 * check), and its values are then checked as the stage checks them. */
#define FC_FUZZ_SUMMARY "the points' summaries"
#define FC_FUZZ_SIDE "the sides of a round's pairs"
static int fc_fuzz_frame(const char *p, size_t n)
{
    static const size_t lens[2] = { sizeof(fc_point_summary_t), sizeof(fc_pair_side_t) };
    static const char *const whats[2] = { FC_FUZZ_SUMMARY, FC_FUZZ_SIDE };
    char why[256];

    for (int k = 0; k < 2; ++k) {
        fc_ctl_head_t h;
        char *again;

        if (fc_ctl_frame_open(p, n, whats[k], -1, lens[k], why, sizeof(why)) != 0)
            continue;
        memcpy(&h, p, sizeof(h));
        again = malloc(n);
        if (again == NULL)
            abort();
        fc_ctl_frame_seal(again, whats[k], h.from, h.from_world, p + FC_CTL_HEAD, lens[k]);
        if (memcmp(again, p, n) != 0) {
            fprintf(stderr, "fuzz: a frame that is not the sealed form of its payload "
                    "was accepted\n");
            abort();
        }
        free(again);
        if (k == 0) {
            fc_point_summary_t s;

            memcpy(&s, p + FC_CTL_HEAD, sizeof(s));
            (void)fc_ctl_summary_ok(&s, 64);
        } else {
            fc_pair_side_t s;

            memcpy(&s, p + FC_CTL_HEAD, sizeof(s));
            (void)fc_ctl_side_ok(&s, 64, 4);
        }
        return 1;
    }
    return 0;
}

const fc_fuzz_target_t fc_fuzz_targets[] = {
    { "hostlist", "Slurm hostlists", fc_fuzz_hostlist, 1, 0 },
    { "inventory", "host lists and rack maps", fc_fuzz_inventory, 1, 0 },
    { "slurm", "Slurm topologies", fc_fuzz_slurm, 1, 0 },
    { "ibnet", "ibnetdiscover topologies", fc_fuzz_ibnet, 4, 0 },
    { "k8s", "Kubernetes nodes", fc_fuzz_k8s, 8, 0 },
    { "profile", "threshold profiles", fc_fuzz_profile, 4, 0 },
    { "results", "results.jsonl to verdicts, certificates, summary, JUnit", fc_fuzz_results,
      20, 0 },
    { "rundir", "a run directory as report reads it (records, frozen profile, plan, "
      "inventory)", fc_fuzz_rundir, 20, 0 },
    { "certificate", "certificates given to verify", fc_fuzz_certificate, 4, 1 },
    { "frame", "control frames between ranks (summaries, pair sides)", fc_fuzz_frame, 1, 1 },
};
const int fc_fuzz_ntargets = (int)(sizeof(fc_fuzz_targets) / sizeof(fc_fuzz_targets[0]));

const fc_fuzz_target_t *fc_fuzz_find(const char *name)
{
    for (int t = 0; t < fc_fuzz_ntargets; ++t)
        if (strcmp(fc_fuzz_targets[t].name, name) == 0)
            return &fc_fuzz_targets[t];
    return NULL;
}

/* The golden clean run's frozen inputs beside the records under test. */
static int fc_fuzz_copy(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[65536];
    size_t got;
    int rc = 0;

    if (in == NULL || out == NULL)
        rc = -1;
    while (rc == 0 && (got = fread(buf, 1, sizeof(buf), in)) > 0)
        rc = fwrite(buf, 1, got, out) == got ? 0 : -1;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        rc = -1;
    return rc;
}

int fc_fuzz_setup(const char *tmpdir)
{
    static const char *const frozen[] = { "profile.yaml", "hosts", "racks" };
    const char *src = getenv("FC_FUZZ_GOLDEN_RUN");

    snprintf(fc_tmp, sizeof(fc_tmp), "%s/fabcert-fuzz.XXXXXX", tmpdir ? tmpdir : "/tmp");
    if (mkdtemp(fc_tmp) == NULL)
        return -1;
    snprintf(fc_rundir, sizeof(fc_rundir), "%s/run", fc_tmp);
    if (mkdir(fc_rundir, 0700) != 0)
        return -1;
    for (size_t k = 0; k < sizeof(frozen) / sizeof(frozen[0]); ++k) {
        char from[512], to[512];

        snprintf(from, sizeof(from), "%s/%s", src ? src : "tests/golden/report/clean",
                 frozen[k]);
        snprintf(to, sizeof(to), "%s/%s", fc_rundir, frozen[k]);
        if (fc_fuzz_copy(from, to) != 0) {
            fprintf(stderr, "fuzz: cannot copy %s\n", from);
            return -1;
        }
    }
    return 0;
}

void fc_fuzz_cleanup(void)
{
    static const char *const names[] = { "profile.yaml", "results.jsonl", "rack1.json",
                                          "junit.xml", "summary.txt" };
    char cmd[600];

    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); ++k)
        unlink(fc_tmp_path(names[k]));
    /* what the run-directory target left (the frozen copies, its records) */
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fc_tmp);
    if (strchr(fc_tmp, '\'') == NULL && system(cmd) != 0)
        fprintf(stderr, "fuzz: cannot remove %s\n", fc_tmp);
}
