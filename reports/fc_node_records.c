/*
 * fc_node_records.c - labels, finding subjects, certificate figures and
 * HTML cells of preflight's and the NVLink domain's records (see
 * fc_node_records.h). Numbers in a cell are read as the stages write them;
 * a figure that is absent reads as 0.
 */
#include "fc_node_records.h"

#include "fc_cert_figure.h"
#include "fc_html_escape.h"
#include "fc_json.h"

/* ---- names --------------------------------------------------------------- */

void fc_label_preflight(json_t *rec, char *buf, size_t len)
{
    snprintf(buf, len, "inventory of %s", fc_json_str(rec, "host"));
}

void fc_subject_node(json_t *rec, char *buf, size_t len)
{
    snprintf(buf, len, "node %s", fc_json_str(rec, "host"));
}

void fc_label_nvlink_domain(json_t *rec, char *buf, size_t len)
{
    snprintf(buf, len, "NVLink domain of rack %s", fc_json_str(rec, "rack"));
}

/* ---- certificate figures ------------------------------------------------- */

void fc_figure_host(json_t *rec, json_t *f)
{
    json_object_set_new(f, "host", json_string(fc_json_str(rec, "host")));
}

/* A rack's NVLink domain: its GPUs and hosts, the cliques NVML put them
 * in (the largest first), and each GPU's reading. */
void fc_figure_nvlink_domain(json_t *rec, json_t *f)
{
    json_object_set_new(f, "gpus", fc_figure_or_null(json_object_get(rec, "gpus")));
    json_object_set_new(f, "hosts", fc_figure_or_null(json_object_get(rec, "hosts")));
    json_object_set_new(f, "cliques", fc_figure_or_null(json_object_get(rec, "cliques")));
    json_object_set_new(f, "members", fc_figure_or_null(json_object_get(rec, "members")));
}

/* ---- HTML cells ---------------------------------------------------------- */

/* preflight's GPU-NIC affinity, where the profile asked for it: each GPU's
 * nearest (or mapped) NIC and the distance, or why it did not apply. */
static void fc_cell_affinity(FILE *f, json_t *aff)
{
    json_t *g;
    size_t i;

    if (aff == NULL)
        return;
    if (!json_is_true(json_object_get(aff, "applied"))) {
        fprintf(f, "GPU-NIC affinity not applied: ");
        fc_html_escape(f, fc_json_str(aff, "why"));
        return;
    }
    fprintf(f, "GPU-NIC (at most %s):", fc_json_str(aff, "max_distance"));
    json_array_foreach(json_object_get(aff, "gpus"), i, g) {
        fprintf(f, "%s", i ? "; " : " ");
        fc_html_escape(f, fc_json_str(g, "gpu"));
        fprintf(f, " &rarr; ");
        fc_html_escape(f, fc_json_str(g, "nearest"));
        fprintf(f, " %s", fc_json_str(g, "distance"));
        if (json_object_get(g, "expected")) {
            fprintf(f, " (mapped ");
            fc_html_escape(f, fc_json_str(g, "expected"));
            fprintf(f, " %s)", fc_json_str(g, "expected_distance"));
        }
    }
}

void fc_cell_preflight(FILE *f, json_t *rec)
{
    json_t *inv = json_object_get(rec, "inventory"), *nic;
    size_t ni;

    fprintf(f, "%lld cores, %lld MiB, %lld GPU(s); ",
            (long long)json_integer_value(json_object_get(inv, "cores")),
            (long long)json_integer_value(json_object_get(inv, "memory_mib")),
            (long long)json_integer_value(json_object_get(inv, "gpus")));
    json_array_foreach(json_object_get(inv, "nics"), ni, nic) {
        fc_html_escape(f, fc_json_str(nic, "name"));
        fprintf(f, " %s MTU %lld; ", fc_json_str(nic, "state"),
                (long long)json_integer_value(json_object_get(nic, "mtu")));
    }
    fc_cell_affinity(f, json_object_get(inv, "gpu_nic_affinity"));
}

void fc_cell_nvlink_domain(FILE *f, json_t *rec)
{
    json_t *c;
    size_t i;

    fprintf(f, "%lld GPU(s): ", (long long)json_integer_value(json_object_get(rec, "gpus")));
    json_array_foreach(json_object_get(rec, "cliques"), i, c) {
        fprintf(f, "%s%lld in clique %lld of cluster ", i ? "; " : "",
                (long long)json_integer_value(json_object_get(c, "gpus")),
                (long long)json_integer_value(json_object_get(c, "clique_id")));
        fc_html_escape(f, fc_json_str(c, "cluster_uuid"));
    }
}
