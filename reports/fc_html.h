/*
 * fc_html.h - the HTML report, for people: DIR/report/index.html (the
 * racks and their verdicts) and one self-contained page per rack,
 * DIR/report/rack-RACK.html (fc_html_rack.c): verdict first, what to do,
 * the nodes, and each stage with its plots and its checks.
 */
#ifndef FC_HTML_H
#define FC_HTML_H

#include "fc_verdict.h"

/* Write DIR/report/index.html and every rack's page. */
fc_status_t fc_html_write(const char *dir, const fc_run_verdict_t *v);

#endif
