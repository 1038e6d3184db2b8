/*
 * fabcert.c - the `fabcert` command: runs a plan of stages across a
 * cluster and says, per rack, what it found.
 *
 * `fabcert run` reads the inventory (--hosts, --racks; without them, this
 * machine is a one-node cluster), validates the profile, and runs the
 * profile's stages in order (node, pairs, rack, cluster), each under mpirun
 * with a hard limit of the stage's timeout plus a margin. Between stages it
 * applies quarantine: a host that a stage implicates (wrong bits, a slow
 * node, a bad link, a rank that never arrived) is recorded and left out of
 * the later stages. A stage that does not end is diagnosed
 * (runners/fc_diagnose.h: ranks that died, ranks that did not arrive, or
 * every rank stuck in one call, placed by a probe) and run once more
 * without the hosts it blames. Everything goes into results.jsonl; the
 * per-rack verdicts are computed from it (reports/fc_verdict.c) and
 * printed. Exit status: 0 every rack passed; 1 a rack failed or is
 * incomplete; 2 bad usage or input (nothing was certified).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fc_diagnose.h"
#include "fc_inventory.h"
#include "fc_launch.h"
#include "fc_probe.h"
#include "fc_profile.h"
#include "fc_report.h"
#include "fc_results.h"
#include "fc_retest.h"
#include "fc_verdict.h"
#include "fc_version.h"

#define FC_MAX_PASSTHRU 128
/* mpirun's start-up and tear-down and the watchdog's grace, on top of a
 * stage's timeout */
#define FC_LAUNCH_MARGIN_S 15
#define FC_MAX_ATTEMPTS 2


typedef struct fc_run_opts {
    char profile[PATH_MAX];
    char out_dir[PATH_MAX];
    char hosts[PATH_MAX];           /* inventory host list, "" if none */
    char racks[PATH_MAX];           /* rack map, "" if none */
    char run_id[64];
    int np;                         /* local mode: ranks */
    int ppn;                        /* cluster mode: ranks per node */
    int stages[FC_STAGE_COUNT];     /* --stages filter; all 1 if not given */
    const char *mpirun;             /* the launcher's program */
    const char *mpirun_from;        /* "--mpirun", "$FABCERT_MPIRUN" or NULL
                                     * (the default, mpirun or srun) */
    int srun;                       /* launch with Slurm's srun, not mpirun */
    int local;                      /* no inventory: this machine alone */
    const char *mpirun_args[FC_MAX_PASSTHRU];   /* to the launcher */
    int nmpirun_args;
    const char *stage_args[FC_MAX_PASSTHRU];    /* sweep overrides */
    int nstage_args;
    const char *selftest_args[8];               /* self-tests */
    int nselftest_args;
    int selftest_stage;             /* stage the self-tests go to; -1 all */
    const char *sign_key;           /* secret key for the certificates */
    double soak_duration;           /* --soak-duration; 0: the profile's */
    const char *env[FC_MAX_PASSTHRU];   /* --env NAME[=VALUE] */
    int nenv;
    int nuser_mpirun_args;          /* of mpirun_args, given as --mpirun-arg */
    char stages_arg[256];           /* every --stages as given, "" if none */
    /* the files as the user named them; the stages read frozen copies in
     * the output directory (fc_run_freeze_inputs) */
    char profile_source[PATH_MAX], hosts_source[PATH_MAX], racks_source[PATH_MAX];
} fc_run_opts_t;

typedef struct fc_run_state {
    fc_run_opts_t o;
    fc_profile_t profile;
    fc_inventory_t inv;
    int *healthy;                   /* per inventory host */
    int *quarantined;
    char results_path[PATH_MAX + 32];
    const char *probe_stage;        /* the stage a probe is for */
} fc_run_state_t;

static void fc_usage(FILE *out)
{
    fprintf(out,
"usage: fabcert run [options]     certify a cluster (or this machine) by rack\n"
"       fabcert report DIR [--sign-key KEY]\n"
"                                 verdicts, certificates, HTML, JUnit and a\n"
"                                 summary from a run's output directory\n"
"       fabcert keygen PREFIX     make PREFIX.key (owner only) and PREFIX.pub\n"
"       fabcert verify CERT [--pubkey PUB] [--require-signature]\n"
"                                 check a certificate: intact (its digest;\n"
"                                 not who wrote it) and, with --pubkey, signed\n"
"       fabcert check-profile FILE\n"
"                                 validate a threshold profile, print its hash\n"
"       fabcert check-inventory [--hosts FILE] [--racks FILE]\n"
"                                 validate an inventory, print host -> rack\n"
"       fabcert version           print the version\n"
"       fabcert --help            this text\n"
"\n"
"run options:\n"
"  --hosts FILE          host list: one host or Slurm range per line\n"
"                        (gpu[001-016,020]); without --hosts and --racks,\n"
"                        this machine is a one-node cluster\n"
"  --racks FILE          rack map: 'HOSTS RACK' or 'RACK: HOSTS' per line\n"
"  --profile FILE        threshold profile (default: thresholds/local.yaml)\n"
"  --out DIR             output directory (default: fabcert-out/RUN_ID)\n"
"  --stages LIST         run only these of the profile's stages\n"
"  --ppn N               ranks per node on a cluster (default 2)\n"
"  --np N                ranks on this machine alone (default: its cores, 2-8)\n"
"  --launcher NAME       mpirun (default) or srun: Slurm starts the ranks\n"
"                        itself (srun --mpi=pmix, one job step per stage)\n"
"  --mpirun PATH         the launcher's program (default: $FABCERT_MPIRUN,\n"
"                        else mpirun or srun)\n"
"  --mpirun-arg ARG      pass ARG to the launcher (repeat; e.g. --mpirun-arg\n"
"                        --mca --mpirun-arg btl_tcp_if_include --mpirun-arg ib0)\n"
"  --env NAME[=VALUE]    export NAME to every rank (mpirun -x; srun passes\n"
"                        the environment)\n"
"  --sizes LIST, --iters N, --warmup N, --collectives LIST, --dtypes LIST,\n"
"  --ops LIST            override the profile's sweep in every stage\n"
"  --soak-duration D     how long the soak runs, instead of the profile's\n"
"                        soak.duration_s (90, 90s, 30m, 8h, 2d; the timeout\n"
"                        grows with it)\n"
"  --backend NAME        mpi, nccl or auto for the collective stages (default:\n"
"                        the profile's, else mpi); nccl where a rank has no\n"
"                        GPU skips the stage, and its racks are INCOMPLETE\n"
"  --selftest-corrupt rank=R,iter=I[,index=K][,bit=B][,coll=NAME]\n"
"                        flip one output bit to prove the checker catches it\n"
"  --selftest-hang rank=R,index=K\n"
"                        stop rank R at point K to prove the watchdog\n"
"  --selftest-stage NAME the stage the self-tests apply to (default: all)\n"
"  --sign-key KEY        sign each rack's certificate with this secret key\n"
"\n"
"The output directory holds run.json, results.jsonl (one JSON record per\n"
"measurement, flushed as made), STAGE.tap and STAGE.log per stage attempt,\n"
"and the reports: certificates/RACK.json (+ .sig), report/*.html,\n"
"junit.xml and summary.txt.\n"
"Running as root sets OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM)=1 for mpirun.\n"
"\n"
"exit status: 0 every rack passed; 1 a rack failed, or is INCOMPLETE (a\n"
"required stage did not run or finish on it); 2 bad usage or input.\n");
}

