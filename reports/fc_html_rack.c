/*
 * fc_html_rack.c - one rack's page (fc_html_rack.h), for the person who
 * has to act on it: the verdict first, then what to do about each finding
 * (in words a technician can act on), the nodes, and each stage with its
 * plots (fc_html_plot.c) and its table of checks: per check its label,
 * what it measured (the cell of its type, fc_record.h), the rules that
 * judged it and those not applied with why, and its verdict.
 */
#include "fc_html_rack.h"

#include <stdio.h>
#include <string.h>

#include "fc_html_page.h"
#include "fc_html_pairs.h"
#include "fc_html_plot.h"
#include "fc_record.h"
#include "fc_report_text.h"
#include "fc_sensitivity.h"
#include "fc_verdict_figures.h"

/* The rules cell of a check: each rule that judged its figures, and each
 * that did not, marked and with its reason (fc_rules_of): a limit that
 * could not apply is never drawn as if it had judged. */
static void fc_html_rules(FILE *f, json_t *rec)
{
    json_t *lines = fc_rules_of(rec), *l;
    size_t i;

    json_array_foreach(lines, i, l) {
        if (i > 0)
            fprintf(f, "<br>");
        if (!json_is_true(json_object_get(l, "applied")))
            fprintf(f, "<span class=\"INCOMPLETE\">not applied</span>: ");
        fc_html_escape(f, fc_json_str(l, "text"));
    }
    json_decref(lines);
}

/* What the confirmation alone found, under a check's verdict. */
static void fc_html_confirmation(FILE *f, json_t *rec)
{
    json_t *c = json_object_get(rec, "confirmation");

    if (!json_is_object(c) || !fc_json_str(c, "text")[0])
        return;
    json_t *tol = json_object_get(c, "tolerance");

    fprintf(f, "<br><span class=\"muted\">confirmation (%s): ", fc_json_str(c, "verdict"));
    fc_html_escape(f, fc_json_str(c, "text"));
    /* the tolerance the alone judgement used, and why */
    if (json_is_object(tol) && fc_json_str(tol, "why")[0]) {
        fprintf(f, "; tolerance %.0f%%: ", json_number_value(json_object_get(tol, "used_pct")));
        fc_html_escape(f, fc_json_str(tol, "why"));
    }
    fprintf(f, "</span>");
}

/* Failures of a wrong result that a host placed elsewhere explains: not
 * this rack's (fc_verdict_retest.h), but shown with why. */
static void fc_html_rack_explained(FILE *f, const fc_rack_verdict_t *r)
{
    size_t i, n = json_array_size(r->explained);
    json_t *e;

    if (n == 0)
        return;
    fprintf(f, "<h2>Explained by a host placed elsewhere</h2>\n<ul>\n");
    json_array_foreach(r->explained, i, e) {
        if (i == 20) {
            fprintf(f, "<li>... and %zu more (see the certificate)</li>\n", n - 20);
            break;
        }
        fprintf(f, "<li>%s stage, ", fc_json_str(e, "stage"));
        fc_html_escape(f, fc_json_str(e, "check"));
        fprintf(f, ": <span class=\"muted\">");
        fc_html_escape(f, fc_json_str(e, "evidence"));
        fprintf(f, "</span></li>\n");
    }
    fprintf(f, "</ul>\n");
}

/* What to do about each finding, in words a technician can act on. */
static void fc_html_rack_todo(FILE *f, const fc_rack_verdict_t *r)
{
    if (r->nfindings > 0) {
        fprintf(f, "<h2>What to do</h2>\n<ol class=\"todo\">\n");
        for (int k = 0; k < r->nfindings; ++k) {
            const fc_finding_t *fd = &r->findings[k];

            fprintf(f, "<li><span class=\"%s\">%s</span> in the %s stage: <b>",
                    fc_verdict_name(fd->verdict), fc_verdict_name(fd->verdict), fd->stage);
            fc_html_escape(f, fd->part);
            if (fd->host[0]) {
                fprintf(f, " of host ");
                fc_html_escape(f, fd->host);
            }
            fprintf(f, "</b>. ");
            fc_html_escape(f, fc_part_action(fd->part));
            fprintf(f, ".<br><span class=\"muted\">Evidence: ");
            fc_html_escape(f, fd->text);
            fprintf(f, "</span></li>\n");
        }
        if (r->more_findings)
            fprintf(f, "<li>... and %d more findings (see the certificate)</li>\n",
                    r->more_findings);
        fprintf(f, "</ol>\n");
    } else {
        fprintf(f, "<p>Every check passed on every node of this rack.</p>\n");
    }
    fc_html_rack_explained(f, r);
}

