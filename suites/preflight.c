/*
 * preflight.c - the preflight stage: what each node is, before anything is
 * measured. One rank per node (the lowest on each host) reads:
 *   - the kernel release, the MPI library version, cores and memory;
 *   - every network interface (/sys/class/net; the sysfs root is
 *     $FC_SYSFS_ROOT when set, for tests): state, speed, MTU, its PCI
 *     address and NUMA node (where it has a PCI device), its rail (when
 *     the profile declares rails, lib/rails/fc_rails.h), and its
 *     error counters (lib/counters/fc_counters.h: errors, drops, link flaps), as a
 *     snapshot;
 *   - every RDMA port (/sys/class/infiniband): state, rate, and its error
 *     counters where the driver exposes them;
 *   - the GPUs the nccl plugin can see, when it is built and loads;
 *   - where the GPUs and NICs sit on the PCI tree, when the profile
 *     states expect.gpu_nic_affinity (lib/pci/fc_preflight_affinity.c);
 * and rank 0 judges each node against the profile's `expect` (at least N
 * matching NICs up, their MTU and speed, RDMA ports ACTIVE, GPUs) and
 * against the other nodes (same MPI library and kernel: the node that
 * differs from the majority fails). A node that fails is implicated and
 * quarantined by the runner before any collective runs on it.
 *
 *   mpirun --hostfile H --map-by node build/suites/preflight --racks F ...
 */
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_counters.h"
#include "fc_rails.h"
#include "fc_judge.h"
#include "fc_log.h"
#include "fc_plugin.h"
#include "fc_preflight_affinity.h"
#include "fc_stage.h"


static long fc_read_long(const char *path, long fallback)
{
    FILE *f = fopen(path, "r");
    long v = fallback;

    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = fallback;
        fclose(f);
    }
    return v;
}

static void fc_read_word(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");

    buf[0] = '\0';
    if (f) {
        if (fgets(buf, (int)len, f) == NULL)
            buf[0] = '\0';
        fclose(f);
    }
    buf[strcspn(buf, "\n")] = '\0';
}

/* This node's inventory as JSON. */
static json_t *fc_node_inventory(const fc_stage_ctx_t *ctx)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], why[512] = "", path[600], word[128];
    struct utsname un;
    struct sysinfo si;
    json_t *nics = json_array(), *rdma = json_array();
    const fc_gpu_plugin_t *gpu;
    int len = 0, ngpus = 0;
    DIR *d;
    struct dirent *e;

    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n,")] = '\0';
    uname(&un);
    sysinfo(&si);
    snprintf(path, sizeof(path), "%s/class/net", fc_sysfs_root());
    if ((d = opendir(path)) != NULL) {
        while ((e = readdir(d)) != NULL) {
            json_t *counters;
            char state[32];

            if (e->d_name[0] == '.' || strcmp(e->d_name, "lo") == 0)
                continue;
            snprintf(path, sizeof(path), "%s/class/net/%s/operstate", fc_sysfs_root(),
                     e->d_name);
            fc_read_word(path, state, sizeof(state));
            counters = fc_counters_net(e->d_name);
            snprintf(path, sizeof(path), "%s/class/net/%s/mtu", fc_sysfs_root(), e->d_name);
            long mtu = fc_read_long(path, -1);
            snprintf(path, sizeof(path), "%s/class/net/%s/speed", fc_sysfs_root(), e->d_name);
            long speed = fc_read_long(path, -1);

            json_t *entry = json_pack("{s:s, s:s, s:I, s:I, s:o}", "name", e->d_name, "state",
                                      state, "mtu", (json_int_t)mtu, "speed_mbps",
                                      (json_int_t)speed, "counters", counters);
            char pci[32];
            int numa;

            /* where the NIC sits, for GPU-NIC affinity: absent for a NIC with no PCI
             * device (veth) */
            if (fc_nic_pci_numa(e->d_name, pci, sizeof(pci), &numa)) {
                json_object_set_new(entry, "pci", json_string(pci));
                json_object_set_new(entry, "numa_node", json_integer(numa));
            }
            json_array_append_new(nics, entry);
        }
        closedir(d);
    }
    snprintf(path, sizeof(path), "%s/class/infiniband", fc_sysfs_root());
    if ((d = opendir(path)) != NULL) {
        while ((e = readdir(d)) != NULL) {
            DIR *pd;
            struct dirent *pe;

            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports", fc_sysfs_root(),
                     e->d_name);
            if ((pd = opendir(path)) == NULL)
                continue;
            while ((pe = readdir(pd)) != NULL) {
                char state[64], rate[64];

                if (pe->d_name[0] == '.')
                    continue;
                snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%s/state",
                         fc_sysfs_root(), e->d_name, pe->d_name);
                fc_read_word(path, state, sizeof(state));
                snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%s/rate",
                         fc_sysfs_root(), e->d_name, pe->d_name);
                fc_read_word(path, rate, sizeof(rate));
                json_array_append_new(rdma, json_pack("{s:s, s:s, s:s, s:s, s:o}", "device",
                                      e->d_name, "port", pe->d_name, "state", state,
                                      "rate", rate, "counters",
                                      fc_counters_rdma(e->d_name, pe->d_name, NULL)));
            }
            closedir(pd);
        }
        closedir(d);
    }
    gpu = fc_plugin_load(why, sizeof(why));
    if (gpu)
        ngpus = gpu->device_count_func(why, sizeof(why));
    snprintf(word, sizeof(word), "%s", un.release);
    return json_pack("{s:s, s:s, s:s, s:i, s:I, s:o, s:o, s:i, s:s}", "host", ctx->host,
                     "kernel", word, "mpi", lib, "cores", (int)sysconf(_SC_NPROCESSORS_ONLN),
                     "memory_mib", (json_int_t)(si.totalram * si.mem_unit >> 20), "nics", nics,
                     "rdma_ports", rdma, "gpus", ngpus, "gpu_note", ngpus ? "" : why);
}

