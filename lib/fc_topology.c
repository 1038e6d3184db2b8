/*
 * fc_topology.c - see fc_topology.h: the table of topology formats, the
 * reading of FORMAT:FILE (a file, standard input, or the format's own
 * command run here), what the parsers share (a host placed in a rack,
 * rack names made usable as certificate file names, notes, errors naming
 * the line, the lines of a text), and the rack map written from it.
 */
#include "fc_topology.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fc_alloc.h"
#include "fc_input.h"

/* Every live command gets this long (timeout(1)) before it is killed:
 * `scontrol` waits on slurmctld, `ibnetdiscover` sweeps the fabric. */
#define FC_TOPO_LIVE_S 120

const fc_topo_format_t fc_topo_formats[] = {
    { "slurm", "`scontrol show topology` (or topology.conf): a rack per switch that "
               "lists Nodes= (or per BlockName=)",
      "scontrol show topology", fc_topo_parse_slurm },
    { "ibnetdiscover", "an `ibnetdiscover` topology file: a rack per leaf switch, the one "
                       "each host's first HCA hangs off; its rails as comments",
      "ibnetdiscover", fc_topo_parse_ibnet },
    { "k8s", "`kubectl get nodes -o json` (or -o yaml): a rack per value of the node "
             "label --rack-label (default: Topograph's leaf switch label)",
      "kubectl get nodes -o json", fc_topo_parse_k8s },
};
const int fc_topo_nformats = (int)FC_NELEM(fc_topo_formats);

const fc_topo_format_t *fc_topo_format_find(const char *name)
{
    for (int k = 0; k < fc_topo_nformats; ++k)
        if (strcmp(fc_topo_formats[k].name, name) == 0)
            return &fc_topo_formats[k];
    return NULL;
}

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

fc_status_t fc_topo_add(fc_topo_t *t, const char *host, const char *raw_rack, int line,
                        int *index_p)
{
    int r;

    if (host[0] == '\0' || strlen(host) >= FC_INV_NAME_MAX)
        return fc_topo_error(t, line, "host name '%s' is empty or longer than %d characters",
                             host, FC_INV_NAME_MAX - 1);
    for (const char *c = host; *c; ++c)
        if (!fc_name_char_ok(*c))
            return fc_topo_error(t, line, "'%c' is not allowed in host name '%s'", *c, host);
    for (int h = 0; h < t->nhosts; ++h)
        if (strcmp(t->hosts[h].name, host) == 0)
            return fc_topo_error(t, line, "host '%s' is in two racks: '%s' here and '%s' on "
                                 "line %d", host, raw_rack, t->racks[t->hosts[h].rack].raw,
                                 t->hosts[h].line);
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
    t->nhosts++;
    return FC_OK;
}

/* The output of cmd (its stderr passes through), bounded in time. */
static fc_status_t fc_topo_run_live(const char *cmd, char **text_p)
{
    char line[512], *text = NULL;
    size_t len = 0, got;
    FILE *p;
    int st;

    snprintf(line, sizeof(line), "timeout -k 5 %d %s", FC_TOPO_LIVE_S, cmd);
    if ((p = popen(line, "r")) == NULL) {
        fprintf(stderr, "fabcert: cannot run `%s`: %m\n", cmd);
        return FC_ERR_INVALID;
    }
    text = fc_xmalloc(65536, "a command's output");
    while ((got = fread(text + len, 1, 65535, p)) > 0) {
        len += got;
        text = fc_xrealloc(text, len + 65536, 1, "a command's output");
    }
    text[len] = '\0';
    st = pclose(p);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        int code = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;

        fprintf(stderr, "fabcert: `%s` %s: give its output in a file instead "
                "(FORMAT:FILE)\n", cmd, code == 124 ? "did not answer in time"
                : code == 127 ? "is not installed here"
                : "failed (its message is above)");
        free(text);
        return FC_ERR_INVALID;
    }
    *text_p = text;
    return FC_OK;
}

fc_status_t fc_topo_parse_text(const char *format, const char *text, const char *path,
                               const char *rack_label, fc_topo_t *t)
{
    const fc_topo_format_t *f = fc_topo_format_find(format);
    fc_status_t st;

    memset(t, 0, sizeof(*t));
    t->path = path;
    t->rack_label = rack_label;
    snprintf(t->source, sizeof(t->source), "%s:%s", format, path);
    if (f == NULL) {
        fprintf(stderr, "fabcert: unknown topology format '%s' (slurm, ibnetdiscover or "
                "k8s)\n", format);
        return FC_ERR_INVALID;
    }
    if (rack_label && strcmp(f->name, "k8s") != 0) {
        fprintf(stderr, "fabcert: --rack-label names a Kubernetes node label: the %s "
                "format has none\n", f->name);
        return FC_ERR_INVALID;
    }
    st = f->parse(text, t);
    if (st == FC_OK && t->nhosts == 0)
        st = fc_topo_error(t, 1, "no host is placed in a rack here (%s)", f->reads);
    if (st != FC_OK)
        fc_topo_free(t);
    return st;
}

