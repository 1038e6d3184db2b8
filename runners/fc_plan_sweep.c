/*
 * fc_plan_sweep.c - see fc_plan.h: the sweep a stage derives from the
 * profile and the run's overrides, as its program does. A leaf: the plan
 * and its gaps both ask it.
 */
#include "fc_plan.h"

#include "fc_stage.h"

/* The sweep stage s derives from the profile and the run's overrides,
 * exactly as its program does (the options the runner gives every stage). */
int fc_plan_stage_sweep(const fc_run_state_t *st, fc_stage_id_t s, fc_stage_profile_t *sp,
                        fc_test_point_t **points_p)
{
    char *argv[FC_MAX_PASSTHRU + 2];
    int argc = 0, n = 0;

    argv[argc++] = (char *)"fabcert-plan";
    for (int k = 0; k < st->o.nstage_args; ++k)
        argv[argc++] = (char *)st->o.stage_args[k];
    argv[argc] = NULL;
    if (fc_stage_sweep_plan(&st->profile, s, argc, argv, sp, points_p, &n) != FC_OK) {
        *sp = st->profile.stages[s];
        n = fc_stage_sweep_points(sp, s, st->profile.seed, points_p);
    }
    return n;
}
