/*
 * fc_inventory_cmd.c - the inventory's subcommands. `fabcert topology`:
 * the rack map of a cluster from what already knows its topology (Slurm's
 * switch tree, an ibnetdiscover file, Kubernetes node labels;
 * lib/inventory/fc_topology.h), written as the rack map `fabcert run --racks`
 * reads, with each host's rails and the notes (what was left out, a rail
 * cabled to another rack's leaf) as comments; the same reading serves
 * `run --racks-from` and `check-inventory --racks-from` (fc_racks_from.c).
 * `fabcert check-inventory`: an inventory checked, host -> rack printed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_cmds.h"
#include "fc_input.h"
#include "fc_results.h"
#include "fc_run.h"
#include "fc_topology.h"

static void fc_topology_usage(FILE *out)
{
    fprintf(out, "usage: fabcert topology FORMAT [FILE|-] [--rack-label KEY] [--out FILE]\n"
            "  a rack map (fabcert run --racks) from what knows the cluster's topology;\n"
            "  without FILE, FORMAT's command runs here. FORMAT is one of:\n");
    for (int k = 0; k < fc_topo_nformats; ++k)
        fprintf(out, "    %-14s %s\n                   (live: `%s`)\n", fc_topo_formats[k].name,
                fc_topo_formats[k].reads, fc_topo_formats[k].live);
}

int fc_cmd_topology(int argc, char **argv)
{
    const char *format = NULL, *file = NULL, *label = NULL, *out = NULL;
    char spec[4200], *text = NULL;
    FILE *f;
    int rc = 0;

    for (int i = 1; i < argc; ++i) {
        if (i + 1 < argc && strcmp(argv[i], "--rack-label") == 0)
            label = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--out") == 0)
            out = argv[++i];
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fc_topology_usage(stdout);
            return 0;
        } else if ((argv[i][0] != '-' || !strcmp(argv[i], "-")) && !format)
            format = argv[i];
        else if ((argv[i][0] != '-' || !strcmp(argv[i], "-")) && !file)
            file = argv[i];
        else {
            fc_topology_usage(stderr);
            return 2;
        }
    }
    if (format == NULL) {
        fc_topology_usage(stderr);
        return 2;
    }
    /* "slurm FILE" and "slurm:FILE" say the same */
    if (file && strchr(format, ':')) {
        fprintf(stderr, "fabcert: topology %s %s: give the file once (FORMAT FILE, or "
                "FORMAT:FILE)\n", format, file);
        return 2;
    }
    snprintf(spec, sizeof(spec), file ? "%s:%s" : "%s", format, file ? file : "");
    if (fc_racks_from(spec, label, stderr, &text) != FC_OK)
        return 2;
    if (out == NULL) {
        fputs(text, stdout);
    } else if ((f = fopen(out, "w")) == NULL ||
               (fputs(text, f) < 0) + (fclose(f) != 0) > 0) {
        fprintf(stderr, "fabcert: cannot write %s: %s\n", out, strerror(errno));
        rc = 2;
    } else {
        fprintf(stderr, "fabcert: rack map written to %s (fabcert run --racks %s)\n", out, out);
    }
    free(text);
    return rc;
}

int fc_cmd_check_inventory(int argc, char **argv)
{
    fc_inventory_t inv;
    char *hosts = NULL, *racks = NULL;
    const char *hp = NULL, *rp = NULL, *from = NULL, *label = NULL;
    fc_status_t s = FC_OK;

    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc || (strcmp(argv[i], "--hosts") && strcmp(argv[i], "--racks") &&
                              strcmp(argv[i], "--racks-from") && strcmp(argv[i], "--rack-label")) ||
            (!strcmp(argv[i], "--racks-from") && rp) || (!strcmp(argv[i], "--racks") && from)) {
            fprintf(stderr, "usage: fabcert check-inventory [--hosts FILE] [--racks FILE | "
                    "--racks-from FORMAT[:FILE] [--rack-label KEY]]\n");
            return 2;
        }
        if (strcmp(argv[i], "--hosts") == 0)
            hp = argv[i + 1];
        else if (strcmp(argv[i], "--racks") == 0)
            rp = argv[i + 1];
        else if (strcmp(argv[i], "--racks-from") == 0)
            from = rp = argv[i + 1];
        else
            label = argv[i + 1];
    }
    if ((hp && fc_input_read_plain(hp, "host list", FC_INPUT_INVENTORY_MAX, &hosts) != FC_OK) ||
        (from && fc_racks_from(from, label, stdout, &racks) != FC_OK) ||
        (rp && !from && fc_input_read_plain(rp, "rack map", FC_INPUT_INVENTORY_MAX, &racks) != FC_OK))
        s = FC_ERR_INVALID;
    else
        s = fc_inventory_parse(hosts, hp, racks, rp, &inv);
    free(hosts);
    free(racks);
    if (s != FC_OK)
        return 2;
    for (int h = 0; h < inv.nhosts; ++h)
        printf("%s %s\n", inv.hosts[h], inv.racks[inv.host_rack[h]]);
    printf("# %d hosts in %d racks\n", inv.nhosts, inv.nracks);
    fc_print_left_out(&inv);
    fc_inventory_free(&inv);
    return 0;
}
