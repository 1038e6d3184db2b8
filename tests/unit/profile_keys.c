/*
 * profile_keys.c - unit tests of the profile loader's key tables
 * (lib/profile/fc_profile*.c): keys reach their members by name, whatever their
 * order in the file (a table matched by position would misroute them);
 * every background kind has a name and a section of its own, and a key
 * one kind does not read is refused under it; the defaults a profile
 * leaves alone are the documented ones; a stage key is accepted exactly
 * under the stages the stage table says read it, and the table gives a
 * reason for every one it does not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_pairs_schedule.h"
#include "fc_profile.h"
#include "fc_tap.h"

/* Load `text` as a profile; the profile is left zeroed on an error. */
static fc_status_t load_text(const char *text, fc_profile_t *profile)
{
    char path[] = "/tmp/fabcert-profile-keys.XXXXXX";
    int fd = mkstemp(path);
    fc_status_t status;
    FILE *f;

    memset(profile, 0, sizeof(*profile));
    if (fd < 0 || (f = fdopen(fd, "w")) == NULL)
        return FC_ERR_INTERNAL;
    fputs(text, f);
    fclose(f);
    status = fc_profile_load(path, profile);
    unlink(path);
    return status;
}

int main(void)
{
    static fc_profile_t p;
    const fc_stage_profile_t *cs = &p.stages[FC_STAGE_CONTENTION];
    const fc_stage_profile_t *ss = &p.stages[FC_STAGE_SOAK];
    char text[1024];
    fc_tap_t tap;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 52 + 4 * FC_BG_KINDS);

    /* the contention keys after the kinds, the soak keys in reverse */
    fc_tap_is_int(&tap,
                  load_text(
            "name: order\n"
            "stages:\n"
            "  contention:\n"
            "    contention:\n"
            "      tenant: {pattern: permutation, block: 64KiB}\n"
            "      storage_net: {placement: any, targets: 3}\n"
            "      background_hosts: gpu[01-02]\n"
            "      phase_s: 2.5\n"
            "      scope: rack\n"
            "  soak:\n"
            "    timeout_s: 200\n"
            "    soak: {confirm_windows: 3, nic_pattern: ib*, max_error_delta: 4,\n"
            "           max_drift_pct: 20, window_s: 10, duration_s: 100}\n", &p), FC_OK,
                  "a profile whose keys are in another order than the tables loads");
    fc_tap_is_double(&tap, cs->cont.phase_s, 2.5, 0,
                     "phase_s (%g), background_hosts (%s) and scope reach their members after "
                     "the kinds", cs->cont.phase_s, cs->cont.background_hosts);
    fc_tap_is_str(&tap, cs->cont.background_hosts, "gpu[01-02]",
                  "phase_s (%g), background_hosts (%s) and scope reach their members after "
                  "the kinds"
                  " [cs->cont.background_hosts]", cs->cont.phase_s, cs->cont.background_hosts);
    fc_tap_is_int(&tap, cs->cont.scope_rack, 1,
                  "phase_s (%g), background_hosts (%s) and scope reach their members after "
                  "the kinds"
                  " [cs->cont.scope_rack]", cs->cont.phase_s, cs->cont.background_hosts);
    fc_tap_is_int(&tap, cs->cont.kinds[FC_BG_TENANT].permutation, 1,
                  "each kind's keys reach that kind's settings");
    fc_tap_is_int(&tap, cs->cont.kinds[FC_BG_TENANT].block, 64 << 10,
                  "each kind's keys reach that kind's settings"
                  " [cs->cont.kinds[FC_BG_TENANT].block]");
    fc_tap_is_int(&tap, cs->cont.kinds[FC_BG_STORAGE_NET].targets, 3,
                  "each kind's keys reach that kind's settings"
                  " [cs->cont.kinds[FC_BG_STORAGE_NET].targets]");
    fc_tap_is_int(&tap, cs->cont.kinds[FC_BG_STORAGE_NET].cross_rack, 0,
                  "each kind's keys reach that kind's settings"
                  " [cs->cont.kinds[FC_BG_STORAGE_NET].cross_rack]");
    fc_tap_ok(&tap, cs->cont.kinds[FC_BG_TENANT].enabled &&
                    cs->cont.kinds[FC_BG_STORAGE_NET].enabled &&
                    !cs->cont.kinds[FC_BG_STORAGE_FILE].enabled,
              "the kinds named are on, the one not named is off");
    fc_tap_is_double(&tap, ss->soak.duration_s, 100, 0,
                     "the soak keys, written in reverse, each reach their member");
    fc_tap_is_double(&tap, ss->soak.window_s, 10, 0,
                     "the soak keys, written in reverse, each reach their member"
                     " [ss->soak.window_s]");
    fc_tap_ok(&tap, ss->soak.window_explicit,
              "the soak keys, written in reverse, each reach their member"
              " [ss->soak.window_explicit]");
    fc_tap_is_double(&tap, ss->soak.max_drift_pct, 20, 0,
                     "the soak keys, written in reverse, each reach their member"
                     " [ss->soak.max_drift_pct]");
    fc_tap_is_double(&tap, ss->soak.max_error_delta, 4, 0,
                     "the soak keys, written in reverse, each reach their member"
                     " [ss->soak.max_error_delta]");
    fc_tap_is_str(&tap, ss->soak.nic_pattern, "ib*",
                  "the soak keys, written in reverse, each reach their member"
                  " [ss->soak.nic_pattern]");
    fc_tap_is_int(&tap, ss->soak.confirm_windows, 3,
                  "the soak keys, written in reverse, each reach their member"
                  " [ss->soak.confirm_windows]");
    fc_tap_is_int(&tap, ss->soak.window_line, 13, "window_s is marked where it is written (%d:%d)",
                  ss->soak.window_line, ss->soak.window_col);
    fc_tap_is_int(&tap, ss->soak.window_col, 41, "window_s is marked where it is written (%d:%d)"
                  " [ss->soak.window_col]", ss->soak.window_line, ss->soak.window_col);

    /* every kind: a name of its own, a section, its rate keys */
    for (int k = 0; k < FC_BG_KINDS; ++k) {
        const char *name = fc_bg_kind_name(k);
        int distinct = strcmp(name, "?") != 0;

        for (int o = 0; o < k; ++o)
            distinct &= strcmp(name, fc_bg_kind_name(o)) != 0;
        fc_tap_ok(&tap, distinct, "kind %d has a name of its own (%s)", k, name);
        snprintf(text, sizeof(text), "name: kind\nstages:\n  contention:\n    contention:\n"
                 "      storage_dir: /tmp\n      %s: {rate_mbps: 7}\n", name);
        fc_tap_is_int(&tap, load_text(text, &p), FC_OK,
                      "%s: {rate_mbps: 7} turns that kind on at 7 MB/s", name);
        fc_tap_ok(&tap, cs->cont.kinds[k].enabled, "%s: {rate_mbps: 7} turns that kind on at 7 MB/s"
                  " [cs->cont.kinds[k].enabled]", name);
        fc_tap_is_double(&tap, cs->cont.kinds[k].rate_mbps, 7, 0,
                         "%s: {rate_mbps: 7} turns that kind on at 7 MB/s"
                         " [cs->cont.kinds[k].rate_mbps]", name);
    }
    fc_tap_is_int(&tap,
                  load_text("name: x\nstages:\n  contention:\n    contention:\n"
                                  "      tenant: {direct: false}\n", &p), FC_ERR_INVALID,
                  "a storage_file key under tenant is refused");

    /* the defaults a profile leaves alone */
    fc_tap_is_int(&tap, load_text("name: d\nstages:\n  contention: {}\n", &p), FC_OK,
                  "kind defaults: tenant blocks 256 KiB, storage_net duty 0.7, O_DIRECT on, "
                  "100 MB/s; phase_s 1.5, min_background_pct 50");
    fc_tap_is_int(&tap, cs->cont.kinds[FC_BG_TENANT].block, 256 << 10,
                  "kind defaults: tenant blocks 256 KiB, storage_net duty 0.7, O_DIRECT on, "
                  "100 MB/s; phase_s 1.5, min_background_pct 50"
                  " [cs->cont.kinds[FC_BG_TENANT].block]");
    fc_tap_is_int(&tap, cs->cont.kinds[FC_BG_STORAGE_NET].block, 1 << 20,
                  "kind defaults: tenant blocks 256 KiB, storage_net duty 0.7, O_DIRECT on, "
                  "100 MB/s; phase_s 1.5, min_background_pct 50"
                  " [cs->cont.kinds[FC_BG_STORAGE_NET].block]");
    fc_tap_is_double(&tap, cs->cont.kinds[FC_BG_STORAGE_NET].duty, 0.7, 0,
                     "kind defaults: tenant blocks 256 KiB, storage_net duty 0.7, O_DIRECT on, "
                     "100 MB/s; phase_s 1.5, min_background_pct 50"
                     " [cs->cont.kinds[FC_BG_STORAGE_NET].duty]");
    fc_tap_is_double(&tap, cs->cont.kinds[FC_BG_STORAGE_FILE].duty, 1.0, 0,
                     "kind defaults: tenant blocks 256 KiB, storage_net duty 0.7, O_DIRECT on, "
                     "100 MB/s; phase_s 1.5, min_background_pct 50"
                     " [cs->cont.kinds[FC_BG_STORAGE_FILE].duty]");
    fc_tap_is_int(&tap, cs->cont.kinds[FC_BG_STORAGE_FILE].direct, 1,
                  "kind defaults: tenant blocks 256 KiB, storage_net duty 0.7, O_DIRECT on, "
                  "100 MB/s; phase_s 1.5, min_background_pct 50"
                  " [cs->cont.kinds[FC_BG_STORAGE_FILE].direct]");
    fc_tap_is_double(&tap, cs->cont.kinds[FC_BG_TENANT].rate_mbps, 100, 0,
                     "kind defaults: tenant blocks 256 KiB, storage_net duty 0.7, O_DIRECT on, "
                     "100 MB/s; phase_s 1.5, min_background_pct 50"
                     " [cs->cont.kinds[FC_BG_TENANT].rate_mbps]");
    fc_tap_is_double(&tap, cs->cont.phase_s, 1.5, 0,
                     "kind defaults: tenant blocks 256 KiB, storage_net duty 0.7, O_DIRECT on, "
                     "100 MB/s; phase_s 1.5, min_background_pct 50"
                     " [cs->cont.phase_s]");
    fc_tap_is_double(&tap, cs->cont.min_background_pct, 50, 0,
                     "kind defaults: tenant blocks 256 KiB, storage_net duty 0.7, O_DIRECT on, "
                     "100 MB/s; phase_s 1.5, min_background_pct 50"
                     " [cs->cont.min_background_pct]");
    fc_tap_is_int(&tap, p.seed, 1,
                  "stage defaults: seed 1, 600 s, 10 iterations, three sizes, mpi, no "
                  "relative rule");
    fc_tap_is_double(&tap, cs->timeout_s, 600, 0,
                     "stage defaults: seed 1, 600 s, 10 iterations, three sizes, mpi, no "
                     "relative rule"
                     " [cs->timeout_s]");
    fc_tap_is_int(&tap, cs->iters, 10,
                  "stage defaults: seed 1, 600 s, 10 iterations, three sizes, mpi, no "
                  "relative rule"
                  " [cs->iters]");
    fc_tap_is_int(&tap, cs->nsizes, 3,
                  "stage defaults: seed 1, 600 s, 10 iterations, three sizes, mpi, no "
                  "relative rule"
                  " [cs->nsizes]");
    fc_tap_is_str(&tap, cs->backend, "mpi",
                  "stage defaults: seed 1, 600 s, 10 iterations, three sizes, mpi, no "
                  "relative rule"
                  " [cs->backend]");
    fc_tap_ok(&tap, cs->max_below_median_pct < 0,
              "stage defaults: seed 1, 600 s, 10 iterations, three sizes, mpi, no "
              "relative rule"
              " [cs->max_below_median_pct < 0]");
    fc_tap_is_int(&tap, load_text("name: b\nstages:\n  node: {backend: nccl, warmup: 0}\n", &p),
                  FC_OK, "backend: nccl is kept as its name");
    fc_tap_is_str(&tap, p.stages[FC_STAGE_NODE].backend, "nccl", "backend: nccl is kept as its name"
                  " [p.stages[FC_STAGE_NODE].backend]");
    fc_tap_is_int(&tap, p.stages[FC_STAGE_NODE].warmup, 0, "backend: nccl is kept as its name"
                  " [p.stages[FC_STAGE_NODE].warmup]");

    /* limit rules: a rule an earlier one matches wholly is refused; the
     * narrower first, or rules that overlap in part, load */
    fc_tap_is_int(&tap,
                  load_text("name: l\nstages:\n  node:\n    limits:\n"
                                  "      - {collective: all_reduce, max_bytes: 32KiB, min_busbw_gbps: 100}\n"
                                  "      - {collective: any, dtype: int32, max_bytes: 1MiB, "
                                  "min_busbw_gbps: 1}\n"
                                  "      - {collective: all_reduce, min_bytes: 64KiB, "
                                  "max_latency_us: 9}\n"
                                  "      - {collective: any, min_busbw_gbps: 0.5}\n", &p), FC_OK,
                  "the narrower rule first, then wider ones that match other points too, load "
                  "(each rule marked at its first key: %d:%d)",
                  p.stages[FC_STAGE_NODE].limits[1].line, p.stages[FC_STAGE_NODE].limits[1].col);
    fc_tap_is_int(&tap, p.stages[FC_STAGE_NODE].nlimits, 4,
                  "the narrower rule first, then wider ones that match other points too, load "
                  "(each rule marked at its first key: %d:%d)"
                  " [p.stages[FC_STAGE_NODE].nlimits]", p.stages[FC_STAGE_NODE].limits[1].line,
                  p.stages[FC_STAGE_NODE].limits[1].col);
    fc_tap_is_int(&tap, p.stages[FC_STAGE_NODE].limits[1].line, 6,
                  "the narrower rule first, then wider ones that match other points too, load "
                  "(each rule marked at its first key: %d:%d)"
                  " [p.stages[FC_STAGE_NODE].limits[1].line]",
                  p.stages[FC_STAGE_NODE].limits[1].line, p.stages[FC_STAGE_NODE].limits[1].col);
    fc_tap_is_int(&tap, p.stages[FC_STAGE_NODE].limits[1].col, 10,
                  "the narrower rule first, then wider ones that match other points too, load "
                  "(each rule marked at its first key: %d:%d)"
                  " [p.stages[FC_STAGE_NODE].limits[1].col]",
                  p.stages[FC_STAGE_NODE].limits[1].line, p.stages[FC_STAGE_NODE].limits[1].col);
    fc_tap_is_int(&tap,
                  load_text("name: l\nstages:\n  node:\n    limits:\n"
                                  "      - {collective: any, dtype: int32, min_busbw_gbps: 1}\n"
                                  "      - {collective: all_gather, dtype: int32, op: sum, "
                                  "min_bytes: 4KiB, max_bytes: 64KiB, min_busbw_gbps: 9}\n", &p),
                  FC_ERR_INVALID,
                  "a rule that an earlier rule matches wholly (any collective of int32, then "
                  "all_gather int32 sum 4-64 KiB) is refused");

    /* the stage keys each stage reads, by the stage table */
    {
        static const struct { const char *line; unsigned bit; } keys[] = {
            { "sizes: [4KiB]", FC_SECT_SWEEP }, { "iters: 3", FC_SECT_SWEEP },
            { "warmup: 1", FC_SECT_SWEEP }, { "collectives: [all_reduce]", FC_SECT_KINDS },
            { "dtypes: [int32]", FC_SECT_KINDS }, { "ops: [sum]", FC_SECT_KINDS },
            { "backend: mpi", FC_SECT_BACKEND }, { "mode: sampled", FC_SECT_PAIRS },
            { "mode: auto\n    partners: 4", FC_SECT_PAIRS },
        };
        int right = 1, reasons = 1;
        char first[160] = "";

        for (int s = 0; s < FC_STAGE_COUNT; ++s) {
            const fc_stage_desc_t *d = fc_stage_desc((fc_stage_id_t)s);

            for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); ++k) {
                int reads = (d->sections & keys[k].bit) != 0;

                snprintf(text, sizeof(text), "name: k\n%sstages:\n  %s:\n    timeout_s: "
                         "90000\n    %s\n", d->needs_mnnvl ? "nvlink_domain: rack\n" : "",
                         d->name, keys[k].line);
                if ((load_text(text, &p) == FC_OK) != reads && right) {
                    right = 0;
                    snprintf(first, sizeof(first), "%s under %s", keys[k].line, d->name);
                }
            }
            reasons &= ((d->sections & FC_SECT_LIMITS) || d->no_limits) &&
                       ((d->sections & FC_SECT_RELATIVE) || d->no_relative) &&
                       ((d->sections & FC_SECT_SWEEP) || d->no_sweep) &&
                       ((d->sections & FC_SECT_KINDS) || d->no_kinds) &&
                       ((d->sections & FC_SECT_BACKEND) || d->no_backend);
        }
        fc_tap_ok(&tap, right, "sizes, iters, warmup, collectives, dtypes, ops, backend, "
                  "mode and partners load exactly under the stages that read them%s%s", first[0] ? ": not " : "",
                  first);
        fc_tap_ok(&tap, reasons, "the stage table says why for every key a stage does not read");
    }
    fc_tap_is_int(&tap, load_text("name: m\nstages:\n  pairs:\n    partners: 4\n", &p),
                  FC_ERR_INVALID,
                  "pairs: partners under mode full (the default) would never be applied and is "
                  "refused, as are an unknown mode and 0 partners; mode: sampled, partners: 5 "
                  "load");
    fc_tap_is_int(&tap, load_text("name: m\nstages:\n  pairs:\n    mode: some\n", &p),
                  FC_ERR_INVALID,
                  "pairs: partners under mode full (the default) would never be applied and is "
                  "refused, as are an unknown mode and 0 partners; mode: sampled, partners: 5 "
                  "load"
                  " [load_text(\"name: m\\nstages:\\n  pairs:\\n    mode: some\\n\",...]");
    fc_tap_is_int(&tap,
                  load_text("name: m\nstages:\n  pairs:\n    mode: sampled\n"
                                  "    partners: 0\n", &p), FC_ERR_INVALID,
                  "pairs: partners under mode full (the default) would never be applied and is "
                  "refused, as are an unknown mode and 0 partners; mode: sampled, partners: 5 "
                  "load"
                  " [load_text(\"name: m\\nstages:\\n  pairs:\\n    mode: sampled\\...]");
    fc_tap_is_int(&tap,
                  load_text("name: m\nstages:\n  pairs:\n    mode: sampled\n"
                                  "    partners: 5\n", &p), FC_OK,
                  "pairs: partners under mode full (the default) would never be applied and is "
                  "refused, as are an unknown mode and 0 partners; mode: sampled, partners: 5 "
                  "load"
                  " [load_text(\"name: m\\nstages:\\n  pairs:\\n    mode: sampled\\...]");
    fc_tap_is_int(&tap, p.stages[FC_STAGE_PAIRS].pairs_mode, FC_PAIRS_MODE_SAMPLED,
                  "pairs: partners under mode full (the default) would never be applied and is "
                  "refused, as are an unknown mode and 0 partners; mode: sampled, partners: 5 "
                  "load"
                  " [p.stages[FC_STAGE_PAIRS].pairs_mode]");
    fc_tap_is_int(&tap, p.stages[FC_STAGE_PAIRS].pairs_partners, 5,
                  "pairs: partners under mode full (the default) would never be applied and is "
                  "refused, as are an unknown mode and 0 partners; mode: sampled, partners: 5 "
                  "load"
                  " [p.stages[FC_STAGE_PAIRS].pairs_partners]");
    /* a stage that needs an NVLink domain across nodes, by the stage
     * table, loads only where the profile says the domain is the rack */
    {
        int refused = 1, loads = 1;

        for (int s = 0; s < FC_STAGE_COUNT; ++s) {
            const fc_stage_desc_t *d = fc_stage_desc((fc_stage_id_t)s);

            if (!d->needs_mnnvl)
                continue;
            snprintf(text, sizeof(text), "name: d\nstages:\n  %s:\n    timeout_s: 60\n",
                     d->name);
            refused &= load_text(text, &p) == FC_ERR_INVALID;
            snprintf(text, sizeof(text), "name: d\nstages:\n  %s:\n    timeout_s: 60\n"
                     "nvlink_domain: rack\n", d->name);
            loads &= load_text(text, &p) == FC_OK && p.nvlink_domain == FC_NVLINK_DOMAIN_RACK &&
                     p.stages[s].line == 3 && p.stages[s].col == 3;
        }
        fc_tap_ok(&tap, refused && loads,
                  "the NVLink domain stages load under nvlink_domain: rack alone (after "
                  "stages: too), and nvlink_domain takes node or rack");
        fc_tap_is_int(&tap,
                      load_text("name: d\nnvlink_domain: pod\n"
                                                          "stages:\n  node: {}\n", &p),
                      FC_ERR_INVALID,
                      "the NVLink domain stages load under nvlink_domain: rack alone (after "
                      "stages: too), and nvlink_domain takes node or rack"
                      " [load_text(\"name: d\\nnvlink_domain: pod\\n\" \"stages:\\n  nod...]");
    }
    return fc_tap_done(&tap);
}
