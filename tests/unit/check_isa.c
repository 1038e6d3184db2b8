/*
 * check_isa.c - the CPU checker's three builds (kernels/fc_check_isa.h:
 * AVX-512, AVX2, baseline) compute one function. For each build this CPU
 * can run (the others are skipped), every type, op and a range of rank
 * counts, in index ranges at 0, across element index 2^32 and across the
 * 2^32 boundary of the group index (element 2^34 for uint8, 2^33 for the
 * 16-bit types), each starting off a group boundary:
 *  - a clean buffer, built element by element from fc_pattern.h's
 *    definition, verifies with no wrong element (so every vectorised
 *    shortcut of the builds equals the definition on every word);
 *  - one bit flipped at the start, the middle, the end and at the boundary
 *    element is found: the count, the first position and its bits are
 *    exact, and the same in every build;
 *  - a buffer with about a third of its elements damaged, often several in
 *    one word, gives the count a scalar comparison gives;
 * plus one uint8 buffer longer than one count call (FC_CHECK_CHUNK_WORDS
 * words) with flips on both sides of the seam; and the digest of every
 * build equals libxxhash's XXH3_64bits on lengths around the vector and
 * block sizes, and changes with any single flipped bit; and the check of a
 * buffer a call must leave alone (fc_cpu_verify_untouched) counts changed
 * elements, not bytes, and names the first with its bits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "fc_check_isa.h"
#include "fc_kernels.h"
#include "fc_pattern_host.h"
#include "fc_tap.h"
#include "fc_test_reduce.h"

#define ELEMS (4096 + 13)

static const int rank_counts[] = { 1, 2, 3, 8, 64, 300 };
#define NCOUNTS ((int)(sizeof(rank_counts) / sizeof(rank_counts[0])))

static uint64_t load(const void *buf, size_t es, size_t k)
{
    uint64_t v = 0;

    memcpy(&v, (const uint8_t *)buf + k * es, es);
    return v;
}

static void store(void *buf, size_t es, size_t k, uint64_t v)
{
    memcpy((uint8_t *)buf + k * es, &v, es);
}

static void build(const fc_pattern_t *p, int32_t src, uint64_t base, void *buf, size_t n)
{
    size_t es = fc_dtype_info(p->dtype)->size;

    for (size_t k = 0; k < n; ++k)
        store(buf, es, k, fc_pattern_expected_bits(p, src, base + k));
}

static int same_mismatch(const fc_mismatch_t *a, const fc_mismatch_t *b)
{
    return a->wrong == b->wrong && (a->wrong == 0 ||
           (a->first_pos == b->first_pos && a->expected_bits == b->expected_bits &&
            a->actual_bits == b->actual_bits));
}

/* The index ranges of one type: their first indices. */
static void bases_of(int dt, uint64_t bases[3])
{
    int s = fc_dtype_pack_shift(dt);

    bases[0] = 3;
    bases[1] = (1ull << 32) - ELEMS / 2 + 1;
    bases[2] = (1ull << (32 + s)) - ELEMS / 2 + 1;
}

/* Clean, one flip at each of four places, and heavy damage, for one
 * (build, type): 0 if all hold; results of the flips into *flips. */
