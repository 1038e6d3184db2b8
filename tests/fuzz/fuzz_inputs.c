/*
 * fuzz_inputs.c - fuzz targets for everything fabcert reads from outside:
 * Slurm hostlists, host lists and rack maps, the topologies rack maps are
 * read from (Slurm, ibnetdiscover, Kubernetes nodes), threshold profiles, a run's
 * results.jsonl (through verdicts, certificates, the summary and JUnit),
 * and certificates given to `verify`. Each target starts from real inputs
 * (the shipped profiles, the golden runs) and feeds it deterministic
 * mutations: bit flips, bytes and tokens the parsers care about ("[", "-",
 * ":", "{", huge numbers), deleted, duplicated and truncated ranges. The
 * property is the one the project promises for bad input: an error or an
 * answer, never a crash; and for certificates, that any change at all is
 * rejected by verify. Built with AddressSanitizer and UBSan (make
 * check), so a read past a buffer is a crash too.
 *
 *   build/tests/fuzz_inputs.t [ITERATIONS per target, default 2000]
 *
 * Same iterations, same inputs: a failure reproduces with its number.
 * Prints TAP: one point per target, with how many inputs were accepted.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_certificate.h"
#include "fc_inventory.h"
#include "fc_junit.h"
#include "fc_profile.h"
#include "fc_sign.h"
#include "fc_topology.h"
#include "fc_summary.h"
#include "fc_verdict.h"

typedef struct fc_buf {
    char *p;
    size_t n, cap;
} fc_buf_t;

static uint64_t fc_rng = 0x2545F4914F6CDD1Dull;

static uint64_t fc_next(void)
{
    fc_rng ^= fc_rng << 13;
    fc_rng ^= fc_rng >> 7;
    fc_rng ^= fc_rng << 17;
    return fc_rng;
}

static size_t fc_below(size_t n)
{
    return n ? (size_t)(fc_next() % n) : 0;
}

static void fc_buf_set(fc_buf_t *b, const char *p, size_t n)
{
    if (n + 1 > b->cap) {
        b->cap = 2 * (n + 1);
        b->p = realloc(b->p, b->cap);
        if (b->p == NULL)
            abort();
    }
    memcpy(b->p, p, n);
    b->n = n;
    b->p[n] = '\0';
}

static void fc_buf_insert(fc_buf_t *b, size_t at, const char *p, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = 2 * (b->n + n + 1);
        b->p = realloc(b->p, b->cap);
        if (b->p == NULL)
            abort();
    }
    memmove(b->p + at + n, b->p + at, b->n - at);
    memcpy(b->p + at, p, n);
    b->n += n;
    b->p[b->n] = '\0';
}

/* What the parsers split on, count with, or choke on. */
static const char *const fc_tokens[] = {
    "[", "]", "-", ",", ":", "{", "}", "\"", "\n", "#", " ", "\t", "\\", "0",
    "9", "-1", "99999999999999999999", "1e309", "nan", "inf", "0x", "null",
    "true", "[001-999]", "[1-", "]]", "[[", ": ", "- ", "KiB", "GiB", "EiB",
    "\xff\xfe", "\"type\":\"point\"", "\"verdict\":\"FAIL\"", "\"stage\":\"soak\"",
    "{\"a\":[[[[", "&a", "*a", "!!binary", "%s%n", "~", "\xc3\x28",
};
#define FC_NTOKENS (sizeof(fc_tokens) / sizeof(fc_tokens[0]))

/* One to four random edits of seed into out. */
static void fc_mutate(const char *seed, size_t n, fc_buf_t *out)
{
    int edits = 1 + (int)fc_below(4);

    fc_buf_set(out, seed, n);
    for (int e = 0; e < edits; ++e) {
        size_t at = fc_below(out->n + 1), len = 1 + fc_below(16);

        switch (fc_below(7)) {
        case 0:         /* flip a bit */
            if (out->n)
                out->p[fc_below(out->n)] ^= (char)(1u << fc_below(8));
            break;
        case 1: {       /* insert a token */
            const char *t = fc_tokens[fc_below(FC_NTOKENS)];

            fc_buf_insert(out, at, t, strlen(t));
            break;
        }
        case 2:         /* delete a range */
            if (at + len > out->n)
                len = out->n - at;
            memmove(out->p + at, out->p + at + len, out->n - at - len);
            out->n -= len;
            out->p[out->n] = '\0';
            break;
        case 3: {       /* duplicate a range elsewhere */
            size_t from = fc_below(out->n + 1);
            char tmp[64];

            if (from + len > out->n)
                len = out->n - from;
            memcpy(tmp, out->p + from, len);
            fc_buf_insert(out, at, tmp, len);
            break;
        }
        case 4:         /* truncate */
            out->n = at;
            out->p[out->n] = '\0';
            break;
        case 5: {       /* a NUL and a tail after the end: strlen would hide them */
            static const char tail[] = "\0{\"verdict\":\"PASS\"}\n";

            fc_buf_insert(out, out->n, tail, sizeof(tail) - 1);
            break;
        }
        default:        /* overwrite a byte with a token's first byte */
            if (out->n)
                out->p[fc_below(out->n)] = fc_tokens[fc_below(FC_NTOKENS)][0];
            break;
        }
    }
}

