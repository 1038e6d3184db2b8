/*
 * fc_profile.h - threshold profiles: data, never code.
 *
 * A profile (thresholds/NAME.yaml) says, per stage, whether it is required,
 * its timeout, what to sweep (collectives, types, ops, sizes, iterations)
 * and the limits: absolute (minimum busbw, maximum latency per collective,
 * type, op and size range), relative (a node more than X% below the median
 * of its peers fails) and the number of wrong elements tolerated (0).
 * Parsing is strict: an unknown key, a wrong type or a bad value is an
 * error naming file:line:column, and the caller exits 2. The SHA-256 of
 * the file goes into every result and certificate. The loader is
 * lib/profile/fc_profile*.c: each section a table of keys (fc_profile_yaml.h).
 */
#ifndef FC_PROFILE_H
#define FC_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "fc_bg_kinds.h"
#include "fc_coll.h"
#include "fc_pattern_host.h"
#include "fc_pci_dist.h"
#include "fc_stages.h"
#include "fc_status.h"


#define FC_PROFILE_MAX_SIZES 64
#define FC_PROFILE_MAX_LIMITS 64
#define FC_ANY (-1)

/* An absolute limit; the first rule matching a test point applies (a
 * rule that an earlier one matches wholly is refused by the loader: it
 * would never apply). */
typedef struct fc_limit_rule {
    int coll;               /* fc_coll_id_t or FC_ANY */
    int dtype;              /* fc_dtype_t or FC_ANY */
    int op;                 /* fc_op_t or FC_ANY */
    uint64_t min_bytes;     /* requested size range, inclusive, from ... */
    uint64_t max_bytes;     /* ... to this (UINT64_MAX: no upper end) */
    double min_busbw_gbps;  /* < 0: no limit */
    double max_latency_us;  /* median time; < 0: no limit */
    int line, col;          /* where the rule is (its first key), for
                            * messages */
} fc_limit_rule_t;

/* Background traffic of the contention stage (lib/background/fc_background.h): one
 * value per line of the kinds' list, FC_BG_STORAGE_FILE = 0 and on. */
typedef enum fc_bg_kind {
#define FC_BG_KIND_ENUM(id, name, keys, block, duty) FC_BG_##id,
    FC_BG_KIND_LIST(FC_BG_KIND_ENUM)
#undef FC_BG_KIND_ENUM
    FC_BG_KINDS
} fc_bg_kind_t;

/* One kind's settings (contention: NAME: {...}); each kind reads the rate
 * keys and its own (lib/profile/fc_profile_contention.c). */
typedef struct fc_bg_profile {
    int enabled;            /* the profile names the kind: it runs */
    uint64_t block;         /* bytes per write or message */
    double rate_mbps;       /* target per generating rank, 10^6 bytes/s */
    double duty;            /* share of each period spent sending (bursts) */
    double period_s;        /* on/off period */
    int targets;            /* storage_net: ranks acting as storage */
    int cross_rack;         /* storage_net: targets in another rack */
    int direct;             /* storage_file: try O_DIRECT */
    int permutation;        /* tenant: a random permutation, not all-to-all */
} fc_bg_profile_t;

typedef struct fc_contention_profile {
    int scope_rack;             /* foreground per rack; else the cluster */
    double max_slowdown;        /* loaded / clean median time; < 0: none */
    double min_background_pct;  /* achieved share of the target, else
                                 * the measurement is INCOMPLETE */
    double phase_s;             /* shortest phase: the background runs at
                                 * least this long, so its rate is measured
                                 * over whole periods */
    int fg_per_node;            /* foreground ranks per node */
    int bg_per_node;            /* background ranks per node */
    char background_hosts[512]; /* hostlist: these nodes only generate (the
                                 * other tenant, the storage servers) and
                                 * the others only measure; "" for both
                                 * on every node */
    char storage_dir[512];      /* storage_file writes its files here */
    fc_bg_profile_t kinds[FC_BG_KINDS]; /* per fc_bg_kind_t */
} fc_contention_profile_t;

