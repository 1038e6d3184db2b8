/*
 * domain_judge.c - a rack's NVLink domain judged from its GPUs' NVML
 * fabric readings (lib/stage/fc_domain_judge.c): a rack of 3 nodes x 4 GPUs
 * all registered in one clique PASSes; one node's GPUs in another clique
 * (a tray the fabric manager put in another partition) FAIL the rack
 * naming that node and both cliques; a GPU still registering, one whose
 * registration failed, one NVML says is degraded, and one in no fabric
 * at all (an HGX board's GPU) each FAIL naming the GPU and node; a GPU
 * whose fabric could not be read (no NVML) leaves the rack INCOMPLETE,
 * never a pass; an empty rack is INCOMPLETE.
 */
#include <stdio.h>
#include <string.h>

#include "fc_domain.h"
#include "fc_tap.h"

#define NODES 3
#define GPUS 4
#define UUID_A "3143b15b-c2cd-192b-28cc-9b5473fb5b93"
#define UUID_B "77777777-c2cd-192b-28cc-9b5473fb5b93"

static fc_domain_member_t m[NODES * GPUS];

static void rack_clean(void)
{
    memset(m, 0, sizeof(m));
    for (int i = 0; i < NODES * GPUS; ++i) {
        snprintf(m[i].host, sizeof(m[i].host), "gb%02d", i / GPUS + 1);
        m[i].local_rank = i % GPUS;
        m[i].read = FC_OK;
        m[i].fabric.state = 3;
        snprintf(m[i].fabric.state_text, sizeof(m[i].fabric.state_text), "completed");
        snprintf(m[i].fabric.status_text, sizeof(m[i].fabric.status_text), "Success");
        snprintf(m[i].fabric.cluster_uuid, sizeof(m[i].fabric.cluster_uuid), UUID_A);
        snprintf(m[i].fabric.pci_bus_id, sizeof(m[i].fabric.pci_bus_id), "00000000:%02X:00.0",
                 0x10 + i % GPUS);
        m[i].fabric.clique_id = 32766;
        m[i].fabric.health_mask = 0xaa;
    }
}

static const char *verdict(json_t *r)
{
    return json_string_value(json_object_get(r, "verdict"));
}

static const char *reason(json_t *r)
{
    return json_string_value(json_array_get(json_object_get(r, "reasons"), 0)) ?: "";
}

static const char *blamed(json_t *r)
{
    return json_string_value(json_object_get(json_object_get(r, "implicates"), "host")) ?: "";
}

/* One fault planted on gb02's GPU 1: FAIL naming it and the reason. */
static void one_gpu(fc_tap_t *tap, const char *what, void (*plant)(fc_gpu_fabric_t *),
                    const char *says)
{
    json_t *r;

    rack_clean();
    plant(&m[GPUS + 1].fabric);
    r = fc_domain_judge(m, NODES * GPUS, "r1");
    fc_tap_is_str(tap, verdict(r), "FAIL", "%s: FAIL naming gb02's GPU 1 (%s)", what, reason(r));
    fc_tap_is_str(tap, blamed(r), "gb02", "%s: FAIL naming gb02's GPU 1 (%s)"
                  " [blamed(r)]", what, reason(r));
    fc_tap_ok(tap, strstr(reason(r), "GPU 00000000:11:00.0 (local rank 1) of gb02") &&
              strstr(reason(r), says), "%s: FAIL naming gb02's GPU 1 (%s)"
              " [strstr(reason(r), \"GPU 00000000:11:00.0 (local rank 1) of...]", what, reason(r));
    json_decref(r);
}

static void in_progress(fc_gpu_fabric_t *f)
{
    f->state = 2;
    snprintf(f->state_text, sizeof(f->state_text), "in progress");
}

static void failed(fc_gpu_fabric_t *f)
{
    f->status = 999;
    snprintf(f->status_text, sizeof(f->status_text), "Unknown Error");
}

static void degraded(fc_gpu_fabric_t *f)
{
    f->degraded_bw = 1;
    f->health_mask = 0xa9;
}

static void no_fabric(fc_gpu_fabric_t *f)
{
    f->state = 0;
}

