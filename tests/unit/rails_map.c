/*
 * rails_map.c - unit tests of the rails' declaration (lib/rails/fc_rails.h):
 * the profile's map parsed ("eth0, eth1" is two rails; an empty name, a
 * duplicate, a name too long or with a space, too many: refused, saying
 * which rail), rails by name order with digits as numbers (eth2 before
 * eth10; a pattern leaves lo and others out); a NIC's PCI address and
 * NUMA node from a sysfs tree made here (a PCI NIC, a virtio NIC under its
 * PCI function, a veth with none: absent); and a node's inventory held to
 * the rails declaration (count, rate, map, state), each fault naming the
 * NIC, its rail and PCI address.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fc_profile.h"
#include "fc_rails.h"
#include "fc_tap.h"

int main(void)
{
    fc_tap_t tap;
    char names[FC_RAILS_MAX][FC_RAIL_NIC_MAX], why[256] = "";
    char have[6][FC_RAIL_NIC_MAX] = { "eth10", "lo", "eth2", "ib0", "eth0", "eth1" };
    char out[FC_RAILS_MAX][FC_RAIL_NIC_MAX];
    int n;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 37);
    n = fc_rails_map_parse(" eth0, eth1 ,mlx5_2", names, FC_RAILS_MAX, why, sizeof(why));
    fc_tap_is_int(&tap, n, 3, "a map of three rails, spaces trimmed (%d)", n);
    fc_tap_is_str(&tap, names[0], "eth0", "a map of three rails, spaces trimmed (%d)"
                  " [names[0]]", n);
    fc_tap_is_str(&tap, names[1], "eth1", "a map of three rails, spaces trimmed (%d)"
                  " [names[1]]", n);
    fc_tap_is_str(&tap, names[2], "mlx5_2", "a map of three rails, spaces trimmed (%d)"
                  " [names[2]]", n);
    n = fc_rails_map_parse("eth0,,eth1", names, FC_RAILS_MAX, why, sizeof(why));
    fc_tap_is_int(&tap, n, -1, "an empty name is refused, naming the rail (%s)", why);
    fc_tap_ok(&tap, strstr(why, "rail 1 has no NIC name") != NULL,
              "an empty name is refused, naming the rail (%s)"
              " [strstr(why, \"rail 1 has no NIC name\") != NULL]", why);
    n = fc_rails_map_parse("eth0,eth1,eth0", names, FC_RAILS_MAX, why, sizeof(why));
    fc_tap_is_int(&tap, n, -1, "a NIC twice is refused (%s)", why);
    fc_tap_is_str(&tap, why, "eth0 is rail 0 and rail 2", "a NIC twice is refused (%s)"
                  " [why]", why);
    n = fc_rails_map_parse("eth0,a_name_far_too_long", names, FC_RAILS_MAX, why, sizeof(why));
    fc_tap_is_int(&tap, n, -1, "a name longer than an interface's is refused (%s)", why);
    fc_tap_ok(&tap, strstr(why, "rail 1: 'a_name_far_too_long' is longer") != NULL,
              "a name longer than an interface's is refused (%s)"
              " [strstr(why, \"rail 1: 'a_name_far_too_long' is longer\") !=...]", why);
    n = fc_rails_map_parse("eth0,eth 1", names, FC_RAILS_MAX, why, sizeof(why));
    fc_tap_is_int(&tap, n, -1, "a name with a space is refused (%s)", why);
    fc_tap_ok(&tap, strstr(why, "'eth 1' is not an interface name") != NULL,
              "a name with a space is refused (%s)"
              " [strstr(why, \"'eth 1' is not an interface name\") != NULL]", why);
    n = fc_rails_map_parse("a,b,c", names, 2, why, sizeof(why));
    fc_tap_is_int(&tap, n, -1, "too many rails (%s)", why);
    fc_tap_is_str(&tap, why, "more than 2 rails", "too many rails (%s)"
                  " [why]", why);
    fc_tap_ok(&tap, fc_rails_name_cmp("eth2", "eth10") < 0 &&
                    fc_rails_name_cmp("eth10", "eth9") > 0,
              "name order: digit runs as numbers (eth2 < eth10)");
    fc_tap_is_int(&tap, fc_rails_name_cmp("eth1", "eth1"), 0,
                  "name order: digit runs as numbers (eth2 < eth10)"
                  " [fc_rails_name_cmp(\"eth1\", \"eth1\")]");
    fc_tap_ok(&tap, fc_rails_name_cmp("eth", "eth0") < 0,
              "name order: digit runs as numbers (eth2 < eth10)"
              " [fc_rails_name_cmp(\"eth\", \"eth0\") < 0]");
    n = fc_rails_by_pattern(have, 6, "eth*", out, FC_RAILS_MAX);
    fc_tap_is_int(&tap, n, 4,
                  "rails by pattern eth*: eth0, eth1, eth2, eth10 (lo and ib0 left out) (%d)", n);
    fc_tap_is_str(&tap, out[0], "eth0",
                  "rails by pattern eth*: eth0, eth1, eth2, eth10 (lo and ib0 left out) (%d)"
                  " [out[0]]", n);
    fc_tap_is_str(&tap, out[1], "eth1",
                  "rails by pattern eth*: eth0, eth1, eth2, eth10 (lo and ib0 left out) (%d)"
                  " [out[1]]", n);
    fc_tap_is_str(&tap, out[2], "eth2",
                  "rails by pattern eth*: eth0, eth1, eth2, eth10 (lo and ib0 left out) (%d)"
                  " [out[2]]", n);
    fc_tap_is_str(&tap, out[3], "eth10",
                  "rails by pattern eth*: eth0, eth1, eth2, eth10 (lo and ib0 left out) (%d)"
                  " [out[3]]", n);

    /* sysfs: a PCI NIC, a virtio NIC under its PCI function, a veth */
    char root[] = "/tmp/fc-rails-sysfs.XXXXXX", pci[32];
    int numa = 0;

    if (mkdtemp(root) == NULL)
        return 1;
    if (fc_tap_sh(&tap, "cd %s && mkdir -p devices/pci0000:00/0000:3b:00.0 "
                  "devices/pci0000:00/0000:00:03.0/virtio2 class/net/eth0 class/net/eth1 "
                  "class/net/veth0 && echo 1 > devices/pci0000:00/0000:3b:00.0/numa_node && "
                  "ln -s ../../../devices/pci0000:00/0000:3b:00.0 class/net/eth0/device && "
                  "ln -s ../../../devices/pci0000:00/0000:00:03.0/virtio2 class/net/eth1/device",
                  root) != 0)
        return 1;
    setenv("FC_SYSFS_ROOT", root, 1);
    int got = fc_nic_pci_numa("eth0", pci, sizeof(pci), &numa);
    fc_tap_ok(&tap, got, "a PCI NIC: its address and NUMA node (%s, %d)", pci, numa);
    fc_tap_is_str(&tap, pci, "0000:3b:00.0", "a PCI NIC: its address and NUMA node (%s, %d)"
                  " [pci]", pci, numa);
    fc_tap_is_int(&tap, numa, 1, "a PCI NIC: its address and NUMA node (%s, %d)"
                  " [numa]", pci, numa);
    got = fc_nic_pci_numa("eth1", pci, sizeof(pci), &numa);
    fc_tap_ok(&tap, got, "a virtio NIC: its PCI parent, NUMA node unknown (%s, %d)", pci, numa);
    fc_tap_is_str(&tap, pci, "0000:00:03.0",
                  "a virtio NIC: its PCI parent, NUMA node unknown (%s, %d)"
                  " [pci]", pci, numa);
    fc_tap_is_int(&tap, numa, -1, "a virtio NIC: its PCI parent, NUMA node unknown (%s, %d)"
                  " [numa]", pci, numa);
    got = fc_nic_pci_numa("veth0", pci, sizeof(pci), &numa);
    fc_tap_ok(&tap, !got, "a veth has no PCI address: absent, not invented");
    fc_tap_is_int(&tap, pci[0], '\0', "a veth has no PCI address: absent, not invented"
                  " [pci[0]]");
    if (fc_tap_sh(&tap, "rm -rf %s", root) != 0)
        return 1;

    /* a node's inventory against the declaration */
    fc_rails_profile_t rp;
    json_t *inv = json_pack("{s:s, s:[{s:s, s:s, s:i, s:s}, {s:s, s:s, s:i}, {s:s, s:s, s:i}]}",
                            "host", "n1", "nics", "name", "eth1", "state", "up", "speed_mbps",
                            400000, "pci", "0000:3b:00.0", "name", "eth0", "state", "up",
                            "speed_mbps", 200000, "name", "ib0", "state", "down", "speed_mbps", -1);
    json_t *reasons = json_array();

    memset(&rp, 0, sizeof(rp));
    snprintf(rp.nic_pattern, sizeof(rp.nic_pattern), "eth*");
    rp.count = 2;
    rp.rate_gbps = 400;
    n = fc_rails_check_inventory(&rp, inv, reasons);
    fc_tap_is_int(&tap, n, 1,
                  "rails by name order: eth0 rail 0 at the wrong rate is named, eth1 is rail 1 "
                  "(%s)",
                  json_string_value(json_array_get(reasons, 0)));
    fc_tap_is_str(&tap, json_string_value(json_array_get(reasons, 0)),
                  "NIC eth0 (rail 0) on n1 runs at 200000 Mb/s; the rails "
                                         "declare 400 Gb/s",
                  "rails by name order: eth0 rail 0 at the wrong rate is named, eth1 is rail 1 (%s)"
                  " [json_string_value(json_array_get(reasons, 0))]",
                  json_string_value(json_array_get(reasons, 0)));
    fc_tap_is_int(&tap,
                  json_integer_value(json_object_get(
                      json_array_get(json_object_get(inv, "nics"), 0), "rail")), 1,
                  "rails by name order: eth0 rail 0 at the wrong rate is named, eth1 is rail 1 (%s)"
                  " [json_integer_value(json_object_get(json_array_get(json_ob...]",
                  json_string_value(json_array_get(reasons, 0)));
    json_array_clear(reasons);
    rp.count = 3;
    rp.rate_gbps = 0;
    n = fc_rails_check_inventory(&rp, inv, reasons);
    fc_tap_is_int(&tap, n, 1, "a count that differs names the NICs found (%s)",
                  json_string_value(json_array_get(reasons, 0)));
    fc_tap_is_str(&tap, json_string_value(json_array_get(reasons, 0)),
                  "n1 has 2 NIC(s) as rails (eth0, eth1), the rails declare "
                                         "3 (count)",
                  "a count that differs names the NICs found (%s)"
                  " [json_string_value(json_array_get(reasons, 0))]",
                  json_string_value(json_array_get(reasons, 0)));
    json_array_clear(reasons);
    rp.count = 2;
    snprintf(rp.map, sizeof(rp.map), "ib0,eth1");
    rp.nmap = 2;
    n = fc_rails_check_inventory(&rp, inv, reasons);
    fc_tap_is_int(&tap, n, 1, "an explicit map: rail 0 is ib0, down, named (%s)",
                  json_string_value(json_array_get(reasons, 0)));
    fc_tap_is_str(&tap, json_string_value(json_array_get(reasons, 0)),
                  "NIC ib0 (rail 0) on n1 is down, not up",
                  "an explicit map: rail 0 is ib0, down, named (%s)"
                  " [json_string_value(json_array_get(reasons, 0))]",
                  json_string_value(json_array_get(reasons, 0)));
    json_decref(inv);
    json_decref(reasons);
    return fc_tap_done(&tap);
}
