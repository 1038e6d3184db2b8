/*
 * fc_record.c - the record-type table (fc_record.h): the one place that
 * lists the types of results.jsonl and, for each, points to how the
 * reports name and show it. Each family's label (a check's name, shared
 * by the certificate, the HTML, JUnit and the summary), finding subject,
 * certificate figure, HTML cell and rules live together in its
 * fc_<family>_records.c: the collective sweeps (point, contention,
 * overlap, scaling), the soak, the pairs stage, the nodes and NVLink
 * domains, the rails, and the records about an attempt (hang, crash,
 * retest, selftest). What every type shares is here: the label of a
 * context record, the finding's text, the racks a record concerns.
 *
 * Each row says who writes the type (lib/, suites/, runners/).
 */
#include "fc_record.h"

#include <string.h>

#include "fc_attempt_records.h"
#include "fc_json.h"
#include "fc_node_records.h"
#include "fc_pairs_records.h"
#include "fc_rails_records.h"
#include "fc_rules.h"
#include "fc_soak_records.h"
#include "fc_sweep_records.h"

/* ---- names --------------------------------------------------------------- */

/* A type that is never judged, or that the table does not name. */
static void fc_label_type(json_t *rec, char *buf, size_t len)
{
    snprintf(buf, len, "%s", fc_json_str(rec, "type"));
}

/* ---- the table ------------------------------------------------------------ */

/* Context: never judged, named by its type, concerning its `rack`. */
#define FC_RECORD_CONTEXT(ident, type_name, by) \
    [ident] = { .id = ident, .name = type_name, .writers = by, .rack_keys = { "rack" }, \
                .label = fc_label_type }

