/*
 * fc_nvml.c - fc_gpu_health_snapshot (fc_gpu_health.h): NVML opened at run
 * time with dlopen, so the plugin and the node check build and run where
 * no NVML header or library exists (the snapshot then says why it has no
 * reading). $FABCERT_NVML_LIB names another library with the same symbols
 * (tests/standin/fc_nvml_standin.c). NVML is initialised once per process
 * (nvmlInit_v2 is reference-counted) and left open.
 *
 * No NVML header is used: the few types, constants and signatures below
 * are declared from the NVML API Reference Guide
 * (https://docs.nvidia.com/deploy/nvml-api/, "Device Queries", "NvLink
 * Methods", "Field Value Queries", "Clocks Event Reasons") and nvml.h of
 * the CUDA toolkit (NVML_FI_DEV_NVLINK_ERROR_DL_* are field ids 161-163,
 * per link through scopeId; older GPUs answer the per-link
 * nvmlDeviceGetNvLinkErrorCounter instead). Functions a driver lacks
 * (optional below) leave their readings out, named in "not_read".
 * fc_gpu_fabric_read is the GPU's place in a multi-node NVLink fabric
 * (nvmlDeviceGetGpuFabricInfoV with nvmlGpuFabricInfo_v2_t: the cluster
 * UUID and clique id a GB200 NVL72's fabric manager registered it in).
 */
#include "fc_gpu_health.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int fc_nvml_ret_t;                  /* nvmlReturn_t; 0 = NVML_SUCCESS */
typedef struct fc_nvml_dev *fc_nvml_dev_t;  /* nvmlDevice_t */

#define FC_NVML_SUCCESS 0
#define FC_NVML_NOT_SUPPORTED 3
#define FC_NVML_INSUFFICIENT_SIZE 7
#define FC_NVML_MAX_LINKS 18                /* NVML_NVLINK_MAX_LINKS */

typedef struct {                            /* nvmlViolationTime_t */
    unsigned long long reference_time;      /* CPU timestamp, us */
    unsigned long long violation_time;      /* ns */
} fc_nvml_violation_t;

typedef union {                             /* nvmlValue_t */
    double d;
    int si;
    unsigned int ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
} fc_nvml_value_t;

typedef struct {                            /* nvmlFieldValue_t */
    unsigned int field_id, scope_id;
    long long timestamp, latency_usec;
    int value_type;                         /* nvmlValueType_t */
    fc_nvml_ret_t ret;
    fc_nvml_value_t value;
} fc_nvml_field_t;

typedef struct {                            /* nvmlPciInfo_t (v3) */
    char bus_id_legacy[16];
    unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
} fc_nvml_pci_t;

/* the functions used; the first block is required */
typedef struct fc_nvml_api {
    fc_nvml_ret_t (*init)(void);
    const char *(*error_string)(fc_nvml_ret_t);
    fc_nvml_ret_t (*count)(unsigned int *);
    fc_nvml_ret_t (*by_index)(unsigned int, fc_nvml_dev_t *);
    fc_nvml_ret_t (*uuid)(fc_nvml_dev_t, char *, unsigned int);
    fc_nvml_ret_t (*driver)(char *, unsigned int);
    /* optional */
    fc_nvml_ret_t (*by_pci)(const char *, fc_nvml_dev_t *);
    fc_nvml_ret_t (*name)(fc_nvml_dev_t, char *, unsigned int);
    fc_nvml_ret_t (*pci)(fc_nvml_dev_t, fc_nvml_pci_t *);
    fc_nvml_ret_t (*clock)(fc_nvml_dev_t, int, unsigned int *);
    fc_nvml_ret_t (*reasons)(fc_nvml_dev_t, unsigned long long *);
    fc_nvml_ret_t (*temperature)(fc_nvml_dev_t, int, unsigned int *);
    fc_nvml_ret_t (*power)(fc_nvml_dev_t, unsigned int *);
    fc_nvml_ret_t (*energy)(fc_nvml_dev_t, unsigned long long *);
    fc_nvml_ret_t (*ecc)(fc_nvml_dev_t, int, int, unsigned long long *);
    fc_nvml_ret_t (*retired)(fc_nvml_dev_t, int, unsigned int *, unsigned long long *);
    fc_nvml_ret_t (*retired_pending)(fc_nvml_dev_t, int *);
    fc_nvml_ret_t (*remapped)(fc_nvml_dev_t, unsigned int *, unsigned int *, unsigned int *,
                              unsigned int *);
    fc_nvml_ret_t (*violation)(fc_nvml_dev_t, int, fc_nvml_violation_t *);
    fc_nvml_ret_t (*link_state)(fc_nvml_dev_t, unsigned int, int *);
    fc_nvml_ret_t (*link_error)(fc_nvml_dev_t, unsigned int, int, unsigned long long *);
    fc_nvml_ret_t (*fields)(fc_nvml_dev_t, int, fc_nvml_field_t *);
    fc_nvml_ret_t (*fabric)(fc_nvml_dev_t, void *);     /* GetGpuFabricInfoV */
} fc_nvml_api_t;

