/*
 * fc_topo_k8s.c - racks from Kubernetes node labels (fc_topology.h): the
 * output of `kubectl get nodes -o json` (a List of Node objects; -o yaml,
 * or one Node, read the same: YAML holds JSON). Each node is
 * items[].metadata.name and its rack the value of one label of
 * metadata.labels: the one --rack-label names, else the first of the
 * labels below that any node carries:
 *
 *   network.topology.nvidia.com/leaf         Topograph (tree): the leaf switch
 *   fabric.topograph.run/tier-0              Topograph 1.x: the nearest switch tier
 *   nvidia.com/gpu.clique                    GPU operator: the NVLink domain
 *   network.topology.nvidia.com/accelerator  Topograph (block): the NVLink domain
 *   accelerator.topograph.run/domain         Topograph 1.x: the same
 *   network.topology.nvidia.com/block        Topograph (block)
 *   topology.kubernetes.io/zone              the cloud's zone: a last resort
 *
 * A node without that label (a control-plane or CPU node) is left out,
 * noted; the other labels of the list it has (and the spine, the tier
 * above) are shown beside it. The
 * document is read with libfyaml, so an error names its line.
 */
#include "fc_topology.h"

#include <libfyaml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_input.h"

static const struct {
    const char *key, *what;
    int rack;           /* may name the rack; else only shown beside a node */
} fc_k8s_labels[] = {
    { "network.topology.nvidia.com/leaf", "Topograph's leaf switch", 1 },
    { "fabric.topograph.run/tier-0", "Topograph's tier-0 switch", 1 },
    { "nvidia.com/gpu.clique", "the GPU operator's NVLink clique", 1 },
    { "network.topology.nvidia.com/accelerator", "Topograph's accelerator (NVLink) domain", 1 },
    { "accelerator.topograph.run/domain", "Topograph's accelerator (NVLink) domain", 1 },
    { "network.topology.nvidia.com/block", "Topograph's block", 1 },
    { "topology.kubernetes.io/zone", "the zone (a cloud's, far more than a rack)", 1 },
    { "network.topology.nvidia.com/spine", "Topograph's spine switch", 0 },
    { "fabric.topograph.run/tier-1", "Topograph's tier-1 switch", 0 },
};

/* The line of a node: its scalar's, or a mapping's first key's. */
static int fc_k8s_line(struct fy_node *n)
{
    struct fy_token *tok;
    const struct fy_mark *m;
    void *iter = NULL;

    while (n && fy_node_get_type(n) != FYNT_SCALAR) {
        struct fy_node_pair *pair;

        if (fy_node_get_type(n) == FYNT_MAPPING) {
            pair = fy_node_mapping_iterate(n, &iter);
            n = pair ? fy_node_pair_key(pair) : NULL;
        } else {
            n = fy_node_sequence_iterate(n, &iter);
        }
        iter = NULL;
    }
    tok = n ? fy_node_get_scalar_token(n) : NULL;
    m = tok ? fy_token_start_mark(tok) : NULL;
    return m ? m->line + 1 : 1;
}

static struct fy_node *fc_k8s_get(struct fy_node *map, const char *key)
{
    if (map == NULL || fy_node_get_type(map) != FYNT_MAPPING)
        return NULL;
    return fy_node_mapping_lookup_value_by_simple_key(map, key, strlen(key));
}

/* A scalar's text, or NULL (not a scalar, or longer than len). */
static const char *fc_k8s_text(struct fy_node *n, char *buf, size_t len)
{
    const char *s;
    size_t slen;

    if (n == NULL || fy_node_get_type(n) != FYNT_SCALAR ||
        (s = fy_node_get_scalar(n, &slen)) == NULL || slen >= len)
        return NULL;
    memcpy(buf, s, slen);
    buf[slen] = '\0';
    return buf;
}

/* The nodes: items of a List, or the document itself if it is a Node. */
static fc_status_t fc_k8s_items(fc_topo_t *t, struct fy_node *root, struct fy_node **items_p)
{
    char kind[64] = "";

    if (root == NULL || fy_node_get_type(root) != FYNT_MAPPING)
        return fc_topo_error(t, fc_k8s_line(root), "expected the output of `kubectl get "
                             "nodes -o json` (an object with items), found no object");
    fc_k8s_text(fc_k8s_get(root, "kind"), kind, sizeof(kind));
    *items_p = fc_k8s_get(root, "items");
    if (*items_p == NULL && strcmp(kind, "Node") == 0) {
        *items_p = root;        /* `kubectl get node NAME -o json` */
        return FC_OK;
    }
    if (*items_p == NULL || fy_node_get_type(*items_p) != FYNT_SEQUENCE)
        return fc_topo_error(t, fc_k8s_line(*items_p ? *items_p : root), "expected 'items', "
                             "the list of nodes of `kubectl get nodes -o json`%s%s",
                             kind[0] ? "; this is a " : "", kind);
    return FC_OK;
}

/* Which label names the rack: --rack-label, else the first of the list
 * that a node carries; -1 when none does (said), else its index or
 * FC_NELEM (the given label). */
