/*
 * fc_contention_role.c - see fc_contention_role.h: a rank's role in the
 * contention stage, from its host's name, its index there and the
 * profile's contention section.
 */
#include "fc_contention_role.h"

#include <stdlib.h>
#include <string.h>

#include "fc_inventory.h"

int fc_contention_role(const fc_contention_profile_t *cp, const char *host, int local_rank)
{
    int per_node = cp->fg_per_node + cp->bg_per_node, on_bg_host = 0, n = 0;
    char (*names)[FC_INV_NAME_MAX] = NULL, err[256];

    if (cp->background_hosts[0] == '\0')
        return local_rank < cp->fg_per_node ? FC_ROLE_FG :
               local_rank < per_node ? FC_ROLE_BG : FC_ROLE_IDLE;
    if (fc_hostlist_expand(cp->background_hosts, &names, &n, err, sizeof(err)) == FC_OK)
        for (int i = 0; i < n; ++i)
            on_bg_host |= strcmp(names[i], host) == 0;
    free(names);
    if (on_bg_host)
        return local_rank < per_node ? FC_ROLE_BG : FC_ROLE_IDLE;
    return local_rank < cp->fg_per_node ? FC_ROLE_FG : FC_ROLE_IDLE;
}
