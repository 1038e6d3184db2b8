/*
 * fc_report.c - `fabcert report DIR`: load results.jsonl, compute the
 * verdicts (fc_verdict.c), check the plan against the frozen profile
 * (fc_verdict_plan.c), and write the certificates (fc_certificate.h),
 * JUnit (fc_junit.h), the HTML (fc_html.h) and the summary
 * (fc_summary.h); fc_report.h lists the files. Nothing below this file
 * calls back into it.
 */
#include "fc_report.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "fc_certificate.h"
#include "fc_html.h"
#include "fc_junit.h"
#include "fc_results.h"
#include "fc_summary.h"
#include "fc_verdict_plan.h"

/* Under a profile with certificates: {require_signature: true} (the
 * frozen profile.yaml of the output directory says so, read by the plan
 * check: fc_verdict_plan.h) a report without a key writes no certificate:
 * an unsigned one would look signed off. The rest is written; the run is
 * not certified and the exit status is not 0. */
static int fc_report_unsigned_refused(const fc_run_verdict_t *v, const unsigned char *key)
{
    return key == NULL && v->require_signature;
}

static void fc_summary_unsigned(FILE *out, const fc_run_verdict_t *v)
{
    fc_print_line(out, "NOT CERTIFIED: profile %s requires signed certificates (certificates: "
                  "require_signature: true) and no --sign-key was given: no certificate was "
                  "written; sign them with: fabcert report DIR --sign-key KEY",
                  fc_json_str(v->plan, "profile"));
}

fc_status_t fc_report_dir(const char *dir, const char *sign_key_path, int quiet,
                          fc_verdict_t *overall_p)
{
    return fc_report_dir_racks(dir, sign_key_path, quiet, overall_p, NULL);
}

fc_status_t fc_report_dir_racks(const char *dir, const char *sign_key_path, int quiet,
                                fc_verdict_t *overall_p, json_t **racks_p)
{
    unsigned char sk[crypto_sign_SECRETKEYBYTES], *key = NULL;
    char path[4200];
    json_t *records = NULL;
    fc_run_verdict_t v;
    fc_status_t st;
    FILE *f;
    int bad = 0;

    if (sodium_init() < 0)
        return FC_ERR_INTERNAL;
    if (sign_key_path) {
        if (fc_key_load(sign_key_path, 1, sk, sizeof(sk)) != FC_OK)
            return FC_ERR_INVALID;
        key = sk;
    }
    snprintf(path, sizeof(path), "%s/results.jsonl", dir);
    if ((st = fc_results_load(path, 0, &records, &bad)) != FC_OK)
        goto out_key;
    /* against the frozen profile and inventory (fc_verdict_plan.h) */
    if ((st = fc_verdict_of_dir(dir, records, bad, &v)) != FC_OK)
        goto out_records;
    snprintf(path, sizeof(path), "%s/certificates", dir);
    if ((st = fc_mkdir_p(path)) != FC_OK)
        goto out_verdict;
    for (int k = 0; k < v.nracks && st == FC_OK && !fc_report_unsigned_refused(&v, key); ++k)
        st = fc_certificate_write(dir, &v, &v.racks[k], key);
    if (st == FC_OK) {
        snprintf(path, sizeof(path), "%s/junit.xml", dir);
        st = fc_junit_write(path, &v);
    }
    if (st == FC_OK)
        st = fc_html_write(dir, &v);
    if (st == FC_OK) {
        snprintf(path, sizeof(path), "%s/summary.txt", dir);
        if ((f = fopen(path, "w")) == NULL) {
            fc_write_failed(path, errno);
            fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
            st = FC_ERR_INVALID;
        } else {
            fc_summary_write(f, &v, NULL);
            if (fc_report_unsigned_refused(&v, key))
                fc_summary_unsigned(f, &v);
            fclose(f);
        }
    }
    if (st == FC_OK && !quiet) {
        fc_summary_write(stdout, &v, dir);
        if (fc_report_unsigned_refused(&v, key))
            fc_summary_unsigned(stdout, &v);
    }
    if (overall_p)      /* not certified is never a pass */
        *overall_p = fc_report_unsigned_refused(&v, key) && v.overall == FC_VERDICT_PASS
                         ? FC_VERDICT_INCOMPLETE : v.overall;
    if (racks_p && st == FC_OK) {
        *racks_p = json_array();
        for (int k = 0; k < v.nracks; ++k)      /* unsigned: not certified, as above */
            json_array_append_new(*racks_p, json_pack("{s:s, s:s}", "rack", v.racks[k].rack,
                "verdict", fc_verdict_name(fc_report_unsigned_refused(&v, key) &&
                v.racks[k].verdict == FC_VERDICT_PASS ? FC_VERDICT_INCOMPLETE
                                                      : v.racks[k].verdict)));
    }
out_verdict:
    fc_verdict_free(&v);
out_records:
    json_decref(records);
out_key:
    sodium_memzero(sk, sizeof(sk));
    return st;
}