static int fc_default_np(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    return cores < 2 ? 2 : cores > 8 ? 8 : (int)cores;
}

static int fc_parse_count(const char *what, const char *text, int *out)
{
    char *end;
    long v = strtol(text, &end, 10);

    if (*text == '\0' || *end != '\0' || v < 1 || v > 100000) {
        fprintf(stderr, "fabcert: %s '%s': expected a count from 1 to 100000\n",
                what, text);
        return 2;
    }
    *out = (int)v;
    return 0;
}

static int fc_parse_run(int argc, char **argv, fc_run_opts_t *o)
{
    enum { O_PROFILE = 1, O_OUT, O_NP, O_PPN, O_MPIRUN, O_MPIRUN_ARG, O_ENV, O_LAUNCHER,
           O_HOSTS, O_RACKS, O_STAGES, O_STAGE_OPT, O_SELFTEST, O_SELFTEST_STAGE,
           O_SIGN_KEY, O_HELP };
    static const struct option longopts[] = {
        { "profile", required_argument, NULL, O_PROFILE },
        { "out", required_argument, NULL, O_OUT },
        { "np", required_argument, NULL, O_NP },
        { "ppn", required_argument, NULL, O_PPN },
        { "mpirun", required_argument, NULL, O_MPIRUN },
        { "mpirun-arg", required_argument, NULL, O_MPIRUN_ARG },
        { "env", required_argument, NULL, O_ENV },
        { "launcher", required_argument, NULL, O_LAUNCHER },
        { "hosts", required_argument, NULL, O_HOSTS },
        { "racks", required_argument, NULL, O_RACKS },
        { "stages", required_argument, NULL, O_STAGES },
        { "sizes", required_argument, NULL, O_STAGE_OPT },
        { "iters", required_argument, NULL, O_STAGE_OPT },
        { "warmup", required_argument, NULL, O_STAGE_OPT },
        { "collectives", required_argument, NULL, O_STAGE_OPT },
        { "dtypes", required_argument, NULL, O_STAGE_OPT },
        { "ops", required_argument, NULL, O_STAGE_OPT },
        { "backend", required_argument, NULL, O_STAGE_OPT },
        { "soak-duration", required_argument, NULL, O_STAGE_OPT },
        { "selftest-corrupt", required_argument, NULL, O_SELFTEST },
        { "selftest-hang", required_argument, NULL, O_SELFTEST },
        { "selftest-stage", required_argument, NULL, O_SELFTEST_STAGE },
        { "sign-key", required_argument, NULL, O_SIGN_KEY },
        { "help", no_argument, NULL, O_HELP },
        { NULL, 0, NULL, 0 },
    };
    static char names[FC_MAX_PASSTHRU][48];
    int c, index, nnames = 0, any_stage = 0;

    memset(o, 0, sizeof(*o));
    fc_path_beside_exe("../thresholds/local.yaml", o->profile, sizeof(o->profile));
    o->mpirun = getenv("FABCERT_MPIRUN");
    o->mpirun_from = o->mpirun ? "$FABCERT_MPIRUN" : NULL;
    o->ppn = 2;
    o->selftest_stage = -1;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, &index)) != -1) {
        if (o->nmpirun_args + 2 > FC_MAX_PASSTHRU || o->nstage_args + 2 > FC_MAX_PASSTHRU ||
            o->nselftest_args + 2 > 8 || nnames == FC_MAX_PASSTHRU) {
            fprintf(stderr, "fabcert: too many options\n");
            return 2;
        }
        switch (c) {
        case O_PROFILE: snprintf(o->profile, sizeof(o->profile), "%s", optarg); break;
        case O_OUT: snprintf(o->out_dir, sizeof(o->out_dir), "%s", optarg); break;
        case O_HOSTS: snprintf(o->hosts, sizeof(o->hosts), "%s", optarg); break;
        case O_RACKS: snprintf(o->racks, sizeof(o->racks), "%s", optarg); break;
        case O_NP: if (fc_parse_count("--np", optarg, &o->np)) return 2; break;
        case O_PPN: if (fc_parse_count("--ppn", optarg, &o->ppn)) return 2; break;
        case O_MPIRUN: o->mpirun = optarg; o->mpirun_from = "--mpirun"; break;
        case O_SIGN_KEY: o->sign_key = optarg; break;
        case O_MPIRUN_ARG: o->mpirun_args[o->nmpirun_args++] = optarg; break;
        case O_LAUNCHER:
            if (strcmp(optarg, "mpirun") != 0 && strcmp(optarg, "srun") != 0) {
                fprintf(stderr, "fabcert: --launcher: '%s' is not mpirun or srun\n", optarg);
                return 2;
            }
            o->srun = strcmp(optarg, "srun") == 0;
            break;
        case O_ENV:
            if (o->nenv == FC_MAX_PASSTHRU) {
                fprintf(stderr, "fabcert: too many --env\n");
                return 2;
            }
            o->env[o->nenv++] = optarg;
            break;
        case O_STAGES: {
            char buf[256], *save = NULL;

            snprintf(buf, sizeof(buf), "%s", optarg);
            if (strlen(o->stages_arg) + strlen(optarg) + 2 > sizeof(o->stages_arg)) {
                fprintf(stderr, "fabcert: --stages: too long\n");
                return 2;
            }
            snprintf(o->stages_arg + strlen(o->stages_arg),
                     sizeof(o->stages_arg) - strlen(o->stages_arg), "%s%s",
                     o->stages_arg[0] ? "," : "", optarg);
            for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                int s = fc_stage_from_name(t);

                if (s < 0) {
                    fprintf(stderr, "fabcert: --stages: unknown stage '%s'\n", t);
                    return 2;
                }
                o->stages[s] = 1;
                any_stage = 1;
            }
            break;
        }
        case O_SELFTEST_STAGE:
            if ((o->selftest_stage = fc_stage_from_name(optarg)) < 0) {
                fprintf(stderr, "fabcert: --selftest-stage: unknown stage '%s'\n", optarg);
                return 2;
            }
            break;
        case O_STAGE_OPT:
        case O_SELFTEST:
            snprintf(names[nnames], sizeof(names[0]), "--%s", longopts[index].name);
            if (c == O_STAGE_OPT && strcmp(longopts[index].name, "soak-duration") == 0 &&
                fc_parse_duration("soak-duration", optarg, &o->soak_duration) != FC_OK)
                return 2;
            if (c == O_STAGE_OPT) {
                o->stage_args[o->nstage_args++] = names[nnames++];
                o->stage_args[o->nstage_args++] = optarg;
            } else {
                o->selftest_args[o->nselftest_args++] = names[nnames++];
                o->selftest_args[o->nselftest_args++] = optarg;
            }
            break;
        case O_HELP:
            fc_usage(stdout);
            exit(0);
        default:
            fc_usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "fabcert: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (!any_stage)
        for (int s = 0; s < FC_STAGE_COUNT; ++s)
            o->stages[s] = 1;
    if (o->np == 0)
        o->np = fc_default_np();
    if (o->mpirun == NULL)
        o->mpirun = o->srun ? "srun" : "mpirun";
    o->nuser_mpirun_args = o->nmpirun_args;
    /* mpirun forwards named variables (-x); srun passes the environment */
    for (int k = 0; k < o->nenv; ++k) {
        char name[256];
        const char *eq = strchr(o->env[k], '=');

        if (!o->srun) {
            if (o->nmpirun_args + 2 > FC_MAX_PASSTHRU) {
                fprintf(stderr, "fabcert: too many options\n");
                return 2;
            }
            o->mpirun_args[o->nmpirun_args++] = "-x";
            o->mpirun_args[o->nmpirun_args++] = o->env[k];
        } else if (eq) {
            snprintf(name, sizeof(name), "%.*s", (int)(eq - o->env[k]), o->env[k]);
            setenv(name, eq + 1, 1);
        }
    }
    return 0;
}

