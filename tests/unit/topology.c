/*
 * topology.c - unit tests of lib/inventory/fc_topology.c and its parsers: each
 * fixture of tests/fixtures/topology (README there: where each format
 * comes from) gives the expected rack map, host by host, and the notes an
 * operator must see (a left-out HCA or node, a rail cabled to another
 * rack's leaf, leaves named by GUID); the rack map text reads back through
 * the inventory to the same racks; every malformed input is refused with
 * one message naming the file and line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_input.h"
#include "fc_inventory.h"
#include "fc_tap.h"
#include "fc_test_stderr.h"
#include "fc_topology.h"

#define FIX "tests/fixtures/topology/"

static fc_tap_t tap;

/* Parse text (or a fixture file), capturing stderr into msg. */
static fc_status_t parse(const char *format, const char *text, const char *file,
                         const char *label, fc_topo_t *t, char *msg, size_t len)
{
    char *loaded = NULL;
    fc_test_stderr_t c;
    fc_status_t s;

    fc_test_stderr_begin(&c);
    if (file && fc_input_read(file, "fixture", FC_INPUT_DOC_MAX, &loaded, NULL) != FC_OK)
        s = FC_ERR_INVALID;
    else
        s = fc_topo_parse_text(format, file ? loaded : text, file ? file : "in.txt", label, t);
    fc_test_stderr_end(&c, msg, len);
    free(loaded);
    return s;
}

/* "host rack host rack ..." of the parse, in its order. */
static void racks_of(const fc_topo_t *t, char *out, size_t len)
{
    out[0] = '\0';
    for (int h = 0; h < t->nhosts; ++h)
        snprintf(out + strlen(out), len - strlen(out), "%s%s %s", h ? ", " : "",
                 t->hosts[h].name, t->racks[t->hosts[h].rack].name);
}

static int has_note(const fc_topo_t *t, const char *part)
{
    for (int k = 0; k < t->nnotes; ++k)
        if (strstr(t->notes[k], part))
            return 1;
    return 0;
}

/* A fixture gives these racks; its text reads back through the inventory
 * to the same host -> rack mapping. */
static void fixture(const char *format, const char *file, const char *label, const char *want,
                    fc_topo_t *t)
{
    char got[4096], msg[2048], back[4096] = "";
    fc_inventory_t inv;
    fc_status_t s = parse(format, NULL, file, label, t, msg, sizeof(msg));

    if (s != FC_OK) {
        fc_tap_ok(&tap, 0, "%s: parsed (%s)", file, msg);
        fc_tap_ok(&tap, 0, "%s: its rack map reads back", file);
        memset(t, 0, sizeof(*t));
        return;
    }
    racks_of(t, got, sizeof(got));
    fc_tap_is_str(&tap, got, want, "%s: the expected racks", file);
    {
        char *text = fc_topo_racks_text(t);

        if (fc_inventory_parse(NULL, NULL, text, "racks.txt", &inv) == FC_OK) {
            for (int h = 0; h < inv.nhosts; ++h)
                snprintf(back + strlen(back), sizeof(back) - strlen(back), "%s%s %s",
                         h ? ", " : "", inv.hosts[h], inv.racks[inv.host_rack[h]]);
            fc_inventory_free(&inv);
        }
        fc_tap_is_str(&tap, back, want, "%s: its rack map reads back as the same racks", file);
        free(text);
    }
}

static void refused(const char *what, const char *format, const char *text, const char *label,
                    const char *want)
{
    fc_topo_t t;
    char msg[2048];
    fc_status_t s = parse(format, text, NULL, label, &t, msg, sizeof(msg));

    fc_tap_is_int(&tap, s, FC_ERR_INVALID, "%s: refused with '%s'", what, want);
    fc_tap_ok(&tap, strstr(msg, want) != NULL, "%s: refused with '%s'"
              " [strstr(msg, want) != NULL]", what, want);
    if (s == FC_OK)
        fc_topo_free(&t);
    else if (strstr(msg, want) == NULL)
        fc_tap_diag(&tap, "message was: %s", msg);
}