const char *fc_bg_kind_name(int kind);

/* preflight's expect.gpu_nic_affinity (lib/profile/fc_profile_affinity.c, judged
 * by lib/pci/fc_pci_topo.c): how near each GPU's nearest NIC must be on the
 * PCI tree, and optionally which NIC each GPU must have. */
#define FC_AFFINITY_MAX_MAP 16      /* GPUs a node may have mapped (DGX-2: 16) */
typedef struct fc_affinity_map_entry {
    char gpu[32];               /* a GPU's PCI address, or its index in PCI
                                 * order as nvidia-smi lists them ("3") */
    char nic[64];               /* the NIC's RDMA or network device name */
    int line;                   /* where the entry is, for messages */
} fc_affinity_map_entry_t;

typedef struct fc_affinity_profile {
    int enabled;                /* the profile states gpu_nic_affinity */
    int max_distance;           /* fc_pci_dist_t: farthest allowed (PXB) */
    char nics[64];              /* glob of the NIC names that count ("*") */
    int nic_link;               /* judge each NIC's PCIe link against what
                                 * it and its slot can do (true) */
    fc_affinity_map_entry_t map[FC_AFFINITY_MAX_MAP];   /* GPU -> NIC */
    int nmap;                   /* entries in map */
} fc_affinity_profile_t;

/* What the preflight stage expects of every node (-1: not checked). */
typedef struct fc_preflight_profile {
    char nic_pattern[64];       /* glob of the NICs to check, e.g. "ib*" */
    int nics;                   /* at least this many matching NICs, up */
    int mtu;                    /* every matching NIC's MTU */
    double min_speed_mbps;      /* every matching NIC's speed, if reported */
    int rdma_ports;             /* at least this many RDMA ports ACTIVE */
    int gpus;                   /* at least this many GPUs (nccl plugin) */
    int same_versions;          /* MPI library and kernel alike everywhere */
    fc_affinity_profile_t affinity; /* gpu_nic_affinity: (lib/pci/fc_pci_topo.h) */
} fc_preflight_profile_t;

/* The soak stage: the burn-in proper (suites/soak.c). */
typedef struct fc_soak_profile {
    double duration_s;          /* loop the collective set this long */
    double window_s;            /* drift is judged between windows */
    int window_explicit;        /* window_s was in the profile */
    double max_drift_pct;       /* a slowdown held to the last window against
                                 * the level held before it, widened to the
                                 * windows' noise floor (lib/soak/fc_drift.h);
                                 * < 0: not judged */
    int confirm_windows;        /* k: a level is held over this many windows
                                 * in a row (default 2), a drift is judged
                                 * from 2k and confirmed by k more */
    double max_error_delta;     /* NIC/port error counters may rise by this */
    char nic_pattern[64];       /* glob of the NICs whose counters count */
    int window_line, window_col;    /* where window_s is, for messages */
    char gpu_burn[64];          /* on nccl: the GEMM kinds burnt beside the
                                 * collectives ("bf16,fp16,fp64"), or "none" */
} fc_soak_profile_t;

/* The link counters a stage reads over each of its measuring intervals
 * (lib/counters/fc_counters_interval.h): counters: {read: true, nic_pattern: "ib*"}
 * under the contention stage, over each phase (the soak reads those of
 * its own soak.nic_pattern). */
typedef struct fc_counters_profile {
    int read;                   /* 0: not read (the records say so) */
    char nic_pattern[64];       /* glob of the links read ("lo" never) */
    double max_errors;          /* error counters of a link may rise by this
                                 * over a point (default 0) */
    double max_drops;           /* drops and discards; < 0: not judged */
    double max_retries;         /* transport retries; < 0: not judged */
    int traffic;                /* judge the bytes a point must have moved */
} fc_counters_profile_t;

