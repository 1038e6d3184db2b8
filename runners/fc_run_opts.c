/*
 * fc_run_opts.c - `fabcert run`'s command line: the options, their checks
 * (each bad one is one message and exit 2), and what the certificate says
 * of them: every option that changed what was measured (overrides) and
 * the environment variables that shape a measurement.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_input.h"
#include "fc_results.h"
#include "fc_run.h"
#include "fc_sign.h"

void fc_usage(FILE *out)
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
"       fabcert compare BEFORE AFTER [--out DIR] [--sign-key KEY]\n"
"               [--confidence PCT] [--power PCT] [--min-slowdown PCT]\n"
"                                 is run AFTER slower than run BEFORE beyond the\n"
"                                 noise? a delta certificate per rack (default:\n"
"                                 95%% confidence, 80%% power, a 5%% floor)\n"
"       fabcert baseline RUN_DIR... --out PROFILE.yaml [--margin PCT] [--name NAME]\n"
"                                 a threshold profile derived from healthy runs\n"
"                                 (limits from their figures and noise; default\n"
"                                 margin 10%%)\n"
"       fabcert plan [run options] [--from DIR] [--json]\n"
"                                 what a run would do: each stage's ranks,\n"
"                                 groups and sweep, an estimate of its time\n"
"                                 (and DIR's measured times beside it), and\n"
"                                 what the profile leaves out\n"
"       fabcert check-profile FILE\n"
"                                 validate a threshold profile, print its hash\n"
"       fabcert check-inventory [--hosts FILE] [--racks FILE | --racks-from SPEC]\n"
"                                 validate an inventory, print host -> rack\n"
"       fabcert topology FORMAT [FILE|-] [--rack-label KEY] [--out FILE]\n"
"                                 a rack map from Slurm, ibnetdiscover or\n"
"                                 Kubernetes node labels (--help: formats)\n"
"       fabcert k8s --image IMAGE --workers N [options]\n"
"                                 a Kubeflow MPIJob that runs fabcert run on\n"
"                                 a Kubernetes cluster (--help: options)\n"
"       fabcert version           print the version\n"
"       fabcert --help            this text\n"
"\n"
"run options:\n"
"  --hosts FILE          host list: one host or Slurm range per line\n"
"                        (gpu[001-016,020]), or an MPI hostfile ('HOST\n"
"                        slots=N': N is --ppn unless given); without --hosts\n"
"                        and --racks, this machine is a one-node cluster\n"
"  --racks FILE          rack map: 'HOSTS RACK' or 'RACK: HOSTS' per line\n"
"  --racks-from FORMAT[:FILE]\n"
"                        the rack map from what knows the topology (fabcert\n"
"                        topology --help): slurm (scontrol show topology),\n"
"                        ibnetdiscover, k8s (kubectl get nodes -o json); FILE\n"
"                        '-' is standard input, none runs the command here\n"
"  --rack-label KEY      k8s: the node label that names the rack (default:\n"
"                        network.topology.nvidia.com/leaf, then others)\n"
"  --profile FILE        threshold profile (default: thresholds/local.yaml);\n"
"                        thresholds/ holds: local.yaml (this machine),\n"
"                        vcluster.yaml (the virtual cluster), and reference\n"
"                        profiles with floors from published figures, each\n"
"                        SKU in two tiers: -acceptance (every stage, a 30 min\n"
"                        soak) and -burnin (the same, an 8 h soak); run them\n"
"                        with --backend nccl --ppn GPUS-PER-NODE:\n"
"                          h100-sxm-ib400-acceptance.yaml  8x H100 SXM, 8x 400G NDR\n"
"                          h100-sxm-ib400-burnin.yaml      the same, an 8 h soak\n"
"                          h200-sxm-ib400-acceptance.yaml  8x H200 SXM, 8x 400G NDR\n"
"                          h200-sxm-ib400-burnin.yaml      the same, an 8 h soak\n"
"                          a100-sxm-ib200-acceptance.yaml  8x A100 SXM, 8x 200G HDR\n"
"                          a100-sxm-ib200-burnin.yaml      the same, an 8 h soak\n"
"                          b200-ib400-acceptance.yaml      8x B200, 8x 400G NDR\n"
"                          b200-ib400-burnin.yaml          the same, an 8 h soak\n"
"                          gb200-nvl72-acceptance.yaml     GB200 NVL72 (--ppn 4)\n"
"                          gb200-nvl72-burnin.yaml         the same, an 8 h soak\n"
"                        `fabcert baseline` derives one from healthy runs\n"
"  --out DIR             output directory (default: fabcert-out/RUN_ID)\n"
"  --stages LIST         run only these of the profile's stages\n"
"  --ppn N               ranks per node on a cluster (default 2)\n"
"  --np N                ranks on this machine alone (default: its cores, 2-8;\n"
"                        more ranks than the CPUs this process may use are\n"
"                        told to yield while they wait)\n"
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
"  --contention-phase D  the contention stage's shortest loaded phase, instead\n"
"                        of the profile's phase_s (a quick check; 1s and up)\n"
"  --backend NAME        mpi, nccl or auto for the collective stages (default:\n"
"                        the profile's, else mpi); nccl where a rank has no\n"
"                        GPU skips the stage, and its racks are INCOMPLETE\n"
"  --selftest-corrupt rank=R,iter=I[,index=K][,bit=B][,coll=NAME]\n"
"                        flip one output bit to prove the checker catches it\n"
"  --selftest-hang rank=R,index=K\n"
"                        stop rank R at point K to prove the watchdog\n"
"  --selftest-stage NAME the stage the self-tests apply to (default: all)\n"
"  --sign-key KEY        sign each rack's certificate with this secret key\n"
"  --resume DIR          carry on the run in DIR that was interrupted: its\n"
"                        finished stages are kept, the others run from their\n"
"                        start (give the run's options again; the profile\n"
"                        defaults to DIR/profile.yaml)\n"
"  --rerun-failed DIR    after a repair: a new run (--out) of the racks that\n"
"                        did not pass in the finished run DIR, on every host\n"
"                        of theirs in its rack map, under its profile, its\n"
"                        --stages, --np and --ppn; its certificates name DIR's\n"
"                        run (the profile defaults to DIR/profile.yaml)\n"
"  --metrics FILE        the run's state and figures for Prometheus (text\n"
"                        format, node_exporter's textfile collector: written\n"
"                        to FILE.tmp and renamed), as stages and soak windows\n"
"                        end\n"
"  --progress            a progress line (stage, done of total, failures, ETA)\n"
"                        at least every 10 s even when stdout is not a\n"
"                        terminal; DIR/progress.json has the same always\n"
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

/* The cores online, not the CPUs allowed: a resume or a rerun under
 * another CPU set measures with the same ranks (where they outnumber the
 * CPUs allowed, fc_run_yield_if_crowded has them yield). */
