/*
 * inventory.c - unit tests of lib/inventory/fc_inventory.c: Slurm hostlist ranges
 * expand as `scontrol show hostnames` would (padding, several brackets,
 * top-level commas); malformed ranges are refused with a reason; host lists
 * and rack maps in both line forms give the right host -> rack mapping;
 * every bad inventory (host in two racks, empty rack, host in no rack, a
 * host listed twice) is refused with a message naming the file and line; a
 * rack map of more hosts than the host list leaves the others out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_inventory.h"
#include "fc_tap.h"
#include "fc_test_stderr.h"

static fc_tap_t tap;

/* expand expr and compare with the space-separated expected names */
static void expands(const char *expr, const char *expected)
{
    char (*names)[FC_INV_NAME_MAX] = NULL, err[256] = "", got[4096] = "";
    int n = 0;

    if (fc_hostlist_expand(expr, &names, &n, err, sizeof(err)) == FC_OK)
        for (int i = 0; i < n; ++i)
            snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s",
                     i ? " " : "", names[i]);
    fc_tap_is_str(&tap, got, expected, "'%s' expands to '%s'", expr, expected);
    if (strcmp(got, expected) != 0)
        fc_tap_diag(&tap, "got '%s' (%s)", got, err);
    free(names);
}

static void refused(const char *expr, const char *reason_part)
{
    char (*names)[FC_INV_NAME_MAX] = NULL, err[256] = "";
    int n = 0;
    fc_status_t s = fc_hostlist_expand(expr, &names, &n, err, sizeof(err));

    fc_tap_is_int(&tap, s, FC_ERR_INVALID, "'%s' is refused: %s", expr, err);
    fc_tap_ok(&tap, strstr(err, reason_part) != NULL, "'%s' is refused: %s"
              " [strstr(err, reason_part) != NULL]", expr, err);
    free(names);
}

/* parse, capturing stderr; returns status, fills msg */
static fc_status_t parse(const char *hosts, const char *racks, fc_inventory_t *inv,
                         char *msg, size_t len)
{
    fc_test_stderr_t c;
    fc_status_t s;

    fc_test_stderr_begin(&c);
    s = fc_inventory_parse(hosts, hosts ? "hosts.txt" : NULL, racks,
                           racks ? "racks.txt" : NULL, inv);
    fc_test_stderr_end(&c, msg, len);
    return s;
}

static void bad_inventory(const char *name, const char *hosts, const char *racks,
                          const char *expected_msg)
{
    fc_inventory_t inv;
    char msg[1024];
    fc_status_t s = parse(hosts, racks, &inv, msg, sizeof(msg));

    fc_tap_is_int(&tap, s, FC_ERR_INVALID, "%s: refused with '%s'", name, expected_msg);
    fc_tap_ok(&tap, strstr(msg, expected_msg) != NULL, "%s: refused with '%s'"
              " [strstr(msg, expected_msg) != NULL]", name, expected_msg);
    if (s == FC_OK)
        fc_inventory_free(&inv);
    else if (strstr(msg, expected_msg) == NULL)
        fc_tap_diag(&tap, "message was: %s", msg);
}

static const char *rack_of(const fc_inventory_t *inv, const char *host)
{
    int h = fc_inventory_find_host(inv, host);

    return h < 0 ? "(none)" : inv->racks[inv->host_rack[h]];
}

