/*
 * fc_counters.h - a node's link error counters, read from sysfs: every
 * network interface (/sys/class/net/IF/statistics, carrier_changes) and
 * every RDMA port (/sys/class/infiniband/DEV/ports/P/counters). The
 * preflight stage records them as a snapshot; the soak stage reads them
 * before and after its loop and judges the deltas. Counters a driver does
 * not expose are left out, not reported as zero.
 */
#ifndef FC_COUNTERS_H
#define FC_COUNTERS_H

#include <jansson.h>

/* {"rx_errors": N, ...} for one interface, one RDMA port. */
json_t *fc_counters_net(const char *ifname);
json_t *fc_counters_rdma(const char *dev, const char *port);

/* Every interface matching nic_pattern (a glob; "lo" never) and every
 * RDMA port: {"eth0": {...}, "mlx5_0/1": {...}}. */
json_t *fc_counters_snapshot(const char *nic_pattern);

/* after - before, per link and counter, for the counters present in both. */
json_t *fc_counters_delta(const json_t *before, const json_t *after);

/* 1 if a rise in this counter is an error (judged), 0 if it is reported
 * only (drops, discards: congestion, not a fault). */
int fc_counter_is_error(const char *name);

#endif
