/*
 * fc_ctl_frame.h - the frame every control message between the ranks of a
 * stage travels in, and its check; MPI-free (the fuzz target feeds it).
 *
 * A control message is whatever one rank tells another about the run
 * rather than the fabric's data: a status the ranks agree on, a count, a
 * size, an index, a gathered report, the broadcast profile, a schedule's
 * next step. A bit that changes in one of those on the way (a NIC, a
 * switch, a driver) makes the rank that received it take another branch
 * than its peers, or index a table with a number no peer sent. So each
 * travels as
 *
 *     head (32 bytes)  magic, the exchange's tag (its name hashed: a
 *                      message meant for another exchange is refused),
 *                      the sender's rank in the communicator and in the
 *                      world, the payload's length, and an XXH64 of the
 *                      head and the payload
 *     payload          len bytes
 *
 * and the receiver opens it with fc_ctl_frame_open before it uses a byte:
 * the length it expected, the sender it expected, the exchange it is in,
 * the checksum. A frame that fails is never read (lib/base/fc_ctl.h ends the
 * job, naming the rank that received it).
 */
#ifndef FC_CTL_FRAME_H
#define FC_CTL_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define FC_CTL_MAGIC 0x4c544346u   /* "FCTL" */

typedef struct fc_ctl_head {
    uint32_t magic;         /* FC_CTL_MAGIC */
    uint32_t tag;           /* fc_ctl_tag(the exchange's name) */
    int32_t from;           /* the sender's rank in the communicator */
    int32_t from_world;     /* ... and in MPI_COMM_WORLD */
    uint64_t len;           /* payload bytes after the head */
    uint64_t sum;           /* XXH64 of the head (sum 0) then the payload */
} fc_ctl_head_t;

#define FC_CTL_HEAD ((size_t)sizeof(fc_ctl_head_t))

/* The tag of an exchange named `what`. */
uint32_t fc_ctl_tag(const char *what);
/* Write a frame at frame (FC_CTL_HEAD + len bytes): the head, then the
 * payload copied from payload (which may already be at frame +
 * FC_CTL_HEAD; NULL with len 0). */
void fc_ctl_frame_seal(void *frame, const char *what, int from, int from_world,
                       const void *payload, size_t len);
/* The checksum of a frame's payload alone: what a message sent in two
 * parts (a head that announces a length, then the bytes) carries for its
 * second part. */
uint64_t fc_ctl_sum(const void *data, size_t len);
/* Check the size bytes at frame: exactly one head and `len` bytes of
 * payload, the checksum, the magic, the exchange `what` and the sender
 * `from` (its rank in the communicator; -1: any). 0 if whole, else -1 and
 * why (one phrase, e.g. "its checksum does not match: a bit changed on
 * the way") in why. */
int fc_ctl_frame_open(const void *frame, size_t size, const char *what, int from, size_t len,
                      char *why, size_t whylen);

#endif
