/*
 * fc_cert_figure.c - see fc_cert_figure.h. The members are the stages'
 * own; the families' figures (fc_<family>_records.c) copy them through
 * these.
 */
#include "fc_cert_figure.h"

#include "fc_sensitivity.h"

json_t *fc_figure_limit(json_t *limit, const char *key)
{
    json_t *v = json_object_get(limit, key);

    return json_is_number(v) && json_number_value(v) >= 0
               ? json_real(json_number_value(v)) : json_null();
}

json_t *fc_figure_or_null(json_t *v)
{
    return v ? json_deep_copy(v) : json_null();
}

json_t *fc_figure_sensitivity(json_t *rec)
{
    json_t *own = json_object_get(rec, "sensitivity");

    return json_is_object(own) ? json_deep_copy(own) : fc_sensitivity_of(rec);
}
