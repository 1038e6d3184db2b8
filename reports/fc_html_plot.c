/*
 * fc_html_plot.c - the plots of a rack page (fc_html_plot.h), inline SVG:
 * bus bandwidth against message size per collective with the threshold
 * dashed where it judged, the soak's median time per window with its drift
 * limit, the pairs matrix as a heat map with the bad pairs marked, and
 * the scaling series' busbw against node count with each step's limit.
 * Every plot shares one frame (size, margins, axes, y ticks).
 */
#include "fc_html_plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_coll.h"
#include "fc_html_page.h"
#include "fc_record.h"
#include "fc_results.h"

#define FC_MAX_SERIES 48
#define FC_MAX_XS 32
#define FC_MAX_NODES 64     /* FC_HTML_PAIRS_NODES: above, fc_html_pairs.h */

/* ---- busbw against size ------------------------------------------------ */

typedef struct fc_series {
    char name[96];                  /* its legend: group, type and op */
    int n;                          /* points in x[] and y[] */
    double x[FC_MAX_XS], y[FC_MAX_XS];  /* size in bytes, busbw in GB/s */
} fc_series_t;

static const char *const fc_palette[] = {
    "#0969da", "#1a7f37", "#8250df", "#bf8700", "#0550ae", "#116329",
    "#953800", "#6639ba", "#1b7c83", "#a40e26",
};

/* Every plot's frame: the SVG element, the title, the axes, five y ticks
 * from 0 to ymax and the axis names. The x ticks are the caller's. */
#define FC_PLOT_W 520.0
#define FC_PLOT_H 300.0
#define FC_PLOT_L 60.0          /* margins: left, right (legend), top, bottom */
#define FC_PLOT_R 150.0
#define FC_PLOT_T 30.0
#define FC_PLOT_B 40.0

static void fc_plot_frame(FILE *f, const char *title, const char *xname, const char *yname,
                          double ymax)
{
    const double W = FC_PLOT_W, H = FC_PLOT_H, L = FC_PLOT_L, R = FC_PLOT_R;
    const double T = FC_PLOT_T, B = FC_PLOT_B;

    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n", W, H, W, H);
    fprintf(f, "<text x=\"%.0f\" y=\"18\" font-size=\"13\" font-weight=\"bold\">", L);
    fc_html_escape(f, title);
    fprintf(f, "</text>\n<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#000\"/>\n",
            L, H - B, W - R, H - B);
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#000\"/>\n",
            L, T, L, H - B);
    for (int k = 0; k <= 4; ++k) {
        double v = ymax * k / 4;

        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%.3g</text>\n",
                L - 4, H - B - v / ymax * (H - T - B) + 3, v);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n",
            (L + W - R) / 2, H - 6, xname);
    fprintf(f, "<text x=\"14\" y=\"%.0f\" font-size=\"11\" transform=\"rotate(-90 14 %.0f)\" "
            "text-anchor=\"middle\">%s</text>\n", (T + H - B) / 2, (T + H - B) / 2, yname);
}

