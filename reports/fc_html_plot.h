/*
 * fc_html_plot.h - the plots of a rack's page, as inline SVG: a stage's
 * busbw against message size per collective (threshold dashed where it
 * judged), the soak's median time per window (drift limit dashed), and
 * the pairs stage's heat map (bad pairs marked). A plot with nothing to
 * draw writes nothing.
 */
#ifndef FC_HTML_PLOT_H
#define FC_HTML_PLOT_H

#include <stdio.h>

#include "fc_verdict.h"

/* Each takes the records of one stage, named as in the stage table, whose
 * view (lib/base/fc_stages.h) is the plot's: reports/fc_html_rack.c chooses.
 * One plot per collective of the stage's points that measured rack r
 * (FC_VIEW_SWEEP, FC_VIEW_SOAK). */
void fc_html_stage_plots(FILE *f, const fc_rack_verdict_t *r, const char *stage);
/* The window medians of each of r's soak points (FC_VIEW_SOAK). */
void fc_html_soak_plot(FILE *f, const fc_rack_verdict_t *r, const char *stage);
/* r's pairs, bandwidth per direction at the largest size (FC_VIEW_PAIRS):
 * the stage's `pair` records only. */
void fc_html_pairs_heatmap(FILE *f, const fc_rack_verdict_t *r, const char *stage);
/* busbw (the fastest iteration's, as judged) against node
 * count, one line per (collective, type, op, size) of
 * r's scaling records, each count's limit (the count before's busbw less
 * max_drop_pct) dashed, the counts that cross the spine marked
 * (FC_VIEW_SCALING). */
void fc_html_scaling_plot(FILE *f, const fc_rack_verdict_t *r, const char *stage);

#endif
