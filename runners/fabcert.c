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
#define _GNU_SOURCE    /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <jansson.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_baseline.h"
#include "fc_cmds.h"
#include "fc_compare.h"
#include "fc_input.h"
#include "fc_launch.h"
#include "fc_plan.h"
#include "fc_progress.h"
#include "fc_report.h"
#include "fc_results.h"
#include "fc_run.h"
#include "fc_version.h"

/* every attempt the runner makes must be one the verdict follows */
_Static_assert(FC_RUN_MAX_ATTEMPTS <= FC_VERDICT_MAX_ATTEMPTS,
               "the verdict must follow every attempt of a stage the runner makes");

/* fc_cmd_run, step 1: the options, the profile (with --soak-duration
 * applied as the stage programs apply it to the same profile) and the
 * signing key. 0, or the exit status. */
static int fc_run_read_inputs(int argc, char **argv, fc_run_state_t *st)
{
    int rc;

    if ((rc = fc_parse_run(argc, argv, &st->o)) != 0 || (rc = fc_run_load_profile(st)) != 0)
        return rc;
    if (st->o.sign_key) {
        unsigned char sk[64];

        if (fc_key_load(st->o.sign_key, 1, sk, sizeof(sk)) != FC_OK)
            return 2;
        memset(sk, 0, sizeof(sk));
    }
    if (st->profile.require_signature && !st->o.sign_key) {
        fprintf(stderr, "fabcert: %s: the profile requires signed certificates "
                "(certificates: require_signature: true): give --sign-key KEY\n",
                st->o.profile);
        return 2;
    }
    return 0;
}

/* More ranks on this machine than CPUs this process may use (a cpuset, a
 * taskset, or --np past the cores): Open MPI counts its slots from the
 * cores it sees, not from the CPUs the ranks may use, so it does not know
 * they are crowded, and a rank that polls without yielding holds the CPU
 * the rank it waits for needs: the quick start's node stage, 2 ranks on 1
 * CPU, took 102 s and failed 28 of 252 checks; told to yield, 7.5 s and
 * PASS. Made before a resume compares the environment with its plan's,
 * and before the plan records it; a setting of the user's (exported,
 * --env, or an MCA option to the launcher) is left as it is. Sets
 * st->crowded to the CPUs where it told them. */
static void fc_run_yield_if_crowded(fc_run_state_t *st)
{
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;

    if (cpus < 1 || !st->o.local || st->o.srun || st->o.np <= cpus ||
        getenv("OMPI_MCA_mpi_yield_when_idle"))
        return;
    for (int k = 0; k < st->o.nmpirun_args; ++k)
        if (strstr(st->o.mpirun_args[k], "mpi_yield_when_idle"))
            return;
    setenv("OMPI_MCA_mpi_yield_when_idle", "1", 1);
    st->crowded = cpus;
}

static void fc_run_say_crowded(const fc_run_state_t *st)
{
    if (st->crowded)
        printf("ranks: %d on the %d CPU(s) this process may use: they yield while they wait "
               "(OMPI_MCA_mpi_yield_when_idle=1)\n", st->o.np, st->crowded);
}

/* The inputs frozen into the output directory, or a resumed run's
 * checked against them, once the inventory has said whether this machine
 * runs alone (and so whether its ranks must yield). */
static fc_status_t fc_run_settle_inputs(fc_run_state_t *st)
{
    fc_run_yield_if_crowded(st);
    return st->o.resume ? fc_run_resume_check(st) : fc_run_freeze_inputs(st);
}

/* Step 2: the run's output directory and results.jsonl (never two runs
 * in one: verdicts come from all of it), the inventory checked and the
 * inputs frozen beside the results; every host starts healthy. With
 * --resume, the run that began there: its id, plan and records, and its
 * frozen inputs checked against this command line's. 0, or 2 (then no
 * half run is left, and a resumed run's own files stay as they were). */
