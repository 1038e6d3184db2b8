/*
 * fc_profile_sections.h - the profile's sections as the loader's files
 * share them (private to lib/profile/fc_profile*.c): the top level and the
 * stages (fc_profile.c, fc_profile_stage.c), a stage's own sections
 * (expect: and soak: in fc_profile_soak.c, contention: and its
 * background kinds in fc_profile_contention.c), each a key table read by
 * fc_yaml_walk, with the defaults a profile only overrides.
 */
#ifndef FC_PROFILE_SECTIONS_H
#define FC_PROFILE_SECTIONS_H

#include "fc_profile.h"
#include "fc_profile_yaml.h"

/* stages: { NAME: {...} } into profile->stages (base is the profile). */
fc_status_t fc_profile_stages_read(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                   struct fy_node *k, struct fy_node *v, void *base);
/* "preflight, node, ...": every stage's name, for messages. */
const char *fc_profile_stage_list(void);

extern const fc_yaml_section_t fc_expect_section;      /* preflight's expect: */
extern const fc_yaml_section_t fc_soak_section;        /* soak: */
extern const fc_yaml_section_t fc_contention_section;  /* contention: */
extern const fc_yaml_section_t fc_counters_section;    /* counters: (fc_profile_diag.c) */
extern const fc_yaml_section_t fc_overlap_section;     /* overlap: (fc_profile_diag.c) */
extern const fc_yaml_section_t fc_scaling_section;     /* scaling: (fc_profile_diag.c) */
extern const fc_yaml_section_t fc_affinity_section;    /* expect.gpu_nic_affinity:
                                                        * (fc_profile_affinity.c) */
extern const fc_yaml_section_t fc_rails_section;       /* rails: (fc_profile_rails.c) */

void fc_expect_defaults(fc_preflight_profile_t *e);
void fc_soak_defaults(fc_soak_profile_t *s);
void fc_contention_defaults(fc_contention_profile_t *c);
void fc_counters_defaults(fc_counters_profile_t *c);
void fc_overlap_defaults(fc_overlap_profile_t *o);
void fc_scaling_defaults(fc_scaling_profile_t *s);
void fc_affinity_defaults(fc_affinity_profile_t *a);
void fc_rails_defaults(fc_rails_profile_t *r);

/* The soak stage's rules across sections, once the stage is read: its
 * timeout outlasts the soak, and the window leaves drift judgeable. k is
 * the stage's key. */
fc_status_t fc_soak_stage_check(const fc_yaml_ctx_t *ctx, struct fy_node *k,
                                fc_stage_profile_t *sp);

#endif
