/*
 * fc_exitinfo.c - see fc_exitinfo.h. Line by line: each launcher form is
 * one small matcher that adds its ranks (or hosts) to the array; Open
 * MPI's paragraphs keep what their first line said until the line that
 * names the rank or host comes.
 */
#include "fc_exitinfo.h"

#include "fc_inventory.h"

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* srun's words for how a task ended (strsignal's, and its own) */
static const struct { const char *words; int sig; int oom; } fc_srun_ends[] = {
    { "Out Of Memory", SIGKILL, 1 }, { "Killed", SIGKILL, 0 },
    { "Segmentation fault", SIGSEGV, 0 }, { "Aborted", SIGABRT, 0 },
    { "Bus error", SIGBUS, 0 }, { "Terminated", SIGTERM, 0 },
    { "Floating point exception", SIGFPE, 0 }, { "Illegal instruction", SIGILL, 0 },
    { "Hangup", SIGHUP, 0 }, { "Interrupt", SIGINT, 0 },
};

/* Where the reading is. */
typedef struct fc_exit_parse {
    json_t *notes;
    int lineno;             /* of the line being read, 1-based */
    int aborted_line;       /* where srun said it aborts the step; 0 */
    int lost_line;          /* where Open MPI said it lost a daemon; 0 */
    int peer_line;          /* where it said a peer disconnected; 0 */
    char lost_text[1024];   /* that line */
    int unable_line;        /* where Open MPI said it could not launch or
                             * start a process; 0 */
    char unable_text[1024]; /* that paragraph so far, on one line */
    char unable_why[512];   /* why, e.g. "could not access or execute an
                             * executable: /path" */
    char unable_host[256];  /* its "Node:" */
    int unable_body;        /* its first blank line came: the detail lines
                             * follow */
} fc_exit_parse_t;

/* Open MPI's paragraphs name the host a few lines after their first */
#define FC_EXIT_PARAGRAPH_LINES 8

/* One note. After srun said it aborts the step, the tasks it names are
 * the ones it ended itself: after_abort. */
static void fc_note_kind(fc_exit_parse_t *ps, const char *kind, long rank, const char *host,
                         long pid, int sig, int code, int oom, const char *launcher,
                         const char *line)
{
    json_array_append_new(ps->notes, json_pack(
        "{s:s, s:I, s:s, s:I, s:i, s:i, s:b, s:s, s:s, s:i, s:b}", "kind", kind,
        "rank", (json_int_t)rank, "host", host, "pid", (json_int_t)pid, "signal", sig,
        "exit_code", code, "oom", oom, "launcher", launcher, "text", line,
        "line", ps->lineno, "after_abort", ps->aborted_line > 0));
}

static void fc_note(fc_exit_parse_t *ps, long rank, const char *host, long pid, int sig,
                    int code, int oom, const char *launcher, const char *line)
{
    fc_note_kind(ps, "rank", rank, host, pid, sig, code, oom, launcher, line);
}

/* The launcher lost a host (its daemon, or the node itself), or a peer on
 * it disconnected: a note without a rank. */
static void fc_note_host(fc_exit_parse_t *ps, const char *kind, const char *host,
                         const char *launcher, const char *line)
{
    fc_note_kind(ps, kind, -1, host, -1, 0, 0, 0, launcher, line);
}

/* Open MPI: "ORTE has lost communication with a remote daemon." then, a
 * line or two later, "Remote daemon: [[J,0],V] on node H"; Open MPI's
 * "Peer host: H" after "peer process has unexpectedly disconnected". */
static int fc_match_host_lost(const char *line, fc_exit_parse_t *ps)
{
    const char *p;
    char host[256], launcher[32] = "mpirun", text[2100];

    if (strstr(line, "has lost communication with a remote daemon")) {
        ps->lost_line = ps->lineno;
        snprintf(ps->lost_text, sizeof(ps->lost_text), "%s", line);
        return 1;
    }
    if (strstr(line, "peer process has unexpectedly disconnected")) {
        ps->peer_line = ps->lineno;
        return 1;
    }
    if (ps->lost_line && ps->lineno - ps->lost_line <= FC_EXIT_PARAGRAPH_LINES &&
        strstr(line, "Remote daemon") && (p = strstr(line, " on node ")) != NULL &&
        sscanf(p, " on node %255s", host) == 1) {
        if (strncmp(ps->lost_text, "PRTE", 4) == 0)
            snprintf(launcher, sizeof(launcher), "prterun");
        snprintf(text, sizeof(text), "%s %s", ps->lost_text, line);
        fc_note_host(ps, "host_lost", host, launcher, text);
        ps->lost_line = 0;
        return 1;
    }
    if (ps->peer_line && ps->lineno - ps->peer_line <= FC_EXIT_PARAGRAPH_LINES &&
        (p = strstr(line, "Peer host:")) != NULL && sscanf(p, "Peer host: %255s", host) == 1) {
        fc_note_host(ps, "peer_host", host, "mpirun", line);
        ps->peer_line = 0;
        return 1;
    }
    return 0;
}

