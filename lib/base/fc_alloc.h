/*
 * fc_alloc.h - the one out-of-memory policy, and the assertion of internal
 * invariants.
 *
 * Memory: fc_xcalloc/fc_xmalloc/fc_xrealloc/fc_xstrdup return memory or
 * do not return. On failure they log what was being allocated, how much,
 * and where (host, rank, file, line: "out of memory for the pairs' send
 * buffers (2 x 268435456 bytes)"), then call the process's die function:
 * exit(FC_EXIT_FAIL) by default, MPI_Abort in a stage program (set by
 * fc_stage_init, so one rank's failure ends the job at once instead of
 * leaving its peers waiting for the watchdog) and in the retest, _exit(1)
 * in the probe (which never waits for a peer). Every allocation of
 * fabcert's own tables goes through these; a buffer sized by the user's
 * message size keeps its own error naming the size (docs/DECISIONS.md,
 * "One out-of-memory policy"). A run's results already in
 * results.jsonl stay: each record was written as it was made, and the
 * runner reports the stage that died as a crash with its log.
 *
 * Invariants: FC_ASSERT(cond) checks a condition that only a bug in
 * fabcert can break (never bad input, which gets FC_ERR_INVALID and exit
 * 2); a broken one is logged with the condition's text and its place and
 * ends the process the same way. Assertions stay on in every build: a
 * certificate from a process in an impossible state is worth nothing.
 *
 * Sizes: FC_NELEM(a), the number of elements of the array a (an array,
 * not a pointer to one), for the tables walked by index.
 */
#ifndef FC_ALLOC_H
#define FC_ALLOC_H

#include <stddef.h>

typedef void (*fc_die_func_t)(void);

/* The function that ends the process after an out-of-memory or a broken
 * invariant (it must not return); NULL restores exit(FC_EXIT_FAIL). */
void fc_alloc_set_die(fc_die_func_t die);

void *fc_xcalloc_at(size_t n, size_t size, const char *what, const char *file, int line);
void *fc_xmalloc_at(size_t size, const char *what, const char *file, int line);
void *fc_xrealloc_at(void *ptr, size_t n, size_t size, const char *what, const char *file,
                     int line);
char *fc_xstrdup_at(const char *s, const char *what, const char *file, int line);
void fc_assert_fail(const char *cond, const char *file, int line)
    __attribute__((noreturn));

/* n elements of size bytes, zeroed; n == 0 still gives a valid pointer
 * (one element's worth), so a count of zero needs no special case. */
#define fc_xcalloc(n, size, what) fc_xcalloc_at((n), (size), (what), __FILE__, __LINE__)
#define fc_xmalloc(size, what) fc_xmalloc_at((size), (what), __FILE__, __LINE__)
/* n elements of size bytes, the product checked for overflow */
#define fc_xrealloc(ptr, n, size, what) \
    fc_xrealloc_at((ptr), (n), (size), (what), __FILE__, __LINE__)
#define fc_xstrdup(s, what) fc_xstrdup_at((s), (what), __FILE__, __LINE__)

#define FC_ASSERT(cond) ((cond) ? (void)0 : fc_assert_fail(#cond, __FILE__, __LINE__))

#define FC_NELEM(a) (sizeof(a) / sizeof((a)[0]))

#endif
