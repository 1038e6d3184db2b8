/*
 * fc_nostart.c - a stage program that cannot start on one host, planted
 * from outside it for the end-to-end tests: a shared library preloaded
 * into every rank whose constructor, run before the program's main (and
 * so before MPI_Init), ends the process on the chosen host alone, as a
 * shared library missing on that node would (the dynamic loader exits
 * with status 127 before main) or as a program that crashes in its
 * start-up would. Loaded with
 *   fabcert run --env LD_PRELOAD=$PWD/build/libfc_nostart.so --env FC_NOSTART_HOST=H
 *
 * Configuration (environment; FC_NOSTART_HOST unset means "off"):
 *   FC_NOSTART_HOST     the host (gethostname) whose processes cannot start,
 *                       a comma list of hosts, or "*" for every host (a
 *                       program broken everywhere)
 *   FC_NOSTART_PROGRAM  only the program of this name (its executable's last
 *                       part), e.g. "cluster" (default: every program in a
 *                       directory named suites, the stage programs)
 *   FC_NOSTART_SIGNAL   die of this signal number instead (e.g. 11), as a
 *                       program that crashes before MPI_Init
 *   FC_NOSTART_STATUS   the exit status (default 127, the loader's)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_plant_host.h"

__attribute__((constructor)) static void fc_nostart(void)
{
    const char *host = getenv("FC_NOSTART_HOST"), *only = getenv("FC_NOSTART_PROGRAM");
    const char *sig = getenv("FC_NOSTART_SIGNAL"), *status = getenv("FC_NOSTART_STATUS");
    char me[256] = "", exe[4096] = "", *prog;
    ssize_t n;

    if (host == NULL || host[0] == '\0' || gethostname(me, sizeof(me) - 1) != 0)
        return;
    if (!fc_plant_host_listed(host, me))
        return;
    if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0)
        return;
    exe[n] = '\0';
    prog = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
    if (only ? strcmp(prog, only) != 0 : !fc_plant_stage_program(exe))
        return;
    if (sig && atoi(sig) > 0) {
        signal(atoi(sig), SIG_DFL);
        raise(atoi(sig));
    }
    fprintf(stderr, "%s: error while loading shared libraries: libfc_absent.so: cannot open "
            "shared object file: No such file or directory (planted by fc_nostart on %s)\n",
            prog, me);
    _exit(status ? atoi(status) : 127);
}
