/*
 * fc_junit.c - DIR/junit.xml for CI dashboards: one testsuite per rack,
 * one testcase per check that measured the rack (classname
 * fabcert.RACK.STAGE), a <failure> for each check that fails the rack, and
 * an <error type="INCOMPLETE"> for each reason a stage is incomplete on it
 * (a required stage left out, not run, not finished, ended in error or
 * judged nothing; a record that could not be read), so an incomplete rack
 * never shows green. Command-line overrides are a property of each suite,
 * and so is a sysfs tree read instead of /sys (sysfs_root). Each testcase's
 * <system-out> says which rules judged its figures and which were not
 * applied, and why (fc_rules_of, fc_record.h). A check that
 * failed but is attributed to another rack (a slow pair whose other end
 * has the bad link) passes here, saying so in <system-out>.
 */
#include "fc_junit.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fc_record.h"
#include "fc_report_text.h"
#include "fc_verdict_figures.h"
#include "fc_results.h"

static void fc_xml_escape(FILE *f, const char *s)
{
    for (; *s; ++s) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
                fputc(*s, f);
        }
    }
}

void fc_junit_escape(FILE *f, const char *s)
{
    fc_xml_escape(f, s);
}

static int fc_array_has(json_t *array, json_t *item)
{
    size_t i;
    json_t *v;

    json_array_foreach(array, i, v)
        if (v == item)
            return 1;
    return 0;
}

static const char *fc_first_reason(json_t *rec)
{
    const char *s = json_string_value(json_array_get(json_object_get(rec, "reasons"), 0));
    static char rejudged[512];

    if (fc_record_rejudged(rec, rejudged, sizeof(rejudged)))
        return rejudged;
    return s ? s : "failed";
}

/* A testcase's <system-out>: for a check that failed but is attributed to
 * another rack (attributed), which part and why; then the rules that
 * judged its figures and those that did not apply, with why (a limit that
 * could not judge must not read as one that passed). Nothing when there
 * is nothing to say. */
static void fc_junit_rules(FILE *f, const char *judged, const char *not_applied,
                           json_t *attributed)
{
    if (!attributed && !judged[0] && !not_applied[0])
        return;
    fprintf(f, "      <system-out>");
    if (attributed) {
        json_t *imp = json_object_get(attributed, "implicates");

        fprintf(f, "failed, attributed to %s ", fc_json_str(imp, "part"));
        fc_xml_escape(f, fc_json_str(imp, "host"));
        fprintf(f, " (rack ");
        fc_xml_escape(f, fc_json_str(imp, "rack"));
        fprintf(f, "): ");
        fc_xml_escape(f, fc_first_reason(attributed));
    }
    if (judged[0]) {
        fprintf(f, "%sjudged by: ", attributed ? "\n" : "");
        fc_xml_escape(f, judged);
    }
    if (not_applied[0]) {
        fprintf(f, "%snot applied: ", attributed || judged[0] ? "\n" : "");
        fc_xml_escape(f, not_applied);
    }
    fprintf(f, "</system-out>\n");
}

/* A finding that says a stage's evidence is missing, not a measurement:
 * the stage did not run or finish whole, records are missing or
 * misplaced, it ran on another backend than its profile demands, or the
 * rack's hosts were not all in the run */
static int fc_junit_is_stage_error(const fc_finding_t *fd)
{
    return fd->verdict == FC_VERDICT_INCOMPLETE &&
           (strcmp(fd->part, "stage") == 0 || strcmp(fd->part, "results") == 0 ||
            strcmp(fd->part, "backend") == 0 || strcmp(fd->part, "inventory") == 0 ||
            strcmp(fd->part, "gpus") == 0);
}

