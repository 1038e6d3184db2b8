/*
 * fc_html_pairs.c - see fc_html_pairs.h. Both maps take a pair record's
 * bandwidth at its largest size (as the node-by-node map does) and keep,
 * per cell, the slowest pair, how many pairs and how many failed; a cell
 * nothing measured is left grey. Colour runs from red (slow) to green
 * (the fastest cell of the map); a cell with a failed pair has a black
 * border and a cross. Each pair is counted once: from the checks of the
 * rack of its first host.
 */
#include "fc_html_pairs.h"

#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_html_page.h"
#include "fc_record.h"

typedef struct fc_cell {
    double min_bw;
    int pairs, failed;
    char worst[160];        /* the slowest pair, or the first failed one */
} fc_cell_t;

int fc_html_run_hosts(const fc_run_verdict_t *v)
{
    int n = 0;

    for (int k = 0; k < v->nracks; ++k)
        n += v->racks[k].nhosts;
    return n;
}

static int fc_rack_index(const fc_run_verdict_t *v, const char *rack)
{
    for (int k = 0; k < v->nracks; ++k)
        if (strcmp(v->racks[k].rack, rack) == 0)
            return k;
    return -1;
}

static double fc_pair_bw(json_t *rec)
{
    json_t *sizes = json_object_get(rec, "sizes");

    return json_number_value(json_object_get(json_array_get(sizes, json_array_size(sizes) - 1),
                                             "bw_gbps"));
}

static void fc_cell_add(fc_cell_t *c, json_t *rec, double bw)
{
    const char *verdict = fc_json_str(rec, "verdict");
    int failed = strcmp(verdict, "PASS") != 0;     /* FAIL, or not certified */

    /* the title names a pair that did not pass if there is one, else the
     * slowest */
    if ((failed && c->failed == 0) || (!c->failed && (c->pairs == 0 || bw < c->min_bw)))
        snprintf(c->worst, sizeof(c->worst), "%s - %s: %.4g GB/s%s%s%s",
                 fc_json_str(rec, "host_a"), fc_json_str(rec, "host_b"), bw,
                 failed ? " (" : "", failed ? verdict : "", failed ? ")" : "");
    if (c->pairs == 0 || bw < c->min_bw)
        c->min_bw = bw;
    c->pairs++;
    c->failed += failed;
}

/* One cell of a map: its colour against the map's fastest, its title. */
static void fc_cell_draw(FILE *f, const fc_cell_t *c, int x, int y, int size, double maxbw,
                         const char *what, const char *href)
{
    double t = maxbw > 0 ? c->min_bw / maxbw : 0;

    if (c->pairs == 0) {
        /* no pair measured here (none exists, or the sampled plan met none):
         * grey, and its title says so; never coloured as a pass */
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#eaeef2\">"
                "<title>not measured: ", x, y, size, size);
        fc_html_escape(f, what);
        fprintf(f, "</title></rect>\n");
        return;
    }
    if (href) {
        fprintf(f, "<a href=\"");
        fc_html_escape(f, href);
        fprintf(f, "\">");
    }
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,%d,90)\" "
            "stroke=\"%s\" stroke-width=\"%d\"><title>", x, y, size, size,
            (int)(255 * (1 - t)), (int)(200 * t + 40), c->failed ? "#000" : "#fff",
            c->failed ? 2 : 0);
    fc_html_escape(f, what);
    fprintf(f, ": %d pair(s), %d failed; slowest ", c->pairs, c->failed);
    fc_html_escape(f, c->worst);
    fprintf(f, "</title></rect>");
    if (href)
        fprintf(f, "</a>");
    fputc('\n', f);
}

/* A pair record of stage (the heat maps take no other stage's pairs). */
/* The fastest of the cells' slowest pairs: the scale of the colours. */
static double fc_cells_max_bw(const fc_cell_t *m, size_t count)
{
    double maxbw = 0;

    for (size_t i = 0; i < count; ++i)
        if (m[i].pairs && m[i].min_bw > maxbw)
            maxbw = m[i].min_bw;
    return maxbw;
}

static int fc_is_pair_of(json_t *rec, const char *stage)
{
    return fc_record_id(rec) == FC_RECORD_PAIR && strcmp(fc_json_str(rec, "stage"), stage) == 0;
}

