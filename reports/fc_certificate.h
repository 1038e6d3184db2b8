/*
 * fc_certificate.h - one certificate per rack: the rack's verdict, its
 * nodes (inventory, quarantined or not and why, each node's own verdict),
 * each stage of the profile with its verdict, the backend it really used
 * and every measured figure beside its limit, every finding with its
 * evidence, the part it implicates and what to do about it, the profile
 * and its hash, the plan and the overrides, the tool version and the run's
 * times. Written in canonical form with its digest, and signed with a
 * secret key (fc_sign.h says the format).
 */
#ifndef FC_CERTIFICATE_H
#define FC_CERTIFICATE_H

#include "fc_verdict.h"

/* The certificate object (the "certificate" member) for one rack. */
json_t *fc_certificate_build(const fc_run_verdict_t *v, const fc_rack_verdict_t *r);
/* Write DIR/certificates/RACK.json (and .sig with a secret key). */
fc_status_t fc_certificate_write(const char *dir, const fc_run_verdict_t *v,
                                 const fc_rack_verdict_t *r,
                                 const unsigned char *secret_key);

/* Write cert (the "certificate" member; the reference is taken) to path
 * in canonical form with its digest, and path.sig with a secret key: the
 * file format of fc_sign.h, for a run's certificates and compare's delta
 * certificates alike. */
fc_status_t fc_certificate_file_write(const char *path, json_t *cert,
                                      const unsigned char *secret_key);

#endif