static void test_fixtures(void)
{
    fc_topo_t t;
    const fc_topo_host_t *h;

    fixture("slurm", FIX "slurm-show-topology.txt", NULL,
            "gpu001 leaf-a, gpu002 leaf-a, gpu003 leaf-a, gpu004 leaf-a, gpu005 leaf-b, "
            "gpu006 leaf-b, gpu007 leaf-b, gpu008 leaf-b, cpu1 leaf-c, cpu2 leaf-c", &t);
    fc_tap_is_int(&tap, t.nracks, 3, "scontrol's spine (Level=1), which lists every node, is "
                  "no rack (%d racks)", t.nracks);
    fc_topo_free(&t);
    fixture("slurm", FIX "slurm-topology.conf", NULL,
            "gpu001 leaf-a, gpu002 leaf-a, gpu003 leaf-a, gpu004 leaf-a, gpu005 leaf-b, "
            "gpu006 leaf-b, gpu007 leaf-b, gpu008 leaf-b, cpu1 leaf-c, cpu2 leaf-c", &t);
    fc_topo_free(&t);

    fixture("ibnetdiscover", FIX "ibnet-rails.txt", NULL,
            "gpu01 leaf-r1-rail0, gpu02 leaf-r1-rail0, gpu03 leaf-r2-rail0, gpu04 leaf-r2-rail0",
            &t);
    h = t.nhosts > 1 ? &t.hosts[1] : NULL;
    fc_tap_ok(&tap, h && h->nrails == 2 && !strcmp(h->rails[0].dev, "mlx5_0") &&
              !strcmp(h->rails[0].leaf, "leaf-r1-rail0") && !strcmp(h->rails[1].dev, "mlx5_1") &&
              !strcmp(h->rails[1].leaf, "leaf-r1-rail1"),
              "gpu02's rails: mlx5_0 on leaf-r1-rail0, mlx5_1 on leaf-r1-rail1");
    fc_tap_ok(&tap, has_note(&t, "left out: HCA H-b83fd20300c0a000") &&
              has_note(&t, "'MT4129 ConnectX7   Mellanox Technologies', not 'HOST DEVICE'"),
              "the storage HCA without a HOST DEVICE description is left out, and noted");
    fc_tap_ok(&tap, !has_note(&t, "a cable in another"), "a clean fabric has no cabling note");
    fc_topo_free(&t);
    fixture("ibnetdiscover", FIX "ibnet-miscabled.txt", NULL,
            "gpu01 leaf-r1-rail0, gpu02 leaf-r1-rail0, gpu03 leaf-r2-rail0, gpu04 leaf-r2-rail0",
            &t);
    fc_tap_ok(&tap, has_note(&t, "host gpu02: rail 1 (mlx5_1, line ") &&
              has_note(&t, "hangs off leaf-r2-rail1, where 1 other host(s) of rack "
                       "leaf-r1-rail0 have leaf-r1-rail1: a cable in another leaf's port?"),
              "gpu02's rail 1 cabled to rack 2's leaf is noted, naming the host, rail and leaves");
    fc_topo_free(&t);
    fixture("ibnetdiscover", FIX "ibnet-unnamed.txt", NULL,
            "gpu01 S-fc6a1c0300a0b000, gpu02 S-fc6a1c0300a0b000, gpu03 S-fc6a1c0300a0c000, "
            "gpu04 S-fc6a1c0300a0c000", &t);
    fc_tap_ok(&tap, has_note(&t, "leaf switches named by GUID"),
              "leaves that share the factory description are named by GUID, and noted");
    fc_topo_free(&t);

    fixture("k8s", FIX "k8s-nodes.json", NULL,
            "gpu-a1 leaf-a, gpu-a2 leaf-a, gpu-b1 leaf-b, gpu-b2 leaf-b", &t);
    fc_tap_ok(&tap, has_note(&t, "left out: node cp-1 (line ") &&
              has_note(&t, "has no label network.topology.nvidia.com/leaf") &&
              strstr(t.rule, "network.topology.nvidia.com/leaf") != NULL,
              "the leaf label names the racks; the control-plane node without it is noted");
    fc_tap_ok(&tap, t.nhosts > 0 && strstr(t.hosts[0].note, "nvidia.com/gpu.clique="
              "c3f1d7e2-7d2b-4d61-9a0e-5b1f3c9d0a11.1") != NULL,
              "each node's other topology labels (its NVLink clique) are shown beside it");
    fc_topo_free(&t);
    fixture("k8s", FIX "k8s-nodes.json", "nvidia.com/gpu.clique",
            "gpu-a1 c3f1d7e2-7d2b-4d61-9a0e-5b1f3c9d0a11.1, "
            "gpu-a2 c3f1d7e2-7d2b-4d61-9a0e-5b1f3c9d0a11.1, "
            "gpu-b1 c3f1d7e2-7d2b-4d61-9a0e-5b1f3c9d0a11.2, "
            "gpu-b2 c3f1d7e2-7d2b-4d61-9a0e-5b1f3c9d0a11.2", &t);
    fc_topo_free(&t);
    fixture("k8s", FIX "k8s-nodes-clique.yaml", NULL,
            "nvl0-tray01 0f9e8d7c-6b5a-4938-8271-605f4e3d2c1b.0, "
            "nvl0-tray02 0f9e8d7c-6b5a-4938-8271-605f4e3d2c1b.0, "
            "nvl1-tray01 0f9e8d7c-6b5a-4938-8271-605f4e3d2c1b.1, "
            "nvl1-tray02 0f9e8d7c-6b5a-4938-8271-605f4e3d2c1b.1", &t);
    fc_tap_ok(&tap, strstr(t.rule, "nvidia.com/gpu.clique") != NULL,
              "without a leaf label, -o yaml's NVLink clique names the racks");
    fc_topo_free(&t);
}

