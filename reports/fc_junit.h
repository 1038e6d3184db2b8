/*
 * fc_junit.h - junit.xml for CI dashboards: one testsuite per rack, one
 * testcase per check, a failure per failed check, an error per reason a
 * stage is incomplete (fc_junit.c says the details).
 */
#ifndef FC_JUNIT_H
#define FC_JUNIT_H

#include <stdio.h>

#include "fc_verdict.h"

/* Write the JUnit file of v to path. */
fc_status_t fc_junit_write(const char *path, const fc_run_verdict_t *v);

/* s escaped for XML text or an attribute, control characters dropped. */
void fc_junit_escape(FILE *f, const char *s);

#endif
