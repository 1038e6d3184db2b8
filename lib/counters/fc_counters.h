/*
 * fc_counters.h - a node's link error counters, read from sysfs: every
 * network interface (/sys/class/net/IF/statistics, carrier_changes) and
 * every RDMA port (/sys/class/infiniband/DEV/ports/P/...). The preflight
 * stage records them as a snapshot; the soak stage reads them before and
 * after its loop and judges what changed (fc_counters_judge.c). Counters a
 * driver does not expose are left out, not reported as zero.
 *
 * RDMA port counters: the IB spec's PortCounters are narrow and saturate
 * instead of wrapping (symbol_error 16 bits, link_downed 8, local link
 * integrity 4, ...), so a counter that sits at its maximum can no longer
 * show a rise. For each counter the 64-bit file is read where the driver
 * has one: ports/P/hw_counters/NAME, then ports/P/counters_ext/NAME_64 and
 * counters_ext/NAME (OFED's 64-bit directory); otherwise ports/P/counters/
 * NAME with the width the spec gives it. Interface statistics are 64-bit.
 *
 * The sysfs root is $FC_SYSFS_ROOT when set (tests point it at fixture
 * trees under tests/fixtures/sysfs), else /sys.
 */
#ifndef FC_COUNTERS_H
#define FC_COUNTERS_H

#include <jansson.h>

/* $FC_SYSFS_ROOT, or "/sys". */
const char *fc_sysfs_root(void);
/* One counter file's value (a decimal integer) into *v; 0 when the file
 * cannot be opened or read. */
int fc_sysfs_read_count(const char *path, long long *v);

/* {"rx_errors": N, ...} for one interface, one RDMA port. For the port,
 * bits_p (may be NULL) gets {"symbol_error": 16, ...}: the width of each
 * counter read from a narrow file (64-bit ones are not listed). */
json_t *fc_counters_net(const char *ifname);
json_t *fc_counters_rdma(const char *dev, const char *port, json_t *bits_p);

/* One RDMA counter of the port directory portdir (.../ports/P): the 64-bit
 * file where the driver has one (hw_counters/NAME, counters_ext/NAME_64,
 * counters_ext/NAME; *bits_p = 64), else counters/NAME with the width
 * narrow_bits (0: the counter has no narrow file). 0 if none can be read.
 * The interval counters (fc_counters_interval.h) read through it too. */
int fc_counters_read_rdma(const char *portdir, const char *name, int narrow_bits,
                          long long *v, int *bits_p);

/* Every interface matching nic_pattern (a glob; "lo" never) and every
 * RDMA port: {"links": {"eth0": {...}, "mlx5_0/1": {...}}, "bits":
 * {"mlx5_0/1": {"symbol_error": 16, ...}}}. */
json_t *fc_counters_snapshot(const char *nic_pattern);

/* Judge one node's counters between two snapshots (fc_counters_judge.c):
 *   - a link present before and gone after (vanished): FAIL;
 *   - any counter lower after than before (the port was re-initialised,
 *     which resets its counters): FAIL;
 *   - an error counter that rose by more than max_error_delta: FAIL;
 *   - an error counter read from a narrow file that sits at its maximum
 *     after the soak (saturated: a rise cannot be seen), a counter that
 *     could not be read at both ends: INCOMPLETE;
 *   - no link at all: INCOMPLETE; otherwise PASS.
 * A link that appeared during the soak was not followed: it is listed in
 * "appeared", not judged. Returns {"verdict", "reasons": [...], "links":
 * {link: {counter: delta}}, "vanished": [link], "appeared": [link],
 * "reset": [...], "saturated": [...], "link": the first link a FAIL
 * implicates, or null}. */
json_t *fc_counters_judge(const json_t *before, const json_t *after,
                          double max_error_delta, const char *nic_pattern,
                          const char *host);

/* 1 if a rise in this counter is an error (judged), 0 if it is reported
 * only (drops, discards: congestion, not a fault). */
int fc_counter_is_error(const char *name);

#endif
