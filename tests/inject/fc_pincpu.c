/*
 * fc_pincpu.c - a host whose stage programs share one core with whatever
 * else runs there, planted from outside them for the end-to-end tests: a
 * shared library preloaded into every rank whose constructor pins the
 * stage program, on the chosen hosts alone, to one CPU. With a CPU-bound
 * process pinned to the same CPU beside the cluster, each of that host's
 * ranks gets the core for alternate scheduler turns, as on a node where
 * another job (or a runaway daemon) keeps a core busy: its messages wait
 * for a turn, and its pairs read as slow while its link is healthy.
 * Loaded with
 *   fabcert run --env LD_PRELOAD=$PWD/build/libfc_pincpu.so --env FC_PINCPU_HOST=H
 *
 * Configuration (environment; FC_PINCPU_HOST unset means "off"):
 *   FC_PINCPU_HOST   the host (gethostname) whose stage programs are
 *                    pinned, or a comma list of hosts
 *   FC_PINCPU_CPU    the CPU (default 0)
 *   FC_PINCPU_NICE   and run them at this nice value (default 0, the
 *                    busy process's own: the two share the core evenly)
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fc_plant_host.h"

__attribute__((constructor)) static void fc_pincpu(void)
{
    const char *hosts = getenv("FC_PINCPU_HOST"), *cpu = getenv("FC_PINCPU_CPU");
    const char *nice = getenv("FC_PINCPU_NICE");
    char me[256] = "", exe[4096] = "";
    cpu_set_t set;
    ssize_t n;

    if (hosts == NULL || hosts[0] == '\0' || gethostname(me, sizeof(me) - 1) != 0 ||
        !fc_plant_host_listed(hosts, me))
        return;
    if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0)
        return;
    exe[n] = '\0';
    if (!fc_plant_stage_program(exe))   /* not the launcher's own processes */
        return;
    CPU_ZERO(&set);
    CPU_SET(cpu ? atoi(cpu) : 0, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0)
        perror("fc_pincpu: sched_setaffinity");
    if (nice && setpriority(PRIO_PROCESS, 0, atoi(nice)) != 0)
        perror("fc_pincpu: setpriority");
}