static int fc_default_np(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    return cores < 2 ? 2 : cores > 8 ? 8 : (int)cores;
}

int fc_run_parse_count(const char *what, const char *text, int *out)
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

int fc_parse_run(int argc, char **argv, fc_run_opts_t *o)
{
    enum { O_PROFILE = 1, O_OUT, O_NP, O_PPN, O_MPIRUN, O_MPIRUN_ARG, O_ENV, O_LAUNCHER,
           O_HOSTS, O_RACKS, O_STAGES, O_STAGE_OPT, O_SELFTEST, O_SELFTEST_STAGE,
           O_SIGN_KEY, O_HELP, O_PROGRESS, O_RESUME, O_METRICS, O_RERUN, O_RACKS_FROM,
           O_RACK_LABEL };
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
        { "racks-from", required_argument, NULL, O_RACKS_FROM },
        { "rack-label", required_argument, NULL, O_RACK_LABEL },
        { "stages", required_argument, NULL, O_STAGES },
        { "sizes", required_argument, NULL, O_STAGE_OPT },
        { "iters", required_argument, NULL, O_STAGE_OPT },
        { "warmup", required_argument, NULL, O_STAGE_OPT },
        { "collectives", required_argument, NULL, O_STAGE_OPT },
        { "dtypes", required_argument, NULL, O_STAGE_OPT },
        { "ops", required_argument, NULL, O_STAGE_OPT },
        { "backend", required_argument, NULL, O_STAGE_OPT },
        { "soak-duration", required_argument, NULL, O_STAGE_OPT },
        { "contention-phase", required_argument, NULL, O_STAGE_OPT },
        { "selftest-corrupt", required_argument, NULL, O_SELFTEST },
        { "selftest-hang", required_argument, NULL, O_SELFTEST },
        { "selftest-stage", required_argument, NULL, O_SELFTEST_STAGE },
        { "sign-key", required_argument, NULL, O_SIGN_KEY },
        { "progress", no_argument, NULL, O_PROGRESS },
        { "resume", required_argument, NULL, O_RESUME },
        { "metrics", required_argument, NULL, O_METRICS },
        { "rerun-failed", required_argument, NULL, O_RERUN },
        { "help", no_argument, NULL, O_HELP },
        { NULL, 0, NULL, 0 },
    };
    static char names[FC_MAX_PASSTHRU][48];
    int c, index, nnames = 0, any_stage = 0;

    memset(o, 0, sizeof(*o));
    fc_path_shipped("../thresholds/local.yaml", "../share/fabcert/thresholds/local.yaml",
                    o->profile, sizeof(o->profile));
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
        case O_PROFILE:
            snprintf(o->profile, sizeof(o->profile), "%s", optarg);
            o->profile_given = 1;
            break;
        case O_OUT:
        case O_RESUME:
            if (o->out_dir[0] && strcmp(o->out_dir, optarg) != 0) {
                fprintf(stderr, "fabcert: --out and --resume name two directories "
                        "(%s, %s): a resumed run writes where it began\n", o->out_dir, optarg);
                return 2;
            }
            snprintf(o->out_dir, sizeof(o->out_dir), "%s", optarg);
            o->resume |= c == O_RESUME;
            break;
        case O_RERUN:
            if (optarg[0] == '\0' ||
                (size_t)snprintf(o->rerun_dir, sizeof(o->rerun_dir), "%s", optarg) >=
                    sizeof(o->rerun_dir) - 32) {
                fprintf(stderr, "fabcert: --rerun-failed: an empty or too long path\n");
                return 2;
            }
            break;
        case O_HOSTS: snprintf(o->hosts, sizeof(o->hosts), "%s", optarg); break;
        case O_RACKS: snprintf(o->racks, sizeof(o->racks), "%s", optarg); break;
        case O_RACKS_FROM:
            snprintf(o->racks_from, sizeof(o->racks_from), "%s", optarg);
            break;
        case O_RACK_LABEL: o->rack_label = optarg; break;
        case O_NP:
            if (fc_run_parse_count("--np", optarg, &o->np))
                return 2;
            o->np_arg = optarg;
            break;
        case O_PPN:
            if (fc_run_parse_count("--ppn", optarg, &o->ppn))
                return 2;
            o->ppn_arg = optarg;
            break;
        case O_MPIRUN: o->mpirun = optarg; o->mpirun_from = "--mpirun"; break;
        case O_SIGN_KEY: o->sign_key = optarg; break;
        case O_PROGRESS: o->progress = 1; break;
        case O_METRICS: snprintf(o->metrics, sizeof(o->metrics), "%s", optarg); break;
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
            /* a list that names no stage (",", "") or has an empty
             * entry ("node,,rack") is a typo, not "every stage" */
            if (optarg[0] == '\0' || optarg[0] == ',' || strstr(optarg, ",,") ||
                optarg[strlen(optarg) - 1] == ',') {
                fprintf(stderr, "fabcert: --stages: '%s' has an empty stage name: name "
                        "the stages, separated by commas (e.g. node,rack)\n", optarg);
                return 2;
            }
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
            if (c == O_STAGE_OPT && strcmp(longopts[index].name, "contention-phase") == 0) {
                double phase;

                if (fc_parse_duration("contention-phase", optarg, &phase) != FC_OK)
                    return 2;
            }
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
    if (o->racks[0] && o->racks_from[0]) {
        fprintf(stderr, "fabcert: --racks %s and --racks-from %s: give one rack map\n",
                o->racks, o->racks_from);
        return 2;
    }
    if (o->rack_label && strncmp(o->racks_from, "k8s", 3) != 0) {
        fprintf(stderr, "fabcert: --rack-label %s names a Kubernetes node label: give it "
                "with --racks-from k8s[:FILE]\n", o->rack_label);
        return 2;
    }
    if (o->rerun_dir[0] && (o->resume || o->hosts[0] || o->racks[0] || o->racks_from[0])) {
        fprintf(stderr, "fabcert: --rerun-failed %s: %s\n", o->rerun_dir, o->resume
                ? "--resume carries on an interrupted run; --rerun-failed starts a new one "
                  "(give one of them)"
                : "the hosts are those of the earlier run's racks that did not pass, and "
                  "its rack map: give no --hosts or --racks");
        return 2;
    }
    if (o->rerun_dir[0]) {
        char results[PATH_MAX + 32];

        snprintf(results, sizeof(results), "%s/results.jsonl", o->rerun_dir);
        if (access(results, R_OK) != 0) {
            fprintf(stderr, "fabcert: --rerun-failed %s: %s: %s: not a run's output "
                    "directory\n", o->rerun_dir, results, strerror(errno));
            return 2;
        }
    }
    /* a rerun is judged against the earlier run's profile: by default the
     * copy frozen in its directory */
    if (o->rerun_dir[0] && !o->profile_given)
        snprintf(o->profile, sizeof(o->profile), "%.*s/profile.yaml",
                 (int)sizeof(o->profile) - 16, o->rerun_dir);
    /* a resume is judged against the profile it began with: by default
     * the copy frozen in its directory */
    if (o->resume && !o->profile_given &&
        (size_t)snprintf(o->profile, sizeof(o->profile), "%.*s/profile.yaml",
                         (int)(sizeof(o->profile) - 16), o->out_dir) >= sizeof(o->profile) - 2) {
        fprintf(stderr, "fabcert: --resume: path too long\n");
        return 2;
    }
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

