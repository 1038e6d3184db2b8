/*
 * gpu_health.c - the NVML health reader and judge (lib/gpu/fc_nvml.c,
 * lib/gpu/fc_gpu_health.c) against the stand-in NVML of
 * tests/standin/fc_nvml_standin.c, loaded through $FABCERT_NVML_LIB as
 * the real libnvidia-ml.so.1 would be: a missing library is a reason, not
 * a crash; a snapshot holds what the "driver" reports (both NVLink paths,
 * unsupported readings named); and each fault a burn-in must catch (an
 * uncorrectable ECC error, a retired page, a pending row remap, an NVLink
 * CRC error or a link going down, a thermal throttle, a hardware slowdown,
 * a vanished GPU) FAILs exactly that GPU with the counter as evidence,
 * while what a healthy GPU does (holding its power cap, a corrected error
 * under its limit) passes and a reset counter is INCOMPLETE. The NVLink
 * fabric query (fc_gpu_fabric_read) reads a GPU's cluster, clique,
 * registration state and health mask.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fc_tap.h"
#include "gpu/fc_gpu_health.h"

static char fc_state[4096];

/* The stand-in's file: two GPUs with four links each (GPU 0 through field
 * values, GPU 1 through the legacy counters), then the extra lines. */
static void fc_write_state(const char *extra)
{
    FILE *f = fopen(fc_state, "w");

    fprintf(f, "gpus 2\ndriver 580.65.06\n"
            "0.uuid GPU-00000000-aaaa\n0.pci 00000000:18:00.0\n0.name Stand-in-H100\n"
            "1.uuid GPU-11111111-bbbb\n1.pci 00000000:2A:00.0\n1.name Stand-in-H100\n"
            "0.links 4\n1.links 4\n1.legacy_links 1\n0.reasons 0x1\n1.reasons 0x1\n"
            "0.violation_power 1000\n0.violation_thermal 2000\n"
            "1.unsupported.retired 1\n%s", extra);
    fclose(f);
}

static json_t *fc_snap(void)
{
    char why[512];
    json_t *s = fc_gpu_health_snapshot(NULL, why, sizeof(why));

    if (s == NULL)
        printf("# snapshot failed: %s\n", why);
    return s;
}

/* Judge the base state against base + extra. */
static json_t *fc_judge_change(const char *extra, const fc_gpu_health_limits_t *l)
{
    json_t *before, *after, *j;

    fc_write_state("");
    before = fc_snap();
    fc_write_state(extra);
    after = fc_snap();
    j = fc_gpu_health_judge(before, after, l, "node7");
    json_decref(before);
    json_decref(after);
    return j;
}

static const char *fc_verdict(const json_t *j)
{
    return json_string_value(json_object_get(j, "verdict")) ?: "?";
}

/* FAIL, blaming gpu, with evidence naming counter (and link when set). */
static int fc_fails_with(const json_t *j, const char *gpu, const char *counter, const char *link)
{
    const json_t *e = json_array_get(json_object_get(j, "evidence"), 0);

    if (strcmp(fc_verdict(j), "FAIL") != 0 || e == NULL)
        return 0;
    if (strcmp(json_string_value(json_object_get(j, "gpu")) ?: "", gpu) != 0)
        return 0;
    if (strcmp(json_string_value(json_object_get(e, "counter")) ?: "", counter) != 0)
        return 0;
    return link == NULL || strcmp(json_string_value(json_object_get(e, "link")) ?: "", link) == 0;
}

static void fc_case(fc_tap_t *tap, const char *extra, const char *gpu, const char *counter,
                    const char *link, const char *what)
{
    json_t *j = fc_judge_change(extra, NULL);
    int ok = fc_fails_with(j, gpu, counter, link);

    if (!ok || getenv("FC_TEST_VERBOSE"))
        fc_tap_diag(tap, "%s: %s", fc_verdict(j),
                    json_string_value(json_array_get(json_object_get(j, "reasons"), 0)) ?: "");
    fc_tap_ok(tap, ok, "%s fails %s with %s as evidence", what, gpu, counter);
    json_decref(j);
}

