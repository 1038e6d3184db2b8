/*
 * counters_ethtool.c - unit tests of lib/counters/fc_counters_ethtool.c:
 *   the name mapping on fixture tables of driver statistics, as mlx5,
 *   bnxt_en, ice and i40e name them (a few of each driver's names, pause
 *   and not): pause, PFC (summed over the priorities) and ECN-marked map
 *   to their canonical names, mlx5's rx_prio3_pause_duration and
 *   _transition, XON frames and everything else to none; a veth-like
 *   table with no such name sets nothing (absent, never 0);
 *   a real veth, made in a fresh network namespace (root only: skipped
 *   otherwise), read through the ioctl: the driver exposes statistics and
 *   none of them is a pause counter, so none is set; the namespace is
 *   deleted at the end. Under FC_SYSFS_ROOT nothing is read.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_counters_ethtool.h"
#include "fc_tap.h"

static fc_tap_t tap;

static json_int_t get(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);

    return v ? json_integer_value(v) : -1;
}

int main(void)
{
    static const char *const mlx5[] = {
        "rx_packets", "rx_pause_ctrl_phy", "tx_pause_ctrl_phy", "rx_prio0_pause",
        "rx_prio3_pause", "tx_prio3_pause", "rx_prio3_pause_duration",
        "rx_prio3_pause_transition", "rx_ecn_mark", "rx_discards_phy",
    };
    static const unsigned long long mlx5_v[] = { 9, 5, 7, 1, 10, 4, 999, 888, 3, 2 };
    static const char *const bnxt[] = { "rx_pause_frames", "tx_pause_frames", "rx_pfc_frames",
                                        "tx_pfc_frames", "rx_pfc_ena_frames_pri0" };
    static const unsigned long long bnxt_v[] = { 1, 2, 3, 4, 5 };
    static const char *const ice[] = { "link_xon_rx.nic", "link_xoff_rx.nic",
                                       "link_xoff_tx.nic", "rx_priority_3_xoff.nic",
                                       "tx_priority_3_xoff.nic", "rx_priority_3_xon.nic" };
    static const unsigned long long ice_v[] = { 100, 11, 12, 13, 14, 15 };
    /* i40e_ethtool.c's own names: the port's statistics are "port."
     * prefixed, its PFC ones "port.rx_priority_%u_xoff_rx" */
    static const char *const i40e[] = { "port.link_xoff_rx", "port.link_xoff_tx",
                                        "port.rx_priority_0_xoff_rx",
                                        "port.rx_priority_7_xoff_rx",
                                        "port.rx_priority_8_xoff_rx",
                                        "port.rx_priority_0_xon_rx" };
    static const unsigned long long i40e_v[] = { 1, 2, 3, 4, 50, 60 };
    static const char *const veth[] = { "peer_ifindex", "rx_queue_0_xdp_packets",
                                        "rx_queue_0_drops", "tx_queue_0_xdp_xmit" };
    static const unsigned long long veth_v[] = { 7, 0, 0, 0 };
    json_t *o;
    int n;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 26);

    o = json_object();
    n = fc_ethtool_map(mlx5, mlx5_v, FC_NELEM(mlx5), o);
    fc_tap_is_int(&tap, n, 5,
                  "mlx5: pause_ctrl_phy, prio pause summed over priorities, rx_ecn_mark; not the "
                  "pause durations or transitions");
    fc_tap_is_int(&tap, get(o, "pause_rx_frames"), 5,
                  "mlx5: pause_ctrl_phy, prio pause summed over priorities, rx_ecn_mark; not the "
                  "pause durations or transitions"
                  " [get(o, \"pause_rx_frames\")]");
    fc_tap_is_int(&tap, get(o, "pause_tx_frames"), 7,
                  "mlx5: pause_ctrl_phy, prio pause summed over priorities, rx_ecn_mark; not the "
                  "pause durations or transitions"
                  " [get(o, \"pause_tx_frames\")]");
    fc_tap_is_int(&tap, get(o, "pfc_rx_frames"), 11,
                  "mlx5: pause_ctrl_phy, prio pause summed over priorities, rx_ecn_mark; not the "
                  "pause durations or transitions"
                  " [get(o, \"pfc_rx_frames\")]");
    fc_tap_is_int(&tap, get(o, "pfc_tx_frames"), 4,
                  "mlx5: pause_ctrl_phy, prio pause summed over priorities, rx_ecn_mark; not the "
                  "pause durations or transitions"
                  " [get(o, \"pfc_tx_frames\")]");
    fc_tap_is_int(&tap, get(o, "ecn_marked_rx"), 3,
                  "mlx5: pause_ctrl_phy, prio pause summed over priorities, rx_ecn_mark; not the "
                  "pause durations or transitions"
                  " [get(o, \"ecn_marked_rx\")]");
    json_decref(o);
    o = json_object();
    n = fc_ethtool_map(bnxt, bnxt_v, FC_NELEM(bnxt), o);
    fc_tap_is_int(&tap, n, 4, "bnxt_en: pause and pfc frames");
    fc_tap_is_int(&tap, get(o, "pause_rx_frames"), 1, "bnxt_en: pause and pfc frames"
                  " [get(o, \"pause_rx_frames\")]");
    fc_tap_is_int(&tap, get(o, "pause_tx_frames"), 2, "bnxt_en: pause and pfc frames"
                  " [get(o, \"pause_tx_frames\")]");
    fc_tap_is_int(&tap, get(o, "pfc_rx_frames"), 3, "bnxt_en: pause and pfc frames"
                  " [get(o, \"pfc_rx_frames\")]");
    fc_tap_is_int(&tap, get(o, "pfc_tx_frames"), 4, "bnxt_en: pause and pfc frames"
                  " [get(o, \"pfc_tx_frames\")]");
    json_decref(o);
    o = json_object();
    n = fc_ethtool_map(ice, ice_v, FC_NELEM(ice), o);
    fc_tap_is_int(&tap, n, 4, "ice: XOFF frames (.nic), not XON");
    fc_tap_is_int(&tap, get(o, "pause_rx_frames"), 11, "ice: XOFF frames (.nic), not XON"
                  " [get(o, \"pause_rx_frames\")]");
    fc_tap_is_int(&tap, get(o, "pause_tx_frames"), 12, "ice: XOFF frames (.nic), not XON"
                  " [get(o, \"pause_tx_frames\")]");
    fc_tap_is_int(&tap, get(o, "pfc_rx_frames"), 13, "ice: XOFF frames (.nic), not XON"
                  " [get(o, \"pfc_rx_frames\")]");
    fc_tap_is_int(&tap, get(o, "pfc_tx_frames"), 14, "ice: XOFF frames (.nic), not XON"
                  " [get(o, \"pfc_tx_frames\")]");
    json_decref(o);
    o = json_object();
    n = fc_ethtool_map(i40e, i40e_v, FC_NELEM(i40e), o);
    fc_tap_is_int(&tap, n, 3, "i40e (its port.-prefixed names): link and priority XOFF frames; no "
                  "priority 8, no XON");
    fc_tap_is_int(&tap, get(o, "pause_rx_frames"), 1,
                  "i40e (its port.-prefixed names): link and priority XOFF frames; no "
                  "priority 8, no XON"
                  " [get(o, \"pause_rx_frames\")]");
    fc_tap_is_int(&tap, get(o, "pfc_rx_frames"), 7,
                  "i40e (its port.-prefixed names): link and priority XOFF frames; no "
                  "priority 8, no XON"
                  " [get(o, \"pfc_rx_frames\")]");
    json_decref(o);
    o = json_object();
    n = fc_ethtool_map(veth, veth_v, FC_NELEM(veth), o);
    fc_tap_is_int(&tap, n, 0,
                  "veth's statistics have no pause name: nothing set (absent, never 0)");
    fc_tap_is_int(&tap, json_object_size(o), 0,
                  "veth's statistics have no pause name: nothing set (absent, never 0)"
                  " [json_object_size(o)]");
    json_decref(o);

    /* a real veth in a fresh namespace */
    if (geteuid() != 0 || system("command -v ip > /dev/null") != 0) {
        fc_tap_ok(&tap, 1, "# SKIP needs root and ip(8)");
        fc_tap_ok(&tap, 1, "# SKIP needs root and ip(8)");
    } else {
        char ns[32], path[128];
        int fd, self, got;

        snprintf(ns, sizeof(ns), "fcet%d", (int)getpid());
        got = fc_tap_sh(&tap, "ip netns add %s && ip -n %s link add fcv0 type veth "
                        "peer name fcv1 && ip -n %s link set fcv0 up && ip -n %s link set "
                        "fcv1 up", ns, ns, ns, ns);
        snprintf(path, sizeof(path), "/run/netns/%s", ns);
        self = open("/proc/self/ns/net", O_RDONLY);
        fd = open(path, O_RDONLY);
        o = json_object();
        n = got == 0 && fd >= 0 && self >= 0 && setns(fd, CLONE_NEWNET) == 0
            ? fc_ethtool_read("fcv0", o) : -2;
        if (self >= 0 && setns(self, CLONE_NEWNET) != 0)
            perror("setns back");
        fc_tap_ok(&tap, n > 0,
                  "a real veth: the driver exposes %d statistics, none a pause, PFC or ECN "
                  "counter: none set", n);
        fc_tap_is_int(&tap, json_object_size(o), 0,
                      "a real veth: the driver exposes %d statistics, none a pause, PFC or ECN "
                      "counter: none set"
                      " [json_object_size(o)]", n);
        json_decref(o);
        if (fd >= 0)
            close(fd);
        if (self >= 0)
            close(self);
        fc_tap_is_int(&tap, fc_tap_sh(&tap, "ip netns del %s", ns), 0,
                      "the namespace %s is deleted", ns);
    }
    setenv("FC_SYSFS_ROOT", "/nonexistent", 1);
    o = json_object();
    fc_tap_is_int(&tap, fc_ethtool_read("lo", o), 0,
                  "under FC_SYSFS_ROOT (a fixture tree) nothing is read");
    fc_tap_is_int(&tap, json_object_size(o), 0,
                  "under FC_SYSFS_ROOT (a fixture tree) nothing is read"
                  " [json_object_size(o)]");
    json_decref(o);
    return fc_tap_done(&tap);
}
