/*
 * fc_nvml_standin.c - a stand-in for libnvidia-ml.so.1 with the symbols
 * lib/gpu/fc_nvml.c loads, for tests on machines without a GPU driver
 * (build/tests/libfc_nvml_standin.so, loaded through $FABCERT_NVML_LIB).
 * Its GPUs are described by the text file $FC_NVML_STANDIN_FILE, one
 * "key value" per line, read again at each nvmlDeviceGetCount_v2 and
 * nvmlDeviceGetHandleByPciBusId_v2 (the start of a snapshot), so a test
 * changes a counter between two snapshots by rewriting the file:
 *   gpus N            driver S
 *   G.uuid S  G.pci S  G.name S  G.reasons MASK  G.temp C  G.power MW
 *   G.ecc_{volatile,aggregate}_{corrected,uncorrected} N
 *   G.retired_{sbe,dbe} N  G.retired_pending 0|1
 *   G.remap_{cor,unc,pending,failure} N
 *   G.violation_{power,thermal} NS
 *   G.links N  G.legacy_links 0|1  G.link.L.state 0|1
 *   G.link.L.{replay,recovery,crc} N (field values, the Hopper path) or
 *   G.link.L.{replay,recovery,crc_flit,crc_data} N (legacy_links 1)
 *   G.unsupported.WHAT 1   (ecc, remap, retired, violation, energy, fabric)
 *   G.fabric.cluster HEX32  G.fabric.clique N  G.fabric.state 0-3
 *   G.fabric.status N  G.fabric.health MASK
 *                     (nvmlDeviceGetGpuFabricInfoV, a v2 struct: a GPU with
 *                     no fabric.cluster line answers NOT_SUPPORTED, as an
 *                     HGX board's GPU does; state defaults to 3, completed)
 * "%h" in $FC_NVML_STANDIN_FILE is this host's name, so each node of a
 * virtual cluster reads its own GPUs (its NVLink clique among them).
 * A fault is planted mid-run with $FC_NVML_STANDIN_PLANT, a comma list of
 * KEY=VALUE@N: from the Nth snapshot of this process on (its Nth device
 * lookup: nvmlDeviceGetCount_v2 or nvmlDeviceGetHandleByPciBusId_v2,
 * counted from 1), KEY reads VALUE, as if the file said so; e.g.
 * "1.ecc_volatile_uncorrected=4@3" (GPU 1 counts 4 uncorrectable errors
 * from the third snapshot) or "0.reasons=0x40@2" (GPU 0 held down by HW
 * thermal slowdown from the second).
 * Return codes follow nvml.h: 0 success, 2 invalid argument, 3 not
 * supported, 6 not found.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FC_SV_MAX 512

static char fc_sv_keys[FC_SV_MAX][96], fc_sv_vals[FC_SV_MAX][96];
static int fc_sv_n;
static int fc_sv_snapshots;     /* device lookups so far: this snapshot's number */

/* The plants of $FC_NVML_STANDIN_PLANT due at this snapshot, after the
 * file's lines (a later line wins). */
static void fc_sv_plant(void)
{
    const char *env = getenv("FC_NVML_STANDIN_PLANT");
    char list[1024], *save = NULL, *w;

    if (env == NULL)
        return;
    snprintf(list, sizeof(list), "%s", env);
    for (w = strtok_r(list, ",", &save); w && fc_sv_n < FC_SV_MAX;
         w = strtok_r(NULL, ",", &save)) {
        char key[96], val[96];
        int from;

        if (sscanf(w, "%95[^=]=%95[^@]@%d", key, val, &from) == 3 && fc_sv_snapshots >= from) {
            snprintf(fc_sv_keys[fc_sv_n], sizeof(fc_sv_keys[0]), "%s", key);
            snprintf(fc_sv_vals[fc_sv_n], sizeof(fc_sv_vals[0]), "%s", val);
            ++fc_sv_n;
        }
    }
}

/* $FC_NVML_STANDIN_FILE with each "%h" this host's name. */
static void fc_sv_path(char *out, size_t len)
{
    const char *p = getenv("FC_NVML_STANDIN_FILE");
    char host[64] = "";
    size_t n = 0;

    gethostname(host, sizeof(host) - 1);
    out[0] = '\0';
    for (; p && *p && n + 1 < len; ++p)
        if (p[0] == '%' && p[1] == 'h') {
            n += (size_t)snprintf(out + n, len - n, "%s", host);
            ++p;
        } else {
            out[n++] = *p;
            out[n] = '\0';
        }
    if (n >= len)
        out[len - 1] = '\0';
}

static void fc_sv_load(void)
{
    char path[512];
    FILE *f;
    char line[256];

    fc_sv_path(path, sizeof(path));
    f = path[0] ? fopen(path, "r") : NULL;

    fc_sv_n = 0;
    while (f && fgets(line, sizeof(line), f) && fc_sv_n < FC_SV_MAX)
        if (sscanf(line, "%95s %95s", fc_sv_keys[fc_sv_n], fc_sv_vals[fc_sv_n]) == 2)
            ++fc_sv_n;
    if (f)
        fclose(f);
    fc_sv_plant();
}