static void fc_plot_busbw(FILE *f, const char *title, fc_series_t *ser, int nser,
                          const double *lx, const double *ly, int nl)
{
    const double W = FC_PLOT_W, H = FC_PLOT_H, L = FC_PLOT_L, R = FC_PLOT_R;
    const double T = FC_PLOT_T, B = FC_PLOT_B;
    double xmin = 1e300, xmax = 0, ymax = 0;

    for (int s = 0; s < nser; ++s)
        for (int i = 0; i < ser[s].n; ++i) {
            xmin = fmin(xmin, ser[s].x[i]);
            xmax = fmax(xmax, ser[s].x[i]);
            ymax = fmax(ymax, ser[s].y[i]);
        }
    for (int i = 0; i < nl; ++i)
        ymax = fmax(ymax, ly[i]);
    if (xmin > xmax)
        return;
    if (xmax <= xmin)
        xmax = xmin * 2;
    if (ymax <= 0)
        ymax = 1;
    ymax *= 1.1;
#define FC_PX(v) (L + (log2(v) - log2(xmin)) / (log2(xmax) - log2(xmin)) * (W - L - R))
#define FC_PY(v) (H - B - (v) / ymax * (H - T - B))
    fc_plot_frame(f, title, "message size", "busbw GB/s", ymax);
    for (double x = xmin; x <= xmax * 1.0001; x *= 2) {
        char size[32];

        if (xmax / xmin > 64 && fmod(log2(x / xmin), 2) != 0)
            continue;
        fc_format_size((uint64_t)x, size, sizeof(size));
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"10\" text-anchor=\"middle\">%s</text>\n",
                FC_PX(x), H - B + 14, size);
    }
    if (nl > 0) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"#cf222e\" stroke-width=\"2\" "
                "stroke-dasharray=\"6 4\" points=\"");
        for (int i = 0; i < nl; ++i)
            fprintf(f, "%.1f,%.1f ", FC_PX(lx[i]), FC_PY(ly[i]));
        fprintf(f, "\"/>\n<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\" fill=\"#cf222e\">"
                "threshold (min busbw)</text>\n", W - R + 8, T + 8);
    }
    for (int s = 0; s < nser; ++s) {
        const char *c = fc_palette[s % 10];

        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", c);
        for (int i = 0; i < ser[s].n; ++i)
            fprintf(f, "%.1f,%.1f ", FC_PX(ser[s].x[i]), FC_PY(ser[s].y[i]));
        fprintf(f, "\"/>\n");
        for (int i = 0; i < ser[s].n; ++i)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
                    FC_PX(ser[s].x[i]), FC_PY(ser[s].y[i]), c);
        if (s < 12) {
            fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\" fill=\"%s\">", W - R + 8,
                    T + 24 + 13.0 * s, c);
            fc_html_escape(f, ser[s].name);
            fprintf(f, "</text>\n");
        }
    }
    fprintf(f, "</svg>\n");
#undef FC_PX
#undef FC_PY
}

/* 1 if rec's rules_not_applied names the rule (its note starts so). */
static int fc_rule_not_applied(json_t *rec, const char *rule)
{
    size_t i;
    json_t *n;

    json_array_foreach(json_object_get(rec, "rules_not_applied"), i, n)
        if (json_is_string(n) && strncmp(json_string_value(n), rule, strlen(rule)) == 0)
            return 1;
    return 0;
}

void fc_html_stage_plots(FILE *f, const fc_rack_verdict_t *r, const char *stage)
{
    for (int c = 0; c < FC_COLL_COUNT; ++c) {
        const char *coll = fc_coll_desc((fc_coll_id_t)c)->name;
        fc_series_t ser[FC_MAX_SERIES];
        double lx[FC_MAX_XS], ly[FC_MAX_XS];
        int nser = 0, nl = 0;
        size_t i;
        json_t *rec;

        json_array_foreach(r->checks, i, rec) {
            char name[96];
            double x, y, lim;
            int s;

            if (fc_record_id(rec) != FC_RECORD_POINT ||
                strcmp(fc_json_str(rec, "stage"), stage) != 0 ||
                strcmp(fc_json_str(rec, "collective"), coll) != 0)
                continue;
            snprintf(name, sizeof(name), "%s %s%s%s", fc_json_str(rec, "group"),
                     fc_json_str(rec, "dtype"),
                     strcmp(fc_json_str(rec, "op"), "none") ? " " : "",
                     strcmp(fc_json_str(rec, "op"), "none") ? fc_json_str(rec, "op") : "");
            for (s = 0; s < nser && strcmp(ser[s].name, name) != 0; ++s)
                ;
            if (s == nser) {
                if (nser == FC_MAX_SERIES)
                    continue;
                memset(&ser[s], 0, sizeof(ser[s]));
                snprintf(ser[s].name, sizeof(ser[s].name), "%s", name);
                ++nser;
            }
            x = (double)json_integer_value(json_object_get(rec, "bytes"));
            y = json_number_value(json_object_get(rec, "busbw_gbps"));
            if (x <= 0 || ser[s].n == FC_MAX_XS)
                continue;
            ser[s].x[ser[s].n] = x;
            ser[s].y[ser[s].n++] = y;
            lim = json_number_value(json_object_get(json_object_get(rec, "limit"), "min_busbw_gbps"));
            /* a limit that did not judge this point (busbw says nothing on
             * one rank) is not drawn as its threshold */
            if (json_object_get(json_object_get(rec, "limit"), "min_busbw_gbps") && lim > 0 &&
                !fc_rule_not_applied(rec, "min_busbw_gbps")) {
                int k;

                for (k = 0; k < nl && lx[k] != x; ++k)
                    ;
                if (k == nl && nl < FC_MAX_XS) {
                    lx[nl] = x;
                    ly[nl++] = lim;
                } else if (k < nl && lim > ly[k])
                    ly[k] = lim;
            }
        }
        if (nser == 0)
            continue;
        /* threshold points in size order */
        for (int a = 1; a < nl; ++a)
            for (int b = a; b > 0 && lx[b - 1] > lx[b]; --b) {
                double t = lx[b]; lx[b] = lx[b - 1]; lx[b - 1] = t;
                t = ly[b]; ly[b] = ly[b - 1]; ly[b - 1] = t;
            }
        char title[96];

        snprintf(title, sizeof(title), "%s: %s busbw against size", stage, coll);
        fc_plot_busbw(f, title, ser, nser, lx, ly, nl);
    }
}