static char *fc_slurp(const char *path, size_t *n_p)
{
    FILE *f = fopen(path, "rb");
    char *p;
    long n;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0) {
        fprintf(stderr, "fuzz: cannot read %s\n", path);
        exit(2);
    }
    rewind(f);
    p = malloc((size_t)n + 1);
    if (p == NULL || fread(p, 1, (size_t)n, f) != (size_t)n)
        exit(2);
    p[n] = '\0';
    fclose(f);
    *n_p = (size_t)n;
    return p;
}

static void fc_write(const char *path, const fc_buf_t *b)
{
    FILE *f = fopen(path, "wb");

    if (f == NULL || fwrite(b->p, 1, b->n, f) != b->n) {
        fprintf(stderr, "fuzz: cannot write %s\n", path);
        exit(2);
    }
    fclose(f);
}

static char fc_tmp[256];

static const char *fc_tmp_path(const char *name)
{
    static char path[512];

    snprintf(path, sizeof(path), "%s/%s", fc_tmp, name);
    return path;
}

/* ---- the targets: each returns 1 if the input was accepted ------------- */

static int fc_fuzz_hostlist(const fc_buf_t *in)
{
    char (*names)[FC_INV_NAME_MAX] = NULL, err[256];
    int n = 0, ok = fc_hostlist_expand(in->p, &names, &n, err, sizeof(err)) == FC_OK;

    free(names);
    return ok;
}

static int fc_fuzz_inventory(const fc_buf_t *in)
{
    /* the input holds both files, split at the first form feed */
    fc_inventory_t inv;
    char *racks = strchr(in->p, '\f');
    int ok;

    if (racks)
        *racks++ = '\0';
    ok = fc_inventory_parse(in->p, "hosts", racks, "racks", &inv) == FC_OK;
    if (ok)
        fc_inventory_free(&inv);
    return ok;
}

/* a topology of each format, its rack map read back by the inventory */
static int fc_fuzz_topology(const char *format, const fc_buf_t *in)
{
    fc_topo_t t;
    fc_inventory_t inv;
    char *text;
    int ok;

    if (fc_topo_parse_text(format, in->p, "topology", NULL, &t) != FC_OK)
        return 0;
    text = fc_topo_racks_text(&t);
    ok = fc_inventory_parse(NULL, NULL, text, "racks", &inv) == FC_OK;
    if (ok)
        fc_inventory_free(&inv);
    else        /* an accepted topology must give a rack map the inventory takes */
        abort();
    free(text);
    fc_topo_free(&t);
    return ok;
}

static int fc_fuzz_slurm(const fc_buf_t *in) { return fc_fuzz_topology("slurm", in); }
static int fc_fuzz_ibnet(const fc_buf_t *in) { return fc_fuzz_topology("ibnetdiscover", in); }
static int fc_fuzz_k8s(const fc_buf_t *in) { return fc_fuzz_topology("k8s", in); }

static int fc_fuzz_profile(const fc_buf_t *in)
{
    fc_profile_t profile;

    fc_write(fc_tmp_path("profile.yaml"), in);
    return fc_profile_load(fc_tmp_path("profile.yaml"), &profile) == FC_OK;
}

