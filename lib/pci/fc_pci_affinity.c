/*
 * fc_pci_affinity.c - judges one node's PCI topology (fc_pci_topo_read)
 * against the profile's expect.gpu_nic_affinity (see fc_pci_topo.h). For
 * each GPU, its nearest NIC(s) among those the profile counts, and that
 * distance; the NIC it must use is the one the profile maps it to, else
 * its nearest, and that NIC must be no farther than max_distance. A
 * mapped NIC that is not the nearest, or not there, fails too: the node
 * is not built as the profile says. A NIC whose PCIe link trained below
 * what it and its slot can both do fails (GPUs are not judged so: an
 * idle GPU lowers its own link speed to save power). A node without GPUs
 * is not judged: the result says the check did not apply, and why.
 */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_judge.h"
#include "fc_pci_topo.h"

static int fc_nic_counts(const fc_affinity_profile_t *a, json_t *nic)
{
    json_t *name;
    size_t i;

    json_array_foreach(json_object_get(nic, "names"), i, name)
        if (fnmatch(a->nics, json_string_value(name), 0) == 0)
            return 1;
    return 0;
}

static int fc_nic_named(json_t *nic, const char *want)
{
    json_t *name;
    size_t i;

    json_array_foreach(json_object_get(nic, "names"), i, name)
        if (strcmp(json_string_value(name), want) == 0)
            return 1;
    return 0;
}

static int fc_dist(json_t *gpu, json_t *nic)
{
    return fc_pci_distance(json_string_value(json_object_get(gpu, "path")),
                           (int)json_integer_value(json_object_get(gpu, "numa")),
                           json_string_value(json_object_get(nic, "path")),
                           (int)json_integer_value(json_object_get(nic, "numa")));
}

static const char *fc_str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s ? s : "?";
}

static int fc_numa(json_t *o)
{
    return (int)json_integer_value(json_object_get(o, "numa"));
}

/* "NUMA 1", or "NUMA unknown" for the kernel's -1; in buf. */
static const char *fc_numa_text(json_t *o, char *buf, size_t len)
{
    if (fc_numa(o) < 0)
        snprintf(buf, len, "NUMA unknown");
    else
        snprintf(buf, len, "NUMA %d", fc_numa(o));
    return buf;
}

static void fc_reason(json_t *reasons, const char **part_p, const char *part, const char *fmt,
                      ...) __attribute__((format(printf, 4, 5)));