/* ---- soak: median time per window ---------------------------------------- */

/* The level a soak point's windows would have had to hold to drift: its
 * tolerance above the level held before the drift, where the record has
 * them (lib/soak/fc_drift.h); else, for older records, max_drift_pct above its
 * fastest window. -1: no drift limit. *below_p: the level it is above. */
static double fc_soak_plot_line(json_t *soak, double *below_p)
{
    double lim = json_number_value(json_object_get(soak, "max_drift_pct")), fastest = -1;
    json_t *w;
    size_t k;

    if (json_is_number(json_object_get(soak, "tolerance_pct")) &&
        json_is_number(json_object_get(soak, "base_us"))) {
        *below_p = json_number_value(json_object_get(soak, "base_us"));
        return *below_p * (1 + json_number_value(json_object_get(soak, "tolerance_pct")) / 100);
    }
    *below_p = -1;
    if (!(lim >= 0))
        return -1;
    json_array_foreach(json_object_get(soak, "windows"), k, w) {
        double m = json_number_value(json_object_get(w, "median_us"));

        fastest = fastest < 0 || m < fastest ? m : fastest;
    }
    *below_p = fastest;
    return fastest * (1 + lim / 100);
}

/* One line per soak point: its window medians over the soak, and dashed in
 * the same colour the level a drift would have had to hold. */