/* Inventory from the files, or this machine alone. */
/* A rack map of the whole cluster with a host list of part of it: say what
 * this run leaves out, so a typo in the host list does not go unseen. */
static void fc_print_left_out(const fc_inventory_t *inv)
{
    if (inv->map_hosts_left_out > 0)
        printf("# %d host(s) of the rack map %s are not in the host list %s and are "
               "left out of this run (%d rack(s) entirely)\n", inv->map_hosts_left_out,
               inv->racks_path, inv->hosts_path, inv->racks_left_out);
}

static fc_status_t fc_run_load_inventory(fc_run_state_t *st)
{
    char *hosts_text = NULL, *racks_text = NULL;
    fc_status_t s = FC_OK;

    if (st->o.hosts[0] == '\0' && st->o.racks[0] == '\0') {
        /* no inventory: inside a Slurm allocation its nodes, else this host */
        const char *slurm = getenv("SLURM_JOB_NODELIST");
        char host[256] = "";
        char path[PATH_MAX];
        FILE *f;

        if (slurm && slurm[0]) {
            printf("fabcert: hosts from SLURM_JOB_NODELIST: %s\n", slurm);
        } else {
            gethostname(host, sizeof(host) - 1);
            st->o.local = 1;
        }
        if (snprintf(path, sizeof(path), "%s/hosts", st->o.out_dir) >= (int)sizeof(path)) {
            fprintf(stderr, "fabcert: --out: path too long\n");
            return FC_ERR_INVALID;
        }
        /* the whole list, however long: a cut one would be another cluster */
        if ((f = fopen(path, "w")) == NULL ||
            (st->o.local ? fprintf(f, "%s\n", host)
                         : fprintf(f, "# from SLURM_JOB_NODELIST\n%s\n", slurm)) < 0 ||
            fclose(f) != 0) {
            fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
            return FC_ERR_INVALID;
        }
        snprintf(st->o.hosts, sizeof(st->o.hosts), "%s", path);
    }
    if ((st->o.hosts[0] && fc_read_text_file(st->o.hosts, &hosts_text) != FC_OK) ||
        (st->o.racks[0] && fc_read_text_file(st->o.racks, &racks_text) != FC_OK))
        s = FC_ERR_INVALID;
    else
        s = fc_inventory_parse(hosts_text, st->o.hosts, racks_text, st->o.racks,
                               &st->inv);
    free(hosts_text);
    free(racks_text);
    return s;
}

static int fc_cluster_mode(const fc_run_opts_t *o)
{
    return !o->local;
}

static void fc_append(fc_run_state_t *st, json_t *rec)
{
    fc_results_t r;

    if (fc_results_open(st->o.out_dir, &r) != FC_OK) {
        json_decref(rec);
        return;
    }
    fc_results_append(&r, rec);
    fc_results_close(&r);
}

static json_t *fc_run_record(const fc_run_state_t *st, const char *type,
                             const char *stage)
{
    char now[32];

    fc_results_time(now, sizeof(now));
    return json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", type, "run_id",
                     st->o.run_id, "stage", stage ? stage : "", "time", now,
                     "source", "runner");
}

static json_t *fc_inventory_json(const fc_inventory_t *inv)
{
    json_t *hosts = json_array(), *racks = json_array();

    for (int h = 0; h < inv->nhosts; ++h)
        json_array_append_new(hosts, json_pack("{s:s, s:s}", "host", inv->hosts[h],
                                               "rack", inv->racks[inv->host_rack[h]]));
    for (int r = 0; r < inv->nracks; ++r)
        json_array_append_new(racks, json_string(inv->racks[r]));
    return json_pack("{s:o, s:o, s:s, s:s}", "hosts", hosts, "racks", racks,
                     "hosts_file", inv->hosts_path, "racks_file", inv->racks_path);
}

static int fc_write_run_json(const fc_run_state_t *st, json_t *stages)
{
    char path[PATH_MAX + 16], now[32], host[256] = "";
    json_t *meta;
    int rc;

    fc_results_time(now, sizeof(now));
    gethostname(host, sizeof(host) - 1);
    meta = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:O, s:o, s:i, s:i}",
                     "run_id", st->o.run_id, "version", FC_VERSION, "started", now,
                     "launch_host", host, "profile", st->profile.name,
                     "profile_path", st->profile.path, "profile_sha256",
                     st->profile.sha256, "launcher", st->o.mpirun, "stages", stages,
                     "inventory", fc_inventory_json(&st->inv), "ppn",
                     fc_cluster_mode(&st->o) ? st->o.ppn : st->o.np, "cluster",
                     fc_cluster_mode(&st->o));
    snprintf(path, sizeof(path), "%s/run.json", st->o.out_dir);
    rc = json_dump_file(meta, path, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(meta);
    if (rc != 0)
        fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
    return rc;
}

static long fc_file_size(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0 ? (long)sb.st_size : 0;
}

