/*
 * fc_pairs_evidence.h - inside the pairs stage's report (rank 0): the
 * confirmation's findings as sentences and JSON (lib/pairs/fc_pairs_evidence.c),
 * which the records (lib/pairs/fc_pairs_report.c) quote. Nodes are indexes
 * into run->node_hosts; probes into run->confirm.probes.
 */
#ifndef FC_PAIRS_EVIDENCE_H
#define FC_PAIRS_EVIDENCE_H

#include <jansson.h>

#include "fc_pairs_stage.h"

static inline const char *fc_host(const fc_pairs_run_t *run, int v)
{
    return run->node_hosts[v];
}

static inline const char *fc_rack_of(const fc_pairs_run_t *run, int v)
{
    return run->ctx->inv.racks[run->node_racks[v]];
}

/* p's two directions as JSON: [{"direction": "a -> b", "bw_gbps": ..}, ..]. */
json_t *fc_pairs_directions_json(const fc_pairs_run_t *run, const fc_pair_t *p);
/* Probe i as JSON: both hosts, every size, slow or not (null past the
 * probes). */
json_t *fc_pairs_probe_json(const fc_pairs_run_t *run, int i);
/* Node v's alone evidence: "0.0002 GB/s with b1 (same rack), 0.0003 GB/s
 * with c1 (across the spine); each partner known good: ..." */
void fc_pairs_node_evidence_text(const fc_pairs_run_t *run, int v, char *buf, size_t len);
/* Node v's confirmation as JSON: confirmed, alone_in_rack, its partners'
 * probes and the probes that vouched for them. */
json_t *fc_pairs_node_confirmation_json(const fc_pairs_run_t *run, int v);
/* The node whose ranks waited for a CPU through probe i, when a
 * measurement of it was slow only for that wait (fc_pair_t cpu_held:
 * undecided, not the fabric's); -1 when none was. */
int fc_pairs_probe_cpu_held(const fc_pairs_run_t *run, int i);
/* Slow pair k = (a, b) with verdict v: what it implicates (NULL: it
 * passes, not reproduced alone) and the first reason, into why. An
 * undecided pair whose probe was held by a host's CPU implicates that
 * host's processors ("part": "cpu"), not the fabric: its record is
 * INCOMPLETE (fc_pairs_report.c). */
json_t *fc_pairs_slow_verdict(const fc_pairs_run_t *run, int k, int a, int b,
                              fc_pair_verdict_t v, char *why, size_t len);

#endif
