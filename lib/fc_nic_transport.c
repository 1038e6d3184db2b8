/*
 * fc_nic_transport.c - the NIC transports built into this binary, found
 * by the profile's `transport:` name (lib/fc_nic_transport.h). tcp is
 * always built. verbs is referenced weakly until lib/fc_nic_verbs.c
 * defines it: a binary without it answers NULL for "verbs" (the rails
 * stage then says the transport is not built, exit 2), never a tcp run
 * under another name. When the verbs transport lands, its file should
 * replace the weak reference by a plain entry in fc_nic_transports[] (a
 * weak reference alone does not pull an archive member into the link).
 */
#include <string.h>

#include "fc_nic_transport.h"

#pragma weak fc_nic_transport_verbs

const fc_nic_transport_t *fc_nic_transport_find(const char *name)
{
    const fc_nic_transport_t *all[] = { &fc_nic_transport_tcp, &fc_nic_transport_verbs };

    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i)
        if (all[i] != NULL && name != NULL && strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}
