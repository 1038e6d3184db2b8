/*
 * fc_profile.c - strict YAML profile loader on libfyaml's document tree:
 * the file's digest, the document, and its top level (name, description,
 * seed, stages, certificates, nvlink_domain, retest); each section below is a key table of its
 * own (lib/profile/fc_profile_stage.c, fc_profile_soak.c, fc_profile_contention.c)
 * read by one walker (fc_profile_yaml.c), which matches keys by name and
 * refuses any other at its position.
 */
#include "fc_profile.h"

#include <libfyaml.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"
#include "fc_input.h"
#include "fc_profile_sections.h"

static fc_status_t fc_seed_read(const fc_yaml_ctx_t *ctx, const fc_yaml_field_t *f,
                                struct fy_node *k, struct fy_node *v, void *base)
{
    double d;

    FC_CHECK(fc_yaml_number(ctx, k, v, "seed", 0, 4294967295.0, &d));
    ((fc_profile_t *)base)->seed = (uint32_t)d;
    return FC_OK;
}

/* certificates: {require_signature: true}: a site that signs (fc_sign.c);
 * its keys are members of the profile itself. */
static const fc_yaml_field_t fc_cert_keys[] = {
    FC_KEY_BOOL("require_signature", fc_profile_t, require_signature),
    FC_KEY_END
};

static const fc_yaml_section_t fc_cert_section = {
    .where = "'certificates'", .keys = fc_cert_keys,
};

static const fc_yaml_choice_t fc_nvlink_domain_choices[] = {
    { "node", FC_NVLINK_DOMAIN_NODE }, { "rack", FC_NVLINK_DOMAIN_RACK }, { NULL, 0 },
};

/* retest: {intermittent_s: 30}: how long the runner's bounded retest of a
 * host common to every wrong result may exchange (runners/fc_retest_hosts.c) */
static const fc_yaml_field_t fc_retest_keys[] = {
    FC_KEY_NUMBER("intermittent_s", fc_retest_profile_t, intermittent_s, 1, 3600),
    FC_KEY_END
};

static const fc_yaml_section_t fc_retest_section = {
    .where = "'retest'", .keys = fc_retest_keys,
};

static const fc_yaml_field_t fc_top_keys[] = {
    FC_KEY_STRING("name", fc_profile_t, name, "a string"),
    FC_KEY_TEXT("description", sizeof(((fc_profile_t *)0)->name), "a string"),
    FC_KEY_FUNC("seed", fc_seed_read),
    FC_KEY_FUNC("stages", fc_profile_stages_read),
    { .key = "certificates", .type = FC_YAML_MAP, .offset = 0, .section = &fc_cert_section },
    FC_KEY_CHOICE("nvlink_domain", fc_profile_t, nvlink_domain, fc_nvlink_domain_choices),
    { .key = "retest", .type = FC_YAML_MAP, .offset = offsetof(fc_profile_t, retest),
      .section = &fc_retest_section },
    FC_KEY_END
};

static const fc_yaml_section_t fc_top_section = { .where = "the profile", .keys = fc_top_keys };

static int fc_profile_has_stage(const fc_profile_t *profile)
{
    for (int s = 0; s < FC_STAGE_COUNT; ++s)
        if (profile->stages[s].present)
            return 1;
    return 0;
}

/* A stage that measures an NVLink domain across nodes in a profile whose
 * domain is the node would measure the rack stage again under another
 * name: refused where it is named (the key may come before or after
 * nvlink_domain, so this is checked once the file is read). */
static fc_status_t fc_profile_check_mnnvl(const char *path, const fc_profile_t *profile)
{
    for (int s = 0; s < FC_STAGE_COUNT; ++s) {
        const fc_stage_profile_t *sp = &profile->stages[s];

        if (!sp->present || !fc_stage_desc((fc_stage_id_t)s)->needs_mnnvl ||
            profile->nvlink_domain != FC_NVLINK_DOMAIN_NODE)
            continue;
        fprintf(stderr, "fabcert: %s:%d:%d: stage '%s' measures an NVLink domain that "
                "spans nodes, and the profile's nvlink_domain is node (the default): say "
                "nvlink_domain: rack for a rack-scale NVLink system such as GB200 NVL72, "
                "or leave the stage out\n", path, sp->line, sp->col,
                fc_stage_name((fc_stage_id_t)s));
        return FC_ERR_INVALID;
    }
    return FC_OK;
}

