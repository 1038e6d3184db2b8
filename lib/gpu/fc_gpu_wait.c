/*
 * fc_gpu_wait.c - see fc_gpu_wait.h. The sleep between looks grows from
 * 20 us to 1 ms, so a short call is seen finished within microseconds and
 * a long wait does not spin a core the stage's other ranks need.
 */
#include "fc_gpu_wait.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

double fc_gpu_wall(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

fc_status_t fc_gpu_wait(const fc_gpu_wait_ops_t *ops, void *ctx, double timeout_s,
                        char *why, size_t len)
{
    double start = fc_gpu_wall();
    useconds_t nap = 20;

    why[0] = '\0';
    for (;;) {
        switch (ops->poll_func(ctx, why, len)) {
        case FC_GPU_DONE:
            return FC_OK;
        case FC_GPU_ERROR:
            return FC_ERR_FAIL;
        case FC_GPU_PENDING:
            break;
        }
        if (ops->async_error_func && ops->async_error_func(ctx, why, len))
            return FC_ERR_FAIL;
        if (fc_gpu_wall() - start > timeout_s) {
            snprintf(why, len, "no progress for %.0f s", timeout_s);
            return FC_ERR_TIMEOUT;
        }
        usleep(nap);
        if (nap < 1000)
            nap *= 2;
    }
}
