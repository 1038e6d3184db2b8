/*
 * fc_counters_ethtool.c - see fc_counters_ethtool.h. The drivers' names,
 * from their ethtool statistics tables in Linux:
 *   mlx5 (drivers/net/ethernet/mellanox/mlx5/core/en_stats.c):
 *     rx_pause_ctrl_phy, tx_pause_ctrl_phy (802.3 a_pause_mac_ctrl_frames),
 *     rx_prio%d_pause, tx_prio%d_pause (per-priority PFC), rx_ecn_mark;
 *   bnxt_en (drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c):
 *     rx_pause_frames, tx_pause_frames, rx_pfc_frames, tx_pfc_frames;
 *   ice and i40e (drivers/net/ethernet/intel/ice/ice_ethtool.c and
 *   i40e/i40e_ethtool.c):
 *     link_xoff_rx, link_xoff_tx (ice suffixes ".nic"), and
 *     rx_priority_%u_xoff, tx_priority_%u_xoff (ice: ".nic").
 * Only whole names match: mlx5's rx_prio3_pause_duration and
 * rx_prio3_pause_transition are other figures.
 */
#include "fc_counters_ethtool.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static const struct {
    const char *name, *canon;
} fc_eth_exact[] = {
    { "rx_pause_ctrl_phy", "pause_rx_frames" },     /* mlx5 */
    { "tx_pause_ctrl_phy", "pause_tx_frames" },
    { "rx_ecn_mark", "ecn_marked_rx" },
    { "rx_pause_frames", "pause_rx_frames" },       /* bnxt_en */
    { "tx_pause_frames", "pause_tx_frames" },
    { "rx_pfc_frames", "pfc_rx_frames" },
    { "tx_pfc_frames", "pfc_tx_frames" },
    { "link_xoff_rx", "pause_rx_frames" },          /* i40e, ice */
    { "link_xoff_tx", "pause_tx_frames" },
    { "port.link_xoff_rx", "pause_rx_frames" },     /* i40e_ethtool.c's own names */
    { "port.link_xoff_tx", "pause_tx_frames" },
    { "link_xoff_rx.nic", "pause_rx_frames" },      /* ice */
    { "link_xoff_tx.nic", "pause_tx_frames" },
};

/* name is PREFIX, a priority 0-7, then SUFFIX exactly */
static int fc_eth_prio(const char *name, const char *prefix, const char *suffix)
{
    size_t lp = strlen(prefix);

    return strncmp(name, prefix, lp) == 0 && name[lp] >= '0' && name[lp] <= '7' &&
           strcmp(name + lp + 1, suffix) == 0;
}

const char *fc_ethtool_canonical(const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t k = 0; k < sizeof(fc_eth_exact) / sizeof(fc_eth_exact[0]); ++k)
        if (strcmp(name, fc_eth_exact[k].name) == 0)
            return fc_eth_exact[k].canon;
    if (fc_eth_prio(name, "rx_prio", "_pause") ||                  /* mlx5 */
        fc_eth_prio(name, "rx_priority_", "_xoff") ||              /* i40e, ice */
        fc_eth_prio(name, "rx_priority_", "_xoff.nic") ||
        fc_eth_prio(name, "port.rx_priority_", "_xoff_rx"))        /* i40e */
        return "pfc_rx_frames";
    if (fc_eth_prio(name, "tx_prio", "_pause") ||
        fc_eth_prio(name, "tx_priority_", "_xoff") ||
        fc_eth_prio(name, "tx_priority_", "_xoff.nic") ||
        fc_eth_prio(name, "port.tx_priority_", "_xoff_tx"))
        return "pfc_tx_frames";
    return NULL;
}

int fc_ethtool_map(const char *const *names, const unsigned long long *values, size_t n,
                   json_t *out)
{
    json_t *sum = json_object();
    const char *canon;
    json_t *v;
    int set;

    for (size_t i = 0; i < n; ++i) {
        if ((canon = fc_ethtool_canonical(names[i])) == NULL)
            continue;
        json_object_set_new(sum, canon, json_integer(
            json_integer_value(json_object_get(sum, canon)) + (json_int_t)values[i]));
    }
    set = (int)json_object_size(sum);
    json_object_foreach(sum, canon, v)
        json_object_set(out, canon, v);
    json_decref(sum);
    return set;
}

int fc_ethtool_read(const char *ifname, json_t *out)
{
    struct ifreq ifr;
    struct ethtool_sset_info *info = NULL;
    struct ethtool_gstrings *strs = NULL;
    struct ethtool_stats *stats = NULL;
    const char **names = NULL;
    unsigned long long *values = NULL;
    int fd, n = -1;
    __u32 count;

    if (getenv("FC_SYSFS_ROOT") && getenv("FC_SYSFS_ROOT")[0])
        return 0;       /* a fixture tree: its files are the whole truth */
    if (strlen(ifname) >= IFNAMSIZ || (fd = socket(AF_INET, SOCK_DGRAM, 0)) < 0)
        return -1;
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    info = calloc(1, sizeof(*info) + sizeof(__u32));
    if (info == NULL)
        goto out;
    info->cmd = ETHTOOL_GSSET_INFO;
    info->sset_mask = 1ULL << ETH_SS_STATS;
    ifr.ifr_data = (void *)info;
    if (ioctl(fd, SIOCETHTOOL, &ifr) < 0) {
        n = errno == EOPNOTSUPP || errno == EINVAL ? 0 : -1;
        goto out;
    }
    count = info->sset_mask ? info->data[0] : 0;
    n = 0;
    if (count == 0 || count > 100000)
        goto out;
    strs = calloc(1, sizeof(*strs) + (size_t)count * ETH_GSTRING_LEN);
    stats = calloc(1, sizeof(*stats) + (size_t)count * sizeof(__u64));
    names = calloc(count, sizeof(*names));
    values = calloc(count, sizeof(*values));
    if (!strs || !stats || !names || !values)
        goto out;
    strs->cmd = ETHTOOL_GSTRINGS;
    strs->string_set = ETH_SS_STATS;
    strs->len = count;
    ifr.ifr_data = (void *)strs;
    if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
        goto out;
    stats->cmd = ETHTOOL_GSTATS;
    stats->n_stats = count;
    ifr.ifr_data = (void *)stats;
    if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
        goto out;
    if (strs->len < count)
        count = strs->len;
    if (stats->n_stats < count)
        count = stats->n_stats;
    for (__u32 i = 0; i < count; ++i) {
        char *s = (char *)strs->data + (size_t)i * ETH_GSTRING_LEN;

        s[ETH_GSTRING_LEN - 1] = '\0';
        names[i] = s;
        values[i] = stats->data[i];
    }
    fc_ethtool_map(names, values, count, out);
    n = (int)count;
out:
    free(info);
    free(strs);
    free(stats);
    free(names);
    free(values);
    close(fd);
    return n;
}