static void fc_quarantine(fc_run_state_t *st, const char *stage, const char *host,
                          const char *part, const char *reason)
{
    int h = fc_inventory_find_host(&st->inv, host);
    json_t *rec;

    if (h < 0 || st->quarantined[h])
        return;
    st->quarantined[h] = 1;
    st->healthy[h] = 0;
    rec = fc_run_record(st, "quarantine", stage);
    json_object_set_new(rec, "host", json_string(host));
    json_object_set_new(rec, "rack", json_string(st->inv.racks[st->inv.host_rack[h]]));
    json_object_set_new(rec, "part", json_string(part));
    json_object_set_new(rec, "reason", json_string(reason));
    fc_append(st, rec);
    fc_print_line(stdout, "  quarantined %s (rack %s): %s: %s", host,
                  st->inv.racks[st->inv.host_rack[h]], part, reason);
}

/* The probe for a stuck stage, launched as the stages are. */
static json_t *fc_run_probe(void *arg, json_t *hosts, char *err, size_t errlen)
{
    const fc_run_state_t *st = arg;
    fc_probe_launch_t pl = { st->o.mpirun, st->o.srun, st->o.mpirun_args,
                             st->o.nmpirun_args, st->o.out_dir, st->probe_stage, 5.0 };

    return fc_probe_run(&pl, hosts, err, errlen);
}

/* The stage did not end: say why, from what the ranks and the launcher
 * said (runners/fc_diagnose.h), and quarantine the hosts it places.
 * Returns the number of hosts quarantined. */
static int fc_diagnose_hang(fc_run_state_t *st, const char *stage, json_t *recs,
                            const fc_launch_result_t *res, const char *log_path)
{
    fc_diag_in_t in = { &st->inv, stage, recs, res, log_path,
                        fc_cluster_mode(&st->o) ? fc_run_probe : NULL, st, json_array(),
                        st->profile.stages[fc_stage_from_name(stage)].timeout_s };
    json_t *found, *f;
    size_t i;
    int quarantined = 0;

    for (int h = 0; h < st->inv.nhosts; ++h)
        if (st->healthy[h])
            json_array_append_new(in.hosts, json_string(st->inv.hosts[h]));
    st->probe_stage = stage;
    found = fc_diagnose_unfinished(&in);
    json_decref(in.hosts);
    json_array_foreach(found, i, f) {
        json_t *r = fc_run_record(st, fc_json_str(f, "type"), stage);
        json_t *imp = json_object_get(f, "implicates");
        const char *why = json_string_value(json_array_get(json_object_get(f, "reasons"), 0));
        const char *type = fc_json_str(f, "type");

        json_object_update(r, f);
        fc_print_line(stdout, "  %s %s", strcmp(type, "crash") == 0 ? "CRASH" :
                      strcmp(type, "hang") == 0 ? "HANG" : strcmp(type, "probe") == 0 ? "PROBE" :
                      "ERROR", why ? why : fc_json_str(f, "reason"));
        fc_append(st, r);
        if (json_is_true(json_object_get(imp, "quarantine"))) {
            fc_quarantine(st, stage, fc_json_str(imp, "host"), fc_json_str(imp, "part"), why);
            ++quarantined;
        }
    }
    json_decref(found);
    return quarantined;
}

/* What the runner prints for a finished attempt: the stage's own end
 * record decides, and nothing judged is never a pass. */
static const char *fc_stage_outcome(int ended, const char *status, int points, int failed)
{
    if (!ended)
        return "DID NOT FINISH";
    if (strcmp(status, "ok") != 0 && strcmp(status, "fail") != 0)
        return "ERROR";
    if (strcmp(status, "fail") == 0 && failed == 0)
        return "ERROR (failed outside its checks)";
    if (points == 0)
        return "NOTHING JUDGED";
    return failed ? "FAIL" : "PASS";
}

/* Launch one attempt of a stage on the healthy hosts. Returns 2 on bad
 * input (the caller stops), 0 otherwise; *hung_p when it did not end. */