static int fc_fuzz_results(const fc_buf_t *in)
{
    json_t *records = NULL;
    fc_run_verdict_t v;
    int bad = 0, ok = 0;
    FILE *devnull = fopen("/dev/null", "w");

    fc_write(fc_tmp_path("results.jsonl"), in);
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

static int fc_fuzz_certificate(const fc_buf_t *in)
{
    fc_write(fc_tmp_path("rack1.json"), in);
    return fc_certificate_verify(fc_tmp_path("rack1.json"), NULL, 0) == FC_OK;
}

typedef struct fc_target {
    const char *name;
    int (*run)(const fc_buf_t *in);
    const char *seeds[4];       /* files, or "=" then text */
    int cost;                   /* iterations divided by this */
    int tamper_proof;           /* any change to a seed must be rejected */
} fc_target_t;

static const fc_target_t fc_targets[] = {
    { "Slurm hostlists", fc_fuzz_hostlist,
      { "=gpu[001-016,020]", "=a[01-03,7]b[1-2],c", "=node1,node2,rack-b[9-12]" }, 1, 0 },
    { "host lists and rack maps", fc_fuzz_inventory,
      { "=gpu[001-004]\nlogin1 # a comment\n\fgpu[001-002] rack-a\nrack-b: gpu[003-004] login1\n",
        "=n1\nn2\n\fn1 r1\nn2 r2\n" }, 1, 0 },
    { "Slurm topologies", fc_fuzz_slurm,
      { "tests/fixtures/topology/slurm-show-topology.txt",
        "tests/fixtures/topology/slurm-topology.conf" }, 1, 0 },
    { "ibnetdiscover topologies", fc_fuzz_ibnet,
      { "tests/fixtures/topology/ibnet-rails.txt",
        "tests/fixtures/topology/ibnet-unnamed.txt" }, 4, 0 },
    { "Kubernetes nodes", fc_fuzz_k8s,
      { "tests/fixtures/topology/k8s-nodes.json",
        "tests/fixtures/topology/k8s-nodes-clique.yaml" }, 8, 0 },
    { "threshold profiles", fc_fuzz_profile,
      { "thresholds/local.yaml", "thresholds/vcluster.yaml" }, 4, 0 },
    { "results.jsonl to verdicts, certificates, summary, JUnit", fc_fuzz_results,
      { "tests/golden/report/slow-link/results.jsonl" }, 20, 0 },
    { "certificates given to verify", fc_fuzz_certificate,
      { "tests/golden/report/slow-link/expected/certificates/rack1.json" }, 4, 1 },
};
#define FC_NTARGETS (int)(sizeof(fc_targets) / sizeof(fc_targets[0]))

int main(int argc, char **argv)
{
    long iters = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
    fc_buf_t in = { 0 };
    const char *tmpdir = getenv("TMPDIR");
    FILE *tap;

    if (iters < 1) {
        fprintf(stderr, "usage: %s [ITERATIONS >= 1]\n", argv[0]);
        return 2;
    }
    snprintf(fc_tmp, sizeof(fc_tmp), "%s/fabcert-fuzz.XXXXXX", tmpdir ? tmpdir : "/tmp");
    if (mkdtemp(fc_tmp) == NULL) {
        perror("fuzz: mkdtemp");
        return 2;
    }
    /* TAP on a copy of stdout; the parsers explain every rejected input on
     * stderr and `verify` on stdout: not wanted here */
    tap = fdopen(dup(STDOUT_FILENO), "w");
    if (tap == NULL)
        return 2;
    if (getenv("FUZZ_VERBOSE") == NULL &&
        (freopen("/dev/null", "w", stderr) == NULL || freopen("/dev/null", "w", stdout) == NULL))
        return 2;
    fprintf(tap, "TAP version 13\n1..%d\n", FC_NTARGETS);
    for (int t = 0; t < FC_NTARGETS; ++t) {
        const fc_target_t *tg = &fc_targets[t];
        long n = iters / tg->cost > 50 ? iters / tg->cost : 50, accepted = 0, changed = 0;
        int nseeds = 0;
        char *seed[4];
        size_t len[4];

        for (int s = 0; s < 4 && tg->seeds[s]; ++s, ++nseeds) {
            if (tg->seeds[s][0] == '=') {
                seed[s] = strdup(tg->seeds[s] + 1);
                len[s] = strlen(seed[s]);
            } else {
                seed[s] = fc_slurp(tg->seeds[s], &len[s]);
            }
        }
        /* the seeds themselves first: they must be accepted */
        for (int s = 0; s < nseeds; ++s) {
            fc_buf_set(&in, seed[s], len[s]);
            if (!tg->run(&in)) {
                fprintf(tap, "not ok %d - %s: seed %d is rejected\n", t + 1, tg->name, s);
                goto next;
            }
        }
        for (long i = 0; i < n; ++i) {
            int s = (int)fc_below((size_t)nseeds);

            fc_mutate(seed[s], len[s], &in);
            if (tg->run(&in)) {
                ++accepted;
                if (tg->tamper_proof && (in.n != len[s] || memcmp(in.p, seed[s], in.n) != 0)) {
                    fprintf(tap, "not ok %d - %s: mutation %ld changed the input and "
                            "it was still accepted\n", t + 1, tg->name, i);
                    goto next;
                }
            }
            changed += in.n != len[s] || memcmp(in.p, seed[s], in.n) != 0;
        }
        fprintf(tap, "ok %d - %s: %ld mutated inputs (%ld changed), %ld accepted%s, "
                "none crashed\n", t + 1, tg->name, n, changed, accepted,
                tg->tamper_proof ? " (each one unchanged)" : "");
next:
        for (int s = 0; s < nseeds; ++s)
            free(seed[s]);
        fflush(tap);
    }
    free(in.p);
    unlink(fc_tmp_path("profile.yaml"));
    unlink(fc_tmp_path("results.jsonl"));
    unlink(fc_tmp_path("rack1.json"));
    unlink(fc_tmp_path("junit.xml"));
    rmdir(fc_tmp);
    fclose(tap);
    return 0;
}