/* Every command-line option that changes what is measured or how, as
 * given: the certificate shows them beside the profile's hash, so a run
 * with overrides is never mistaken for the profile as written. */
json_t *fc_run_overrides(const fc_run_opts_t *o)
{
    json_t *ov = json_object();
    const char *const *pairs[2] = { o->stage_args, o->selftest_args };
    int npairs[2] = { o->nstage_args, o->nselftest_args };

    for (int k = 0; k < 2; ++k)
        for (int i = 0; i + 1 < npairs[k]; i += 2)
            json_object_set_new(ov, pairs[k][i], json_string(pairs[k][i + 1]));
    if (o->stages_arg[0])
        json_object_set_new(ov, "--stages", json_string(o->stages_arg));
    /* how many ranks measure: a node stage at --np 1 moves nothing
     * between ranks, a rack at --ppn 1 half as much as at 2 */
    if (o->np_arg)
        json_object_set_new(ov, "--np", json_string(o->np_arg));
    if (o->ppn_arg)
        json_object_set_new(ov, "--ppn", json_string(o->ppn_arg));
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

/* The file execvp would run for program: itself when it names a
 * directory, else the first executable of that name along $PATH; "" when
 * there is none. */
static void fc_run_resolve_program(const char *program, char *buf, size_t len)
{
    const char *path = getenv("PATH");
    char dir[PATH_MAX];

    buf[0] = '\0';
    if (strchr(program, '/') != NULL) {
        snprintf(buf, len, "%s", program);
        return;
    }
    /* execvp's default search path when PATH is unset */
    for (const char *p = path ? path : "/bin:/usr/bin"; *p; ) {
        size_t n = strcspn(p, ":");

        /* an empty entry is the current directory */
        snprintf(dir, sizeof(dir), "%.*s", (int)n, n ? p : ".");
        if ((size_t)snprintf(buf, len, "%s/%s", dir, program) < len &&
            access(buf, X_OK) == 0)
            return;
        p += n + (p[n] == ':');
    }
    buf[0] = '\0';
}

/* An Open MPI parameter file that sets something, into env as its path:
 * its settings ("btl = ^openib; pml = ucx", comments and blank lines
 * left out) and " (sha256 HEX)" of its bytes. A file that is not there,
 * or holds only comments (as packaged), shapes nothing and is left out. */
static void fc_run_mca_file(json_t *env, const char *path)
{
    char line[1024], text[2200] = "", hex[65] = "";
    size_t used = 0;
    FILE *f;

    if (path[0] == '\0' || json_object_get(env, path) || access(path, F_OK) != 0 ||
        (f = fc_input_fopen(path, "Open MPI parameter file", FC_INPUT_PROFILE_MAX)) == NULL)
        return;
    while (fgets(line, sizeof(line), f)) {
        char *p = line + strspn(line, " \t"), *end = p + strcspn(p, "\r\n");

        *end = '\0';
        if (*p == '\0' || *p == '#' || used + 3 >= 2000)
            continue;
        used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%.*s", used ? "; " : "",
                                 (int)(2000 - used), p);
        if (used > 2000)
            used = 2000;
    }
    fclose(f);
    if (used == 0 || fc_sha256_file(path, "Open MPI parameter file", hex) != FC_OK)
        return;
    snprintf(text + used, sizeof(text) - used, " (sha256 %s)", hex);
    json_object_set_new(env, path, json_string(text));
}

