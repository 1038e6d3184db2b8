/*
 * fc_inventory.c - see fc_inventory.h: reading the host list and the rack
 * map line by line, joining them into the inventory, and leaving out the
 * racks none of whose hosts is in the run. Each hostlist expression is
 * expanded by fc_hostlist.c.
 */
#include "fc_inventory.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "fc_alloc.h"

/* Split text into lines; calls fn(line, lineno) with comments and
 * surrounding blanks removed, for non-empty lines. */
typedef fc_status_t (*fc_line_func_t)(char *line, int lineno, void *arg);

static fc_status_t fc_for_each_line(const char *text, fc_line_func_t fn, void *arg)
{
    char *copy = fc_xstrdup(text, "a text's lines"), *line;
    int lineno = 1;
    fc_status_t st = FC_OK;

    /* strtok_r would merge empty lines; walk by hand to keep numbers */
    line = copy;
    for (;;) {
        char *nl = strchr(line, '\n'), *hash, *end;

        if (nl)
            *nl = '\0';
        if ((hash = strchr(line, '#')) != NULL)
            *hash = '\0';
        while (*line == ' ' || *line == '\t' || *line == '\r')
            ++line;
        end = line + strlen(line);
        while (end > line && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
            *--end = '\0';
        if (*line && (st = fn(line, lineno, arg)) != FC_OK)
            break;
        if (nl == NULL)
            break;
        line = nl + 1;
        ++lineno;
    }
    free(copy);
    return st;
}

/* Names already read, by hash: the index + 1 of each in its table (0: an
 * empty slot), so that a list of 100,000 hosts is checked for doubles in
 * linear time, not quadratic. Names are added in table order, 0, 1, ... */
typedef struct fc_inv_index {
    int *slot;
    size_t cap;             /* a power of two, at least twice n */
    int n;
} fc_inv_index_t;

static size_t fc_inv_hash(const char *name)
{
    return (size_t)XXH64(name, strlen(name), 0);
}

static int fc_inv_index_find(const fc_inv_index_t *ix, char (*names)[FC_INV_NAME_MAX],
                             const char *name)
{
    for (size_t k = ix->cap ? fc_inv_hash(name) & (ix->cap - 1) : 0; ix->cap;
         k = (k + 1) & (ix->cap - 1)) {
        int i = ix->slot[k] - 1;

        if (i < 0)
            return -1;
        if (strcmp(names[i], name) == 0)
            return i;
    }
    return -1;
}

static void fc_inv_index_put(fc_inv_index_t *ix, char (*names)[FC_INV_NAME_MAX], int i)
{
    size_t k = fc_inv_hash(names[i]) & (ix->cap - 1);

    while (ix->slot[k] != 0)
        k = (k + 1) & (ix->cap - 1);
    ix->slot[k] = i + 1;
}

/* names[ix->n] was just added to its table. */
static void fc_inv_index_add(fc_inv_index_t *ix, char (*names)[FC_INV_NAME_MAX])
{
    if ((size_t)(ix->n + 1) * 2 > ix->cap) {
        free(ix->slot);
        ix->cap = ix->cap ? ix->cap * 2 : 64;
        ix->slot = fc_xcalloc(ix->cap, sizeof(int), "an inventory's index");
        for (int i = 0; i < ix->n; ++i)
            fc_inv_index_put(ix, names, i);
    }
    fc_inv_index_put(ix, names, ix->n++);
}

typedef struct fc_inv_builder {
    fc_inventory_t *inv;
    const char *path;
    int *rack_line;          /* line that first named each rack */
    int cap_hosts, cap_racks;
    int from_map;            /* adding hosts while reading the rack map */
    /* the rack map, as (host, rack, line) before it is joined to hosts */
    char (*map_host)[FC_INV_NAME_MAX];
    int *map_rack, *map_line;
    int nmap, cap_map;
    int cap_left_out;               /* of inv->left_out and left_out_rack */
    fc_inv_index_t host_ix, map_ix, rack_ix;   /* inv->hosts, map_host, inv->racks */
} fc_inv_builder_t;

/* *p holds at least need elements of elem bytes (*cap of them). */
static void fc_grow(void **p, int *cap, int need, size_t elem, const char *what)
{
    if (need <= *cap)
        return;
    int ncap = *cap ? *cap : 16;

    while (ncap < need)
        ncap *= 2;
    *p = fc_xrealloc(*p, (size_t)ncap, elem, what);
    *cap = ncap;
}

static fc_status_t fc_inv_expand_line(fc_inv_builder_t *b, const char *expr,
                                      int lineno, char (**names_p)[FC_INV_NAME_MAX],
                                      int *count_p)
{
    char err[256];

    if (fc_hostlist_expand(expr, names_p, count_p, err, sizeof(err)) != FC_OK) {
        fprintf(stderr, "fabcert: %s:%d: bad host list '%s': %s\n", b->path,
                lineno, expr, err);
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

/* "slots=N" of a hostfile line: N in *slots_p; other KEY=VALUE words are
 * ignored. 0, or an error (said). */
static fc_status_t fc_inv_slots(fc_inv_builder_t *b, const char *tok, int lineno, int *slots_p)
{
    char *end;
    long v;

    if (strncmp(tok, "slots=", 6) != 0)
        return FC_OK;
    v = strtol(tok + 6, &end, 10);
    if (end == tok + 6 || *end != '\0' || v < 1 || v > 100000) {
        fprintf(stderr, "fabcert: %s:%d: bad '%s': slots=N with N from 1 to 100000\n",
                b->path, lineno, tok);
        return FC_ERR_INVALID;
    }
    *slots_p = (int)v;
    return FC_OK;
}

static fc_status_t fc_inv_hosts_line(char *line, int lineno, void *arg)
{
    fc_inv_builder_t *b = arg;
    fc_inventory_t *inv = b->inv;
    char (*names)[FC_INV_NAME_MAX];
    char *save = NULL;
    int n, first = inv->nhosts, slots = 0;

    /* a host list line may hold several expressions separated by blanks;
     * a hostfile's "slots=N" is kept, other KEY=VALUE words ignored */
    for (char *tok = strtok_r(line, " \t", &save); tok;
         tok = strtok_r(NULL, " \t", &save)) {
        if (strchr(tok, '=') != NULL) {
            FC_CHECK(fc_inv_slots(b, tok, lineno, &slots));
            continue;
        }
        FC_CHECK(fc_inv_expand_line(b, tok, lineno, &names, &n));
        for (int i = 0; i < n; ++i) {
            int dup = fc_inv_index_find(&b->host_ix, inv->hosts, names[i]);

            if (dup >= 0 && strcmp(inv->hosts[dup], names[i]) == 0) {
                fprintf(stderr, "fabcert: %s:%d: host '%s' is listed twice "
                        "(first on line %d)\n", b->path, lineno, names[i],
                        inv->host_line[dup]);
                free(names);
                return FC_ERR_INVALID;
            }
            if (inv->nhosts + 1 > b->cap_hosts) {   /* grown, not copied per host */
                fc_grow((void **)&inv->hosts, &b->cap_hosts, inv->nhosts + 1, FC_INV_NAME_MAX,
                        "the inventory's hosts");
                inv->host_line = fc_xrealloc(inv->host_line, (size_t)b->cap_hosts,
                                             sizeof(int), "the hosts' lines");
                inv->host_rack = fc_xrealloc(inv->host_rack, (size_t)b->cap_hosts,
                                             sizeof(int), "the hosts' racks");
                inv->host_slots = fc_xrealloc(inv->host_slots, (size_t)b->cap_hosts,
                                              sizeof(int), "the hosts' slots");
            }
            snprintf(inv->hosts[inv->nhosts], FC_INV_NAME_MAX, "%s", names[i]);
            inv->host_line[inv->nhosts] = lineno;
            inv->host_rack[inv->nhosts] = -1;
            inv->host_slots[inv->nhosts] = 0;
            fc_inv_index_add(&b->host_ix, inv->hosts);
            inv->nhosts++;
        }
        free(names);
    }
    for (int h = first; h < inv->nhosts; ++h)
        inv->host_slots[h] = slots;
    return FC_OK;
}

static int fc_inv_add_rack(fc_inv_builder_t *b, const char *rack, int lineno)
{
    fc_inventory_t *inv = b->inv;
    int r = fc_inv_index_find(&b->rack_ix, inv->racks, rack);

    if (r >= 0)
        return r;
    if (inv->nracks + 1 > b->cap_racks) {
        fc_grow((void **)&inv->racks, &b->cap_racks, inv->nracks + 1, FC_INV_NAME_MAX,
                "the inventory's racks");
        b->rack_line = fc_xrealloc(b->rack_line, (size_t)b->cap_racks, sizeof(int),
                                   "the racks' lines");
    }
    snprintf(inv->racks[inv->nracks], FC_INV_NAME_MAX, "%s", rack);
    b->rack_line[inv->nracks] = lineno;
    fc_inv_index_add(&b->rack_ix, inv->racks);
    return inv->nracks++;
}

static fc_status_t fc_inv_rack_line(char *line, int lineno, void *arg)
{
    fc_inv_builder_t *b = arg;
    char *colon = strchr(line, ':'), *rack, *list, *save = NULL;
    char (*names)[FC_INV_NAME_MAX];
    char *tokens[256];
    int ntok = 0, r, n;

    if (colon) {                        /* "rack: hosts..." */
        *colon = '\0';
        rack = line;
        list = colon + 1;
        for (char *e = rack + strlen(rack); e > rack && (e[-1] == ' ' || e[-1] == '\t');)
            *--e = '\0';
        for (char *t = strtok_r(list, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
            if (ntok < 256)
                tokens[ntok++] = t;
            else
                goto too_many;
    } else {                            /* "hosts rack" */
        for (char *t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
            if (ntok < 256)
                tokens[ntok++] = t;
            else
                goto too_many;
        if (ntok < 2) {
            fprintf(stderr, "fabcert: %s:%d: expected 'HOSTS RACK' or "
                    "'RACK: HOSTS', found '%s'\n", b->path, lineno, line);
            return FC_ERR_INVALID;
        }
        rack = tokens[--ntok];
    }
    if (rack[0] == '\0' || strchr(rack, '[') || strlen(rack) >= FC_INV_NAME_MAX) {
        fprintf(stderr, "fabcert: %s:%d: bad rack name '%s'\n", b->path,
                lineno, rack);
        return FC_ERR_INVALID;
    }
    for (const char *c = rack; *c; ++c)
        if (!fc_name_char_ok(*c)) {
            fprintf(stderr, "fabcert: %s:%d: '%c' is not allowed in rack name "
                    "'%s'\n", b->path, lineno, *c, rack);
            return FC_ERR_INVALID;
        }
    r = fc_inv_add_rack(b, rack, lineno);
    for (int t = 0; t < ntok; ++t) {
        FC_CHECK(fc_inv_expand_line(b, tokens[t], lineno, &names, &n));
        for (int i = 0; i < n; ++i) {
            int m = fc_inv_index_find(&b->map_ix, b->map_host, names[i]);

            if (m >= 0) {
                if (b->map_rack[m] == r)
                    fprintf(stderr, "fabcert: %s:%d: host '%s' is listed "
                            "twice for rack '%s' (first on line %d)\n",
                            b->path, lineno, names[i], rack, b->map_line[m]);
                else
                    fprintf(stderr, "fabcert: %s:%d: host '%s' is in two "
                            "racks: '%s' here and '%s' on line %d\n",
                            b->path, lineno, names[i], rack,
                            b->inv->racks[b->map_rack[m]], b->map_line[m]);
                free(names);
                return FC_ERR_INVALID;
            }
            if (b->nmap + 1 > b->cap_map) {
                fc_grow((void **)&b->map_host, &b->cap_map, b->nmap + 1, FC_INV_NAME_MAX,
                        "the rack map's hosts");
                b->map_rack = fc_xrealloc(b->map_rack, (size_t)b->cap_map, sizeof(int),
                                          "the rack map's racks");
                b->map_line = fc_xrealloc(b->map_line, (size_t)b->cap_map, sizeof(int),
                                          "the rack map's lines");
            }
            snprintf(b->map_host[b->nmap], FC_INV_NAME_MAX, "%s", names[i]);
            b->map_rack[b->nmap] = r;
            b->map_line[b->nmap] = lineno;
            fc_inv_index_add(&b->map_ix, b->map_host);
            b->nmap++;
        }
        free(names);
    }
    return FC_OK;
too_many:
    fprintf(stderr, "fabcert: %s:%d: more than 255 host expressions on one line: put them "
            "on several lines, or use ranges (gpu[001-512])\n", b->path, lineno);
    return FC_ERR_INVALID;
}

/* Racks of the map none of whose hosts is in this run are not part of it:
 * compact the rack list (order kept) and renumber the hosts' racks, and
 * keep the left-out hosts of the racks that stay (renumbered too). */
static void fc_inv_drop_racks_outside(fc_inventory_t *inv, const int *rack_hosts)
{
    int *renum, kept = 0;

    if (inv->nracks <= 0)
        return;
    renum = fc_xcalloc((size_t)inv->nracks, sizeof(int), "the racks' new numbers");
    for (int r = 0; r < inv->nracks; ++r) {
        renum[r] = kept;
        if (rack_hosts[r] == 0) {
            inv->racks_left_out++;
            continue;
        }
        if (kept != r)
            memcpy(inv->racks[kept], inv->racks[r], FC_INV_NAME_MAX);
        ++kept;
    }
    for (int h = 0; h < inv->nhosts; ++h)
        inv->host_rack[h] = renum[inv->host_rack[h]];
    inv->nracks = kept;
    kept = 0;
    for (int k = 0; k < inv->nleft_out; ++k) {
        int r = inv->left_out_rack[k];

        if (rack_hosts[r] == 0)
            continue;       /* a rack none of whose hosts ran: not reported */
        if (kept != k)
            memcpy(inv->left_out[kept], inv->left_out[k], FC_INV_NAME_MAX);
        inv->left_out_rack[kept++] = renum[r];
    }
    inv->nleft_out = kept;
    free(renum);
}

fc_status_t fc_inventory_parse(const char *hosts_text, const char *hosts_path,
                               const char *racks_text, const char *racks_path,
                               fc_inventory_t *inv_p)
{
    fc_inventory_t inv;
    fc_inv_builder_t b;
    fc_status_t st = FC_OK;
    int *rack_hosts = NULL, *map_hosts = NULL;

    memset(&inv, 0, sizeof(inv));
    memset(&b, 0, sizeof(b));
    b.inv = &inv;
    if (hosts_text == NULL && racks_text == NULL) {
        fprintf(stderr, "fabcert: no host list and no rack map given\n");
        return FC_ERR_INVALID;
    }
    snprintf(inv.hosts_path, sizeof(inv.hosts_path), "%s", hosts_path ? hosts_path : "");
    snprintf(inv.racks_path, sizeof(inv.racks_path), "%s", racks_path ? racks_path : "");
    if (hosts_text) {
        b.path = hosts_path;
        if ((st = fc_for_each_line(hosts_text, fc_inv_hosts_line, &b)) != FC_OK)
            goto out;
        if (inv.nhosts == 0) {
            fprintf(stderr, "fabcert: %s:1: the host list names no host\n", hosts_path);
            st = FC_ERR_INVALID;
            goto out;
        }
    }
    if (racks_text) {
        b.path = racks_path;
        if ((st = fc_for_each_line(racks_text, fc_inv_rack_line, &b)) != FC_OK)
            goto out;
        if (inv.nracks == 0) {
            fprintf(stderr, "fabcert: %s:1: the rack map names no rack\n", racks_path);
            st = FC_ERR_INVALID;
            goto out;
        }
        if (hosts_text == NULL) {       /* the map is the host list */
            b.path = racks_path;
            for (int m = 0; m < b.nmap; ++m) {
                char line[FC_INV_NAME_MAX];

                snprintf(line, sizeof(line), "%s", b.map_host[m]);
                if ((st = fc_inv_hosts_line(line, b.map_line[m], &b)) != FC_OK)
                    goto out;
            }
        }
        rack_hosts = fc_xcalloc((size_t)inv.nracks, sizeof(int), "the racks' hosts in the run");
        map_hosts = fc_xcalloc((size_t)inv.nracks, sizeof(int), "the racks' hosts in the map");
        /* the map may describe more of the cluster than this run's host
         * list: its other hosts are left out (and counted) */
        for (int m = 0; m < b.nmap; ++m) {
            int h = fc_inv_index_find(&b.host_ix, inv.hosts, b.map_host[m]);

            if (h < 0)      /* the same host under another domain, if one */
                h = fc_inventory_find_host(&inv, b.map_host[m]);

            map_hosts[b.map_rack[m]]++;
            if (h < 0) {
                int k = inv.nleft_out, cap = b.cap_left_out;    /* both grow alike */

                inv.map_hosts_left_out++;
                fc_grow((void **)&inv.left_out, &b.cap_left_out, k + 1, FC_INV_NAME_MAX,
                        "the hosts left out");
                fc_grow((void **)&inv.left_out_rack, &cap, k + 1, sizeof(int),
                        "the racks of the hosts left out");
                snprintf(inv.left_out[k], FC_INV_NAME_MAX, "%s", b.map_host[m]);
                inv.left_out_rack[k] = b.map_rack[m];
                inv.nleft_out++;
                continue;
            }
            inv.host_rack[h] = b.map_rack[m];
        }
        for (int h = 0; h < inv.nhosts; ++h)
            if (inv.host_rack[h] < 0) {
                fprintf(stderr, "fabcert: %s:%d: host '%s' is in no rack of "
                        "the rack map %s\n", hosts_path, inv.host_line[h],
                        inv.hosts[h], racks_path);
                st = FC_ERR_INVALID;
                goto out;
            }
        for (int h = 0; h < inv.nhosts; ++h)
            rack_hosts[inv.host_rack[h]]++;
        for (int r = 0; r < inv.nracks; ++r)
            if (map_hosts[r] == 0) {
                fprintf(stderr, "fabcert: %s:%d: rack '%s' has no host\n",
                        racks_path, b.rack_line[r], inv.racks[r]);
                st = FC_ERR_INVALID;
                goto out;
            }
        fc_inv_drop_racks_outside(&inv, rack_hosts);
    } else {
        b.path = hosts_path;
        fc_inv_add_rack(&b, "default", 0);
        for (int h = 0; h < inv.nhosts; ++h)
            inv.host_rack[h] = 0;
    }
out:
    free(rack_hosts);
    free(map_hosts);
    free(b.rack_line);
    free(b.map_host);
    free(b.map_rack);
    free(b.map_line);
    free(b.host_ix.slot);
    free(b.map_ix.slot);
    free(b.rack_ix.slot);
    if (st != FC_OK) {
        fc_inventory_free(&inv);
        return st;
    }
    *inv_p = inv;
    return FC_OK;
}

/* a and b name one host when equal, or when the shorter is the longer up
 * to a '.' (a domain): "n1" and "n1.svc.cluster.local" */
static int fc_inv_same_host(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);

    if (la > lb)
        return fc_inv_same_host(b, a);
    return strncmp(a, b, la) == 0 && (b[la] == '\0' || b[la] == '.');
}

int fc_inventory_find_host(const fc_inventory_t *inv, const char *host)
{
    int found = -1;

    for (int h = 0; h < inv->nhosts; ++h)
        if (strcmp(inv->hosts[h], host) == 0)
            return h;
    /* a launcher's name and the host's own may differ by a domain (the MPI
     * Operator's hostfile names w-0.svc.ns.svc, the pod calls itself w-0):
     * the one listed host that matches, none when two do */
    for (int h = 0; h < inv->nhosts; ++h)
        if (fc_inv_same_host(inv->hosts[h], host)) {
            if (found >= 0)
                return -1;
            found = h;
        }
    return found;
}

int fc_inventory_find_rack(const fc_inventory_t *inv, const char *rack)
{
    for (int r = 0; r < inv->nracks; ++r)
        if (strcmp(inv->racks[r], rack) == 0)
            return r;
    return -1;
}

void fc_inventory_free(fc_inventory_t *inv)
{
    free(inv->hosts);
    free(inv->host_rack);
    free(inv->host_line);
    free(inv->host_slots);
    free(inv->racks);
    free(inv->left_out);
    free(inv->left_out_rack);
    memset(inv, 0, sizeof(*inv));
}