static void fc_passes(fc_tap_t *tap, const char *extra, const fc_gpu_health_limits_t *l,
                      const char *want, const char *what)
{
    json_t *j = fc_judge_change(extra, l);
    int ok = strcmp(fc_verdict(j), want) == 0;

    if (!ok)
        fc_tap_diag(tap, "%s: %s", fc_verdict(j),
                    json_string_value(json_array_get(json_object_get(j, "reasons"), 0)) ?: "");
    fc_tap_ok(tap, ok, "%s: %s", what, want);
    json_decref(j);
}

int main(int argc, char **argv)
{
    char lib[4200], dir[4096];
    fc_tap_t tap;
    ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
    json_t *s, *g0, *g1;
    fc_gpu_health_limits_t l;
    int status = 0;

    (void)argc;
    (void)argv;
    dir[n > 0 ? n : 0] = '\0';
    *(strrchr(dir, '/') ? strrchr(dir, '/') : dir) = '\0';
    snprintf(lib, sizeof(lib), "%s/libfc_nvml_standin.so", dir);
    snprintf(fc_state, sizeof(fc_state), "/tmp/fc_nvml_standin.%d", (int)getpid());
    setenv("FC_NVML_STANDIN_FILE", fc_state, 1);
    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 47);

    /* a missing library: a reason (in a child: the loader tries once) */
    if (fork() == 0) {
        char why[512];

        setenv("FABCERT_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
        _exit(fc_gpu_health_snapshot(NULL, why, sizeof(why)) == NULL &&
              strstr(why, "cannot load NVML (/nonexistent/libnvidia-ml.so.1)") ? 0 : 1);
    }
    wait(&status);
    fc_tap_ok(&tap, WIFEXITED(status),
              "without NVML the snapshot is NULL with the reason (dlopen's)");
    fc_tap_is_int(&tap, WEXITSTATUS(status), 0,
                  "without NVML the snapshot is NULL with the reason (dlopen's)"
                  " [WEXITSTATUS(status)]");

    setenv("FABCERT_NVML_LIB", lib, 1);
    fc_write_state("0.ecc_volatile_corrected 3\n0.link.2.crc 7\n1.link.1.crc_data 5\n"
                   "1.unsupported.ecc 1\n");
    s = fc_snap();
    g0 = json_array_get(json_object_get(s, "gpus"), 0);
    g1 = json_array_get(json_object_get(s, "gpus"), 1);
    fc_tap_ok(&tap, s != NULL, "the snapshot lists both GPUs with UUID, PCI id and the driver");
    fc_tap_is_int(&tap, json_array_size(json_object_get(s, "gpus")), 2,
                  "the snapshot lists both GPUs with UUID, PCI id and the driver"
                  " [json_array_size(json_object_get(s, \"gpus\"))]");
    fc_tap_is_str(&tap, json_string_value(json_object_get(g0, "uuid")) ?: "", "GPU-00000000-aaaa",
                  "the snapshot lists both GPUs with UUID, PCI id and the driver"
                  " [json_string_value(json_object_get(g0, \"uuid\")) ?: \"\"]");
    fc_tap_is_str(&tap, json_string_value(json_object_get(g1, "pci_bus_id")) ?: "",
                  "00000000:2A:00.0",
                  "the snapshot lists both GPUs with UUID, PCI id and the driver"
                  " [json_string_value(json_object_get(g1, \"pci_bus_id\")) ?: \"\"]");
    fc_tap_is_str(&tap, json_string_value(json_object_get(s, "driver")) ?: "", "580.65.06",
                  "the snapshot lists both GPUs with UUID, PCI id and the driver"
                  " [json_string_value(json_object_get(s, \"driver\")) ?: \"\"]");
    fc_tap_is_int(&tap,
                  json_integer_value(json_object_get(json_object_get(g0, "counters"),
                                                           "ecc_volatile_corrected")), 3,
                  "it holds clocks, temperature, power, ECC and violation counters");
    fc_tap_ok(&tap, json_is_integer(json_object_get(json_object_get(g0, "counters"), "violation_thermal_ns")),
              "it holds clocks, temperature, power, ECC and violation counters"
              " [json_is_integer(json_object_get(json_object_get(g0, \"coun...]");
    fc_tap_is_int(&tap,
                  json_integer_value(json_object_get(json_object_get(g0, "clocks_mhz"), "sm")),
                  1100, "it holds clocks, temperature, power, ECC and violation counters"
                  " [json_integer_value(json_object_get(json_object_get(g0, \"c...]");
    fc_tap_ok(&tap, json_is_integer(json_object_get(g0, "temperature_c")) &&
              json_is_integer(json_object_get(g0, "power_mw")),
              "it holds clocks, temperature, power, ECC and violation counters"
              " [json_is_integer(json_object_get(g0, \"temperature_c\")) &&...]");
    fc_tap_is_int(&tap,
                  json_integer_value(json_object_get(json_object_get(json_object_get(g0, "nvlink"), "2"), "crc")),
                  7, "NVLink counters come per link, from field values (GPU 0) or the legacy "
                  "counters (GPU 1)");
    fc_tap_is_int(&tap,
                  json_integer_value(json_object_get(json_object_get(json_object_get(g1, "nvlink"), "1"), "crc_data")),
                  5, "NVLink counters come per link, from field values (GPU 0) or the legacy "
                  "counters (GPU 1)"
                  " [json_integer_value(json_object_get(json_object_get(json_o...]");
    fc_tap_is_int(&tap, json_object_size(json_object_get(g0, "nvlink")), 4,
                  "NVLink counters come per link, from field values (GPU 0) or the legacy "
                  "counters (GPU 1)"
                  " [json_object_size(json_object_get(g0, \"nvlink\"))]");
    fc_tap_ok(&tap, json_is_string(json_object_get(json_object_get(g1, "not_read"), "ecc")) &&
              json_is_string(json_object_get(json_object_get(g1, "not_read"), "retired_pages")) &&
              json_object_get(json_object_get(g1, "counters"), "ecc_volatile_corrected") == NULL,
              "what a GPU does not support is named in not_read, never reported as 0");
    json_decref(s);
    {
        char why[512];
        json_t *one = fc_gpu_health_snapshot("00000000:2A:00.0", why, sizeof(why));

        fc_tap_ok(&tap, one != NULL, "a snapshot by PCI bus id holds that GPU alone");
        fc_tap_is_int(&tap, json_array_size(json_object_get(one, "gpus")), 1,
                      "a snapshot by PCI bus id holds that GPU alone"
                      " [json_array_size(json_object_get(one, \"gpus\"))]");
        fc_tap_is_str(&tap,
                      json_string_value(json_object_get(json_array_get(json_object_get(one, "gpus"), 0),
                                                               "uuid")) ?: "", "GPU-11111111-bbbb",
                      "a snapshot by PCI bus id holds that GPU alone"
                      " [json_string_value(json_object_get(json_array_get(json_obj...]");
        json_decref(one);
    }

    fc_passes(&tap, "", NULL, "PASS", "no change");
    fc_case(&tap, "1.ecc_volatile_uncorrected 1\n1.ecc_aggregate_uncorrected 1\n",
            "GPU-11111111-bbbb", "ecc_volatile_uncorrected", NULL, "an uncorrectable ECC error");
    fc_case(&tap, "0.retired_dbe 1\n", "GPU-00000000-aaaa", "retired_pages_dbe", NULL,
            "a page retired for a double-bit error");
    fc_case(&tap, "0.remap_pending 1\n", "GPU-00000000-aaaa", "remap_pending", NULL,
            "a pending row remap");
    fc_case(&tap, "0.link.2.crc 3\n", "GPU-00000000-aaaa", "crc", "2", "an NVLink CRC error");
    fc_case(&tap, "1.link.3.state 0\n", "GPU-11111111-bbbb", "state", "3", "an NVLink going down");
    fc_case(&tap, "0.violation_thermal 5002000\n", "GPU-00000000-aaaa", "violation_thermal_ns",
            NULL, "5 ms of thermal throttling");
    fc_case(&tap, "1.reasons 0x40\n", "GPU-11111111-bbbb", "hw_thermal_slowdown", NULL,
            "a hardware thermal slowdown at the end");
    fc_case(&tap, "gpus 1\n", "GPU-11111111-bbbb", "present", NULL, "a vanished GPU");
    fc_case(&tap, "0.fabric.cluster 3143b15bc2cd192b28cc9b5473fb5b93\n0.fabric.health 0xa9\n",
            "GPU-00000000-aaaa", "fabric_degraded_bw", NULL,
            "a multi-node NVLink fabric whose bandwidth NVML says is degraded");
    fc_case(&tap, "1.fabric.cluster 3143b15bc2cd192b28cc9b5473fb5b93\n1.fabric.health 0x9a\n",
            "GPU-11111111-bbbb", "fabric_route_unhealthy", NULL,
            "an NVLink fabric route NVML says is unhealthy");
    fc_passes(&tap, "0.violation_power 900001000\n0.reasons 0x4\n0.ecc_volatile_corrected 4\n",
              NULL, "PASS", "holding the power cap and a few corrected errors (reported only)");
    fc_gpu_health_limits_default(&l);
    l.max_ecc_corrected_delta = 3;
    fc_passes(&tap, "0.ecc_volatile_corrected 4\n", &l, "FAIL",
              "4 corrected errors against a limit of 3");
    fc_write_state("0.ecc_aggregate_corrected 9\n");
    {
        json_t *before = fc_snap(), *after, *j;

        fc_write_state("0.ecc_aggregate_corrected 2\n");
        after = fc_snap();
        j = fc_gpu_health_judge(before, after, NULL, "node7");
        fc_tap_is_str(&tap, fc_verdict(j), "INCOMPLETE",
                      "a counter that fell (driver reload, GPU reset) is INCOMPLETE, said so");
        fc_tap_ok(&tap, strstr(json_string_value(json_array_get(json_object_get(j, "reasons"), 0)) ?: "",
                         "fell from 9 to 2") != NULL,
                  "a counter that fell (driver reload, GPU reset) is INCOMPLETE, said so"
                  " [names 'fell from 9 to 2']");
        json_decref(before);
        json_decref(after);
        json_decref(j);
    }
    /* the NVLink fabric (multi-node NVLink): GPU 0 registered in a clique,
     * GPU 1 of an HGX board in none; then GPU 0 still registering, and
     * degraded; "%h" in the file's name is this host's */
    {
        fc_gpu_fabric_t f0, f1, f2, f3;
        char why[512], host[64] = "", path[4200];
        fc_status_t r0, r1, r2, r3;

        fc_write_state("0.fabric.cluster 3143b15bc2cd192b28cc9b5473fb5b93\n"
                       "0.fabric.clique 32766\n");
        r0 = fc_gpu_fabric_read("00000000:18:00.0", &f0, why, sizeof(why));
        r1 = fc_gpu_fabric_read("00000000:2A:00.0", &f1, why, sizeof(why));
        fc_tap_is_int(&tap, r0, FC_OK,
                      "the fabric query reads a registered GPU's cluster and clique (%s, %u) "
                      "and a GPU in no fabric as not supported", f0.cluster_uuid, f0.clique_id);
        fc_tap_is_int(&tap, f0.state, 3,
                      "the fabric query reads a registered GPU's cluster and clique (%s, %u) "
                      "and a GPU in no fabric as not supported"
                      " [f0.state]", f0.cluster_uuid, f0.clique_id);
        fc_tap_is_int(&tap, f0.status, 0,
                      "the fabric query reads a registered GPU's cluster and clique (%s, %u) "
                      "and a GPU in no fabric as not supported"
                      " [f0.status]", f0.cluster_uuid, f0.clique_id);
        fc_tap_is_int(&tap, f0.clique_id, 32766,
                      "the fabric query reads a registered GPU's cluster and clique (%s, %u) "
                      "and a GPU in no fabric as not supported"
                      " [f0.clique_id]", f0.cluster_uuid, f0.clique_id);
        fc_tap_ok(&tap, !f0.degraded_bw && !f0.route_unhealthy,
                  "the fabric query reads a registered GPU's cluster and clique (%s, %u) "
                  "and a GPU in no fabric as not supported"
                  " [!f0.degraded_bw && !f0.route_unhealthy]", f0.cluster_uuid, f0.clique_id);
        fc_tap_is_str(&tap, f0.cluster_uuid, "3143b15b-c2cd-192b-28cc-9b5473fb5b93",
                      "the fabric query reads a registered GPU's cluster and clique (%s, %u) "
                      "and a GPU in no fabric as not supported"
                      " [f0.cluster_uuid]", f0.cluster_uuid, f0.clique_id);
        fc_tap_is_int(&tap, r1, FC_OK,
                      "the fabric query reads a registered GPU's cluster and clique (%s, %u) "
                      "and a GPU in no fabric as not supported"
                      " [r1]", f0.cluster_uuid, f0.clique_id);
        fc_tap_is_int(&tap, f1.state, 0,
                      "the fabric query reads a registered GPU's cluster and clique (%s, %u) "
                      "and a GPU in no fabric as not supported"
                      " [f1.state]", f0.cluster_uuid, f0.clique_id);
        fc_tap_is_str(&tap, f1.state_text, "not supported",
                      "the fabric query reads a registered GPU's cluster and clique (%s, %u) "
                      "and a GPU in no fabric as not supported"
                      " [f1.state_text]", f0.cluster_uuid, f0.clique_id);
        gethostname(host, sizeof(host) - 1);
        snprintf(path, sizeof(path), "%s.%s", fc_state, host);
        rename(fc_state, path);
        snprintf(path, sizeof(path), "%s.%%h", fc_state);
        setenv("FC_NVML_STANDIN_FILE", path, 1);
        snprintf(path, sizeof(path), "%s.%s", fc_state, host);
        fc_write_state("0.fabric.cluster 3143b15bc2cd192b28cc9b5473fb5b93\n"
                       "0.fabric.state 2\n");
        rename(fc_state, path);
        r2 = fc_gpu_fabric_read("00000000:18:00.0", &f2, why, sizeof(why));
        fc_write_state("0.fabric.cluster 3143b15bc2cd192b28cc9b5473fb5b93\n"
                       "0.fabric.health 0xa9\n");
        rename(fc_state, path);
        r3 = fc_gpu_fabric_read("00000000:18:00.0", &f3, why, sizeof(why));
        unlink(path);
        setenv("FC_NVML_STANDIN_FILE", fc_state, 1);
        fc_tap_is_int(&tap, r2, FC_OK,
                      "a registration in progress and a degraded bandwidth are read as such "
                      "(the stand-in's file named per host by %%h)");
        fc_tap_is_int(&tap, f2.state, 2,
                      "a registration in progress and a degraded bandwidth are read as such "
                      "(the stand-in's file named per host by %%h)"
                      " [f2.state]");
        fc_tap_is_str(&tap, f2.state_text, "in progress",
                      "a registration in progress and a degraded bandwidth are read as such "
                      "(the stand-in's file named per host by %%h)"
                      " [f2.state_text]");
        fc_tap_is_int(&tap, r3, FC_OK,
                      "a registration in progress and a degraded bandwidth are read as such "
                      "(the stand-in's file named per host by %%h)"
                      " [r3]");
        fc_tap_ok(&tap, f3.degraded_bw && !f3.route_unhealthy,
                  "a registration in progress and a degraded bandwidth are read as such "
                  "(the stand-in's file named per host by %%h)"
                  " [f3.degraded_bw && !f3.route_unhealthy]");
    }
    unlink(fc_state);
    return fc_tap_done(&tap);
}
