/*
 * fc_compare_write.c - what `fabcert compare` writes (fc_compare.h): a
 * delta certificate per rack (certificates/RACK.json, the format of
 * fc_sign.h with FC_DELTA_FORMAT, so `fabcert verify` checks it like a
 * run's), summary.txt, junit.xml (a testsuite per rack, a testcase per
 * comparison: a failure when slower, an error when not compared or the
 * rack is incomplete) and index.html (before and after per comparison,
 * the interval drawn against the floor). No path, clock or host of the
 * machine that compared goes in: the same two runs give the same bytes.
 */
#include "fc_compare_int.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "fc_certificate.h"
#include "fc_html_page.h"
#include "fc_junit.h"
#include "fc_report_text.h"
#include "fc_results.h"
#include "fc_version.h"

static json_t *fc_cmp_input_json(const fc_cmp_input_t *in, const char *rack)
{
    const char *verdict = NULL;

    for (int k = 0; k < in->v.nracks; ++k)
        if (!strcmp(in->v.racks[k].rack, rack))
            verdict = fc_verdict_name(in->v.racks[k].verdict);
    return json_pack("{s:s, s:s, s:{s:s, s:s}, s:s, s:o, s:i}", "run_id", in->v.run_id,
                     "results_sha256", in->sha256, "profile", "name",
                     fc_json_str(in->v.plan, "profile"), "sha256",
                     fc_json_str(in->v.plan, "profile_sha256"), "tool_version",
                     fc_json_str(in->v.plan, "version"), "verdict",
                     verdict ? json_string(verdict) : json_null(), "unreadable_records",
                     in->bad_lines);
}

static json_t *fc_cmp_item_json(const fc_cmp_item_t *it)
{
    json_t *j;

    if (!it->compared)
        return json_pack("{s:s, s:s, s:s, s:s}", "check", it->label, "stage", it->stage,
                         "verdict", "not compared", "reason", it->why);
    j = json_pack("{s:s, s:s, s:s, s:f, s:[f,f], s:f, s:b, s:{s:f, s:i}, s:{s:f, s:i}, "
                     "s:f, s:f}", "check", it->label, "stage", it->stage, "verdict",
                     it->slower ? "slower" : "not slower", "ratio", it->r.ratio, "interval",
                     it->r.ci_lo, it->r.ci_hi, "p", it->r.p, "rejected", it->rejected,
                     "before", "median_us", it->r.median_b, "samples", it->nb, "after",
                     "median_us", it->r.median_a, "samples", it->na, "noise_pct",
                     100 * it->r.noise, "detectable_slowdown_pct", 100 * it->detectable);
    if (it->explained)      /* the node its slowdown was placed on */
        json_object_set_new(j, "placed_on", json_pack("{s:s, s:s}", "host", it->placed_host,
                                                      "rack", it->placed_rack));
    return j;
}

json_t *fc_compare_certificate(const fc_compare_t *c, const fc_cmp_rack_t *r)
{
    const fc_compare_opts_t *o = c->o;
    json_t *items = json_array(), *findings = json_array(), *cert;
    char statement[1024], method[1024];

    for (int k = 0; k < c->nitems; ++k)
        if (fc_cmp_item_in_rack(&c->items[k], r->rack))
            json_array_append_new(items, fc_cmp_item_json(&c->items[k]));
    for (int k = 0; k < c->nfindings; ++k)
        if (fc_cmp_finding_in_rack(&c->findings[k], r->rack))
            json_array_append_new(findings, json_pack(
                "{s:s, s:s, s:s, s:s}", "part", c->findings[k].part, "host",
                c->findings[k].host, "evidence", c->findings[k].text, "action",
                fc_part_action(c->findings[k].part)));
    fc_cmp_rack_statement(c, r, statement, sizeof(statement));
    snprintf(method, sizeof(method), "slower when the one-sided Mann-Whitney U test (normal "
             "approximation, tie-corrected) rejects 'not slower' under Holm's step-down over "
             "all %d comparisons at family-wise level %.4g, and the percentile bootstrap "
             "interval (%d resamples) of the ratio of median times lies above %.4g; "
             "detectable slowdown: (1 + floor) x exp((z(1 - level/%d) + z(power)) x noise x "
             "sqrt(1/nb + 1/na) / sqrt(3/pi)) - 1, noise the pooled 1.4826 x MAD of "
             "log-times", c->ncompared, o->alpha, FC_CMP_BOOT, 1 + o->min_slowdown,
             c->ncompared > 0 ? c->ncompared : 1);
    cert = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:{s:s, s:f, s:f, s:f, s:i, s:i}, "
                     "s:i, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:s}",
                     "format", FC_DELTA_FORMAT, "rack", r->rack, "verdict",
                     fc_verdict_name(r->verdict), "statement", statement, "before",
                     fc_cmp_input_json(&c->in[0], r->rack), "after",
                     fc_cmp_input_json(&c->in[1], r->rack), "method", "rule", method,
                     "confidence", 1 - o->alpha, "power", o->power, "min_slowdown_pct",
                     100 * o->min_slowdown, "bootstrap_resamples", FC_CMP_BOOT,
                     "comparisons_in_family", c->ncompared, "compared", r->compared,
                     "slower", r->slower, "not_compared", r->not_compared,
                     "measurements_only_in_after", c->only_after,
                     "detectable_slowdown_pct", r->least >= 0 ? json_real(100 * r->detectable)
                                                              : json_null(),
                     "least_sensitive", r->least >= 0 ? json_string(c->items[r->least].label)
                                                      : json_null(),
                     "incomplete_reasons", json_deep_copy(r->reasons), "findings", findings,
                     "comparisons", items, "tool_version", FC_VERSION);
    return cert;
}

