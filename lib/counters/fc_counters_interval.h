/*
 * fc_counters_interval.h - a node's link counters over one measuring
 * interval (each phase of the contention stage, each rack and cluster
 * point, each soak window), so that each figure
 * carries what its links did while it was measured: the bytes they moved
 * (did the collective's traffic go over the link under test?), their
 * errors, their drops and discards and, where the NIC exposes them in
 * sysfs, their congestion counters. Read by the lowest rank of each node before the
 * interval and after it (suites/contention.c), never inside a timed
 * region.
 *
 * What is read, per interface matching the stage's nic_pattern ("lo"
 * never) and per RDMA port (every one, as the soak's snapshot does):
 *   /sys/class/net/IF/statistics: tx_bytes, rx_bytes; rx_errors,
 *     tx_errors, carrier_changes (IF/carrier_changes); rx_dropped,
 *     tx_dropped, rx_missed_errors (and rx_crc_errors, rx_frame_errors,
 *     which rx_errors already counts, shown per link only);
 *   /sys/class/infiniband/DEV/ports/P: port_xmit_data, port_rcv_data
 *     (4-byte words: bytes are 4 times them), the soak's error counters,
 *     port_xmit_discards, port_xmit_wait (ticks the port had data and no
 *     credit: InfiniBand's back-pressure), each through
 *     fc_counters_read_rdma (the 64-bit file where there is one);
 *   and from ports/P/hw_counters alone (RoCE, mlx5's names):
 *     np_cnp_sent, rp_cnp_handled, rp_cnp_ignored,
 *     np_ecn_marked_roce_packets (congestion); out_of_buffer (drops);
 *     out_of_sequence, packet_seq_err, local_ack_timeout_err,
 *     implied_nak_seq_err, rnr_nak_retry_err, duplicate_request
 *     (transport retries: a lossy fabric).
 * and, per interface, the driver's pause, PFC and ECN-marked counters,
 * which sysfs does not have (fc_counters_ethtool.h: pause_rx_frames,
 * pause_tx_frames, pfc_rx_frames, pfc_tx_frames, ecn_marked_rx;
 * congestion). A counter a link does not
 * have is absent, never zero; one that went down (a reset port), sat at
 * the maximum of its narrow file (it could not show a rise), or whose link
 * vanished or appeared in the interval is left out of the deltas and named
 * in not_counted.
 *
 * MPI-free (the reports call fc_interval_text).
 */
#ifndef FC_COUNTERS_INTERVAL_H
#define FC_COUNTERS_INTERVAL_H

#include <stddef.h>

#include <jansson.h>

/* This node's counters now: {"t": monotonic seconds, "links": {link:
 * {counter: value}}, "bits": {link: {counter: width}}} (narrow RDMA files
 * only in bits). */
json_t *fc_interval_snapshot(const char *nic_pattern);

/* One node's interval between two snapshots:
 *   {"interval_s": s,
 *    "sum": {"tx_bytes", "rx_bytes", "errors", "drops": N (each present
 *            only if a counter of it was read at both ends),
 *            "congestion": {counter: N}, "transport": {counter: N}
 *            (present only if some such counter was read)},
 *    "links": {link: {counter: delta}} (counters that moved, and every
 *             link read, even with none that moved: {}),
 *    "not_counted": ["mlx5_0/1 port_xmit_data: ...", ...] (if any)}. */
json_t *fc_interval_delta(const json_t *before, const json_t *after);

/* A record's "counters" for the hosts listed (a JSON array of names) from
 * every node's interval (by_host: {host: interval}, null for a node that
 * read nothing):
 *   {"nic_pattern", "interval_s": the longest, "hosts": {host: interval},
 *    "sum": the hosts' sums added, "not_read": [hosts without one]}. */
json_t *fc_interval_group(const json_t *by_host, const json_t *hosts, const char *nic_pattern);

/* "links eth*: 3.10 MB out, 2.95 MB in, 0 errors, 0 drops, congestion:
 * np_cnp_sent 12; busiest a1:eth0 1.60 MB out" from a group (above), or
 * "" when counters is not one. */
void fc_interval_text(const json_t *counters, char *buf, size_t len);

/* What a rise in the counter named is summed into: "tx_bytes",
 * "rx_bytes", "errors", "drops", "congestion", "transport", or NULL (a
 * counter shown per link only, or not one of the table's). */
const char *fc_interval_class(const char *name);

/* Bytes out (tx) on the links of the group whose names match link_glob
 * (NULL: every link), summed over its hosts: what the tests and the
 * contention text compare. -1 when no such link had tx_bytes read. */
double fc_interval_tx_bytes(const json_t *counters, const char *link_glob);

#endif
