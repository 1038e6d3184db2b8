/*
 * fc_topo_slurm.c - racks from Slurm's switch tree (fc_topology.h). Reads
 * what `scontrol show topology` prints for the tree plugin, one switch a
 * line:
 *
 *     SwitchName=s0 Level=0 LinkSpeed=1 Nodes=tux[0-3]
 *     SwitchName=s2 Level=1 LinkSpeed=1 Switches=s[0-1]
 *
 * (Slurm's topology_tree.c; older scontrol's info_topo.c ends each line
 * with a blank), the same lines as topology.conf writes them (no Level,
 * '#' comments, keys in any case), and the block plugin's "BlockName=b1
 * BlockIndex=0 Nodes=... BlockSize=..." lines. A leaf switch is a rack:
 * Level=0 where the line says its level (scontrol lists under a switch
 * above the leaves every node below it: Slurm 22.05 does), else a switch
 * that lists Nodes= (topology.conf); a block that lists Nodes= is a rack.
 * "No topology information available" (TopologyPlugin=topology/none, or
 * an empty topology.conf) is said as such.
 */
#include "fc_topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fc_alloc.h"

/* One "Key=Value" line: its first key (SwitchName or BlockName), the
 * switch's name and Nodes=, each checked; NULL nodes when it has none. */
static fc_status_t fc_slurm_line(fc_topo_t *t, char *line, int lineno, int *blocks_p)
{
    char *save = NULL, *name = NULL, *nodes = NULL, *first = NULL, *level = NULL;
    char (*hosts)[FC_INV_NAME_MAX] = NULL, err[256];
    int n = 0;

    for (char *tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(tok, '=');

        if (eq == NULL || eq == tok)
            return fc_topo_error(t, lineno, "'%s' is not Key=Value (a line of `scontrol show "
                                 "topology` or topology.conf: SwitchName=NAME ... "
                                 "Nodes=HOSTLIST)", tok);
        *eq = '\0';
        if (first == NULL)
            first = tok;
        if (!strcasecmp(tok, "SwitchName") || !strcasecmp(tok, "BlockName"))
            name = eq + 1;
        else if (!strcasecmp(tok, "Nodes"))
            nodes = eq + 1;
        else if (!strcasecmp(tok, "Level"))
            level = eq + 1;
    }
    if (first == NULL)
        return FC_OK;
    if (strcasecmp(first, "SwitchName") != 0 && strcasecmp(first, "BlockName") != 0)
        return fc_topo_error(t, lineno, "a line starts with SwitchName= or BlockName=, not "
                             "'%s='", first);
    if (name == NULL || name[0] == '\0')
        return fc_topo_error(t, lineno, "%s= names no switch", first);
    *blocks_p += strcasecmp(first, "BlockName") == 0;
    if (level && (level[0] == '\0' || strspn(level, "0123456789") != strlen(level)))
        return fc_topo_error(t, lineno, "Level=%s is not a number", level);
    if (nodes == NULL || nodes[0] == '\0' || (level && level[0] && atoi(level) != 0))
        return FC_OK;           /* a switch above the leaves */
    if (fc_hostlist_expand(nodes, &hosts, &n, err, sizeof(err)) != FC_OK)
        return fc_topo_error(t, lineno, "bad Nodes=%s: %s", nodes, err);
    for (int i = 0; i < n; ++i)
        if (fc_topo_add(t, hosts[i], name, lineno, NULL) != FC_OK) {
            free(hosts);
            return FC_ERR_INVALID;
        }
    free(hosts);
    return FC_OK;
}

fc_status_t fc_topo_parse_slurm(const char *text, fc_topo_t *t)
{
    char *copy = fc_xstrdup(text, "the Slurm topology"), *pos = copy, *line;
    int lineno = 0, blocks = 0;
    fc_status_t st = FC_OK;

    while (st == FC_OK && (line = fc_topo_next_line(&pos, &lineno)) != NULL) {
        char *hash = strchr(line, '#');

        if (hash)
            *hash = '\0';
        if (strstr(line, "No topology information available")) {
            st = fc_topo_error(t, lineno, "Slurm has no switch topology (TopologyPlugin is "
                               "topology/none, or topology.conf names no switch)");
            break;
        }
        st = fc_slurm_line(t, line, lineno, &blocks);
    }
    free(copy);
    snprintf(t->rule, sizeof(t->rule), "%s", blocks
             ? "the Slurm block each node is in (BlockName= ... Nodes=)"
             : "the Slurm leaf switch each node is under (Level=0; in topology.conf, the "
               "switch that lists it in Nodes=)");
    if (st == FC_OK && t->nhosts == 0)
        st = fc_topo_error(t, 1, "no switch lists Nodes=: this is not the topology of a "
                           "cluster (SwitchName=NAME ... Nodes=HOSTLIST)");
    return st;
}
