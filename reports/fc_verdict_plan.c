/*
 * fc_verdict_plan.c - see fc_verdict_plan.h. Each mismatch is one finding
 * of the "run" (part "results") on every rack, through
 * fc_verdict_add_run_finding, and a stage that ran on another backend
 * than its profile demands one of that stage (part "backend") on each
 * rack it ran on; both keep the racks' and the run's verdicts the worst
 * of their findings.
 */
#include "fc_verdict_plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_input.h"
#include "fc_inventory.h"
#include "fc_record.h"

/* The stages the recorded --stages override names (all when absent). */
static void fc_plan_stages_selected(const fc_run_verdict_t *v, int selected[FC_STAGE_COUNT])
{
    const char *arg = json_string_value(json_object_get(json_object_get(v->plan, "overrides"),
                                                        "--stages"));
    char buf[256], *save = NULL;

    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        selected[s] = arg == NULL;
    if (arg == NULL)
        return;
    snprintf(buf, sizeof(buf), "%s", arg);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (fc_stage_from_name(t) >= 0)
            selected[fc_stage_from_name(t)] = 1;
}

/* The text names profile.yaml, not the directory's path: the same
 * directory reports the same bytes wherever it is. */
static void fc_plan_mismatch(fc_run_verdict_t *v, const char *what)
{
    char text[FC_VERDICT_TEXT];

    snprintf(text, sizeof(text), "the plan record does not match the frozen profile "
             "(profile.yaml in the output directory): %s: which stages this run required "
             "cannot be known", what);
    fc_verdict_add_run_finding(v, FC_VERDICT_INCOMPLETE, text);
}

/* A stage whose profile says backend: nccl that ran on anything else (a
 * --backend auto or mpi on the command line lifted it: fc_stage_backend.c
 * lets the command line win) measured host memory, not the GPUs the
 * profile is about: INCOMPLETE on every rack it ran on, with what it ran
 * on and why. */
static void fc_plan_check_backends(fc_run_verdict_t *v, const fc_profile_t *profile)
{
    const char *lifted = json_string_value(json_object_get(json_object_get(v->plan,
                                                                           "overrides"),
                                                           "--backend"));

    for (int s = 0; s < FC_STAGE_COUNT; ++s) {
        if (!profile->stages[s].present || strcmp(profile->stages[s].backend, "nccl") != 0)
            continue;
        for (int k = 0; k < v->nracks; ++k) {
            fc_rack_verdict_t *r = &v->racks[k];
            const fc_stage_verdict_t *sv = &r->stages[s];
            char text[FC_VERDICT_TEXT], why[300];

            if (sv->backend[0] == '\0' || strcmp(sv->backend, "nccl") == 0)
                continue;   /* not started on the rack (said elsewhere), or as asked */
            if (lifted)
                snprintf(why, sizeof(why), "--backend %.30s on the command line lifted it",
                         lifted);
            else
                snprintf(why, sizeof(why), "%.280s", sv->backend_note[0] ? sv->backend_note
                         : "its records do not say why");
            snprintf(text, sizeof(text), "stage %s ran on %.15s, but the profile says "
                     "backend: nccl (%s): its figures are not the GPUs' the profile "
                     "demands", fc_stage_name((fc_stage_id_t)s), sv->backend, why);
            fc_verdict_add_stage_finding(v, r, (fc_stage_id_t)s, FC_VERDICT_INCOMPLETE,
                                         "backend", text);
        }
    }
}

/* DIR/profile.yaml into *profile: FC_OK, or FC_ERR_INVALID and why it
 * cannot be used (missing, or it does not load: the loader said why on
 * stderr). */