static void test_refused(void)
{
    refused("slurm: a bad hostlist", "slurm", "SwitchName=s1 Level=0 Nodes=n[1-2\n", NULL,
            "in.txt:1: bad Nodes=n[1-2: unbalanced");
    refused("slurm: a node under two leaves", "slurm",
            "SwitchName=s1 Nodes=n[1-2]\n\nSwitchName=s2 Nodes=n2\n", NULL,
            "in.txt:3: host 'n2' is in two racks: 's2' here and 's1' on line 1");
    refused("slurm: no topology plugin", "slurm", "No topology information available\n", NULL,
            "in.txt:1: Slurm has no switch topology");
    refused("slurm: not Key=Value", "slurm", "# c\nSwitchName=s1 Nodes n1\n", NULL,
            "in.txt:2: 'Nodes' is not Key=Value");
    refused("slurm: another file", "slurm", "NodeName=n1 CPUs=4\n", NULL,
            "in.txt:1: a line starts with SwitchName= or BlockName=, not 'NodeName='");
    refused("slurm: a bad level", "slurm", "SwitchName=s1 Level=x Nodes=n1\n", NULL,
            "in.txt:1: Level=x is not a number");
    refused("slurm: no leaf", "slurm", "# empty\nSwitchName=top Switches=s[1-2]\n", NULL,
            "in.txt:1: no switch lists Nodes=");
    refused("slurm: two switches, one rack name", "slurm",
            "SwitchName=a;b Nodes=n1\nSwitchName=a:b Nodes=n2\n", NULL,
            "in.txt:2: 'a:b' and 'a;b' (line 1) would both be rack 'a-b'");
    refused("slurm: a rack label", "slurm", "SwitchName=s1 Nodes=n1\n", "x/y",
            "--rack-label names a Kubernetes node label");

    refused("ibnetdiscover: a port line first", "ibnetdiscover",
            "#\n[1]\t\"S-0002c90000000001\"[1]\t\t# \"sw\" lid 1 4xNDR\n", NULL,
            "in.txt:2: a port line before any Switch or Ca line");
    refused("ibnetdiscover: a bad node", "ibnetdiscover", "Switch\t36 \"X-12\"\t\t# \"sw\"\n",
            NULL, "in.txt:1: expected 'Switch N \"S-GUID\"");
    refused("ibnetdiscover: a bad peer", "ibnetdiscover",
            "Ca\t1 \"H-0000000000000001\"\t\t# \"n1 mlx5_0\"\n[1](1) \tS-0000000000000002[1]\n",
            NULL, "in.txt:2: expected the peer");
    refused("ibnetdiscover: a foreign line", "ibnetdiscover", "#\nhello world\n", NULL,
            "in.txt:2: not a line of an ibnetdiscover topology file: 'hello world'");
    refused("ibnetdiscover: links that disagree", "ibnetdiscover",
            "Switch\t36 \"S-0000000000000010\"\t\t# \"leaf1\" base port 0 lid 1 lmc 0\n"
            "[1]\t\"H-0000000000000001\"[1](1) \t\t# \"n1 mlx5_0\" lid 2 4xNDR\n"
            "Ca\t1 \"H-0000000000000001\"\t\t# \"n1 mlx5_0\"\n"
            "[1](1) \t\"S-0000000000000020\"[3]\t\t# lid 2 lmc 0 \"leaf2\" lid 3 4xNDR\n", NULL,
            "in.txt:4: HCA port 0000000000000001[1] hangs off switch 0000000000000020 here "
            "and 0000000000000010 on line 2");
    refused("ibnetdiscover: two HCAs one name", "ibnetdiscover",
            "Ca\t1 \"H-0000000000000001\"\t\t# \"n1 mlx5_0\"\n"
            "[1](1) \t\"S-0000000000000010\"[1]\t\t# lid 2 lmc 0 \"leaf1\" lid 1 4xNDR\n"
            "Ca\t1 \"H-0000000000000002\"\t\t# \"n1 mlx5_0\"\n"
            "[1](2) \t\"S-0000000000000010\"[2]\t\t# lid 3 lmc 0 \"leaf1\" lid 1 4xNDR\n", NULL,
            "in.txt:3: two HCAs of host n1 are both mlx5_0 (lines 2 and 4)");
    refused("ibnetdiscover: no host", "ibnetdiscover",
            "Switch\t36 \"S-0000000000000010\"\t\t# \"leaf1\" base port 0 lid 1 lmc 0\n", NULL,
            "in.txt:1: no host is placed in a rack here");

    refused("k8s: not JSON", "k8s", "{\"items\": [\n {\"metadata\": {\"name\": \"n1\"}},\n"
            " {\"metadata\": {\"name\": @n2}}\n]}\n", NULL, "in.txt:3: not JSON or YAML");
    refused("k8s: cut short", "k8s", "{ \"items\": [\n  { \"metadata\": }\n", NULL,
            "in.txt:2: not JSON or YAML");
    refused("k8s: another kind", "k8s", "{\"kind\": \"Pod\", \"metadata\": {}}\n", NULL,
            "in.txt:1: expected 'items', the list of nodes of `kubectl get nodes -o json`; "
            "this is a Pod");
    refused("k8s: a node without a name", "k8s",
            "{\"items\": [\n {\"metadata\": {\"name\": \"n1\", \"labels\": "
            "{\"topology.kubernetes.io/zone\": \"z\"}}},\n"
            " {\"metadata\": {\n   \"labels\": {\"topology.kubernetes.io/zone\": \"z\"}}}]}\n",
            NULL, "in.txt:3: a node without metadata.name");
    refused("k8s: a label that is no string", "k8s",
            "{\"items\": [{\"metadata\": {\"name\": \"n1\", \"labels\": {\n"
            "  \"network.topology.nvidia.com/leaf\": [\"a\"]}}}]}\n", NULL,
            "in.txt:2: node n1: label network.topology.nvidia.com/leaf is not a string");
    refused("k8s: no topology label at all", "k8s",
            "{\"items\": [{\"metadata\": {\"name\": \"n1\", \"labels\": {\"a\": \"b\"}}}]}\n",
            NULL, "in.txt:1: no node carries a label that names its rack");
    refused("k8s: a label nobody has", "k8s",
            "{\"items\": [{\"metadata\": {\"name\": \"n1\", \"labels\": {\"a\": \"b\"}}}]}\n",
            "rack.example.com/row", "in.txt:1: no host is placed in a rack here");
    refused("an unknown format", "lldp", "x", NULL, "unknown topology format 'lldp'");
    refused("k8s: a byte that is not UTF-8 (an overlong NUL)", "k8s",
            "{\"items\": []}\n# \xc0\x80\n", NULL,
            "in.txt:2: not UTF-8 text at column 3 (byte 0xc0)");
}

