/*
 * fc_bg_kind.c - see fc_bg_kind.h: what every background kind's ops
 * share: the pacing rule (may a block start, is the duty cycle on), the
 * block alignment, and the tally's first error and its notes. A leaf: the
 * kinds (fc_bg_NAME.c) call it, the engine's table (fc_background.c)
 * names the kinds.
 */
#include "fc_bg_kind.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int fc_bg_may_start(const fc_bg_profile_t *b, double started, double el)
{
    return started <= b->rate_mbps * 1e6 * el * b->duty;
}

int fc_bg_is_on(const fc_bg_profile_t *b, double el)
{
    return b->duty >= 1 || fmod(el, b->period_s) < b->duty * b->period_s;
}

size_t fc_bg_aligned(size_t bytes)
{
    return (bytes + FC_BG_ALIGN - 1) / FC_BG_ALIGN * FC_BG_ALIGN;
}

void fc_bg_tally_error(fc_bg_tally_t *tally, int kind, const char *error)
{
    if (tally->error[0] != '\0' || error[0] == '\0')
        return;
    snprintf(tally->error, sizeof(tally->error), "%s", error);
    tally->error_kind = kind;
}

void fc_bg_tally_note(fc_bg_tally_t *tally, const char *note)
{
    if (tally->note[0] == '\0')
        snprintf(tally->note, sizeof(tally->note), "%s", note);
}
