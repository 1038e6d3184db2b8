/*
 * kernel_twins.c - the GPU kernels' per-thread code (kernels/
 * fc_kernels_dev.h), run on the host over simulated grids, must do what the
 * CPU kernels do: for every type and op, at start offsets that leave a
 * misaligned head, with counts that leave a tail, under several grid
 * strides (1 thread, one warp, a grid that does not divide the work):
 *   - the fill equals fc_cpu_fill bit for bit;
 *   - the verification passes a correct output and, with bits flipped in
 *     the head, the vector body and the tail, counts exactly those and
 *     finds the first, as fc_cpu_verify does;
 *   - the digest is the same for every grid and equals the definition
 *     computed word by word, for aligned, 8-byte and byte-offset buffers;
 *   - the check of a buffer the call must leave alone (a reduce's non-root
 *     recv: every element its byte repeated) passes an untouched buffer
 *     and, with one bit changed in the first, a middle and the last
 *     element, counts those three and names the first, with the bits
 *     fc_cpu_verify_untouched names, for 1-, 2-, 4- and 8-byte elements.
 * No GPU needed (the kernels themselves run in fabcert-node-gpu's checks).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_kernels.h"
#include "fc_pattern_host.h"
#include "fc_tap.h"

void fc_twins_verify_grid(const fc_pattern_t *p, int32_t src, uint64_t index_base,
                          const void *buf, size_t count, size_t stride, uint64_t *wrong_p,
                          uint64_t *first_p);
void fc_twins_fill_grid(const fc_pattern_t *p, int32_t r, uint64_t index_base, void *buf,
                        size_t count, size_t stride);
uint64_t fc_twins_digest_grid(const void *buf, size_t bytes, size_t stride);
uint64_t fc_twins_digest_reference(const void *buf, size_t bytes);
void fc_twins_untouched_grid(const void *buf, size_t count, size_t esize, int byte,
                             size_t stride, uint64_t *wrong_p, uint64_t *first_p);

static const size_t fc_counts[] = { 0, 1, 5, 17, 64, 1000, 40009 };
static const size_t fc_strides[] = { 1, 32, 768 + 5 };

/* Fill and verify one (type, op) at each offset, count and stride; the
 * first failure is told in a diagnostic. */
static int fc_check_type_op(fc_tap_t *tap, int t, int op, uint8_t *mem, uint8_t *ref)
{
    size_t esize = (size_t)fc_dtype_size(t);
    fc_pattern_t p;
    int ok = 1;

    fc_pattern_make((fc_dtype_t)t, (fc_op_t)op, 7, 4242u + (unsigned)t, &p);
    for (size_t off = 0; off < 16 / esize + 1; ++off)
        for (size_t c = 0; c < sizeof(fc_counts) / sizeof(fc_counts[0]); ++c)
            for (size_t s = 0; s < sizeof(fc_strides) / sizeof(fc_strides[0]); ++s) {
                size_t n = fc_counts[c];
                uint8_t *buf = mem + off * esize;
                uint64_t base = off * 1000003ull + (c & 1 ? 0xFFFFFF00ull : 0);
                uint64_t wrong = 0, first = 0;
                fc_mismatch_t m = { 0, 0, 0, 0 };
                size_t flips[3] = { 0, n / 2, n ? n - 1 : 0 };
                int nflips = n >= 3 ? 3 : (n > 0 ? 1 : 0);

                /* fill: the grid's bits are the CPU's */
                memset(buf, 0x5A, n * esize);
                fc_twins_fill_grid(&p, 3, base, buf, n, fc_strides[s]);
                fc_cpu_fill(&p, 3, base, ref, n);
                if (memcmp(buf, ref, n * esize) != 0) {
                    if (ok)
                        fc_tap_diag(tap, "fill differs: %s %s offset %zu count %zu stride %zu",
                                    fc_dtype_info((fc_dtype_t)t)->name,
                                    fc_op_name((fc_op_t)op), off, n, fc_strides[s]);
                    ok = 0;
                }
                /* a correct output passes */
                for (size_t k = 0; k < n; ++k) {
                    uint64_t bits = fc_pattern_expected_bits(&p, 2, base + k);

                    memcpy(buf + k * esize, &bits, esize);
                }
                fc_twins_verify_grid(&p, 2, base, buf, n, fc_strides[s], &wrong, &first);
                if (wrong != 0) {
                    if (ok)
                        fc_tap_diag(tap, "verify found %llu wrong in a correct %s %s buffer "
                                    "(offset %zu count %zu stride %zu)",
                                    (unsigned long long)wrong, fc_dtype_info((fc_dtype_t)t)->name,
                                    fc_op_name((fc_op_t)op), off, n, fc_strides[s]);
                    ok = 0;
                }
                /* flips in the head, body and tail: counted, first found */
                for (int f = 0; f < nflips; ++f)
                    buf[flips[f] * esize] ^= 0x10;
                fc_twins_verify_grid(&p, 2, base, buf, n, fc_strides[s], &wrong, &first);
                fc_cpu_verify(&p, 2, base, buf, n, 0, &m);
                if (wrong != (uint64_t)nflips || wrong != m.wrong ||
                    (nflips && (first != flips[0] || first != m.first_pos))) {
                    if (ok)
                        fc_tap_diag(tap, "planted %d flips in %s %s (offset %zu count %zu "
                                    "stride %zu): grid found %llu first %llu, CPU %llu first %llu",
                                    nflips, fc_dtype_info((fc_dtype_t)t)->name,
                                    fc_op_name((fc_op_t)op), off, n, fc_strides[s],
                                    (unsigned long long)wrong, (unsigned long long)first,
                                    (unsigned long long)m.wrong, (unsigned long long)m.first_pos);
                    ok = 0;
                }
            }
    return ok;
}