static int fc_run_stage(fc_run_state_t *st, fc_stage_id_t stage, int attempt,
                        int *hung_p)
{
    const fc_run_opts_t *o = &st->o;
    const char *name = fc_stage_name(stage);
    char exe[PATH_MAX], hostfile[PATH_MAX + 64], tap[PATH_MAX + 64], log[PATH_MAX + 64];
    char np[16], suffix[16] = "";
    const char *args[3 * FC_MAX_PASSTHRU + 64];
    int nargs = 0, nhealthy = 0, cluster = fc_cluster_mode(o), ranks;
    fc_launch_result_t res;
    long offset;
    json_t *recs, *rec;
    size_t i;
    int ended = 0, points = 0, failed = 0, torn = 0, exe_at = 0;
    char skipped[512] = "", end_status[32] = "", end_error[512] = "";

    *hung_p = 0;
    for (int h = 0; h < st->inv.nhosts; ++h)
        nhealthy += st->healthy[h];
    if (attempt > 1)
        snprintf(suffix, sizeof(suffix), ".%d", attempt);
    if (nhealthy == 0 || nhealthy < fc_stage_desc(stage)->min_hosts) {
        json_t *r = fc_run_record(st, "stage_skip", name);
        char few[64];
        const char *why = few;

        snprintf(few, sizeof(few), "fewer than %d healthy hosts", fc_stage_desc(stage)->min_hosts);
        if (nhealthy == 0)
            why = "no healthy host is left";

        json_object_set_new(r, "reason", json_string(why));
        fc_append(st, r);
        printf("stage %s: skipped: %s\n", name, why);
        return 0;
    }
    fc_path_beside_exe("suites/", exe, sizeof(exe));
    snprintf(exe + strlen(exe), sizeof(exe) - strlen(exe), "%s", name);
    snprintf(tap, sizeof(tap), "%s/%s%s.tap", o->out_dir, name, suffix);
    snprintf(log, sizeof(log), "%s/%s%s.log", o->out_dir, name, suffix);
    /* ranks per node, by the stage table: one, the contention stage's
     * foreground plus background ranks, or --ppn */
    fc_stage_ranks_t rule = fc_stage_desc(stage)->ranks;
    int per_node = rule == FC_RANKS_ONE ? 1 :
                   rule == FC_RANKS_ROLES ? st->profile.stages[stage].cont.fg_per_node +
                                            st->profile.stages[stage].cont.bg_per_node
                                          : o->ppn;

    /* on this machine alone: --np ranks, at least the roles' */
    ranks = !cluster ? (rule == FC_RANKS_ONE ? 1 :
                        rule == FC_RANKS_ROLES && o->np < per_node ? per_node : o->np)
                     : nhealthy * per_node;
    snprintf(np, sizeof(np), "%d", ranks);
    args[nargs++] = o->mpirun;
    if (o->srun) {
        /* one job step per stage on the healthy hosts; the watchdog and
         * the runner bound it, not Slurm's time limit */
        static char nodes[64], tasks[64], nodelist[65536];
        size_t len = 0;

        args[nargs++] = "--mpi=pmix";
        args[nargs++] = "--kill-on-bad-exit=0";
        args[nargs++] = "-n";
        args[nargs++] = np;
        nodelist[0] = '\0';
        for (int h = 0; h < st->inv.nhosts && (cluster || h == 0); ++h)
            if (st->healthy[h] && len + strlen(st->inv.hosts[h]) + 2 < sizeof(nodelist))
                len += (size_t)snprintf(nodelist + len, sizeof(nodelist) - len, "%s%s",
                                        len ? "," : "", st->inv.hosts[h]);
        snprintf(nodes, sizeof(nodes), "--nodes=%d", cluster ? nhealthy : 1);
        args[nargs++] = nodes;
        args[nargs++] = "--nodelist";
        args[nargs++] = nodelist;
        if (cluster) {
            snprintf(tasks, sizeof(tasks), "--ntasks-per-node=%d", per_node);
            args[nargs++] = tasks;
        }
    } else {
        args[nargs++] = "--oversubscribe";
        args[nargs++] = "--bind-to";
        args[nargs++] = "none";
        args[nargs++] = "-np";
        args[nargs++] = np;
    }
    if (cluster && !o->srun) {
        FILE *f;

        snprintf(hostfile, sizeof(hostfile), "%s/hostfile.%s%s", o->out_dir, name, suffix);
        if ((f = fopen(hostfile, "w")) == NULL) {
            fprintf(stderr, "fabcert: cannot write %s: %s\n", hostfile, strerror(errno));
            return 2;
        }
        for (int h = 0; h < st->inv.nhosts; ++h)
            if (st->healthy[h])
                fprintf(f, "%s slots=%d\n", st->inv.hosts[h], per_node);
        fclose(f);
        args[nargs++] = "--hostfile";
        args[nargs++] = hostfile;
        args[nargs++] = "--map-by";
        args[nargs++] = "node";
    }
    for (int k = 0; k < o->nmpirun_args; ++k)
        args[nargs++] = o->mpirun_args[k];
    exe_at = nargs;
    args[nargs++] = exe;
    args[nargs++] = "--profile";
    args[nargs++] = o->profile;
    args[nargs++] = "--out";
    args[nargs++] = o->out_dir;
    args[nargs++] = "--run-id";
    args[nargs++] = o->run_id;
    args[nargs++] = "--hosts";
    args[nargs++] = o->hosts;
    if (o->racks[0]) {
        args[nargs++] = "--racks";
        args[nargs++] = o->racks;
    }
    for (int k = 0; k < o->nstage_args; ++k)
        args[nargs++] = o->stage_args[k];
    /* self-tests apply to a stage's first attempt only: rank numbers
     * change once hosts are quarantined */
    if (attempt == 1 && (o->selftest_stage < 0 || o->selftest_stage == (int)stage))
        for (int k = 0; k < o->nselftest_args; ++k)
            args[nargs++] = o->selftest_args[k];
    args[nargs] = NULL;

    printf("stage %s%s: %d host(s), %d rank(s), timeout %.0f s\n", name,
           attempt > 1 ? " (again, without the hosts blamed)" : "", nhealthy,
           ranks, st->profile.stages[stage].timeout_s);
    fflush(stdout);
    offset = fc_file_size(st->results_path);
    fc_launch((char *const *)args, tap, log,
              st->profile.stages[stage].timeout_s + FC_LAUNCH_MARGIN_S, &res);
    if (res.exit_status == 2) {
        char *text = NULL;

        fprintf(stderr, "fabcert: the %s stage rejected its input:\n", name);
        if (fc_read_text_file(log, &text) == FC_OK)
            fputs(text, stderr);
        free(text);
        fc_launch_result_free(&res);
        return 2;
    }
    /* what this attempt appended (nothing if it never opened the file) */
    if (access(st->results_path, F_OK) != 0 ||
        fc_results_load(st->results_path, offset, &recs, &torn) != FC_OK)
        recs = json_array();
    {
        /* a wrong result implicates its group until a retest places it */
        fc_retest_launch_t rt = { args, exe_at, o->out_dir, o->run_id, name, suffix,
                                  st->profile.stages[stage].timeout_s, FC_LAUNCH_MARGIN_S,
                                  &st->inv, st->results_path, offset };

        if (fc_retest_after_stage(&rt, recs)) {
            json_decref(recs);
            if (fc_results_load(st->results_path, offset, &recs, &torn) != FC_OK)
                recs = json_array();
        }
    }
    json_array_foreach(recs, i, rec) {
        const char *type = fc_json_str(rec, "type");
        json_t *imp = json_object_get(rec, "implicates");

        if (strcmp(type, "stage_end") == 0) {
            ended = 1;
            snprintf(end_status, sizeof(end_status), "%s", fc_json_str(rec, "status"));
            snprintf(end_error, sizeof(end_error), "%s", fc_json_str(rec, "error"));
            if (strcmp(fc_json_str(rec, "verdict"), "SKIP") == 0)
                snprintf(skipped, sizeof(skipped), "%s", fc_json_str(rec, "reason"));
        }
        if (fc_record_is_check(type)) {
            ++points;
            if (strcmp(fc_json_str(rec, "verdict"), "PASS") != 0)
                ++failed;
        }
        if (strcmp(fc_json_str(rec, "verdict"), "FAIL") == 0 &&
            json_is_true(json_object_get(imp, "quarantine"))) {
            char why[1024];
            const char *what = json_string_value(json_array_get(json_object_get(rec, "reasons"), 0));

            if (strcmp(type, "point") == 0)
                snprintf(why, sizeof(why), "%s %s%s%s %lld bytes: %s",
                         fc_json_str(rec, "collective"), fc_json_str(rec, "dtype"),
                         strcmp(fc_json_str(rec, "op"), "none") ? " " : "",
                         strcmp(fc_json_str(rec, "op"), "none") ? fc_json_str(rec, "op") : "",
                         (long long)json_integer_value(json_object_get(rec, "bytes")),
                         what ? what : "failed");
            else
                snprintf(why, sizeof(why), "%s", what ? what : "failed");
            fc_quarantine(st, name, fc_json_str(imp, "host"), fc_json_str(imp, "part"), why);
        }
    }
    /* the stage's own words (its reason, its first error) may hold any
     * byte: fc_print_line keeps them to one line */
    if (skipped[0])
        fc_print_line(stdout, "stage %s: SKIPPED: %s", name, skipped);
    else
        fc_print_line(stdout, "stage %s: %s: %d checks, %d failed, %.1f s%s%s%s", name,
                      fc_stage_outcome(ended, end_status, points, failed), points, failed,
                      res.seconds, res.timed_out ? " (killed at the limit)" :
                      res.interrupted ? " (stopped: the run was interrupted)" : "",
                      end_error[0] ? ": " : "", end_error);
    if (torn > 0)
        printf("stage %s: %d record(s) in results.jsonl could not be read: the stage "
               "is INCOMPLETE\n", name, torn);
    if (!ended && res.interrupted) {
        /* an operator's stop, not a hang: nobody is quarantined */
        json_t *r = fc_run_record(st, "stage_error", name);
        char why[128];

        snprintf(why, sizeof(why), "interrupted by signal %d after %.1f s; the stage "
                 "was stopped", fc_launch_interrupted(), res.seconds);
        json_object_set_new(r, "reason", json_string(why));
        fc_append(st, r);
    } else if (!ended) {
        *hung_p = fc_diagnose_hang(st, name, recs, &res, log) > 0;
    }
    json_decref(recs);
    fc_launch_result_free(&res);
    return 0;
}

