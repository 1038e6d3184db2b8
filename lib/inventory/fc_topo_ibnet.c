/*
 * fc_topo_ibnet.c - racks and rails from the InfiniBand fabric
 * (fc_topology.h): an `ibnetdiscover` topology file, as rdma-core's
 * infiniband-diags/ibnetdiscover.c prints it. Blocks of
 *
 *     vendid=0x2c9 ... switchguid=0x...(...)
 *     Switch  64 "S-b83fd20300803000"   # "leaf-1a" enhanced port 0 lid 1 lmc 0
 *     [1]     "H-b83fd20300a1b200"[1](b83fd20300a1b201)   # "gpu01 mlx5_0" lid 5 4xNDR
 *     [33]    "S-b83fd20300803100"[1]   # "spine-1" lid 3 4xNDR
 *
 *     caguid=0x...
 *     Ca      1 "H-b83fd20300a1b200"    # "gpu01 mlx5_0"
 *     [1](b83fd20300a1b201)   "S-b83fd20300803000"[1]   # lid 5 lmc 0 "leaf-1a" lid 1 4xNDR
 *
 * with "[ext N]" port names, "Chassis N", "Non-Chassis Nodes" and
 * "Hostname:" lines under -g. Each link of an HCA port to a switch is
 * taken from either side (both must agree). An HCA's node description is
 * "HOST DEVICE" (rdma-ndd's; a --node-name-map may set it): its host and
 * device. A host's rails are its HCA ports that reach a switch, in device
 * order (mlx5_0, mlx5_1, ..., mlx5_10); its rack is the leaf its first
 * rail hangs off. A leaf is named by its description, or by its GUID
 * ("S-<guid>") when leaves share one (a fabric without a node name map).
 * Hosts of one rack whose rail k hangs off different leaves, or that have
 * more or fewer rails than the rest, are noted: a cable in the wrong port
 * looks like that. An HCA whose description is not HOST DEVICE is left
 * out, noted.
 */
#include "fc_topology.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_rails.h"

typedef struct fc_ib_node {
    uint64_t guid;
    char type;                  /* 'S' switch, 'H' channel adapter, 'R' router */
    int described;              /* its own header line was read */
    int line;                   /* that line, else the first that named it */
    char desc[256];
    int first_link;             /* a CA's links, -1 none */
    int nlinks;                 /* a switch's CA links */
} fc_ib_node_t;

typedef struct fc_ib_link {
    int ca, port, sw, line, next;
} fc_ib_link_t;

typedef struct fc_ib {
    fc_topo_t *t;
    fc_ib_node_t *nodes;
    int nnodes, cap_nodes;
    int *slot, nslots;          /* open addressing on the GUID: node index + 1 */
    fc_ib_link_t *links;
    int nlinks, cap_links;
    int cur;                    /* the block's node, -1 outside one */
} fc_ib_t;

static int fc_ib_find(const fc_ib_t *ib, uint64_t guid, int *slot_p)
{
    int s = (int)((guid * 0x9E3779B97F4A7C15ull) >> 40) & (ib->nslots - 1);

    while (ib->slot[s] && ib->nodes[ib->slot[s] - 1].guid != guid)
        s = (s + 1) & (ib->nslots - 1);
    *slot_p = s;
    return ib->slot[s] - 1;
}

/* The node of that GUID, made if new (its type checked). -1: said. */
static int fc_ib_node(fc_ib_t *ib, char type, uint64_t guid, int line)
{
    int s = 0, n = ib->nslots ? fc_ib_find(ib, guid, &s) : -1;

    if (n >= 0) {
        if (ib->nodes[n].type != type)
            return fc_topo_error(ib->t, line, "GUID %016llx is a %c node here and a %c "
                                 "node on line %d", (unsigned long long)guid, type,
                                 ib->nodes[n].type, ib->nodes[n].line), -1;
        return n;
    }
    if (2 * (ib->nnodes + 1) > ib->nslots) {    /* grow the table: rehash */
        int old = ib->nslots;

        ib->nslots = old ? 2 * old : 1024;
        free(ib->slot);
        ib->slot = fc_xcalloc((size_t)ib->nslots, sizeof(int), "the fabric's GUID table");
        for (int k = 0; k < ib->nnodes; ++k) {
            fc_ib_find(ib, ib->nodes[k].guid, &s);
            ib->slot[s] = k + 1;
        }
        fc_ib_find(ib, guid, &s);
    }
    if (ib->nnodes == ib->cap_nodes) {
        ib->cap_nodes = ib->cap_nodes ? 2 * ib->cap_nodes : 256;
        ib->nodes = fc_xrealloc(ib->nodes, (size_t)ib->cap_nodes, sizeof(*ib->nodes),
                                "the fabric's nodes");
    }
    n = ib->nnodes++;
    memset(&ib->nodes[n], 0, sizeof(ib->nodes[n]));
    ib->nodes[n].guid = guid;
    ib->nodes[n].type = type;
    ib->nodes[n].line = line;
    ib->nodes[n].first_link = -1;
    ib->slot[s] = n + 1;
    return n;
}