static int fc_run_open_output(fc_run_state_t *st)
{
    int created = 0;    /* the directory is this run's: removed on refusal */

    if (st->o.resume) {
        if (fc_run_resume_open(st) != 0)
            return 2;
    } else {
        /* a rerun reads the earlier run first: a refusal writes nothing */
        if (st->o.rerun_dir[0] && fc_run_rerun_open(st) != 0)
            return 2;
        snprintf(st->o.run_id, sizeof(st->o.run_id), "%ld-%d", (long)time(NULL),
                 (int)getpid());
        if (st->o.out_dir[0] == '\0')
            snprintf(st->o.out_dir, sizeof(st->o.out_dir), "fabcert-out/%s", st->o.run_id);
        created = access(st->o.out_dir, F_OK) != 0;
        if (fc_mkdir_p(st->o.out_dir) != FC_OK)
            return 2;
        snprintf(st->results_path, sizeof(st->results_path), "%s/results.jsonl",
                 st->o.out_dir);
        if (fc_run_claim_results(st) != 0)
            return 2;
    }
    if ((st->o.rerun_dir[0] && fc_run_rerun_inputs(st) != 0) ||
        fc_run_load_inventory(st) != FC_OK ||
        (st->o.rerun_dir[0] && fc_run_rerun_check_hosts(st) != 0) ||
        fc_check_background_hosts(st) != 0 ||
        fc_run_check_rack_names(&st->inv) != 0 ||
        fc_run_settle_inputs(st) != FC_OK) {
        char left[PATH_MAX + 32];

        snprintf(left, sizeof(left), "%s/hosts.resume", st->o.out_dir);
        if (st->o.resume) {
            unlink(left);
            snprintf(left, sizeof(left), "%s/racks.resume", st->o.out_dir);
            unlink(left);
        }
        else
            unlink(st->results_path);   /* nothing was run: no half run left */
        if (st->o.rerun_dir[0] || created) {   /* the host list it wrote for the rerun */
            snprintf(left, sizeof(left), "%s/hosts", st->o.out_dir);
            unlink(left);
        }
        if (created) {  /* and what it froze there: a refusal leaves nothing */
            snprintf(left, sizeof(left), "%s/racks", st->o.out_dir);
            unlink(left);
            snprintf(left, sizeof(left), "%s/profile.yaml", st->o.out_dir);
            unlink(left);
            rmdir(st->o.out_dir);
        }
        return 2;
    }
    fc_print_left_out(&st->inv);
    st->healthy = fc_xcalloc((size_t)st->inv.nhosts, sizeof(int), "the healthy hosts");
    st->quarantined = fc_xcalloc((size_t)st->inv.nhosts, sizeof(int), "the quarantined hosts");
    for (int h = 0; h < st->inv.nhosts; ++h)
        st->healthy[h] = 1;
    return 0;
}

/* A self-test on a rank that a stage it goes to does not have would never
 * fire there: refused before anything runs (a quarantine that shrinks a
 * stage later is the stage's to record: not certified). 0, or 2. */
static int fc_run_check_selftest(const fc_run_state_t *st)
{
    if (fc_selftest_rank(&st->o) < 0)
        return 0;
    for (int k = 0; k < FC_STAGE_COUNT; ++k) {
        int ranks = fc_stage_ranks_planned(st, (fc_stage_id_t)k, st->inv.nhosts);

        if (!st->profile.stages[k].present || !st->o.stages[k] ||
            (st->o.selftest_stage >= 0 && st->o.selftest_stage != k) ||
            st->inv.nhosts < fc_stage_desc((fc_stage_id_t)k)->min_hosts ||
            fc_selftest_rank(&st->o) < ranks)
            continue;
        fprintf(stderr, "fabcert: a self-test on rank %d: the %s stage has ranks 0 to %d "
                "only, so it would never fire there (aim it with --selftest-stage, or "
                "give a lower rank)\n", fc_selftest_rank(&st->o),
                fc_stage_name((fc_stage_id_t)k), ranks - 1);
        return 2;
    }
    return 0;
}