/* Open MPI's parameter files, which shape its transports as OMPI_MCA_*
 * variables do: $HOME/.openmpi/mca-params.conf, the installation's
 * openmpi-mca-params.conf (in $OPAL_SYSCONFDIR, $OPAL_PREFIX/etc, the
 * launcher's prefix's etc, or /etc/openmpi, the distributions' place) and
 * every file $OMPI_MCA_mca_param_files names. Read where the run is
 * launched: the other hosts' own files are theirs (their packages). */
static void fc_run_mca_files(json_t *env, const fc_run_opts_t *o)
{
    const char *home = getenv("HOME"), *files = getenv("OMPI_MCA_mca_param_files");
    const char *sysconf = getenv("OPAL_SYSCONFDIR"), *prefix = getenv("OPAL_PREFIX");
    char path[PATH_MAX + 64], launcher[PATH_MAX + 256], real[PATH_MAX];

    if (home && home[0]) {
        snprintf(path, sizeof(path), "%.*s/.openmpi/mca-params.conf", PATH_MAX, home);
        fc_run_mca_file(env, path);
    }
    if (sysconf && sysconf[0]) {
        snprintf(path, sizeof(path), "%.*s/openmpi-mca-params.conf", PATH_MAX, sysconf);
        fc_run_mca_file(env, path);
    }
    if (prefix && prefix[0]) {
        snprintf(path, sizeof(path), "%.*s/etc/openmpi-mca-params.conf", PATH_MAX, prefix);
        fc_run_mca_file(env, path);
    }
    /* PREFIX/bin/mpirun (through its links) gives PREFIX/etc */
    fc_run_resolve_program(o->mpirun, launcher, sizeof(launcher));
    if (launcher[0] && realpath(launcher, real) != NULL) {
        char *slash = strrchr(real, '/');

        if (slash && (*slash = '\0', slash = strrchr(real, '/')) != NULL) {
            *slash = '\0';
            snprintf(path, sizeof(path), "%.*s/etc/openmpi-mca-params.conf", PATH_MAX, real);
            fc_run_mca_file(env, path);
        }
    }
    fc_run_mca_file(env, "/etc/openmpi/openmpi-mca-params.conf");
    for (const char *p = files ? files : ""; *p; ) {
        size_t n = strcspn(p, ":");

        if (n > 0 && n < sizeof(path)) {
            snprintf(path, sizeof(path), "%.*s", (int)n, p);
            fc_run_mca_file(env, path);
        }
        p += n + (p[n] == ':');
    }
}

