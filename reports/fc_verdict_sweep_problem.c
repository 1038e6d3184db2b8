/*
 * fc_verdict_sweep_problem.c - see fc_verdict_sweep_int.h: a problem the
 * sweep check found (the hosts it concerns, its kind, its sentence),
 * added to the sweep's result. A leaf: the points and the pairs checks
 * both report through it.
 */
#include "fc_verdict_sweep_int.h"

void fc_sweep_problem(struct fc_sweep_result *sw, json_t *hosts, const char *kind,
                             const char *text)
{
    json_array_append_new(sw->problems, json_pack("{s:o, s:s, s:s}", "hosts",
                                                  hosts ? hosts : json_array(), "kind", kind,
                                                  "text", text));
}