/* Step 3: the plan's stages, in the stage table's order: every stage of
 * the profile, those --stages leaves out marked (a required one among
 * them is INCOMPLETE); each selected stage's program must be there, and
 * one stage at least selected. The list, or NULL (exit 2, said why). */
static json_t *fc_run_plan_stages(const fc_run_state_t *st)
{
    json_t *stages = json_array();
    char exe[PATH_MAX];
    int nselected = 0;

    for (int k = 0; k < FC_STAGE_COUNT; ++k) {
        fc_stage_id_t s = (fc_stage_id_t)k;

        if (!st->profile.stages[s].present)
            continue;
        json_array_append_new(stages, json_pack("{s:s, s:b, s:f, s:b}", "name",
            fc_stage_name(s), "required", st->profile.stages[s].required,
            "timeout_s", st->profile.stages[s].timeout_s, "selected", st->o.stages[s]));
        if (!st->o.stages[s])
            continue;
        ++nselected;
        fc_path_program(fc_stage_name(s), exe, sizeof(exe));
        if (access(exe, X_OK) != 0) {
            fprintf(stderr, "fabcert: stage program %s is missing: %s (run make)\n",
                    exe, strerror(errno));
            json_decref(stages);
            return NULL;
        }
    }
    if (nselected == 0) {
        if (json_array_size(stages) > 0)
            fprintf(stderr, "fabcert: --stages %s: the profile %s has none of these "
                    "stages\n", st->o.stages_arg, st->o.profile);
        else
            fprintf(stderr, "fabcert: %s:1:1: the profile names no stage to run\n",
                    st->o.profile);
        json_decref(stages);
        return NULL;
    }
    if (fc_run_check_selftest(st) != 0) {
        json_decref(stages);
        return NULL;
    }
    return stages;
}

/* Step 4: run.json and the plan record, the first line of results.jsonl:
 * the stages, the inventory, the profile, every override and the
 * environment, the inputs and the launcher. A resumed run has its plan:
 * what it keeps and what it runs again (the resume record). 0, or 2. */
static int fc_run_write_plan(fc_run_state_t *st, json_t *stages)
{
    json_t *plan;

    if (st->o.resume ? fc_run_resume_plan(st) != 0 : fc_write_run_json(st, stages) != 0)
        return 2;
    if (geteuid() == 0) {
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    }
    if (st->o.resume) {
        fc_run_say_crowded(st);
        return 0;
    }
    plan = fc_run_record(st, "plan", NULL);
    json_object_set_new(plan, "stages", json_deep_copy(stages));
    json_object_set_new(plan, "inventory", fc_inventory_json(&st->inv));
    json_object_set_new(plan, "profile", json_string(st->profile.name));
    json_object_set_new(plan, "profile_sha256", json_string(st->profile.sha256));
    json_object_set_new(plan, "version", json_string(FC_VERSION));
    if (st->profile.require_signature)  /* `report` refuses unsigned certificates */
        json_object_set_new(plan, "require_signature", json_true());
    if (st->o.soak_duration > 0)        /* the profile's hash alone would not say it */
        json_object_set_new(plan, "soak_duration_s", json_real(st->o.soak_duration));
    json_object_set_new(plan, "overrides", fc_run_overrides(&st->o));
    json_object_set_new(plan, "environment", fc_run_environment(&st->o));
    json_object_set_new(plan, "inputs", json_pack("{s:s, s:s, s:s}", "profile",
                        st->o.profile_source, "hosts", st->o.hosts_source, "racks",
                        st->o.racks_source));
    json_object_set_new(plan, "launch", fc_run_launch_json(&st->o));
    if (st->rerun_of)   /* the earlier run, named in every report */
        json_object_set_new(plan, "rerun_of", json_deep_copy(st->rerun_of));
    fc_append(st, plan);
    printf("fabcert %s: run %s, %d host(s) in %d rack(s), profile %s\n",
           FC_VERSION, st->o.run_id, st->inv.nhosts, st->inv.nracks, st->profile.name);
    fc_run_say_crowded(st);
    if (st->rerun_of) {
        char text[1024];

        fc_rerun_text(st->rerun_of, text, sizeof(text));
        fc_print_line(stdout, "%s", text);
    }
    fflush(stdout);
    return 0;
}