/* "X-0123456789abcdef" (in quotes) at *pp: type and GUID; 0, or -1. */
static int fc_ib_id(const char **pp, char *type_p, uint64_t *guid_p)
{
    const char *p = *pp;
    char *end;

    if (p[0] != '"' || p[1] == '\0' || !strchr("SHR", p[1]) || p[2] != '-' ||
        !isxdigit((unsigned char)p[3]))
        return -1;
    *type_p = p[1];
    *guid_p = strtoull(p + 3, &end, 16);
    if (*end != '"' || end - (p + 3) > 16)
        return -1;
    *pp = end + 1;
    return 0;
}

/* The description in a line's comment: from its first to its last quote. */
static void fc_ib_desc(const char *line, char *out, size_t len)
{
    const char *hash = strchr(line, '#'), *a = hash ? strchr(hash, '"') : NULL;
    const char *b = a ? strrchr(a + 1, '"') : NULL;

    out[0] = '\0';
    if (b)
        snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
}

static void fc_ib_skip(const char **pp)
{
    const char *p = *pp, *e;

    for (;;) {
        p += strspn(p, " \t");
        if ((*p == '[' && (e = strchr(p, ']')) != NULL) ||
            (*p == '(' && (e = strchr(p, ')')) != NULL))
            p = e + 1;
        else
            break;
    }
    *pp = p;
}

/* "Switch 64 "S-guid" # "desc" ...", "Ca 1 "H-guid" # "desc"", "Rt ...". */
static fc_status_t fc_ib_header(fc_ib_t *ib, const char *line, int lineno)
{
    const char *p = line + strcspn(line, " \t");
    char type, want = line[0] == 'S' ? 'S' : line[0] == 'C' ? 'H' : 'R';
    uint64_t guid;
    int n;

    p += strspn(p, " \t");
    p += strspn(p, "0123456789");
    p += strspn(p, " \t");
    if (fc_ib_id(&p, &type, &guid) != 0 || type != want)
        return fc_topo_error(ib->t, lineno, "expected '%.*s N \"%c-GUID\"  # \"DESCRIPTION\"'",
                             (int)strcspn(line, " \t"), line, want);
    if ((n = fc_ib_node(ib, type, guid, lineno)) < 0)
        return FC_ERR_INVALID;
    if (ib->nodes[n].described)
        return fc_topo_error(ib->t, lineno, "node %c-%016llx is described twice (first on "
                             "line %d)", type, (unsigned long long)guid, ib->nodes[n].line);
    ib->nodes[n].described = 1;
    ib->nodes[n].line = lineno;
    fc_ib_desc(p, ib->nodes[n].desc, sizeof(ib->nodes[n].desc));
    ib->cur = n;
    return FC_OK;
}

static fc_status_t fc_ib_link(fc_ib_t *ib, int ca, int port, int sw, int lineno)
{
    for (int k = ib->nodes[ca].first_link; k >= 0; k = ib->links[k].next)
        if (ib->links[k].port == port) {
            if (ib->links[k].sw == sw)
                return FC_OK;           /* the other side of a link already read */
            return fc_topo_error(ib->t, lineno, "HCA port %016llx[%d] hangs off switch "
                                 "%016llx here and %016llx on line %d",
                                 (unsigned long long)ib->nodes[ca].guid, port,
                                 (unsigned long long)ib->nodes[sw].guid,
                                 (unsigned long long)ib->nodes[ib->links[k].sw].guid,
                                 ib->links[k].line);
        }
    if (ib->nlinks == ib->cap_links) {
        ib->cap_links = ib->cap_links ? 2 * ib->cap_links : 256;
        ib->links = fc_xrealloc(ib->links, (size_t)ib->cap_links, sizeof(*ib->links),
                                "the fabric's links");
    }
    ib->links[ib->nlinks] = (fc_ib_link_t){ ca, port, sw, lineno, ib->nodes[ca].first_link };
    ib->nodes[ca].first_link = ib->nlinks++;
    ib->nodes[sw].nlinks++;
    return FC_OK;
}

