/*
 * fc_pci_topo.c - reads where a node's GPUs and NICs sit on its PCI tree
 * from sysfs (the tree as `readlink -f` resolves the device links), and
 * computes the distance between two of them in nvidia-smi topo's terms
 * (see fc_pci_topo.h). The judging of a node against the profile is in
 * fc_pci_affinity.c. Nothing here needs a GPU or its driver: the tree is
 * the kernel's, so a CPU-only CI host reads a fixture tree the same way
 * (FC_SYSFS_ROOT, tests/fixtures/sysfs/hgx/fc_mk_hgx.sh).
 */
#define _GNU_SOURCE     /* strverscmp */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_pci_topo.h"

#define FC_TOPO_MAX 128

typedef struct fc_pci_dev {
    char bdf[32];               /* 0000:bb:dd.f */
    char path[PATH_MAX];        /* from its host bridge (pciDDDD:BB) on */
    char dir[PATH_MAX];         /* its directory below ROOT/devices/ */
    int numa;                   /* -1: unknown */
    double link_gts, max_gts, slot_gts;
    int link_width, max_width, slot_width;
    char ib[64], net[64];       /* NICs: the names it is called by (below) */
    int ib_walked;              /* ib's device link ends below the function */
    json_t *names;              /* NICs: every RDMA and network device of it */
    long net_mbps;              /* NICs: net's speed, -1 */
} fc_pci_dev_t;

typedef struct fc_topo_scan {
    const char *root;           /* as given */
    char real_root[PATH_MAX];   /* resolved */
    fc_pci_dev_t gpus[FC_TOPO_MAX], nics[FC_TOPO_MAX];
    int ngpus, nnics;
    json_t *errors;
    json_t *broken;             /* NICs whose device link does not resolve */
} fc_topo_scan_t;

static const char *const fc_dist_names[] = {
#define FC_PCI_DIST_NAME(name) #name,
    FC_PCI_DIST_LIST(FC_PCI_DIST_NAME)
#undef FC_PCI_DIST_NAME
};

const char *fc_pci_dist_name(int dist)
{
    return dist >= 0 && dist < FC_PCI_DIST_COUNT ? fc_dist_names[dist] : "UNKNOWN";
}

const char *fc_pci_dist_meaning(int dist)
{
    switch (dist) {
    case FC_PCI_PIX: return "behind one PCIe switch";
    case FC_PCI_PXB: return "through several PCIe switches";
    case FC_PCI_PHB: return "through the CPU's host bridge";
    case FC_PCI_NODE: return "through another host bridge of the same NUMA node";
    case FC_PCI_SYS: return "across the CPU interconnect";
    default: return "its PCI path could not be read";
    }
}

/* Split a path into at most max components (in place); their count. */
static int fc_path_split(char *p, char **comp, int max)
{
    int n = 0;

    for (char *save = NULL, *c = strtok_r(p, "/", &save); c && n < max;
         c = strtok_r(NULL, "/", &save))
        comp[n++] = c;
    return n;
}

fc_pci_dist_t fc_pci_distance(const char *path_a, int numa_a, const char *path_b,
                              int numa_b)
{
    char a[PATH_MAX], b[PATH_MAX], *ca[64], *cb[64];
    int na, nb, common = 0, below_a, below_b;

    snprintf(a, sizeof(a), "%s", path_a ? path_a : "");
    snprintf(b, sizeof(b), "%s", path_b ? path_b : "");
    na = fc_path_split(a, ca, 64);
    nb = fc_path_split(b, cb, 64);
    if (na < 2 || nb < 2)
        return FC_PCI_UNKNOWN;
    if (strcmp(ca[0], cb[0]) != 0)
        return numa_a >= 0 && numa_a == numa_b ? FC_PCI_NODE : FC_PCI_SYS;
    /* the bridges both paths share (the devices themselves are last) */
    while (common < na - 1 && common < nb - 1 && strcmp(ca[common], cb[common]) == 0)
        ++common;
    if (common < 2)         /* the host bridge alone: different root ports */
        return FC_PCI_PHB;
    below_a = na - 1 - common;
    below_b = nb - 1 - common;
    return common >= 3 && below_a <= 1 && below_b <= 1 ? FC_PCI_PIX : FC_PCI_PXB;
}

/* ---- reading -------------------------------------------------------------- */