/* Step 5: each selected stage in the table's order (a resumed run's kept
 * ones left as they are), a hung one once more without the hosts it
 * blamed (fc_run_stage), none after an interrupt; progress followed from
 * results.jsonl as it grows. 0, 2 (bad input a stage found), or 3 (a
 * write under --out failed, said: fc_run_write_check). */
static int fc_run_stages(fc_run_state_t *st)
{
    fc_launch_catch_signals();
    /* a resume's own record is followed too (the metrics take it in) */
    st->progress = fc_progress_open(st, st->o.resume ? st->prior_bytes
                                                     : fc_file_size(st->results_path),
                                    st->o.progress || isatty(STDOUT_FILENO));
    fc_launch_set_tick(fc_progress_tick, st->progress);
    for (int k = 0; k < FC_STAGE_COUNT; ++k) {
        fc_stage_id_t s = (fc_stage_id_t)k;     /* the stage table's order */
        int hung = 0, attempt;
        double t0 = fc_monotonic_s();

        if (!st->profile.stages[s].present || !st->o.stages[s] || st->kept[s])
            continue;
        if (fc_launch_interrupted()) {
            printf("stage %s: not run: the run was interrupted\n", fc_stage_name(s));
            continue;
        }
        for (attempt = 1; attempt <= FC_RUN_MAX_ATTEMPTS; ++attempt) {
            int rc;

            fc_progress_stage(st->progress, s, attempt);
            if (fc_run_write_check(st, ""))
                return 3;
            if ((rc = fc_run_stage(st, s, attempt, &hung)) != 0)
                return rc;
            if (!hung || fc_launch_interrupted())
                break;
        }
        /* the runner is done with the stage (its attempts, retest and
         * quarantines): a resume keeps it; an interrupted one it runs again */
        if (!fc_launch_interrupted()) {
            json_t *done = fc_run_record(st, "stage_done", fc_stage_name(s));

            json_object_set_new(done, "attempts", json_integer(attempt > FC_RUN_MAX_ATTEMPTS
                                                               ? FC_RUN_MAX_ATTEMPTS : attempt));
            /* the runner's wall time on it, launches included (`fabcert
             * plan --from` puts it beside the model's estimate) */
            json_object_set_new(done, "seconds", json_real(fc_monotonic_s() - t0));
            fc_append(st, done);
        }
        fflush(stdout);
    }
    return 0;
}

/* `fabcert run`: the steps above, then the verdicts from results.jsonl
 * (reports/fc_report.h). 0 every rack passed, 1 not (or a write under
 * --out failed: a full disk is not bad input), 2 bad input. */
