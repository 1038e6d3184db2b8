/*
 * fc_rails_records.c - labels, certificate figures and HTML cells of the
 * rails stage's records (see fc_rails_records.h). A NIC's certificate
 * figure carries, per size, its sending and receiving bandwidth's median
 * over its partners and each partner's figures, so the certificate lists
 * every NIC of every node.
 */
#include "fc_rails_records.h"

#include <string.h>

#include "fc_cert_figure.h"
#include "fc_json.h"
#include "fc_pairs_records.h"

void fc_label_rail_pair(json_t *rec, char *buf, size_t len)
{
    snprintf(buf, len, "rail %lld pair %s %s <-> %s %s",
             (long long)json_integer_value(json_object_get(rec, "rail")),
             fc_json_str(rec, "host_a"), fc_json_str(rec, "nic_a"), fc_json_str(rec, "host_b"),
             fc_json_str(rec, "nic_b"));
}

void fc_label_rail_node(json_t *rec, char *buf, size_t len)
{
    snprintf(buf, len, "NIC %s of %s (rail %lld)", fc_json_str(rec, "nic"),
             fc_json_str(rec, "host"), (long long)json_integer_value(json_object_get(rec, "rail")));
}

void fc_subject_rail_node(json_t *rec, char *buf, size_t len)
{
    snprintf(buf, len, "NIC %s %s", fc_json_str(rec, "host"), fc_json_str(rec, "nic"));
}

void fc_label_rail(json_t *rec, char *buf, size_t len)
{
    snprintf(buf, len, "rail %lld", (long long)json_integer_value(json_object_get(rec, "rail")));
}

void fc_figure_rail_pair(json_t *rec, json_t *f)
{
    fc_figure_pair(rec, f);
    json_object_set_new(f, "rail", fc_figure_or_null(json_object_get(rec, "rail")));
    json_object_set_new(f, "nic_a", json_string(fc_json_str(rec, "nic_a")));
    json_object_set_new(f, "nic_b", json_string(fc_json_str(rec, "nic_b")));
}

void fc_figure_rail_node(json_t *rec, json_t *f)
{
    json_t *sizes = fc_figure_or_null(json_object_get(rec, "figures"));

    json_object_set_new(f, "host", json_string(fc_json_str(rec, "host")));
    json_object_set_new(f, "nic", json_string(fc_json_str(rec, "nic")));
    json_object_set_new(f, "pci", fc_figure_or_null(json_object_get(rec, "pci")));
    json_object_set_new(f, "rail", fc_figure_or_null(json_object_get(rec, "rail")));
    json_object_set_new(f, "slow_partners",
                        fc_figure_or_null(json_object_get(rec, "slow_partners")));
    json_object_set_new(f, "partners", fc_figure_or_null(json_object_get(rec, "partners")));
    json_object_set_new(f, "sizes", sizes);
}

void fc_figure_rail(json_t *rec, json_t *f)
{
    json_object_set_new(f, "rail", fc_figure_or_null(json_object_get(rec, "rail")));
    json_object_set_new(f, "kinds", fc_figure_or_null(json_object_get(rec, "kinds")));
}

void fc_cell_rail_pair(FILE *f, json_t *rec)
{
    fc_cell_pair(f, rec);
}

void fc_cell_rail_node(FILE *f, json_t *rec)
{
    json_t *z;
    size_t i;

    json_array_foreach(json_object_get(rec, "figures"), i, z) {
        char lat[48] = "no latency measured";   /* every transfer failed */

        if (json_is_number(json_object_get(z, "latency_us_median")))
            snprintf(lat, sizeof(lat), "%.1f us",
                     json_number_value(json_object_get(z, "latency_us_median")));
        fprintf(f, "%s%lld bytes: send %.4f, receive %.4f GB/s, %s (medians over %zu "
                "partners)", i ? "; " : "",
                (long long)json_integer_value(json_object_get(z, "bytes")),
                json_number_value(json_object_get(z, "send_gbps_median")),
                json_number_value(json_object_get(z, "recv_gbps_median")), lat,
                json_array_size(json_object_get(z, "partners")));
    }
    if (json_object_get(rec, "pci"))
        fprintf(f, "; PCI %s", fc_json_str(rec, "pci"));
}

void fc_cell_rail(FILE *f, json_t *rec)
{
    json_t *k;
    size_t i;

    json_array_foreach(json_object_get(rec, "kinds"), i, k) {
        fprintf(f, "%s%lld bytes %s: %.4f GB/s", i ? "; " : "",
                (long long)json_integer_value(json_object_get(k, "bytes")),
                fc_json_str(k, "kind"), json_number_value(json_object_get(k, "upper_median_gbps")));
        if (json_is_integer(json_object_get(k, "reference_rail")))
            fprintf(f, " against rail %lld's %.4f",
                    (long long)json_integer_value(json_object_get(k, "reference_rail")),
                    json_number_value(json_object_get(k, "reference_gbps")));
    }
}
