/*
 * pci_topo.c - unit tests of lib/pci/fc_pci_topo.c and fc_pci_affinity.c: the
 * distance between two PCI paths in each of nvidia-smi topo's classes;
 * the 8-GPU, 8-NIC two-socket fixture (tests/fixtures/sysfs/hgx/
 * fc_mk_hgx.sh, written into a temporary directory, once as built and
 * once per planted fault) read and judged against profiles loaded from
 * YAML:
 *   good           each GPU's nearest NIC is the one behind its switch
 *                  (PIX), on its NUMA node: PASS, with and without a map
 *   drop-nic=3     GPU 3's nearest NIC is across host bridges (NODE):
 *                  FAIL naming GPU and NIC; with a map, the mapped NIC
 *                  is named as missing; max_distance NODE lets it pass
 *   slow-nic=5     NIC 5's link at 16 GT/s x8 (can do 32 x16): FAIL naming
 *                  the NIC and the GPU it serves
 *   move-nic=3     NIC 3 in a slot of socket 1: GPU 3's mapped NIC is SYS,
 *                  FAIL naming both; unmapped, its nearest is NODE
 *   socket 0 without NICs: each socket-0 GPU's nearest NIC is SYS
 *   representors   netdevs and a sub-function's RDMA device planted on
 *                  NIC 0's function: one NIC with every name, mapped by any
 *   GPU 0's VF     an SR-IOV virtual function of a GPU: not a GPU, the
 *                  indexes hold
 *   GPU 3 removed  a map by index: one reason naming mlx5_3's gap, no
 *                  healthy GPU blamed for its neighbour's NIC
 *   no-gpus        the check did not apply, and says why; under a map, FAIL
 *   numa-unknown   a switch's GPU and NIC are still PIX; across host
 *                  bridges, unknown NUMA counts as SYS
 *   dangling link  an RDMA device whose device link leads nowhere: FAIL
 *                  naming it (a bond, a platform NIC: not NICs, no failure)
 *   a VM's vPCI    GPUs and NICs below the VMBus device (Azure): placed
 *                  from their own host bridges, NODE by NUMA
 * and the profile's expectation as read, and refused with file:line:col.
 * Run from the repository root (make check does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_pci_topo.h"
#include "fc_tap.h"

static fc_tap_t tap;
static char tmp[64];
static char last_root[256];     /* the tree tree() built last */
static char good_root[256];     /* the good tree, for a GPU removed later */

/* Build the fixture with `variants` and read it. */
static json_t *tree(const char *variants)
{
    char root[256];
    static int n;

    snprintf(root, sizeof(root), "%s/t%d", tmp, n++);
    snprintf(last_root, sizeof(last_root), "%s", root);
    if (fc_tap_sh(&tap, "tests/fixtures/sysfs/hgx/fc_mk_hgx.sh %s %s", root, variants) != 0)
        fc_tap_bail(&tap, "a sysfs fixture command failed (named above)");
    return fc_pci_topo_read(root);
}

/* Load `yaml` (the preflight expect: body) into *a; the status. */
static fc_status_t profile(const char *yaml, fc_affinity_profile_t *a, char *err, size_t len)
{
    static fc_profile_t p;
    char path[300], errpath[300], text[2048];
    fc_status_t st;
    FILE *f;
    int saved = dup(2);

    snprintf(path, sizeof(path), "%s/profile.yaml", tmp);
    snprintf(errpath, sizeof(errpath), "%s/stderr", tmp);
    snprintf(text, sizeof(text), "name: affinity\nstages:\n  preflight:\n    expect:\n"
             "      gpu_nic_affinity:\n%s", yaml);
    f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    fflush(stderr);
    if (freopen(errpath, "w", stderr) == NULL)
        fc_tap_bail(&tap, "cannot redirect stderr");
    memset(&p, 0, sizeof(p));
    st = fc_profile_load(path, &p);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    *a = p.stages[FC_STAGE_PREFLIGHT].expect.affinity;
    err[0] = '\0';
    if ((f = fopen(errpath, "r")) != NULL) {
        size_t got = fread(err, 1, len - 1, f);

        err[got] = '\0';
        err[strcspn(err, "\n")] = '\0';
        fclose(f);
    }
    return st;
}

static const char *reason_with(json_t *reasons, const char *text)
{
    json_t *r;
    size_t i;

    json_array_foreach(reasons, i, r)
        if (strstr(json_string_value(r), text))
            return json_string_value(r);
    return NULL;
}

