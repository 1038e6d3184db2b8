/*
 * fc_runq.c - see fc_runq.h. schedstat holds three numbers: nanoseconds
 * on a CPU, nanoseconds waiting on a run queue, timeslices run.
 */
#include "fc_runq.h"

#include <stdio.h>

double fc_runq_wait_s(void)
{
    unsigned long long on_cpu, waited;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    int got;

    if (f == NULL)
        return -1;
    got = fscanf(f, "%llu %llu", &on_cpu, &waited);
    fclose(f);
    return got == 2 ? (double)waited * 1e-9 : -1;
}

double fc_runq_share(double w0, double w1, double t0, double t1)
{
    double share;

    if (w0 < 0 || w1 < 0 || !(t1 > t0))
        return -1;
    share = (w1 - w0) / (t1 - t0);
    return share < 0 ? 0 : share > 1 ? 1 : share;
}
