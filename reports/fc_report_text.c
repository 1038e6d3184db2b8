/*
 * fc_report_text.c - see fc_report_text.h. Texts that reach a terminal go
 * through fc_print_line or fc_append_visible: a value from the command
 * line, a record or the plan cannot fake a line of the summary.
 */
#include "fc_report_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_alloc.h"

/* Append text to buf, control characters shown as '?' (an override's value
 * must not fake a line of the summary), at most max bytes of it. */
static size_t fc_append_visible(char *buf, size_t used, size_t len, const char *text,
                                size_t max)
{
    size_t n = 0;

    for (; *text && n < max && used + 1 < len; ++text, ++n)
        buf[used++] = (unsigned char)*text < 0x20 || *text == 0x7f ? '?' : *text;
    if (*text && used + 4 < len) {
        memcpy(buf + used, "...", 3);       /* cut: the certificate has it whole */
        used += 3;
    }
    buf[used] = '\0';
    return used;
}

void fc_print_line(FILE *out, const char *fmt, ...)
{
    va_list ap, again;
    char *line;
    int n;

    va_start(ap, fmt);
    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {                    /* the format cannot be encoded */
        va_end(again);
        return;
    }
    line = fc_xmalloc((size_t)n + 1, "a report line");
    vsnprintf(line, (size_t)n + 1, fmt, again);
    va_end(again);
    for (int i = 0; i < n; ++i)
        if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
            line[i] = '?';
    fprintf(out, "%s\n", line);
    free(line);
}

void fc_settings_text(json_t *settings, const char *sep, char *buf, size_t len)
{
    json_t *val;
    const char *key;
    size_t used = 0;

    buf[0] = '\0';
    /* every setting is named, however long the values: each value is cut
     * to its first 120 characters here */
    json_object_foreach(settings, key, val) {
        json_t *items = json_is_array(val) ? val : NULL, *item;
        size_t n = items ? json_array_size(items) : 1;

        for (size_t i = 0; i < n && used + 8 < len; ++i) {
            item = items ? json_array_get(items, i) : val;
            used = fc_append_visible(buf, used, len, used ? ", " : "", 2);
            used = fc_append_visible(buf, used, len, key, 120);   /* a path too */
            used = fc_append_visible(buf, used, len, sep, 1);
            used = fc_append_visible(buf, used, len, json_is_string(item)
                                     ? json_string_value(item) : "?", 120);
        }
    }
}

/* The strings of an array joined with ", " into buf at *used. */
static void fc_join_names(json_t *names, char *buf, size_t len, size_t *used)
{
    json_t *x;
    size_t i;

    if (json_array_size(names) == 0 && *used + 5 < len)
        *used += (size_t)snprintf(buf + *used, len - *used, "none");
    json_array_foreach(names, i, x) {
        const char *name = json_is_string(x) ? json_string_value(x) : fc_json_str(x, "stage");

        if (*used + strlen(name) + 3 >= len)
            break;
        *used += (size_t)snprintf(buf + *used, len - *used, "%s%s", i ? ", " : "", name);
    }
}

void fc_resume_text(json_t *resume, char *buf, size_t len)
{
    json_t *sup = json_object_get(resume, "superseded"), *x;
    size_t used = 0, i;
    long superseded = 0;

    json_array_foreach(sup, i, x)
        superseded += (long)json_integer_value(json_object_get(x, "attempts"));
    buf[0] = '\0';
    used += (size_t)snprintf(buf, len, "%.40s: kept ", fc_json_str(resume, "time"));
    fc_join_names(json_object_get(resume, "kept"), buf, len, &used);
    if (used + 16 < len)
        used += (size_t)snprintf(buf + used, len - used, "; ran ");
    fc_join_names(json_object_get(resume, "to_run"), buf, len, &used);
    if (used + 64 < len)
        snprintf(buf + used, len - used, " again from the start (%ld earlier attempt%s "
                 "superseded)", superseded, superseded == 1 ? "" : "s");
}