static void fc_profile_hash(const char *text, size_t len, char *hex, size_t hexlen)
{
    unsigned char digest[crypto_hash_sha256_BYTES];

    crypto_hash_sha256(digest, (const unsigned char *)text, len);
    sodium_bin2hex(hex, hexlen, digest, sizeof(digest));
}

fc_status_t fc_profile_load(const char *path, fc_profile_t *profile_p)
{
    struct fy_diag_cfg dcfg;
    struct fy_diag *diag = NULL;
    struct fy_parse_cfg cfg;
    struct fy_document *doc = NULL;
    fc_yaml_ctx_t ctx = { path, -1 };
    fc_profile_t *profile = fc_xcalloc(1, sizeof(*profile), "the profile");
    fc_status_t status = FC_ERR_INVALID;
    char *text = NULL;
    size_t len = 0;

    snprintf(profile->path, sizeof(profile->path), "%s", path);
    profile->seed = 1;
    profile->retest.intermittent_s = 30;
    /* read once: the bytes hashed are the bytes parsed */
    if (fc_input_read(path, "profile", FC_INPUT_PROFILE_MAX, &text, &len) != FC_OK)
        goto out_free;
    fc_profile_hash(text, len, profile->sha256, sizeof(profile->sha256));
    {
        int line, col;
        size_t end = fc_input_utf8_end(text, len, &line, &col);

        if (end < len) {
            fprintf(stderr, "fabcert: %s:%d:%d: not UTF-8 text (byte 0x%02x): a profile "
                    "is YAML, which is UTF-8\n", path, line, col, (unsigned char)text[end]);
            goto out_free;
        }
    }

    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL;
    dcfg.colorize = false;
    diag = fy_diag_create(&dcfg);
    if (diag == NULL)
        goto out_free;
    fy_diag_set_collect_errors(diag, true);
    memset(&cfg, 0, sizeof(cfg));
    cfg.flags = FYPCF_QUIET;
    cfg.diag = diag;
    doc = fy_document_build_from_string(&cfg, text, len);
    if (doc == NULL) {
        void *iter = NULL;
        struct fy_diag_error *err = fy_diag_errors_iterate(diag, &iter);

        /* libfyaml counts a collected error's line and column from 1 */
        if (err != NULL)
            fprintf(stderr, "fabcert: %s:%d:%d: malformed YAML: %s\n", path,
                    err->line, err->column, err->msg);
        else
            fprintf(stderr, "fabcert: %s:1:1: the profile is empty or not YAML\n", path);
        goto out_diag;
    }
    if (fy_document_root(doc) == NULL) {
        fprintf(stderr, "fabcert: %s:1:1: the profile is empty\n", path);
        goto out_doc;
    }
    status = fc_yaml_walk(&ctx, fy_document_root(doc), NULL, &fc_top_section, profile);
    if (status == FC_OK && profile->name[0] == '\0') {
        fprintf(stderr, "fabcert: %s:1:1: the profile has no 'name'\n", path);
        status = FC_ERR_INVALID;
    }
    if (status == FC_OK && !fc_profile_has_stage(profile)) {
        fprintf(stderr, "fabcert: %s:1:1: the profile has no 'stages': it names at least "
                "one of %s\n", path, fc_profile_stage_list());
        status = FC_ERR_INVALID;
    }
    if (status == FC_OK)
        status = fc_profile_check_mnnvl(path, profile);
    if (status == FC_OK)
        *profile_p = *profile;
out_doc:
    fy_document_destroy(doc);
out_diag:
    fy_diag_destroy(diag);
out_free:
    free(text);
    free(profile);
    return status;
}

const fc_limit_rule_t *fc_profile_find_limit(const fc_stage_profile_t *sp,
                                             int coll, int dtype, int op,
                                             uint64_t bytes)
{
    for (int i = 0; i < sp->nlimits; ++i) {
        const fc_limit_rule_t *r = &sp->limits[i];

        if ((r->coll == FC_ANY || r->coll == coll) &&
            (r->dtype == FC_ANY || r->dtype == dtype) &&
            (r->op == FC_ANY || r->op == op) &&
            bytes >= r->min_bytes && bytes <= r->max_bytes)
            return r;
    }
    return NULL;
}
