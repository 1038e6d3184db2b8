/*
 * fc_diagnose_after_end.c - a rank that died after its stage wrote its
 * end (see fc_diagnose.h). The stage's checks passed or failed on what
 * was measured, yet the launcher reports a rank of it killed by a signal,
 * by the OOM killer, or ending with a status no stage gives with that end
 * (0 and 1 are its outcomes; 2 only after an end saying "invalid input"):
 * a node whose process dies as the stage ends (in MPI_Finalize, at exit:
 * a driver fault at tear-down) is not certified by the checks it passed
 * first. Each such rank's host gets a crash finding that quarantines it;
 * what the stage measured stands, so it is not run again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_diagnose.h"
#include "fc_exitinfo.h"
#include "fc_input.h"
#include "fc_verdict.h"

json_t *fc_diagnose_after_end(const fc_diag_in_t *in)
{
    json_t *start = NULL, *end = NULL, *notes, *n, *rec, *out = json_array();
    const char *status;
    char *text = NULL;
    size_t i;
    int expected;

    json_array_foreach(in->recs, i, rec) {
        if (strcmp(fc_json_str(rec, "type"), "stage_start") == 0)
            start = rec;
        else if (strcmp(fc_json_str(rec, "type"), "stage_end") == 0)
            end = rec;
    }
    if (start == NULL || end == NULL ||
        fc_input_read(in->log_path, "stage log", FC_INPUT_DOC_MAX, &text, NULL) != FC_OK)
        return out;
    status = fc_json_str(end, "status");
    /* 0 and 1 are a stage's own outcomes (a rank's status may differ from
     * rank 0's); 2 only with an end that says its input was invalid */
    expected = strcmp(status, "invalid input") == 0 ? 2 : 1;
    notes = fc_exitinfo_parse(text);
    free(text);
    json_array_foreach(notes, i, n) {
        json_int_t rank = json_integer_value(json_object_get(n, "rank"));
        json_int_t sig = json_integer_value(json_object_get(n, "signal"));
        json_int_t code = json_integer_value(json_object_get(n, "exit_code"));
        int oom = json_is_true(json_object_get(n, "oom"));
        const char *host = fc_json_str(n, "host"), *rack;
        char how[96], why[1024], ranks[32];
        int h;

        if (strcmp(fc_json_str(n, "kind"), "rank") != 0 || rank < 0 ||
            (sig <= 0 && !oom && (code == 0 || code == 1 || code == expected)))
            continue;
        if (!host[0])       /* Open MPI's exit paragraph names the rank only */
            host = json_string_value(json_array_get(json_object_get(start, "rank_hosts"),
                                                    (size_t)rank));
        if (host == NULL || (h = fc_inventory_find_host(in->inv, host)) < 0 ||
            !fc_diagnose_launched(in, host))
            continue;
        rack = in->inv->racks[in->inv->host_rack[h]];
        if (oom)
            snprintf(how, sizeof(how), "was killed for lack of memory (OOM)");
        else if (sig > 0)
            snprintf(how, sizeof(how), "exited on signal %lld (%s)", (long long)sig,
                     strsignal((int)sig));
        else
            snprintf(how, sizeof(how), "exited with status %lld, which the stage's end "
                     "(status '%s') does not give", (long long)code, status);
        snprintf(ranks, sizeof(ranks), "%lld", (long long)rank);
        snprintf(why, sizeof(why), "rank %lld on host %s died after the stage wrote its end: "
                 "the launcher reports it %s; what the stage measured stands, but a node "
                 "whose process died in the stage is not certified by it (see %.400s)",
                 (long long)rank, host, how, in->log_path);
        json_array_append_new(out, json_pack(
            "{s:s, s:s, s:s, s:s, s:[s], s:{s:s, s:s, s:s, s:b}, s:I, s:I, s:b, "
            "s:{s:[s], s:b, s:s}, s:s}",
            "type", "crash", "host", host, "rack", rack, "ranks", ranks, "reasons", why,
            "implicates", "part", "node", "host", host, "rack", rack, "quarantine", 1,
            "signal", (json_int_t)sig, "exit_code", (json_int_t)code, "oom", oom,
            "evidence", "launcher", fc_json_str(n, "text"), "after_end", 1, "log", in->log_path,
            "verdict", "FAIL"));
    }
    json_decref(notes);
    return out;
}