static const char *fc_sv(int g, const char *key)
{
    char full[128];

    if (g >= 0)
        snprintf(full, sizeof(full), "%d.%s", g, key);
    else
        snprintf(full, sizeof(full), "%s", key);
    for (int k = fc_sv_n - 1; k >= 0; --k)
        if (strcmp(fc_sv_keys[k], full) == 0)
            return fc_sv_vals[k];
    return NULL;
}

static unsigned long long fc_sv_num(int g, const char *key, unsigned long long dflt)
{
    const char *v = fc_sv(g, key);

    return v ? strtoull(v, NULL, 0) : dflt;
}

static int fc_dev(void *d)
{
    return (int)((uintptr_t)d - 1);
}

static int fc_unsupported(void *d, const char *what)
{
    char key[64];

    snprintf(key, sizeof(key), "unsupported.%s", what);
    return fc_sv_num(fc_dev(d), key, 0) != 0;
}

int nvmlInit_v2(void) { fc_sv_load(); return 0; }

const char *nvmlErrorString(int r)
{
    return r == 3 ? "Not Supported" : r == 2 ? "Invalid Argument" : r == 6 ? "Not Found"
                                                                           : "Unknown Error";
}

int nvmlDeviceGetCount_v2(unsigned int *n)
{
    ++fc_sv_snapshots;
    fc_sv_load();
    *n = (unsigned int)fc_sv_num(-1, "gpus", 0);
    return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **d)
{
    if (i >= fc_sv_num(-1, "gpus", 0))
        return 2;
    *d = (void *)(uintptr_t)(i + 1);
    return 0;
}

int nvmlDeviceGetHandleByPciBusId_v2(const char *pci, void **d)
{
    ++fc_sv_snapshots;
    fc_sv_load();
    for (int g = 0; g < (int)fc_sv_num(-1, "gpus", 0); ++g)
        if (fc_sv(g, "pci") && strcmp(fc_sv(g, "pci"), pci) == 0) {
            *d = (void *)(uintptr_t)(g + 1);
            return 0;
        }
    return 6;
}

static int fc_str(const char *v, char *buf, unsigned int len)
{
    snprintf(buf, len, "%s", v ? v : "");
    return 0;
}

int nvmlDeviceGetUUID(void *d, char *buf, unsigned int len) { return fc_str(fc_sv(fc_dev(d), "uuid"), buf, len); }
int nvmlDeviceGetName(void *d, char *buf, unsigned int len) { return fc_str(fc_sv(fc_dev(d), "name"), buf, len); }
int nvmlSystemGetDriverVersion(char *buf, unsigned int len) { return fc_str(fc_sv(-1, "driver"), buf, len); }

typedef struct {
    char bus_id_legacy[16];
    unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
} fc_pci_t;

int nvmlDeviceGetPciInfo_v3(void *d, fc_pci_t *p)
{
    memset(p, 0, sizeof(*p));
    return fc_str(fc_sv(fc_dev(d), "pci"), p->bus_id, sizeof(p->bus_id));
}

int nvmlDeviceGetClockInfo(void *d, int type, unsigned int *mhz)
{
    *mhz = (unsigned int)(1000 + 100 * type + fc_dev(d));
    return 0;
}

int nvmlDeviceGetCurrentClocksEventReasons(void *d, unsigned long long *mask)
{
    *mask = fc_sv_num(fc_dev(d), "reasons", 0);
    return 0;
}

int nvmlDeviceGetTemperature(void *d, int sensor, unsigned int *t)
{
    *t = (unsigned int)fc_sv_num(fc_dev(d), "temp", 40);
    return sensor == 0 ? 0 : 2;
}

