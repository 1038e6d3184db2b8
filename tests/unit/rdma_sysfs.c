/*
 * rdma_sysfs.c - unit tests of lib/nic/fc_rdma_sysfs.c, the verbs transport's
 * choice of RDMA device, port and GID, on the fixture tree
 * tests/fixtures/sysfs/rdma (shaped like mlx5's sysfs; no vendor files):
 *   mlx5_0     InfiniBand NDR, port 1 ACTIVE, interface ib0
 *   mlx5_1     RoCE, ens1f0np0, GIDs 0-3: link-local v1/v2, IPv4 v1/v2:
 *              index 3 (RoCE v2, ::ffff:10.10.1.7) must be chosen
 *   mlx5_2     RoCE, port 1 DOWN (Disabled), reached only through
 *              class/net/ens2f0np0/device/infiniband
 *   mlx5_3     RoCE ACTIVE with IPv6 GIDs only: no RoCE v2 IPv4 GID
 *   mlx4_0     two IB ports: 1 DOWN (Polling), 2 ACTIVE FDR; ib1, ib2 its
 *              interfaces (dev_port 0, 1)
 * and tests/fixtures/sysfs/rdma-none (a node with no RDMA driver); trees
 * planted here: a netdev of two RDMA devices, a state "4: DOWN", a RoCE
 * port with RoCE v1 GIDs only. Then
 * the verbs transport's available() on this machine, and on the fixture
 * through FC_SYSFS_ROOT, where libibverbs cannot open the devices sysfs
 * names: a skip that says so, never OK. Run from the repository root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fc_nic_transport.h"
#include "fc_rdma_sysfs.h"
#include "fc_tap.h"

#define ROOT "tests/fixtures/sysfs/rdma"

static fc_tap_t tap;

/* Resolve nic; check the status, and on OK the device, port and GID index,
 * on a skip that why says `says`. */
static void resolves(const char *root, const char *nic, fc_status_t want, const char *dev,
                     int port, int gid_index, const char *says)
{
    fc_rdma_port_t p;
    char why[FC_NIC_WHY_MAX] = "";
    fc_status_t st;
    char what[FC_NIC_WHY_MAX + 256];

    memset(&p, 0, sizeof(p));
    st = fc_rdma_port_find(root, nic, &p, why, sizeof(why));
    if (want == FC_OK) {
        snprintf(what, sizeof(what), "%s -> %s port %d GID %d (got %s: %s port %d GID %d%s%s)",
                 nic, dev, port, gid_index, fc_status_str(st), p.dev, p.port, p.gid_index,
                 why[0] ? ": " : "", why);
        fc_tap_is_int(&tap, st, FC_OK, "%s", what);
        fc_tap_is_str(&tap, p.dev, dev, "%s [p.dev]", what);
        fc_tap_is_int(&tap, p.port, port, "%s [p.port]", what);
        fc_tap_is_int(&tap, p.gid_index, gid_index, "%s [p.gid_index]", what);
        fc_tap_is_int(&tap, p.state, FC_RDMA_PORT_ACTIVE, "%s [p.state]", what);
    } else {
        snprintf(what, sizeof(what), "%s: %s saying \"%s\" (got %s: %s)", nic,
                 fc_status_str(want), says, fc_status_str(st), why);
        fc_tap_is_int(&tap, st, want, "%s", what);
        fc_tap_ok(&tap, strstr(why, says) != NULL, "%s [strstr(why, says)]", what);
    }
}

