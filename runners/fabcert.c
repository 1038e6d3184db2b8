/*
 * fabcert.c - the `fabcert` command: runs a plan of stages and says what it
 * found. Today's plan is the node stage on this machine (a one-node
 * cluster): `fabcert run` with no arguments validates the default profile,
 * makes an output directory, launches the stage under mpirun with the
 * stage's timeout (the whole process group is killed if it runs over),
 * keeps the stage's TAP beside results.jsonl, and prints the verdict read
 * back from results.jsonl: PASS, FAIL, or INCOMPLETE when the stage did not
 * finish. Exit status: 0 pass, 1 fail or incomplete, 2 bad usage or input.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fc_profile.h"
#include "fc_results.h"
#include "fc_version.h"

#define FC_MAX_PASSTHRU 64
/* mpirun's own start-up and tear-down, on top of a stage's timeout */
#define FC_LAUNCH_MARGIN_S 10

typedef struct fc_run_opts {
    char profile[PATH_MAX];
    char out_dir[PATH_MAX];
    char run_id[64];
    int np;                         /* ranks; 0: this machine's cores */
    const char *mpirun;             /* launcher */
    const char *mpirun_args[FC_MAX_PASSTHRU];   /* --mpirun-arg, in order */
    int nmpirun_args;
    const char *stage_args[FC_MAX_PASSTHRU];    /* options for the stage */
    int nstage_args;
} fc_run_opts_t;

/* What the stage left in results.jsonl. */
typedef struct fc_stage_tally {
    int points, failed;
    int ended;                      /* a stage_end record was written */
    char end_verdict[16];
} fc_stage_tally_t;

static void fc_usage(FILE *out)
{
    fprintf(out,
"usage: fabcert run [options]     certify this machine (node stage)\n"
"       fabcert check-profile FILE\n"
"                                 validate a threshold profile, print its hash\n"
"       fabcert version           print the version\n"
"       fabcert --help            this text\n"
"\n"
"run options:\n"
"  --profile FILE        threshold profile (default: thresholds/local.yaml)\n"
"  --out DIR             output directory (default: fabcert-out/RUN_ID)\n"
"  --np N                MPI ranks (default: this machine's cores, 2 to 8)\n"
"  --mpirun PATH         launcher (default: $FABCERT_MPIRUN or mpirun)\n"
"  --mpirun-arg ARG      pass ARG to mpirun (repeat: --mpirun-arg --mca\n"
"                        --mpirun-arg btl --mpirun-arg self,vader)\n"
"  --sizes LIST, --iters N, --warmup N, --collectives LIST, --dtypes LIST,\n"
"  --ops LIST            override the profile's sweep for this run\n"
"  --selftest-corrupt rank=R,iter=I[,index=K][,bit=B][,coll=NAME]\n"
"                        flip one output bit to prove the checker catches it\n"
"\n"
"The output directory holds run.json, results.jsonl (one JSON record per\n"
"measurement, flushed as made) and node.tap (the stage's TAP stream).\n"
"Running as root sets OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM)=1 for mpirun.\n"
"\n"
"exit status: 0 every check passed; 1 a check failed, or a stage did not\n"
"finish (INCOMPLETE); 2 bad usage or input (nothing was certified).\n");
}

static int fc_default_np(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    return cores < 2 ? 2 : cores > 8 ? 8 : (int)cores;
}