static int check_type(fc_tap_t *tap, int isa, int dt, uint64_t *rng, void *buf,
                      fc_mismatch_t flips[FC_OP_COUNT][NCOUNTS][3][4])
{
    size_t es = fc_dtype_info(dt)->size;
    uint64_t bases[3];
    int bad = 0;

    bases_of(dt, bases);
    for (int op = 0; op < FC_OP_COUNT; ++op) {
        for (int c = 0; c < NCOUNTS; ++c) {
            fc_pattern_t p;

            fc_pattern_make(dt, op, rank_counts[c], 77u + (uint32_t)(c * 5 + op), &p);
            for (int b = 0; b < 3; ++b) {
                size_t at[4] = { 0, ELEMS / 2, ELEMS - 1, ELEMS / 2 - 1 };
                fc_mismatch_t m = { 0, 0, 0, 0 };
                uint64_t scalar = 0;

                build(&p, 2, bases[b], buf, ELEMS);
                fc_cpu_verify(&p, 2, bases[b], buf, ELEMS, 100, &m);
                if (m.wrong != 0 && bad++ < 5)
                    fc_tap_diag(tap, "%s %s %s n=%d base %llu: clean buffer, %llu wrong",
                                fc_cpu_isa_name(isa), fc_dtype_info(dt)->name,
                                fc_op_name(op), rank_counts[c],
                                (unsigned long long)bases[b], (unsigned long long)m.wrong);
                /* at[3]: the element at index 2^32 (bases[1]) or at the
                 * group index 2^32 (bases[2]) */
                for (int f = 0; f < 4; ++f) {
                    int bit = (int)(fc_test_rand(rng) % (8 * es));
                    uint64_t before = load(buf, es, at[f]);

                    store(buf, es, at[f], before ^ (1ull << bit));
                    memset(&m, 0, sizeof(m));
                    fc_cpu_verify(&p, 2, bases[b], buf, ELEMS, 100, &m);
                    if ((m.wrong != 1 || m.first_pos != 100 + at[f] ||
                         m.expected_bits != before ||
                         m.actual_bits != (before ^ (1ull << bit))) && bad++ < 5)
                        fc_tap_diag(tap, "%s %s %s n=%d: bit %d of element %zu flipped, "
                                    "saw %llu wrong, first at %llu",
                                    fc_cpu_isa_name(isa), fc_dtype_info(dt)->name,
                                    fc_op_name(op), rank_counts[c], bit, at[f],
                                    (unsigned long long)m.wrong,
                                    (unsigned long long)m.first_pos);
                    flips[op][c][b][f] = m;
                    store(buf, es, at[f], before);
                }
                for (size_t k = 0; k < ELEMS; ++k)
                    if (fc_test_rand(rng) % 3 == 0)
                        store(buf, es, k, load(buf, es, k) ^ (1ull << (fc_test_rand(rng) % (8 * es))));
                for (size_t k = 0; k < ELEMS; ++k)
                    scalar += load(buf, es, k) != fc_pattern_expected_bits(&p, 2, bases[b] + k);
                memset(&m, 0, sizeof(m));
                fc_cpu_verify(&p, 2, bases[b], buf, ELEMS, 0, &m);
                if (m.wrong != scalar && bad++ < 5)
                    fc_tap_diag(tap, "%s %s %s n=%d: %llu damaged elements counted as %llu",
                                fc_cpu_isa_name(isa), fc_dtype_info(dt)->name,
                                fc_op_name(op), rank_counts[c],
                                (unsigned long long)scalar, (unsigned long long)m.wrong);
            }
        }
    }
    return bad;
}

/* A uint8 buffer longer than one count call, flips on both sides of the
 * seam between the calls. */
static int check_chunk_seam(void)
{
    size_t n = 4 * FC_CHECK_CHUNK_WORDS + 1000, seam = 4 * FC_CHECK_CHUNK_WORDS;
    uint8_t *buf = malloc(n);
    fc_mismatch_t m = { 0, 0, 0, 0 };
    fc_pattern_t p;
    int ok;

    if (buf == NULL)
        return 0;
    fc_pattern_make(FC_UINT8, FC_OP_SUM, 8, 9, &p);
    build(&p, 0, 0, buf, n);
    buf[seam - 1] ^= 0x10;
    buf[seam] ^= 0x01;
    fc_cpu_verify(&p, 0, 0, buf, n, 0, &m);
    ok = m.wrong == 2 && m.first_pos == seam - 1;
    free(buf);
    return ok;
}

static int check_digest(fc_tap_t *tap, int isa, uint64_t *rng, uint8_t *buf, size_t max)
{
    static const size_t lens[] = { 0, 1, 3, 16, 17, 128, 129, 240, 241, 1024, 1025,
                                   4096 + 7, 65536 + 64 + 3, 1 << 20 };
    int bad = 0;

    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]) && lens[l] <= max; ++l) {
        size_t len = lens[l];
        uint64_t d = fc_cpu_digest(buf, len);

        if (d != XXH3_64bits(buf, len) && bad++ < 5)
            fc_tap_diag(tap, "%s: digest of %zu bytes differs from libxxhash's",
                        fc_cpu_isa_name(isa), len);
        for (int f = 0; len > 0 && f < 8; ++f) {
            size_t byte = f == 0 ? 0 : f == 1 ? len - 1 : fc_test_rand(rng) % len;
            uint8_t bit = (uint8_t)(1u << (fc_test_rand(rng) % 8));

            buf[byte] ^= bit;
            if (fc_cpu_digest(buf, len) == d && bad++ < 5)
                fc_tap_diag(tap, "%s: a flip of byte %zu of %zu did not change the digest",
                            fc_cpu_isa_name(isa), byte, len);
            buf[byte] ^= bit;
        }
    }
    return bad;
}

/* fc_cpu_verify_untouched (a reduce's non-root recv): 1, 2, 4, 8-byte
 * elements; problems found. */
