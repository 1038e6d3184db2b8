/*
 * fc_html_page.c - see fc_html_page.h. Every string from a record, a host
 * list or the plan goes through fc_html_escape: a host or a reason cannot
 * add markup to a page.
 */
#include "fc_html_page.h"

#include <string.h>

#include "fc_report_text.h"

void fc_html_overrides(FILE *f, const fc_run_verdict_t *v)
{
    char overrides[4096], environment[4096];

    if (fc_sysfs_root_of(v)) {
        fprintf(f, "<p class=\"FAIL\"><b>sysfs</b>: FC_SYSFS_ROOT=");
        fc_html_escape(f, fc_sysfs_root_of(v));
        fprintf(f, ": preflight's inventory and the link counters (the soak's, each "
                "interval's) were read from that tree, not from /sys</p>\n");
    }
    fc_overrides_text(v, overrides, sizeof(overrides));
    if (overrides[0]) {
        fprintf(f, "<p class=\"FAIL\"><b>Overrides</b> (not the profile as written): ");
        fc_html_escape(f, overrides);
        fprintf(f, "</p>\n");
    }
    /* beside the overrides, as visible: they are not in the profile either */
    fc_environment_text(v, environment, sizeof(environment));
    if (environment[0]) {
        fprintf(f, "<p class=\"FAIL\"><b>Environment</b> (set where the run was launched; "
                "shapes what was measured, not in the profile): ");
        fc_html_escape(f, environment);
        fprintf(f, "</p>\n");
    }
}

void fc_html_resumes(FILE *f, const fc_run_verdict_t *v)
{
    for (size_t i = 0; i < json_array_size(v->resumes); ++i) {
        char text[1024];

        fc_resume_text(json_array_get(v->resumes, i), text, sizeof(text));
        fprintf(f, "<p class=\"muted\"><b>Resumed</b> ");
        fc_html_escape(f, text);
        fprintf(f, "</p>\n");
    }
    if (json_is_object(json_object_get(v->plan, "rerun_of"))) {
        char text[1024];

        fc_rerun_text(json_object_get(v->plan, "rerun_of"), text, sizeof(text));
        fprintf(f, "<p class=\"muted\"><b>Rerun</b> ");
        fc_html_escape(f, text);
        fprintf(f, "</p>\n");
    }
}

void fc_html_backend_notes(FILE *f, const fc_run_verdict_t *v)
{
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        for (int k = 0; k < v->nracks; ++k)
            if (v->racks[k].stages[s].backend_note[0]) {
                fprintf(f, "<p class=\"INCOMPLETE\"><b>Backend</b>: the %s stage ran on ",
                        fc_stage_name(s));
                fc_html_escape(f, v->racks[k].stages[s].backend);
                fprintf(f, ": ");
                fc_html_escape(f, v->racks[k].stages[s].backend_note);
                fprintf(f, "</p>\n");
                break;
            }
}

const char *fc_html_verdict_color(const char *v)
{
    return strcmp(v, "PASS") == 0 ? "#1a7f37" : strcmp(v, "FAIL") == 0 ? "#cf222e" : "#9a6700";
}

void fc_html_head(FILE *f, const char *title)
{
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
    fc_html_escape(f, title);
    fprintf(f, "</title>\n<style>\n"
        "body{font-family:sans-serif;margin:2em;max-width:1100px;color:#1f2328}\n"
        ".verdict{font-size:2em;font-weight:bold;padding:.4em .8em;color:#fff;border-radius:6px;display:inline-block}\n"
        "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:left;font-size:.9em}\n"
        "th{background:#f6f8fa}.PASS{color:#1a7f37;font-weight:bold}.FAIL{color:#cf222e;font-weight:bold}\n"
        ".INCOMPLETE{color:#9a6700;font-weight:bold}.todo li{margin:.4em 0}.muted{color:#656d76}\n"
        "svg{background:#fff;border:1px solid #d0d7de;margin:4px}\n"
        "</style></head><body>\n");
}
