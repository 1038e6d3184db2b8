/*
 * fc_html_escape.h - text into HTML, escaped: a leaf of the reports, so
 * that the cells of the record-type table (each family's
 * fc_<family>_records.c) write through it without depending on the pages
 * and the verdicts (fc_html_page.h).
 */
#ifndef FC_HTML_ESCAPE_H
#define FC_HTML_ESCAPE_H

#include <stdio.h>

/* s with & < > " escaped (NULL writes nothing). */
void fc_html_escape(FILE *f, const char *s);

#endif
