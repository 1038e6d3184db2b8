/*
 * fc_html_page.h - what every HTML page of the report shares: escaping,
 * the page's head (inline CSS: no scripts, fonts or network), the colour
 * of a verdict, and the visible lines that say a run did not follow its
 * profile as written (overrides, a sysfs tree read instead of /sys, a
 * backend that fell back). The rack page (fc_html_rack.c), the index
 * (fc_html.c) and the plots (fc_html_plot.c) write through these; the
 * cells of the checks table (fc_<family>_records.c) through its escaping
 * alone (fc_html_escape.h).
 */
#ifndef FC_HTML_PAGE_H
#define FC_HTML_PAGE_H

#include <stdio.h>

#include "fc_html_escape.h"
#include "fc_verdict.h"

/* The doctype, the title and the style sheet, up to <body>. */
void fc_html_head(FILE *f, const char *title);
/* The colour a verdict ("PASS", "FAIL", else INCOMPLETE) is shown in. */
const char *fc_html_verdict_color(const char *verdict);
/* The environment that shapes the measurement, a sysfs tree read instead
 * of /sys, and the overrides: each a visible line when there is one. */
void fc_html_overrides(FILE *f, const fc_run_verdict_t *v);
/* A line for each time the run was resumed: when, what it kept, what it
 * ran again (none when it ran in one go). */
void fc_html_resumes(FILE *f, const fc_run_verdict_t *v);
/* A visible line for each stage that ran on another backend than asked. */
void fc_html_backend_notes(FILE *f, const fc_run_verdict_t *v);

#endif
