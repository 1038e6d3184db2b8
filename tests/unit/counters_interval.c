/*
 * counters_interval.c - unit tests of lib/counters/fc_counters_interval.c on sysfs
 * trees it writes under /tmp (read through FC_SYSFS_ROOT): one node's
 * link counters over an interval, as the contention stage records them.
 *   eth0 (tx_bytes, rx_bytes, rx_errors, rx_dropped only) and the RDMA
 *   port mlx5_0/1 (counters/port_xmit_data: 4-byte words; counters/
 *   symbol_error; hw_counters/np_cnp_sent) move: the bytes add up with
 *   the words scaled by 4, np_cnp_sent is summed as congestion, and the
 *   counters neither link has (tx_dropped, rp_cnp_handled, pause) are
 *   absent, never 0; symbol_error went down (a reset port): left out and
 *   named in not_counted;
 *   a tree with eth0 alone: no congestion key at all, and the text says
 *   "no congestion counter exposed"; nic_pattern "ib*" reads no eth0;
 *   a group of two hosts, one of which read nothing: its sum is the
 *   other's, the silent host in not_read, tx bytes per link glob;
 *   a NIC with a bus device beside a veth: the default pattern reads the
 *   NIC alone, an explicit pattern the veth.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fc_counters_interval.h"
#include "fc_tap.h"

static fc_tap_t tap;
static char root[64];

/* Write VALUE to ROOT/REL, making its directories. */
static void put(const char *rel, long long value)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; ++p)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    if ((f = fopen(path, "w")) == NULL) {
        perror(path);
        exit(1);
    }
    fprintf(f, "%lld\n", value);
    fclose(f);
}

static json_int_t get(const json_t *j, const char *a, const char *b)
{
    return json_integer_value(json_object_get(json_object_get(j, a), b));
}

