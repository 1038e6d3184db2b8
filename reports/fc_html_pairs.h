/*
 * fc_html_pairs.h - the pairs matrix when it is too big to draw node by
 * node. Up to FC_HTML_PAIRS_NODES hosts in the run, each rack's page
 * draws its pairs node by node (fc_html_plot.h). Above that (128 racks of
 * 32 nodes: a 4,096 x 4,096 matrix no browser lays out, and no person
 * reads), the index draws one cell per pair of racks (the slowest pair
 * measured between them, the count of failed pairs, a link to the rack's
 * page), and each rack's page drills down: one row per node of the rack,
 * one cell per rack it met (its slowest pair there), failed pairs marked
 * and named in the cell's title.
 */
#ifndef FC_HTML_PAIRS_H
#define FC_HTML_PAIRS_H

#include <stdio.h>

#include "fc_verdict.h"

/* Hosts in the run above which the pairs are drawn per rack. */
#define FC_HTML_PAIRS_NODES 64

/* The hosts of the run (every rack's). */
int fc_html_run_hosts(const fc_run_verdict_t *v);
/* The index's rack x rack map of the pair records of stage (nothing when
 * no pair was measured). */
void fc_html_pairs_racks(FILE *f, const fc_run_verdict_t *v, const char *stage);
/* A rack page's node x rack map for rack r, of the pair records of stage. */
void fc_html_pairs_rack_drill(FILE *f, const fc_run_verdict_t *v, const fc_rack_verdict_t *r,
                              const char *stage);

#endif