/* The most common value of `key` over the nodes (ties: the first). */
static const char *fc_majority(json_t **inv, int n, const char *key)
{
    const char *best = "";
    int best_count = 0;

    for (int i = 0; i < n; ++i) {
        const char *v = json_string_value(json_object_get(inv[i], key));
        int c = 0;

        for (int j = 0; j < n; ++j)
            c += v && json_string_value(json_object_get(inv[j], key)) &&
                 strcmp(v, json_string_value(json_object_get(inv[j], key))) == 0;
        if (v && c > best_count) {
            best = v;
            best_count = c;
        }
    }
    return best;
}

static int fc_judge_node(const fc_stage_ctx_t *ctx, json_t *inv, json_t **all, int n,
                         json_t *reasons, const char **part_p)
{
    const fc_preflight_profile_t *e = &ctx->sp.expect;
    const char *host = json_string_value(json_object_get(inv, "host"));
    json_t *nic;
    size_t i;
    int matching = 0, active = 0;
    char why[FC_REASON_MAX];

    *part_p = "node";
    json_array_foreach(json_object_get(inv, "nics"), i, nic) {
        const char *name = json_string_value(json_object_get(nic, "name"));
        const char *state = json_string_value(json_object_get(nic, "state"));
        json_int_t mtu = json_integer_value(json_object_get(nic, "mtu"));
        json_int_t speed = json_integer_value(json_object_get(nic, "speed_mbps"));

        if (fnmatch(e->nic_pattern, name, 0) != 0)
            continue;
        if (strcmp(state, "up") == 0)
            ++matching;
        else if (e->nics > 0) {
            snprintf(why, sizeof(why), "NIC %s on %s is %s, not up", name, host, state);
            json_array_append_new(reasons, json_string(why));
            *part_p = "NIC";
        }
        if (e->mtu > 0 && mtu != e->mtu) {
            snprintf(why, sizeof(why), "NIC %s on %s has MTU %lld, the profile expects %d",
                     name, host, (long long)mtu, e->mtu);
            json_array_append_new(reasons, json_string(why));
            *part_p = "NIC";
        }
        if (e->min_speed_mbps > 0 && speed >= 0 && (double)speed < e->min_speed_mbps) {
            snprintf(why, sizeof(why), "NIC %s on %s runs at %lld Mb/s, below the %.0f Mb/s "
                     "the profile expects", name, host, (long long)speed, e->min_speed_mbps);
            json_array_append_new(reasons, json_string(why));
            *part_p = "NIC";
        }
    }
    /* the rails the profile declares (the rails stage's rails:): each
     * NIC's rail, count, state and rate (lib/rails/fc_rails_nic.c) */
    if (ctx->profile.stages[FC_STAGE_RAILS].present &&
        fc_rails_check_inventory(&ctx->profile.stages[FC_STAGE_RAILS].rails, inv, reasons) > 0)
        *part_p = "NIC";
    if (e->nics >= 0 && matching < e->nics) {
        snprintf(why, sizeof(why), "%s has %d NIC(s) matching '%s' up, the profile expects "
                 "at least %d", host, matching, e->nic_pattern, e->nics);
        json_array_append_new(reasons, json_string(why));
        *part_p = "NIC";
    }
    json_array_foreach(json_object_get(inv, "rdma_ports"), i, nic)
        active += strstr(json_string_value(json_object_get(nic, "state")), "ACTIVE") != NULL;
    if (e->rdma_ports >= 0 && active < e->rdma_ports) {
        snprintf(why, sizeof(why), "%s has %d RDMA port(s) ACTIVE, the profile expects at "
                 "least %d", host, active, e->rdma_ports);
        json_array_append_new(reasons, json_string(why));
        *part_p = "NIC";
    }
    if (e->gpus >= 0 && json_integer_value(json_object_get(inv, "gpus")) < e->gpus) {
        snprintf(why, sizeof(why), "%s has %lld GPU(s), the profile expects at least %d%s%s",
                 host, (long long)json_integer_value(json_object_get(inv, "gpus")), e->gpus,
                 json_string_value(json_object_get(inv, "gpu_note"))[0] ? ": " : "",
                 json_string_value(json_object_get(inv, "gpu_note")));
        json_array_append_new(reasons, json_string(why));
        *part_p = "GPU";
    }
    if (e->same_versions && n >= 3)
        for (int k = 0; k < 2; ++k) {
            const char *key = k ? "kernel" : "mpi";
            const char *maj = fc_majority(all, n, key);
            const char *mine = json_string_value(json_object_get(inv, key));

            if (strcmp(mine, maj) != 0) {
                snprintf(why, sizeof(why), "%s runs %s '%s' where the other nodes run '%s'",
                         host, k ? "kernel" : "MPI library", mine, maj);
                json_array_append_new(reasons, json_string(why));
            }
        }
    return json_array_size(reasons) == 0;
}