int main(void)
{
    fc_rdma_port_t p;
    char why[FC_NIC_WHY_MAX], name[32];
    double g = -1;
    int rc;
    fc_status_t st;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 95);

    /* parsing what sysfs prints */
    rc = fc_rdma_parse_rate("400 Gb/sec (4X NDR)", &g);
    fc_tap_is_int(&tap, rc, 0, "rate \"400 Gb/sec (4X NDR)\" -> 400 (%g)", g);
    fc_tap_is_double(&tap, g, 400, 0, "rate \"400 Gb/sec (4X NDR)\" -> 400 (%g)"
                     " [g]", g);
    rc = fc_rdma_parse_rate("2.5 Gb/sec (1X SDR)", &g);
    fc_tap_is_int(&tap, rc, 0, "rate \"2.5 Gb/sec (1X SDR)\" -> 2.5 (%g)", g);
    fc_tap_is_double(&tap, g, 2.5, 0, "rate \"2.5 Gb/sec (1X SDR)\" -> 2.5 (%g)"
                     " [g]", g);
    g = -1;
    fc_tap_is_int(&tap, fc_rdma_parse_rate("400 Mb/sec", &g), -1,
                  "a rate not in Gb/sec, empty or without a number is refused, untouched");
    fc_tap_is_int(&tap, fc_rdma_parse_rate("", &g), -1,
                  "a rate not in Gb/sec, empty or without a number is refused, untouched"
                  " [fc_rdma_parse_rate(\"\", &g)]");
    fc_tap_is_int(&tap, fc_rdma_parse_rate("Gb/sec", &g), -1,
                  "a rate not in Gb/sec, empty or without a number is refused, untouched"
                  " [fc_rdma_parse_rate(\"Gb/sec\", &g)]");
    fc_tap_is_double(&tap, g, -1, 0,
                     "a rate not in Gb/sec, empty or without a number is refused, untouched"
                     " [g]");
    rc = fc_rdma_parse_state("4: ACTIVE", name, sizeof(name));
    fc_tap_is_int(&tap, rc, 4, "state \"4: ACTIVE\" -> 4, ACTIVE (%s)", name);
    fc_tap_is_str(&tap, name, "ACTIVE", "state \"4: ACTIVE\" -> 4, ACTIVE (%s)"
                  " [name]", name);
    fc_tap_is_int(&tap, fc_rdma_parse_state("ACTIVE", name, sizeof(name)), -1,
                  "a state without its number or its name is refused");
    fc_tap_is_int(&tap, fc_rdma_parse_state("4:", name, sizeof(name)), -1,
                  "a state without its number or its name is refused"
                  " [fc_rdma_parse_state(\"4:\", name, sizeof(name))]");

    /* names to ports */
    resolves(ROOT, "mlx5_0", FC_OK, "mlx5_0", 1, 0, NULL);
    resolves(ROOT, "ib0", FC_OK, "mlx5_0", 1, 0, NULL);
    resolves(ROOT, "mlx5_1", FC_OK, "mlx5_1", 1, 3, NULL);
    resolves(ROOT, "ens1f0np0", FC_OK, "mlx5_1", 1, 3, NULL);
    resolves(ROOT, "mlx5_1:1", FC_OK, "mlx5_1", 1, 3, NULL);
    resolves(ROOT, "mlx4_0", FC_OK, "mlx4_0", 2, 0, NULL);
    resolves(ROOT, "ib2", FC_OK, "mlx4_0", 2, 0, NULL);

    memset(&p, 0, sizeof(p));
    st = fc_rdma_port_find(ROOT, "ens1f0np0", &p, why, sizeof(why));
    fc_tap_is_int(&tap, st, FC_OK,
                  "ens1f0np0: RoCE at 200 Gb/s, the netdev kept (%g, \"%s\", link layer %d)",
                  p.rate_gbps, p.rate_text, p.link_layer);
    fc_tap_is_double(&tap, p.rate_gbps, 200, 0,
                     "ens1f0np0: RoCE at 200 Gb/s, the netdev kept (%g, \"%s\", link layer %d)"
                     " [p.rate_gbps]", p.rate_gbps, p.rate_text, p.link_layer);
    fc_tap_is_str(&tap, p.rate_text, "200 Gb/sec (2X NDR)",
                  "ens1f0np0: RoCE at 200 Gb/s, the netdev kept (%g, \"%s\", link layer %d)"
                  " [p.rate_text]", p.rate_gbps, p.rate_text, p.link_layer);
    fc_tap_is_int(&tap, p.link_layer, FC_RDMA_LL_ETHERNET,
                  "ens1f0np0: RoCE at 200 Gb/s, the netdev kept (%g, \"%s\", link layer %d)"
                  " [p.link_layer]", p.rate_gbps, p.rate_text, p.link_layer);
    fc_tap_is_str(&tap, p.netdev, "ens1f0np0",
                  "ens1f0np0: RoCE at 200 Gb/s, the netdev kept (%g, \"%s\", link layer %d)"
                  " [p.netdev]", p.rate_gbps, p.rate_text, p.link_layer);
    fc_tap_is_str(&tap, p.ipv4, "10.10.1.7",
                  "its GID is the IPv4-mapped 10.10.1.7 (%s, %s), not the RoCE v1 one at index 2",
                  p.ipv4, p.gid);
    fc_tap_is_str(&tap, p.gid, "0000:0000:0000:0000:0000:ffff:0a0a:0107",
                  "its GID is the IPv4-mapped 10.10.1.7 (%s, %s), not the RoCE v1 one at index 2"
                  " [p.gid]", p.ipv4, p.gid);
    memset(&p, 0, sizeof(p));
    st = fc_rdma_port_find(ROOT, "mlx5_0", &p, why, sizeof(why));
    fc_tap_is_int(&tap, st, FC_OK, "mlx5_0: InfiniBand at 400 Gb/s, GID 0 (%g, %s)", p.rate_gbps,
                  p.gid);
    fc_tap_is_double(&tap, p.rate_gbps, 400, 0, "mlx5_0: InfiniBand at 400 Gb/s, GID 0 (%g, %s)"
                     " [p.rate_gbps]", p.rate_gbps, p.gid);
    fc_tap_is_int(&tap, p.link_layer, FC_RDMA_LL_INFINIBAND,
                  "mlx5_0: InfiniBand at 400 Gb/s, GID 0 (%g, %s)"
                  " [p.link_layer]", p.rate_gbps, p.gid);
    fc_tap_is_int(&tap, p.ipv4[0], '\0', "mlx5_0: InfiniBand at 400 Gb/s, GID 0 (%g, %s)"
                  " [p.ipv4[0]]", p.rate_gbps, p.gid);
    fc_tap_ok(&tap, strncmp(p.gid, "fe80:", 5) == 0,
              "mlx5_0: InfiniBand at 400 Gb/s, GID 0 (%g, %s)"
              " [strncmp(p.gid, \"fe80:\", 5) == 0]", p.rate_gbps, p.gid);

    /* skips, each with its reason */
    resolves(ROOT, "ens2f0np0", FC_ERR_SKIP, NULL, 0, 0,
             "not ACTIVE for NIC ens2f0np0: mlx5_2 port 1 state \"1: DOWN\", phys_state "
             "\"3: Disabled\"");
    resolves(ROOT, "mlx5_2", FC_ERR_SKIP, NULL, 0, 0, "mlx5_2 port 1 state \"1: DOWN\"");
    resolves(ROOT, "mlx4_0:1", FC_ERR_SKIP, NULL, 0, 0,
             "mlx4_0 port 1 state \"1: DOWN\", phys_state \"2: Polling\"");
    resolves(ROOT, "ib1", FC_ERR_SKIP, NULL, 0, 0, "mlx4_0 port 1 state \"1: DOWN\"");
    resolves(ROOT, "mlx4_0:3", FC_ERR_SKIP, NULL, 0, 0, "mlx4_0 has no port 3");
    resolves(ROOT, "mlx5_3", FC_ERR_SKIP, NULL, 0, 0,
             "mlx5_3 port 1 is RoCE (Ethernet) and has no RoCE v2 GID with an IPv4 address");
    resolves(ROOT, "eth0", FC_ERR_SKIP, NULL, 0, 0,
             "no RDMA device for NIC eth0 (not a device in " ROOT "/class/infiniband, nor the "
             "network interface of one:");
    resolves(ROOT, "mlx5_9", FC_ERR_SKIP, NULL, 0, 0, "no RDMA device for NIC mlx5_9");
    resolves("tests/fixtures/sysfs/rdma-none", "eth0", FC_ERR_SKIP, NULL, 0, 0,
             "no RDMA device for NIC eth0 (no tests/fixtures/sysfs/rdma-none/class/infiniband");
    resolves(ROOT, "mlx5_0:x", FC_ERR_INVALID, NULL, 0, 0, "DEVICE:PORT wants a port number");
    resolves(ROOT, "", FC_ERR_INVALID, NULL, 0, 0, "bad NIC name");

    /* trees planted here, apart from the fixture: a netdev that is the
     * interface of two RDMA devices (mlx5_7 DOWN, mlx5_0 ACTIVE: readdir's
     * order must not pick which is tested, or blamed); a state file whose
     * number and name disagree; a RoCE GID table of RoCE v1 entries only */
    {
        char tmp[] = "/tmp/fabcert-rdma-sysfs.XXXXXX", r[64];

        if (mkdtemp(tmp) == NULL)
            fc_tap_bail(&tap, "mkdtemp: %m");
        if (fc_tap_sh(&tap, "cd %s && port() { p=$1/class/infiniband/$2/ports/1 && "
                      "mkdir -p $p/gids $p/gid_attrs/types $p/gid_attrs/ndevs "
                      "$1/class/infiniband/$2/device/net/$3 && echo \"$4\" > $p/state && "
                      "echo '5: LinkUp' > $p/phys_state "
                      "&& echo '200 Gb/sec (4X HDR)' > $p/rate && echo $5 > $p/link_layer; } && "
                      "port two mlx5_7 eth5 '1: DOWN' InfiniBand && "
                      "port two mlx5_0 eth5 '4: ACTIVE' InfiniBand && "
                      "port odd mlx5_0 ib0 '4: DOWN' InfiniBand && "
                      "port v1 mlx5_0 eth5 '4: ACTIVE' Ethernet && p=v1/class/infiniband/mlx5_0/"
                      "ports/1 && echo fe80:0000:0000:0000:0e42:a1ff:fe00:0005 > $p/gids/0 && "
                      "echo 0000:0000:0000:0000:0000:ffff:0a00:0005 > $p/gids/1 && "
                      "echo 'IB/RoCE v1' > $p/gid_attrs/types/0 && "
                      "echo 'IB/RoCE v1' > $p/gid_attrs/types/1 && "
                      "echo eth5 > $p/gid_attrs/ndevs/0 && echo eth5 > $p/gid_attrs/ndevs/1",
                      tmp) != 0)
            fc_tap_bail(&tap, "a sysfs fixture command failed (named above)");
        snprintf(r, sizeof(r), "%s/two", tmp);
        memset(&p, 0, sizeof(p));
        why[0] = '\0';
        st = fc_rdma_port_find(r, "eth5", &p, why, sizeof(why));
        fc_tap_is_int(&tap, st, FC_ERR_SKIP, "a netdev of two RDMA devices: a skip "
                      "naming both, not the one readdir met first (%s: %s)", fc_status_str(st),
                      why);
        fc_tap_ok(&tap, strstr(why, "NIC eth5 is the network interface of "
                  "more than one RDMA device") && strstr(why, "mlx5_0") && strstr(why, "mlx5_7") && strstr(why, "name the device"),
                  "a netdev of two RDMA devices: a skip "
                  "naming both, not the one readdir met first (%s: %s)"
                  " [names 'NIC eth5 is the network interface of more than one RDMA devi...]",
                  fc_status_str(st), why);
        resolves(r, "mlx5_0", FC_OK, "mlx5_0", 1, 0, NULL);
        snprintf(r, sizeof(r), "%s/odd", tmp);
        resolves(r, "mlx5_0", FC_ERR_SKIP, NULL, 0, 0, "mlx5_0 port 1 state \"4: DOWN\"");
        snprintf(r, sizeof(r), "%s/v1", tmp);
        resolves(r, "eth5", FC_ERR_SKIP, NULL, 0, 0, "no RoCE v2 GID with an IPv4 address on "
                 "eth5 (2 GID(s), 0 RoCE v2");
        fc_tap_sh(&tap, "rm -rf %s", tmp);
    }

    /* the transport's available(): on this machine, then on the fixture */
    {
        struct stat sb;
        int have = stat("/sys/class/infiniband", &sb) == 0;

        why[0] = '\0';
        unsetenv("FC_SYSFS_ROOT");
        st = fc_nic_transport_verbs.available("eth0", why, sizeof(why));
        if (have)
            fc_tap_skip(&tap, "this machine has /sys/class/infiniband",
                        "available() on a machine without RDMA");
        else
            fc_tap_ok(&tap, st == FC_ERR_SKIP &&
                      (strstr(why, "no RDMA device for NIC eth0 (no /sys/class/infiniband") ||
                       strstr(why, "built without libibverbs")),
                      "verbs available(eth0) here, no RDMA: skip with the reason (%s: %s)",
                      fc_status_str(st), why);
        why[0] = '\0';
        setenv("FC_SYSFS_ROOT", ROOT, 1);
        st = fc_nic_transport_verbs.available("ens1f0np0", why, sizeof(why));
        fc_tap_is_int(&tap, st, FC_ERR_SKIP,
                      "verbs available(ens1f0np0) on the fixture: sysfs names mlx5_1 port 1, "
                      "libibverbs cannot open it: skip, naming it (%s: %s)", fc_status_str(st),
                      why);
        fc_tap_ok(&tap, strstr(why, "mlx5_1") &&
                  (strstr(why, "libibverbs does not list it") ||
                   strstr(why, "built without libibverbs")),
                  "verbs available(ens1f0np0) on the fixture: sysfs names mlx5_1 port 1, "
                  "libibverbs cannot open it: skip, naming it (%s: %s)"
                  " [names 'mlx5_1', 'built without libibverbs']", fc_status_str(st), why);
        unsetenv("FC_SYSFS_ROOT");
    }
    return fc_tap_done(&tap);
}
