/*
 * fc_racks_from.c - see fc_cmds.h: a rack map read from what knows the
 * cluster's topology (lib/inventory/fc_topology.h) and made the text `fabcert run
 * --racks` reads, with what was read and its notes said on a stream. A
 * leaf: `run --racks-from`, `check-inventory --racks-from`, `topology`
 * and `k8s` all read racks through it.
 */
#include <stdio.h>

#include "fc_cmds.h"
#include "fc_topology.h"

fc_status_t fc_racks_from(const char *spec, const char *rack_label, FILE *stream,
                          char **text_p)
{
    fc_topo_t t;

    if (fc_topo_read(spec, rack_label, &t) != FC_OK)
        return FC_ERR_INVALID;
    if (stream) {
        fprintf(stream, "fabcert: racks from %s: %d host(s) in %d rack(s), by %s\n", t.source,
                t.nhosts, t.nracks, t.rule);
        for (int k = 0; k < t.nnotes; ++k)
            fprintf(stream, "fabcert: note: %s\n", t.notes[k]);
    }
    *text_p = fc_topo_racks_text(&t);
    fc_topo_free(&t);
    return FC_OK;
}
