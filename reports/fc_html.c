/*
 * fc_html.c - the HTML report (fc_html.h): DIR/report/index.html, the
 * run's verdict and one row per rack with its first finding, and each
 * rack's page (fc_html_rack.c). Each page is one self-contained file:
 * inline CSS, inline SVG plots, no scripts, fonts or network.
 */
#include "fc_html.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fc_html_page.h"
#include "fc_html_pairs.h"
#include "fc_stages.h"
#include "fc_html_rack.h"
#include "fc_results.h"

/* The index: the run's verdict, what was not the profile as written, and
 * one row per rack with its first finding. */
static void fc_html_index(FILE *f, const fc_run_verdict_t *v)
{
    fc_html_head(f, "fabcert: racks");
    fprintf(f, "<h1>fabcert run ");
    fc_html_escape(f, v->run_id);
    fprintf(f, "</h1>\n<div class=\"verdict\" style=\"background:%s\">%s</div>\n",
            fc_html_verdict_color(fc_verdict_name(v->overall)), fc_verdict_name(v->overall));
    fprintf(f, "<p class=\"muted\">%s to %s, profile ", v->started, v->finished);
    fc_html_escape(f, fc_json_str(v->plan, "profile"));
    fprintf(f, ", fabcert ");
    fc_html_escape(f, fc_json_str(v->plan, "version"));
    fprintf(f, "</p>\n");
    fc_html_resumes(f, v);
    fc_html_overrides(f, v);
    fc_html_backend_notes(f, v);
    /* a large run's pairs, rack by rack, before its long table */
    if (fc_html_run_hosts(v) > FC_HTML_PAIRS_NODES)
        for (int s = 0; s < FC_STAGE_COUNT; ++s)
            if (fc_stage_desc((fc_stage_id_t)s)->view == FC_VIEW_PAIRS)
                fc_html_pairs_racks(f, v, fc_stage_name((fc_stage_id_t)s));
    fprintf(f, "<table><tr><th>rack</th><th>verdict</th><th>hosts</th>"
            "<th>first finding</th></tr>\n");
    for (int k = 0; k < v->nracks; ++k) {
        const fc_rack_verdict_t *r = &v->racks[k];
        const char *vn = fc_verdict_name(r->verdict);

        fprintf(f, "<tr><td><a href=\"rack-");
        fc_html_escape(f, r->rack);
        fprintf(f, ".html\">");
        fc_html_escape(f, r->rack);
        fprintf(f, "</a></td><td class=\"%s\">%s</td><td>", vn, vn);
        for (int h = 0; h < r->nhosts; ++h) {
            if (r->nhosts > 8 && h == 2) {  /* a rack of 32: its first, last and count */
                fprintf(f, "... ");
                h = r->nhosts - 1;
            }
            fc_html_escape(f, r->hosts[h]);
            fputc(' ', f);
        }
        if (r->nhosts > 8)
            fprintf(f, "(%d hosts)", r->nhosts);
        fprintf(f, "</td><td>");
        if (r->nfindings) {
            fc_html_escape(f, r->findings[0].part);
            if (r->findings[0].host[0]) {
                fputc(' ', f);
                fc_html_escape(f, r->findings[0].host);
            }
            fprintf(f, ": ");
            fc_html_escape(f, r->findings[0].text);
        }
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n</body></html>\n");
}

fc_status_t fc_html_write(const char *dir, const fc_run_verdict_t *v)
{
    char path[4300];
    FILE *f;

    snprintf(path, sizeof(path), "%s/report", dir);
    FC_CHECK(fc_mkdir_p(path));
    for (int k = 0; k < v->nracks; ++k) {
        snprintf(path, sizeof(path), "%s/report/rack-%s.html", dir, v->racks[k].rack);
        if ((f = fopen(path, "w")) == NULL)
            goto fail;
        fc_html_rack_page(f, v, &v->racks[k]);
        if (fclose(f) != 0)
            goto fail;
    }
    snprintf(path, sizeof(path), "%s/report/index.html", dir);
    if ((f = fopen(path, "w")) == NULL)
        goto fail;
    fc_html_index(f, v);
    if (fclose(f) != 0)
        goto fail;
    return FC_OK;
fail:
    fc_write_failed(path, errno);
    fprintf(stderr, "fabcert: cannot write %s: %s\n", path, strerror(errno));
    return FC_ERR_INVALID;
}