fc_status_t fc_junit_write(const char *path, const fc_run_verdict_t *v)
{
    FILE *f = fopen(path, "w");
    int tests = 0, failures = 0, errors = 0;
    char overrides[4096], environment[4096];

    if (f == NULL) {
        fc_write_failed(path, errno);
        fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
        return FC_ERR_INVALID;
    }
    fc_overrides_text(v, overrides, sizeof(overrides));
    fc_environment_text(v, environment, sizeof(environment));
    for (int k = 0; k < v->nracks; ++k) {
        const fc_rack_verdict_t *r = &v->racks[k];

        tests += (int)json_array_size(r->checks);
        failures += (int)json_array_size(r->failed_checks);
        errors += (int)json_array_size(r->incomplete_checks);
        for (int fi = 0; fi < r->nfindings; ++fi)
            if (fc_junit_is_stage_error(&r->findings[fi]))
                ++tests, ++errors;
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites name=\"fabcert\" tests=\"%d\" failures=\"%d\" errors=\"%d\">\n",
            tests, failures, errors);
    for (int k = 0; k < v->nracks; ++k) {
        const fc_rack_verdict_t *r = &v->racks[k];
        int t = (int)json_array_size(r->checks), fl = (int)json_array_size(r->failed_checks);
        int er = (int)json_array_size(r->incomplete_checks);
        size_t i;
        json_t *rec;

        for (int fi = 0; fi < r->nfindings; ++fi)
            if (fc_junit_is_stage_error(&r->findings[fi]))
                ++er;
        fprintf(f, "  <testsuite name=\"");
        fc_xml_escape(f, r->rack);
        fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"0\" "
                "timestamp=\"%s\">\n", t + er, fl, er, v->started);
        fprintf(f, "    <properties>\n      <property name=\"verdict\" value=\"%s\"/>\n",
                fc_verdict_name(r->verdict));
        fprintf(f, "      <property name=\"run_id\" value=\"");
        fc_xml_escape(f, v->run_id);
        fprintf(f, "\"/>\n      <property name=\"profile_sha256\" value=\"");
        fc_xml_escape(f, fc_json_str(v->plan, "profile_sha256"));
        fprintf(f, "\"/>\n");
        if (overrides[0]) {
            fprintf(f, "      <property name=\"overrides\" value=\"");
            fc_xml_escape(f, overrides);
            fprintf(f, "\"/>\n");
        }
        if (environment[0]) {
            fprintf(f, "      <property name=\"environment\" value=\"");
            fc_xml_escape(f, environment);
            fprintf(f, "\"/>\n");
        }
        if (fc_sysfs_root_of(v)) {
            fprintf(f, "      <property name=\"sysfs_root\" value=\"");
            fc_xml_escape(f, fc_sysfs_root_of(v));
            fprintf(f, "\"/>\n");
        }
        for (int s = 0; s < FC_STAGE_COUNT; ++s)
            if (r->stages[s].backend_note[0]) {
                fprintf(f, "      <property name=\"backend_fallback.%s\" value=\"ran on ",
                        fc_stage_name(s));
                fc_xml_escape(f, r->stages[s].backend);
                fprintf(f, ": ");
                fc_xml_escape(f, r->stages[s].backend_note);
                fprintf(f, "\"/>\n");
            }
        for (int s = 0; s < FC_STAGE_COUNT; ++s)
            if (r->stages[s].coverage[0]) {     /* a sampled pairs stage */
                fprintf(f, "      <property name=\"coverage.%s\" value=\"", fc_stage_name(s));
                fc_xml_escape(f, r->stages[s].coverage);
                fprintf(f, "\"/>\n");
            }
        fprintf(f, "    </properties>\n");
        json_array_foreach(r->checks, i, rec) {
            char label[256], judged[2048], not_applied[2048];
            int failed = fc_array_has(r->failed_checks, rec);

            fc_check_label(rec, label, sizeof(label));
            fc_rules_text(rec, 1, judged, sizeof(judged));
            fc_rules_text(rec, 0, not_applied, sizeof(not_applied));
            fprintf(f, "    <testcase classname=\"fabcert.");
            fc_xml_escape(f, r->rack);
            fputc('.', f);
            fc_xml_escape(f, fc_json_str(rec, "stage"));
            fprintf(f, "\" name=\"");
            fc_xml_escape(f, label);
            if (failed) {
                fprintf(f, "\">\n      <failure type=\"FAIL\" message=\"");
                fc_xml_escape(f, fc_first_reason(rec));
                fprintf(f, "\">");
                json_t *reason;
                size_t j;

                json_array_foreach(json_object_get(rec, "reasons"), j, reason) {
                    fc_xml_escape(f, json_string_value(reason));
                    fputc('\n', f);
                }
                fprintf(f, "</failure>\n");
                fc_junit_rules(f, judged, not_applied, NULL);
                fprintf(f, "    </testcase>\n");
            } else if (fc_array_has(r->incomplete_checks, rec)) {
                fprintf(f, "\">\n      <error type=\"INCOMPLETE\" message=\"");
                fc_xml_escape(f, fc_first_reason(rec));
                fprintf(f, "\"/>\n");
                fc_junit_rules(f, judged, not_applied, NULL);
                fprintf(f, "    </testcase>\n");
            } else if (strcmp(fc_record_verdict(rec), "FAIL") == 0) {
                fprintf(f, "\">\n");
                fc_junit_rules(f, judged, not_applied, rec);
                fprintf(f, "    </testcase>\n");
            } else if (judged[0] || not_applied[0]) {
                fprintf(f, "\">\n");
                fc_junit_rules(f, judged, not_applied, NULL);
                fprintf(f, "    </testcase>\n");
            } else {
                fprintf(f, "\"/>\n");
            }
        }
        for (int fi = 0; fi < r->nfindings; ++fi) {
            const fc_finding_t *fd = &r->findings[fi];

            if (!fc_junit_is_stage_error(fd))
                continue;
            fprintf(f, "    <testcase classname=\"fabcert.");
            fc_xml_escape(f, r->rack);
            fprintf(f, ".%s\" name=\"stage %s\">\n      <error type=\"INCOMPLETE\" "
                    "message=\"", fd->stage, fd->stage);
            fc_xml_escape(f, fd->text);
            fprintf(f, "\"/>\n    </testcase>\n");
        }
        fprintf(f, "  </testsuite>\n");
    }
    fprintf(f, "</testsuites>\n");
    if (fclose(f) != 0) {
        fc_write_failed(path, errno);
        fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
        return FC_ERR_INVALID;
    }
    return FC_OK;
}