static int fc_read_text(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    int ok;

    buf[0] = '\0';
    if (f == NULL)
        return 0;
    ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

static long fc_read_num(const char *dir, const char *name, long fallback)
{
    char path[PATH_MAX + 64], buf[64], *end;
    long v;

    if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
        !fc_read_text(path, buf, sizeof(buf)))
        return fallback;
    v = strtol(buf, &end, 0);
    return end == buf ? fallback : v;
}

static double fc_read_gts(const char *dir, const char *name)
{
    char path[PATH_MAX + 64], buf[64];

    if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
        return 0;
    return fc_read_text(path, buf, sizeof(buf)) ? atof(buf) : 0;   /* "32.0 GT/s PCIe" */
}

static int fc_is_bdf(const char *s)
{
    unsigned dom, bus, dev, fn;
    char end;

    return strlen(s) == 12 && sscanf(s, "%4x:%2x:%2x.%1x%c", &dom, &bus, &dev, &fn, &end) == 4;
}

/* Resolve link to a PCI function below ROOT/devices/ (or a device on one:
 * the function is its place): its path there into d->path and its address
 * into d->bdf; 0 (with a reason in why) if it does not resolve, or not to
 * a PCI function. */
static int fc_topo_resolve(fc_topo_scan_t *s, const char *link, fc_pci_dev_t *d, char *why,
                           size_t len, int *walked)
{
    char real[PATH_MAX], prefix[PATH_MAX + 16];
    const char *base, *rel;

    if (realpath(link, real) == NULL) {
        snprintf(why, len, "%s does not resolve: %s", link, strerror(errno));
        return 0;
    }
    snprintf(prefix, sizeof(prefix), "%s/devices/", s->real_root);
    /* a device on a bus of its own (virtio2, a USB interface) sits on the
     * PCI function above it: that is its place on the tree */
    *walked = 0;
    for (char *cut; (cut = strrchr(real, '/')) > real + strlen(prefix) && !fc_is_bdf(cut + 1);)
        *cut = '\0', *walked = 1;
    base = strrchr(real, '/') + 1;
    rel = real + strlen(prefix);
    /* a VM's passed-through devices (Hyper-V vPCI, as on Azure's GPU VMs)
     * hang below the VMBus device: .../VMBUS:00/GUID/pci0001:00/0001:00:00.0;
     * their place begins at that host bridge */
    for (const char *pci; strncmp(real, prefix, strlen(prefix)) == 0 && strncmp(rel, "pci", 3)
         && (pci = strstr(rel, "/pci")) != NULL;)
        rel = pci + 1;
    if (strncmp(real, prefix, strlen(prefix)) != 0 || strncmp(rel, "pci", 3) ||
        strchr(rel, ':') == NULL || !fc_is_bdf(base)) {
        snprintf(why, len, "%s resolves to %s, not to a PCI function below %s", link, real,
                 prefix);
        return 0;
    }
    snprintf(d->path, sizeof(d->path), "%s", rel);
    snprintf(d->dir, sizeof(d->dir), "%s", real + strlen(prefix));
    snprintf(d->bdf, sizeof(d->bdf), "%s", base);
    return 1;
}

/* The function's NUMA node and link, and its slot's (the bridge above). */
static void fc_topo_attrs(fc_topo_scan_t *s, fc_pci_dev_t *d)
{
    char dir[PATH_MAX + 16], *slash;

    d->numa = -1;
    if (snprintf(dir, sizeof(dir), "%s/devices/%s", s->real_root, d->dir) >= (int)sizeof(dir))
        return;
    d->numa = (int)fc_read_num(dir, "numa_node", -1);
    d->link_gts = fc_read_gts(dir, "current_link_speed");
    d->max_gts = fc_read_gts(dir, "max_link_speed");
    d->link_width = (int)fc_read_num(dir, "current_link_width", 0);
    d->max_width = (int)fc_read_num(dir, "max_link_width", 0);
    slash = strrchr(dir, '/');
    *slash = '\0';
    if (fc_is_bdf(strrchr(dir, '/') + 1)) {     /* a bridge, not the host bridge */
        d->slot_gts = fc_read_gts(dir, "max_link_speed");
        d->slot_width = (int)fc_read_num(dir, "max_link_width", 0);
    }
}