/* nvmlGpuFabricInfo_v2_t (NVML API reference, "Fabric definitions"; nvml.h):
 * version = sizeof | 2 << 24 (NVML_STRUCT_VERSION(GpuFabricInfo, 2)) */
typedef struct {
    unsigned int version;
    unsigned char cluster_uuid[16];         /* NVML_GPU_FABRIC_UUID_LEN */
    fc_nvml_ret_t status;                   /* of the registration, once complete */
    unsigned int clique_id;
    unsigned char state;                    /* nvmlGpuFabricState_t */
    unsigned int health_mask;               /* NVML_GPU_FABRIC_HEALTH_MASK_* */
} fc_nvml_fabric_v2_t;

static fc_nvml_api_t fc_nvml;
static char fc_nvml_path[256];
static char fc_nvml_why[1024];
static int fc_nvml_state;                   /* 0 not tried, 1 ready, -1 failed */

/* Load the library and the functions; once. */
static int fc_nvml_open(void)
{
    const char *env = getenv("FABCERT_NVML_LIB");
    void *h;
    fc_nvml_ret_t r;

    if (fc_nvml_state != 0)
        return fc_nvml_state > 0;
    fc_nvml_state = -1;
    snprintf(fc_nvml_path, sizeof(fc_nvml_path), "%s", env && env[0] ? env : "libnvidia-ml.so.1");
    if ((h = dlopen(fc_nvml_path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
        snprintf(fc_nvml_why, sizeof(fc_nvml_why), "cannot load NVML (%s): %s", fc_nvml_path,
                 dlerror());
        return 0;
    }
#define FC_NEED(field, sym)                                                              \
    if ((*(void **)&fc_nvml.field = dlsym(h, sym)) == NULL) {                              \
        snprintf(fc_nvml_why, sizeof(fc_nvml_why), "%s has no %s: too old an NVML",       \
                 fc_nvml_path, sym);                                                     \
        return 0;                                                                        \
    }
#define FC_MAY(field, sym) (*(void **)&fc_nvml.field = dlsym(h, sym))
    FC_NEED(init, "nvmlInit_v2");
    FC_NEED(error_string, "nvmlErrorString");
    FC_NEED(count, "nvmlDeviceGetCount_v2");
    FC_NEED(by_index, "nvmlDeviceGetHandleByIndex_v2");
    FC_NEED(uuid, "nvmlDeviceGetUUID");
    FC_NEED(driver, "nvmlSystemGetDriverVersion");
    FC_MAY(by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
    FC_MAY(name, "nvmlDeviceGetName");
    FC_MAY(pci, "nvmlDeviceGetPciInfo_v3");
    FC_MAY(clock, "nvmlDeviceGetClockInfo");
    /* renamed in R535: "throttle" became "clocks event"; either will do */
    if (!FC_MAY(reasons, "nvmlDeviceGetCurrentClocksEventReasons"))
        FC_MAY(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    FC_MAY(temperature, "nvmlDeviceGetTemperature");
    FC_MAY(power, "nvmlDeviceGetPowerUsage");
    FC_MAY(energy, "nvmlDeviceGetTotalEnergyConsumption");
    FC_MAY(ecc, "nvmlDeviceGetTotalEccErrors");
    FC_MAY(retired, "nvmlDeviceGetRetiredPages");
    FC_MAY(retired_pending, "nvmlDeviceGetRetiredPagesPendingStatus");
    FC_MAY(remapped, "nvmlDeviceGetRemappedRows");
    FC_MAY(violation, "nvmlDeviceGetViolationStatus");
    FC_MAY(link_state, "nvmlDeviceGetNvLinkState");
    FC_MAY(link_error, "nvmlDeviceGetNvLinkErrorCounter");
    FC_MAY(fields, "nvmlDeviceGetFieldValues");
    FC_MAY(fabric, "nvmlDeviceGetGpuFabricInfoV");
#undef FC_NEED
#undef FC_MAY
    if ((r = fc_nvml.init()) != FC_NVML_SUCCESS) {
        snprintf(fc_nvml_why, sizeof(fc_nvml_why), "nvmlInit_v2 (%s): %s", fc_nvml_path,
                 fc_nvml.error_string(r));
        return 0;
    }
    fc_nvml_state = 1;
    return 1;
}

/* A reading that failed (or a function that is missing) goes to not_read. */
static int fc_nvml_ok(json_t *gpu, const char *what, int have, fc_nvml_ret_t r)
{
    if (have && r == FC_NVML_SUCCESS)
        return 1;
    json_object_set_new(json_object_get(gpu, "not_read"), what,
                        json_string(have ? fc_nvml.error_string(r) : "not in this NVML"));
    return 0;
}

static void fc_nvml_counter(json_t *gpu, const char *name, unsigned long long v)
{
    json_object_set_new(json_object_get(gpu, "counters"), name, json_integer((json_int_t)v));
}

static void fc_nvml_basic(json_t *gpu, fc_nvml_dev_t d)
{
    static const char *const clocks[] = { "graphics", "sm", "mem" };  /* NVML_CLOCK_* 0..2 */
    json_t *mhz = json_object();
    unsigned long long ull;
    unsigned int ui;
    char buf[96];

    if (fc_nvml_ok(gpu, "name", fc_nvml.name != NULL,
                   fc_nvml.name ? fc_nvml.name(d, buf, sizeof(buf)) : 0))
        json_object_set_new(gpu, "name", json_string(buf));
    for (int c = 0; c < 3; ++c)
        if (fc_nvml_ok(gpu, "clocks", fc_nvml.clock != NULL,
                       fc_nvml.clock ? fc_nvml.clock(d, c, &ui) : 0))
            json_object_set_new(mhz, clocks[c], json_integer(ui));
    json_object_set_new(gpu, "clocks_mhz", mhz);
    if (fc_nvml_ok(gpu, "clocks_event_reasons", fc_nvml.reasons != NULL,
                   fc_nvml.reasons ? fc_nvml.reasons(d, &ull) : 0)) {
        json_t *active = json_array();

        for (int bit = 0; bit < 64; ++bit)
            if (ull & (1ull << bit))
                json_array_append_new(active, json_string(fc_gpu_reason_name(1ull << bit) ?:
                                                          "unknown"));
        json_object_set_new(gpu, "clocks_event_reasons",
                            json_pack("{s:I, s:o}", "mask", (json_int_t)ull, "active", active));
    }
    if (fc_nvml_ok(gpu, "temperature", fc_nvml.temperature != NULL,
                   fc_nvml.temperature ? fc_nvml.temperature(d, 0 /* NVML_TEMPERATURE_GPU */,
                                                             &ui) : 0))
        json_object_set_new(gpu, "temperature_c", json_integer(ui));
    if (fc_nvml_ok(gpu, "power", fc_nvml.power != NULL, fc_nvml.power ? fc_nvml.power(d, &ui) : 0))
        json_object_set_new(gpu, "power_mw", json_integer(ui));
    if (fc_nvml_ok(gpu, "energy", fc_nvml.energy != NULL,
                   fc_nvml.energy ? fc_nvml.energy(d, &ull) : 0))
        json_object_set_new(gpu, "energy_mj", json_integer((json_int_t)ull));
}

static void fc_nvml_memory(json_t *gpu, fc_nvml_dev_t d)
{
    static const char *const ecc[2][2] = {  /* [counter type][error type] */
        { "ecc_volatile_corrected", "ecc_volatile_uncorrected" },
        { "ecc_aggregate_corrected", "ecc_aggregate_uncorrected" },
    };
    json_t *flags = json_object_get(gpu, "flags");
    unsigned long long ull;
    unsigned int cor, unc, pend, fail, n;
    int state;

    for (int ct = 0; ct < 2; ++ct)          /* NVML_VOLATILE_ECC, NVML_AGGREGATE_ECC */
        for (int et = 0; et < 2; ++et)      /* NVML_MEMORY_ERROR_TYPE_CORRECTED, _UNCORRECTED */
            if (fc_nvml_ok(gpu, "ecc", fc_nvml.ecc != NULL,
                           fc_nvml.ecc ? fc_nvml.ecc(d, et, ct, &ull) : 0))
                fc_nvml_counter(gpu, ecc[ct][et], ull);
    /* causes: 0 multiple single-bit errors, 1 a double-bit error; a count
     * of 0 asks for the number only */
    for (int cause = 0; cause < 2; ++cause) {
        fc_nvml_ret_t r = 0;

        n = 0;
        if (fc_nvml.retired)
            r = fc_nvml.retired(d, cause, &n, NULL);
        if (r == FC_NVML_INSUFFICIENT_SIZE)
            r = FC_NVML_SUCCESS;
        if (fc_nvml_ok(gpu, "retired_pages", fc_nvml.retired != NULL, r))
            fc_nvml_counter(gpu, cause ? "retired_pages_dbe" : "retired_pages_sbe", n);
    }
    if (fc_nvml_ok(gpu, "retired_pages_pending", fc_nvml.retired_pending != NULL,
                   fc_nvml.retired_pending ? fc_nvml.retired_pending(d, &state) : 0))
        json_object_set_new(flags, "retired_pages_pending", json_boolean(state != 0));
    if (fc_nvml_ok(gpu, "remapped_rows", fc_nvml.remapped != NULL,
                   fc_nvml.remapped ? fc_nvml.remapped(d, &cor, &unc, &pend, &fail) : 0)) {
        fc_nvml_counter(gpu, "remapped_rows_corrected", cor);
        fc_nvml_counter(gpu, "remapped_rows_uncorrected", unc);
        json_object_set_new(flags, "remap_pending", json_boolean(pend != 0));
        json_object_set_new(flags, "remap_failure", json_boolean(fail != 0));
    }
}

static void fc_nvml_violations(json_t *gpu, fc_nvml_dev_t d)
{
    fc_nvml_violation_t v;

    /* NVML_PERF_POLICY_POWER = 0, NVML_PERF_POLICY_THERMAL = 1 */
    if (fc_nvml_ok(gpu, "violation_power", fc_nvml.violation != NULL,
                   fc_nvml.violation ? fc_nvml.violation(d, 0, &v) : 0))
        fc_nvml_counter(gpu, "violation_power_ns", v.violation_time);
    if (fc_nvml_ok(gpu, "violation_thermal", fc_nvml.violation != NULL,
                   fc_nvml.violation ? fc_nvml.violation(d, 1, &v) : 0))
        fc_nvml_counter(gpu, "violation_thermal_ns", v.violation_time);
}

/* Each link that exists: its state and error counters. */
static void fc_nvml_links(json_t *gpu, fc_nvml_dev_t d)
{
    static const char *const legacy[] = { "replay", "recovery", "crc_flit", "crc_data" };
    static const char *const field_names[] = { "replay", "recovery", "crc" };
    json_t *links = json_object();

    for (unsigned int l = 0; fc_nvml.link_state && l < FC_NVML_MAX_LINKS; ++l) {
        json_t *link;
        char key[8];
        int active = 0, got = 0;

        if (fc_nvml.link_state(d, l, &active) != FC_NVML_SUCCESS)
            continue;                       /* no such link */
        link = json_pack("{s:s}", "state", active ? "active" : "inactive");
        if (fc_nvml.fields) {
            fc_nvml_field_t f[3];

            memset(f, 0, sizeof(f));
            for (int k = 0; k < 3; ++k) {
                f[k].field_id = 161u + (unsigned)k;   /* NVML_FI_DEV_NVLINK_ERROR_DL_* */
                f[k].scope_id = l;
            }
            if (fc_nvml.fields(d, 3, f) == FC_NVML_SUCCESS)
                for (int k = 0; k < 3; ++k)
                    if (f[k].ret == FC_NVML_SUCCESS) {
                        json_object_set_new(link, field_names[k],
                                            json_integer((json_int_t)f[k].value.ull));
                        ++got;
                    }
        }
        for (int c = 0; !got && fc_nvml.link_error && c < 4; ++c) {
            unsigned long long v;

            if (fc_nvml.link_error(d, l, c, &v) == FC_NVML_SUCCESS)
                json_object_set_new(link, legacy[c], json_integer((json_int_t)v));
        }
        snprintf(key, sizeof(key), "%u", l);
        json_object_set_new(links, key, link);
    }
    if (fc_nvml.link_state == NULL)
        fc_nvml_ok(gpu, "nvlink", 0, 0);
    json_object_set_new(gpu, "nvlink", links);
}

static fc_status_t fc_nvml_fabric_of(fc_nvml_dev_t d, fc_gpu_fabric_t *f, char *why,
                                     size_t len);

/* A GPU of a multi-node NVLink fabric: its registration and health, and
 * the health mask's two faults as flags the judge watches (a GPU in no
 * such fabric, an HGX board's, has neither: nothing to read). */
static void fc_nvml_fabric(json_t *gpu, fc_nvml_dev_t d)
{
    fc_gpu_fabric_t f;
    char why[256];

    if (fc_nvml.fabric == NULL || fc_nvml_fabric_of(d, &f, why, sizeof(why)) != FC_OK ||
        f.state == 0)
        return;
    json_object_set_new(gpu, "fabric", json_pack("{s:s, s:s, s:s, s:I, s:I}", "state",
                        f.state_text, "status", f.status_text, "cluster_uuid", f.cluster_uuid,
                        "clique_id", (json_int_t)f.clique_id, "health_mask",
                        (json_int_t)f.health_mask));
    json_object_set_new(json_object_get(gpu, "flags"), "fabric_degraded_bw",
                        json_boolean(f.degraded_bw));
    json_object_set_new(json_object_get(gpu, "flags"), "fabric_route_unhealthy",
                        json_boolean(f.route_unhealthy));
}

static json_t *fc_nvml_gpu(unsigned int index, fc_nvml_dev_t d)
{
    json_t *gpu = json_pack("{s:i, s:{}, s:{}, s:{}}", "index", (int)index, "counters",
                            "flags", "not_read");
    fc_nvml_pci_t pci;
    char uuid[96];

    if (fc_nvml_ok(gpu, "uuid", 1, fc_nvml.uuid(d, uuid, sizeof(uuid))))
        json_object_set_new(gpu, "uuid", json_string(uuid));
    memset(&pci, 0, sizeof(pci));
    if (fc_nvml_ok(gpu, "pci", fc_nvml.pci != NULL, fc_nvml.pci ? fc_nvml.pci(d, &pci) : 0)) {
        pci.bus_id[sizeof(pci.bus_id) - 1] = '\0';
        json_object_set_new(gpu, "pci_bus_id", json_string(pci.bus_id));
    }
    fc_nvml_basic(gpu, d);
    fc_nvml_memory(gpu, d);
    fc_nvml_violations(gpu, d);
    fc_nvml_links(gpu, d);
    fc_nvml_fabric(gpu, d);
    return gpu;
}

json_t *fc_gpu_health_snapshot(const char *pci_bus_id, char *why, size_t len)
{
    json_t *snap, *gpus;
    unsigned int n = 0;
    fc_nvml_ret_t r;
    char driver[96] = "";

    if (!fc_nvml_open()) {
        snprintf(why, len, "%s", fc_nvml_why);
        return NULL;
    }
    fc_nvml.driver(driver, sizeof(driver));
    gpus = json_array();
    snap = json_pack("{s:s, s:s, s:s, s:o}", "source", "nvml", "library", fc_nvml_path,
                     "driver", driver, "gpus", gpus);
    if (pci_bus_id != NULL) {
        fc_nvml_dev_t d;

        r = fc_nvml.by_pci ? fc_nvml.by_pci(pci_bus_id, &d) : FC_NVML_NOT_SUPPORTED;
        if (r != FC_NVML_SUCCESS) {
            snprintf(why, len, "NVML has no GPU at PCI %s: %s", pci_bus_id,
                     fc_nvml.by_pci ? fc_nvml.error_string(r) : "not in this NVML");
            json_decref(snap);
            return NULL;
        }
        json_array_append_new(gpus, fc_nvml_gpu(0, d));
        /* found by PCI id: NVML's index of it is not asked for */
        json_object_del(json_array_get(gpus, 0), "index");
        return snap;
    }
    if ((r = fc_nvml.count(&n)) != FC_NVML_SUCCESS) {
        snprintf(why, len, "nvmlDeviceGetCount_v2: %s", fc_nvml.error_string(r));
        json_decref(snap);
        return NULL;
    }
    for (unsigned int i = 0; i < n; ++i) {
        fc_nvml_dev_t d;

        if ((r = fc_nvml.by_index(i, &d)) != FC_NVML_SUCCESS) {
            json_t *gpu = json_pack("{s:i, s:{}, s:{}, s:{}}", "index", (int)i, "counters",
                                    "flags", "not_read");

            fc_nvml_ok(gpu, "handle", 1, r);
            json_array_append_new(gpus, gpu);
            continue;
        }
        json_array_append_new(gpus, fc_nvml_gpu(i, d));
    }
    return snap;
}

/* ---- the NVLink fabric (multi-node NVLink) ------------------------------- */

/* NVML_GPU_FABRIC_HEALTH_MASK_*: two bits per field (nvml.h writes the
 * width as 0x11 for the first, a typo for 0x3), 1 = TRUE, 2 = FALSE. */
static unsigned fc_fabric_health_field(unsigned mask, int shift)
{
    return (mask >> shift) & 0x3u;
}

fc_status_t fc_gpu_fabric_read(const char *pci_bus_id, fc_gpu_fabric_t *f, char *why,
                               size_t len)
{
    fc_nvml_dev_t d;
    fc_nvml_ret_t r;
    fc_status_t st;

    if (!fc_nvml_open()) {
        memset(f, 0, sizeof(*f));
        snprintf(why, len, "%s", fc_nvml_why);
        return FC_ERR_SKIP;
    }
    if (fc_nvml.fabric == NULL || fc_nvml.by_pci == NULL) {
        memset(f, 0, sizeof(*f));
        snprintf(why, len, "%s has no %s: a driver older than R550 cannot say which NVLink "
                 "fabric a GPU is in", fc_nvml_path, fc_nvml.fabric ? "nvmlDeviceGetHandle"
                 "ByPciBusId_v2" : "nvmlDeviceGetGpuFabricInfoV");
        return FC_ERR_SKIP;
    }
    if ((r = fc_nvml.by_pci(pci_bus_id, &d)) != FC_NVML_SUCCESS) {
        memset(f, 0, sizeof(*f));
        snprintf(why, len, "NVML has no GPU at PCI %s: %s", pci_bus_id, fc_nvml.error_string(r));
        return FC_ERR_FAIL;
    }
    st = fc_nvml_fabric_of(d, f, why, len);
    snprintf(f->pci_bus_id, sizeof(f->pci_bus_id), "%s", pci_bus_id);
    return st;
}

/* The fabric of the GPU behind handle d (NVML open, the query there). */
static fc_status_t fc_nvml_fabric_of(fc_nvml_dev_t d, fc_gpu_fabric_t *f, char *why,
                                     size_t len)
{
    static const char *const states[] = { "not supported", "not started", "in progress",
                                          "completed" };
    fc_nvml_fabric_v2_t info;
    fc_nvml_ret_t r;
    const unsigned char *u;

    memset(f, 0, sizeof(*f));
    memset(&info, 0, sizeof(info));
    info.version = (unsigned int)sizeof(info) | 2u << 24;
    r = fc_nvml.fabric(d, &info);
    if (r == FC_NVML_NOT_SUPPORTED) {
        f->state = 0;       /* a GPU in no multi-node NVLink fabric (HGX boards) */
        snprintf(f->state_text, sizeof(f->state_text), "%s", states[0]);
        return FC_OK;
    }
    if (r != FC_NVML_SUCCESS) {
        snprintf(why, len, "nvmlDeviceGetGpuFabricInfoV: %s", fc_nvml.error_string(r));
        return FC_ERR_FAIL;
    }
    f->state = info.state;
    snprintf(f->state_text, sizeof(f->state_text), "%s",
             info.state < 4 ? states[info.state] : "unknown");
    f->status = info.status;
    snprintf(f->status_text, sizeof(f->status_text), "%s", fc_nvml.error_string(info.status));
    f->clique_id = info.clique_id;
    f->health_mask = info.health_mask;
    f->degraded_bw = fc_fabric_health_field(info.health_mask, 0) == 1;
    f->route_unhealthy = fc_fabric_health_field(info.health_mask, 4) == 1;
    u = info.cluster_uuid;
    snprintf(f->cluster_uuid, sizeof(f->cluster_uuid),
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    return FC_OK;
}
