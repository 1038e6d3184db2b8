/*
 * fc_report.h - the `fabcert report DIR` command: from a run's
 * results.jsonl, the verdicts and everything written from them:
 *
 *   DIR/certificates/RACK.json      the rack's certificate (fc_certificate.h)
 *   DIR/certificates/RACK.json.sig  detached Ed25519 signature (--sign-key)
 *   DIR/report/index.html           racks and verdicts (fc_html.h)
 *   DIR/report/rack-RACK.html       one self-contained page per rack
 *   DIR/junit.xml                   one testsuite per rack (fc_junit.h)
 *   DIR/summary.txt                 one line per rack, then the failures
 *                                   (fc_summary.h)
 *
 * Nothing in a report depends on when or where it was made, so the same
 * directory gives the same bytes every time.
 *
 * The runner (runners/fabcert.c, runners/fc_retest.c) reaches through this
 * header the helpers it also uses: one safe line of text (fc_report_text.h),
 * keys, signatures and `verify` (fc_sign.h), and which record types are
 * checks (fc_record.h); they belong to those modules, not to the command.
 */
#ifndef FC_REPORT_H
#define FC_REPORT_H

#include "fc_record.h"
#include "fc_report_text.h"
#include "fc_sign.h"
#include "fc_verdict.h"

/* Verdicts, certificates, JUnit, HTML and the summary for one output
 * directory; prints the summary unless quiet. With sign_key_path, signs
 * each certificate. *overall_p: the run's verdict (never PASS when a
 * signature the profile requires is missing). */
fc_status_t fc_report_dir(const char *dir, const char *sign_key_path,
                          int quiet, fc_verdict_t *overall_p);
/* The same; with racks_p, also each rack's verdict as the reports give it
 * ([{"rack": ..., "verdict": ...}], the caller's; for the runner's
 * metrics, fc_metrics.h). */
fc_status_t fc_report_dir_racks(const char *dir, const char *sign_key_path, int quiet,
                                fc_verdict_t *overall_p, json_t **racks_p);

#endif
