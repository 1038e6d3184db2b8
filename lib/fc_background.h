/*
 * fc_background.h - background traffic for the contention stage, run by
 * ranks that are not part of the measured communicator, so it competes on
 * the fabric (and the storage) the way another job would:
 *
 *   storage_file  large-block writes, each followed by fsync, and reads
 *                 back, to one file per rank in the profile's storage_dir
 *                 (O_DIRECT where the filesystem takes it; the fallback to
 *                 buffered I/O is reported);
 *   storage_net   many-to-few incast: clients send large messages to a few
 *                 "storage" ranks (in another rack with placement
 *                 cross-rack), in on/off bursts: the checkpoint pattern;
 *   tenant        another tenant's job: all-to-all exchanges among the
 *                 background ranks, or a random permutation of pairs.
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

#include "fc_profile.h"
#include "fc_status.h"

#define FC_BG_ERROR_MAX 2048

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

typedef struct fc_bg {
    MPI_Comm comm;                  /* the background ranks */
    int rank, size;
    const fc_contention_profile_t *cp;
    char host[64];
    int storage_target;             /* storage_net: this rank is storage */
    int nclients, *clients;         /* storage_net: a target's clients */
    int my_target;                  /* storage_net: a client's target, or -1 */
    int net_roles;                  /* storage_net: some rank has a role */
    int fd;                         /* storage_file */
    char path[700];
    char file_error[FC_BG_ERROR_MAX];
    char file_note[FC_BG_ERROR_MAX];
    MPI_Comm net_comm, tenant_comm; /* one per network kind: no cross-matching */
    void *buf;                      /* the source of every send and write */
    void *file_rbuf, *tenant_rbuf;  /* reads and tenant receives */
    void *net_rbufs;                /* storage_net target: one block per client */
    size_t buf_bytes;
    uint64_t file_offset, file_blocks;
} fc_bg_t;

/* Set up on the background communicator (collective over it). racks[r]
 * is the rack index of background rank r. A storage_dir that is missing
 * or not writable is not fatal here: the kind records the error and moves
 * nothing, and the stage reports its measurements INCOMPLETE. */
fc_status_t fc_bg_init(fc_bg_t *bg, MPI_Comm comm, const fc_contention_profile_t *cp,
                       const char *host, const int *racks);

/* Generate the kinds in `mask` (1 << fc_bg_kind_t) until *stop completes
 * on this rank, drain, and fill *tally. */
void fc_bg_run_phase(fc_bg_t *bg, unsigned mask, MPI_Request *stop, fc_bg_tally_t *tally);

void fc_bg_fini(fc_bg_t *bg);

#endif
