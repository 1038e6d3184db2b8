/*
 * fc_cmds.h - subcommands beside `run`: the inventory's (fc_inventory_cmd.c:
 * `check-inventory`, and `topology`, a rack map from Slurm, the fabric or
 * Kubernetes labels on lib/inventory/fc_topology.h, which `run --racks-from` reads
 * too) and `k8s` (fc_k8s.c: a Kubeflow MPIJob that runs `fabcert run` on a
 * Kubernetes cluster).
 */
#ifndef FC_CMDS_H
#define FC_CMDS_H

#include <jansson.h>
#include <stdio.h>

#include "fc_status.h"

/* `fabcert check-inventory [--hosts FILE] [--racks FILE | --racks-from
 * SPEC]`: host -> rack printed, 0; or 2 (said). */
int fc_cmd_check_inventory(int argc, char **argv);
/* `fabcert topology FORMAT [FILE|-] [--rack-label KEY] [--out FILE]`:
 * 0, or 2 (bad input, said). */
int fc_cmd_topology(int argc, char **argv);
/* `fabcert k8s ...`: the manifest on stdout (or --out): 0, or 2. */
int fc_cmd_k8s(int argc, char **argv);

/* The rack map from spec (FORMAT:FILE, FORMAT:- or FORMAT: lib/inventory/fc_topology.h)
 * as text (malloc'ed); what it says and its notes printed on stream
 * (NULL: none). FC_ERR_INVALID when it cannot be read (said). */
fc_status_t fc_racks_from(const char *spec, const char *rack_label, FILE *stream,
                          char **text_p);

/* value as YAML on f, reading back as the same value (fc_json_yaml.c):
 * 0, or -1 when it could not be written. */
int fc_json_write_yaml(FILE *f, json_t *value);

#endif