void fc_compare_summary(FILE *f, const fc_compare_t *c)
{
    int n[3] = { 0, 0, 0 };

    for (int s = 0; s < 2; ++s)
        fc_print_line(f, "%s: run %s, profile %s, results.jsonl sha256 %s, its own verdict %s",
                      s ? "after" : "before", c->in[s].v.run_id,
                      fc_json_str(c->in[s].v.plan, "profile"), c->in[s].sha256,
                      fc_verdict_name(c->in[s].v.overall));
    fc_print_line(f, "method: one-sided Mann-Whitney U, Holm over %d comparisons at %.0f%% "
                  "confidence; bootstrap interval of the ratio of medians; slower only above "
                  "a %.4g%% floor; detectable slowdowns at %.0f%% power",
                  c->ncompared, 100 * (1 - c->o->alpha), 100 * c->o->min_slowdown,
                  100 * c->o->power);
    if (c->only_after > 0)
        fc_print_line(f, "note: %d measurement(s) of AFTER have none in BEFORE: not compared",
                      c->only_after);
    for (int q = 0; q < c->nracks; ++q) {
        const fc_cmp_rack_t *r = &c->racks[q];
        char statement[1024];
        size_t i;
        json_t *why;

        ++n[r->verdict];
        fc_cmp_rack_statement(c, r, statement, sizeof(statement));
        fc_print_line(f, "rack %s: %s: %s", r->rack, fc_verdict_name(r->verdict), statement);
        for (int k = 0; k < c->nfindings; ++k)
            if (fc_cmp_finding_in_rack(&c->findings[k], r->rack))
                fc_print_line(f, "  %s", c->findings[k].text);
        json_array_foreach(r->reasons, i, why)
            fc_print_line(f, "  incomplete: %s", json_string_value(why));
        for (int k = 0, shown = 0; k < c->nitems; ++k)
            if (!c->items[k].compared && fc_cmp_item_in_rack(&c->items[k], r->rack) &&
                shown++ < 3)
                fc_print_line(f, "  not compared: %s: %s%s", c->items[k].label,
                              c->items[k].why, shown == 3 && r->not_compared > 3
                              ? " (and more: the certificate lists them)" : "");
    }
    fc_print_line(f, "compare: %s (%d rack(s): %d slower, %d without regression, "
                  "%d incomplete)", fc_verdict_name(c->overall), c->nracks,
                  n[FC_VERDICT_FAIL], n[FC_VERDICT_PASS], n[FC_VERDICT_INCOMPLETE]);
}

