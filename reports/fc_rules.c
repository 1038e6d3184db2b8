/*
 * fc_rules.c - which rules judged a figure, and which did not, in words
 * the reports share (fc_rules.h; the writers ask fc_rules_of in
 * fc_record.h, which picks the function of the record's type from the
 * record-type table, in its family's fc_<family>_records.c). A stage
 * writes, beside each figure, the limit rule it matched, the relative
 * rule's peer class and reference, and `rules_not_applied`: a rule that
 * could not judge that figure and why (a one-rank all_reduce's bus factor
 * of 0 makes busbw say nothing, a group alone in its class has no peer, a
 * size below relative.min_bytes), and for a pair inside a rack the
 * same-rack rule. Shown without this, a limit cell reading ">= 1000
 * GB/s" beside a PASS looks like a limit that judged; so each rule of a
 * figure is one line, applied or not; the text of one that did not apply
 * says the rule and why, and the writers mark it "not applied".
 */
#include "fc_rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fc_json.h"

/* The longest line of a rule. */
#define FC_RULE_TEXT 512

void fc_rule_add(json_t *lines, int applied, const char *fmt, ...)
{
    char text[FC_RULE_TEXT];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    json_array_append_new(lines, json_pack("{s:b, s:s}", "applied", applied, "text", text));
}

const char *fc_rule_note(json_t *notes, const char *prefix)
{
    size_t i;
    json_t *n;

    json_array_foreach(notes, i, n)
        if (json_is_string(n) && strncmp(json_string_value(n), prefix, strlen(prefix)) == 0)
            return json_string_value(n);
    return NULL;
}

/* What follows "not applied: " in a note, or the note. */
static const char *fc_rule_why(const char *note)
{
    const char *at = strstr(note, "not applied: ");

    return at ? at + strlen("not applied: ") : note;
}

void fc_rules_figures(json_t *lines, const char *size, double min_bw, double max_lat,
                      long line, json_t *rel, json_t *notes, const char *bw_name)
{
    const char *busbw_note = fc_rule_note(notes, "min_busbw_gbps");
    const char *rel_note = fc_rule_note(notes, "relative rule");
    size_t i;
    json_t *n;

    if (min_bw >= 0 && busbw_note)
        fc_rule_add(lines, 0, "%s%s >= %.4g GB/s (profile line %ld): %s", size,
                    bw_name, min_bw, line, fc_rule_why(busbw_note));
    else if (min_bw >= 0)
        fc_rule_add(lines, 1, "%s%s >= %.4g GB/s (profile line %ld)", size, bw_name, min_bw,
                    line);
    if (max_lat >= 0)
        fc_rule_add(lines, 1, "%smedian time <= %.0f us (profile line %ld)", size, max_lat,
                    line);
    if (json_is_object(rel)) {
        json_t *ref = json_object_get(rel, "peer_median_busbw_gbps");
        const char *which = "median";

        if (ref == NULL && (ref = json_object_get(rel, "peer_median_algbw_gbps")) != NULL)
            which = "median algbw (one rank: busbw says nothing),";
        if (ref == NULL) {
            ref = json_object_get(rel, "peer_upper_median_gbps");
            which = "upper median";
        }
        fc_rule_add(lines, 1, "%srelative: at most %.4g%% below the %s %.4g GB/s of %s%s",
                    size, json_number_value(json_object_get(rel, "max_below_median_pct")),
                    which, json_number_value(ref),
                    json_object_get(rel, "class") ? fc_json_str(rel, "class")
                                                  : "all the stage's groups",
                    json_object_get(rel, "class") ? "" : " (no peer class recorded)");
    }
    if (rel_note)
        fc_rule_add(lines, 0, "%srelative rule: %s", size, fc_rule_why(rel_note));
    json_array_foreach(notes, i, n)
        if (json_is_string(n) && json_string_value(n) != busbw_note &&
            json_string_value(n) != rel_note)
            fc_rule_add(lines, 0, "%s%s", size, json_string_value(n));
}

void fc_rules_lines_text(json_t *lines, int applied, char *buf, size_t len)
{
    json_t *l;
    size_t i, used = 0;

    buf[0] = '\0';
    json_array_foreach(lines, i, l)
        if (json_is_true(json_object_get(l, "applied")) == applied && used + 3 < len) {
            snprintf(buf + used, len - used, "%s%s", used ? " | " : "",
                     fc_json_str(l, "text"));
            used = strlen(buf);
        }
}

double fc_rule_num(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);

    return json_is_number(v) ? json_number_value(v) : -1;
}
