/*
 * fc_html_escape.c - see fc_html_escape.h. Every text from a record, the
 * host list or the plan goes through here on its way into a page.
 */
#include "fc_html_escape.h"

void fc_html_escape(FILE *f, const char *s)
{
    for (; s && *s; ++s) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}