/* Open MPI could not launch (or start) a process on a node: the paragraph
 *   mpirun was unable to launch the specified application as it could not
 *   access or execute an executable:  /  Executable: X  /  Node: H  /
 *   while attempting to start process rank R.
 * (the same for a working directory, an error code, a system limit): one
 * rank note with the host, and start_error saying why. */
static int fc_match_unable(const char *line, fc_exit_parse_t *ps)
{
    static const char *const details[] = { "Executable:", "Working directory:", "Error name:",
                                           "Error:" };
    const char *p;
    char launcher[32] = "mpirun";
    long rank;

    if ((p = strstr(line, " was unable to launch the specified application as it ")) ||
        (p = strstr(line, " was unable to start the specified application as it "))) {
        ps->unable_line = ps->lineno;
        ps->unable_host[0] = '\0';
        ps->unable_body = 0;
        snprintf(ps->unable_text, sizeof(ps->unable_text), "%s", line);
        snprintf(ps->unable_why, sizeof(ps->unable_why), "%s", strstr(p, " as it ") + 7);
        return 1;
    }
    if (ps->unable_line == 0 || ps->lineno - ps->unable_line > FC_EXIT_PARAGRAPH_LINES)
        return 0;
    while (*line == ' ' || *line == '\t')
        ++line;
    if (*line == '\0') {
        ps->unable_body = 1;
        return 1;
    }
    if (strlen(ps->unable_text) + strlen(line) + 2 < sizeof(ps->unable_text))
        snprintf(ps->unable_text + strlen(ps->unable_text),
                 sizeof(ps->unable_text) - strlen(ps->unable_text), " %s", line);
    if (!ps->unable_body) {     /* the first sentence, wrapped */
        size_t n = strlen(ps->unable_why);

        snprintf(ps->unable_why + n, sizeof(ps->unable_why) - n, " %s", line);
        return 1;
    }
    if (sscanf(line, "Node: %255s", ps->unable_host) == 1)
        return 1;
    for (size_t k = 0; k < sizeof(details) / sizeof(details[0]); ++k)
        if (strncmp(line, details[k], strlen(details[k])) == 0) {
            size_t n = strlen(ps->unable_why);

            /* "... executable:" then "Executable: X": the line's value */
            snprintf(ps->unable_why + n, sizeof(ps->unable_why) - n, "%s%s",
                     n && ps->unable_why[n - 1] == ':' ? " " : "; ",
                     line + strlen(details[k]) + strspn(line + strlen(details[k]), " \t"));
            return 1;
        }
    if ((p = strstr(line, "attempting to start process rank ")) != NULL &&
        sscanf(p, "attempting to start process rank %ld", &rank) == 1 && ps->unable_host[0]) {
        sscanf(ps->unable_text, "%31s", launcher);
        fc_note(ps, rank, ps->unable_host, -1, 0, 0, 0, launcher, ps->unable_text);
        json_object_set_new(json_array_get(ps->notes, json_array_size(ps->notes) - 1),
                            "start_error", json_string(ps->unable_why));
        ps->unable_line = 0;
        return 1;
    }
    return 0;
}

/* srun: error: Node failure on HOSTLIST (Slurm's controller declared the
 * node(s) down while the step ran) */
static int fc_match_node_failure(const char *line, fc_exit_parse_t *ps)
{
    const char *p = strstr(line, "srun: error: Node failure on ");
    char list[1024], err[256], (*names)[FC_INV_NAME_MAX] = NULL;
    int n = 0;

    if (p == NULL || sscanf(p + 29, "%1023s", list) != 1)
        return 0;
    if (fc_hostlist_expand(list, &names, &n, err, sizeof(err)) != FC_OK)
        return 0;
    for (int k = 0; k < n; ++k)
        fc_note_host(ps, "host_lost", names[k], "srun", line);
    free(names);
    return 1;
}

/* "... noticed that process rank R with PID P on node H exited on signal S" */
static int fc_match_signal(const char *line, fc_exit_parse_t *ps)
{
    const char *p = strstr(line, "noticed that process rank ");
    char host[256], launcher[32] = "mpirun";
    long rank, pid;
    int sig;

    if (p == NULL || sscanf(p, "noticed that process rank %ld with PID %ld on node %255s "
                            "exited on signal %d", &rank, &pid, host, &sig) != 4)
        return 0;
    sscanf(line, "%31s", launcher);
    fc_note(ps, rank, host, pid, sig, 0, 0, launcher, line);
    return 1;
}

