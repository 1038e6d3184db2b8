/*
 * fc_rules.h - the rules that judged a record's figures, one line each:
 * {"applied": bool, "text": "..."}: a limit that judged it ("busbw >= 0.01
 * GB/s (profile line 21)"), the relative rule with its peer class, and
 * each rule that did not apply with why ("busbw >= 1000 GB/s (profile
 * line 15): the bus factor of all_reduce on 1 rank is 0 ...", applied
 * false: the writers say "not applied"). What the families share: each
 * family's rules function (fc_<family>_records.c) writes its lines through
 * these, the record-type table (fc_record.h) names it, and its
 * fc_rules_of / fc_rules_text are what the writers call.
 */
#ifndef FC_RULES_H
#define FC_RULES_H

#include <jansson.h>
#include <stddef.h>

/* One line into lines: {"applied": bool, "text": ...}. */
__attribute__((format(printf, 3, 4)))
void fc_rule_add(json_t *lines, int applied, const char *fmt, ...);

/* The note in notes (a record's rules_not_applied) that starts with
 * prefix, or NULL. */
const char *fc_rule_note(json_t *notes, const char *prefix);

/* The rules of one set of figures: a limit (min_bw >= 0: a minimum
 * busbw or bandwidth named bw_name; max_lat >= 0: a maximum median time;
 * both from profile line `line`), the relative rule as it met them (rel),
 * and the notes of rules that did not apply; `size` prefixes each line
 * ("64 KiB: ", or ""). */
void fc_rules_figures(json_t *lines, const char *size, double min_bw, double max_lat,
                      long line, json_t *rel, json_t *notes, const char *bw_name);

/* A number member of obj, or -1 when it is not one (a limit that is not
 * there): how the families' limit checks read a record's figures. */
double fc_rule_num(json_t *obj, const char *key);

/* The texts of lines that applied (applied 1) or did not (0), joined with
 * " | ", into buf ("" when none). */
void fc_rules_lines_text(json_t *lines, int applied, char *buf, size_t len);

#endif