static const fc_record_type_t fc_record_types[FC_RECORD_COUNT] = {
    /* name unused: never matched; anyone's, so neither counted against a
     * stage's end nor misplaced after it by its writer */
    FC_RECORD_CONTEXT(FC_RECORD_UNKNOWN, "", FC_BY_STAGE | FC_BY_RUNNER | FC_BY_RETEST),
    /* lib/stage/fc_stage_records.c: the node, rack, cluster and soak stages */
    [FC_RECORD_POINT] = {
        .id = FC_RECORD_POINT, .calls_counted = 1, .name = "point", .writers = FC_BY_STAGE,
        .check = 1, .bits_rejudged = 1,
        .rack_keys = { "rack" }, .whole_job = 1, .label = fc_label_point,
        .subject = fc_subject_point, .figure = fc_figure_point, .cell = fc_cell_point,
        .rules = fc_rules_point, .limits = fc_limits_point },
    /* lib/pairs/fc_pairs_report.c: the pairs stage */
    [FC_RECORD_PAIR] = {
        .id = FC_RECORD_PAIR, .name = "pair", .writers = FC_BY_STAGE,
        .check = 1, .bits_rejudged = 1,
        .bits_per_size = 1, .rack_keys = { "rack_a", "rack_b" }, .label = fc_label_pair,
        .subject = fc_label_pair, .figure = fc_figure_pair, .cell = fc_cell_pair,
        .rules = fc_rules_pair, .limits = fc_limits_pair },
    [FC_RECORD_PAIRS_NODE] = {
        .id = FC_RECORD_PAIRS_NODE, .name = "pairs_node", .writers = FC_BY_STAGE,
        .check = 1, .names_part = 1,
        .bits_rejudged = 1, .rack_keys = { "rack" }, .label = fc_label_pairs_node,
        .subject = fc_subject_node, .figure = fc_figure_pairs_node,
        .cell = fc_cell_pairs_node },
    /* suites/contention.c: `racks` names the racks of the foreground's
     * hosts (background_hosts generate only, and are not judged by it) */
    [FC_RECORD_CONTENTION] = {
        .id = FC_RECORD_CONTENTION, .calls_counted = 1, .name = "contention", .writers = FC_BY_STAGE,
        .check = 1, .bits_rejudged = 1, .racks_key = "racks",
        .rack_keys = { "rack" }, .whole_job = 1, .label = fc_label_contention,
        .subject = fc_subject_contention, .figure = fc_figure_contention,
        .cell = fc_cell_contention, .rules = fc_rules_contention,
        .limits = fc_limits_contention },
    /* suites/overlap.c: the whole job, one record per size */
    [FC_RECORD_OVERLAP] = {
        .id = FC_RECORD_OVERLAP, .calls_counted = 1, .name = "overlap", .writers = FC_BY_STAGE,
        .check = 1, .bits_rejudged = 1, .racks_key = "racks",
        .rack_keys = { "rack" }, .whole_job = 1, .label = fc_label_overlap,
        .subject = fc_subject_overlap, .figure = fc_figure_overlap,
        .cell = fc_cell_overlap, .rules = fc_rules_overlap, .limits = fc_limits_overlap },
    /* suites/scaling.c: a node count of the series (group "N nodes"); its
     * `racks` are the racks the series spans, or those a drop implicates */
    [FC_RECORD_SCALING] = {
        .id = FC_RECORD_SCALING, .calls_counted = 1, .name = "scaling", .writers = FC_BY_STAGE,
        .check = 1, .racks_key = "racks",
        .rack_keys = { "rack" }, .whole_job = 1, .label = fc_label_scaling,
        .subject = fc_subject_point, .figure = fc_figure_scaling,
        .cell = fc_cell_scaling, .rules = fc_rules_scaling, .limits = fc_limits_scaling },
    /* suites/preflight.c */
    [FC_RECORD_PREFLIGHT] = {
        .id = FC_RECORD_PREFLIGHT, .name = "preflight", .writers = FC_BY_STAGE,
        .check = 1, .bits_rejudged = 1,
        .rack_keys = { "rack" }, .label = fc_label_preflight, .subject = fc_subject_node,
        .figure = fc_figure_host, .cell = fc_cell_preflight },
    /* suites/soak.c */
    [FC_RECORD_SOAK_COUNTERS] = {
        .id = FC_RECORD_SOAK_COUNTERS, .name = "soak_counters", .writers = FC_BY_STAGE,
        .check = 1,
        .bits_rejudged = 1, .rack_keys = { "rack" }, .label = fc_label_soak_counters,
        .figure = fc_figure_soak_counters, .cell = fc_cell_soak_counters,
        .rules = fc_rules_soak_counters },
    /* lib/soak/fc_soak_gpu_record.c (suites/soak.c on the nccl backend): its
     * reasons name the GPU and host themselves */
    [FC_RECORD_SOAK_GPU] = {
        .id = FC_RECORD_SOAK_GPU, .name = "soak_gpu", .writers = FC_BY_STAGE,
        .check = 1, .bits_rejudged = 1, .rack_keys = { "rack" }, .label = fc_label_soak_gpu,
        .figure = fc_figure_soak_gpu, .cell = fc_cell_soak_gpu, .rules = fc_rules_soak_gpu },
    /* lib/retest/fc_retest_records.c, lib/retest/fc_retest_slow.c (suites/retest.c) and
     * runners/fc_retest.c: its wrong exchanges are the evidence, so its
     * figures are not judged again */
    [FC_RECORD_RETEST] = {
        .id = FC_RECORD_RETEST, .name = "retest", .writers = FC_BY_RETEST | FC_BY_RUNNER,
        .check = 1, .rack_keys = { "rack" },
        .racks_key = "racks", .label = fc_label_retest, .figure = fc_figure_retest,
        .cell = fc_cell_retest },
    /* runners/fc_diagnose_stuck.c, runners/fc_diagnose_crash.c */
    [FC_RECORD_HANG] = {
        .id = FC_RECORD_HANG, .name = "hang", .writers = FC_BY_RUNNER,
        .stop = 1, .names_part = 1,
        .rack_keys = { "rack" }, .label = fc_label_hang, .figure = fc_figure_stop,
        .cell = fc_cell_stop },
    [FC_RECORD_CRASH] = {
        .id = FC_RECORD_CRASH, .name = "crash", .writers = FC_BY_RUNNER,
        .stop = 1, .names_part = 1,
        .rack_keys = { "rack" }, .label = fc_label_crash, .figure = fc_figure_stop,
        .cell = fc_cell_stop },
    /* lib/stage/fc_stage_world.c: a self-test asked for on a rank the stage no
     * longer has (hosts quarantined before it): INCOMPLETE, not a pass */
    [FC_RECORD_SELFTEST] = {
        .id = FC_RECORD_SELFTEST, .name = "selftest", .writers = FC_BY_STAGE,
        .check = 1, .racks_key = "racks",
        .label = fc_label_selftest },
    /* runners/fc_diagnose_stuck.c: no attempt began, so the quarantine
     * that follows it is what fails the host's rack */
    FC_RECORD_CONTEXT(FC_RECORD_PROBE, "probe", FC_BY_RUNNER),
    /* runners/fc_diagnose_nostart.c: likewise before any attempt began */
    FC_RECORD_CONTEXT(FC_RECORD_CANNOT_START, "cannot_start", FC_BY_RUNNER),
    /* runners/fabcert.c */
    FC_RECORD_CONTEXT(FC_RECORD_QUARANTINE, "quarantine", FC_BY_RUNNER),
    FC_RECORD_CONTEXT(FC_RECORD_PLAN, "plan", FC_BY_RUNNER),
    FC_RECORD_CONTEXT(FC_RECORD_STAGE_SKIP, "stage_skip", FC_BY_RUNNER),
    /* runners/fabcert.c, runners/fc_diagnose.c */
    FC_RECORD_CONTEXT(FC_RECORD_STAGE_ERROR, "stage_error", FC_BY_RUNNER),
    /* lib/fc_stage.c */
    FC_RECORD_CONTEXT(FC_RECORD_STAGE_START, "stage_start", FC_BY_STAGE),
    FC_RECORD_CONTEXT(FC_RECORD_STAGE_END, "stage_end", FC_BY_STAGE),
    FC_RECORD_CONTEXT(FC_RECORD_DEVICES, "devices", FC_BY_STAGE),
    /* suites/pairs.c */
    FC_RECORD_CONTEXT(FC_RECORD_PAIRS_SCHEDULE, "pairs_schedule", FC_BY_STAGE),
    FC_RECORD_CONTEXT(FC_RECORD_PAIRS_CONFIRMATION, "pairs_confirmation", FC_BY_STAGE),
    FC_RECORD_CONTEXT(FC_RECORD_PAIRS_ROUND, "pairs_round", FC_BY_STAGE),
    /* suites/soak.c */
    FC_RECORD_CONTEXT(FC_RECORD_SOAK_WINDOW, "soak_window", FC_BY_STAGE),
    /* runners/fc_retest.c */
    FC_RECORD_CONTEXT(FC_RECORD_RETEST_LAUNCH, "retest_launch", FC_BY_RUNNER),
    /* runners/fabcert.c, runners/fc_run_resume.c */
    FC_RECORD_CONTEXT(FC_RECORD_STAGE_DONE, "stage_done", FC_BY_RUNNER),
    FC_RECORD_CONTEXT(FC_RECORD_RESUME, "resume", FC_BY_RUNNER),
    /* reports/fc_verdict_setup.c (fc_results_load), never on disk */
    FC_RECORD_CONTEXT(FC_RECORD_UNREADABLE, FC_UNREADABLE_RECORD, 0),
    /* lib/rails/fc_rails_judge.c (suites/rails.c): the pairs stage's records of
     * one rail, each endpoint a NIC (host, nic), and the rails compared;
     * a rail concerns every rack of the attempt */
    [FC_RECORD_RAIL_PAIR] = {
        .id = FC_RECORD_RAIL_PAIR, .name = "rail_pair", .writers = FC_BY_STAGE,
        .check = 1, .bits_rejudged = 1,
        .bits_per_size = 1, .rack_keys = { "rack_a", "rack_b" }, .label = fc_label_rail_pair,
        .subject = fc_label_rail_pair, .figure = fc_figure_rail_pair, .cell = fc_cell_rail_pair,
        .rules = fc_rules_pair, .limits = fc_limits_pair },
    [FC_RECORD_RAIL_NODE] = {
        .id = FC_RECORD_RAIL_NODE, .name = "rail_node", .writers = FC_BY_STAGE,
        .check = 1, .names_part = 1,
        .bits_rejudged = 1, .rack_keys = { "rack" }, .label = fc_label_rail_node,
        .subject = fc_subject_rail_node, .figure = fc_figure_rail_node,
        .cell = fc_cell_rail_node },
    [FC_RECORD_RAIL] = {
        .id = FC_RECORD_RAIL, .name = "rail", .writers = FC_BY_STAGE,
        .check = 1, .rack_keys = { "rack" }, .racks_key = "racks", .label = fc_label_rail,
        .subject = fc_label_rail, .figure = fc_figure_rail, .cell = fc_cell_rail },
    FC_RECORD_CONTEXT(FC_RECORD_RAILS_ROUND, "rails_round", FC_BY_STAGE),
    /* lib/stage/fc_domain.c (suites/domain.c): NVML's word on the rack's clique */
    [FC_RECORD_NVLINK_DOMAIN] = {
        .id = FC_RECORD_NVLINK_DOMAIN, .name = "nvlink_domain", .writers = FC_BY_STAGE,
        .check = 1, .names_part = 1, .rack_keys = { "rack" },
        .label = fc_label_nvlink_domain, .subject = fc_label_nvlink_domain,
        .figure = fc_figure_nvlink_domain, .cell = fc_cell_nvlink_domain },
};

