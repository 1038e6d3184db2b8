/*
 * fc_domain_judge.c - a rack's NVLink domain from its GPUs' NVML fabric
 * readings (fc_domain.h): registered, healthy, one clique. Pure: the stage
 * gathers the readings (fc_domain.c) and writes what this returns.
 */
#include <stdio.h>
#include <string.h>

#include "fc_domain.h"

/* The members' distinct (cluster, clique) pairs into a JSON list, each
 * with its GPU count and hosts; the largest first. */
static json_t *fc_domain_cliques(const fc_domain_member_t *m, int n)
{
    json_t *cl = json_array();

    for (int i = 0; i < n; ++i) {
        json_t *c = NULL, *hosts, *h;
        size_t k;

        if (m[i].read != FC_OK || m[i].fabric.state != 3)
            continue;
        json_array_foreach(cl, k, c)
            if (!strcmp(json_string_value(json_object_get(c, "cluster_uuid")),
                        m[i].fabric.cluster_uuid) &&
                json_integer_value(json_object_get(c, "clique_id")) ==
                    (json_int_t)m[i].fabric.clique_id)
                break;
        if (k == json_array_size(cl)) {
            c = json_pack("{s:s, s:I, s:i, s:[]}", "cluster_uuid", m[i].fabric.cluster_uuid,
                          "clique_id", (json_int_t)m[i].fabric.clique_id, "gpus", 0, "hosts");
            json_array_append_new(cl, c);
        }
        json_object_set_new(c, "gpus", json_integer(json_integer_value(
                                json_object_get(c, "gpus")) + 1));
        hosts = json_object_get(c, "hosts");
        json_array_foreach(hosts, k, h)
            if (!strcmp(json_string_value(h), m[i].host))
                break;
        if (k == json_array_size(hosts))
            json_array_append_new(hosts, json_string(m[i].host));
    }
    /* the largest first: the rack's domain; the others are what is apart */
    for (size_t a = 1; a < json_array_size(cl); ++a)
        for (size_t b = a; b > 0; --b) {
            json_t *x = json_array_get(cl, b - 1), *y = json_array_get(cl, b);

            if (json_integer_value(json_object_get(y, "gpus")) <=
                json_integer_value(json_object_get(x, "gpus")))
                break;
            json_incref(x);
            json_array_set(cl, b - 1, y);
            json_array_set_new(cl, b, x);
        }
    return cl;
}

static json_t *fc_domain_member_json(const fc_domain_member_t *m)
{
    const fc_gpu_fabric_t *f = &m->fabric;

    if (m->read != FC_OK)
        return json_pack("{s:s, s:i, s:s}", "host", m->host, "local_rank", m->local_rank,
                         "not_read", m->why);
    return json_pack("{s:s, s:i, s:s, s:s, s:s, s:I, s:s, s:I}", "host", m->host,
                     "local_rank", m->local_rank, "pci_bus_id", f->pci_bus_id, "state",
                     f->state_text, "cluster_uuid", f->cluster_uuid, "clique_id",
                     (json_int_t)f->clique_id, "status", f->status_text, "health_mask",
                     (json_int_t)f->health_mask);
}

/* One member's own fault, or "" (its reading says it is in the fabric,
 * registered, healthy). */
static void fc_domain_member_fault(const fc_domain_member_t *m, char *buf, size_t len)
{
    const fc_gpu_fabric_t *f = &m->fabric;

    buf[0] = '\0';
    if (m->read != FC_OK)
        return;
    if (f->state == 0)
        snprintf(buf, len, "GPU %s (local rank %d) of %s is in no multi-node NVLink fabric "
                 "(NVML: not supported), and the profile says the rack is one NVLink domain",
                 f->pci_bus_id, m->local_rank, m->host);
    else if (f->state != 3)
        snprintf(buf, len, "GPU %s (local rank %d) of %s: its NVLink fabric registration is "
                 "%s, not completed (the fabric manager has not taken it in)", f->pci_bus_id,
                 m->local_rank, m->host, f->state_text);
    else if (f->status != 0)
        snprintf(buf, len, "GPU %s (local rank %d) of %s: its NVLink fabric registration "
                 "failed: %s", f->pci_bus_id, m->local_rank, m->host, f->status_text);
    else if (f->degraded_bw || f->route_unhealthy)
        snprintf(buf, len, "GPU %s (local rank %d) of %s: NVML's fabric health says %s "
                 "(health mask 0x%x)", f->pci_bus_id, m->local_rank, m->host,
                 f->degraded_bw ? "its NVLink bandwidth is degraded" : "a route is unhealthy",
                 f->health_mask);
}