int nvmlDeviceGetPowerUsage(void *d, unsigned int *mw)
{
    *mw = (unsigned int)fc_sv_num(fc_dev(d), "power", 300000);
    return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(void *d, unsigned long long *mj)
{
    if (fc_unsupported(d, "energy"))
        return 3;
    *mj = fc_sv_num(fc_dev(d), "energy", 123456);
    return 0;
}

int nvmlDeviceGetTotalEccErrors(void *d, int err, int counter, unsigned long long *n)
{
    static const char *const keys[2][2] = {
        { "ecc_volatile_corrected", "ecc_volatile_uncorrected" },
        { "ecc_aggregate_corrected", "ecc_aggregate_uncorrected" },
    };

    if (fc_unsupported(d, "ecc"))
        return 3;
    *n = fc_sv_num(fc_dev(d), keys[counter & 1][err & 1], 0);
    return 0;
}

int nvmlDeviceGetRetiredPages(void *d, int cause, unsigned int *count, unsigned long long *addr)
{
    unsigned int have = (unsigned int)fc_sv_num(fc_dev(d), cause ? "retired_dbe" : "retired_sbe", 0);

    if (fc_unsupported(d, "retired"))
        return 3;
    (void)addr;
    if (*count < have) {
        *count = have;
        return have ? 7 : 0;
    }
    *count = have;
    return 0;
}

int nvmlDeviceGetRetiredPagesPendingStatus(void *d, int *pending)
{
    if (fc_unsupported(d, "retired"))
        return 3;
    *pending = (int)fc_sv_num(fc_dev(d), "retired_pending", 0);
    return 0;
}

int nvmlDeviceGetRemappedRows(void *d, unsigned int *cor, unsigned int *unc, unsigned int *pend,
                              unsigned int *fail)
{
    int g = fc_dev(d);

    if (fc_unsupported(d, "remap"))
        return 3;
    *cor = (unsigned int)fc_sv_num(g, "remap_cor", 0);
    *unc = (unsigned int)fc_sv_num(g, "remap_unc", 0);
    *pend = (unsigned int)fc_sv_num(g, "remap_pending", 0);
    *fail = (unsigned int)fc_sv_num(g, "remap_failure", 0);
    return 0;
}

typedef struct { unsigned long long ref, ns; } fc_viol_t;

int nvmlDeviceGetViolationStatus(void *d, int policy, fc_viol_t *v)
{
    if (fc_unsupported(d, "violation"))
        return 3;
    v->ref = 1;
    v->ns = fc_sv_num(fc_dev(d), policy == 0 ? "violation_power" : "violation_thermal", 0);
    return policy <= 1 ? 0 : 2;
}

static int fc_link_exists(void *d, unsigned int l)
{
    return l < fc_sv_num(fc_dev(d), "links", 0);
}

static unsigned long long fc_link_num(void *d, unsigned int l, const char *what)
{
    char key[64];

    snprintf(key, sizeof(key), "link.%u.%s", l, what);
    return fc_sv_num(fc_dev(d), key, 0);
}

int nvmlDeviceGetNvLinkState(void *d, unsigned int l, int *active)
{
    char key[64];

    if (!fc_link_exists(d, l))
        return 2;
    snprintf(key, sizeof(key), "link.%u.state", l);
    *active = (int)fc_sv_num(fc_dev(d), key, 1);
    return 0;
}

int nvmlDeviceGetNvLinkErrorCounter(void *d, unsigned int l, int c, unsigned long long *v)
{
    static const char *const names[] = { "replay", "recovery", "crc_flit", "crc_data" };

    if (!fc_link_exists(d, l) || c < 0 || c > 3)
        return 2;
    if (!fc_sv_num(fc_dev(d), "legacy_links", 0))
        return 3;
    *v = fc_link_num(d, l, names[c]);
    return 0;
}

typedef struct {
    unsigned int field_id, scope_id;
    long long timestamp, latency_usec;
    int value_type, ret;
    unsigned long long value;
} fc_field_t;

int nvmlDeviceGetFieldValues(void *d, int n, fc_field_t *f)
{
    static const char *const names[] = { "replay", "recovery", "crc" };   /* 161..163 */

    for (int k = 0; k < n; ++k) {
        f[k].ret = 3;
        if (fc_sv_num(fc_dev(d), "legacy_links", 0) || !fc_link_exists(d, f[k].scope_id) ||
            f[k].field_id < 161 || f[k].field_id > 163)
            continue;
        f[k].ret = 0;
        f[k].value_type = 3;
        f[k].value = fc_link_num(d, f[k].scope_id, names[f[k].field_id - 161]);
    }
    return 0;
}

typedef struct {                /* nvmlGpuFabricInfo_v2_t */
    unsigned int version;
    unsigned char cluster[16];
    int status;
    unsigned int clique;
    unsigned char state;
    unsigned int health;
} fc_fabric_t;

int nvmlDeviceGetGpuFabricInfoV(void *d, fc_fabric_t *f)
{
    const char *hex = fc_sv(fc_dev(d), "fabric.cluster");

    if (f->version != ((unsigned int)sizeof(*f) | 2u << 24))
        return 2;               /* NVML_ERROR_INVALID_ARGUMENT: not a v2 struct */
    if (hex == NULL || fc_unsupported(d, "fabric"))
        return 3;
    memset(f->cluster, 0, sizeof(f->cluster));
    for (int i = 0; i < 16 && hex[2 * i] && hex[2 * i + 1]; ++i) {
        char b[3] = { hex[2 * i], hex[2 * i + 1], 0 };

        f->cluster[i] = (unsigned char)strtoul(b, NULL, 16);
    }
    f->clique = (unsigned int)fc_sv_num(fc_dev(d), "fabric.clique", 0);
    f->state = (unsigned char)fc_sv_num(fc_dev(d), "fabric.state", 3);
    f->status = (int)fc_sv_num(fc_dev(d), "fabric.status", 0);
    f->health = (unsigned int)fc_sv_num(fc_dev(d), "fabric.health", 0xaa);
    return 0;
}
