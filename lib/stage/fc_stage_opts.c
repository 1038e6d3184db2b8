/*
 * fc_stage_opts.c - a stage program's command line (the options every
 * stage takes, the self-tests) and the test points of its sweep, with the
 * command line's overrides applied to the profile (fc_stage.h).
 */
#include "fc_stage.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_log.h"
#include "fc_stage_int.h"

static void fc_stage_usage(FILE *out, const char *prog)
{
    fprintf(out,
"usage: mpirun [...] %s [options]\n"
"Runs one fabcert stage; TAP on stdout (rank 0), results in DIR/results.jsonl.\n"
"  --profile FILE       threshold profile (default: thresholds/local.yaml\n"
"                       beside the build)\n"
"  --out DIR            output directory (default: fabcert-out)\n"
"  --run-id ID          run id recorded in every result (default: generated)\n"
"  --backend NAME       mpi, nccl (the GPU plugin) or auto (nccl where every\n"
"                       rank has a GPU); default: the profile's, else mpi\n"
"  --hosts FILE         inventory: host list (names or hostlist ranges)\n"
"  --racks FILE         inventory: rack map ('HOSTS RACK' or 'RACK: HOSTS')\n"
"  --sizes LIST         message sizes, e.g. 4KiB,1MiB (default: profile)\n"
"  --iters N            timed iterations (default: profile)\n"
"  --warmup N           warm-up iterations, checked but not timed\n"
"  --collectives LIST   e.g. all_reduce,all_gather (default: profile)\n"
"  --dtypes LIST        e.g. int32,bfloat16 (default: profile)\n"
"  --ops LIST           e.g. sum,max (default: profile)\n"
"  --selftest-corrupt SPEC\n"
"                       flip one bit of one output element to prove the\n"
"                       checker: rank=R,iter=I[,index=K][,bit=B][,coll=NAME]\n"
"                       (index defaults to the middle element, bit to 0)\n"
"  --selftest-hang rank=R,index=K\n"
"                       stop rank R (SIGSTOP) on entering point or round K,\n"
"                       to prove the watchdog names it\n"
"  --soak-duration D    the soak stage's duration instead of the profile's\n"
"  --contention-phase D the contention stage's shortest loaded phase instead\n"
"                       of the profile's phase_s\n"
"                       (90, 90s, 30m, 8h, 2d)\n"
"  --help               this text\n"
"Exit status: 0 all checks pass, 1 a check failed or timed out, 2 bad input.\n",
            prog);
}

static fc_status_t fc_parse_int(const char *what, const char *text, long lo,
                                long hi, long *out)
{
    char *end;
    long v = strtol(text, &end, 10);

    if (text[0] == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "fabcert: %s: '%s' is not a number in [%ld, %ld]\n",
                what, text, lo, hi);
        return FC_ERR_INVALID;
    }
    *out = v;
    return FC_OK;
}

static fc_status_t fc_parse_selftest(const char *text, fc_selftest_t *st)
{
    char buf[256], *save = NULL;
    int have_rank = 0, have_iter = 0;
    long v;

    *st = (fc_selftest_t){ 1, 0, 0, -1, 0, FC_ANY };
    snprintf(buf, sizeof(buf), "%s", text);
    for (char *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');

        if (eq == NULL)
            goto bad;
        *eq++ = '\0';
        if (strcmp(tok, "rank") == 0) {
            FC_CHECK(fc_parse_int("--selftest-corrupt rank", eq, 0, 1 << 30, &v));
            st->rank = (int)v;
            have_rank = 1;
        } else if (strcmp(tok, "iter") == 0) {
            FC_CHECK(fc_parse_int("--selftest-corrupt iter", eq, 0, 1 << 30, &v));
            st->iter = (int)v;
            have_iter = 1;
        } else if (strcmp(tok, "index") == 0) {
            FC_CHECK(fc_parse_int("--selftest-corrupt index", eq, 0, 1L << 40, &v));
            st->index = v;
        } else if (strcmp(tok, "bit") == 0) {
            FC_CHECK(fc_parse_int("--selftest-corrupt bit", eq, 0, 7, &v));
            st->bit = (int)v;
        } else if (strcmp(tok, "coll") == 0) {
            if ((st->coll = fc_coll_from_name(eq)) < 0)
                goto bad;
        } else {
            goto bad;
        }
    }
    if (have_rank && have_iter)
        return FC_OK;
bad:
    fprintf(stderr, "fabcert: --selftest-corrupt '%s': expected "
            "rank=R,iter=I[,index=K][,bit=B][,coll=NAME]\n", text);
    return FC_ERR_INVALID;
}

