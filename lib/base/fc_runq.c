/*
 * fc_runq.c - see fc_runq.h. schedstat holds three numbers: nanoseconds
 * on a CPU, nanoseconds waiting on a run queue, timeslices run. Each
 * thread keeps its own file open (read again from the start each time), so
 * a reading between two timed exchanges costs one system call.
 */
#include "fc_runq.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static __thread int fc_runq_fd = -2;    /* -2 not opened yet, -1 not there */

double fc_runq_wait_s(void)
{
    unsigned long long on_cpu, waited;
    char buf[128];
    ssize_t n;

    if (fc_runq_fd == -2)
        fc_runq_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (fc_runq_fd < 0 || (n = pread(fc_runq_fd, buf, sizeof(buf) - 1, 0)) <= 0)
        return -1;
    buf[n] = '\0';
    /* a thread running this has had a CPU: "0 0 0" is a kernel that
     * does not account (no schedstats), not a thread that never waited */
    return sscanf(buf, "%llu %llu", &on_cpu, &waited) == 2 && on_cpu > 0
               ? (double)waited * 1e-9 : -1;
}

double fc_runq_between(double w0, double w1)
{
    return w0 < 0 || w1 < 0 ? -1 : w1 > w0 ? w1 - w0 : 0;
}