void fc_rerun_text(json_t *rerun_of, char *buf, size_t len)
{
    json_t *passed = json_array(), *x;
    size_t used, i;

    json_array_foreach(json_object_get(rerun_of, "verdicts"), i, x)
        if (strcmp(fc_json_str(x, "verdict"), "PASS") == 0)
            json_array_append_new(passed, json_string(fc_json_str(x, "rack")));
    used = (size_t)snprintf(buf, len, "rerun of %.64s (%.512s) after repair: racks ",
                            fc_json_str(rerun_of, "run_id"), fc_json_str(rerun_of, "dir"));
    if (used >= len)
        used = len - 1;
    fc_join_names(json_object_get(rerun_of, "racks"), buf, len, &used);
    if (used + 100 < len)
        used += (size_t)snprintf(buf + used, len - used, " (its results.jsonl sha256 %.64s); "
                                 "racks that passed there and keep its certificates: ",
                                 fc_json_str(rerun_of, "results_sha256"));
    fc_join_names(passed, buf, len, &used);
    json_decref(passed);
}

void fc_overrides_text(const fc_run_verdict_t *v, char *buf, size_t len)
{
    fc_settings_text(json_object_get(v->plan, "overrides"), " ", buf, len);
}

void fc_environment_text(const fc_run_verdict_t *v, char *buf, size_t len)
{
    fc_settings_text(json_object_get(v->plan, "environment"), "=", buf, len);
}

const char *fc_sysfs_root_of(const fc_run_verdict_t *v)
{
    json_t *env = json_object_get(json_object_get(v->plan, "overrides"), "--env"), *e;
    const char *root = json_string_value(json_object_get(
        json_object_get(v->plan, "environment"), "FC_SYSFS_ROOT"));
    size_t i;

    json_array_foreach(env, i, e)       /* --env wins: it is what the ranks got */
        if (json_is_string(e) && strncmp(json_string_value(e), "FC_SYSFS_ROOT=", 14) == 0)
            root = json_string_value(e) + 14;
    return root && root[0] ? root : NULL;
}

/* What to do per part a finding names: a link or a NIC the same. */
static const struct fc_part_advice {
    const char *part;       /* a finding's part */
    const char *action;     /* what a technician does about it */
} fc_part_advice[] = {
    { "link",
      "check the node's NIC, its cable and its switch port (swap the "
      "cable first), then re-run the pairs stage" },
    { "NIC",
      "check the node's NIC, its cable and its switch port (swap the "
      "cable first), then re-run the pairs stage" },
    { "uplink",
      "check the rack's uplinks to the spine (cables, optics and the ports "
      "at both ends); the rack's nodes are fast with each other" },
    { "path",
      "check the switch path between the two hosts (ports, uplinks, "
      "routing); both nodes are fine with other partners" },
    { "switch",
      "check the rack's ToR switch (its error counters, port and buffer "
      "settings, firmware; replace it if it stays slow): every pair inside "
      "the rack is slow while each of its nodes is fast with nodes outside "
      "it, so their links and the rack's uplink are not at fault" },
    { "GPU",
      "take the node out of service; run the GPU vendor's diagnostics "
      "and replace the GPU that produced wrong bits" },
    { "node",
      "take the node out of service and run its diagnostics (memory, "
      "PCIe, GPUs); it produced wrong data, was slow or did not respond" },
    { "rack",
      "check the rack's ToR switch and uplinks; the suspect host is "
      "the slowest one" },
    { "cluster",
      "check the spine and the links between racks; every rack that "
      "took part was slowed" },
    { "group",
      "a wrong result or a confirmed slowness in this group was not placed on "
      "one node; check the evidence (its switch, its uplinks), re-run, and "
      "retest the group's nodes in pairs" },
    { "stage",
      "re-run: the stage did not complete on this rack, so nothing is "
      "certified for it" },
    { "measurement",
      "fix what kept the measurement from meeting the profile (for "
      "background traffic: its target directory, its ranks, its rates) "
      "and re-run the stage" },
    { "gpus",
      "re-run the stage with one rank per GPU (--ppn, the GPUs each host has): "
      "the GPUs named were never tested" },
    { "backend",
      "re-run the stage on the backend the profile names (no --backend "
      "override): it measured host memory, not the GPUs" },
    { "inventory",
      "run on every host the rack map gives the rack (the whole rack in the "
      "host list or the allocation): a rack is certified whole or not at all" },
    { "unplaced",
      "a check failed without naming a rack or host of this run's inventory, so "
      "no rack of its stage is certified: read the record in results.jsonl, "
      "find the part it measured and re-run the stage" },
};

const char *fc_part_action(const char *part)
{
    for (size_t i = 0; i < sizeof(fc_part_advice) / sizeof(fc_part_advice[0]); ++i)
        if (strcmp(part, fc_part_advice[i].part) == 0)
            return fc_part_advice[i].action;
    return "inspect the evidence";
}