/* Where a text stops being UTF-8: libfyaml 0.7 never returns from a
 * directive line with such a byte, so each YAML reader checks first. */
static void test_utf8(void)
{
    static const struct {
        const char *what, *text;
        size_t len, end;
        int line, col;
    } cases[] = {
        { "ASCII", "a: 1\nb: 2\n", 10, 10, 3, 1 },
        { "2, 3 and 4-byte forms", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, 9, 1, 4 },
        { "a byte that starts nothing", "ab\n%x\xf9\n", 7, 5, 2, 3 },
        { "an overlong form", "\xc0\x80", 2, 0, 1, 1 },
        { "a surrogate", "x\xed\xa0\x80", 4, 1, 1, 2 },
        { "past U+10FFFF", "\xf4\x90\x80\x80", 4, 0, 1, 1 },
        { "a sequence cut short at the end", "ab\xe2\x82", 4, 2, 1, 3 },
        { "a NUL", "a\0b", 3, 1, 1, 2 },
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
        int line = 0, col = 0;
        size_t end = fc_input_utf8_end(cases[i].text, cases[i].len, &line, &col);

        fc_tap_is_int(&tap, (long)end, (long)cases[i].end, "utf8: %s: UTF-8 up to byte %zu",
                      cases[i].what, cases[i].end);
        fc_tap_is_int(&tap, line * 1000 + col, cases[i].line * 1000 + cases[i].col,
                      "utf8: %s: at line %d, column %d (line x 1000 + column)", cases[i].what,
                      cases[i].line, cases[i].col);
    }
}

