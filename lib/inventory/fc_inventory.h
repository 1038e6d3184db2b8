/*
 * fc_inventory.h - which hosts exist and which rack each is in, from files
 * an operator already has: a host list (one host or Slurm hostlist range per
 * line, e.g. "gpu[001-016,020]") and a rack map. The rack map takes two
 * line forms, mixed freely:
 *
 *     gpu[001-016] rack-a          hosts, then the rack they are in
 *     rack-b: gpu[017-032] gpu040  the rack, a colon, then its hosts
 *
 * A host list may be an MPI hostfile: "HOST slots=N" (Open MPI's form, as
 * the Kubeflow MPI Operator writes /etc/mpi/hostfile) gives the host N
 * slots; other KEY=VALUE words are ignored.
 * '#' starts a comment. Every host of the host list must be in exactly one
 * rack; a rack must name at least one host; a host must not be listed
 * twice. The rack map may describe the whole cluster and the host list a
 * part of it (a Slurm allocation): the map's other hosts, and the racks
 * none of whose hosts is in the list, are left out of the run (counted);
 * the left-out hosts of a rack that is in the run are named (left_out),
 * since that rack is tested only in part.
 * Without a host list, the hosts are those of the rack map; without a rack
 * map, every host is in one rack named "default". Errors name file:line and
 * the caller exits 2. Parsing works on text, so MPI ranks can parse what
 * rank 0 read and broadcast, and get the same inventory.
 *
 * A host is found by its name as listed, or by the name it gives itself
 * when the two differ only by a domain: a hostfile of fully qualified
 * names ("w-0.svc.ns.svc", the MPI Operator's) and a host whose
 * gethostname() is "w-0" (a pod's), or the other way round; never when
 * two listed hosts would match (fc_inventory_find_host).
 */
#ifndef FC_INVENTORY_H
#define FC_INVENTORY_H

#include <stddef.h>

#include "fc_status.h"

#define FC_INV_NAME_MAX 64

typedef struct fc_inventory {
    int nhosts;
    char (*hosts)[FC_INV_NAME_MAX];     /* in host-list order */
    int *host_rack;                     /* rack index of each host */
    int *host_line;                     /* line of the host list (or map) */
    int *host_slots;                    /* its line's slots=N, 0 when none */
    int nracks;
    char (*racks)[FC_INV_NAME_MAX];     /* in order of first mention */
    int map_hosts_left_out;             /* rack-map hosts not in the host list */
    int racks_left_out;                 /* racks with none of its hosts in it */
    int nleft_out;                      /* of those hosts, the ones in racks[]: */
    char (*left_out)[FC_INV_NAME_MAX];  /* a rack this run certifies only in
                                         * part, in rack-map order */
    int *left_out_rack;                 /* the rack index of each */
    char hosts_path[1024];              /* "" when not given */
    char racks_path[1024];
} fc_inventory_t;

/* Expand one Slurm hostlist expression ("a[01-03,7]b,c") into *names_p
 * (malloc'ed, *count_p entries). On error writes a message into err and
 * returns FC_ERR_INVALID. (fc_hostlist.c) */
fc_status_t fc_hostlist_expand(const char *expr, char (**names_p)[FC_INV_NAME_MAX],
                               int *count_p, char *err, size_t errlen);
/* A character a host or rack name may hold: a letter, a digit, - _ or . */
int fc_name_char_ok(char c);

/* Build an inventory from the texts of a host list and a rack map (either
 * may be NULL: see above). Paths are for messages. Errors are printed as
 * "path:line: message" and return FC_ERR_INVALID. */
fc_status_t fc_inventory_parse(const char *hosts_text, const char *hosts_path,
                               const char *racks_text, const char *racks_path,
                               fc_inventory_t *inv_p);

/* Host index, or -1: the host listed as host, else the one listed host
 * that differs from it only by a domain ("n1" and "n1.cluster.local"). */
int fc_inventory_find_host(const fc_inventory_t *inv, const char *host);
int fc_inventory_find_rack(const fc_inventory_t *inv, const char *rack);

void fc_inventory_free(fc_inventory_t *inv);

#endif