/* "[N](guid)  "X-guid"[M](guid)  # ..." inside the current block. */
static fc_status_t fc_ib_port(fc_ib_t *ib, const char *line, int lineno)
{
    const char *p = line + 1;
    char type, desc[256], *end;
    long port = strtol(p, &end, 10), peer_port;
    uint64_t guid;
    int cur = ib->cur, peer;

    if (cur < 0)
        return fc_topo_error(ib->t, lineno, "a port line before any Switch or Ca line");
    if (end == p || *end != ']' || port < 1 || port > 255)
        return fc_topo_error(ib->t, lineno, "expected '[PORT]' at the start of a port line");
    p = end + 1;
    fc_ib_skip(&p);
    if (fc_ib_id(&p, &type, &guid) != 0)
        return fc_topo_error(ib->t, lineno, "expected the peer '\"S-GUID\"[PORT]' or "
                             "'\"H-GUID\"[PORT]' after the port");
    peer_port = *p == '[' ? strtol(p + 1, &end, 10) : 0;
    if (*p != '[' || *end != ']' || peer_port < 1 || peer_port > 255)
        return fc_topo_error(ib->t, lineno, "expected the peer's '[PORT]' after its GUID");
    fc_ib_desc(end, desc, sizeof(desc));
    if (ib->nodes[cur].type == 'S' && type == 'H') {
        if ((peer = fc_ib_node(ib, 'H', guid, lineno)) < 0)
            return FC_ERR_INVALID;
        if (!ib->nodes[peer].described && !ib->nodes[peer].desc[0])
            snprintf(ib->nodes[peer].desc, sizeof(ib->nodes[peer].desc), "%s", desc);
        return fc_ib_link(ib, peer, (int)peer_port, cur, lineno);
    }
    if (ib->nodes[cur].type == 'H' && type == 'S') {
        if ((peer = fc_ib_node(ib, 'S', guid, lineno)) < 0)
            return FC_ERR_INVALID;
        if (!ib->nodes[peer].described && !ib->nodes[peer].desc[0])
            snprintf(ib->nodes[peer].desc, sizeof(ib->nodes[peer].desc), "%s", desc);
        return fc_ib_link(ib, cur, (int)port, peer, lineno);
    }
    return FC_OK;       /* switch to switch, HCA to HCA, a router: no host's leaf */
}

static fc_status_t fc_ib_line(fc_ib_t *ib, char *line, int lineno)
{
    size_t key = strspn(line, "abcdefghijklmnopqrstuvwxyz");

    if (line[0] == '\0' || line[0] == '#' || (key > 0 && line[key] == '='))
        return FC_OK;           /* comments, vendid=, devid=, ...guid= */
    if (!strncmp(line, "Switch", 6) || !strncmp(line, "Ca", 2) || !strncmp(line, "Rt", 2)) {
        if (line[line[0] == 'S' ? 6 : 2] == ' ' || line[line[0] == 'S' ? 6 : 2] == '\t')
            return fc_ib_header(ib, line, lineno);
    }
    if (line[0] == '[')
        return fc_ib_port(ib, line, lineno);
    if (!strncmp(line, "Chassis ", 8) || !strcmp(line, "Non-Chassis Nodes") ||
        !strncmp(line, "Hostname:", 9)) {
        ib->cur = -1;           /* -g: a chassis' own lines */
        return FC_OK;
    }
    return fc_topo_error(ib->t, lineno, "not a line of an ibnetdiscover topology file: "
                         "'%.60s'", line);
}

typedef struct fc_ib_rail {
    char dev[FC_INV_NAME_MAX];  /* "mlx5_0", "mlx5_0/2" */
    int sw, line;               /* the switch it hangs off, the line that said so */
} fc_ib_rail_t;

static int fc_ib_rail_cmp(const void *x, const void *y)
{
    const fc_ib_rail_t *a = x, *b = y;

    return fc_rails_name_cmp(a->dev, b->dev);     /* mlx5_2 before mlx5_10 */
}

/* The name a leaf goes by: its description, or its GUID when another leaf
 * shares the description (or it has none). */