const fc_record_type_t *fc_record_type_named(const char *type)
{
    for (int i = FC_RECORD_UNKNOWN + 1; i < FC_RECORD_COUNT; ++i)
        if (strcmp(fc_record_types[i].name, type) == 0)
            return &fc_record_types[i];
    return &fc_record_types[FC_RECORD_UNKNOWN];
}

const fc_record_type_t *fc_record_type_of(json_t *rec)
{
    return fc_record_type_named(fc_json_str(rec, "type"));
}

fc_record_id_t fc_record_id(json_t *rec)
{
    return fc_record_type_of(rec)->id;
}

int fc_record_is_check(const char *type)
{
    return fc_record_type_named(type)->check;
}

/* The writer a record names: no `source`, the stage; "runner"; "retest";
 * anything else, nobody's. */
static int fc_record_claimed_writer(json_t *rec)
{
    json_t *source = json_object_get(rec, "source");

    if (source == NULL)
        return FC_BY_STAGE;
    if (json_is_string(source) && strcmp(json_string_value(source), "runner") == 0)
        return FC_BY_RUNNER;
    if (json_is_string(source) && strcmp(json_string_value(source), "retest") == 0)
        return FC_BY_RETEST;
    return 0;
}

int fc_record_source_ok(json_t *rec)
{
    return (fc_record_type_of(rec)->writers & fc_record_claimed_writer(rec)) != 0;
}

