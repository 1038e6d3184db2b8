/*
 * fc_plant_host.h - what the constructor libraries that plant a fault on
 * one host (fc_nostart.c, fc_pincpu.c) share: whether this host is one of
 * the hosts named, and whether this process is a stage program (LD_PRELOAD,
 * exported by the runner, reaches the launcher's own processes too: the
 * rsh agent's shell, Open MPI's daemon, which must be left alone).
 */
#ifndef FC_PLANT_HOST_H
#define FC_PLANT_HOST_H

#include <string.h>

/* Is `me` one of the comma list `hosts` (or is the list "*")? */
static inline int fc_plant_host_listed(const char *hosts, const char *me)
{
    size_t len = strlen(me);

    if (strcmp(hosts, "*") == 0)
        return 1;
    for (const char *p = hosts; *p; p += strcspn(p, ","), p += *p == ',')
        if (strncmp(p, me, len) == 0 && (p[len] == ',' || p[len] == '\0'))
            return 1;
    return 0;
}

/* Is executable path `exe` a stage program (build/suites/NAME)? */
static inline int fc_plant_stage_program(const char *exe)
{
    const char *slash = strrchr(exe, '/');

    return slash && slash - exe >= 7 && strncmp(slash - 7, "/suites", 7) == 0;
}

#endif