static fc_status_t fc_verdict_load_frozen(const char *dir, fc_profile_t *profile, char *why,
                                          size_t len)
{
    char path[4200];

    snprintf(path, sizeof(path), "%s/profile.yaml", dir);
    if (access(path, F_OK) != 0) {
        snprintf(why, len, "it cannot be read (%s)", strerror(errno));
        return FC_ERR_INVALID;
    }
    if (fc_profile_load(path, profile) != FC_OK) {
        snprintf(why, len, "it does not load as a profile (the error is above)");
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

fc_status_t fc_verdict_of_dir(const char *dir, json_t *records, int bad_lines,
                              fc_run_verdict_t *v)
{
    static fc_profile_t profile;        /* large: not on the stack */
    const fc_profile_t *usable = NULL;
    char why[300] = "";
    json_t *rec;
    size_t i;

    if (fc_verdict_load_frozen(dir, &profile, why, sizeof(why)) == FC_OK) {
        usable = &profile;
        /* what the stages measured is held to the profile only when it
         * is the one the plan names (else the plan check says so) */
        json_array_foreach(records, i, rec)
            if (fc_record_id(rec) == FC_RECORD_PLAN &&
                strcmp(fc_json_str(rec, "profile_sha256"), profile.sha256) != 0)
                usable = NULL;
    }
    if (fc_verdict_compute(records, usable, v) != FC_OK)
        return FC_ERR_INVALID;
    v->truncated_lines = bad_lines;
    fc_verdict_check_plan_profile(v, why[0] ? NULL : &profile, why);
    fc_verdict_check_plan_inventory(v, dir);
    return FC_OK;
}

void fc_verdict_check_plan_profile(fc_run_verdict_t *v, const fc_profile_t *frozen,
                                   const char *why)
{
    char what[300];
    int selected[FC_STAGE_COUNT];

    /* until the frozen profile says otherwise, the plan's word; the
     * profile's certificates: {require_signature: true} below is never
     * lifted by a plan that lost it */
    v->require_signature = json_is_true(json_object_get(v->plan, "require_signature"));
    if (frozen == NULL) {
        fc_plan_mismatch(v, why);
        return;
    }
    if (frozen->require_signature != v->require_signature)
        fc_plan_mismatch(v, frozen->require_signature
                         ? "the profile requires signed certificates, the plan does not say so"
                         : "the plan requires signed certificates, the profile does not");
    v->require_signature |= frozen->require_signature;
    fc_plan_check_backends(v, frozen);
    if (strcmp(frozen->sha256, fc_json_str(v->plan, "profile_sha256")) != 0) {
        snprintf(what, sizeof(what), "its sha256 is %.16s, the plan's %.16s", frozen->sha256,
                 fc_json_str(v->plan, "profile_sha256"));
        fc_plan_mismatch(v, what);
        return;
    }
    if (strcmp(frozen->name, fc_json_str(v->plan, "profile")) != 0) {
        snprintf(what, sizeof(what), "its name is '%.60s', the plan's '%.60s'", frozen->name,
                 fc_json_str(v->plan, "profile"));
        fc_plan_mismatch(v, what);
    }
    fc_plan_stages_selected(v, selected);
    for (int s = 0; s < FC_STAGE_COUNT; ++s) {
        const fc_stage_profile_t *sp = &frozen->stages[s];
        const char *name = fc_stage_name((fc_stage_id_t)s);

        what[0] = '\0';
        if (sp->present != v->planned[s])
            snprintf(what, sizeof(what), "the profile %s stage %s, the plan %s", sp->present
                     ? "has" : "has no", name, v->planned[s] ? "has" : "has not");
        else if (sp->present && sp->required != v->required[s])
            snprintf(what, sizeof(what), "the profile's stage %s is %s, the plan's %s", name,
                     sp->required ? "required" : "optional",
                     v->required[s] ? "required" : "optional");
        else if (sp->present && selected[s] != v->selected[s])
            snprintf(what, sizeof(what), "the plan marks stage %s %s, but the run's --stages "
                     "%s", name, v->selected[s] ? "selected" : "left out",
                     selected[s] ? "selects it (or was not given)" : "leaves it out");
        if (what[0])
            fc_plan_mismatch(v, what);
    }
}

/* The inventory text names the files, not the directory's path. */
static void fc_plan_inventory_mismatch(fc_run_verdict_t *v, const char *what)
{
    char text[FC_VERDICT_TEXT];

    snprintf(text, sizeof(text), "the plan record does not match the frozen inventory "
             "(hosts and racks in the output directory): %.300s: which hosts each rack has, and "
             "which of them the run left out, cannot be known", what);
    fc_verdict_add_run_finding(v, FC_VERDICT_INCOMPLETE, text);
}

/* Read the frozen copy NAME of an inventory file if the plan names one
 * (named: its path as given to the run, "" when none): *text_p stays NULL
 * when the plan names none. Returns 0, or -1 with the reason in what. */
static int fc_plan_inventory_file(const char *dir, const char *name, const char *named,
                                  char **text_p, char *what, size_t len)
{
    char path[4200];
    int present;

    *text_p = NULL;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    present = access(path, F_OK) == 0;
    if (!named[0] && !present)
        return 0;
    if (!named[0]) {
        snprintf(what, len, "the output directory holds a frozen %s file, the plan names "
                 "none", name);
        return -1;
    }
    if (!present) {
        snprintf(what, len, "the frozen %s file cannot be read (%s)", name, strerror(errno));
        return -1;
    }
    if (fc_input_read_plain(path, name, FC_INPUT_INVENTORY_MAX, text_p) != FC_OK) {
        snprintf(what, len, "the frozen %s file cannot be read (the error is above)", name);
        return -1;
    }
    return 0;
}

/* Does the plan's list (entries {host, rack}) hold exactly the n hosts
 * names[k] of racks racks[rack_of[k]]? The first difference into what. */
static int fc_plan_same_hosts(json_t *list, int n, char (*names)[FC_INV_NAME_MAX],
                              const int *rack_of, char (*racks)[FC_INV_NAME_MAX],
                              const char *label, char *what, size_t len)
{
    json_t *e;
    size_t i;

    for (int k = 0; k < n; ++k) {
        int found = 0;

        json_array_foreach(list, i, e)
            found |= strcmp(fc_json_str(e, "host"), names[k]) == 0 &&
                     strcmp(fc_json_str(e, "rack"), racks[rack_of[k]]) == 0;
        if (!found) {
            snprintf(what, len, "the frozen inventory %s %.64s (rack %.64s), the plan's "
                     "inventory.%s does not", strcmp(label, "left_out") == 0
                     ? "leaves out" : "runs", names[k], racks[rack_of[k]], label);
            return 0;
        }
    }
    json_array_foreach(list, i, e) {
        int found = 0;

        for (int k = 0; k < n && !found; ++k)
            found = strcmp(fc_json_str(e, "host"), names[k]) == 0 &&
                    strcmp(fc_json_str(e, "rack"), racks[rack_of[k]]) == 0;
        if (!found) {
            snprintf(what, len, "the plan's inventory.%s %s %.64s (rack %.64s), the frozen "
                     "inventory does not", label, strcmp(label, "left_out") == 0
                     ? "leaves out" : "runs", fc_json_str(e, "host"), fc_json_str(e, "rack"));
            return 0;
        }
    }
    if (json_array_size(list) != (size_t)n) {
        snprintf(what, len, "the plan's inventory.%s names %zu host(s), the frozen inventory "
                 "%d", label, json_array_size(list), n);
        return 0;
    }
    return 1;
}

int fc_verdict_plan_inventory(json_t *plan, const char *dir, fc_inventory_t *inv_p,
                              char *what, size_t len)
{
    json_t *plan_inv = json_object_get(plan, "inventory");
    const char *hosts_file = fc_json_str(plan_inv, "hosts_file");
    const char *racks_file = fc_json_str(plan_inv, "racks_file");
    char *hosts_text = NULL, *racks_text = NULL, hpath[4200], rpath[4200];
    fc_inventory_t inv;
    int ok = 0;

    if (!hosts_file[0] && !racks_file[0]) {
        /* the runner always has a host list (given, or written from the
         * allocation or this host) */
        snprintf(what, len, "the plan names no inventory file");
        return -1;
    }
    if (fc_plan_inventory_file(dir, "hosts", hosts_file, &hosts_text, what, len) ||
        fc_plan_inventory_file(dir, "racks", racks_file, &racks_text, what, len))
        goto out;
    snprintf(hpath, sizeof(hpath), "%s/hosts", dir);
    snprintf(rpath, sizeof(rpath), "%s/racks", dir);
    if (fc_inventory_parse(hosts_text, hpath, racks_text, rpath, &inv) != FC_OK) {
        snprintf(what, len, "it does not parse as an inventory (the error is above)");
        goto out;
    }
    ok = fc_plan_same_hosts(json_object_get(plan_inv, "hosts"), inv.nhosts, inv.hosts,
                            inv.host_rack, inv.racks, "hosts", what, len) &&
         /* a plan before left_out was recorded names none; the frozen
          * files say whether there were any */
         fc_plan_same_hosts(json_object_get(plan_inv, "left_out"), inv.nleft_out,
                            inv.left_out, inv.left_out_rack, inv.racks, "left_out", what,
                            len);
    if (ok && inv_p)
        *inv_p = inv;
    else
        fc_inventory_free(&inv);
out:
    free(hosts_text);
    free(racks_text);
    return ok ? 0 : -1;
}

void fc_verdict_check_plan_inventory(fc_run_verdict_t *v, const char *dir)
{
    char what[400];

    if (fc_verdict_plan_inventory(v->plan, dir, NULL, what, sizeof(what)) != 0)
        fc_plan_inventory_mismatch(v, what);
}