int main(void)
{
    json_t *b, *a, *d, *sum, *by_host, *hosts, *g;
    char text[512];
    const char *nc;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 21);
    snprintf(root, sizeof(root), "/tmp/fc_ival.XXXXXX");
    if (mkdtemp(root) == NULL)
        return 1;
    setenv("FC_SYSFS_ROOT", root, 1);
    put("class/net/eth0/statistics/tx_bytes", 5000);
    put("class/net/eth0/statistics/rx_bytes", 100);
    put("class/net/eth0/statistics/rx_errors", 3);
    put("class/net/eth0/statistics/rx_dropped", 1);
    put("class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", 1000);
    put("class/infiniband/mlx5_0/ports/1/counters/symbol_error", 9);
    put("class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent", 40);
    b = fc_interval_snapshot("*");
    put("class/net/eth0/statistics/tx_bytes", 6000);
    put("class/net/eth0/statistics/rx_bytes", 350);
    put("class/net/eth0/statistics/rx_dropped", 3);
    put("class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", 1250);
    put("class/infiniband/mlx5_0/ports/1/counters/symbol_error", 0);
    put("class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent", 47);
    a = fc_interval_snapshot("*");
    d = fc_interval_delta(b, a);
    sum = json_object_get(d, "sum");
    fc_tap_is_int(&tap, get(d, "sum", "tx_bytes"), 2000,
                  "bytes out: eth0's 1000 and 250 words of mlx5_0/1 (x4): 2000 (%lld); in: 250 "
                  "(%lld)", (long long)get(d, "sum", "tx_bytes"),
                  (long long)get(d, "sum", "rx_bytes"));
    fc_tap_is_int(&tap, get(d, "sum", "rx_bytes"), 250,
                  "bytes out: eth0's 1000 and 250 words of mlx5_0/1 (x4): 2000 (%lld); in: 250 "
                  "(%lld)"
                  " [get(d, \"sum\", \"rx_bytes\")]", (long long)get(d, "sum", "tx_bytes"),
                  (long long)get(d, "sum", "rx_bytes"));
    fc_tap_is_int(&tap, get(sum, "congestion", "np_cnp_sent"), 7,
                  "np_cnp_sent rose by 7, summed as congestion; no other congestion counter "
                  "(the port has none): absent, not 0");
    fc_tap_is_int(&tap, json_object_size(json_object_get(sum, "congestion")), 1,
                  "np_cnp_sent rose by 7, summed as congestion; no other congestion counter "
                  "(the port has none): absent, not 0"
                  " [json_object_size(json_object_get(sum, \"congestion\"))]");
    fc_tap_is_int(&tap, get(d, "sum", "drops"), 2,
                  "drops 2 (rx_dropped), errors 0 (rx_errors read, unmoved); tx_dropped, "
                  "which eth0 does not have, absent");
    fc_tap_is_int(&tap, get(d, "sum", "errors"), 0,
                  "drops 2 (rx_dropped), errors 0 (rx_errors read, unmoved); tx_dropped, "
                  "which eth0 does not have, absent"
                  " [get(d, \"sum\", \"errors\")]");
    fc_tap_ok(&tap, json_object_get(json_object_get(json_object_get(d, "links"), "eth0"),
                              "tx_dropped") == NULL,
              "drops 2 (rx_dropped), errors 0 (rx_errors read, unmoved); tx_dropped, "
              "which eth0 does not have, absent"
              " [json_object_get(json_object_get(json_object_get(d, \"links...]");
    nc = json_string_value(json_array_get(json_object_get(d, "not_counted"), 0));
    fc_tap_ok(&tap, nc && strstr(nc, "mlx5_0/1 symbol_error: went down from 9 to 0") &&
              json_object_get(json_object_get(json_object_get(d, "links"), "mlx5_0/1"),
                              "symbol_error") == NULL &&
              json_object_get(json_object_get(json_object_get(d, "links"), "mlx5_0/1"),
                              "port_xmit_data") != NULL,
              "a counter that went down (reset port) is left out and named: %s",
              nc ? nc : "none");
    g = json_pack("{s:s, s:O, s:{s:O}, s:[]}", "nic_pattern", "*", "sum", sum, "hosts", "h1", d,
                  "not_read");
    fc_interval_text(g, text, sizeof(text));
    json_decref(g);
    json_decref(d);
    fc_tap_ok(&tap, strstr(text, "0.002 MB out") && strstr(text, "congestion: np_cnp_sent 7") &&
              strstr(text, "2 drops"), "the text: %s", text);
    json_decref(b);
    json_decref(a);

    /* no infiniband, and a pattern that excludes eth0 */
    b = fc_interval_snapshot("ib*");
    fc_tap_ok(&tap, json_object_get(json_object_get(b, "links"), "eth0") == NULL &&
              json_object_get(json_object_get(b, "links"), "mlx5_0/1") != NULL,
              "nic_pattern ib* reads no eth0 (RDMA ports are read whatever the pattern)");
    json_decref(b);
    if (fc_tap_sh(&tap, "rm -rf %s/class/infiniband", root) != 0)
        return 1;
    b = fc_interval_snapshot("*");
    put("class/net/eth0/statistics/tx_bytes", 9000);
    a = fc_interval_snapshot("*");
    g = fc_interval_delta(b, a);
    fc_tap_ok(&tap, json_object_get(json_object_get(g, "sum"), "congestion") == NULL,
              "eth0 alone: no congestion key at all; 3000 bytes out");
    fc_tap_is_int(&tap, get(g, "sum", "tx_bytes"), 3000,
                  "eth0 alone: no congestion key at all; 3000 bytes out"
                  " [get(g, \"sum\", \"tx_bytes\")]");
    by_host = json_pack("{s:O, s:n}", "h1", g, "h2");
    hosts = json_pack("[s, s]", "h1", "h2");
    json_decref(g);
    g = fc_interval_group(by_host, hosts, "*");
    fc_tap_is_int(&tap, get(g, "sum", "tx_bytes"), 3000,
                  "a group of h1 and h2, h2 read nothing: the sum is h1's, "
                  "h2 in not_read");
    fc_tap_is_int(&tap, json_array_size(json_object_get(g, "not_read")), 1,
                  "a group of h1 and h2, h2 read nothing: the sum is h1's, "
                  "h2 in not_read"
                  " [json_array_size(json_object_get(g, \"not_read\"))]");
    fc_tap_is_str(&tap, json_string_value(json_array_get(json_object_get(g, "not_read"), 0)), "h2",
                  "a group of h1 and h2, h2 read nothing: the sum is h1's, "
                  "h2 in not_read"
                  " [json_string_value(json_array_get(json_object_get(g, \"not_...]");
    fc_tap_is_double(&tap, fc_interval_tx_bytes(g, "eth*"), 3000, 0,
                     "tx bytes on eth*: 3000; on ib*: none read (-1), not 0");
    fc_tap_is_double(&tap, fc_interval_tx_bytes(g, "ib*"), -1, 0,
                     "tx bytes on eth*: 3000; on ib*: none read (-1), not 0"
                     " [fc_interval_tx_bytes(g, \"ib*\")]");
    fc_interval_text(g, text, sizeof(text));
    fc_tap_ok(&tap, strstr(text, "no congestion counter exposed") &&
              strstr(text, "busiest h1:eth0 0.003 MB out") && strstr(text, "1 host(s) not read"),
              "the text: %s", text);
    fc_tap_ok(&tap, json_object_get(json_object_get(g, "sum"), "drops") != NULL &&
              json_object_get(json_object_get(g, "sum"), "errors") != NULL,
              "errors and drops read on eth0 are in the sum (0 where read)");
    fc_interval_text(json_null(), text, sizeof(text));
    fc_tap_is_int(&tap, text[0], '\0', "no group: no text");
    json_decref(b);
    json_decref(a);
    /* a node's NIC (eth0, with a bus device) beside a container's veth
     * (no device): the default pattern reads the NIC alone (a veth that
     * comes and goes is not the fabric); an explicit pattern reads it */
    put("class/net/eth0/device/vendor", 0x15b3);
    put("class/net/veth9/statistics/tx_bytes", 77);
    put("class/net/veth9/statistics/carrier_changes", 2);
    a = fc_interval_snapshot("*");
    b = fc_interval_snapshot("veth*");
    fc_tap_ok(&tap, json_object_get(json_object_get(a, "links"), "eth0") != NULL &&
              json_object_get(json_object_get(a, "links"), "veth9") == NULL &&
              json_object_get(json_object_get(b, "links"), "veth9") != NULL,
              "default pattern: the NIC with a bus device (eth0), not the veth beside it; "
              "nic_pattern veth* reads the veth");
    json_decref(b);
    json_decref(a);
    json_decref(g);
    json_decref(by_host);
    json_decref(hosts);
    if (fc_tap_sh(&tap, "rm -rf %s", root) != 0)
        return 1;
    return fc_tap_done(&tap);
}
