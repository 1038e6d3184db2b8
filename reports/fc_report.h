/*
 * fc_report.h - what `fabcert report DIR` writes from a run's verdicts:
 *
 *   DIR/certificates/RACK.json      the rack's certificate, canonical JSON
 *   DIR/certificates/RACK.json.sig  detached Ed25519 signature (--sign-key)
 *   DIR/report/index.html           racks and verdicts
 *   DIR/report/rack-RACK.html       one self-contained page per rack
 *   DIR/junit.xml                   one testsuite per rack
 *   DIR/summary.txt                 one line per rack, then the failures
 *
 * A certificate is {"certificate": {...}, "digest": {"algorithm":
 * "sha256", "value": HEX}}, written in canonical form: keys sorted, no
 * whitespace, reals with 6 significant digits, ASCII, one final newline.
 * The digest is the SHA-256 of the canonical bytes of the "certificate"
 * member; the signature signs those same bytes. Nothing in a report
 * depends on when or where it was made, so the same directory gives the
 * same bytes every time.
 */
#ifndef FC_REPORT_H
#define FC_REPORT_H

#include <stdio.h>

#include "fc_verdict.h"

#define FC_CERT_FORMAT "fabcert-certificate/1"

/* The certificate object (the "certificate" member) for one rack. */
json_t *fc_certificate_build(const fc_run_verdict_t *v, const fc_rack_verdict_t *r);
/* Canonical serialisation (malloc'ed, no trailing newline). */
char *fc_canonical_dump(const json_t *obj);
/* Write DIR/certificates/RACK.json (and .sig with a secret key). */
fc_status_t fc_certificate_write(const char *dir, const fc_run_verdict_t *v,
                                 const fc_rack_verdict_t *r,
                                 const unsigned char *secret_key);

/* Key files: one line "fabcert-ed25519-secret HEX" / "...-public HEX"
 * (fc_sign.c). keygen never overwrites a file nor follows a link. */
fc_status_t fc_keygen(const char *prefix);
fc_status_t fc_key_load(const char *path, int secret, unsigned char *key,
                        size_t len);
/* Lower-case hex of n bytes into out (2n + 1 bytes); SHA-256 as hex. */
void fc_hex_encode(const unsigned char *in, size_t n, char *out);
void fc_sha256_hex(const char *bytes, size_t len, char hex[65]);

/* Verify a certificate file, read as bytes with its real length:
 * canonical form, digest (intact), and with a public key its .sig
 * (authenticated). Without a key it says the file is intact but not
 * authenticated; require_signature then fails it. Prints what passed and
 * what failed. Returns FC_OK, FC_ERR_FAIL (tampered, or not signed when
 * required) or FC_ERR_INVALID (missing file, bad key). */
fc_status_t fc_certificate_verify(const char *path, const char *pubkey_path,
                                  int require_signature);

/* The text summary: one line per rack, then the failures. */
void fc_summary_write(FILE *out, const fc_run_verdict_t *v, const char *dir);
fc_status_t fc_junit_write(const char *path, const fc_run_verdict_t *v);
fc_status_t fc_html_write(const char *dir, const fc_run_verdict_t *v);

/* Everything above for one output directory; prints the summary. */
fc_status_t fc_report_dir(const char *dir, const char *sign_key_path,
                          int quiet, fc_verdict_t *overall_p);

/* Helpers the writers share (and fc_json_str, in fc_verdict.h). */
/* "all_reduce float32 sum 4 KiB" for a point, "pair a <-> b" ... */
void fc_check_label(json_t *rec, char *buf, size_t len);
/* The run's command-line overrides as one line ("--iters 3, --stages
 * node"), "" when the profile ran as written. */
void fc_overrides_text(const fc_run_verdict_t *v, char *buf, size_t len);
/* One line of text for a person's terminal or summary.txt: formatted,
 * every control character (from any input: a record's reason, a host
 * name, a profile's name) shown as '?', then one newline, so no input can
 * add or break a line. */
void fc_print_line(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The sysfs tree the run's preflight and soak read instead of /sys
 * (FC_SYSFS_ROOT in the plan's environment or an --env override), or
 * NULL: every report says it, so a run on a fixture tree cannot be taken
 * for one on real hardware. */
const char *fc_sysfs_root_of(const fc_run_verdict_t *v);
/* The rules of a judged record's figures (fc_rules.c): an array of
 * {"applied": bool, "text": "..."}, one per rule: a limit that judged it
 * ("busbw >= 0.01 GB/s (profile line 21)"), the relative rule with its
 * peer class, and each rule that did not apply with why ("busbw >= 1000
 * GB/s (profile line 15): the bus factor of all_reduce on 1 rank is 0
 * ...", applied false: the writers say "not applied"). Empty for records
 * without such rules. */
json_t *fc_rules_of(json_t *rec);
/* The lines of fc_rules_of that applied (applied 1) or did not (0), joined
 * with " | ", into buf ("" when none). */
void fc_rules_text(json_t *rec, int applied, char *buf, size_t len);
/* What a technician should do about a part. */
const char *fc_part_action(const char *part);

#endif
