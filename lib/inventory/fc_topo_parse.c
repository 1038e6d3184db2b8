/*
 * fc_topo_parse.c - see fc_topology.h: what the topology parsers share (a
 * host placed in a rack, rack names made usable as certificate file
 * names, notes, errors naming the line, the lines of a text). A leaf: the
 * format table in fc_topology.c names the parsers, and the parsers call
 * only this.
 */
#include "fc_topology.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_input.h"

fc_status_t fc_topo_error(const fc_topo_t *t, int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "fabcert: %s:%d: %s\n", t->path, line > 0 ? line : 1, msg);
    return FC_ERR_INVALID;
}

void fc_topo_note(fc_topo_t *t, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    t->notes = fc_xrealloc(t->notes, (size_t)t->nnotes + 1, sizeof(char *), "the topology's notes");
    t->notes[t->nnotes++] = fc_xstrdup(msg, "a topology note");
}

char *fc_topo_next_line(char **pos_p, int *lineno_p)
{
    char *line = *pos_p, *nl;
    size_t n;

    if (line == NULL || (*line == '\0'))
        return NULL;
    nl = strchr(line, '\n');
    if (nl) {
        *nl = '\0';
        *pos_p = nl + 1;
    } else {
        *pos_p = line + strlen(line);
    }
    n = strlen(line);
    if (n > 0 && line[n - 1] == '\r')
        line[n - 1] = '\0';
    ++*lineno_p;
    return line;
}

void fc_topo_rack_name(const char *raw, char *out, size_t len)
{
    size_t o = 0;

    /* each run of characters a file name cannot hold becomes one '-';
     * none at either end, and no '.' first */
    for (const char *c = raw; *c && o + 1 < len; ++c) {
        if (fc_name_char_ok(*c) && !(o == 0 && *c == '.'))
            out[o++] = *c;
        else if (o > 0 && out[o - 1] != '-')
            out[o++] = '-';
    }
    while (o > 0 && out[o - 1] == '-')
        --o;
    out[o] = '\0';
}

/* The rack whose input name is raw: found, or made (its name checked
 * against the others'); -1 on error (said). */
static int fc_topo_rack(fc_topo_t *t, const char *raw, int line)
{
    char name[FC_INV_NAME_MAX];
    int r;

    for (r = 0; r < t->nracks; ++r)
        if (strcmp(t->racks[r].raw, raw) == 0)
            return r;
    if (strlen(raw) >= sizeof(t->racks[0].raw)) {
        fc_topo_error(t, line, "the rack name '%.40s...' is longer than %zu characters", raw,
                      sizeof(t->racks[0].raw) - 1);
        return -1;
    }
    fc_topo_rack_name(raw, name, sizeof(name));
    if (name[0] == '\0') {
        fc_topo_error(t, line, "'%s' cannot name a rack: it has no letter or digit", raw);
        return -1;
    }
    for (r = 0; r < t->nracks; ++r)
        if (strcmp(t->racks[r].name, name) == 0) {
            fc_topo_error(t, line, "'%s' and '%s' (line %d) would both be rack '%s': "
                          "rename one of them", raw, t->racks[r].raw, t->racks[r].line, name);
            return -1;
        }
    if (t->nracks == t->cap_racks) {
        t->cap_racks = t->cap_racks ? 2 * t->cap_racks : 16;
        t->racks = fc_xrealloc(t->racks, (size_t)t->cap_racks, sizeof(*t->racks),
                               "the topology's racks");
    }
    memset(&t->racks[t->nracks], 0, sizeof(t->racks[0]));
    snprintf(t->racks[t->nracks].name, sizeof(t->racks[0].name), "%s", name);
    snprintf(t->racks[t->nracks].raw, sizeof(t->racks[0].raw), "%s", raw);
    t->racks[t->nracks].line = line;
    return t->nracks++;
}

static unsigned fc_topo_hash(const char *name)
{
    unsigned h = 2166136261u;           /* FNV-1a */

    for (; *name; ++name)
        h = (h ^ (unsigned char)*name) * 16777619u;
    return h;
}

/* The slot of host `name` in t->host_index: its own, or the empty one it
 * would take. */
static int fc_topo_slot(const fc_topo_t *t, const char *name)
{
    int k = (int)(fc_topo_hash(name) & (unsigned)(t->cap_index - 1));

    while (t->host_index[k] && strcmp(t->hosts[t->host_index[k] - 1].name, name) != 0)
        k = (k + 1) & (t->cap_index - 1);
    return k;
}

/* Room for one more host in the index (kept at most half full). */
static void fc_topo_index_grow(fc_topo_t *t)
{
    if (2 * (t->nhosts + 1) <= t->cap_index)
        return;
    free(t->host_index);
    t->cap_index = t->cap_index ? 2 * t->cap_index : 256;
    t->host_index = fc_xcalloc((size_t)t->cap_index, sizeof(int), "the topology's host index");
    for (int h = 0; h < t->nhosts; ++h)
        t->host_index[fc_topo_slot(t, t->hosts[h].name)] = h + 1;
}

fc_status_t fc_topo_add(fc_topo_t *t, const char *host, const char *raw_rack, int line,
                        int *index_p)
{
    int r, slot;

    if (host[0] == '\0' || strlen(host) >= FC_INV_NAME_MAX)
        return fc_topo_error(t, line, "host name '%s' is empty or longer than %d characters",
                             host, FC_INV_NAME_MAX - 1);
    for (const char *c = host; *c; ++c)
        if (!fc_name_char_ok(*c))
            return fc_topo_error(t, line, "'%c' is not allowed in host name '%s'", *c, host);
    fc_topo_index_grow(t);
    if (t->host_index[slot = fc_topo_slot(t, host)]) {
        int h = t->host_index[slot] - 1;

        return fc_topo_error(t, line, "host '%s' is in two racks: '%s' here and '%s' on "
                             "line %d", host, raw_rack, t->racks[t->hosts[h].rack].raw,
                             t->hosts[h].line);
    }
    if ((r = fc_topo_rack(t, raw_rack, line)) < 0)
        return FC_ERR_INVALID;
    if (t->nhosts == t->cap_hosts) {
        t->cap_hosts = t->cap_hosts ? 2 * t->cap_hosts : 64;
        t->hosts = fc_xrealloc(t->hosts, (size_t)t->cap_hosts, sizeof(*t->hosts),
                               "the topology's hosts");
    }
    memset(&t->hosts[t->nhosts], 0, sizeof(t->hosts[0]));
    snprintf(t->hosts[t->nhosts].name, sizeof(t->hosts[0].name), "%s", host);
    t->hosts[t->nhosts].rack = r;
    t->hosts[t->nhosts].line = line;
    if (index_p)
        *index_p = t->nhosts;
    t->host_index[slot] = ++t->nhosts;
    return FC_OK;
}
