/*
 * fuzz_inputs.c - the deterministic driver of the fuzz targets
 * (fuzz_targets.h): each target starts from its committed seeds
 * (tests/fuzz/corpus/NAME/, the shipped profiles, golden runs; the control
 * frames sealed from the structures as built) and gets deterministic mutations: bit flips, bytes and
 * tokens the parsers care about ("[", "-", ":", "{", huge numbers),
 * deleted, duplicated and truncated ranges. Built with AddressSanitizer
 * and UBSan (make check), so a read past a buffer is a crash too; where
 * clang's libFuzzer is found, tests/fuzz/libfuzzer.t runs the same
 * targets under it for a few seconds each.
 *
 *   build/tests/fuzz_inputs.t [ITERATIONS per target, default 2000]
 *   build/tests/fuzz_inputs.t --frame-seeds DIR   (write the frame seeds)
 *
 * Same iterations, same inputs: a failure reproduces with its number.
 * Prints TAP: one point per target, with how many inputs were accepted
 * and how long it took.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dirent.h>
#include <time.h>

#include "fc_ctl_frame.h"
#include "fc_engine.h"
#include "fc_pairs_stage.h"
#include "fuzz_targets.h"

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

static int fc_name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *fc_frame_seed(int k, size_t *len_p);
#define FC_FRAME_SEEDS 3

/* The seeds of target `name`, in name order (the same order every run);
 * the frame target's are built from the structures as compiled. */
static int fc_seeds(const char *name, char **seed, size_t *len, int max)
{
    char dir[256], path[600], *names[64];
    DIR *d;
    struct dirent *e;
    int n = 0, k = 0;

    if (strcmp(name, "frame") == 0) {   /* built, not read: see fc_frame_seed */
        for (; k < FC_FRAME_SEEDS && k < max; ++k)
            seed[k] = fc_frame_seed(k, &len[k]);
        return k;
    }
    snprintf(dir, sizeof(dir), "tests/fuzz/corpus/%s", name);
    if ((d = opendir(dir)) == NULL) {
        fprintf(stderr, "fuzz: no seeds in %s\n", dir);
        exit(2);
    }
    while ((e = readdir(d)) != NULL && n < 64)
        if (e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof(names[0]), fc_name_cmp);
    for (int i = 0; i < n; ++i) {
        if (k < max) {
            snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
            seed[k] = fc_slurp(path, &len[k]);
            ++k;
        }
        free(names[i]);
    }
    return k;
}

/* The frame target's seed k (0: a summary, 1: a placeholder summary, 2: a
 * pair side), sealed as the ranks seal them, into a new buffer. Built from
 * the structures as compiled, so the seeds follow their layout. */
static const char *const fc_frame_seed_names[FC_FRAME_SEEDS] = { "summary", "placeholder",
                                                                  "side" };
static char *fc_frame_seed(int k, size_t *len_p)
{
    fc_point_summary_t s;
    fc_pair_side_t side;
    size_t len = k == 2 ? sizeof(side) : sizeof(s);
    char *frame = malloc(FC_CTL_HEAD + len);

    if (frame == NULL)
        abort();
    memset(&s, 0, sizeof(s));
    if (k == 0) {
        s.valid = 1;
        snprintf(s.host, sizeof(s.host), "node07");
        s.nranks = 8;
        s.nhosts = 2;
        s.first_world_rank = 8;
        s.bytes = s.count = 65536;
        s.iters = 10;
        s.warmup = 2;
        s.arrival_last_rank = 11;
        snprintf(s.arrival_last_host, sizeof(s.arrival_last_host), "node08");
        s.first_bad_rank = s.disagree_rank = -1;
        s.digest_ranks_agree = s.digest_reps_agree = 1;
        s.samples.n = 2;
        s.samples.of = 10;
        s.samples.s[0] = s.samples.s[1] = 1e-4;
    }
    memset(&side, 0, sizeof(side));
    side.node = 3;
    side.partner = 5;
    side.size_index = 1;
    side.valid = 1;
    side.first_iter = -1;
    side.median_s = 1e-3;
    fc_ctl_frame_seal(frame, k == 2 ? "the sides of a round's pairs" : "the points' summaries",
                      k == 2 ? 3 : 8, k == 2 ? 12 : 8, k == 2 ? (void *)&side : (void *)&s, len);
    *len_p = FC_CTL_HEAD + len;
    return frame;
}

/* --frame-seeds DIR: the frame seeds as files (libFuzzer's corpus). */
static int fc_frame_seeds(const char *dir)
{
    char path[600];
    FILE *f;

    for (int k = 0; k < FC_FRAME_SEEDS; ++k) {
        size_t len;
        char *frame = fc_frame_seed(k, &len);

        snprintf(path, sizeof(path), "%s/%s", dir, fc_frame_seed_names[k]);
        if ((f = fopen(path, "wb")) == NULL || fwrite(frame, 1, len, f) != len ||
            fclose(f) != 0) {
            perror(path);
            free(frame);
            return 2;
        }
        free(frame);
    }
    return 0;
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
    fc_buf_t in = { 0 };
    FILE *tap;

    if (argc > 2 && strcmp(argv[1], "--frame-seeds") == 0)
        return fc_frame_seeds(argv[2]);
    if (iters < 1) {
        fprintf(stderr, "usage: %s [ITERATIONS >= 1]\n", argv[0]);
        return 2;
    }
    if (fc_fuzz_setup(getenv("TMPDIR")) != 0) {
        perror("fuzz: the scratch directory");
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
    fprintf(tap, "TAP version 13\n1..%d\n", fc_fuzz_ntargets);
    for (int t = 0; t < fc_fuzz_ntargets; ++t) {
        const fc_fuzz_target_t *tg = &fc_fuzz_targets[t];
        long n = iters / tg->cost > 50 ? iters / tg->cost : 50, accepted = 0, changed = 0;
        char *seed[16];
        size_t len[16];
        int nseeds = fc_seeds(tg->name, seed, len, 16);
        struct timespec t0, t1;

        clock_gettime(CLOCK_MONOTONIC, &t0);
        /* the seeds themselves first: they must be accepted */
        for (int s = 0; s < nseeds; ++s)
            if (!tg->run(seed[s], len[s])) {
                fprintf(tap, "not ok %d - %s: seed %d is rejected\n", t + 1, tg->label, s);
                goto next;
            }
        for (long i = 0; i < n; ++i) {
            int s = (int)fc_below((size_t)nseeds);

            fc_mutate(seed[s], len[s], &in);
            if (tg->run(in.p, in.n)) {
                ++accepted;
                if (tg->tamper_proof && (in.n != len[s] || memcmp(in.p, seed[s], in.n) != 0)) {
                    fprintf(tap, "not ok %d - %s: mutation %ld changed the input and "
                            "it was still accepted\n", t + 1, tg->label, i);
                    goto next;
                }
            }
            changed += in.n != len[s] || memcmp(in.p, seed[s], in.n) != 0;
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        fprintf(tap, "ok %d - %s: %ld mutated inputs (%ld changed), %ld accepted%s, "
                "none crashed, %.2f s\n", t + 1, tg->label, n, changed, accepted,
                tg->tamper_proof ? " (each one unchanged)" : "",
                (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
next:
        for (int s = 0; s < nseeds; ++s)
            free(seed[s]);
        fflush(tap);
    }
    free(in.p);
    fc_fuzz_cleanup();
    fclose(tap);
    return 0;
}