/* Judge topo; one point that the reasons hold each of `says` (NULL-ended)
 * and nothing else fails (n_reasons), diagnosing them otherwise. */
static json_t *judge(const char *name, json_t *topo, const fc_affinity_profile_t *a,
                     size_t n_reasons, const char *const *says)
{
    json_t *reasons = json_array(), *r;
    const char *part = "none";
    json_t *res = fc_pci_affinity_judge(a, topo, "gpu07", reasons, &part);
    int ok = json_array_size(reasons) == n_reasons;
    size_t i;

    for (int k = 0; says && says[k]; ++k)
        ok &= reason_with(reasons, says[k]) != NULL;
    fc_tap_ok(&tap, ok, "%s: %zu failure(s)%s%s", name, n_reasons, says ? ": " : "",
              says ? says[0] : "");
    if (!ok)
        json_array_foreach(reasons, i, r)
            fc_tap_diag(&tap, "reason: %s", json_string_value(r));
    json_decref(reasons);
    return res;
}

int main(void)
{
    fc_affinity_profile_t a, amap;
    char err[2048];
    json_t *t, *res, *g;
    size_t i;
    int ok;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 56);
    /* in memory where there is a tmpfs: ~3,000 small files, 8 trees */
    snprintf(tmp, sizeof(tmp), "%s/fabcert-pci-topo.XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (mkdtemp(tmp) == NULL)
        fc_tap_bail(&tap, "mkdtemp: %m");

    /* ---- distances from paths ---- */
    const char *g0 = "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:19:00.0";
    fc_tap_is_str(&tap, fc_pci_dist_name(fc_pci_distance(g0, 0,
                  "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:18:00.0", 0)),
                  "PIX", "one switch between GPU and NIC: PIX");
    fc_tap_is_str(&tap, fc_pci_dist_name(fc_pci_distance(
                  "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:20:00.0/0000:21:00.0/0000:22:00.0", 0,
                  "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:18:00.0", 0)),
                  "PXB", "a second-level switch on one side: PXB");
    fc_tap_is_str(&tap, fc_pci_dist_name(fc_pci_distance(g0, 0,
                  "pci0000:15/0000:15:03.0/0000:30:00.0", 0)), "PHB",
                  "different root ports of one host bridge: PHB");
    ok = fc_pci_distance(g0, 0, "pci0000:37/0000:37:01.0/0000:38:00.0", 0) == FC_PCI_NODE &&
         fc_pci_distance(g0, 0, "pci0000:97/0000:97:01.0/0000:98:00.0", 1) == FC_PCI_SYS &&
         fc_pci_distance(g0, -1, "pci0000:37/0000:37:01.0/0000:38:00.0", -1) == FC_PCI_SYS &&
         fc_pci_distance("", 0, g0, 0) == FC_PCI_UNKNOWN;
    fc_tap_ok(&tap, ok, "other host bridge: NODE on one NUMA node, SYS across or unknown; "
              "no path: UNKNOWN");

    /* ---- the profile ---- */
    ok = profile("        max_distance: PIX\n        nics: \"mlx5_*\"\n        nic_link: false\n"
                 "        map: {\"0000:19:00.0\": mlx5_0, \"7\": mlx5_7}\n", &a, err,
                 sizeof(err)) == FC_OK;
    fc_tap_ok(&tap, ok && a.enabled, "the expectation is read: max_distance, nics, nic_link, "
              "the map and its lines (%s)", err);
    fc_tap_is_int(&tap, a.max_distance, FC_PCI_PIX,
                  "the expectation is read: max_distance, nics, nic_link, "
                  "the map and its lines (%s)"
                  " [a.max_distance]", err);
    fc_tap_is_str(&tap, a.nics, "mlx5_*", "the expectation is read: max_distance, nics, nic_link, "
                  "the map and its lines (%s)"
                  " [a.nics]", err);
    fc_tap_ok(&tap, !a.nic_link, "the expectation is read: max_distance, nics, nic_link, "
              "the map and its lines (%s)"
              " [!a.nic_link]", err);
    fc_tap_is_int(&tap, a.nmap, 2, "the expectation is read: max_distance, nics, nic_link, "
                  "the map and its lines (%s)"
                  " [a.nmap]", err);
    fc_tap_is_str(&tap, a.map[0].gpu, "0000:19:00.0",
                  "the expectation is read: max_distance, nics, nic_link, "
                  "the map and its lines (%s)"
                  " [a.map[0].gpu]", err);
    fc_tap_is_str(&tap, a.map[1].nic, "mlx5_7",
                  "the expectation is read: max_distance, nics, nic_link, "
                  "the map and its lines (%s)"
                  " [a.map[1].nic]", err);
    fc_tap_is_int(&tap, a.map[1].line, 9, "the expectation is read: max_distance, nics, nic_link, "
                  "the map and its lines (%s)"
                  " [a.map[1].line]", err);
    ok = profile("        max_distance: FAR\n", &a, err, sizeof(err)) == FC_ERR_INVALID;
    fc_tap_ok(&tap, ok && strstr(err, "profile.yaml:6:23: 'max_distance' must be PIX, PXB, "
              "PHB, NODE or SYS, not 'FAR'"), "a bad distance is refused at file:line:col");
    if (!ok || !strstr(err, "profile.yaml:6:23"))
        fc_tap_diag(&tap, "stderr: %s", err);
    ok = profile("        map: {\"0000:1B:00.0\": mlx5_0}\n", &a, err, sizeof(err)) ==
         FC_ERR_INVALID;
    fc_tap_ok(&tap, ok && strstr(err, "profile.yaml:6:16: 'map': '0000:1B:00.0' is neither"),
              "a GPU key that is not a PCI address (uppercase hex) is refused (%s)", err);
    ok = profile("        map: {\"3\": mlx5_3, \"03\": mlx5_4}\n", &a, err, sizeof(err)) ==
         FC_ERR_INVALID;
    fc_tap_ok(&tap, ok && strstr(err, "profile.yaml:6:29: 'map': GPU 3 is mapped twice (line 6)"),
              "a GPU mapped twice (as 3 and 03) is refused (%s)",
              err);
    {
        char many[1024] = "        map: {";

        for (int k = 0; k <= FC_AFFINITY_MAX_MAP; ++k)
            snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s\"%d\": mlx5_%d",
                     k ? ", " : "", k, k);
        strcat(many, "}\n");
        ok = profile(many, &a, err, sizeof(err)) == FC_ERR_INVALID;
        fc_tap_ok(&tap, ok && strstr(err, "profile.yaml:6:") &&
                  strstr(err, "'map': more than 16 GPUs"), "a map of 17 GPUs is refused at "
                  "the 17th (%s)", err);
    }
    ok = profile("        {}\n", &a, err, sizeof(err)) == FC_OK;
    fc_tap_ok(&tap, ok && a.enabled,
              "an empty section enables the check with its defaults: PXB, every "
              "NIC, links judged");
    fc_tap_is_int(&tap, a.max_distance, FC_PCI_PXB,
                  "an empty section enables the check with its defaults: PXB, every "
                  "NIC, links judged"
                  " [a.max_distance]");
    fc_tap_is_str(&tap, a.nics, "*",
                  "an empty section enables the check with its defaults: PXB, every "
                  "NIC, links judged"
                  " [a.nics]");
    fc_tap_ok(&tap, a.nic_link, "an empty section enables the check with its defaults: PXB, every "
              "NIC, links judged"
              " [a.nic_link]");
    profile("        nics: \"mlx5_*\"\n", &a, err, sizeof(err));
    profile("        nics: \"mlx5_*\"\n        map: {\"0\": mlx5_0, \"1\": mlx5_1, \"2\": mlx5_2,"
            " \"3\": mlx5_3, \"4\": mlx5_4, \"5\": mlx5_5, \"6\": mlx5_6, \"7\": mlx5_7}\n",
            &amap, err, sizeof(err));

    /* ---- the good tree, and a virtio NIC (a VM's: on its own bus, on a
     * PCI function) beside it ---- */
    t = tree("");
    {
        json_t *nic;

        if (fc_tap_sh(&tap, "cd %s && d=devices/pci0000:00/0000:00:03.0 && "
                      "mkdir -p $d/virtio2/net/eth9 && echo 0x1af4 > $d/vendor && "
                      "ln -s ../../../virtio2 $d/virtio2/net/eth9/device && "
                      "ln -s ../../$d/virtio2/net/eth9 class/net/eth9", last_root) != 0)
            fc_tap_bail(&tap, "a sysfs fixture command failed (named above)");
        json_decref(t);
        t = fc_pci_topo_read(last_root);
        nic = json_array_get(json_object_get(t, "nics"), 0);    /* by address */
        fc_tap_is_int(&tap, json_array_size(json_object_get(t, "nics")), 10,
                      "a virtio NIC is placed at the PCI function it sits on (%s)",
                      json_string_value(json_object_get(nic, "path")));
        fc_tap_is_str(&tap, json_string_value(json_object_get(nic, "name")), "eth9",
                      "a virtio NIC is placed at the PCI function it sits on (%s)"
                      " [json_string_value(json_object_get(nic, \"name\"))]",
                      json_string_value(json_object_get(nic, "path")));
        fc_tap_is_str(&tap, json_string_value(json_object_get(nic, "path")),
                      "pci0000:00/0000:00:03.0",
                      "a virtio NIC is placed at the PCI function it sits on (%s)"
                      " [json_string_value(json_object_get(nic, \"path\"))]",
                      json_string_value(json_object_get(nic, "path")));
        /* NIC 0's function gets switchdev representors (netdevs whose
         * device link is the PF's) and a sub-function whose RDMA device
         * sits below it, created after ib0 and mlx5_0 so that readdir
         * (newest first on tmpfs) meets them first */
        if (fc_tap_sh(&tap, "cd %s && f=devices/pci0000:15/0000:15:01.0/0000:16:00.0/"
                      "0000:17:01.0/0000:18:00.0 && for r in pf0vf0 pf0hpf; do "
                      "mkdir -p $f/net/$r && ln -s ../../../0000:18:00.0 $f/net/$r/device && "
                      "ln -s ../../$f/net/$r class/net/$r; done && "
                      "mkdir -p $f/mlx5_core.sf.2/infiniband/mlx5_10 && "
                      "ln -s ../../../mlx5_core.sf.2 "
                      "$f/mlx5_core.sf.2/infiniband/mlx5_10/device && "
                      "ln -s ../../$f/mlx5_core.sf.2/infiniband/mlx5_10 class/infiniband/mlx5_10",
                      last_root) != 0)
            fc_tap_bail(&tap, "a sysfs fixture command failed (named above)");
        json_decref(t);
        t = fc_pci_topo_read(last_root);
        json_array_foreach(json_object_get(t, "nics"), i, nic)
            if (strcmp(json_string_value(json_object_get(nic, "bdf")), "0000:18:00.0") == 0)
                break;
        {
            char *names = json_dumps(json_object_get(nic, "names"), JSON_COMPACT);

            fc_tap_is_str(&tap, names,
                          "[\"mlx5_0\",\"ib0\",\"mlx5_10\","
                          "\"pf0hpf\",\"pf0vf0\"]",
                          "a function with representors and a sub-function's RDMA device is one "
                          "NIC with every name, called by the PF's RDMA device (%s)", names);
            fc_tap_is_str(&tap, json_string_value(json_object_get(nic, "name")), "mlx5_0",
                          "a function with representors and a sub-function's RDMA device is one "
                          "NIC with every name, called by the PF's RDMA device (%s)"
                          " [json_string_value(json_object_get(nic, \"name\"))]", names);
            free(names);
        }
        snprintf(good_root, sizeof(good_root), "%s", last_root);
    }
    fc_tap_is_int(&tap, json_array_size(json_object_get(t, "gpus")), 8,
                  "good: 8 GPUs, 10 NICs (8 fabric, eno1, eth9), no read errors (lo is not a "
                  "NIC)");
    fc_tap_is_int(&tap, json_array_size(json_object_get(t, "nics")), 10,
                  "good: 8 GPUs, 10 NICs (8 fabric, eno1, eth9), no read errors (lo is not a "
                  "NIC)"
                  " [json_array_size(json_object_get(t, \"nics\"))]");
    fc_tap_is_int(&tap, json_array_size(json_object_get(t, "errors")), 0,
                  "good: 8 GPUs, 10 NICs (8 fabric, eno1, eth9), no read errors (lo is not a "
                  "NIC)"
                  " [json_array_size(json_object_get(t, \"errors\"))]");
    res = judge("good", t, &a, 0, NULL);
    ok = json_is_true(json_object_get(res, "applied"));
    json_array_foreach(json_object_get(res, "gpus"), i, g) {
        char want[32];

        snprintf(want, sizeof(want), "mlx5_%zu", i);
        ok &= strcmp(json_string_value(json_object_get(g, "distance")), "PIX") == 0 &&
              strcmp(json_string_value(json_object_get(g, "nearest")), want) == 0 &&
              json_integer_value(json_object_get(g, "numa")) == (i < 4 ? 0 : 1) &&
              json_integer_value(json_object_get(g, "nearest_numa")) == (i < 4 ? 0 : 1) &&
              json_array_size(json_object_get(g, "ties")) == 1;
    }
    fc_tap_ok(&tap, ok, "good: GPU i's nearest NIC is mlx5_i, PIX, both on NUMA i < 4 ? 0 : 1");
    fc_tap_is_int(&tap, json_array_size(json_object_get(res, "gpus")), 8,
                  "good: GPU i's nearest NIC is mlx5_i, PIX, both on NUMA i < 4 ? 0 : 1"
                  " [json_array_size(json_object_get(res, \"gpus\"))]");
    json_decref(res);
    json_decref(judge("good, every GPU mapped to its NIC", t, &amap, 0, NULL));
    {
        /* an SR-IOV virtual function of GPU 0 (a vGPU host): no GPU */
        json_t *t2;

        if (fc_tap_sh(&tap, "cd %s && g=devices/pci0000:15/0000:15:01.0/0000:16:00.0/"
                      "0000:17:00.0 && mkdir $g/0000:19:00.4 && cp $g/0000:19:00.0/vendor "
                      "$g/0000:19:00.0/class $g/0000:19:00.0/numa_node $g/0000:19:00.4/ && "
                      "ln -s ../0000:19:00.0 $g/0000:19:00.4/physfn && "
                      "ln -s ../../../$g/0000:19:00.4 bus/pci/devices/0000:19:00.4",
                      good_root) != 0)
            fc_tap_bail(&tap, "a sysfs fixture command failed (named above)");
        t2 = fc_pci_topo_read(good_root);
        json_decref(judge("good, with a virtual function of GPU 0, mapped by index", t2, &amap,
                          0, NULL));
        json_decref(t2);
    }
    {
        fc_affinity_profile_t byname = amap;

        snprintf(byname.map[0].nic, sizeof(byname.map[0].nic), "ib0");
        snprintf(byname.map[1].nic, sizeof(byname.map[1].nic), "ib1");
        json_decref(judge("good, GPUs 0 and 1 mapped by the netdev beside the representors",
                          t, &byname, 0, NULL));
    }
    json_decref(t);

    /* ---- GPU 3 fallen off the bus, the map by index: the GPUs after it
     * take shifted indexes; none of them is blamed, the gap is named ---- */
    if (fc_tap_sh(&tap, "cd %s && rm bus/pci/devices/0000:5d:00.0 && rm -r devices/"
                  "pci0000:59/0000:59:01.0/0000:5a:00.0/0000:5b:00.0/0000:5d:00.0",
                  good_root) != 0)
        fc_tap_bail(&tap, "a sysfs fixture command failed (named above)");
    t = fc_pci_topo_read(good_root);
    json_decref(judge("GPU 3 gone, mapped by index", t, &amap, 1, (const char *const[]){
        "gpu07: the profile maps GPUs by index up to 7 (line 7) and the node has 7 NVIDIA "
        "GPU(s): a GPU is missing", "mapped NIC(s) with no GPU within PXB: mlx5_3 (GPU 3 in "
        "the map)", NULL }));
    json_decref(t);

    /* ---- a missing NIC ---- */
    t = tree("drop-nic=3");
    json_decref(judge("drop-nic=3", t, &a, 1, (const char *const[]){
        "GPU 0000:5d:00.0 (NUMA 0) on gpu07: nearest NIC mlx5_0 0000:18:00.0 (NUMA 0) (and 2 "
        "more at NODE) is NODE: through another host bridge of the same NUMA node; the "
        "profile allows at most PXB", NULL }));
    json_decref(judge("drop-nic=3, mapped", t, &amap, 1, (const char *const[]){
        "GPU 0000:5d:00.0 (NUMA 0) on gpu07: the profile maps it to NIC mlx5_3 (line 7), "
        "which is not on the node", NULL }));
    a.max_distance = FC_PCI_NODE;
    json_decref(judge("drop-nic=3 under max_distance NODE", t, &a, 0, NULL));
    a.max_distance = FC_PCI_PXB;
    snprintf(a.nics, sizeof(a.nics), "*");
    res = judge("drop-nic=3, every NIC counted", t, &a, 1, (const char *const[]){
        "nearest NIC eno1 0000:01:00.0 (NUMA 0) (and 3 more at NODE)", NULL });
    json_decref(res);
    snprintf(a.nics, sizeof(a.nics), "mlx5_*");
    json_decref(t);

    /* ---- a slow NIC ---- */
    t = tree("slow-nic=5");
    json_decref(judge("slow-nic=5", t, &a, 1, (const char *const[]){
        "NIC mlx5_5 0000:ba:00.0 (NUMA 1, the nearest NIC of GPU 0000:bb:00.0) on gpu07: its "
        "PCIe link runs at 16.0 GT/s x8, where it and its slot can do 32.0 GT/s x16", NULL }));
    a.nic_link = 0;
    json_decref(judge("slow-nic=5, nic_link: false", t, &a, 0, NULL));
    a.nic_link = 1;
    json_decref(t);

    /* ---- a NIC on the other socket ---- */
    t = tree("move-nic=3");
    json_decref(judge("move-nic=3, mapped", t, &amap, 1, (const char *const[]){
        "GPU 0000:5d:00.0 (NUMA 0) on gpu07: its mapped NIC mlx5_3 0000:df:00.0 (NUMA 1) is "
        "SYS: across the CPU interconnect; the profile allows at most PXB", NULL }));
    json_decref(judge("move-nic=3", t, &a, 1, (const char *const[]){
        "GPU 0000:5d:00.0 (NUMA 0) on gpu07: nearest NIC mlx5_0 0000:18:00.0 (NUMA 0) (and 2 "
        "more at NODE) is NODE", NULL }));
    json_decref(t);
    t = tree("drop-nic=0,1,2 move-nic=3");
    json_decref(judge("socket 0 without NICs", t, &a, 4, (const char *const[]){
        "GPU 0000:19:00.0 (NUMA 0) on gpu07: nearest NIC mlx5_4 0000:9a:00.0 (NUMA 1) (and 4 "
        "more at SYS) is SYS: across the CPU interconnect; the profile allows at most PXB",
        "GPU 0000:5d:00.0 (NUMA 0)", NULL }));
    json_decref(t);

    /* ---- no GPUs; unknown NUMA ---- */
    t = tree("no-gpus");
    res = judge("no-gpus", t, &a, 0, NULL);
    fc_tap_ok(&tap, json_is_false(json_object_get(res, "applied")) &&
              strstr(json_string_value(json_object_get(res, "why")), "gpu07 has no NVIDIA GPU "
                     "under ") && json_object_get(res, "gpus") == NULL,
              "no-gpus: the check says it did not apply, and why (%s)",
              json_string_value(json_object_get(res, "why")));
    json_decref(res);
    res = judge("no-gpus, the profile mapping 8 GPUs", t, &amap, 1, (const char *const[]){
        "gpu07 has no NVIDIA GPU under ", "the profile maps 8 GPU(s) to NICs (GPU 0 -> "
        "mlx5_0, line 7, ...)", NULL });
    json_decref(res);
    json_decref(t);
    t = tree("numa-unknown");
    json_decref(judge("numa-unknown", t, &a, 0, NULL));
    json_decref(t);
    /* beside it: an RDMA device whose device link dangles (its function
     * gone), a bond (no device link) and a platform NIC (off the PCI tree) */
    if (fc_tap_sh(&tap, "cd %s && mkdir -p devices/virtual/infiniband/mlx5_9 "
                  "devices/virtual/net/bond0 devices/platform/eth-soc/net/end0 && "
                  "ln -s ../../../pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:1f:00.0 "
                  "devices/virtual/infiniband/mlx5_9/device && "
                  "ln -s ../../devices/virtual/infiniband/mlx5_9 class/infiniband/mlx5_9 && "
                  "ln -s ../../devices/virtual/net/bond0 class/net/bond0 && "
                  "ln -s ../../../eth-soc devices/platform/eth-soc/net/end0/device && "
                  "ln -s ../../devices/platform/eth-soc/net/end0 class/net/end0",
                  last_root) != 0)
        fc_tap_bail(&tap, "a sysfs fixture command failed (named above)");
    t = fc_pci_topo_read(last_root);
    json_decref(judge("numa-unknown, a NIC whose device link dangles", t, &a, 1,
                      (const char *const[]){ "NIC mlx5_9 on gpu07 cannot be placed on the PCI "
                      "tree: ", "class/infiniband/mlx5_9/device: No such file or directory",
                      NULL }));
    json_decref(t);
    t = tree("numa-unknown drop-nic=6");
    json_decref(judge("numa-unknown drop-nic=6", t, &a, 1, (const char *const[]){
        "GPU 0000:cc:00.0 (NUMA unknown) on gpu07: nearest NIC mlx5_0 0000:18:00.0 (NUMA unknown) (and 6 "
        "more at SYS) is SYS", NULL }));
    json_decref(t);

    /* ---- a VM's passed-through GPUs and NICs (Hyper-V vPCI, as on Azure's
     * GPU VMs): each on its own host bridge below the VMBus device ---- */
    if (fc_tap_sh(&tap, "cd %s && mkdir vm && cd vm && mkdir -p bus/pci/devices "
                  "class/infiniband && v=devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/VMBUS:00 && "
                  "for i in 0 1; do "
                  "g=$v/0000000$i-aaaa/pci000$((i + 1)):00/000$((i + 1)):00:00.0 && "
                  "n=$v/0000001$i-aaaa/pci010$((i + 1)):00/010$((i + 1)):00:00.0 && "
                  "mkdir -p $g $n/infiniband/mlx5_$i && echo 0x10de > $g/vendor && "
                  "echo 0x030200 > $g/class && echo 0x15b3 > $n/vendor && "
                  "echo $i > $g/numa_node && "
                  "echo $i > $n/numa_node && ln -s ../../../$g bus/pci/devices/${g##*/} && "
                  "ln -s ../../../${n##*/} $n/infiniband/mlx5_$i/device && "
                  "ln -s ../../$n/infiniband/mlx5_$i class/infiniband/mlx5_$i; done",
                  tmp) != 0)
        fc_tap_bail(&tap, "a sysfs fixture command failed (named above)");
    snprintf(err, sizeof(err), "%s/vm", tmp);
    t = fc_pci_topo_read(err);
    a.max_distance = FC_PCI_NODE;
    res = judge("a Hyper-V VM's vPCI devices, max_distance NODE", t, &a, 0, NULL);
    g = json_array_get(json_object_get(res, "gpus"), 1);
    fc_tap_is_int(&tap, json_array_size(json_object_get(t, "nics")), 2,
                  "vPCI: GPU 1's nearest NIC is mlx5_1, NODE, both on NUMA 1 (%s %s)",
                  json_string_value(json_object_get(g, "nearest")),
                  json_string_value(json_object_get(g, "distance")));
    fc_tap_is_str(&tap, json_string_value(json_object_get(g, "nearest")), "mlx5_1",
                  "vPCI: GPU 1's nearest NIC is mlx5_1, NODE, both on NUMA 1 (%s %s)"
                  " [json_string_value(json_object_get(g, \"nearest\"))]",
                  json_string_value(json_object_get(g, "nearest")),
                  json_string_value(json_object_get(g, "distance")));
    fc_tap_is_str(&tap, json_string_value(json_object_get(g, "distance")), "NODE",
                  "vPCI: GPU 1's nearest NIC is mlx5_1, NODE, both on NUMA 1 (%s %s)"
                  " [json_string_value(json_object_get(g, \"distance\"))]",
                  json_string_value(json_object_get(g, "nearest")),
                  json_string_value(json_object_get(g, "distance")));
    fc_tap_is_int(&tap, json_integer_value(json_object_get(g, "numa")), 1,
                  "vPCI: GPU 1's nearest NIC is mlx5_1, NODE, both on NUMA 1 (%s %s)"
                  " [json_integer_value(json_object_get(g, \"numa\"))]",
                  json_string_value(json_object_get(g, "nearest")),
                  json_string_value(json_object_get(g, "distance")));
    a.max_distance = FC_PCI_PXB;
    json_decref(res);
    json_decref(t);

    /* ---- a sysfs root that is not there ---- */
    res = fc_pci_topo_read("/nonexistent/sys");
    json_decref(judge("no sysfs root", res, &a, 1, (const char *const[]){
        "gpu07: PCI topology: the sysfs root /nonexistent/sys does not resolve", NULL }));
    json_decref(res);

    fc_tap_sh(&tap, "rm -rf %s", tmp);
    return fc_tap_done(&tap);
}