static void fc_topo_gpus(fc_topo_scan_t *s)
{
    char dir[PATH_MAX], link[PATH_MAX + 300], why[PATH_MAX * 2 + 128];
    struct dirent *e;
    DIR *d;

    snprintf(dir, sizeof(dir), "%s/bus/pci/devices", s->root);
    if ((d = opendir(dir)) == NULL) {
        snprintf(why, sizeof(why), "cannot open %s: %s", dir, strerror(errno));
        json_array_append_new(s->errors, json_string(why));
        return;
    }
    while ((e = readdir(d)) != NULL) {
        fc_pci_dev_t *g = &s->gpus[s->ngpus];
        char vf[PATH_MAX + 320];
        struct stat st;
        long cls;
        int walked;

        if (e->d_name[0] == '.')
            continue;
        snprintf(link, sizeof(link), "%s/%s", dir, e->d_name);
        cls = fc_read_num(link, "class", 0) >> 8;
        if (fc_read_num(link, "vendor", 0) != 0x10de || (cls != 0x0302 && cls != 0x0300))
            continue;
        /* an SR-IOV virtual function of a GPU (vGPU hosts) is no GPU of its
         * own: counted, it would shift every index after it */
        snprintf(vf, sizeof(vf), "%s/physfn", link);
        if (lstat(vf, &st) == 0)
            continue;
        if (s->ngpus == FC_TOPO_MAX)
            break;
        memset(g, 0, sizeof(*g));
        if (!fc_topo_resolve(s, link, g, why, sizeof(why), &walked)) {
            /* a GPU seen but not placed: kept, with an UNKNOWN distance */
            snprintf(g->bdf, sizeof(g->bdf), "%.31s", e->d_name);
            json_array_append_new(s->errors, json_string(why));
            g->numa = -1;
        } else
            fc_topo_attrs(s, g);
        ++s->ngpus;
    }
    closedir(d);
}

/* The NIC of PCI function bdf, added if new. */
static fc_pci_dev_t *fc_topo_nic(fc_topo_scan_t *s, const fc_pci_dev_t *found)
{
    fc_pci_dev_t *n;

    for (int i = 0; i < s->nnics; ++i)
        if (strcmp(s->nics[i].bdf, found->bdf) == 0)
            return &s->nics[i];
    if (s->nnics == FC_TOPO_MAX)
        return NULL;
    n = &s->nics[s->nnics++];
    *n = *found;
    n->names = json_array();
    n->net_mbps = -1;
    fc_topo_attrs(s, n);
    return n;
}

/* class/net (rdma 0) or class/infiniband (rdma 1). Virtual interfaces
 * (lo, bridges, veths: no device link) are not NICs. A function may have
 * several devices of a class (switchdev representors share the PF's
 * device link; a sub-function's RDMA device sits below the PF): every
 * one is a name of the NIC, and the one it is called by is, for RDMA, a
 * device on the function itself before one below it, then the first in
 * version order (mlx5_2 before mlx5_10), readdir's order being none. */
static void fc_topo_nics(fc_topo_scan_t *s, int rdma)
{
    char dir[PATH_MAX], link[PATH_MAX + 300], why[PATH_MAX * 2 + 128];
    struct dirent *e;
    DIR *d;

    snprintf(dir, sizeof(dir), "%s/class/%s", s->root, rdma ? "infiniband" : "net");
    if ((d = opendir(dir)) == NULL)
        return;     /* no RDMA devices, or no network class: no NICs of it */
    while ((e = readdir(d)) != NULL) {
        fc_pci_dev_t found, *n;
        int walked;

        if (e->d_name[0] == '.')
            continue;
        snprintf(link, sizeof(link), "%s/%s/device", dir, e->d_name);
        memset(&found, 0, sizeof(found));
        if (access(link, F_OK) != 0 || !fc_topo_resolve(s, link, &found, why, sizeof(why),
                                                         &walked)) {
            char real[PATH_MAX];
            struct stat st;

            /* a device link that dangles or loops (a NIC removed as it was
             * read, a broken tree) is a NIC that cannot be placed; one that
             * resolves off the PCI tree (a platform device) is not a NIC */
            if (lstat(link, &st) == 0 && realpath(link, real) == NULL)
                json_array_append_new(s->broken, json_pack("{s:s, s:s++}", "name", e->d_name,
                                                           "why", link, ": ", strerror(errno)));
            continue;
        }
        if ((n = fc_topo_nic(s, &found)) == NULL)
            break;
        json_array_append_new(n->names, json_string(e->d_name));
        if (rdma && (n->ib[0] == '\0' || walked < n->ib_walked ||
                     (walked == n->ib_walked && strverscmp(e->d_name, n->ib) < 0))) {
            snprintf(n->ib, sizeof(n->ib), "%.63s", e->d_name);
            n->ib_walked = walked;
        } else if (!rdma && (n->net[0] == '\0' || strverscmp(e->d_name, n->net) < 0)) {
            snprintf(n->net, sizeof(n->net), "%.63s", e->d_name);
            snprintf(link, sizeof(link), "%s/%s", dir, e->d_name);
            n->net_mbps = fc_read_num(link, "speed", -1);
        }
    }
    closedir(d);
}