/* A background_hosts list: every host in the inventory, else exit 2. */
static int fc_check_hostlist(const fc_run_state_t *st, const char *list)
{
    char (*names)[FC_INV_NAME_MAX] = NULL, err[256];
    int n = 0, bad = 0;

    if (fc_hostlist_expand(list, &names, &n, err, sizeof(err)) != FC_OK) {
        fprintf(stderr, "fabcert: %s: background_hosts: %s\n", st->o.profile, err);
        return 2;
    }
    for (int i = 0; i < n && !bad; ++i)
        if (fc_inventory_find_host(&st->inv, names[i]) < 0) {
            fprintf(stderr, "fabcert: %s: background_hosts names %s, which is not in the "
                    "inventory\n", st->o.profile, names[i]);
            bad = 2;
        }
    free(names);
    return bad;
}


/* The contention stage's background_hosts must be hosts of the inventory:
 * a typo would otherwise leave the stage without background, found out
 * only after the earlier stages have run. */
static int fc_check_background_hosts(const fc_run_state_t *st)
{
    for (int s = 0; s < FC_STAGE_COUNT; ++s) {
        const fc_stage_profile_t *sp = &st->profile.stages[s];
        int rc;

        if (!(fc_stage_desc((fc_stage_id_t)s)->sections & FC_SECT_CONTENTION) ||
            !sp->present || !st->o.stages[s] || !sp->cont.background_hosts[0])
            continue;
        if ((rc = fc_check_hostlist(st, sp->cont.background_hosts)) != 0)
            return rc;
    }
    return 0;
}

/* Every command-line option that changes what is measured or how, as
 * given: the certificate shows them beside the profile's hash, so a run
 * with overrides is never mistaken for the profile as written. */
static json_t *fc_run_overrides(const fc_run_opts_t *o)
{
    json_t *ov = json_object();
    const char *const *pairs[2] = { o->stage_args, o->selftest_args };
    int npairs[2] = { o->nstage_args, o->nselftest_args };

    for (int k = 0; k < 2; ++k)
        for (int i = 0; i + 1 < npairs[k]; i += 2)
            json_object_set_new(ov, pairs[k][i], json_string(pairs[k][i + 1]));
    if (o->stages_arg[0])
        json_object_set_new(ov, "--stages", json_string(o->stages_arg));
    if (o->selftest_stage >= 0)
        json_object_set_new(ov, "--selftest-stage",
                            json_string(fc_stage_name((fc_stage_id_t)o->selftest_stage)));
    if (o->nenv > 0) {
        json_t *env = json_array();

        for (int k = 0; k < o->nenv; ++k)
            json_array_append_new(env, json_string(o->env[k]));
        json_object_set_new(ov, "--env", env);
    }
    if (o->mpirun_from) {
        /* another launcher program launches (and can shape) every stage */
        char what[PATH_MAX + 32];

        snprintf(what, sizeof(what), "%s%s", o->mpirun,
                 strcmp(o->mpirun_from, "--mpirun") ? " (from $FABCERT_MPIRUN)" : "");
        json_object_set_new(ov, "--mpirun", json_string(what));
    }
    if (o->nuser_mpirun_args > 0) {
        json_t *args = json_array();

        for (int k = 0; k < o->nuser_mpirun_args; ++k)
            json_array_append_new(args, json_string(o->mpirun_args[k]));
        json_object_set_new(ov, "--mpirun-arg", args);
    }
    return ov;
}

/* Variables of the launching environment that change what is measured or
 * how (Open MPI's, UCX's and NCCL's settings, the GPU plugin, preloaded
 * libraries, visible devices, fabcert's own FC_ hooks such as
 * FC_SYSFS_ROOT, which points preflight and the soak at another sysfs
 * tree): recorded in the plan, since they are as much an override as a
 * command-line option. */
static json_t *fc_run_environment(void)
{
    static const char *const prefixes[] = {
        "OMPI_MCA_", "UCX_", "NCCL_", "FABCERT_", "FC_", "CUDA_VISIBLE_DEVICES",
        "LD_PRELOAD", "LD_LIBRARY_PATH", "FI_", "PSM2_",
    };
    extern char **environ;
    json_t *env = json_object();

    for (char **e = environ; *e; ++e) {
        const char *eq = strchr(*e, '=');
        char name[256];

        if (eq == NULL || (size_t)(eq - *e) >= sizeof(name))
            continue;
        snprintf(name, sizeof(name), "%.*s", (int)(eq - *e), *e);
        for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); ++k)
            if (strncmp(name, prefixes[k], strlen(prefixes[k])) == 0)
                json_object_set_new(env, name, json_string(eq + 1));
    }
    return env;
}

/* Copy one input file into the output directory; path_p is repointed. */
static fc_status_t fc_run_freeze_file(const char *out_dir, const char *name,
                                      char *path_p, size_t len)
{
    char copy[PATH_MAX + 64], *text = NULL;
    FILE *f;
    fc_status_t st = FC_OK;

    if ((size_t)snprintf(copy, sizeof(copy), "%s/%s", out_dir, name) >= len) {
        fprintf(stderr, "fabcert: --out: path too long\n");
        return FC_ERR_INVALID;
    }
    if (strcmp(copy, path_p) == 0)
        return FC_OK;           /* written there by the runner itself */
    if (fc_read_text_file(path_p, &text) != FC_OK)
        return FC_ERR_INVALID;
    if ((f = fopen(copy, "w")) == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "fabcert: cannot write %s: %s\n", copy, strerror(errno));
        st = FC_ERR_INVALID;
    } else {
        memcpy(path_p, copy, strlen(copy) + 1);     /* fits: checked above */
    }
    free(text);
    return st;
}

/* The stage programs read the profile and the inventory again, each on its
 * own host: they read copies in the output directory, frozen when the run
 * began, so an edit during the run cannot change what a stage judges. The
 * copy's hash must be the profile's. */