/* srun: error: HOST: task(s) LIST: HOW */
static int fc_match_srun(const char *line, fc_exit_parse_t *ps)
{
    const char *p = strstr(line, "srun: error: "), *list, *how;
    char host[256];
    int sig = 0, code = 0, oom = 0, known = 0;

    if (p == NULL || sscanf(p + 13, "%255[^:]:", host) != 1)
        return 0;
    list = strstr(p + 13, ": task");
    if (list == NULL)
        return 0;
    list += strncmp(list, ": tasks ", 8) == 0 ? 8 : 7;
    how = strstr(list, ": ");
    if (how == NULL)
        return 0;
    how += 2;
    if (sscanf(how, "Exited with exit code %d", &code) == 1)
        known = 1;
    for (size_t k = 0; !known && k < sizeof(fc_srun_ends) / sizeof(fc_srun_ends[0]); ++k)
        if (strncmp(how, fc_srun_ends[k].words, strlen(fc_srun_ends[k].words)) == 0) {
            sig = fc_srun_ends[k].sig;
            oom = fc_srun_ends[k].oom;
            known = 1;
        }
    if (!known)
        return 0;
    /* the task list: 3 | 0-1,4 */
    while (isdigit((unsigned char)*list)) {
        char *end;
        long a = strtol(list, &end, 10), b = a;

        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long r = a; r <= b && r - a < 100000; ++r)
            fc_note(ps, r, host, -1, sig, code, oom, "srun", line);
        if (*end != ',')
            break;
        list = end + 1;
    }
    return 1;
}

/* Append `line` to `text` after `sep`, its runs of blanks made one space
 * ("Exit code:    127" -> "Exit code: 127"): a paragraph's lines quoted
 * on one line. */
static void fc_words_append(char *text, size_t len, const char *sep, const char *line)
{
    size_t n = strlen(text);

    snprintf(text + n, len - n, "%s", sep);
    n = strlen(text);
    for (const char *p = line + strspn(line, " \t"); *p && n + 1 < len; ++p)
        if (!((*p == ' ' || *p == '\t') && (p[1] == ' ' || p[1] == '\t' || p[1] == '\0')))
            text[n++] = *p == '\t' ? ' ' : *p;
    text[n] = '\0';
}

json_t *fc_exitinfo_parse(const char *text)
{
    fc_exit_parse_t ps = { .notes = json_array() };
    char line[1024], host[256], first[1024] = "";
    long rank = -1, pid = -1;
    int pending = 0;     /* 1: non-zero status seen, 2: "exited due to" seen */

    while (text && *text) {
        size_t n = strcspn(text, "\n");
        int code;

        snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), text);
        text += n + (text[n] == '\n');
        ++ps.lineno;
        if (fc_match_signal(line, &ps) || fc_match_node_failure(line, &ps) ||
            fc_match_srun(line, &ps) || fc_match_host_lost(line, &ps) ||
            fc_match_unable(line, &ps))
            continue;
        if (strstr(line, " terminated normally, but ") &&
            sscanf(strstr(line, " terminated normally, but "), " terminated normally, but %d",
                   &code) == 1) {
            /* Open MPI: "Primary job  terminated normally, but 1 process
             * returned / a non-zero exit code. ..." (no rank named yet) */
            fc_note_host(&ps, "job_aborted", "", "mpirun", line);
        } else if (strstr(line, "srun: Job step aborted") && ps.aborted_line == 0) {
            ps.aborted_line = ps.lineno;
        } else if (strstr(line, "exited with non-zero status")) {
            pending = 1;
            snprintf(first, sizeof(first), "%s", line);
        } else if (pending == 1 && strstr(line, "Process name:") &&
                   sscanf(strstr(line, "Process name:"), "Process name: [[%*d,%*d],%ld]",
                          &rank) == 1) {
            if (strstr(first, ", thus causing"))     /* the sentence goes on */
                *strstr(first, ", thus causing") = '\0';
            fc_words_append(first, sizeof(first), ": ", strstr(line, "Process name:"));
            continue;
        } else if (pending == 1 && rank >= 0 && sscanf(line, " Exit code: %d", &code) == 1) {
            fc_words_append(first, sizeof(first), ", ", line);
            fc_note(&ps, rank, "", -1, 0, code, 0, "mpirun", first);
            pending = 0;
            rank = -1;
        } else if (strstr(line, "exited due to process rank ") &&
                   sscanf(strstr(line, "exited due to process rank "),
                          "exited due to process rank %ld with PID %ld", &rank, &pid) == 2) {
            pending = 2;
            snprintf(first, sizeof(first), "%s", line);
        } else if (pending == 2 && sscanf(line, "node %255s exiting improperly", host) == 1) {
            fc_note(&ps, rank, host, pid, 0, 0, 0, "mpirun", first);
            pending = 0;
            rank = -1;
        }
    }
    return ps.notes;
}
