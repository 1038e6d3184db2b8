/*
 * fc_gpu_health.h - a GPU's health as NVML reports it, read at run time
 * (lib/gpu/fc_nvml.c opens libnvidia-ml.so.1 with dlopen, or the library
 * $FABCERT_NVML_LIB names: tests point it at a stand-in), and judged
 * between two readings (lib/gpu/fc_gpu_health.c). A burn-in reads a
 * snapshot before each window and one after, and the judge says which GPU
 * got worse, with the counter, both values and the part it implicates
 * (the GPU, or one of its NVLinks) as evidence.
 *
 * A snapshot: {"source": "nvml", "library": path, "driver": "580.65.06",
 * "gpus": [GPU, ...]}; a GPU: {"index", "uuid", "pci_bus_id", "name",
 * "clocks_mhz": {"sm", "mem", "graphics"}, "clocks_event_reasons":
 * {"mask": N, "active": ["sw_power_cap", ...]}, "temperature_c",
 * "power_mw", "energy_mj", "counters": {name: value}, "flags": {name:
 * bool}, "nvlink": {"L": {"state": "active"|"inactive", "replay",
 * "recovery", "crc", "crc_flit", "crc_data"}}, "not_read": {what: NVML's
 * reason}}. Counters: ecc_{volatile,aggregate}_{corrected,uncorrected},
 * retired_pages_{sbe,dbe}, remapped_rows_{corrected,uncorrected},
 * violation_{power,thermal}_ns (the time NVML says the clocks were held
 * below the application clocks by that limiter). Flags:
 * retired_pages_pending, remap_pending, remap_failure; and on a GPU of a
 * multi-node NVLink fabric (GB200 NVL72) fabric_degraded_bw and
 * fabric_route_unhealthy from its fabric health mask, with "fabric":
 * {state, status, cluster_uuid, clique_id, health_mask}. What a GPU or its
 * driver does not expose is left out and named in not_read, never zero.
 */
#ifndef FC_GPU_HEALTH_H
#define FC_GPU_HEALTH_H

#include <jansson.h>
#include <stddef.h>

#include "fc_status.h"

/* Clocks-event (formerly "throttle") reason bits, NVML API reference,
 * "Clocks Event Reasons" (nvmlClocksEventReason*; nvml.h). */
#define FC_NVML_REASON_GPU_IDLE          0x1ull
#define FC_NVML_REASON_APP_CLOCKS        0x2ull
#define FC_NVML_REASON_SW_POWER_CAP      0x4ull
#define FC_NVML_REASON_HW_SLOWDOWN       0x8ull
#define FC_NVML_REASON_SYNC_BOOST        0x10ull
#define FC_NVML_REASON_SW_THERMAL        0x20ull
#define FC_NVML_REASON_HW_THERMAL        0x40ull
#define FC_NVML_REASON_HW_POWER_BRAKE    0x80ull
#define FC_NVML_REASON_DISPLAY_CLOCKS    0x100ull

/* What fails a GPU between two snapshots. A limit < 0 reports the change
 * without judging it. */
typedef struct fc_gpu_health_limits {
    double max_ecc_uncorrected_delta;   /* default 0 */
    double max_ecc_corrected_delta;     /* default -1: reported */
    double max_retired_pages_delta;     /* default 0 (pages and remapped rows
                                         * for uncorrectable errors) */
    double max_nvlink_error_delta;      /* per link and counter; default 0 */
    double max_thermal_violation_ms;    /* default 0 */
    double max_power_violation_ms;      /* default -1: a GPU at full load
                                         * holds its power cap by design */
    double max_temperature_c;           /* default -1 */
    unsigned long long fail_reasons;    /* clocks-event reasons that fail when
                                         * active at the end of the window;
                                         * default HW slowdown, HW thermal,
                                         * HW power brake, SW thermal */
} fc_gpu_health_limits_t;

void fc_gpu_health_limits_default(fc_gpu_health_limits_t *limits);

/* The GPU at pci_bus_id ("0000:18:00.0", as cudaDeviceGetPCIBusId writes
 * it), or every GPU NVML sees when NULL. NULL with the reason in why when
 * NVML cannot be loaded or initialised (no driver, a library without the
 * functions needed). */
json_t *fc_gpu_health_snapshot(const char *pci_bus_id, char *why, size_t len);

/* Judge the GPUs of before (matched by UUID) against after:
 *   FAIL: a GPU gone; an uncorrectable ECC error, a retired page or a row
 *         remapped for an uncorrectable error, a remapping pending or
 *         failed; an NVLink fabric's bandwidth degraded or route unhealthy; an NVLink error counter risen or a link gone down; clocks
 *         held down by a thermal limit (or power, where limited) for longer
 *         than allowed; a failing clocks-event reason active at the end; a
 *         temperature above its limit;
 *   INCOMPLETE: a counter read before and not after, or lower after (a
 *         driver reload or GPU reset hides any rise); no GPU at all;
 *   PASS: otherwise, when at least one counter was compared.
 * Returns {"verdict", "reasons": [...], "evidence": [{"gpu", "index",
 * "pci_bus_id", "part": "gpu"|"nvlink", "link"?, "counter", "before",
 * "after", "limit"}], "deltas": {uuid: {counter: delta, "nvlink": {L:
 * {counter: delta}}}}, "gpu": the first failing GPU's UUID or null}.
 * host names the node in the reasons. */
json_t *fc_gpu_health_judge(const json_t *before, const json_t *after,
                            const fc_gpu_health_limits_t *limits, const char *host);

/* A GPU's place in a multi-node NVLink fabric (GB200 NVL72), as NVML's
 * nvmlDeviceGetGpuFabricInfoV reports it: the GPUs one NVLink domain joins
 * share a cluster UUID and a clique id once the fabric manager has
 * registered them (state completed, status success). */
typedef struct fc_gpu_fabric {
    int state;                  /* NVML_GPU_FABRIC_STATE_*: 0 not supported
                                 * (a GPU in no such fabric), 1 not started,
                                 * 2 in progress, 3 completed */
    char state_text[24];
    int status;                 /* nvmlReturn_t of the registration (read
                                 * when completed): 0 success */
    char status_text[64];
    unsigned clique_id;
    char cluster_uuid[40];      /* 8-4-4-4-12 hex */
    unsigned health_mask;       /* NVML_GPU_FABRIC_HEALTH_MASK_* */
    int degraded_bw;            /* the mask says its bandwidth is degraded */
    int route_unhealthy;        /* ... or a route to it unhealthy */
    char pci_bus_id[32];        /* the GPU asked about */
} fc_gpu_fabric_t;

/* The fabric of the GPU at pci_bus_id: FC_OK (state 0 for a GPU in no
 * fabric); FC_ERR_SKIP with why when NVML or its fabric query is not
 * there (no reading: never taken for a GPU outside the fabric);
 * FC_ERR_FAIL with why when NVML has no such GPU or the query fails. */
fc_status_t fc_gpu_fabric_read(const char *pci_bus_id, fc_gpu_fabric_t *f, char *why,
                               size_t len);

/* "hw_thermal_slowdown", ...: the name of one reason bit, NULL if unknown. */
const char *fc_gpu_reason_name(unsigned long long bit);

#endif