int main(void)
{
    fc_inventory_t inv;
    char msg[1024];

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 86);

    expands("gpu001", "gpu001");
    expands("gpu[001-003]", "gpu001 gpu002 gpu003");
    expands("gpu[001-003,020]", "gpu001 gpu002 gpu003 gpu020");
    expands("n[8-11]", "n8 n9 n10 n11");
    expands("a,b[1-2],c", "a b1 b2 c");
    expands("r[1-2]n[01-02]", "r1n01 r1n02 r2n01 r2n02");
    expands("x[7]-ib", "x7-ib");
    refused("gpu[003-001]", "backwards");
    refused("gpu[001-", "unbalanced");
    refused("gpu[]", "empty");
    refused("gpu[a-b]", "is not N or N-M");
    refused("gpu[1,]", "ends with ','");
    refused("bad/name", "not allowed");

    /* a host list with ranges, a rack map in both forms */
    fc_status_t s = parse("# cluster\ngpu[001-004]\n\ngpu010 gpu011 slots=8\n",
                          "gpu[001-002] rackA\nrackB: gpu[003-004]\n"
                          "gpu[010-011] rackC  # the new one\n", &inv, msg, sizeof(msg));

    fc_tap_is_int(&tap, s, FC_OK, "a host list and a rack map in both forms: 6 hosts in 3 racks");
    fc_tap_is_int(&tap, inv.nhosts, 6,
                  "a host list and a rack map in both forms: 6 hosts in 3 racks"
                  " [inv.nhosts]");
    fc_tap_is_int(&tap, inv.nracks, 3,
                  "a host list and a rack map in both forms: 6 hosts in 3 racks"
                  " [inv.nracks]");
    fc_tap_is_int(&tap, s, FC_OK, "every host is in its rack");
    fc_tap_is_str(&tap, rack_of(&inv, "gpu002"), "rackA", "every host is in its rack"
                  " [rack_of(&inv, \"gpu002\")]");
    fc_tap_is_str(&tap, rack_of(&inv, "gpu003"), "rackB", "every host is in its rack"
                  " [rack_of(&inv, \"gpu003\")]");
    fc_tap_is_str(&tap, rack_of(&inv, "gpu011"), "rackC", "every host is in its rack"
                  " [rack_of(&inv, \"gpu011\")]");
    fc_tap_is_int(&tap, s, FC_OK, "each host remembers its line in the host list");
    fc_tap_is_int(&tap, inv.host_line[4], 4, "each host remembers its line in the host list"
                  " [inv.host_line[4]]");
    if (s == FC_OK)
        fc_inventory_free(&inv);

    s = parse(NULL, "rack1: n[1-2]\nrack2: n[3-4]\n", &inv, msg, sizeof(msg));
    fc_tap_is_int(&tap, s, FC_OK, "a rack map alone is the host list");
    fc_tap_is_int(&tap, inv.nhosts, 4, "a rack map alone is the host list"
                  " [inv.nhosts]");
    fc_tap_is_str(&tap, rack_of(&inv, "n4"), "rack2", "a rack map alone is the host list"
                  " [rack_of(&inv, \"n4\")]");
    if (s == FC_OK)
        fc_inventory_free(&inv);
    s = parse("n1\nn2\n", NULL, &inv, msg, sizeof(msg));
    fc_tap_is_int(&tap, s, FC_OK, "a host list alone is one rack, 'default'");
    fc_tap_is_int(&tap, inv.nracks, 1, "a host list alone is one rack, 'default'"
                  " [inv.nracks]");
    fc_tap_is_str(&tap, rack_of(&inv, "n2"), "default", "a host list alone is one rack, 'default'"
                  " [rack_of(&inv, \"n2\")]");
    if (s == FC_OK)
        fc_inventory_free(&inv);

    /* a rack map of the whole cluster, a host list of part of it */
    s = parse("n[1-2]\nn5\n", "n[1-3] r1\nn[4-6] r2\nr3: n[7-8]\n", &inv, msg, sizeof(msg));
    fc_tap_is_int(&tap, s, FC_OK,
                  "a host list of part of the rack map: the other hosts and racks are left out, "
                  "counted (%d hosts, %d racks)", s == FC_OK ? inv.map_hosts_left_out : -1,
                  s == FC_OK ? inv.racks_left_out : -1);
    fc_tap_is_int(&tap, inv.nhosts, 3,
                  "a host list of part of the rack map: the other hosts and racks are left out, "
                  "counted (%d hosts, %d racks)"
                  " [inv.nhosts]", s == FC_OK ? inv.map_hosts_left_out : -1,
                  s == FC_OK ? inv.racks_left_out : -1);
    fc_tap_is_int(&tap, inv.nracks, 2,
                  "a host list of part of the rack map: the other hosts and racks are left out, "
                  "counted (%d hosts, %d racks)"
                  " [inv.nracks]", s == FC_OK ? inv.map_hosts_left_out : -1,
                  s == FC_OK ? inv.racks_left_out : -1);
    fc_tap_is_str(&tap, rack_of(&inv, "n1"), "r1",
                  "a host list of part of the rack map: the other hosts and racks are left out, "
                  "counted (%d hosts, %d racks)"
                  " [rack_of(&inv, \"n1\")]", s == FC_OK ? inv.map_hosts_left_out : -1,
                  s == FC_OK ? inv.racks_left_out : -1);
    fc_tap_is_str(&tap, rack_of(&inv, "n5"), "r2",
                  "a host list of part of the rack map: the other hosts and racks are left out, "
                  "counted (%d hosts, %d racks)"
                  " [rack_of(&inv, \"n5\")]", s == FC_OK ? inv.map_hosts_left_out : -1,
                  s == FC_OK ? inv.racks_left_out : -1);
    fc_tap_is_int(&tap, inv.map_hosts_left_out, 5,
                  "a host list of part of the rack map: the other hosts and racks are left out, "
                  "counted (%d hosts, %d racks)"
                  " [inv.map_hosts_left_out]", s == FC_OK ? inv.map_hosts_left_out : -1,
                  s == FC_OK ? inv.racks_left_out : -1);
    fc_tap_is_int(&tap, inv.racks_left_out, 1,
                  "a host list of part of the rack map: the other hosts and racks are left out, "
                  "counted (%d hosts, %d racks)"
                  " [inv.racks_left_out]", s == FC_OK ? inv.map_hosts_left_out : -1,
                  s == FC_OK ? inv.racks_left_out : -1);
    fc_tap_is_int(&tap, s, FC_OK,
                  "the left-out hosts of the racks in the run are named with their rack (n3 of "
                  "r1, n4 and n6 of r2); those of a rack none of whose hosts ran are not (%d)",
                  s == FC_OK ? inv.nleft_out : -1);
    fc_tap_is_int(&tap, inv.nleft_out, 3,
                  "the left-out hosts of the racks in the run are named with their rack (n3 of "
                  "r1, n4 and n6 of r2); those of a rack none of whose hosts ran are not (%d)"
                  " [inv.nleft_out]", s == FC_OK ? inv.nleft_out : -1);
    fc_tap_is_str(&tap, inv.left_out[0], "n3",
                  "the left-out hosts of the racks in the run are named with their rack (n3 of "
                  "r1, n4 and n6 of r2); those of a rack none of whose hosts ran are not (%d)"
                  " [inv.left_out[0]]", s == FC_OK ? inv.nleft_out : -1);
    fc_tap_is_int(&tap, inv.left_out_rack[0], 0,
                  "the left-out hosts of the racks in the run are named with their rack (n3 of "
                  "r1, n4 and n6 of r2); those of a rack none of whose hosts ran are not (%d)"
                  " [inv.left_out_rack[0]]", s == FC_OK ? inv.nleft_out : -1);
    fc_tap_is_str(&tap, inv.left_out[1], "n4",
                  "the left-out hosts of the racks in the run are named with their rack (n3 of "
                  "r1, n4 and n6 of r2); those of a rack none of whose hosts ran are not (%d)"
                  " [inv.left_out[1]]", s == FC_OK ? inv.nleft_out : -1);
    fc_tap_is_str(&tap, inv.left_out[2], "n6",
                  "the left-out hosts of the racks in the run are named with their rack (n3 of "
                  "r1, n4 and n6 of r2); those of a rack none of whose hosts ran are not (%d)"
                  " [inv.left_out[2]]", s == FC_OK ? inv.nleft_out : -1);
    fc_tap_is_int(&tap, inv.left_out_rack[1], 1,
                  "the left-out hosts of the racks in the run are named with their rack (n3 of "
                  "r1, n4 and n6 of r2); those of a rack none of whose hosts ran are not (%d)"
                  " [inv.left_out_rack[1]]", s == FC_OK ? inv.nleft_out : -1);
    fc_tap_is_int(&tap, inv.left_out_rack[2], 1,
                  "the left-out hosts of the racks in the run are named with their rack (n3 of "
                  "r1, n4 and n6 of r2); those of a rack none of whose hosts ran are not (%d)"
                  " [inv.left_out_rack[2]]", s == FC_OK ? inv.nleft_out : -1);
    if (s == FC_OK)
        fc_inventory_free(&inv);

    bad_inventory("a host in two racks", "n[1-3]\n", "n[1-2] r1\nn[2-3] r2\n",
                  "racks.txt:2: host 'n2' is in two racks: 'r2' here and 'r1' on line 1");
    bad_inventory("an empty rack", "n[1-2]\n", "r1: n[1-2]\nr2:\n",
                  "racks.txt:2: rack 'r2' has no host");
    bad_inventory("a malformed range", "n[1-2\n", NULL,
                  "hosts.txt:1: bad host list 'n[1-2': unbalanced");
    bad_inventory("a malformed range in the rack map", "n1\n", "n[x] r1\n",
                  "racks.txt:1: bad host list 'n[x]'");
    bad_inventory("a host in no rack", "n[1-3]\n", "n[1-2] r1\n",
                  "hosts.txt:1: host 'n3' is in no rack");
    bad_inventory("a host listed twice", "n1\nn2\nn[1-2]\n", NULL,
                  "hosts.txt:3: host 'n1' is listed twice (first on line 1)");
    bad_inventory("a rack line without a rack", "n1\n", "n1\n",
                  "racks.txt:1: expected 'HOSTS RACK' or 'RACK: HOSTS'");
    bad_inventory("an empty host list", "# nothing\n", NULL,
                  "hosts.txt:1: the host list names no host");
    bad_inventory("nothing at all", NULL, NULL, "no host list and no rack map");

    /* the MPI Operator's hostfile: fully qualified pod names with slots */
    s = parse("w-0.job-worker.ns.svc slots=8\nw-1.job-worker.ns.svc slots=8\n",
              "w-0 leaf-a\nw-1.job-worker.ns.svc leaf-b\n", &inv, msg, sizeof(msg));
    fc_tap_is_int(&tap, s, FC_OK,
                  "a hostfile of fully qualified names with slots=8: each host's slots; a pod "
                  "that calls itself w-0 is w-0.job-worker.ns.svc, in the rack map too");
    fc_tap_is_int(&tap, inv.nhosts, 2,
                  "a hostfile of fully qualified names with slots=8: each host's slots; a pod "
                  "that calls itself w-0 is w-0.job-worker.ns.svc, in the rack map too"
                  " [inv.nhosts]");
    fc_tap_is_int(&tap, inv.host_slots[0], 8,
                  "a hostfile of fully qualified names with slots=8: each host's slots; a pod "
                  "that calls itself w-0 is w-0.job-worker.ns.svc, in the rack map too"
                  " [inv.host_slots[0]]");
    fc_tap_is_int(&tap, inv.host_slots[1], 8,
                  "a hostfile of fully qualified names with slots=8: each host's slots; a pod "
                  "that calls itself w-0 is w-0.job-worker.ns.svc, in the rack map too"
                  " [inv.host_slots[1]]");
    fc_tap_is_str(&tap, rack_of(&inv, "w-0"), "leaf-a",
                  "a hostfile of fully qualified names with slots=8: each host's slots; a pod "
                  "that calls itself w-0 is w-0.job-worker.ns.svc, in the rack map too"
                  " [rack_of(&inv, \"w-0\")]");
    fc_tap_is_str(&tap, rack_of(&inv, "w-1"), "leaf-b",
                  "a hostfile of fully qualified names with slots=8: each host's slots; a pod "
                  "that calls itself w-0 is w-0.job-worker.ns.svc, in the rack map too"
                  " [rack_of(&inv, \"w-1\")]");
    fc_tap_is_int(&tap, s, FC_OK,
                  "a name that differs by a domain only finds its host; w-10 is not w-1");
    fc_tap_is_int(&tap, fc_inventory_find_host(&inv, "w-1.job-worker.ns.svc.cluster.local"), 1,
                  "a name that differs by a domain only finds its host; w-10 is not w-1"
                  " [fc_inventory_find_host(&inv, \"w-1.job-worker.ns.svc.clust...]");
    fc_tap_is_int(&tap, fc_inventory_find_host(&inv, "w-10"), -1,
                  "a name that differs by a domain only finds its host; w-10 is not w-1"
                  " [fc_inventory_find_host(&inv, \"w-10\")]");
    fc_tap_is_int(&tap, fc_inventory_find_host(&inv, "w-0.job-worker"), 0,
                  "a name that differs by a domain only finds its host; w-10 is not w-1"
                  " [fc_inventory_find_host(&inv, \"w-0.job-worker\")]");
    if (s == FC_OK)
        fc_inventory_free(&inv);
    s = parse("n1.a\nn1.b\n", NULL, &inv, msg, sizeof(msg));
    fc_tap_is_int(&tap, s, FC_OK, "a short name that two listed hosts share finds neither");
    fc_tap_is_int(&tap, fc_inventory_find_host(&inv, "n1"), -1,
                  "a short name that two listed hosts share finds neither"
                  " [fc_inventory_find_host(&inv, \"n1\")]");
    fc_tap_is_int(&tap, fc_inventory_find_host(&inv, "n1.b"), 1,
                  "a short name that two listed hosts share finds neither"
                  " [fc_inventory_find_host(&inv, \"n1.b\")]");
    if (s == FC_OK)
        fc_inventory_free(&inv);
    bad_inventory("a bad slots=", "n1 slots=0\n", NULL,
                  "hosts.txt:1: bad 'slots=0': slots=N with N from 1 to 100000");
    bad_inventory("a host listed twice in a hostfile", "n1 slots=2\nn1 slots=2\n", NULL,
                  "hosts.txt:2: host 'n1' is listed twice (first on line 1)");
    {
        char line[4096] = "r1:";

        for (int i = 0; i < 300; ++i)
            snprintf(line + strlen(line), sizeof(line) - strlen(line), " h%d", i);
        bad_inventory("300 hosts on one rack line", NULL, line,
                      "racks.txt:1: more than 255 host expressions on one line");
    }
    return fc_tap_done(&tap);
}