fc_status_t fc_topo_read(const char *spec, const char *rack_label, fc_topo_t *t)
{
    const char *colon = strchr(spec, ':');
    char format[32], *text = NULL;
    const fc_topo_format_t *f;
    const char *path;
    fc_status_t st;

    memset(t, 0, sizeof(*t));
    snprintf(format, sizeof(format), "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec),
             spec);
    if ((f = fc_topo_format_find(format)) == NULL) {
        fprintf(stderr, "fabcert: --racks-from %s: unknown format '%s': give slurm, "
                "ibnetdiscover or k8s, then :FILE (or :- for standard input; none: run "
                "its command here)\n", spec, format);
        return FC_ERR_INVALID;
    }
    if (colon && colon[1] == '\0') {
        fprintf(stderr, "fabcert: --racks-from %s: no file after ':' (FORMAT:FILE, "
                "FORMAT:- for standard input, or FORMAT alone to run `%s`)\n", spec, f->live);
        return FC_ERR_INVALID;
    }
    if (colon == NULL) {
        path = f->live;
        st = fc_topo_run_live(f->live, &text);
    } else if (strcmp(colon + 1, "-") == 0) {
        path = "standard input";
        st = fc_input_read_fd(STDIN_FILENO, "standard input", "topology",
                              FC_INPUT_INVENTORY_MAX, 0, &text, NULL);
    } else {
        path = colon + 1;
        st = fc_input_read(path, "topology", FC_INPUT_INVENTORY_MAX, &text, NULL);
    }
    if (st != FC_OK)
        return st;
    st = fc_topo_parse_text(f->name, text, path, rack_label, t);
    if (st == FC_OK)
        snprintf(t->source, sizeof(t->source), colon ? "%s" : "`%s`, run here", colon ? spec
                 : f->live);
    free(text);
    return st;
}

static void fc_topo_cat(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void fc_topo_cat(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < *cap - *len)
            break;
        *cap = 2 * *cap + (size_t)(n > 0 ? n : 0);
        *buf = fc_xrealloc(*buf, *cap, 1, "the rack map's text");
    }
    *len += (size_t)n;
}

char *fc_topo_racks_text(const fc_topo_t *t)
{
    size_t len = 0, cap = 4096;
    char *buf = fc_xmalloc(cap, "the rack map's text");

    buf[0] = '\0';
    fc_topo_cat(&buf, &len, &cap, "# rack map from %s (fabcert topology)\n", t->source);
    fc_topo_cat(&buf, &len, &cap, "# rack: %s\n", t->rule);
    fc_topo_cat(&buf, &len, &cap, "# %d host(s) in %d rack(s)\n", t->nhosts, t->nracks);
    for (int k = 0; k < t->nnotes; ++k)
        fc_topo_cat(&buf, &len, &cap, "# note: %s\n", t->notes[k]);
    for (int r = 0; r < t->nracks; ++r) {
        int n = 0;

        for (int h = 0; h < t->nhosts; ++h)
            n += t->hosts[h].rack == r;
        if (n == 0)
            continue;
        fc_topo_cat(&buf, &len, &cap, "\n# rack %s: %d host(s)", t->racks[r].name, n);
        if (strcmp(t->racks[r].raw, t->racks[r].name) != 0)
            fc_topo_cat(&buf, &len, &cap, "; named '%s' in the input", t->racks[r].raw);
        fc_topo_cat(&buf, &len, &cap, " (line %d)\n", t->racks[r].line);
        for (int h = 0; h < t->nhosts; ++h) {
            const fc_topo_host_t *x = &t->hosts[h];

            if (x->rack != r)
                continue;
            fc_topo_cat(&buf, &len, &cap, "%s %s", x->name, t->racks[r].name);
            if (x->nrails > 0) {
                fc_topo_cat(&buf, &len, &cap, "  # rails:");
                for (int k = 0; k < x->nrails; ++k)
                    fc_topo_cat(&buf, &len, &cap, "%s %d %s %s", k ? "," : "", k,
                                x->rails[k].dev, x->rails[k].leaf);
            } else if (x->note[0]) {
                fc_topo_cat(&buf, &len, &cap, "  # %s", x->note);
            }
            fc_topo_cat(&buf, &len, &cap, "\n");
        }
    }
    return buf;
}

void fc_topo_free(fc_topo_t *t)
{
    for (int k = 0; k < t->nnotes; ++k)
        free(t->notes[k]);
    free(t->notes);
    free(t->hosts);
    free(t->racks);
    memset(t, 0, sizeof(*t));
}