int fc_record_stage_writes(json_t *rec)
{
    return (fc_record_type_of(rec)->writers & FC_BY_STAGE) != 0;
}

int fc_record_may_follow_end(json_t *rec)
{
    const fc_record_type_t *t = fc_record_type_of(rec);

    if (t->id == FC_RECORD_UNKNOWN)
        return 1;       /* never judged, wherever it is */
    return (t->writers & (FC_BY_RUNNER | FC_BY_RETEST) & fc_record_claimed_writer(rec)) != 0;
}

/* ---- what the writers and the verdicts ask -------------------------------- */

void fc_check_label(json_t *rec, char *buf, size_t len)
{
    fc_record_type_of(rec)->label(rec, buf, len);
}

void fc_record_text(json_t *rec, const char *reason, char *buf, size_t len)
{
    const fc_record_type_t *t = fc_record_type_of(rec);
    json_t *reasons = json_object_get(rec, "reasons");
    const char *why = reason ? reason : json_string_value(json_array_get(reasons, 0));
    size_t used;

    if (why == NULL)
        why = fc_json_str(rec, "reason");
    if (t->subject == NULL) {
        snprintf(buf, len, "%s", why);
        return;
    }
    /* "subject: why", cut to len as one text */
    t->subject(rec, buf, len);
    used = strlen(buf);
    snprintf(buf + used, len - used, ": %s", why);
}

int fc_record_names_rack(json_t *rec, const char *rack)
{
    const fc_record_type_t *t = fc_record_type_of(rec);

    for (size_t k = 0; k < sizeof(t->rack_keys) / sizeof(t->rack_keys[0]); ++k)
        if (t->rack_keys[k] && strcmp(fc_json_str(rec, t->rack_keys[k]), rack) == 0)
            return 1;
    return t->racks_key && fc_json_has_string(json_object_get(rec, t->racks_key), rack);
}

int fc_record_whole_job(json_t *rec)
{
    const fc_record_type_t *t = fc_record_type_of(rec);

    /* a record that names the racks it measured speaks for those alone */
    return t->whole_job && fc_json_str(rec, "rack")[0] == '\0' &&
           !(t->racks_key && json_object_get(rec, t->racks_key));
}

json_t *fc_rules_of(json_t *rec)
{
    const fc_record_type_t *t = fc_record_type_of(rec);
    json_t *lines = json_array();

    if (t->rules)
        t->rules(rec, lines);
    return lines;
}

void fc_rules_text(json_t *rec, int applied, char *buf, size_t len)
{
    json_t *lines = fc_rules_of(rec);

    fc_rules_lines_text(lines, applied, buf, len);
    json_decref(lines);
}