static fc_status_t fc_run_freeze_inputs(fc_run_state_t *st)
{
    fc_run_opts_t *o = &st->o;
    fc_profile_t frozen;

    snprintf(o->profile_source, sizeof(o->profile_source), "%s", o->profile);
    snprintf(o->hosts_source, sizeof(o->hosts_source), "%s", o->hosts);
    snprintf(o->racks_source, sizeof(o->racks_source), "%s", o->racks);
    FC_CHECK(fc_run_freeze_file(o->out_dir, "profile.yaml", o->profile, sizeof(o->profile)));
    if (o->hosts[0])
        FC_CHECK(fc_run_freeze_file(o->out_dir, "hosts", o->hosts, sizeof(o->hosts)));
    if (o->racks[0])
        FC_CHECK(fc_run_freeze_file(o->out_dir, "racks", o->racks, sizeof(o->racks)));
    if (fc_profile_load(o->profile, &frozen) != FC_OK)
        return FC_ERR_INVALID;
    if (strcmp(frozen.sha256, st->profile.sha256) != 0) {
        fprintf(stderr, "fabcert: %s changed while it was being read (sha256 %.12s, then "
                "%.12s); run again once it is stable\n", o->profile_source,
                st->profile.sha256, frozen.sha256);
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

/* Rack names become certificate file names. */
static int fc_run_check_rack_names(const fc_inventory_t *inv)
{
    for (int r = 0; r < inv->nracks; ++r)
        if (!fc_rack_name_ok(inv->racks[r])) {
            fprintf(stderr, "fabcert: %s: rack '%s' cannot name a certificate file: use "
                    "letters, digits, '-', '_' and '.' (not first)\n",
                    inv->racks_path[0] ? inv->racks_path : "inventory", inv->racks[r]);
            return 2;
        }
    return 0;
}

/* Create results.jsonl, failing if it exists: one run per directory, even
 * when two runners are started with the same --out at once. */
static int fc_run_claim_results(const fc_run_state_t *st)
{
    int fd = open(st->results_path, O_WRONLY | O_CREAT | O_EXCL, 0644);

    if (fd < 0) {
        fprintf(stderr, "fabcert: %s: %s%s\n", st->results_path, strerror(errno),
                errno == EEXIST ? ": the directory already holds a run; give another --out"
                                : "");
        return 2;
    }
    close(fd);
    return 0;
}

static int fc_cmd_run(int argc, char **argv)
{
    fc_run_state_t st;
    json_t *stages, *plan;
    char exe[PATH_MAX];
    int rc, nselected = 0;

    memset(&st, 0, sizeof(st));
    if ((rc = fc_parse_run(argc, argv, &st.o)) != 0)
        return rc;
    if (fc_profile_load(st.o.profile, &st.profile) != FC_OK)
        return 2;
    /* the stage program applies the same override to the same profile */
    for (int s = 0; s < FC_STAGE_COUNT && st.o.soak_duration > 0; ++s) {
        fc_stage_profile_t *sp = &st.profile.stages[s];

        if (!(fc_stage_desc((fc_stage_id_t)s)->sections & FC_SECT_SOAK))
            continue;
        if (sp->present && fc_soak_duration_check(st.o.profile, sp, st.o.soak_duration) != FC_OK)
            return 2;
        fc_soak_set_duration(sp, st.o.soak_duration);
    }
    if (st.o.sign_key) {
        unsigned char sk[64];

        if (fc_key_load(st.o.sign_key, 1, sk, sizeof(sk)) != FC_OK)
            return 2;
        memset(sk, 0, sizeof(sk));
    }
    if (st.profile.require_signature && !st.o.sign_key) {
        fprintf(stderr, "fabcert: %s: the profile requires signed certificates "
                "(certificates: require_signature: true): give --sign-key KEY\n",
                st.o.profile);
        return 2;
    }
    snprintf(st.o.run_id, sizeof(st.o.run_id), "%ld-%d", (long)time(NULL), (int)getpid());
    if (st.o.out_dir[0] == '\0')
        snprintf(st.o.out_dir, sizeof(st.o.out_dir), "fabcert-out/%s", st.o.run_id);
    if (fc_mkdir_p(st.o.out_dir) != FC_OK)
        return 2;
    /* verdicts come from all of results.jsonl: never mix two runs */
    snprintf(st.results_path, sizeof(st.results_path), "%s/results.jsonl", st.o.out_dir);
    if (fc_run_claim_results(&st) != 0)
        return 2;
    if (fc_run_load_inventory(&st) != FC_OK || fc_check_background_hosts(&st) != 0 ||
        fc_run_check_rack_names(&st.inv) != 0 || fc_run_freeze_inputs(&st) != FC_OK) {
        unlink(st.results_path);        /* nothing was run: no half run left */
        return 2;
    }
    fc_print_left_out(&st.inv);
    st.healthy = calloc((size_t)st.inv.nhosts, sizeof(int));
    st.quarantined = calloc((size_t)st.inv.nhosts, sizeof(int));
    for (int h = 0; h < st.inv.nhosts; ++h)
        st.healthy[h] = 1;

    stages = json_array();
    for (int k = 0; k < FC_STAGE_COUNT; ++k) {
        fc_stage_id_t s = (fc_stage_id_t)k;     /* the stage table's order */

        if (!st.profile.stages[s].present)
            continue;
        /* every stage of the profile is in the plan; those --stages leaves
         * out are marked, and a required one among them is INCOMPLETE */
        json_array_append_new(stages, json_pack("{s:s, s:b, s:f, s:b}", "name",
            fc_stage_name(s), "required", st.profile.stages[s].required,
            "timeout_s", st.profile.stages[s].timeout_s, "selected", st.o.stages[s]));
        if (!st.o.stages[s])
            continue;
        ++nselected;
        fc_path_beside_exe("suites/", exe, sizeof(exe));
        snprintf(exe + strlen(exe), sizeof(exe) - strlen(exe), "%s", fc_stage_name(s));
        if (access(exe, X_OK) != 0) {
            fprintf(stderr, "fabcert: stage program %s is missing: %s (run make)\n",
                    exe, strerror(errno));
            json_decref(stages);
            return 2;
        }
    }
    if (nselected == 0) {
        if (json_array_size(stages) > 0)
            fprintf(stderr, "fabcert: --stages %s: the profile %s has none of these "
                    "stages\n", st.o.stages_arg, st.o.profile);
        else
            fprintf(stderr, "fabcert: %s:1:1: the profile names no stage to run\n",
                    st.o.profile);
        json_decref(stages);
        return 2;
    }
    if (fc_write_run_json(&st, stages) != 0)
        return 2;
    if (geteuid() == 0) {
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    }
    plan = fc_run_record(&st, "plan", NULL);
    json_object_set_new(plan, "stages", json_deep_copy(stages));
    json_object_set_new(plan, "inventory", fc_inventory_json(&st.inv));
    json_object_set_new(plan, "profile", json_string(st.profile.name));
    json_object_set_new(plan, "profile_sha256", json_string(st.profile.sha256));
    json_object_set_new(plan, "version", json_string(FC_VERSION));
    if (st.profile.require_signature)   /* `report` refuses unsigned certificates */
        json_object_set_new(plan, "require_signature", json_true());
    if (st.o.soak_duration > 0)     /* the profile's hash alone would not say it */
        json_object_set_new(plan, "soak_duration_s", json_real(st.o.soak_duration));
    json_object_set_new(plan, "overrides", fc_run_overrides(&st.o));
    json_object_set_new(plan, "environment", fc_run_environment());
    json_object_set_new(plan, "inputs", json_pack("{s:s, s:s, s:s}", "profile",
                        st.o.profile_source, "hosts", st.o.hosts_source, "racks",
                        st.o.racks_source));
    json_object_set_new(plan, "launch", json_pack("{s:s, s:s, s:i}", "launcher",
        st.o.srun ? "srun" : "mpirun", "program", st.o.mpirun, fc_cluster_mode(&st.o)
        ? "ranks_per_node" : "ranks", fc_cluster_mode(&st.o) ? st.o.ppn : st.o.np));
    fc_append(&st, plan);

    printf("fabcert %s: run %s, %d host(s) in %d rack(s), profile %s\n",
           FC_VERSION, st.o.run_id, st.inv.nhosts, st.inv.nracks, st.profile.name);
    fflush(stdout);
    fc_launch_catch_signals();
    for (int k = 0; k < FC_STAGE_COUNT; ++k) {
        fc_stage_id_t s = (fc_stage_id_t)k;     /* the stage table's order */
        int hung = 0;

        if (!st.profile.stages[s].present || !st.o.stages[s])
            continue;
        if (fc_launch_interrupted()) {
            printf("stage %s: not run: the run was interrupted\n", fc_stage_name(s));
            continue;
        }
        for (int attempt = 1; attempt <= FC_MAX_ATTEMPTS; ++attempt) {
            if (fc_run_stage(&st, s, attempt, &hung) == 2) {
                json_decref(stages);
                return 2;
            }
            if (!hung || fc_launch_interrupted())
                break;
        }
        fflush(stdout);
    }
    json_decref(stages);

    printf("\n");
    {
        fc_verdict_t overall = FC_VERDICT_INCOMPLETE;

        rc = fc_report_dir(st.o.out_dir, st.o.sign_key, 0, &overall) == FC_OK
                 ? (overall == FC_VERDICT_PASS ? 0 : 1) : 2;
    }
    printf("output: %s\n", st.o.out_dir);
    fc_inventory_free(&st.inv);
    free(st.healthy);
    free(st.quarantined);
    return rc;
}

static int fc_cmd_check_inventory(int argc, char **argv)
{
    fc_inventory_t inv;
    char *hosts = NULL, *racks = NULL;
    const char *hp = NULL, *rp = NULL;
    fc_status_t s = FC_OK;

    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc || (strcmp(argv[i], "--hosts") && strcmp(argv[i], "--racks"))) {
            fprintf(stderr, "usage: fabcert check-inventory [--hosts FILE] [--racks FILE]\n");
            return 2;
        }
        if (strcmp(argv[i], "--hosts") == 0)
            hp = argv[i + 1];
        else
            rp = argv[i + 1];
    }
    if ((hp && fc_read_text_file(hp, &hosts) != FC_OK) ||
        (rp && fc_read_text_file(rp, &racks) != FC_OK))
        s = FC_ERR_INVALID;
    else
        s = fc_inventory_parse(hosts, hp, racks, rp, &inv);
    free(hosts);
    free(racks);
    if (s != FC_OK)
        return 2;
    for (int h = 0; h < inv.nhosts; ++h)
        printf("%s %s\n", inv.hosts[h], inv.racks[inv.host_rack[h]]);
    printf("# %d hosts in %d racks\n", inv.nhosts, inv.nracks);
    fc_print_left_out(&inv);
    fc_inventory_free(&inv);
    return 0;
}