static int fc_name_cmp(const void *a, const void *b)
{
    return strverscmp(*(const char *const *)a, *(const char *const *)b);
}

static int fc_dev_cmp(const void *a, const void *b)
{
    return strcmp(((const fc_pci_dev_t *)a)->bdf, ((const fc_pci_dev_t *)b)->bdf);
}

static json_t *fc_dev_json(const fc_pci_dev_t *d, int nic)
{
    json_t *o = json_pack("{s:s, s:s, s:i, s:f, s:i, s:f, s:i}", "bdf", d->bdf, "path",
                          d->path, "numa", d->numa, "link_gts", d->link_gts, "link_width",
                          d->link_width, "max_link_gts", d->max_gts, "max_link_width",
                          d->max_width);

    if (nic) {
        json_t *names = json_array();
        size_t n = json_array_size(d->names), k = 0;
        const char *rest[2 * FC_TOPO_MAX];

        /* the RDMA name, the net name, then the others in version order */
        if (d->ib[0])
            json_array_append_new(names, json_string(d->ib));
        if (d->net[0])
            json_array_append_new(names, json_string(d->net));
        for (size_t i = 0; i < n && k < 2 * FC_TOPO_MAX; ++i) {
            const char *x = json_string_value(json_array_get(d->names, i));

            if (strcmp(x, d->ib) != 0 && strcmp(x, d->net) != 0)
                rest[k++] = x;
        }
        qsort(rest, k, sizeof(rest[0]), fc_name_cmp);
        for (size_t i = 0; i < k; ++i)
            json_array_append_new(names, json_string(rest[i]));
        json_object_set_new(o, "name", json_string(d->ib[0] ? d->ib : d->net));
        json_object_set_new(o, "names", names);
        json_object_set_new(o, "slot_gts", json_real(d->slot_gts));
        json_object_set_new(o, "slot_width", json_integer(d->slot_width));
        json_object_set_new(o, "net_speed_mbps", json_integer(d->net_mbps));
    }
    return o;
}

json_t *fc_pci_topo_read(const char *root)
{
    fc_topo_scan_t *s = fc_xcalloc(1, sizeof(*s), "the PCI topology scan");
    json_t *gpus = json_array(), *nics = json_array(), *out;
    char why[PATH_MAX + 128];

    s->root = root;
    s->errors = json_array();
    s->broken = json_array();
    if (realpath(root, s->real_root) == NULL) {
        snprintf(why, sizeof(why), "the sysfs root %s does not resolve: %s", root,
                 strerror(errno));
        json_array_append_new(s->errors, json_string(why));
    } else {
        fc_topo_gpus(s);
        fc_topo_nics(s, 1);
        fc_topo_nics(s, 0);
    }
    qsort(s->gpus, (size_t)s->ngpus, sizeof(s->gpus[0]), fc_dev_cmp);
    qsort(s->nics, (size_t)s->nnics, sizeof(s->nics[0]), fc_dev_cmp);
    for (int i = 0; i < s->ngpus; ++i)
        json_array_append_new(gpus, fc_dev_json(&s->gpus[i], 0));
    for (int i = 0; i < s->nnics; ++i) {
        json_array_append_new(nics, fc_dev_json(&s->nics[i], 1));
        json_decref(s->nics[i].names);
    }
    out = json_pack("{s:s, s:o, s:o, s:o, s:o}", "root", root, "gpus", gpus, "nics", nics,
                    "unplaced_nics", s->broken, "errors", s->errors);
    free(s);
    return out;
}