static int fc_k8s_choose(fc_topo_t *t, struct fy_node *items, int single)
{
    int best = -1;

    if (t->rack_label) {
        snprintf(t->rule, sizeof(t->rule), "the node label %s (--rack-label)", t->rack_label);
        return (int)FC_NELEM(fc_k8s_labels);
    }
    for (size_t k = 0; k < FC_NELEM(fc_k8s_labels) && best < 0 && fc_k8s_labels[k].rack; ++k) {
        void *iter = NULL;
        struct fy_node *item;

        while (best < 0 && (item = single ? (iter ? NULL : items)
                                          : fy_node_sequence_iterate(items, &iter)) != NULL) {
            iter = single ? item : iter;
            if (fc_k8s_get(fc_k8s_get(fc_k8s_get(item, "metadata"), "labels"),
                           fc_k8s_labels[k].key))
                best = (int)k;
        }
    }
    if (best < 0) {
        fc_topo_error(t, 1, "no node carries a label that names its rack (%s, %s, ...; "
                      "Topograph writes them): give --rack-label KEY",
                      fc_k8s_labels[0].key, fc_k8s_labels[2].key);
        return -1;
    }
    snprintf(t->rule, sizeof(t->rule), "the node label %s (%s)", fc_k8s_labels[best].key,
             fc_k8s_labels[best].what);
    return best;
}

static fc_status_t fc_k8s_node(fc_topo_t *t, struct fy_node *item, const char *key)
{
    struct fy_node *meta = fc_k8s_get(item, "metadata"), *labels = fc_k8s_get(meta, "labels");
    struct fy_node *name_n = fc_k8s_get(meta, "name");
    char name[FC_INV_NAME_MAX], rack[256], value[256], note[sizeof(t->hosts[0].note)] = "";
    int line = fc_k8s_line(name_n ? name_n : item), idx;

    if (fc_k8s_text(name_n, name, sizeof(name)) == NULL || name[0] == '\0')
        return fc_topo_error(t, line, "a node without metadata.name (or a name longer than "
                             "%d characters)", FC_INV_NAME_MAX - 1);
    if (labels && fy_node_get_type(labels) != FYNT_MAPPING)
        return fc_topo_error(t, fc_k8s_line(labels), "node %s: metadata.labels is not a "
                             "mapping", name);
    if (fc_k8s_text(fc_k8s_get(labels, key), rack, sizeof(rack)) == NULL || rack[0] == '\0') {
        if (fc_k8s_get(labels, key))
            return fc_topo_error(t, fc_k8s_line(fc_k8s_get(labels, key)), "node %s: label "
                                 "%s is not a string of at most %zu characters", name, key,
                                 sizeof(rack) - 1);
        fc_topo_note(t, "left out: node %s (line %d) has no label %s", name, line, key);
        return FC_OK;
    }
    for (size_t k = 0; k < FC_NELEM(fc_k8s_labels); ++k)
        if (strcmp(fc_k8s_labels[k].key, key) != 0 &&
            fc_k8s_text(fc_k8s_get(labels, fc_k8s_labels[k].key), value, sizeof(value)))
            snprintf(note + strlen(note), sizeof(note) - strlen(note), "%s%s=%.80s",
                     note[0] ? ", " : "", fc_k8s_labels[k].key, value);
    FC_CHECK(fc_topo_add(t, name, rack, line, &idx));
    snprintf(t->hosts[idx].note, sizeof(t->hosts[idx].note), "%s", note);
    return FC_OK;
}

fc_status_t fc_topo_parse_k8s(const char *text, fc_topo_t *t)
{
    struct fy_diag_cfg dcfg;
    struct fy_diag *diag;
    struct fy_parse_cfg cfg;
    struct fy_document *doc;
    struct fy_node *items = NULL, *item;
    fc_status_t st = FC_OK;
    void *iter = NULL;
    int which, single;
    const char *key;

    {
        int line, col;
        size_t len = strlen(text), end = fc_input_utf8_end(text, len, &line, &col);

        if (end < len)
            return fc_topo_error(t, line, "not UTF-8 text at column %d (byte 0x%02x): "
                                 "kubectl's output is JSON or YAML, which are UTF-8", col,
                                 (unsigned char)text[end]);
    }
    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL;
    dcfg.colorize = false;
    if ((diag = fy_diag_create(&dcfg)) == NULL)
        return fc_topo_error(t, 1, "cannot start the YAML parser");
    fy_diag_set_collect_errors(diag, true);
    memset(&cfg, 0, sizeof(cfg));
    cfg.flags = FYPCF_QUIET;
    cfg.diag = diag;
    doc = fy_document_build_from_string(&cfg, text, strlen(text));
    if (doc == NULL || fy_document_root(doc) == NULL) {
        void *eiter = NULL;
        struct fy_diag_error *err = fy_diag_errors_iterate(diag, &eiter);

        int lines = 1;

        for (const char *c = text; *c; ++c)     /* an error at the end: its last line */
            lines += *c == '\n' && c[1] != '\0';
        /* libfyaml's error lines count from 1 */
        st = err ? fc_topo_error(t, err->line < lines ? err->line : lines,
                                 "not JSON or YAML: %s", err->msg)
                 : fc_topo_error(t, 1, "empty: expected `kubectl get nodes -o json`");
        goto out;
    }
    if ((st = fc_k8s_items(t, fy_document_root(doc), &items)) != FC_OK)
        goto out;
    single = items == fy_document_root(doc);
    if ((which = fc_k8s_choose(t, items, single)) < 0) {
        st = FC_ERR_INVALID;
        goto out;
    }
    key = which == (int)FC_NELEM(fc_k8s_labels) ? t->rack_label : fc_k8s_labels[which].key;
    while (st == FC_OK && (item = single ? (iter ? NULL : items)
                                         : fy_node_sequence_iterate(items, &iter)) != NULL) {
        iter = single ? item : iter;
        if (fy_node_get_type(item) != FYNT_MAPPING)
            st = fc_topo_error(t, fc_k8s_line(item), "an item of 'items' is not a node "
                               "object");
        else
            st = fc_k8s_node(t, item, key);
    }
out:
    if (doc)
        fy_document_destroy(doc);
    fy_diag_destroy(diag);
    return st;
}