static int fc_parse_run(int argc, char **argv, fc_run_opts_t *o)
{
    enum { O_PROFILE = 1, O_OUT, O_NP, O_MPIRUN, O_MPIRUN_ARG, O_STAGE_OPT,
           O_HELP };
    static const struct option longopts[] = {
        { "profile", required_argument, NULL, O_PROFILE },
        { "out", required_argument, NULL, O_OUT },
        { "np", required_argument, NULL, O_NP },
        { "mpirun", required_argument, NULL, O_MPIRUN },
        { "mpirun-arg", required_argument, NULL, O_MPIRUN_ARG },
        { "sizes", required_argument, NULL, O_STAGE_OPT },
        { "iters", required_argument, NULL, O_STAGE_OPT },
        { "warmup", required_argument, NULL, O_STAGE_OPT },
        { "collectives", required_argument, NULL, O_STAGE_OPT },
        { "dtypes", required_argument, NULL, O_STAGE_OPT },
        { "ops", required_argument, NULL, O_STAGE_OPT },
        { "selftest-corrupt", required_argument, NULL, O_STAGE_OPT },
        { "help", no_argument, NULL, O_HELP },
        { NULL, 0, NULL, 0 },
    };
    int c, index;
    char *end;

    memset(o, 0, sizeof(*o));
    fc_path_beside_exe("../thresholds/local.yaml", o->profile, sizeof(o->profile));
    o->mpirun = getenv("FABCERT_MPIRUN") ? getenv("FABCERT_MPIRUN") : "mpirun";
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, &index)) != -1) {
        switch (c) {
        case O_PROFILE: snprintf(o->profile, sizeof(o->profile), "%s", optarg); break;
        case O_OUT: snprintf(o->out_dir, sizeof(o->out_dir), "%s", optarg); break;
        case O_NP:
            o->np = (int)strtol(optarg, &end, 10);
            if (*end != '\0' || o->np < 1 || o->np > 100000) {
                fprintf(stderr, "fabcert: --np '%s': expected a rank count\n", optarg);
                return 2;
            }
            break;
        case O_MPIRUN: o->mpirun = optarg; break;
        case O_MPIRUN_ARG:
        case O_STAGE_OPT:
            if (o->nmpirun_args == FC_MAX_PASSTHRU || o->nstage_args + 2 > FC_MAX_PASSTHRU) {
                fprintf(stderr, "fabcert: too many options\n");
                return 2;
            }
            if (c == O_MPIRUN_ARG) {
                o->mpirun_args[o->nmpirun_args++] = optarg;
            } else {
                static char names[FC_MAX_PASSTHRU][48];

                snprintf(names[o->nstage_args], sizeof(names[0]), "--%s",
                         longopts[index].name);
                o->stage_args[o->nstage_args] = names[o->nstage_args];
                o->stage_args[o->nstage_args + 1] = optarg;
                o->nstage_args += 2;
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
    if (o->np == 0)
        o->np = fc_default_np();
    return 0;
}

static int fc_write_run_json(const fc_run_opts_t *o, const fc_profile_t *p,
                             const char *stage_path)
{
    char path[PATH_MAX + 16], now[32], host[256] = "";
    time_t t = time(NULL);
    struct tm tm;
    json_t *meta;
    int rc;

    gmtime_r(&t, &tm);
    strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
    gethostname(host, sizeof(host) - 1);
    meta = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:[s]}",
                     "run_id", o->run_id, "version", FC_VERSION, "started", now,
                     "launch_host", host, "profile", p->name, "profile_path",
                     p->path, "ranks", o->np, "profile_sha256", p->sha256,
                     "launcher", o->mpirun, "stages", "node");
    json_object_set_new(meta, "stage_program", json_string(stage_path));
    snprintf(path, sizeof(path), "%s/run.json", o->out_dir);
    rc = json_dump_file(meta, path, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(meta);
    if (rc != 0)
        fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
    return rc;
}

/* Launch argv with stdout into tap_path; kill the process group after
 * timeout_s. Returns the exit status, or -1 on timeout, -2 if it could
 * not be started. */
static int fc_launch(char *const argv[], const char *tap_path, double timeout_s)
{
    int pipefd[2], status = 0;
    FILE *tap = fopen(tap_path, "w");
    struct timespec start, now;
    pid_t pid;

    if (tap == NULL || pipe(pipefd) != 0) {
        fprintf(stderr, "fabcert: cannot create %s: %s\n", tap_path, strerror(errno));
        if (tap)
            fclose(tap);
        return -2;
    }
    pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        dup2(pipefd[1], STDOUT_FILENO);
        close(pipefd[0]);
        close(pipefd[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "fabcert: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(pipefd[1]);
    setpgid(pid, pid);
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        struct pollfd pfd = { pipefd[0], POLLIN, 0 };
        double elapsed;
        char buf[8192];

        clock_gettime(CLOCK_MONOTONIC, &now);
        elapsed = (double)(now.tv_sec - start.tv_sec) +
                  (double)(now.tv_nsec - start.tv_nsec) * 1e-9;
        if (elapsed > timeout_s) {
            fprintf(stderr, "fabcert: the stage ran past its timeout of %.0f s; "
                    "killing it\n", timeout_s);
            kill(-pid, SIGTERM);
            sleep(2);
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            status = -1;
            break;
        }
        if (poll(&pfd, 1, 500) > 0) {
            ssize_t n = read(pipefd[0], buf, sizeof(buf));

            if (n > 0) {
                fwrite(buf, 1, (size_t)n, tap);
                fflush(tap);
                continue;
            }
            waitpid(pid, &status, 0);
            status = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
            break;
        }
    }
    close(pipefd[0]);
    fclose(tap);
    return status;
}

static void fc_tally_stage(const char *results_path, const char *stage,
                           fc_stage_tally_t *t)
{
    FILE *f = fopen(results_path, "r");
    char *line = NULL;
    size_t cap = 0;
    int shown = 0;

    memset(t, 0, sizeof(*t));
    if (f == NULL)
        return;
    while (getline(&line, &cap, f) > 0) {
        json_t *rec = json_loads(line, 0, NULL);
        const char *type, *st, *verdict;

        if (rec == NULL)
            continue;       /* a record cut off by a kill */
        type = json_string_value(json_object_get(rec, "type"));
        st = json_string_value(json_object_get(rec, "stage"));
        verdict = json_string_value(json_object_get(rec, "verdict"));
        if (type && st && strcmp(st, stage) == 0) {
            if (strcmp(type, "point") == 0) {
                t->points++;
                if (verdict && strcmp(verdict, "PASS") != 0) {
                    json_t *reasons = json_object_get(rec, "reasons");

                    t->failed++;
                    if (shown++ < 10)
                        printf("  FAIL %s %s %s %lld bytes on host %s: %s\n",
                               json_string_value(json_object_get(rec, "collective")),
                               json_string_value(json_object_get(rec, "dtype")),
                               json_string_value(json_object_get(rec, "op")),
                               (long long)json_integer_value(json_object_get(rec, "bytes")),
                               json_string_value(json_object_get(rec, "host")),
                               json_string_value(json_array_get(reasons, 0)));
                }
            } else if (strcmp(type, "stage_end") == 0) {
                t->ended = 1;
                snprintf(t->end_verdict, sizeof(t->end_verdict), "%s",
                         verdict ? verdict : "");
            }
        }
        json_decref(rec);
    }
    if (shown > 10)
        printf("  ... and %d more failures in %s\n", shown - 10, results_path);
    free(line);
    fclose(f);
}

static int fc_cmd_run(int argc, char **argv)
{
    fc_run_opts_t o;
    fc_profile_t profile;
    fc_stage_tally_t tally;
    char stage_path[PATH_MAX], tap_path[PATH_MAX + 16], results_path[PATH_MAX + 16];
    char np[16];
    const char *args[3 * FC_MAX_PASSTHRU + 32];
    int nargs = 0, rc;
    const char *verdict;

    if ((rc = fc_parse_run(argc, argv, &o)) != 0)
        return rc;
    if (fc_profile_load(o.profile, &profile) != FC_OK)
        return 2;
    if (!profile.stages[FC_STAGE_NODE].present) {
        fprintf(stderr, "fabcert: %s:1:1: the profile has no 'node' stage\n", o.profile);
        return 2;
    }
    snprintf(o.run_id, sizeof(o.run_id), "%ld-%d", (long)time(NULL), (int)getpid());
    if (o.out_dir[0] == '\0')
        snprintf(o.out_dir, sizeof(o.out_dir), "fabcert-out/%s", o.run_id);
    if (fc_mkdir_p(o.out_dir) != FC_OK)
        return 2;
    fc_path_beside_exe("suites/node", stage_path, sizeof(stage_path));
    if (access(stage_path, X_OK) != 0) {
        fprintf(stderr, "fabcert: stage program %s is missing: %s (run make)\n",
                stage_path, strerror(errno));
        return 2;
    }
    if (fc_write_run_json(&o, &profile, stage_path) != 0)
        return 2;
    if (geteuid() == 0) {
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    }

    snprintf(np, sizeof(np), "%d", o.np);
    args[nargs++] = o.mpirun;
    args[nargs++] = "--oversubscribe";
    args[nargs++] = "--bind-to";
    args[nargs++] = "none";
    args[nargs++] = "-np";
    args[nargs++] = np;
    for (int i = 0; i < o.nmpirun_args; ++i)
        args[nargs++] = o.mpirun_args[i];
    args[nargs++] = stage_path;
    args[nargs++] = "--profile";
    args[nargs++] = o.profile;
    args[nargs++] = "--out";
    args[nargs++] = o.out_dir;
    args[nargs++] = "--run-id";
    args[nargs++] = o.run_id;
    for (int i = 0; i < o.nstage_args; ++i)
        args[nargs++] = o.stage_args[i];
    args[nargs] = NULL;

    printf("fabcert %s: run %s, node stage, %d ranks, profile %s\n",
           FC_VERSION, o.run_id, o.np, profile.name);
    fflush(stdout);
    snprintf(tap_path, sizeof(tap_path), "%s/node.tap", o.out_dir);
    snprintf(results_path, sizeof(results_path), "%s/results.jsonl", o.out_dir);
    rc = fc_launch((char *const *)args, tap_path,
                   profile.stages[FC_STAGE_NODE].timeout_s + FC_LAUNCH_MARGIN_S);
    if (rc == 2) {
        fprintf(stderr, "fabcert: the node stage rejected its input (see above)\n");
        return 2;
    }
    fc_tally_stage(results_path, "node", &tally);
    if (tally.failed > 0 || (tally.ended && strcmp(tally.end_verdict, "PASS") != 0))
        verdict = "FAIL";
    else if (!tally.ended || rc != 0)
        verdict = "INCOMPLETE";
    else
        verdict = "PASS";
    printf("node stage: %s (%d checks, %d failed%s)\n", verdict, tally.points,
           tally.failed,
           rc == -1 ? ", timed out" : !tally.ended ? ", did not finish" : "");
    printf("output: %s\n", o.out_dir);
    printf("verdict: %s\n", verdict);
    return strcmp(verdict, "PASS") == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fc_usage(stderr);
        return 2;
    }
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
    if (strcmp(argv[1], "run") == 0)
        return fc_cmd_run(argc - 1, argv + 1);
    fprintf(stderr, "fabcert: unknown command '%s' (try fabcert --help)\n", argv[1]);
    return 2;
}