/* Variables of the launching environment that change what is measured or
 * how (Open MPI's, UCX's and NCCL's settings, the GPU plugin, preloaded
 * libraries, visible devices, fabcert's own FC_ hooks such as
 * FC_SYSFS_ROOT, which points preflight and the soak at another sysfs
 * tree), and Open MPI's parameter files: recorded in the plan, since they
 * are as much an override as a command-line option. */
json_t *fc_run_environment(const fc_run_opts_t *o)
{
    static const char *const prefixes[] = {
        "OMPI_MCA_", "UCX_", "NCCL_", "FABCERT_", "FC_", "CUDA_VISIBLE_DEVICES",
        "LD_PRELOAD", "LD_LIBRARY_PATH", "FI_", "PSM2_", "PATH=",
    };
    extern char **environ;
    json_t *env = json_object();

    for (char **e = environ; *e; ++e) {
        const char *eq = strchr(*e, '=');
        char name[256];

        if (eq == NULL || (size_t)(eq - *e) >= sizeof(name))
            continue;
        snprintf(name, sizeof(name), "%.*s", (int)(eq - *e), *e);
        /* a prefix ending in '=' is a whole name (PATH: where the
         * launcher and what it starts are found) */
        for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); ++k)
            if (strncmp(*e, prefixes[k], strlen(prefixes[k])) == 0)
                json_object_set_new(env, name, json_string(eq + 1));
    }
    fc_run_mca_files(env, o);
    return env;
}

json_t *fc_run_launch_json(const fc_run_opts_t *o)
{
    char resolved[PATH_MAX + 256], hex[65] = "";

    /* the launcher that really ran: a program of the same name earlier in
     * $PATH (a wrapper that changes the stages' options) is named here */
    fc_run_resolve_program(o->mpirun, resolved, sizeof(resolved));
    if (resolved[0] && fc_sha256_file(resolved, "launcher program", hex) != FC_OK)
        hex[0] = '\0';
    return json_pack("{s:s, s:s, s:i, s:s, s:s}", "launcher", o->srun ? "srun" : "mpirun",
                     "program", o->mpirun, fc_cluster_mode(o) ? "ranks_per_node" : "ranks",
                     fc_cluster_mode(o) ? o->ppn : o->np, "resolved", resolved,
                     "sha256", hex);
}