void fc_html_pairs_racks(FILE *f, const fc_run_verdict_t *v, const char *stage)
{
    int n = v->nracks, cell = n > 64 ? 7 : 14, left = 70, top = 50, any = 0;
    fc_cell_t *m = fc_xcalloc((size_t)n * (size_t)n, sizeof(*m), "the racks' pairs map");
    double maxbw = 0;

    for (int k = 0; k < n; ++k) {
        json_t *rec;
        size_t i;

        json_array_foreach(v->racks[k].checks, i, rec) {
            int a, b;

            if (!fc_is_pair_of(rec, stage) ||
                strcmp(fc_json_str(rec, "rack_a"), v->racks[k].rack) != 0 ||
                (a = k, b = fc_rack_index(v, fc_json_str(rec, "rack_b"))) < 0)
                continue;
            if (b < a) {
                int t = a;

                a = b, b = t;
            }
            fc_cell_add(&m[(size_t)a * n + b], rec, fc_pair_bw(rec));
            any = 1;
        }
    }
    maxbw = fc_cells_max_bw(m, (size_t)n * (size_t)n);
    if (any) {
        int w = left + cell * n + 20, h = top + cell * n + 30;

        fprintf(f, "<h2>Pairs, rack by rack</h2>\n<p>%d hosts: one cell per pair of racks "
                "(upper triangle; the diagonal: pairs inside a rack), the slowest pair "
                "measured between them; a black border: a failed pair. Each rack's page "
                "shows its nodes against the racks they met.</p>\n", fc_html_run_hosts(v));
        fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                "viewBox=\"0 0 %d %d\" role=\"img\">\n", w, h, w, h);
        for (int a = 0; a < n; ++a) {
            char href[200];

            snprintf(href, sizeof(href), "rack-%s.html", v->racks[a].rack);
            if (n <= 64 || a % 8 == 0) {    /* row and column labels */
                fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">",
                        left - 4, top + cell * a + cell);
                fc_html_escape(f, v->racks[a].rack);
                fprintf(f, "</text>\n<text x=\"%d\" y=\"%d\" font-size=\"10\" "
                        "transform=\"rotate(-60 %d %d)\">", left + cell * a, top - 4,
                        left + cell * a, top - 4);
                fc_html_escape(f, v->racks[a].rack);
                fprintf(f, "</text>\n");
            }
            for (int b = a; b < n; ++b) {
                char what[300];

                snprintf(what, sizeof(what), "%s - %s", v->racks[a].rack, v->racks[b].rack);
                fc_cell_draw(f, &m[(size_t)a * n + b], left + cell * b, top + cell * a, cell,
                             maxbw, what, href);
            }
        }
        fprintf(f, "<text x=\"10\" y=\"%d\" font-size=\"10\">green: fast, red: slow, black "
                "border: a failed pair; grey: no pair measured</text>\n</svg>\n", h - 8);
    }
    free(m);
}

void fc_html_pairs_rack_drill(FILE *f, const fc_run_verdict_t *v, const fc_rack_verdict_t *r,
                              const char *stage)
{
    int nr = v->nracks, nh = r->nhosts, cell = nr > 64 ? 7 : 14, left = 90, top = 40, any = 0;
    fc_cell_t *m = fc_xcalloc((size_t)nh * (size_t)nr, sizeof(*m), "a rack's pairs map");
    double maxbw = 0;
    json_t *rec;
    size_t i;

    json_array_foreach(r->checks, i, rec) {
        if (!fc_is_pair_of(rec, stage))
            continue;
        for (int end = 0; end < 2; ++end) {
            const char *me = fc_json_str(rec, end ? "host_b" : "host_a");
            int other = fc_rack_index(v, fc_json_str(rec, end ? "rack_a" : "rack_b")), h;

            for (h = 0; h < nh && strcmp(r->hosts[h], me) != 0; ++h)
                ;
            if (h == nh || other < 0)
                continue;
            fc_cell_add(&m[(size_t)h * nr + other], rec, fc_pair_bw(rec));
            any = 1;
        }
    }
    maxbw = fc_cells_max_bw(m, (size_t)nh * (size_t)nr);
    if (any) {
        int w = left + cell * nr + 20, h = top + cell * nh + 30;

        fprintf(f, "<p>Pairs of this rack's nodes, by the rack of the partner (the run has "
                "%d hosts: too many to draw node by node): one row per node, one cell per "
                "rack, the slowest pair there; a black border: a failed pair. "
                "<a href=\"index.html\">All racks' pairs</a>.</p>\n", fc_html_run_hosts(v));
        fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                "viewBox=\"0 0 %d %d\" role=\"img\">\n", w, h, w, h);
        for (int a = 0; a < nh; ++a) {
            fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"%d\" text-anchor=\"end\">",
                    left - 4, top + cell * a + cell, cell < 10 ? 7 : 10);
            fc_html_escape(f, r->hosts[a]);
            fprintf(f, "</text>\n");
            for (int b = 0; b < nr; ++b) {
                char what[300], href[200];

                snprintf(what, sizeof(what), "%s - rack %s", r->hosts[a], v->racks[b].rack);
                snprintf(href, sizeof(href), "rack-%s.html", v->racks[b].rack);
                fc_cell_draw(f, &m[(size_t)a * nr + b], left + cell * b, top + cell * a, cell,
                             maxbw, what, href);
            }
        }
        fprintf(f, "<text x=\"10\" y=\"%d\" font-size=\"10\">green: fast, red: slow, black "
                "border: a failed pair; grey: no pair measured; a cell links to the "
                "partner's rack</text>\n</svg>\n", h - 8);
    }
    free(m);
}
