/*
 * fc_nic_transport.c - the NIC transports built into this binary, found
 * by the profile's `transport:` name (lib/nic/fc_nic_transport.h): tcp, and
 * verbs (lib/nic/fc_nic_verbs.c; always defined: where the build found no
 * libibverbs its calls skip, saying so, so a profile asking for verbs on
 * such a build is a skip with the reason, never a tcp run under another
 * name). The exchange both use at connect is fc_nic_exchange.c.
 */
#include <string.h>

#include "fc_nic_transport.h"

const fc_nic_transport_t *fc_nic_transport_find(const char *name)
{
    const fc_nic_transport_t *all[] = { &fc_nic_transport_tcp, &fc_nic_transport_verbs };

    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i)
        if (name != NULL && strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}
