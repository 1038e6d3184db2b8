/*
 * fc_test_retest.h - what the unit tests of the retest's records
 * (tests/unit/retest_records.c: a wrong result; retest_slow.c: a confirmed
 * slowness) share: the runner's list of groups for one group, "cluster",
 * of hosts n01, n02, ... in the racks given, and a run of one of the
 * record writers (lib/retest/fc_retest_records.h) into a scratch results.jsonl,
 * its TAP lines discarded, with the records it wrote read back.
 */
#ifndef FC_TEST_RETEST_H
#define FC_TEST_RETEST_H

#include <stdio.h>
#include <unistd.h>

#include "fc_retest_records.h"
#include "fc_tap.h"

typedef int (*fc_test_retest_write_func_t)(const fc_retest_input_t *in,
                                           fc_results_t *results, fc_tap_t *tap);

/* The runner's groups file: one group "cluster" of nhosts hosts named
 * n01, n02, ..., host h in rack "r<rack[h]>" (hosts of a rack adjacent),
 * of kind `kind` (NULL: none given, a wrong result), its failure as
 * `observed`. */
static inline json_t *fc_test_retest_groups(int nhosts, const int *rack, const char *kind,
                                            const char *observed)
{
    json_t *groups = json_object(), *g = json_object(), *hosts = json_array();
    json_t *racks = json_array(), *host_racks = json_object();

    for (int h = 0; h < nhosts; ++h) {
        char name[16], rname[16];

        snprintf(name, sizeof(name), "n%02d", h + 1);
        snprintf(rname, sizeof(rname), "r%d", rack[h]);
        json_array_append_new(hosts, json_string(name));
        json_object_set_new(host_racks, name, json_string(rname));
        if (h == 0 || rack[h] != rack[h - 1])
            json_array_append_new(racks, json_string(rname));
    }
    json_object_set_new(g, "group", json_string("cluster"));
    json_object_set_new(g, "hosts", hosts);
    json_object_set_new(g, "racks", racks);
    if (kind)
        json_object_set_new(g, "kind", json_string(kind));
    json_object_set_new(g, "observed", json_string(observed));
    json_object_set_new(groups, "groups", json_pack("[o]", g));
    json_object_set_new(groups, "host_racks", host_racks);
    return groups;
}

/* Run write_func over in, appending to dir/results.jsonl (removed after),
 * and read back the records it wrote into *records_p (a JSON array, the
 * caller's). Returns what write_func returned; bails out through tap when
 * the results file cannot be opened. */
static inline int fc_test_retest_write(fc_tap_t *tap, const char *dir,
                                       const fc_retest_input_t *in,
                                       fc_test_retest_write_func_t write_func,
                                       json_t **records_p)
{
    fc_results_t res;
    fc_tap_t quiet;
    FILE *null = fopen("/dev/null", "w"), *f;
    char path[4096], line[1 << 16];
    json_t *records = json_array();
    int n;

    fc_tap_init(&quiet, null, 0);
    if (fc_results_open(dir, &res) != FC_OK)
        fc_tap_bail(tap, "cannot open %s", dir);
    n = write_func(in, &res, &quiet);
    fc_results_close(&res);
    fclose(null);
    snprintf(path, sizeof(path), "%s/results.jsonl", dir);
    if ((f = fopen(path, "r")) != NULL) {
        while (fgets(line, sizeof(line), f))
            json_array_append_new(records, json_loads(line, 0, NULL));
        fclose(f);
    }
    unlink(path);
    *records_p = records;
    return n;
}

#endif