void fc_html_soak_plot(FILE *f, const fc_rack_verdict_t *r, const char *stage)
{
    const double W = FC_PLOT_W, H = FC_PLOT_H, L = FC_PLOT_L, R = FC_PLOT_R;
    const double T = FC_PLOT_T, B = FC_PLOT_B;
    double ymax = 0;
    int xmax = 1, nser = 0;
    char title[128];
    size_t i;
    json_t *rec;

    json_array_foreach(r->checks, i, rec) {
        json_t *soak = json_object_get(rec, "soak"), *w;
        double line, below;
        size_t k;

        if (!json_is_object(soak) || strcmp(fc_json_str(rec, "stage"), stage) != 0)
            continue;
        json_array_foreach(json_object_get(soak, "windows"), k, w)
            ymax = fmax(ymax, json_number_value(json_object_get(w, "median_us")));
        /* a line more than 11 times what it sits above flattens the plot */
        line = fc_soak_plot_line(soak, &below);
        if (line > 0 && line < below * 11)
            ymax = fmax(ymax, line);
        if ((int)json_array_size(json_object_get(soak, "windows")) - 1 > xmax)
            xmax = (int)json_array_size(json_object_get(soak, "windows")) - 1;
        ++nser;
    }
    if (nser == 0 || ymax <= 0)
        return;
    ymax *= 1.1;
#define FC_PX(v) (L + (v) / (double)xmax * (W - L - R))
#define FC_PY(v) (H - B - (v) / ymax * (H - T - B))
    snprintf(title, sizeof(title), "%s: median time per window (drift)", stage);
    fc_plot_frame(f, title, "window", "median time us", ymax);
    for (int x = 0; x <= xmax; x += xmax > 20 ? xmax / 10 : 1)
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"10\" text-anchor=\"middle\">%d</text>\n",
                FC_PX(x), H - B + 14, x);
    nser = 0;
    json_array_foreach(r->checks, i, rec) {
        json_t *soak = json_object_get(rec, "soak"), *w;
        double below, line = fc_soak_plot_line(soak, &below);
        const char *c = fc_palette[nser % 10];
        char label[256];
        size_t k;

        if (!json_is_object(soak) || strcmp(fc_json_str(rec, "stage"), stage) != 0)
            continue;
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", c);
        json_array_foreach(json_object_get(soak, "windows"), k, w)
            fprintf(f, "%.1f,%.1f ", FC_PX((double)k),
                    FC_PY(json_number_value(json_object_get(w, "median_us"))));
        fprintf(f, "\"/>\n");
        if (line > 0 && line <= ymax)
            fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"%s\" "
                    "stroke-dasharray=\"6 4\"/>\n", L, FC_PY(line), W - R, FC_PY(line), c);
        if (nser < 12) {
            fc_check_label(rec, label, sizeof(label));
            fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\" fill=\"%s\">", W - R + 8,
                    T + 8 + 13.0 * nser, c);
            fc_html_escape(f, label);
            fprintf(f, "</text>\n");
        }
        ++nser;
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\">dashed: drift limit (or "
            "the noise floor that widened it)</text>\n",
            W - R + 8, T + 8 + 13.0 * (nser < 12 ? nser : 12) + 4);
    fprintf(f, "</svg>\n");
#undef FC_PX
#undef FC_PY
}

/* ---- busbw against node count ------------------------------------------ */