/* The untouched-buffer check, grid against CPU, every element size. */
static int fc_check_untouched(fc_tap_t *tap, uint8_t *mem)
{
    static const size_t sizes[] = { 1, 2, 4, 8 };
    int ok = 1;

    for (size_t z = 0; z < 4; ++z)
        for (size_t c = 0; c < sizeof(fc_counts) / sizeof(fc_counts[0]); ++c)
            for (size_t s = 0; s < sizeof(fc_strides) / sizeof(fc_strides[0]); ++s) {
                size_t esize = sizes[z], n = fc_counts[c];
                size_t flips[3] = { 0, n / 2, n ? n - 1 : 0 };
                int nflips = n >= 3 ? 3 : (n > 0 ? 1 : 0);
                uint64_t wrong = 0, first = 0;
                fc_mismatch_t m = { 0, 0, 0, 0 };

                memset(mem, 0x5A, n * esize);
                fc_twins_untouched_grid(mem, n, esize, 0x5A, fc_strides[s], &wrong, &first);
                fc_cpu_verify_untouched(mem, n, esize, 0x5A, 100, &m);
                if (wrong != 0 || m.wrong != 0) {
                    if (ok)
                        fc_tap_diag(tap, "untouched %zu-byte buffer of %zu: grid %llu, CPU "
                                    "%llu changed", esize, n, (unsigned long long)wrong,
                                    (unsigned long long)m.wrong);
                    ok = 0;
                }
                /* one bit in the element's last byte: every byte counts */
                for (int f = 0; f < nflips; ++f)
                    mem[flips[f] * esize + esize - 1] ^= 0x40;
                fc_twins_untouched_grid(mem, n, esize, 0x5A, fc_strides[s], &wrong, &first);
                fc_cpu_verify_untouched(mem, n, esize, 0x5A, 100, &m);
                if (wrong != (uint64_t)nflips || m.wrong != wrong ||
                    (nflips && (first != 0 || m.first_pos != 100 ||
                                m.expected_bits != (0x5A5A5A5A5A5A5A5Aull &
                                                    (esize == 8 ? ~0ull
                                                                : (1ull << (8 * esize)) - 1)) ||
                                m.actual_bits != (m.expected_bits ^
                                                  (0x40ull << (8 * (esize - 1))))))) {
                    if (ok)
                        fc_tap_diag(tap, "untouched %zu-byte buffer of %zu, stride %zu, %d "
                                    "changed: grid %llu first %llu, CPU %llu first %llu "
                                    "(expected 0x%llx actual 0x%llx)", esize, n,
                                    fc_strides[s], nflips, (unsigned long long)wrong,
                                    (unsigned long long)first, (unsigned long long)m.wrong,
                                    (unsigned long long)m.first_pos,
                                    (unsigned long long)m.expected_bits,
                                    (unsigned long long)m.actual_bits);
                    ok = 0;
                }
            }
    return ok;
}

int main(void)
{
    size_t cap = 40009 * 8 + 64;
    uint8_t *mem = aligned_alloc(64, cap), *ref = aligned_alloc(64, cap);
    fc_tap_t tap;
    int digest_ok = 1;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, FC_DTYPE_COUNT + 2);
    for (int t = 0; t < FC_DTYPE_COUNT; ++t) {
        int ok = 1;

        for (int op = 0; op <= FC_OP_NONE; ++op)
            ok &= fc_check_type_op(&tap, t, op, mem, ref);
        fc_tap_ok(&tap, ok, "%s: the kernels' per-thread fill and verify agree with the CPU "
                  "kernels for every op, misaligned head, tail and grid stride",
                  fc_dtype_info((fc_dtype_t)t)->name);
    }
    for (size_t k = 0; k < cap; ++k)
        mem[k] = (uint8_t)(k * 131 + 7);
    for (size_t off = 0; off < 17; off += (off < 8 ? 1 : 8))
        for (size_t bytes = 0; bytes < 5000; bytes = bytes * 3 + 7) {
            uint64_t want = fc_twins_digest_reference(mem + off, bytes);

            for (size_t s = 0; s < sizeof(fc_strides) / sizeof(fc_strides[0]); ++s)
                if (fc_twins_digest_grid(mem + off, bytes, fc_strides[s]) != want) {
                    if (digest_ok)
                        fc_tap_diag(&tap, "digest differs: offset %zu, %zu bytes, stride %zu",
                                    off, bytes, fc_strides[s]);
                    digest_ok = 0;
                }
        }
    fc_tap_ok(&tap, digest_ok, "the digest is the same for every grid and equals its "
              "word-by-word definition (aligned, 8-byte and byte offsets)");
    fc_tap_ok(&tap, fc_check_untouched(&tap, mem), "a buffer the call must leave alone: the "
              "kernel's per-thread check and the CPU's pass it untouched and count and name "
              "the changed elements alike (1, 2, 4 and 8-byte elements, every grid stride)");
    free(mem);
    free(ref);
    return fc_tap_done(&tap);
}