int main(void)
{
    fc_tap_t tap;
    json_t *r;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 24);

    rack_clean();
    r = fc_domain_judge(m, NODES * GPUS, "r1");
    fc_tap_is_str(&tap, verdict(r), "PASS",
                  "12 GPUs of 3 nodes in one clique: PASS, one clique of 12 GPUs");
    fc_tap_is_int(&tap, json_array_size(json_object_get(r, "cliques")), 1,
                  "12 GPUs of 3 nodes in one clique: PASS, one clique of 12 GPUs"
                  " [json_array_size(json_object_get(r, \"cliques\"))]");
    fc_tap_is_int(&tap,
                  json_integer_value(json_object_get(json_array_get(json_object_get(r,
                  "cliques"), 0), "gpus")), NODES * GPUS,
                  "12 GPUs of 3 nodes in one clique: PASS, one clique of 12 GPUs"
                  " [json_integer_value(json_object_get(json_array_get(json_ob...]");
    fc_tap_ok(&tap, json_is_null(json_object_get(r,
              "implicates")), "12 GPUs of 3 nodes in one clique: PASS, one clique of 12 GPUs"
              " [json_is_null(json_object_get(r, \"implicates\"))]");
    fc_tap_is_int(&tap, json_array_size(json_object_get(r, "hosts")), NODES,
                  "12 GPUs of 3 nodes in one clique: PASS, one clique of 12 GPUs"
                  " [json_array_size(json_object_get(r, \"hosts\"))]");
    json_decref(r);

    rack_clean();
    for (int g = 0; g < GPUS; ++g) {
        snprintf(m[2 * GPUS + g].fabric.cluster_uuid, sizeof(m[0].fabric.cluster_uuid), UUID_B);
        m[2 * GPUS + g].fabric.clique_id = 5;
    }
    r = fc_domain_judge(m, NODES * GPUS, "r1");
    fc_tap_is_str(&tap, verdict(r), "FAIL",
                  "one node in another clique: FAIL naming it, the larger clique first (%s)",
                  reason(r));
    fc_tap_is_str(&tap, blamed(r), "gb03",
                  "one node in another clique: FAIL naming it, the larger clique first (%s)"
                  " [blamed(r)]", reason(r));
    fc_tap_ok(&tap, strstr(reason(r), "rack r1 is not one NVLink domain: 4 GPU(s) of gb03 are in "
                     "clique 5 of cluster " UUID_B ", the rack's other 8 in clique 32766") != NULL,
              "one node in another clique: FAIL naming it, the larger clique first (%s)"
              " [strstr(reason(r), \"rack r1 is not one NVLink domain: 4 GP...]", reason(r));
    fc_tap_is_int(&tap,
                  json_integer_value(json_object_get(json_array_get(json_object_get(r, "cliques"),
                                                                    0), "gpus")), 8,
                  "one node in another clique: FAIL naming it, the larger clique first (%s)"
                  " [json_integer_value(json_object_get(json_array_get(json_ob...]", reason(r));
    json_decref(r);

    one_gpu(&tap, "a registration in progress", in_progress, "in progress, not completed");
    one_gpu(&tap, "a failed registration", failed, "registration failed: Unknown Error");
    one_gpu(&tap, "a degraded bandwidth", degraded, "bandwidth is degraded");
    one_gpu(&tap, "a GPU in no fabric", no_fabric, "in no multi-node NVLink fabric");

    rack_clean();
    m[3].read = FC_ERR_SKIP;
    snprintf(m[3].why, sizeof(m[3].why), "cannot load NVML (libnvidia-ml.so.1)");
    r = fc_domain_judge(m, NODES * GPUS, "r1");
    fc_tap_is_str(&tap, verdict(r), "INCOMPLETE",
                  "a GPU whose fabric could not be read: INCOMPLETE, never PASS (%s)", reason(r));
    fc_tap_ok(&tap, strstr(reason(r), "gb01") &&
              strstr(reason(r), "cannot load NVML"),
              "a GPU whose fabric could not be read: INCOMPLETE, never PASS (%s)"
              " [names 'gb01', 'cannot load NVML']", reason(r));
    json_decref(r);
    r = fc_domain_judge(m, 0, "r2");
    fc_tap_is_str(&tap, verdict(r), "INCOMPLETE", "a rack with no GPU read: INCOMPLETE");
    json_decref(r);
    return fc_tap_done(&tap);
}
