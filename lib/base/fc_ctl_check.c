/*
 * fc_ctl_check.c - see fc_ctl_check.h.
 */
#include "fc_ctl_check.h"

#include <string.h>

static int fc_ctl_ended(const char *s, size_t cap)
{
    return memchr(s, '\0', cap) != NULL;
}

int fc_ctl_summary_ok(const fc_point_summary_t *s, int n)
{
    if (s->valid == 0)
        return 1;
    return s->valid == 1 && s->status >= FC_OK && s->status <= FC_ERR_INTERNAL &&
           fc_ctl_ended(s->host, sizeof(s->host)) &&
           fc_ctl_ended(s->arrival_last_host, sizeof(s->arrival_last_host)) &&
           fc_ctl_ended(s->first_bad_host, sizeof(s->first_bad_host)) &&
           s->nranks >= 1 && s->nranks <= n && s->nhosts >= 0 && s->nhosts <= n &&
           s->first_world_rank >= 0 && s->first_world_rank < n &&
           s->arrival_last_rank >= -1 && s->arrival_last_rank < n &&
           s->first_bad_rank >= -1 && s->first_bad_rank < n &&
           s->disagree_rank >= -1 && s->disagree_rank < n &&
           s->bad_ranks >= 0 && s->bad_ranks <= n && (s->bad_one_host & ~1) == 0 &&
           s->iters >= 0 && s->warmup >= 0 &&
           s->samples.n >= 0 && s->samples.n <= FC_SAMPLES_MAX;
}

int fc_ctl_side_ok(const fc_pair_side_t *s, int nnodes, int nsizes)
{
    if (s->valid == 0)
        return 1;
    return s->valid == 1 && s->node >= 0 && s->node < nnodes && s->partner >= 0 &&
           s->partner < nnodes && s->size_index >= 0 && s->size_index < nsizes &&
           (s->cpu_wait == -1 || (s->cpu_wait >= 0 && s->cpu_wait <= 1)) &&
           (s->lat_cpu_wait == -1 || (s->lat_cpu_wait >= 0 && s->lat_cpu_wait <= 1)) &&
           (s->free_median_s == -1 || (s->free_median_s >= 0 && s->free_median_s < 1e9)) &&
           (s->free_lat_us == -1 || (s->free_lat_us >= 0 && s->free_lat_us < 1e15)) &&
           s->samples.n >= 0 && s->samples.n <= FC_SAMPLES_MAX;
}

int fc_ctl_exchange_ok(const fc_exchange_t *e, int n)
{
    int none = e->iters == 0;

    return e->iters >= 0 && e->sender >= (none ? -1 : 0) && e->sender < n &&
           e->receiver >= (none ? -1 : 0) && e->receiver < n && e->wrong_iters >= 0 &&
           e->wrong_iters <= e->iters && (e->wrong == 0) == (e->wrong_iters == 0) &&
           e->seconds >= 0;
}
