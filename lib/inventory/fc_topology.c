/*
 * fc_topology.c - see fc_topology.h: the table of topology formats, the
 * reading of FORMAT:FILE (a file, standard input, or the format's own
 * command run here), and the rack map written from it. What the parsers
 * share is fc_topo_parse.c.
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

/* The output of cmd (its stderr passes through), bounded in time. */
static fc_status_t fc_topo_run_live(const char *cmd, char **text_p, size_t *len_p)
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
    *len_p = len;
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
    size_t len = 0;
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
        st = fc_topo_run_live(f->live, &text, &len);
    } else if (strcmp(colon + 1, "-") == 0) {
        path = "standard input";
        st = fc_input_read_fd(STDIN_FILENO, "standard input", "topology",
                              FC_INPUT_INVENTORY_MAX, 0, &text, &len);
    } else {
        path = colon + 1;
        st = fc_input_read(path, "topology", FC_INPUT_INVENTORY_MAX, &text, &len);
    }
    if (st == FC_OK && (st = fc_input_plain_text(path, "topology", text, &len)) != FC_OK)
        free(text);
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
    free(t->host_index);
    free(t->racks);
    memset(t, 0, sizeof(*t));
}