void fc_html_scaling_plot(FILE *f, const fc_rack_verdict_t *r, const char *stage)
{
    const double W = FC_PLOT_W, H = FC_PLOT_H, L = FC_PLOT_L, R = FC_PLOT_R;
    const double T = FC_PLOT_T, B = FC_PLOT_B;
    fc_series_t *ser = calloc(FC_MAX_SERIES, sizeof(*ser));
    double ymax = 0, xmax = 2, lim[FC_MAX_SERIES][FC_MAX_XS], cross[FC_MAX_XS];
    int nser = 0, ncross = 0;
    char title[128];
    size_t i;
    json_t *rec;

    if (ser == NULL)
        return;
    json_array_foreach(r->checks, i, rec) {
        double x = (double)json_integer_value(json_object_get(rec, "nodes"));
        double y = json_number_value(json_object_get(rec, "peak_busbw"));
        json_t *cut = json_object_get(rec, "max_drop_pct");
        char name[96], size[32];
        int s;

        if (fc_record_id(rec) != FC_RECORD_SCALING || strcmp(fc_json_str(rec, "stage"), stage))
            continue;
        fc_format_size((uint64_t)json_integer_value(json_object_get(rec, "bytes")), size,
                       sizeof(size));
        snprintf(name, sizeof(name), "%s %s %s", fc_json_str(rec, "collective"),
                 fc_json_str(rec, "dtype"), size);
        for (s = 0; s < nser && strcmp(ser[s].name, name); ++s)
            ;
        if (s == nser && (nser == FC_MAX_SERIES || x <= 0))
            continue;
        if (s == nser)
            snprintf(ser[nser++].name, sizeof(ser[s].name), "%s", name);
        if (ser[s].n == FC_MAX_XS)
            continue;
        /* the lowest busbw this count could have had and passed */
        lim[s][ser[s].n] = json_is_number(cut) ? json_number_value(json_object_get(rec,
                           "prev_peak_busbw")) * (1 - json_number_value(cut) / 100) : -1;
        ser[s].x[ser[s].n] = x;
        ser[s].y[ser[s].n++] = y;
        ymax = fmax(ymax, fmax(y, lim[s][ser[s].n - 1]));
        xmax = fmax(xmax, x);
        if (json_is_true(json_object_get(rec, "crosses_spine")) && ncross < FC_MAX_XS) {
            int seen = 0;

            for (int k = 0; k < ncross; ++k)
                seen |= cross[k] == x;
            if (!seen)
                cross[ncross++] = x;
        }
    }
    if (nser == 0 || ymax <= 0) {
        free(ser);
        return;
    }
    ymax *= 1.1;
#define FC_PX(v) (L + ((v) - 1) / (xmax - 1) * (W - L - R))
#define FC_PY(v) (H - B - (v) / ymax * (H - T - B))
    snprintf(title, sizeof(title), "%s: busbw against node count", stage);
    fc_plot_frame(f, title, "nodes", "best busbw GB/s", ymax);
    for (int x = 1; x <= (int)xmax; x += xmax > 16 ? (int)xmax / 8 : 1)
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"10\" text-anchor=\"middle\">%d</text>\n",
                FC_PX(x), H - B + 14, x);
    for (int k = 0; k < ncross; ++k)
        fprintf(f, "<line class=\"spine\" x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
                "stroke=\"#888\" stroke-dasharray=\"2 3\"/>\n<text x=\"%.1f\" y=\"%.0f\" "
                "font-size=\"9\" fill=\"#888\">spine</text>\n", FC_PX(cross[k]), T,
                FC_PX(cross[k]), H - B, FC_PX(cross[k]) + 2, T + 9);
    for (int s = 0; s < nser; ++s) {
        const char *c = fc_palette[s % 10];

        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", c);
        for (int k = 0; k < ser[s].n; ++k)
            fprintf(f, "%.1f,%.1f ", FC_PX(ser[s].x[k]), FC_PY(ser[s].y[k]));
        fprintf(f, "\"/>\n");
        for (int k = 0; k < ser[s].n; ++k) {
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
                    FC_PX(ser[s].x[k]), FC_PY(ser[s].y[k]), c);
            if (lim[s][k] >= 0)
                fprintf(f, "<line class=\"limit\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                        "y2=\"%.1f\" stroke=\"#cf222e\" stroke-width=\"2\" "
                        "stroke-dasharray=\"4 2\"/>\n", FC_PX(ser[s].x[k]) - 8,
                        FC_PY(lim[s][k]), FC_PX(ser[s].x[k]) + 8, FC_PY(lim[s][k]));
        }
        if (s < 12) {
            fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\" fill=\"%s\">", W - R + 8,
                    T + 24 + 13.0 * s, c);
            fc_html_escape(f, ser[s].name);
            fprintf(f, "</text>\n");
        }
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\" fill=\"#cf222e\">dashed: limit "
            "(max drop)</text>\n</svg>\n", W - R + 8, T + 8);
#undef FC_PX
#undef FC_PY
    free(ser);
}

/* ---- pairs heat map ----------------------------------------------------- */

/* Host is one of rack r's. */
static int fc_plot_rack_has(const fc_rack_verdict_t *r, const char *host)
{
    for (int k = 0; k < r->nhosts; ++k)
        if (strcmp(r->hosts[k], host) == 0)
            return 1;
    return 0;
}