static void fc_reason(json_t *reasons, const char **part_p, const char *part, const char *fmt,
                      ...)
{
    char why[FC_REASON_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    json_array_append_new(reasons, json_string(why));
    *part_p = part;
}

/* Whether the map entry names its GPU by index ("3"), not by address. */
static int fc_map_by_index(const fc_affinity_map_entry_t *m)
{
    return m->gpu[0] != '\0' && strspn(m->gpu, "0123456789") == strlen(m->gpu);
}

/* The entry of the profile's map for GPU gpu (index idx), or NULL; by
 * address only when the indexes cannot be trusted (by_index 0). */
static const fc_affinity_map_entry_t *fc_map_find(const fc_affinity_profile_t *a,
                                                  const char *bdf, int idx, int by_index)
{
    char index[16];

    snprintf(index, sizeof(index), "%d", idx);
    for (int i = 0; i < a->nmap; ++i)
        if (strcmp(a->map[i].gpu, bdf) == 0 ||
            (by_index && strcmp(a->map[i].gpu, index) == 0))
            return &a->map[i];
    return NULL;
}

/* A map by index names GPUs by their place in PCI order: with a GPU
 * missing (fallen off the bus), every GPU after it takes the index of
 * the one before, and judging them so would blame healthy GPUs for the
 * NICs of their neighbours. When the node has fewer GPUs than the map's
 * highest index needs, one reason says so and names the mapped NICs no
 * GPU sits within max_distance of (where a GPU is missing); the indexed
 * entries judge nothing else, each GPU being judged by its nearest NIC.
 * 1 if the indexes can be trusted. */
static int fc_map_indexes_hold(const fc_affinity_profile_t *a, json_t *gpus, json_t *nics,
                               const char *host, json_t *reasons, const char **part_p)
{
    size_t ngpus = json_array_size(gpus), used = 0;
    long top = -1;
    int line = 0;
    char lonely[FC_REASON_MAX / 2] = "";

    for (int k = 0; k < a->nmap; ++k)
        if (fc_map_by_index(&a->map[k]) && atol(a->map[k].gpu) > top) {
            top = atol(a->map[k].gpu);
            line = a->map[k].line;
        }
    if (top < 0 || (size_t)top < ngpus)
        return 1;
    for (int k = 0; k < a->nmap; ++k) {
        json_t *nic = NULL, *n, *g;
        int best = FC_PCI_DIST_COUNT;
        size_t i;

        if (!fc_map_by_index(&a->map[k]))
            continue;
        json_array_foreach(nics, i, n)
            if (fc_nic_named(n, a->map[k].nic))
                nic = n;
        json_array_foreach(gpus, i, g)
            if (nic && fc_dist(g, nic) < best)
                best = fc_dist(g, nic);
        if (nic && best <= a->max_distance)
            continue;
        if (used < sizeof(lonely))
            used += (size_t)snprintf(lonely + used, sizeof(lonely) - used, "%s%s (GPU %s in "
                                     "the map%s)", used ? ", " : "", a->map[k].nic,
                                     a->map[k].gpu, nic ? "" : "; not on the node");
    }
    fc_reason(reasons, part_p, "GPU", "%s: the profile maps GPUs by index up to %ld (line %d) "
              "and the node has %zu NVIDIA GPU(s): a GPU is missing, so the indexes after it do "
              "not name the GPUs the profile means (each GPU is judged by its nearest NIC "
              "instead); mapped NIC(s) with no GPU within %s: %s", host, top, line, ngpus, fc_pci_dist_name(a->max_distance),
              lonely[0] ? lonely : "none (the missing GPU's place cannot be told)");
    return 0;
}

/* One GPU: its nearest NIC(s), the NIC it must use, and the verdict. */
static json_t *fc_judge_gpu(const fc_affinity_profile_t *a, json_t *gpu, int idx, int by_index,
                            json_t *nics, const char *host, json_t *reasons,
                            const char **part_p)
{
    const char *bdf = fc_str(gpu, "bdf");
    const fc_affinity_map_entry_t *m = fc_map_find(a, bdf, idx, by_index);
    json_t *ties = json_array(), *nic, *nearest = NULL, *mapped = NULL, *out;
    int best = FC_PCI_DIST_COUNT, mapped_dist = FC_PCI_UNKNOWN, ok = 1;
    char gn[32], nn[32];
    size_t i;

    json_array_foreach(nics, i, nic) {
        int d = fc_dist(gpu, nic);

        if (m && fc_nic_named(nic, m->nic)) {
            mapped = nic;
            mapped_dist = d;
        }
        if (!fc_nic_counts(a, nic))
            continue;
        if (d < best) {
            best = d;
            nearest = nic;
            json_array_clear(ties);
        }
        if (d == best)
            json_array_append_new(ties, json_string(fc_str(nic, "name")));
    }
    out = json_pack("{s:s, s:i, s:i, s:s, s:s, s:i, s:s, s:o}", "gpu", bdf, "index", idx,
                    "numa", fc_numa(gpu), "nearest", nearest ? fc_str(nearest, "name") : "",
                    "nearest_bdf", nearest ? fc_str(nearest, "bdf") : "", "nearest_numa",
                    nearest ? fc_numa(nearest) : -1, "distance",
                    nearest ? fc_pci_dist_name(best) : "", "ties", ties);
    if (m) {
        json_object_set_new(out, "expected", json_string(m->nic));
        json_object_set_new(out, "expected_distance",
                            json_string(mapped ? fc_pci_dist_name(mapped_dist) : ""));
    }
    if (m && mapped == NULL) {
        fc_reason(reasons, part_p, "NIC", "GPU %s (%s) on %s: the profile maps it to "
                  "NIC %s (line %d), which is not on the node", bdf, fc_numa_text(gpu, gn, sizeof(gn)), host,
                  m->nic, m->line);
        ok = 0;
    } else if (m && mapped_dist > a->max_distance) {
        fc_reason(reasons, part_p, "node", "GPU %s (%s) on %s: its mapped NIC %s %s "
                  "(%s) is %s: %s; the profile allows at most %s", bdf, fc_numa_text(gpu, gn, sizeof(gn)),
                  host, m->nic, fc_str(mapped, "bdf"), fc_numa_text(mapped, nn, sizeof(nn)),
                  fc_pci_dist_name(mapped_dist), fc_pci_dist_meaning(mapped_dist),
                  fc_pci_dist_name(a->max_distance));
        ok = 0;
    } else if (m && nearest && mapped_dist > best) {
        fc_reason(reasons, part_p, "node", "GPU %s (%s) on %s: the profile maps it to "
                  "NIC %s %s (%s), but its nearest NIC is %s %s (%s): the node is not built "
                  "as the profile says", bdf, fc_numa_text(gpu, gn, sizeof(gn)), host, m->nic,
                  fc_str(mapped, "bdf"), fc_pci_dist_name(mapped_dist),
                  fc_str(nearest, "name"), fc_str(nearest, "bdf"), fc_pci_dist_name(best));
        ok = 0;
    } else if (m == NULL && nearest && best > a->max_distance) {
        char more[64] = "";

        if (json_array_size(ties) > 1)
            snprintf(more, sizeof(more), " (and %zu more at %s)", json_array_size(ties) - 1,
                     fc_pci_dist_name(best));
        fc_reason(reasons, part_p, "node", "GPU %s (%s) on %s: nearest NIC %s %s "
                  "(%s)%s is %s: %s; the profile allows at most %s", bdf, fc_numa_text(gpu, gn, sizeof(gn)),
                  host, fc_str(nearest, "name"), fc_str(nearest, "bdf"), fc_numa_text(nearest, nn, sizeof(nn)),
                  more, fc_pci_dist_name(best), fc_pci_dist_meaning(best),
                  fc_pci_dist_name(a->max_distance));
        ok = 0;
    }
    json_object_set_new(out, "ok", json_boolean(ok && (m || nearest)));
    return out;
}

/* A NIC's PCIe link against what it and its slot can both do. */
static json_t *fc_judge_nic_link(json_t *nic, json_t *results, const char *host,
                                 json_t *reasons, const char **part_p)
{
    double cur = json_number_value(json_object_get(nic, "link_gts"));
    double can = json_number_value(json_object_get(nic, "max_link_gts"));
    double slot = json_number_value(json_object_get(nic, "slot_gts"));
    json_int_t w = json_integer_value(json_object_get(nic, "link_width"));
    json_int_t wcan = json_integer_value(json_object_get(nic, "max_link_width"));
    json_int_t wslot = json_integer_value(json_object_get(nic, "slot_width"));
    json_t *g;
    size_t i;
    char serves[160] = "", nn[32];
    int ok;

    if (slot > 0 && slot < can)
        can = slot;
    if (wslot > 0 && wslot < wcan)
        wcan = wslot;
    ok = !(cur > 0 && can > 0 && cur < can) && !(w > 0 && wcan > 0 && w < wcan);
    if (!ok) {
        json_array_foreach(results, i, g)
            if (strcmp(fc_str(g, "nearest_bdf"), fc_str(nic, "bdf")) == 0 && !serves[0])
                snprintf(serves, sizeof(serves), ", the nearest NIC of GPU %s",
                         fc_str(g, "gpu"));
        fc_reason(reasons, part_p, "NIC", "NIC %s %s (%s%s) on %s: its PCIe link runs "
                  "at %.1f GT/s x%lld, where it and its slot can do %.1f GT/s x%lld",
                  fc_str(nic, "name"), fc_str(nic, "bdf"), fc_numa_text(nic, nn, sizeof(nn)), serves, host, cur,
                  (long long)w, can, (long long)wcan);
    }
    return json_pack("{s:s, s:s, s:b}", "nic", fc_str(nic, "name"), "bdf", fc_str(nic, "bdf"),
                     "link_ok", ok);
}

json_t *fc_pci_affinity_judge(const fc_affinity_profile_t *a, json_t *topo, const char *host,
                              json_t *reasons, const char **part_p)
{
    json_t *gpus = json_object_get(topo, "gpus"), *nics = json_object_get(topo, "nics");
    json_t *results = json_array(), *links = json_array(), *g, *n, *err;
    size_t i, counted = 0;
    char why[FC_REASON_MAX];
    int by_index;

    json_array_foreach(json_object_get(topo, "errors"), i, err)
        fc_reason(reasons, part_p, "node", "%s: PCI topology: %s", host,
                  json_string_value(err));
    /* a NIC the profile counts or maps whose device link leads nowhere:
     * its GPU would be judged against a farther NIC, or it be called "not
     * on the node", without the reason */
    json_array_foreach(json_object_get(topo, "unplaced_nics"), i, err) {
        const char *name = fc_str(err, "name");
        int mapped = 0;

        for (int k = 0; k < a->nmap; ++k)
            mapped |= strcmp(a->map[k].nic, name) == 0;
        if (mapped || fnmatch(a->nics, name, 0) == 0)
            fc_reason(reasons, part_p, "NIC", "NIC %s on %s cannot be placed on the PCI tree: "
                      "%s", name, host, fc_str(err, "why"));
    }
    if (json_array_size(gpus) == 0) {
        snprintf(why, sizeof(why), "%s has no NVIDIA GPU under %s/bus/pci/devices: there is "
                 "no GPU to place", host, fc_str(topo, "root"));
        /* a map says the node has these GPUs: none is not "not applied" */
        if (a->nmap > 0)
            fc_reason(reasons, part_p, "GPU", "%s; the profile maps %d GPU(s) to NICs (GPU %s "
                      "-> %s, line %d%s)", why, a->nmap, a->map[0].gpu, a->map[0].nic,
                      a->map[0].line, a->nmap > 1 ? ", ..." : "");
        json_decref(results);
        json_decref(links);
        return json_pack("{s:b, s:s, s:s}", "applied", 0, "why", why, "max_distance",
                         fc_pci_dist_name(a->max_distance));
    }
    json_array_foreach(nics, i, n)
        counted += fc_nic_counts(a, n);
    if (counted == 0)
        fc_reason(reasons, part_p, "NIC", "%s has %zu GPU(s) and no NIC matching '%s' "
                  "(of %zu NIC(s) on its PCI tree)", host, json_array_size(gpus), a->nics,
                  json_array_size(nics));
    by_index = fc_map_indexes_hold(a, gpus, nics, host, reasons, part_p);
    json_array_foreach(gpus, i, g)
        json_array_append_new(results, fc_judge_gpu(a, g, (int)i, by_index, nics, host,
                                                    reasons, part_p));
    for (int k = 0; k < a->nmap; ++k) {
        int found = 0;

        if (!by_index && fc_map_by_index(&a->map[k]))
            continue;       /* said once, by fc_map_indexes_hold */
        json_array_foreach(gpus, i, g) {
            char index[32];

            snprintf(index, sizeof(index), "%zu", i);
            found |= strcmp(a->map[k].gpu, fc_str(g, "bdf")) == 0 ||
                     strcmp(a->map[k].gpu, index) == 0;
        }
        if (!found)
            fc_reason(reasons, part_p, "GPU", "%s: the profile maps GPU %s to NIC %s (line "
                      "%d), and the node has no such GPU (it has %zu)", host, a->map[k].gpu,
                      a->map[k].nic, a->map[k].line, json_array_size(gpus));
    }
    if (a->nic_link)
        json_array_foreach(nics, i, n)
            if (fc_nic_counts(a, n))
                json_array_append_new(links, fc_judge_nic_link(n, results, host, reasons,
                                                               part_p));
    return json_pack("{s:b, s:s, s:o, s:o}", "applied", 1, "max_distance",
                     fc_pci_dist_name(a->max_distance), "gpus", results, "nics", links);
}