static void fc_ib_leaf_name(const fc_ib_t *ib, int sw, char *out, size_t len)
{
    const fc_ib_node_t *s = &ib->nodes[sw];
    char name[FC_INV_NAME_MAX];
    int shared = 0;

    fc_topo_rack_name(s->desc, name, sizeof(name));
    for (int k = 0; k < ib->nnodes && !shared && name[0]; ++k)
        shared = k != sw && ib->nodes[k].type == 'S' && ib->nodes[k].nlinks > 0 &&
                 strcmp(ib->nodes[k].desc, s->desc) == 0;
    if (name[0] && !shared)
        snprintf(out, len, "%s", s->desc);
    else
        snprintf(out, len, "S-%016llx", (unsigned long long)s->guid);
}

typedef struct fc_ib_host {
    char name[FC_INV_NAME_MAX];
    int line;                   /* its first HCA's */
    int nrails;
    fc_ib_rail_t rails[FC_TOPO_RAILS_MAX];
} fc_ib_host_t;

static int fc_ib_host_cmp(const void *x, const void *y)
{
    const fc_ib_host_t *a = x, *b = y;

    return a->line - b->line;
}

/* Each HCA with a link to a switch, as HOST DEVICE: its host's rails. */
static fc_status_t fc_ib_hosts(fc_ib_t *ib, fc_ib_host_t **hosts_p, int *nhosts_p)
{
    fc_ib_host_t *hosts = NULL;
    int nhosts = 0, cap = 0;

    for (int n = 0; n < ib->nnodes; ++n) {
        const fc_ib_node_t *ca = &ib->nodes[n];
        char host[256], dev[256], extra[2];
        fc_ib_host_t *h = NULL;

        if (ca->type != 'H' || ca->first_link < 0)
            continue;
        if (sscanf(ca->desc, "%255s %255s %1s", host, dev, extra) != 2) {
            fc_topo_note(ib->t, "left out: HCA H-%016llx (line %d) is described as '%s', not "
                         "'HOST DEVICE' (run rdma-ndd on its host, or give ibnetdiscover a "
                         "--node-name-map)", (unsigned long long)ca->guid, ca->line, ca->desc);
            continue;
        }
        if (strlen(host) >= FC_INV_NAME_MAX || strlen(dev) + 4 >= FC_INV_NAME_MAX)
            goto too_long;
        for (int k = 0; k < nhosts && !h; ++k)
            if (strcmp(hosts[k].name, host) == 0)
                h = &hosts[k];
        if (h == NULL) {
            if (nhosts == cap) {
                cap = cap ? 2 * cap : 64;
                hosts = fc_xrealloc(hosts, (size_t)cap, sizeof(*hosts), "the fabric's hosts");
            }
            h = &hosts[nhosts++];
            memset(h, 0, sizeof(*h));
            snprintf(h->name, sizeof(h->name), "%s", host);
            h->line = ca->line;
        }
        for (int l = ca->first_link; l >= 0; l = ib->links[l].next) {
            fc_ib_rail_t *r;
            char name[FC_INV_NAME_MAX];

            snprintf(name, sizeof(name), ib->links[l].port == 1 ? "%s" : "%s/%d", dev,
                     ib->links[l].port);
            for (int k = 0; k < h->nrails; ++k)
                if (strcmp(h->rails[k].dev, name) == 0) {
                    fc_topo_error(ib->t, ca->line, "two HCAs of host %s are both %s (lines %d "
                                  "and %d): give them distinct node descriptions", host, dev,
                                  h->rails[k].line, ib->links[l].line);
                    free(hosts);
                    return FC_ERR_INVALID;
                }
            if (h->nrails == FC_TOPO_RAILS_MAX) {
                free(hosts);
                return fc_topo_error(ib->t, ca->line, "host %s has more than %d HCA ports "
                                     "on the fabric", host, FC_TOPO_RAILS_MAX);
            }
            r = &h->rails[h->nrails++];
            snprintf(r->dev, sizeof(r->dev), "%s", name);
            r->sw = ib->links[l].sw;
            r->line = ib->links[l].line;
        }
        continue;
too_long:
        free(hosts);
        return fc_topo_error(ib->t, ca->line, "the HCA's description '%.80s' is too long for "
                             "a host and device name", ca->desc);
    }
    if (nhosts > 0)
        qsort(hosts, (size_t)nhosts, sizeof(*hosts), fc_ib_host_cmp);
    for (int k = 0; k < nhosts; ++k)
        qsort(hosts[k].rails, (size_t)hosts[k].nrails, sizeof(hosts[k].rails[0]),
              fc_ib_rail_cmp);
    *hosts_p = hosts;
    *nhosts_p = nhosts;
    return FC_OK;
}

/* Hosts of one rack that differ from most of it on a rail (another leaf,
 * or more or fewer rails): noted, as a cable in the wrong port would. */