fc_status_t fc_stage_parse(int argc, char **argv, fc_stage_opts_t *o,
                                  int quiet)
{
    enum { O_PROFILE = 1, O_OUT, O_RUN_ID, O_BACKEND, O_SIZES, O_ITERS,
           O_WARMUP, O_COLLS, O_DTYPES, O_OPS, O_SELFTEST, O_HOSTS, O_RACKS,
           O_HANG, O_SOAK_DURATION, O_PHASE, O_HELP };
    static const struct option longopts[] = {
        { "profile", required_argument, NULL, O_PROFILE },
        { "out", required_argument, NULL, O_OUT },
        { "run-id", required_argument, NULL, O_RUN_ID },
        { "backend", required_argument, NULL, O_BACKEND },
        { "sizes", required_argument, NULL, O_SIZES },
        { "iters", required_argument, NULL, O_ITERS },
        { "warmup", required_argument, NULL, O_WARMUP },
        { "collectives", required_argument, NULL, O_COLLS },
        { "dtypes", required_argument, NULL, O_DTYPES },
        { "ops", required_argument, NULL, O_OPS },
        { "selftest-corrupt", required_argument, NULL, O_SELFTEST },
        { "hosts", required_argument, NULL, O_HOSTS },
        { "racks", required_argument, NULL, O_RACKS },
        { "selftest-hang", required_argument, NULL, O_HANG },
        { "soak-duration", required_argument, NULL, O_SOAK_DURATION },
        { "contention-phase", required_argument, NULL, O_PHASE },
        { "help", no_argument, NULL, O_HELP },
        { NULL, 0, NULL, 0 },
    };
    int c;
    long v;

    memset(o, 0, sizeof(*o));
    optind = 1;     /* a second parse in one process (the report's) starts over */
    /* thresholds/local.yaml beside the build (<exe>/../../thresholds), or
     * installed (PREFIX/libexec/fabcert/../../share/fabcert/thresholds) */
    fc_path_shipped("../../thresholds/local.yaml", "../../share/fabcert/thresholds/local.yaml",
                    o->profile_path, sizeof(o->profile_path));
    snprintf(o->out_dir, sizeof(o->out_dir), "fabcert-out");
    o->warmup = -1;
    o->hang_rank = -1;
    o->hang_index = -1;
    opterr = !quiet;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_PROFILE: snprintf(o->profile_path, sizeof(o->profile_path), "%s", optarg); break;
        case O_OUT: snprintf(o->out_dir, sizeof(o->out_dir), "%s", optarg); break;
        case O_RUN_ID: snprintf(o->run_id, sizeof(o->run_id), "%s", optarg); break;
        case O_BACKEND:
            if (strcmp(optarg, "mpi") != 0 && strcmp(optarg, "nccl") != 0 &&
                strcmp(optarg, "auto") != 0) {
                fprintf(stderr, "fabcert: --backend '%s': expected mpi, nccl or auto\n", optarg);
                return FC_ERR_INVALID;
            }
            snprintf(o->backend, sizeof(o->backend), "%s", optarg);
            break;
        case O_SIZES:
            FC_CHECK(fc_parse_size_list("sizes", optarg, FC_PROFILE_MAX_SIZES,
                                        o->sizes, &o->nsizes));
            break;
        case O_ITERS:
            FC_CHECK(fc_parse_int("--iters", optarg, 1, 1000000, &v));
            o->iters = (int)v;
            break;
        case O_WARMUP:
            FC_CHECK(fc_parse_int("--warmup", optarg, 0, 1000000, &v));
            o->warmup = (int)v;
            break;
        case O_COLLS:
            FC_CHECK(fc_parse_name_list("collectives", optarg, fc_coll_from_name,
                                   FC_COLL_COUNT, o->colls, &o->ncolls));
            break;
        case O_DTYPES:
            FC_CHECK(fc_parse_name_list("dtypes", optarg, fc_dtype_from_name,
                                   FC_DTYPE_COUNT, o->dtypes, &o->ndtypes));
            break;
        case O_OPS:
            FC_CHECK(fc_parse_name_list("ops", optarg, fc_reduce_op_from_name, 4,
                                   o->ops, &o->nops));
            break;
        case O_SELFTEST:
            FC_CHECK(fc_parse_selftest(optarg, &o->selftest));
            break;
        case O_HOSTS: snprintf(o->hosts_path, sizeof(o->hosts_path), "%s", optarg); break;
        case O_SOAK_DURATION:
            FC_CHECK(fc_parse_duration("soak-duration", optarg, &o->soak_duration));
            break;
        case O_PHASE:
            FC_CHECK(fc_parse_duration("contention-phase", optarg, &o->phase_s));
            break;
        case O_RACKS: snprintf(o->racks_path, sizeof(o->racks_path), "%s", optarg); break;
        case O_HANG:
            if (sscanf(optarg, "rank=%d,index=%d", &o->hang_rank, &o->hang_index) != 2 ||
                o->hang_rank < 0 || o->hang_index < 0) {
                fprintf(stderr, "fabcert: --selftest-hang '%s': expected "
                        "rank=R,index=K\n", optarg);
                return FC_ERR_INVALID;
            }
            break;
        case O_HELP:
            if (!quiet)
                fc_stage_usage(stdout, argv[0]);
            return FC_ERR_SKIP;
        default:
            if (!quiet)
                fc_stage_usage(stderr, argv[0]);
            return FC_ERR_INVALID;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "fabcert: unexpected argument '%s'\n", argv[optind]);
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

