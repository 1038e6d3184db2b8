/*
 * fc_background.h - background traffic for the contention stage, run by
 * ranks that are not part of the measured communicator, so it competes on
 * the fabric (and the storage) the way another job would. Each kind is a
 * file of its own, lib/background/fc_bg_NAME.c, behind one ops table
 * (lib/background/fc_bg_kind.h); the kinds are listed once, in lib/background/fc_bg_kinds.h.
 *
 * Each kind sends at a target rate per generating rank (during the "on"
 * part of each period when duty < 1) and counts what it actually moved.
 * Kinds and ranks are paced independently, as separate jobs would be:
 * nothing waits for an agreement between steps, so a slow path slows only
 * the traffic on it. A phase runs until each rank's stop request
 * completes (posted by the foreground's rank 0); then each kind drains
 * what it has in flight, so no rank is left waiting for a message.
 */
#ifndef FC_BACKGROUND_H
#define FC_BACKGROUND_H

#include <mpi.h>
#include <stddef.h>

#include "fc_profile.h"
#include "fc_status.h"

#define FC_BG_ERROR_MAX 2048

/* One phase on one rank, gathered by the foreground's rank 0. */
typedef struct fc_bg_tally {
    double bytes[FC_BG_KINDS];      /* moved by this rank */
    int generating[FC_BG_KINDS];    /* 1 if this rank generates the kind */
    double seconds;                 /* length of the phase on this rank */
    char error[FC_BG_ERROR_MAX];    /* why a kind could not run here, or
                                     * failed while it ran: its load is then
                                     * not proven, whatever it moved */
    int error_kind;                 /* the kind that logged it (storage_file:
                                     * the network kinds' MPI errors end the
                                     * stage instead) */
    char note[FC_BG_ERROR_MAX];     /* e.g. the O_DIRECT fallback */
} fc_bg_tally_t;

/* The background ranks' generator, shared by every kind. */
typedef struct fc_bg {
    MPI_Comm comm;                  /* the background ranks */
    int rank;                       /* this rank in comm */
    int size;                       /* ranks in comm */
    int world_rank;                 /* this rank in MPI_COMM_WORLD */
    const fc_contention_profile_t *cp;  /* the profile's settings */
    char host[64];                  /* this rank's host, for messages */
    void *buf;                      /* the read-only source of every send
                                     * and write */
    size_t buf_bytes;               /* its size: the largest enabled block,
                                     * aligned, and one alignment more */
    void *state[FC_BG_KINDS];       /* each enabled kind's own (its file's
                                     * struct); NULL for the others */
} fc_bg_t;

/* Set up on the background communicator (collective over it). racks[r]
 * is the rack index of background rank r. A storage_dir that is missing
 * or not writable is not fatal here: the kind logs and records the error
 * and moves nothing, and the stage reports its measurements INCOMPLETE.
 * fc_bg_fini is called after it whatever it returns. */
fc_status_t fc_bg_init(fc_bg_t *bg, MPI_Comm comm, const fc_contention_profile_t *cp,
                       const char *host, const int *racks);

/* Generate the kinds in `mask` (1 << fc_bg_kind_t) until *stop completes
 * on this rank, drain, and fill *tally. */
void fc_bg_run_phase(fc_bg_t *bg, unsigned mask, MPI_Request *stop, fc_bg_tally_t *tally);

void fc_bg_fini(fc_bg_t *bg);

#endif
