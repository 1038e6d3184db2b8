/*
 * fc_bg_kind.h - what one kind of background traffic implements, and the
 * pacing every kind shares (private to lib/background/fc_background.c, the engine,
 * and lib/background/fc_bg_NAME.c, one file per kind). A kind is an ops table: the
 * engine sets each enabled kind up once, and in every phase starts the
 * kinds in the phase's mask, polls them in one loop until the stop,
 * drains them and collects their tallies. The kinds are listed once, in
 * lib/background/fc_bg_kinds.h: that list makes the enum, the externs below, the
 * engine's table and the profile sections. Adding a kind: its line there
 * and its file here (and, if it has keys of its own beyond the pace, their
 * table and fields: fc_bg_kinds.h says where).
 */
#ifndef FC_BG_KIND_H
#define FC_BG_KIND_H

#include "fc_background.h"

#define FC_BG_ALIGN 4096            /* O_DIRECT's alignment, for every buffer */

typedef struct fc_bg_kind_ops {
    const char *name;               /* as in the profile (fc_bg_kind_name) */
    /* Set up on bg->comm (collective over it; every rank calls it with the
     * same profile); the kind's state in *state_p. An error that leaves
     * the kind unable to move anything but is not the stage's (a storage
     * directory) is logged, kept in the state and told at every tally. */
    fc_status_t (*init_func)(fc_bg_t *bg, const int *racks, void **state_p);
    /* A phase starts at t0 (MPI_Wtime); 0: the kind has nothing to do on
     * this rank this phase, and is neither polled nor drained. */
    int (*start_func)(fc_bg_t *bg, void *state, double t0);
    /* Move what can move without waiting: complete what finished and,
     * while may_post (before the stop), start a block when the pace lets
     * it; el is the time since t0. 1 if anything moved. NULL: the kind
     * paces itself (a thread of its own). */
    int (*poll_func)(fc_bg_t *bg, void *state, double el, int may_post);
    /* After the stop: finish what is in flight, so that no rank is left
     * waiting for a message; bounded by the blocks already started. */
    void (*drain_func)(fc_bg_t *bg, void *state);
    /* The phase's figures into tally->bytes[kind] and ->generating[kind],
     * its error or note through fc_bg_tally_error and _note; called for
     * every kind in the phase's mask, started or not. */
    void (*tally_func)(fc_bg_t *bg, void *state, fc_bg_tally_t *tally);
    /* Undo init (state may be partly set up); frees state. */
    void (*fini_func)(fc_bg_t *bg, void *state);
} fc_bg_kind_ops_t;

/* fc_bg_NAME_ops, defined in lib/background/fc_bg_NAME.c, for each kind */
#define FC_BG_KIND_OPS_EXTERN(id, name, keys, block, duty) \
    extern const fc_bg_kind_ops_t fc_bg_##name##_ops;
FC_BG_KIND_LIST(FC_BG_KIND_OPS_EXTERN)
#undef FC_BG_KIND_OPS_EXTERN

/* The kind's ops, by fc_bg_kind_t (NULL if none). */
const fc_bg_kind_ops_t *fc_bg_kind_ops(int kind);

/* The rate schedule: a kind may start another block while what it has
 * started so far is no more than its rate times the time it has been on
 * (the first block at once, then one per block / rate seconds). */
int fc_bg_may_start(const fc_bg_profile_t *b, double started, double el);
/* In the "on" part of its period (always, with duty 1). */
int fc_bg_is_on(const fc_bg_profile_t *b, double el);
/* A block's length rounded up to FC_BG_ALIGN. */
size_t fc_bg_aligned(size_t bytes);

/* The first error (or note) of a phase, and the kind that logged it. */
void fc_bg_tally_error(fc_bg_tally_t *tally, int kind, const char *error);
void fc_bg_tally_note(fc_bg_tally_t *tally, const char *note);

#endif
