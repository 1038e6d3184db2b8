/*
 * fc_stage_int.h - what the files of the stage driver share among
 * themselves (fc_stage_opts.c, fc_stage_world.c, fc_stage_backend.c,
 * fc_stage_records.c, fc_stage_sweep.c); the stage programs use fc_stage.h
 * only.
 */
#ifndef FC_STAGE_INT_H
#define FC_STAGE_INT_H

#include "fc_stage.h"

/* The command line into o; FC_ERR_INVALID (said on stderr by rank 0 when
 * !quiet) on a bad option. */
fc_status_t fc_stage_parse(int argc, char **argv, fc_stage_opts_t *o, int quiet);
/* The command line's sweep overrides onto ctx->sp. */
void fc_stage_apply_overrides(fc_stage_ctx_t *ctx);
/* How many points the stage's sweep has. */
int fc_stage_point_count(const fc_stage_profile_t *sp);
fc_status_t fc_stage_load_profile(fc_stage_ctx_t *ctx);
fc_status_t fc_stage_load_inventory(fc_stage_ctx_t *ctx);
/* The stage's backend into ctx->opts.backend (fc_stage_backend.c), with
 * a note or a skip reason where it is not the one asked for. */
void fc_stage_choose_backend(fc_stage_ctx_t *ctx);
/* The GPU plugin that measured: path, SHA-256, built with fabcert or not. */
json_t *fc_stage_plugin_json(void);

#endif
