/*
 * fc_counters_ethtool.h - an Ethernet NIC's congestion counters, which
 * sysfs does not have: pause frames (802.3x), PFC pause frames and
 * ECN-marked packets, read through the driver's statistics (the
 * SIOCETHTOOL ioctl: ETHTOOL_GSSET_INFO for the number of ETH_SS_STATS
 * strings, ETHTOOL_GSTRINGS, ETHTOOL_GSTATS, what `ethtool -S` prints)
 * and mapped from each driver's names to one canonical name each:
 *
 *   pause_rx_frames, pause_tx_frames   link-level pause frames
 *   pfc_rx_frames, pfc_tx_frames       PFC pause frames, all priorities
 *   ecn_marked_rx                      packets received ECN-marked (CE)
 *
 * A driver with none of the names (veth, virtio, lo) gives none of them:
 * absent, never 0. The standard pause statistics of netlink
 * (ETHTOOL_MSG_PAUSE_GET with ETHTOOL_FLAG_STATS, kernel 5.10+) are not
 * read: a generic netlink client is more code than the drivers' names,
 * which every driver that has the standard statistics also prints.
 */
#ifndef FC_COUNTERS_ETHTOOL_H
#define FC_COUNTERS_ETHTOOL_H

#include <stddef.h>

#include <jansson.h>

/* The canonical name of one driver statistic, or NULL when it is none of
 * them (pure: what the tests hold to the drivers' tables). */
const char *fc_ethtool_canonical(const char *driver_name);

/* Sum a driver's statistics (n names and values) into out, by canonical
 * name: {"pause_rx_frames": N, ...}, only those some name maps to.
 * Returns how many canonical counters it set. */
int fc_ethtool_map(const char *const *names, const unsigned long long *values, size_t n,
                   json_t *out);

/* Read interface ifname's driver statistics (in the calling thread's
 * network namespace) and add its canonical counters to out. Returns how
 * many statistics the driver exposes (0 when none, or the ioctl is not
 * supported), -1 when the interface cannot be asked. Under
 * $FC_SYSFS_ROOT (a fixture tree) nothing is read: 0. */
int fc_ethtool_read(const char *ifname, json_t *out);

#endif