static int fc_cmd_run(int argc, char **argv)
{
    fc_run_state_t st;
    fc_verdict_t overall = FC_VERDICT_INCOMPLETE;
    json_t *stages;
    int rc;

    memset(&st, 0, sizeof(st));
    if ((rc = fc_run_read_inputs(argc, argv, &st)) != 0)
        return rc;
    if ((rc = fc_run_open_output(&st)) != 0)
        return fc_run_write_check(&st, NULL) ? 1 : rc;
    if ((stages = fc_run_plan_stages(&st)) == NULL)
        return fc_run_write_check(&st, NULL) ? 1 : 2;
    rc = fc_run_write_plan(&st, stages);
    /* what the run will do and leave out, and how long it may take */
    if (rc == 0 && !st.o.resume && fc_run_plan_start(&st) != 0)
        rc = fc_run_write_check(&st, NULL) ? 3 : 0;
    if (rc == 0 && fc_run_write_check(&st, ""))
        rc = 3;
    if (rc == 0)
        rc = fc_run_stages(&st);
    json_decref(stages);
    if (rc == 2 && fc_run_write_check(&st, NULL))
        rc = 3;
    if (rc != 0)
        return rc == 3 ? 1 : rc;
    printf("\n");
    {
        json_t *racks = NULL;

        fc_launch_set_tick(NULL, NULL);
        rc = fc_report_dir_racks(st.o.out_dir, st.o.sign_key, 0, &overall, &racks) == FC_OK
                 ? (overall == FC_VERDICT_PASS ? 0 : 1) : 2;
        /* a report, certificate or page that could not be written */
        if (fc_run_write_check(&st, NULL))
            rc = 1;
        fc_progress_close(st.progress, fc_launch_interrupted() ? "interrupted" : "finished",
                          rc == 2 ? "" : fc_verdict_name(overall), racks);
        json_decref(racks);
    }
    printf("output: %s\n", st.o.out_dir);
    fc_inventory_free(&st.inv);
    free(st.hosts_text);
    free(st.racks_text);
    free(st.healthy);
    free(st.quarantined);
    json_decref(st.prior);
    json_decref(st.prior_plan);
    json_decref(st.rerun_of);
    json_decref(st.rerun_hosts);
    return rc;
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

/* A percentage option: a number in [lo, hi). */
static int fc_parse_pct(const char *opt, const char *text, double lo, double hi, double *out)
{
    char *end = NULL;
    double v = strtod(text, &end);

    if (end == text || *end != '\0' || !(v >= lo && v < hi)) {
        fprintf(stderr, "fabcert: %s %s: a percentage from %g to below %g\n", opt, text,
                lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int fc_cmd_compare(int argc, char **argv)
{
    const char *dirs[2] = { NULL, NULL };
    char out[4200] = "";
    double conf = 95, power = 80, floor_pct = 5;
    fc_compare_opts_t o = { 0 };
    fc_verdict_t overall = FC_VERDICT_INCOMPLETE;
    int n = 0;

    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];

        if (i + 1 < argc && !strcmp(a, "--out"))
            snprintf(out, sizeof(out), "%s", argv[++i]);
        else if (i + 1 < argc && !strcmp(a, "--sign-key"))
            o.sign_key = argv[++i];
        else if (i + 1 < argc && !strcmp(a, "--confidence")) {
            if (fc_parse_pct(a, argv[++i], 50, 100, &conf) != 0)
                return 2;
        } else if (i + 1 < argc && !strcmp(a, "--power")) {
            if (fc_parse_pct(a, argv[++i], 50, 100, &power) != 0)
                return 2;
        } else if (i + 1 < argc && !strcmp(a, "--min-slowdown")) {
            if (fc_parse_pct(a, argv[++i], 0, 1000, &floor_pct) != 0)
                return 2;
        } else if (a[0] != '-' && n < 2)
            dirs[n++] = a;
        else
            n = 3, i = argc;
    }
    if (n != 2) {
        fprintf(stderr, "usage: fabcert compare BEFORE AFTER [--out DIR] [--sign-key KEY] "
                "[--confidence PCT] [--power PCT] [--min-slowdown PCT]\n");
        return 2;
    }
    o.alpha = 1 - conf / 100;
    o.power = power / 100;
    o.min_slowdown = floor_pct / 100;
    if (out[0] == '\0') {
        const char *b = strrchr(dirs[0], '/'), *a = strrchr(dirs[1], '/');

        snprintf(out, sizeof(out), "fabcert-out/compare-%s-vs-%s", b && b[1] ? b + 1 : dirs[0],
                 a && a[1] ? a + 1 : dirs[1]);
    }
    o.out_dir = out;
    if (fc_compare_dirs(dirs[0], dirs[1], &o, &overall) != FC_OK)
        return 2;
    printf("delta certificates: %s/certificates/, report: %s/index.html\n", out, out);
    return overall == FC_VERDICT_PASS ? 0 : 1;
}

static int fc_cmd_baseline(int argc, char **argv)
{
    const char **dirs = fc_xcalloc((size_t)argc + 1, sizeof(*dirs), "the run directories"),
               *out = NULL, *name = NULL;
    double margin = 10;
    int n = 0, bad = 0, rc;

    for (int i = 1; i < argc && !bad; ++i) {
        if (i + 1 < argc && !strcmp(argv[i], "--out"))
            out = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--name"))
            name = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--margin"))
            bad = fc_parse_pct("--margin", argv[++i], 0, 1000, &margin) != 0;
        else if (argv[i][0] != '-')
            dirs[n++] = argv[i];
        else
            bad = 1;
    }
    if (bad || n == 0 || out == NULL) {
        fprintf(stderr, "usage: fabcert baseline RUN_DIR... --out PROFILE.yaml [--margin PCT] "
                "[--name NAME]\n");
        free(dirs);
        return 2;
    }
    rc = fc_baseline_derive(dirs, n, out, margin / 100, name) == FC_OK ? 0 : 2;
    free(dirs);
    return rc;
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

/* The version, and where this copy runs from: the program, its stage
 * programs, the shipped profiles and the GPU plugin (a build tree or an
 * installed copy; a site with several copies on a shared filesystem
 * sees which one answered). */
static int fc_cmd_version(void)
{
    char exe[PATH_MAX], node[PATH_MAX], profile[PATH_MAX], plugin[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

    exe[n > 0 ? n : 0] = '\0';
    fc_path_program("node", node, sizeof(node));
    fc_path_shipped("../thresholds/local.yaml", "../share/fabcert/thresholds/local.yaml",
                    profile, sizeof(profile));
    fc_path_shipped("libfabcert_gpu.so", "../libexec/fabcert/libfabcert_gpu.so", plugin,
                    sizeof(plugin));
    printf("fabcert %s\n", FC_VERSION);
    printf("program: %s\n", exe[0] ? exe : "(unknown: /proc/self/exe unreadable)");
    printf("stage programs: %.*s%s\n", (int)(strlen(node) - strlen("/node")), node,
           access(node, X_OK) == 0 ? "" : " (missing: run make, or make install)");
    printf("default profile: %s%s\n", profile, access(profile, R_OK) == 0 ? "" : " (missing)");
    printf("gpu plugin: %s%s\n", plugin, access(plugin, R_OK) == 0 ? ""
           : " (not there: built only where CUDA and NCCL are found)");
    return 0;
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
    if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0)
        return fc_cmd_version();
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
    if (strcmp(argv[1], "topology") == 0)
        return fc_cmd_topology(argc - 1, argv + 1);
    if (strcmp(argv[1], "k8s") == 0)
        return fc_cmd_k8s(argc - 1, argv + 1);
    if (strcmp(argv[1], "run") == 0)
        return fc_cmd_run(argc - 1, argv + 1);
    if (strcmp(argv[1], "plan") == 0)
        return fc_cmd_plan(argc - 1, argv + 1);
    if (strcmp(argv[1], "report") == 0)
        return fc_cmd_report(argc - 1, argv + 1);
    if (strcmp(argv[1], "verify") == 0)
        return fc_cmd_verify(argc - 1, argv + 1);
    if (strcmp(argv[1], "compare") == 0)
        return fc_cmd_compare(argc - 1, argv + 1);
    if (strcmp(argv[1], "baseline") == 0)
        return fc_cmd_baseline(argc - 1, argv + 1);
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