static void fc_cmp_junit(FILE *f, const fc_compare_t *c)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"fabcert "
            "compare\">\n");
    for (int q = 0; q < c->nracks; ++q) {
        const fc_cmp_rack_t *r = &c->racks[q];
        int tests = (int)json_array_size(r->reasons) > 0;
        size_t i;
        json_t *why;

        for (int k = 0; k < c->nitems; ++k)
            tests += fc_cmp_item_in_rack(&c->items[k], r->rack);
        fprintf(f, "  <testsuite name=\"");
        fc_junit_escape(f, r->rack);
        fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\">\n", tests, r->slower,
                r->not_compared + (json_array_size(r->reasons) > 0));
        fprintf(f, "    <properties><property name=\"before\" value=\"");
        fc_junit_escape(f, c->in[0].v.run_id);
        fprintf(f, " %s\"/><property name=\"after\" value=\"", c->in[0].sha256);
        fc_junit_escape(f, c->in[1].v.run_id);
        fprintf(f, " %s\"/></properties>\n", c->in[1].sha256);
        for (int k = 0; k < c->nitems; ++k) {
            const fc_cmp_item_t *it = &c->items[k];
            char text[400];

            if (!fc_cmp_item_in_rack(it, r->rack))
                continue;
            fprintf(f, "    <testcase classname=\"");
            fc_junit_escape(f, r->rack);
            fprintf(f, ".%s\" name=\"", it->stage);
            fc_junit_escape(f, it->label);
            fprintf(f, "\">");
            if (!it->compared) {
                fprintf(f, "<error message=\"not compared: ");
                fc_junit_escape(f, it->why);
                fprintf(f, "\"/>");
            } else {
                fc_cmp_item_text(it, text, sizeof(text));
                if (fc_cmp_item_fails_rack(it, r->rack)) {
                    fprintf(f, "<failure message=\"");
                    fc_junit_escape(f, text);
                    fprintf(f, "\"/>");
                }
                fprintf(f, "<system-out>");
                fc_junit_escape(f, text);
                fprintf(f, "; p %.3g; detectable %.1f%%", it->r.p, 100 * it->detectable);
                if (it->explained) {
                    fprintf(f, "; placed on node ");
                    fc_junit_escape(f, it->placed_host);
                    fprintf(f, " (rack ");
                    fc_junit_escape(f, it->placed_rack);
                    fprintf(f, ")");
                }
                fprintf(f, "</system-out>");
            }
            fprintf(f, "</testcase>\n");
        }
        if (json_array_size(r->reasons) > 0) {
            fprintf(f, "    <testcase classname=\"");
            fc_junit_escape(f, r->rack);
            fprintf(f, ".compare\" name=\"comparison complete\">");
            json_array_foreach(r->reasons, i, why) {
                fprintf(f, "<error message=\"");
                fc_junit_escape(f, json_string_value(why));
                fprintf(f, "\"/>");
            }
            fprintf(f, "</testcase>\n");
        }
        fprintf(f, "  </testsuite>\n");
    }
    fprintf(f, "</testsuites>\n");
}

/* The ratio's interval as a bar on a log scale from 1/2 to 4, with 1 and
 * the floor marked. */
static void fc_cmp_html_bar(FILE *f, const fc_compare_t *c, const fc_cmp_item_t *it)
{
    double x0 = log(0.5), x1 = log(4.0), w = 240;
#define FC_X(v) (w * (fmin(fmax(log(v), x0), x1) - x0) / (x1 - x0))

    fprintf(f, "<svg width=\"%.0f\" height=\"14\"><line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" "
            "y2=\"14\" stroke=\"#888\"/><line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"14\" "
            "stroke=\"#c60\" stroke-dasharray=\"2,2\"/><rect x=\"%.1f\" y=\"4\" "
            "width=\"%.1f\" height=\"6\" fill=\"%s\"/><circle cx=\"%.1f\" cy=\"7\" r=\"3\"/>"
            "</svg>", w, FC_X(1.0), FC_X(1.0), FC_X(1 + c->o->min_slowdown),
            FC_X(1 + c->o->min_slowdown), FC_X(it->r.ci_lo),
            fmax(1, FC_X(it->r.ci_hi) - FC_X(it->r.ci_lo)), it->slower ? "#c00" : "#393",
            FC_X(it->r.ratio));
#undef FC_X
}

