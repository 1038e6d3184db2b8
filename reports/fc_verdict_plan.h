/*
 * fc_verdict_plan.h - the plan record checked against the profile it
 * claims. The verdicts take which stages a rack needs, and which of them
 * are required, from the runner's plan record; an edit there (a required
 * stage dropped from the list, or marked optional) would make a rack PASS
 * on less evidence. `fabcert run` freezes the profile it judged against
 * in the output directory (DIR/profile.yaml, the file the stages read,
 * whose SHA-256 the plan records), so `report` reads it again and checks
 * that the plan says the same: the same bytes (sha256), name, stages and
 * required flags, whether certificates must be signed, and stages
 * selected exactly as the recorded --stages override says (all of them
 * without it). Whether certificates must be signed is the frozen
 * profile's certificates: {require_signature: true} (v->require_signature;
 * the plan's flag only adds to it): a plan line that lost it must not
 * give unsigned certificates. A stage whose frozen profile says backend:
 * nccl and whose stage_start says it ran on anything else (--backend auto
 * or mpi on the command line wins in the stage) is INCOMPLETE on every
 * rack it ran on, naming why. A mismatch, or a frozen profile
 * that is missing or does not load, leaves every rack INCOMPLETE with the
 * reason (it is not bad input to refuse: the report is still written, and
 * says why nothing is certified).
 *
 * The inventory likewise: the plan's hosts and racks, and the rack-map
 * hosts it left out (inventory.left_out, which make their rack
 * INCOMPLETE), must be what the frozen host list and rack map of the
 * output directory (DIR/hosts, DIR/racks: the files the stages read) give
 * when parsed again (lib/inventory/fc_inventory.c); a plan line edited to drop a
 * left-out host would otherwise certify a rack tested in part. A file the
 * plan names that is missing or does not parse, or a difference, leaves
 * every rack INCOMPLETE with the reason.
 */
#ifndef FC_VERDICT_PLAN_H
#define FC_VERDICT_PLAN_H

#include "fc_inventory.h"
#include "fc_verdict.h"

/* The verdicts of the run in DIR as `fabcert report` reaches them, from
 * its records (DIR/results.jsonl, bad_lines of them unreadable): computed
 * against the frozen DIR/profile.yaml (what each stage measured against
 * its sweep and limits: fc_verdict.h), then the plan checked against that
 * profile and the frozen inventory. `compare` and `baseline` take their
 * runs' verdicts from it too, so a run is never PASS to one command and
 * not to another. FC_ERR_INVALID as fc_verdict_compute. */
fc_status_t fc_verdict_of_dir(const char *dir, json_t *records, int bad_lines,
                              fc_run_verdict_t *v);
/* Check v's plan against the frozen profile (NULL: it could not be used,
 * why says why); a finding on every rack for each thing that does not
 * match. */
void fc_verdict_check_plan_profile(fc_run_verdict_t *v, const fc_profile_t *frozen,
                                   const char *why);
/* The frozen inventory of DIR (DIR/hosts and DIR/racks as its plan names
 * them, parsed again) checked against the plan record's: 0, and when
 * inv_p is not NULL the inventory there (fc_inventory_free it), if they
 * are the same; -1 with the first difference, or why the files cannot be
 * used, in what. `run --rerun-failed` takes the hosts it runs from it. */
int fc_verdict_plan_inventory(json_t *plan, const char *dir, fc_inventory_t *inv_p,
                              char *what, size_t len);
/* Check v's plan inventory against DIR/hosts and DIR/racks; a finding on
 * every rack when they differ or cannot be read. */
void fc_verdict_check_plan_inventory(fc_run_verdict_t *v, const char *dir);

#endif