void fc_html_pairs_heatmap(FILE *f, const fc_rack_verdict_t *r, const char *stage)
{
    char hosts[FC_MAX_NODES][64];
    double bw[FC_MAX_NODES][FC_MAX_NODES];
    int bad[FC_MAX_NODES][FC_MAX_NODES], have[FC_MAX_NODES][FC_MAX_NODES], n = 0;
    double maxbw = 0;
    size_t i;
    json_t *rec;

    memset(bw, 0, sizeof(bw));
    memset(bad, 0, sizeof(bad));
    memset(have, 0, sizeof(have));
    json_array_foreach(r->checks, i, rec) {
        int idx[2];
        const char *names[2] = { fc_json_str(rec, "host_a"), fc_json_str(rec, "host_b") };
        json_t *sizes = json_object_get(rec, "sizes");
        double b;

        if (fc_record_id(rec) != FC_RECORD_PAIR ||
            strcmp(fc_json_str(rec, "stage"), stage) != 0)
            continue;
        for (int k = 0; k < 2; ++k) {
            for (idx[k] = 0; idx[k] < n && strcmp(hosts[idx[k]], names[k]) != 0; ++idx[k])
                ;
            if (idx[k] == n) {
                if (n == FC_MAX_NODES)
                    goto next;
                snprintf(hosts[n++], sizeof(hosts[0]), "%s", names[k]);
            }
        }
        /* the largest size's bandwidth */
        b = json_number_value(json_object_get(json_array_get(sizes, json_array_size(sizes) - 1),
                                              "bw_gbps"));
        bw[idx[0]][idx[1]] = bw[idx[1]][idx[0]] = b;
        /* 1 failed, 2 not certified (INCOMPLETE): marked alike */
        bad[idx[0]][idx[1]] = bad[idx[1]][idx[0]] =
            !strcmp(fc_json_str(rec, "verdict"), "FAIL") ? 1
            : strcmp(fc_json_str(rec, "verdict"), "PASS") ? 2 : 0;
        have[idx[0]][idx[1]] = have[idx[1]][idx[0]] = 1;
        maxbw = fmax(maxbw, b);
next:;
    }
    if (n == 0)
        return;
    const int cell = 46, left = 110, top = 110;
    int w = left + cell * n + 20, h = top + cell * n + 40;

    if (w < 480)
        w = 480;

    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" role=\"img\">\n", w, h, w, h);
    fprintf(f, "<text x=\"10\" y=\"18\" font-size=\"13\" font-weight=\"bold\">");
    fc_html_escape(f, stage);
    fprintf(f, ": bandwidth per direction (GB/s), bad pairs marked</text>\n");
    for (int a = 0; a < n; ++a) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">", left - 6,
                top + cell * a + cell / 2 + 4);
        fc_html_escape(f, hosts[a]);
        fprintf(f, "</text>\n<text x=\"%d\" y=\"%d\" font-size=\"11\" transform=\"rotate(-45 %d %d)\">",
                left + cell * a + cell / 2, top - 6, left + cell * a + cell / 2, top - 6);
        fc_html_escape(f, hosts[a]);
        fprintf(f, "</text>\n");
        for (int b = 0; b < n; ++b) {
            int x = left + cell * b, y = top + cell * a;
            double t = maxbw > 0 ? bw[a][b] / maxbw : 0;
            int red = (int)(255 * (1 - t)), green = (int)(200 * t + 40);

            if (a != b && !have[a][b] &&
                (fc_plot_rack_has(r, hosts[a]) || fc_plot_rack_has(r, hosts[b]))) {
                /* a pair of this rack with no record: a sampled run's
                 * pair its plan did not meet (or a lost one): grey, and
                 * said, never coloured as a pass */
                fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                        "fill=\"#eaeef2\"><title>", x, y, cell, cell);
                fc_html_escape(f, hosts[a]);
                fprintf(f, " - ");
                fc_html_escape(f, hosts[b]);
                fprintf(f, ": not measured</title></rect>\n");
                continue;
            }
            if (a == b || !have[a][b]) {
                /* the diagonal, and pairs of other racks (not on this page) */
                fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#eaeef2\"/>\n",
                        x, y, cell, cell);
                continue;
            }
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,%d,90)\" "
                    "stroke=\"%s\" stroke-width=\"%d\"><title>%s - %s: %.4g GB/s%s</title></rect>\n",
                    x, y, cell, cell, red, green, bad[a][b] ? "#000" : "#fff",
                    bad[a][b] ? 3 : 1, hosts[a], hosts[b], bw[a][b],
                    bad[a][b] == 1 ? " (FAIL)" : bad[a][b] ? " (INCOMPLETE)" : "");
            fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\" "
                    "fill=\"#fff\">%s%.3g</text>\n", x + cell / 2, y + cell / 2 + 4,
                    bad[a][b] ? "\u2716 " : "", bw[a][b]);
        }
    }
    fprintf(f, "<text x=\"10\" y=\"%d\" font-size=\"10\">green: fast, red: slow, "
            "\u2716 and a black border: a pair that failed; grey: not measured</text>\n", h - 12);
    fprintf(f, "</svg>\n");
}