static void fc_cmp_html(FILE *f, const fc_compare_t *c)
{
    fc_html_head(f, "fabcert compare");
    fprintf(f, "<h1>fabcert compare: %s</h1>\n<p>before: run ", fc_verdict_name(c->overall));
    fc_html_escape(f, c->in[0].v.run_id);
    fprintf(f, " (results %.16s...), after: run ", c->in[0].sha256);
    fc_html_escape(f, c->in[1].v.run_id);
    fprintf(f, " (results %.16s...). Bars: the %.0f%% interval of the ratio of median "
            "times (after / before) on a log scale from 0.5 to 4; grey line 1, dashed the "
            "%.4g%% floor.</p>\n", c->in[1].sha256, 100 * (1 - c->o->alpha),
            100 * c->o->min_slowdown);
    for (int q = 0; q < c->nracks; ++q) {
        const fc_cmp_rack_t *r = &c->racks[q];
        char statement[1024];

        fc_cmp_rack_statement(c, r, statement, sizeof(statement));
        fprintf(f, "<h2 class=\"%s\">rack ", fc_verdict_name(r->verdict));
        fc_html_escape(f, r->rack);
        fprintf(f, ": %s</h2>\n<p>", fc_verdict_name(r->verdict));
        fc_html_escape(f, statement);
        fprintf(f, "</p>\n<ul>\n");
        for (int k = 0; k < c->nfindings; ++k)
            if (fc_cmp_finding_in_rack(&c->findings[k], r->rack)) {
                fprintf(f, "<li class=\"FAIL\">");
                fc_html_escape(f, c->findings[k].text);
                fprintf(f, "</li>\n");
            }
        fprintf(f, "</ul>\n<table><tr><th>comparison</th><th>before (median us, samples)"
                "</th><th>after</th><th>ratio</th><th>interval</th><th>p</th>"
                "<th>detectable</th><th></th><th>verdict</th></tr>\n");
        for (int k = 0; k < c->nitems; ++k) {
            const fc_cmp_item_t *it = &c->items[k];

            if (!fc_cmp_item_in_rack(it, r->rack))
                continue;
            fprintf(f, "<tr><td>");
            fc_html_escape(f, it->label);
            if (!it->compared) {
                fprintf(f, "</td><td colspan=\"7\">");
                fc_html_escape(f, it->why);
                fprintf(f, "</td><td class=\"INCOMPLETE\">not compared</td></tr>\n");
                continue;
            }
            fprintf(f, "</td><td>%.4g (%d)</td><td>%.4g (%d)</td><td>%.3f</td>"
                    "<td>%.3f-%.3f</td><td>%.2g</td><td>%.1f%%</td><td>", it->r.median_b,
                    it->nb, it->r.median_a, it->na, it->r.ratio, it->r.ci_lo, it->r.ci_hi,
                    it->r.p, 100 * it->detectable);
            fc_cmp_html_bar(f, c, it);
            fprintf(f, "</td><td class=\"%s\">%s", fc_cmp_item_fails_rack(it, r->rack)
                    ? "FAIL" : "PASS", it->slower ? "slower" : "not slower");
            if (it->explained) {
                fprintf(f, " (placed on node ");
                fc_html_escape(f, it->placed_host);
                fprintf(f, ")");
            }
            fprintf(f, "</td></tr>\n");
        }
        fprintf(f, "</table>\n");
    }
    fprintf(f, "</body></html>\n");
}

static fc_status_t fc_cmp_write_text(const char *dir, const char *name, const fc_compare_t *c,
                                     void (*write)(FILE *, const fc_compare_t *))
{
    char path[4200];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if ((f = fopen(path, "w")) == NULL) {
        fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
        return FC_ERR_INVALID;
    }
    write(f, c);
    if (fclose(f) != 0) {
        fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

fc_status_t fc_compare_write(const fc_compare_t *c, const unsigned char *secret_key)
{
    char path[4200];
    fc_status_t st;

    snprintf(path, sizeof(path), "%s/certificates", c->o->out_dir);
    if ((st = fc_mkdir_p(path)) != FC_OK)
        return st;
    for (int q = 0; q < c->nracks && st == FC_OK; ++q) {
        snprintf(path, sizeof(path), "%s/certificates/%s.json", c->o->out_dir,
                 c->racks[q].rack);
        st = fc_certificate_file_write(path, fc_compare_certificate(c, &c->racks[q]),
                                       secret_key);
    }
    if (st == FC_OK)
        st = fc_cmp_write_text(c->o->out_dir, "summary.txt", c, fc_compare_summary);
    if (st == FC_OK)
        st = fc_cmp_write_text(c->o->out_dir, "junit.xml", c, fc_cmp_junit);
    if (st == FC_OK)
        st = fc_cmp_write_text(c->o->out_dir, "index.html", c, fc_cmp_html);
    return st;
}