static void fc_ib_check_rails(fc_topo_t *t)
{
    for (int r = 0; r < t->nracks; ++r) {
        int counts[FC_TOPO_RAILS_MAX + 1] = { 0 }, common = 0;

        for (int h = 0; h < t->nhosts; ++h)
            if (t->hosts[h].rack == r)
                counts[t->hosts[h].nrails]++;
        for (int k = 1; k <= FC_TOPO_RAILS_MAX; ++k)
            if (counts[k] > counts[common])
                common = k;
        for (int k = 0; k < common; ++k) {
            const char *leaf = NULL;
            int best = 0;

            /* the leaf most hosts of the rack have on rail k */
            for (int h = 0; h < t->nhosts; ++h) {
                int n = 0;

                if (t->hosts[h].rack != r || t->hosts[h].nrails <= k)
                    continue;
                for (int g = 0; g < t->nhosts; ++g)
                    n += t->hosts[g].rack == r && t->hosts[g].nrails > k &&
                         strcmp(t->hosts[g].rails[k].leaf, t->hosts[h].rails[k].leaf) == 0;
                if (n > best)
                    best = n, leaf = t->hosts[h].rails[k].leaf;
            }
            for (int h = 0; h < t->nhosts && leaf; ++h) {
                const fc_topo_host_t *x = &t->hosts[h];

                if (x->rack == r && x->nrails > k && strcmp(x->rails[k].leaf, leaf) != 0)
                    fc_topo_note(t, "host %s: rail %d (%s, line %d) hangs off %s, where %d "
                                 "other host(s) of rack %s have %s: a cable in another "
                                 "leaf's port?", x->name, k, x->rails[k].dev,
                                 x->rails[k].line, x->rails[k].leaf, best,
                                 t->racks[r].name, leaf);
            }
        }
        for (int h = 0; h < t->nhosts; ++h)
            if (t->hosts[h].rack == r && t->hosts[h].nrails != common)
                fc_topo_note(t, "host %s has %d rail(s) on the fabric, most hosts of rack "
                             "%s have %d", t->hosts[h].name, t->hosts[h].nrails,
                             t->racks[r].name, common);
    }
}

fc_status_t fc_topo_parse_ibnet(const char *text, fc_topo_t *t)
{
    char *copy = fc_xstrdup(text, "the fabric topology"), *pos = copy, *line;
    fc_ib_t ib = { .t = t, .cur = -1 };
    fc_ib_host_t *hosts = NULL;
    int lineno = 0, nhosts = 0;
    fc_status_t st = FC_OK;

    snprintf(t->rule, sizeof(t->rule), "the leaf switch each host's first rail hangs off "
             "(its HCAs in device order, from ibnetdiscover)");
    while (st == FC_OK && (line = fc_topo_next_line(&pos, &lineno)) != NULL)
        st = fc_ib_line(&ib, line, lineno);
    if (st == FC_OK)
        st = fc_ib_hosts(&ib, &hosts, &nhosts);
    for (int k = 0; k < nhosts && st == FC_OK; ++k) {
        char leaf[256];
        int idx;

        fc_ib_leaf_name(&ib, hosts[k].rails[0].sw, leaf, sizeof(leaf));
        if ((st = fc_topo_add(t, hosts[k].name, leaf, hosts[k].rails[0].line, &idx)) != FC_OK)
            break;
        t->hosts[idx].nrails = hosts[k].nrails;
        for (int r = 0; r < hosts[k].nrails; ++r) {   /* leaves as the rack map names them */
            fc_topo_rail_t *x = &t->hosts[idx].rails[r];

            fc_ib_leaf_name(&ib, hosts[k].rails[r].sw, leaf, sizeof(leaf));
            fc_topo_rack_name(leaf, x->leaf, sizeof(x->leaf));
            snprintf(x->dev, sizeof(x->dev), "%s", hosts[k].rails[r].dev);
            x->line = hosts[k].rails[r].line;
        }
    }
    if (st == FC_OK) {
        for (int r = 0; r < t->nracks; ++r)
            if (strlen(t->racks[r].raw) == 18 && !strncmp(t->racks[r].raw, "S-", 2)) {
                fc_topo_note(t, "leaf switches named by GUID (S-...): their descriptions "
                             "are shared or empty (give ibnetdiscover a --node-name-map to "
                             "name them)");
                break;
            }
        fc_ib_check_rails(t);
    }
    free(hosts);
    free(ib.nodes);
    free(ib.slot);
    free(ib.links);
    free(copy);
    return st;
}
