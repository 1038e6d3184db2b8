/*
 * fc_contention_role.h - which part a rank plays in the contention stage
 * (suites/contention.c), decided from its place on its host and the
 * profile alone, so that every part of the stage agrees on it: the stage
 * itself, and the stage driver's choice of backend, which on the nccl
 * backend asks a GPU of the foreground ranks only (the background stays
 * MPI and file I/O, and its hosts may have no GPU at all).
 */
#ifndef FC_CONTENTION_ROLE_H
#define FC_CONTENTION_ROLE_H

#include "fc_profile.h"

enum { FC_ROLE_FG = 0, FC_ROLE_BG, FC_ROLE_IDLE };

/* Without background_hosts, the first foreground_ranks_per_node ranks of
 * each node measure and the next background_ranks_per_node generate. With
 * it, every rank on a background host generates (the other tenant's or the
 * storage servers' nodes) and only the first foreground_ranks_per_node on
 * the others measure. local_rank: the rank's index among its host's. */
int fc_contention_role(const fc_contention_profile_t *cp, const char *host, int local_rank);

#endif