json_t *fc_domain_judge(const fc_domain_member_t *m, int n, const char *rack)
{
    json_t *rec = json_object(), *reasons = json_array(), *members = json_array();
    json_t *cliques = fc_domain_cliques(m, n), *hosts = json_array();
    const char *blamed = NULL, *verdict;
    int unread = 0;
    char text[512];

    for (int i = 0; i < n; ++i) {
        size_t k;
        json_t *h;

        json_array_append_new(members, fc_domain_member_json(&m[i]));
        json_array_foreach(hosts, k, h)
            if (!strcmp(json_string_value(h), m[i].host))
                break;
        if (k == json_array_size(hosts))
            json_array_append_new(hosts, json_string(m[i].host));
        if (m[i].read != FC_OK) {
            if (unread++ == 0) {
                snprintf(text, sizeof(text), "GPU of local rank %d on %s: its NVLink fabric "
                         "could not be read: %s", m[i].local_rank, m[i].host, m[i].why);
                json_array_append_new(reasons, json_string(text));
            }
            continue;
        }
        fc_domain_member_fault(&m[i], text, sizeof(text));
        if (text[0]) {
            json_array_append_new(reasons, json_string(text));
            if (blamed == NULL)
                blamed = m[i].host;
        }
    }
    if (json_array_size(cliques) > 1) {
        json_t *big = json_array_get(cliques, 0), *c;
        size_t k;

        for (k = 1; k < json_array_size(cliques); ++k) {
            char list[256] = "";
            json_t *h;
            size_t j;

            c = json_array_get(cliques, k);
            json_array_foreach(json_object_get(c, "hosts"), j, h)
                snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
                         j ? ", " : "", json_string_value(h));
            snprintf(text, sizeof(text), "rack %s is not one NVLink domain: %lld GPU(s) of "
                     "%s are in clique %lld of cluster %s, the rack's other %lld in clique "
                     "%lld of cluster %s", rack, (long long)json_integer_value(
                         json_object_get(c, "gpus")), list,
                     (long long)json_integer_value(json_object_get(c, "clique_id")),
                     json_string_value(json_object_get(c, "cluster_uuid")),
                     (long long)json_integer_value(json_object_get(big, "gpus")),
                     (long long)json_integer_value(json_object_get(big, "clique_id")),
                     json_string_value(json_object_get(big, "cluster_uuid")));
            json_array_append_new(reasons, json_string(text));
            if (blamed == NULL)
                blamed = json_string_value(json_array_get(json_object_get(c, "hosts"), 0));
        }
    }
    verdict = blamed ? "FAIL" : unread ? "INCOMPLETE" : n == 0 ? "INCOMPLETE" : "PASS";
    if (n == 0)
        json_array_append_new(reasons, json_string("no GPU of the rack was read"));
    json_object_set_new(rec, "rack", json_string(rack));
    json_object_set_new(rec, "gpus", json_integer(n));
    json_object_set_new(rec, "hosts", hosts);
    json_object_set_new(rec, "cliques", cliques);
    json_object_set_new(rec, "members", members);
    json_object_set_new(rec, "verdict", json_string(verdict));
    json_object_set_new(rec, "reasons", reasons);
    /* NVML's own statement of the GPU's registration: evidence enough to
     * fail the rack, not to pull a node before a repair looks at the
     * switch trays and cables it shares with the rest */
    json_object_set_new(rec, "implicates", blamed == NULL ? json_null()
                        : json_pack("{s:s, s:s, s:s, s:b}", "part", "nvlink", "host", blamed,
                                    "rack", rack, "quarantine", 0));
    return rec;
}