void fc_stage_profile_apply(fc_stage_profile_t *sp, const fc_stage_opts_t *o,
                            fc_stage_id_t stage)
{
    if (o->nsizes > 0) {
        memcpy(sp->sizes, o->sizes, sizeof(o->sizes));
        sp->nsizes = o->nsizes;
    }
    if (o->iters > 0)
        sp->iters = o->iters;
    if (o->warmup >= 0)
        sp->warmup = o->warmup;
    if (o->ncolls > 0) {
        memcpy(sp->colls, o->colls, sizeof(o->colls));
        sp->ncolls = o->ncolls;
    }
    if (o->ndtypes > 0) {
        memcpy(sp->dtypes, o->dtypes, sizeof(o->dtypes));
        sp->ndtypes = o->ndtypes;
    }
    if (o->nops > 0) {
        memcpy(sp->ops, o->ops, sizeof(o->ops));
        sp->nops = o->nops;
    }
    if (o->soak_duration > 0 && (fc_stage_desc(stage)->sections & FC_SECT_SOAK))
        fc_soak_set_duration(sp, o->soak_duration);
    if (o->phase_s > 0 && (fc_stage_desc(stage)->sections & FC_SECT_CONTENTION))
        sp->cont.phase_s = o->phase_s;
}

void fc_stage_apply_overrides(fc_stage_ctx_t *ctx)
{
    fc_stage_profile_apply(&ctx->sp, &ctx->opts, ctx->stage);
}

/* Number of test points in the sweep. */
int fc_stage_point_count(const fc_stage_profile_t *sp)
{
    int n = 0;

    for (int c = 0; c < sp->ncolls; ++c)
        n += sp->ndtypes * sp->nsizes *
             (fc_coll_desc(sp->colls[c])->reduces ? sp->nops : 1);
    return n;
}

int fc_stage_sweep_points(const fc_stage_profile_t *sp, fc_stage_id_t stage, uint32_t seed,
                          fc_test_point_t **points_p)
{
    fc_test_point_t *pts = fc_xcalloc((size_t)fc_stage_point_count(sp) + 1, sizeof(*pts),
                                      "the stage's test points");
    int n = 0;

    for (int c = 0; c < sp->ncolls; ++c) {
        const fc_coll_desc_t *desc = fc_coll_desc(sp->colls[c]);
        int nops = desc->reduces ? sp->nops : 1;

        for (int t = 0; t < sp->ndtypes; ++t)
            for (int o = 0; o < nops; ++o)
                for (int z = 0; z < sp->nsizes; ++z, ++n)
                    pts[n] = (fc_test_point_t){
                        desc->id, sp->dtypes[t], desc->reduces ? sp->ops[o] : FC_OP_NONE,
                        sp->sizes[z], sp->warmup, sp->iters, seed + 7919u * (uint32_t)n,
                        /* a sweep stage's figure; the soak (drift over
                         * time) and the contention stage (ratios of
                         * phases) judge per-iteration figures only */
                        fc_stage_desc(stage)->batched,
                    };
    }
    *points_p = pts;
    return n;
}

int fc_stage_points(const fc_stage_ctx_t *ctx, fc_test_point_t **points_p)
{
    return fc_stage_sweep_points(&ctx->sp, ctx->stage, ctx->profile.seed, points_p);
}

fc_status_t fc_stage_sweep_plan(const fc_profile_t *profile, fc_stage_id_t stage, int argc,
                                char **argv, fc_stage_profile_t *sp_p,
                                fc_test_point_t **points_p, int *npoints_p)
{
    fc_stage_opts_t *o = fc_xcalloc(1, sizeof(*o), "a stage's options");
    int saved_opterr = opterr;
    fc_status_t st = fc_stage_parse(argc, argv, o, 1);

    opterr = saved_opterr;
    if (st == FC_OK) {
        *sp_p = profile->stages[stage];
        fc_stage_profile_apply(sp_p, o, stage);
        *npoints_p = fc_stage_sweep_points(sp_p, stage, profile->seed, points_p);
    }
    free(o);
    return st == FC_OK ? FC_OK : FC_ERR_INVALID;
}

/* The scaling series' node counts: 1 (or 2 where a rank per node cannot
 * measure alone), doubling, then every host; the stage and the report's
 * sweep check both take them from here. */
int fc_stage_series_counts(int nhosts, int min_ranks, int *counts, int max)
{
    int n = 0;

    if (max < 1 || nhosts < 1)
        return 0;
    for (int c = min_ranks > 1 ? 1 : 2; c < nhosts && n < max - 1; c *= 2)
        counts[n++] = c;
    counts[n++] = nhosts;
    return n;
}