static int fc_cmd_report(int argc, char **argv)
{
    const char *dir = NULL, *key = NULL;
    fc_verdict_t overall;

    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--sign-key") == 0 && i + 1 < argc)
            key = argv[++i];
        else if (argv[i][0] != '-' && dir == NULL)
            dir = argv[i];
        else {
            fprintf(stderr, "usage: fabcert report DIR [--sign-key KEY]\n");
            return 2;
        }
    }
    if (dir == NULL) {
        fprintf(stderr, "usage: fabcert report DIR [--sign-key KEY]\n");
        return 2;
    }
    if (fc_report_dir(dir, key, 0, &overall) != FC_OK)
        return 2;
    return overall == FC_VERDICT_PASS ? 0 : 1;
}

static int fc_cmd_verify(int argc, char **argv)
{
    const char *cert = NULL, *pub = NULL;
    int require = 0;
    fc_status_t st;

    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--pubkey") == 0 && i + 1 < argc)
            pub = argv[++i];
        else if (strcmp(argv[i], "--require-signature") == 0)
            require = 1;
        else if (argv[i][0] != '-' && cert == NULL)
            cert = argv[i];
        else
            cert = NULL, i = argc;
    }
    if (cert == NULL) {
        fprintf(stderr, "usage: fabcert verify CERT [--pubkey PUB] [--require-signature]\n");
        return 2;
    }
    st = fc_certificate_verify(cert, pub, require);
    return st == FC_OK ? 0 : st == FC_ERR_FAIL ? 1 : 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fc_usage(stderr);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0 ||
        strcmp(argv[1], "-h") == 0) {
        fc_usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
        printf("fabcert %s\n", FC_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "check-profile") == 0) {
        fc_profile_t profile;

        if (argc != 3) {
            fprintf(stderr, "usage: fabcert check-profile FILE\n");
            return 2;
        }
        if (fc_profile_load(argv[2], &profile) != FC_OK)
            return 2;
        printf("%s: profile '%s' is valid; sha256 %s\n", argv[2], profile.name,
               profile.sha256);
        return 0;
    }
    if (strcmp(argv[1], "check-inventory") == 0)
        return fc_cmd_check_inventory(argc - 1, argv + 1);
    if (strcmp(argv[1], "run") == 0)
        return fc_cmd_run(argc - 1, argv + 1);
    if (strcmp(argv[1], "report") == 0)
        return fc_cmd_report(argc - 1, argv + 1);
    if (strcmp(argv[1], "verify") == 0)
        return fc_cmd_verify(argc - 1, argv + 1);
    if (strcmp(argv[1], "keygen") == 0) {
        if (argc != 3) {
            fprintf(stderr, "usage: fabcert keygen PREFIX\n");
            return 2;
        }
        return fc_keygen(argv[2]) == FC_OK ? 0 : 2;
    }
    fprintf(stderr, "fabcert: unknown command '%s' (try fabcert --help)\n", argv[1]);
    return 2;
}