/* The overlap stage (suites/overlap.c): a host compute kernel of
 * compute_ms beside a non-blocking all_reduce on the same ranks. */
typedef struct fc_overlap_profile {
    double compute_ms;          /* the kernel's duration alone */
    double min_overlap_pct;     /* how much of the shorter of the two must
                                 * hide under the other */
} fc_overlap_profile_t;

/* The scaling stage (suites/scaling.c): busbw from one node count of the
 * series to the next, at the same point, may drop this much. */
typedef struct fc_scaling_profile {
    double max_drop_pct;        /* each step from 2 nodes on */
    double max_first_drop_pct;  /* the step 1 -> 2 nodes (leaving the node) */
} fc_scaling_profile_t;

/* The rails stage (suites/rails.c, lib/rails/fc_rails.h): which NIC is each
 * rail, how many per node, their rate, the transport that drives them. */
typedef struct fc_rails_profile {
    int count;                  /* NICs per node; 0: as found */
    char map[256];              /* "eth0,eth1": rail r is the r-th; "": by pattern */
    int nmap;                   /* names in map */
    char nic_pattern[64];       /* without a map: rails by name order */
    double rate_gbps;           /* each NIC's link rate; 0: not checked */
    char transport[16];         /* "tcp" or "verbs" */
} fc_rails_profile_t;

typedef struct fc_stage_profile {
    int present;            /* the profile names this stage */
    int line, col;          /* where it is named, for messages */
    int required;           /* a rack is INCOMPLETE if it did not run */
    double timeout_s;       /* the stage is ended after this long */
    int warmup;             /* untimed (but checked) iterations */
    int iters;              /* timed iterations */
    uint64_t sizes[FC_PROFILE_MAX_SIZES];   /* requested message sizes, bytes */
    int nsizes;             /* entries in sizes */
    int colls[FC_COLL_COUNT];   /* fc_coll_id_t to sweep */
    int ncolls;             /* entries in colls */
    int dtypes[FC_DTYPE_COUNT]; /* fc_dtype_t to sweep */
    int ndtypes;            /* entries in dtypes */
    int ops[4];             /* fc_op_t to sweep (reductions) */
    int nops;               /* entries in ops */
    uint64_t max_wrong;     /* wrong elements tolerated: always 0 (the
                             * profile may say so; no other value loads) */
    double max_below_median_pct;  /* relative rule; < 0: none */
    char backend[16];             /* mpi, nccl or auto (--backend wins) */
    uint64_t relative_min_bytes;  /* ... for sizes from this up (latency-
                                   * bound sizes are noisy on busy hosts) */
    fc_limit_rule_t limits[FC_PROFILE_MAX_LIMITS];  /* absolute, first match */
    int nlimits;            /* entries in limits */
    fc_contention_profile_t cont;   /* the contention stage's settings */
    fc_preflight_profile_t expect;  /* the preflight stage's expectations */
    fc_soak_profile_t soak;         /* the soak stage's settings */
    fc_counters_profile_t counters; /* the interval link counters */
    fc_overlap_profile_t overlap;   /* the overlap stage's settings */
    fc_scaling_profile_t scaling;   /* the scaling stage's settings */
    int pairs_mode;         /* pairs: FC_PAIRS_MODE_* (lib/stage/fc_pairs_schedule.h) */
    int pairs_partners;     /* pairs, sampled: K partners per node; 0: the
                             * default, fc_pairs_default_partners(n) */
    fc_rails_profile_t rails;       /* the rails stage's settings */
} fc_stage_profile_t;

/* nvlink_domain: what one NVLink domain spans: the node (HGX and DGX
 * boards, NVSwitch inside the node: the default), or the rack (GB200
 * NVL72: NVLink switch trays join the rack's nodes, multi-node NVLink).
 * The stages the stage table marks needs_mnnvl run under rack alone. */
