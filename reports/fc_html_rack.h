/*
 * fc_html_rack.h - the page of one rack of the HTML report
 * (DIR/report/rack-RACK.html): verdict first, what to do, the nodes, each
 * stage with its plots and its checks.
 */
#ifndef FC_HTML_RACK_H
#define FC_HTML_RACK_H

#include <stdio.h>

#include "fc_verdict.h"

/* The whole page of rack r of run v, to f. */
void fc_html_rack_page(FILE *f, const fc_run_verdict_t *v, const fc_rack_verdict_t *r);

#endif
