/*
 * fc_log.h - error and diagnostic messages that say where they come from.
 *
 * Every message is prefixed with "fabcert[host:rank]" once the process knows
 * its identity (fc_log_set_identity), and error messages carry the source
 * file and line. Messages go to stderr so that stdout stays pure TAP.
 */
#ifndef FC_LOG_H
#define FC_LOG_H

void fc_log_set_identity(const char *host, int rank);
const char *fc_log_host(void);
int fc_log_rank(void);

void fc_log_error_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The first error this process logged ("" if none), with its place: what a
 * stage's end record gives as the reason it could not judge anything. */
const char *fc_log_first_error(void);
void fc_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define fc_error(...) fc_log_error_at(__FILE__, __LINE__, __VA_ARGS__)

#endif
