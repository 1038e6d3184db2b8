/*
 * fc_topology.h - the rack map taken from what the cluster already knows
 * instead of typed by hand: Slurm's switch tree (`scontrol show topology`,
 * or its topology.conf), the InfiniBand fabric (an `ibnetdiscover`
 * topology file) or Kubernetes node labels (`kubectl get nodes -o json`,
 * or -o yaml). A rack is the leaf switch a host hangs off (Slurm: a
 * switch that lists Nodes=; the fabric: the leaf of the host's first
 * rail's HCA; Kubernetes: the value of the rack label, by default the
 * leaf switch label Topograph writes).
 *
 * Each format is one row of a table (fc_topology.c): its name in
 * FORMAT:FILE, what it reads, the command that prints it live, and its
 * parser, which fills an fc_topo_t: every host, its rack, the line of the
 * input that placed it and, for the fabric, its rails (each HCA port and
 * the leaf it hangs off). fc_topo_racks_text writes the result as a rack
 * map that fc_inventory.h reads ("HOST RACK" lines, the rails and the
 * notes as comments), so `fabcert topology` and `fabcert run --racks-from`
 * give the same racks. Bad input: one message naming the file and line
 * ("path:line: ..."), FC_ERR_INVALID, and the caller exits 2.
 */
#ifndef FC_TOPOLOGY_H
#define FC_TOPOLOGY_H

#include <stddef.h>

#include "fc_inventory.h"
#include "fc_status.h"

#define FC_TOPO_RAILS_MAX 32

typedef struct fc_topo_rail {
    char dev[FC_INV_NAME_MAX];          /* the HCA ("mlx5_0"; "mlx5_0/2": port 2) */
    char leaf[FC_INV_NAME_MAX];         /* the rack name of the switch it hangs off */
    int line;                           /* the line that linked them */
} fc_topo_rail_t;

typedef struct fc_topo_host {
    char name[FC_INV_NAME_MAX];
    int rack;                           /* index into fc_topo_t.racks */
    int line;                           /* the input line that placed it */
    int nrails;                         /* the fabric's: its HCA ports, in device order */
    fc_topo_rail_t rails[FC_TOPO_RAILS_MAX];
    char note[256];                     /* shown beside it ("clique ...", "" none) */
} fc_topo_host_t;

typedef struct fc_topo_rack {
    char name[FC_INV_NAME_MAX];         /* as the rack map and certificates name it */
    char raw[256];                      /* as the input names it (a switch, a label) */
    int line;
} fc_topo_rack_t;

typedef struct fc_topo {
    const char *path;                   /* the input, for messages */
    const char *rack_label;             /* Kubernetes: the label that names the rack
                                         * (NULL: fc_topo_k8s.c's order) */
    char source[1024];                  /* FORMAT:FILE as given, for the rack map */
    char rule[512];                     /* how a host's rack was chosen, in words */
    fc_topo_host_t *hosts;              /* in the order the racks first appear */
    int nhosts, cap_hosts;
    int *host_index;                    /* open addressing by name: index + 1, 0
                                         * empty (a host listed twice is found
                                         * at once, not by a scan) */
    int cap_index;
    fc_topo_rack_t *racks;
    int nracks, cap_racks;
    char **notes;                       /* what was left out, and why */
    int nnotes;
} fc_topo_t;

typedef fc_status_t (*fc_topo_parse_func_t)(const char *text, fc_topo_t *t);

typedef struct fc_topo_format {
    const char *name;                   /* "slurm", "ibnetdiscover", "k8s" */
    const char *reads;                  /* for the usage text */
    const char *live;                   /* the command that prints it here */
    fc_topo_parse_func_t parse;
} fc_topo_format_t;

/* The formats, and one by name (NULL: unknown). */
extern const fc_topo_format_t fc_topo_formats[];
extern const int fc_topo_nformats;
const fc_topo_format_t *fc_topo_format_find(const char *name);

/* Read a topology named FORMAT:FILE ("-": standard input) or FORMAT
 * alone (its live command, run here with a bound on its time) into *t;
 * rack_label is Kubernetes' rack label (NULL: the default order; any
 * other format refuses one). Errors are printed; FC_ERR_INVALID. */
fc_status_t fc_topo_read(const char *spec, const char *rack_label, fc_topo_t *t);
/* Parse text of a named format (for tests and fuzzing): path names it. */
fc_status_t fc_topo_parse_text(const char *format, const char *text, const char *path,
                               const char *rack_label, fc_topo_t *t);

/* For the parsers: host placed in the rack named raw (the input's name,
 * made a valid rack name here), from line. A host placed twice, a rack
 * name that two raw names share, a bad host name: printed, FC_ERR_INVALID.
 * The new host's index in *index_p (may be NULL). */
fc_status_t fc_topo_add(fc_topo_t *t, const char *host, const char *raw_rack, int line,
                        int *index_p);
/* For the parsers: the rack name raw becomes ("" when nothing of it is
 * usable); a rack name is letters, digits, '-', '_' and '.', not first. */
void fc_topo_rack_name(const char *raw, char *out, size_t len);
/* For the parsers: a line of what was left out, shown in the rack map. */
void fc_topo_note(fc_topo_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* For the parsers: a message "fabcert: path:line: ..." and FC_ERR_INVALID. */
fc_status_t fc_topo_error(const fc_topo_t *t, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* For the parsers: the next line of a copy of the text (pos walks it;
 * its '\r' and '\n' removed), *lineno_p counting from 1; NULL at the end. */
char *fc_topo_next_line(char **pos_p, int *lineno_p);

/* The rack map as text: a header naming the source and the rule, the
 * notes, then "HOST RACK" lines by rack (rails as a comment). Malloc'ed. */
char *fc_topo_racks_text(const fc_topo_t *t);

void fc_topo_free(fc_topo_t *t);

/* the parsers (fc_topo_slurm.c, fc_topo_ibnet.c, fc_topo_k8s.c) */
fc_status_t fc_topo_parse_slurm(const char *text, fc_topo_t *t);
fc_status_t fc_topo_parse_ibnet(const char *text, fc_topo_t *t);
fc_status_t fc_topo_parse_k8s(const char *text, fc_topo_t *t);

#endif