enum { FC_NVLINK_DOMAIN_NODE = 0, FC_NVLINK_DOMAIN_RACK = 1 };

/* retest: what the runner's retests may spend (runners/fc_retest_hosts.c) */
typedef struct fc_retest_profile {
    double intermittent_s;  /* the bounded retest of the hosts common to
                             * every wrong result: checked exchanges for
                             * at most this long (default 30 s) */
} fc_retest_profile_t;

typedef struct fc_profile {
    char path[1024];        /* the file it was loaded from */
    char name[128];         /* name: (required) */
    char sha256[65];        /* hex digest of the file's bytes */
    uint32_t seed;          /* of the data pattern (default 1) */
    int require_signature;  /* certificates: {require_signature: true}: no
                             * certificate is written without --sign-key */
    int nvlink_domain;      /* FC_NVLINK_DOMAIN_*: how far one NVLink domain
                             * reaches (nvlink_domain: node or rack) */
    fc_retest_profile_t retest;
    fc_stage_profile_t stages[FC_STAGE_COUNT];  /* per fc_stage_id_t; present
                                                 * if the profile names it */
} fc_profile_t;


/* Load and validate; on error prints "file:line:col: message" to stderr
 * and returns FC_ERR_INVALID. */
fc_status_t fc_profile_load(const char *path, fc_profile_t *profile_p);

/* The limit rule for a test point, or NULL if none applies. */
const fc_limit_rule_t *fc_profile_find_limit(const fc_stage_profile_t *sp,
                                             int coll, int dtype, int op,
                                             uint64_t bytes);

/* Parse "256KiB", "1MiB", "4096", "1GiB"; returns 0 on success. */
int fc_parse_size(const char *text, uint64_t *bytes_p);
/* "90", "90s", "30m", "8h", "2d" -> seconds (1 s, the profile's least
 * soak.duration_s, to 7 days); a malformed or out-of-range one is reported
 * as the option --what and is FC_ERR_INVALID. */
fc_status_t fc_parse_duration(const char *what, const char *text, double *seconds_p);
/* A soak of `seconds` instead of the profile's: the window follows it
 * unless the profile set one that still fits twice (drift needs two
 * windows; `fabcert run` refuses the case instead, see
 * fc_soak_duration_check), and the timeout grows to keep 60 s above. */
void fc_soak_set_duration(fc_stage_profile_t *sp, double seconds);
/* The fewest soak windows in which drift can be judged: confirm_windows
 * and one more (at least 2). */
int fc_soak_min_windows(const fc_stage_profile_t *sp);
/* Whether sp, the sweep of stage (one that sweeps collectives, dtypes and
 * ops), has only reductions by min or max: each element of such an
 * output keeps one rank's contribution, so wrong bits another rank sent
 * are never seen. Refused in a profile (at its ops) and, the same rule,
 * in a stage program's sweep after the command line's overrides. */
int fc_sweep_min_max_only(const fc_stage_profile_t *sp, int stage);
/* FC_OK when a soak of `seconds` leaves the profile's explicit window_s
 * fc_soak_min_windows windows; else says so (naming the profile's line)
 * and is FC_ERR_INVALID. */
fc_status_t fc_soak_duration_check(const char *profile_path, const fc_stage_profile_t *sp,
                                   double seconds);
/* Command-line lists, "all_reduce,all_gather" or "4KiB,1MiB": each item
 * mapped (names by from_name); an unknown, extra or bad item, or an empty
 * name list, prints "fabcert: --WHAT: ..." and returns FC_ERR_INVALID. */
fc_status_t fc_parse_name_list(const char *what, const char *text,
                               int (*from_name)(const char *), int max,
                               int *out, int *count_p);
fc_status_t fc_parse_size_list(const char *what, const char *text, int max,
                               uint64_t *out, int *count_p);

/* Format bytes with binary units: "256 KiB". */
void fc_format_size(uint64_t bytes, char *buf, size_t len);

#endif