/* A plain text made fit to parse: a byte order mark dropped, a NUL refused
 * (its error, on stderr, names the line and column: tests/e2e/inventory.t). */
static void test_plain_text(void)
{
    char bom[] = "\xef\xbb\xbfgpu001 r1\n", nul[] = "gpu001\ngp\0u002\n", ok[] = "gpu001\n";
    size_t len = sizeof(bom) - 1;

    fc_tap_is_int(&tap, fc_input_plain_text("t", "host list", bom, &len), FC_OK,
                  "plain text: a byte order mark is no error");
    fc_tap_is_str(&tap, bom, "gpu001 r1\n", "plain text: the byte order mark is dropped");
    fc_tap_is_int(&tap, (long)len, 10, "plain text: and the length is shortened by 3");
    len = sizeof(nul) - 1;
    fc_tap_is_int(&tap, fc_input_plain_text("t", "host list", nul, &len), FC_ERR_INVALID,
                  "plain text: a NUL byte is refused");
    len = sizeof(ok) - 1;
    fc_tap_is_int(&tap, fc_input_plain_text("t", "host list", ok, &len), FC_OK,
                  "plain text: a text without either is left as it is");
    fc_tap_is_int(&tap, (long)len, 7, "plain text: its length unchanged");
}

int main(void)
{
    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 97);
    test_fixtures();
    test_refused();
    test_utf8();
    test_plain_text();
    return fc_tap_done(&tap);
}