static int check_untouched(fc_tap_t *tap, uint8_t *buf)
{
    static const size_t sizes[] = { 1, 2, 4, 8 };
    const size_t n = 4099;
    int bad = 0;

    for (int z = 0; z < 4; ++z) {
        size_t es = sizes[z];
        uint64_t rep = es == 8 ? 0x5A5A5A5A5A5A5A5Aull
                               : 0x5A5A5A5A5A5A5A5Aull & ((1ull << (8 * es)) - 1);
        fc_mismatch_t m = { 0, 0, 0, 0 };

        memset(buf, 0x5A, n * es);
        fc_cpu_verify_untouched(buf, n, es, 0x5A, 0, &m);
        bad += m.wrong != 0;
        /* element 17: its last byte; element 2000: every byte; the last */
        buf[17 * es + es - 1] ^= 0x80;
        memset(buf + 2000 * es, 0, es);
        buf[(n - 1) * es] ^= 1;
        fc_cpu_verify_untouched(buf, n, es, 0x5A, 50, &m);
        if (m.wrong != 3 || m.first_pos != 67 || m.expected_bits != rep ||
            m.actual_bits != (rep ^ (0x80ull << (8 * (es - 1))))) {
            fc_tap_diag(tap, "untouched %zu-byte elements: %llu changed, first %llu, "
                        "expected 0x%llx actual 0x%llx", es, (unsigned long long)m.wrong,
                        (unsigned long long)m.first_pos, (unsigned long long)m.expected_bits,
                        (unsigned long long)m.actual_bits);
            ++bad;
        }
    }
    return bad;
}

int main(void)
{
    static fc_mismatch_t flips[FC_CPU_ISA_COUNT][FC_DTYPE_COUNT][FC_OP_COUNT][NCOUNTS][3][4];
    size_t dig_max = 1 << 20;
    uint8_t *buf = malloc(ELEMS * 8), *dig = malloc(dig_max);
    uint64_t rng = 12;
    fc_cpu_isa_t best = fc_cpu_isa_get();
    fc_tap_t tap;

    if (buf == NULL || dig == NULL)
        return 1;
    for (size_t k = 0; k < dig_max; ++k)
        dig[k] = (uint8_t)fc_test_rand(&rng);
    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, FC_CPU_ISA_COUNT * (FC_DTYPE_COUNT + 2) + FC_DTYPE_COUNT + 2);
    fc_tap_ok(&tap, fc_cpu_isa_supported(best) && fc_cpu_isa_supported(FC_CPU_ISA_BASE) &&
              (best == FC_CPU_ISA_COUNT - 1 || !fc_cpu_isa_supported(best + 1)),
              "the default build (%s) is the best this CPU supports", fc_cpu_isa_name(best));
    for (int isa = 0; isa < FC_CPU_ISA_COUNT; ++isa) {
        const char *name = fc_cpu_isa_name(isa);

        if (fc_cpu_isa_set(isa) != 0) {
            for (int t = 0; t < FC_DTYPE_COUNT + 2; ++t)
                fc_tap_skip(&tap, "this CPU cannot run it", "%s build", name);
            continue;
        }
        for (int dt = 0; dt < FC_DTYPE_COUNT; ++dt) {
            uint64_t flip_rng = 1000u + (uint64_t)dt;   /* the same flips in every build */
            int bad = check_type(&tap, isa, dt, &flip_rng, buf, flips[isa][dt]);

            fc_tap_is_int(&tap, bad, 0, "%s build, %s: clean buffers verify, single flips are "
                          "found exactly, damage is counted exactly (%d problems)", name,
                          fc_dtype_info(dt)->name, bad);
        }
        fc_tap_ok(&tap, check_chunk_seam(), "%s build: flips on both sides of a count "
                  "call's seam are both counted", name);
        fc_tap_is_int(&tap, check_digest(&tap, isa, &rng, dig, dig_max), 0,
                      "%s build: digests equal libxxhash's XXH3_64bits and change with any "
                      "flipped bit", name);
    }
    for (int dt = 0; dt < FC_DTYPE_COUNT; ++dt) {
        int differ = 0;

        for (int isa = 1; isa < FC_CPU_ISA_COUNT; ++isa) {
            if (!fc_cpu_isa_supported(isa))
                continue;
            for (int op = 0; op < FC_OP_COUNT; ++op)
                for (int c = 0; c < NCOUNTS; ++c)
                    for (int b = 0; b < 3; ++b)
                        for (int f = 0; f < 4; ++f)
                            differ += !same_mismatch(&flips[isa][dt][op][c][b][f],
                                                     &flips[0][dt][op][c][b][f]);
        }
        fc_tap_is_int(&tap, differ, 0, "%s: every build reports the same counts, positions "
                      "and bits for the same flips (%d differ)", fc_dtype_info(dt)->name, differ);
    }
    fc_cpu_isa_set(best);
    fc_tap_is_int(&tap, check_untouched(&tap, buf), 0, "a buffer a call must leave alone: its "
                  "known byte everywhere passes; changed elements are counted once each (several "
                  "changed bytes in one element too) and the first is named with its bits");
    free(buf);
    free(dig);
    return fc_tap_done(&tap);
}