int main(int argc, char **argv)
{
    fc_stage_ctx_t ctx;
    fc_status_t status;
    MPI_Comm node_comm, leaders;
    int node_rank, nnodes = 0;
    json_t *all = NULL;

    status = fc_stage_init(&argc, &argv, FC_STAGE_PREFLIGHT, &ctx);
    if (status != FC_OK)
        return fc_stage_exit(status);
    fc_stage_split_by_host(&ctx, &node_comm);
    MPI_Comm_rank(node_comm, &node_rank);
    MPI_Comm_split(MPI_COMM_WORLD, node_rank == 0 ? 0 : MPI_UNDEFINED, ctx.world_rank, &leaders);
    if (leaders != MPI_COMM_NULL) {
        json_t *inv = fc_node_inventory(&ctx);

        fc_preflight_affinity_read(&ctx, inv);  /* GPU-NIC affinity */

        fc_stage_progress(&ctx, 0, "node inventory");
        MPI_Comm_size(leaders, &nnodes);
        all = fc_stage_gather_json(inv, leaders);
        json_decref(inv);
        MPI_Comm_free(&leaders);
    }
    if (ctx.world_rank == 0) {
        json_t **invs = fc_xcalloc((size_t)nnodes, sizeof(*invs), "the nodes' inventories");

        for (int i = 0; i < nnodes; ++i)
            if (!json_is_object(invs[i] = json_incref(json_array_get(all, (size_t)i))))
                invs[i] = json_pack("{s:s}", "host", "?");
        for (int i = 0; i < nnodes; ++i) {
            json_t *rec = fc_stage_record(&ctx, "preflight"), *reasons = json_array();
            const char *host = json_string_value(json_object_get(invs[i], "host"));
            int h = fc_inventory_find_host(&ctx.inv, host);
            const char *part = "node";
            int ok = fc_judge_node(&ctx, invs[i], invs, nnodes, reasons, &part);

            /* GPU-NIC affinity: lib/pci/fc_preflight_affinity.c */
            ok &= fc_preflight_affinity_judge(&ctx, invs[i], host, reasons, &part);

            json_object_set_new(rec, "host", json_string(host));
            json_object_set_new(rec, "rack", json_string(h >= 0 ? ctx.inv.racks[ctx.inv.host_rack[h]] : ""));
            json_object_set_new(rec, "inventory", json_incref(invs[i]));
            json_object_set_new(rec, "reasons", json_incref(reasons));
            json_object_set_new(rec, "implicates", ok ? json_null() : json_pack(
                "{s:s, s:s, s:s, s:b}", "part", part, "host", host, "rack",
                h >= 0 ? ctx.inv.racks[ctx.inv.host_rack[h]] : "", "quarantine", 1));
            json_object_set_new(rec, "verdict", json_string(ok ? "PASS" : "FAIL"));
            if (ok)
                fc_tap_point(&ctx.tap, FC_OK, "node %s matches the expected inventory", host);
            else {
                fc_tap_point(&ctx.tap, FC_ERR_FAIL, "node %s: %s", host,
                             json_string_value(json_array_get(reasons, 0)));
                ++ctx.failed_points;
            }
            fc_results_append(&ctx.results, rec);
            json_decref(reasons);
        }
        for (int i = 0; i < nnodes; ++i)
            json_decref(invs[i]);
        free(invs);
    }
    json_decref(all);
    MPI_Comm_free(&node_comm);
    return fc_stage_finish(&ctx, status);
}