/* The rack's nodes: each one's verdict, quarantined or in service. */
static void fc_html_rack_nodes(FILE *f, const fc_rack_verdict_t *r)
{
    fprintf(f, "<h2>Nodes</h2>\n<table><tr><th>host</th><th>verdict</th><th>status</th></tr>\n");
    for (int h = 0; h < r->nhosts; ++h) {
        const char *why = NULL;
        size_t i;
        json_t *q;

        json_array_foreach(r->quarantines, i, q)
            if (why == NULL && strcmp(fc_json_str(q, "host"), r->hosts[h]) == 0)
                why = fc_json_str(q, "reason");
        int implicated = 0;

        json_array_foreach(r->failed_checks, i, q)
            implicated |= strcmp(fc_json_str(json_object_get(q, "implicates"), "host"),
                                 r->hosts[h]) == 0;
        fprintf(f, "<tr><td>");
        fc_html_escape(f, r->hosts[h]);
        {
            const char *nv = why || implicated ? "FAIL" :
                             r->verdict == FC_VERDICT_INCOMPLETE ? "INCOMPLETE" : "PASS";

            fprintf(f, "</td><td class=\"%s\">%s", nv, nv);
        }
        if (why) {
            fprintf(f, "</td><td><span class=\"FAIL\">quarantined</span>: ");
            fc_html_escape(f, why);
        } else {
            fprintf(f, "</td><td>in service");
        }
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
}

/* One row of a stage's table of checks: its label, what it measured (the
 * cell of its type), the rules that judged it, and its verdict. */
static void fc_html_check_row(FILE *f, json_t *rec)
{
    const fc_record_type_t *t = fc_record_type_of(rec);
    char label[256];

    fc_check_label(rec, label, sizeof(label));
    fprintf(f, "<tr><td>");
    fc_html_escape(f, label);
    fprintf(f, "</td><td>");
    if (t->cell)
        t->cell(f, rec);
    fprintf(f, "</td><td>");
    fc_html_rules(f, rec);
    fprintf(f, "</td><td class=\"%s\">%s", fc_record_verdict(rec),
            fc_record_verdict(rec));
    if (strcmp(fc_json_str(rec, "verdict"), "FAIL") == 0) {
        fprintf(f, ": ");
        fc_html_escape(f, json_string_value(json_array_get(json_object_get(rec, "reasons"), 0)));
    } else if (strcmp(fc_record_verdict(rec), "FAIL") == 0) {
        char why[512];

        fc_record_rejudged(rec, why, sizeof(why));
        fprintf(f, ": ");
        fc_html_escape(f, why);
    }
    fc_html_confirmation(f, rec);
    fprintf(f, "</td></tr>\n");
}

/* One stage on the rack: its verdict and what it ran on, its plots, and
 * its checks (the first 2001 of them). */
static void fc_html_rack_stage(FILE *f, const fc_run_verdict_t *v,
                               const fc_rack_verdict_t *r, int s)
{
    const char *sv = fc_verdict_name(r->stages[s].verdict);
    size_t i;
    json_t *rec;
    int shown = 0;

    fprintf(f, "<h2>%s stage: <span class=\"%s\">%s</span></h2>\n", fc_stage_name(s), sv, sv);
    fprintf(f, "<p>%d checks, %d failed%s%s%s", r->stages[s].checks,
            r->stages[s].failed, !v->selected[s] ? "; left out of this run (--stages)" :
            r->stages[s].ran ? "" : "; the stage did not run or finish on this rack",
            v->required[s] ? "" : " (optional stage)",
            r->stages[s].backend[0] ? "; backend " : "");
    fc_html_escape(f, r->stages[s].backend);
    if (r->stages[s].backend_note[0]) {
        fprintf(f, " (");
        fc_html_escape(f, r->stages[s].backend_note);
        fprintf(f, ")");
    }
    if (r->stages[s].coverage[0]) {
        fprintf(f, "; ");
        fc_html_escape(f, r->stages[s].coverage);
        fprintf(f, " (grey cells: not measured)");
    }
    fprintf(f, ".</p>\n");
    {
        /* DESIGN rule 3: how small a loss its limits would have caught */
        json_t *timed = json_array(), *sens;

        json_array_foreach(r->checks, i, rec)
            if (strcmp(fc_json_str(rec, "stage"), fc_stage_name(s)) == 0)
                json_array_append(timed, rec);
        sens = fc_sensitivity_stage(timed, fc_stage_group_noun(s));
        if (json_is_object(sens)) {
            fprintf(f, "<p><b>Sensitivity</b>: ");
            fc_html_escape(f, fc_json_str(sens, "statement"));
            if (json_integer_value(json_object_get(sens, "looser_than_noise")) > 0 ||
                json_integer_value(json_object_get(sens, "inside_noise")) > 0)
                fprintf(f, "; limits looser than the noise: %lld, inside the noise: %lld",
                        (long long)json_integer_value(json_object_get(sens, "looser_than_noise")),
                        (long long)json_integer_value(json_object_get(sens, "inside_noise")));
            fprintf(f, ".</p>\n");
        }
        json_decref(sens);
        json_decref(timed);
    }
    /* the stage table says how its figures are shown */
    switch (fc_stage_desc(s)->view) {
    case FC_VIEW_PAIRS:
        if (fc_html_run_hosts(v) > FC_HTML_PAIRS_NODES)
            fc_html_pairs_rack_drill(f, v, r, fc_stage_name(s));  /* too many to draw */
        else
            fc_html_pairs_heatmap(f, r, fc_stage_name(s));
        break;
    case FC_VIEW_SOAK:
        fc_html_stage_plots(f, r, fc_stage_name(s));
        fc_html_soak_plot(f, r, fc_stage_name(s));
        break;
    case FC_VIEW_SWEEP:
        fc_html_stage_plots(f, r, fc_stage_name(s));
        break;
    case FC_VIEW_SCALING:
        fc_html_scaling_plot(f, r, fc_stage_name(s));
        break;
    case FC_VIEW_TABLE:
        break;
    }
    fprintf(f, "<details%s><summary>checks</summary>\n<table><tr><th>check</th>"
            "<th>measured</th><th>rules: judged by, or not applied and why</th>"
            "<th>verdict</th></tr>\n",
            r->stages[s].failed ? " open" : "");
    json_array_foreach(r->checks, i, rec)
        if (strcmp(fc_json_str(rec, "stage"), fc_stage_name(s)) == 0 && shown++ <= 2000)
            fc_html_check_row(f, rec);
    fprintf(f, "</table></details>\n");
}

void fc_html_rack_page(FILE *f, const fc_run_verdict_t *v, const fc_rack_verdict_t *r)
{
    const char *verdict = fc_verdict_name(r->verdict);
    char title[160];

    snprintf(title, sizeof(title), "fabcert: rack %s: %s", r->rack, verdict);
    fc_html_head(f, title);
    fprintf(f, "<p><a href=\"index.html\">all racks</a></p>\n<h1>Rack ");
    fc_html_escape(f, r->rack);
    fprintf(f, "</h1>\n<div class=\"verdict\" style=\"background:%s\">%s</div>\n",
            fc_html_verdict_color(verdict), verdict);
    fprintf(f, "<p class=\"muted\">run ");
    fc_html_escape(f, v->run_id);
    fprintf(f, ", %s to %s, profile ", v->started, v->finished);
    fc_html_escape(f, fc_json_str(v->plan, "profile"));
    fprintf(f, " (sha256 %.16s), fabcert ", fc_json_str(v->plan, "profile_sha256"));
    fc_html_escape(f, fc_json_str(v->plan, "version"));
    fprintf(f, "</p>\n");
    fc_html_resumes(f, v);
    fc_html_overrides(f, v);
    fc_html_rack_todo(f, r);
    fc_html_rack_nodes(f, r);
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        if (v->planned[s])
            fc_html_rack_stage(f, v, r, s);
    fprintf(f, "<p class=\"muted\">The signed record of this page is "
            "certificates/%s.json; check it with <code>fabcert verify</code>.</p>\n", r->rack);
    fprintf(f, "</body></html>\n");
}
