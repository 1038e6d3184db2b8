/*
 * fc_compare_int.h - what the comparison of two runs (fc_compare.c: the
 * inputs, the comparisons, the findings and the racks' verdicts) hands
 * to its writers (fc_compare_write.c: the delta certificates, the
 * summary, JUnit and the HTML page).
 */
#ifndef FC_COMPARE_INT_H
#define FC_COMPARE_INT_H

#include <jansson.h>
#include <stdio.h>

#include "fc_compare.h"
#include "fc_samples.h"
#include "fc_stats_compare.h"
#include "fc_verdict.h"

/* One run given to compare. */
typedef struct fc_cmp_input {
    const char *dir;
    char sha256[65];            /* of its results.jsonl's bytes */
    json_t *records;
    int bad_lines;              /* records that could not be read */
    fc_run_verdict_t v;         /* its own verdicts */
    json_t *rack_of;            /* host -> rack, from its plan */
} fc_cmp_input_t;

/* One measurement of BEFORE, and AFTER's of the same. */
typedef struct fc_cmp_item {
    char label[320];            /* "node: all_reduce ... on h1", "pairs: pair a <-> b 256 KiB" */
    char stage[16];
    char part[16];              /* node, rack, cluster (a point's group), pair */
    char host_a[FC_VERDICT_NAME];   /* the node (node stage), a pair's hosts */
    char host_b[FC_VERDICT_NAME];
    char rack_a[FC_VERDICT_NAME];   /* the racks it concerns; none: every rack */
    char rack_b[FC_VERDICT_NAME];
    double us_b[FC_SAMPLES_MAX], us_a[FC_SAMPLES_MAX];  /* samples, µs */
    int nb, na;                 /* their counts (0 none, -1 malformed) */
    int in_after;               /* AFTER measured it */
    int compared;               /* the test ran */
    char why[256];              /* why not */
    fc_cmp_result_t r;          /* the statistics */
    double detectable;          /* the slowdown it would have found */
    int rejected;               /* Holm rejected "not slower" */
    int slower;                 /* ... and the interval clears the floor */
    int explained;              /* a finding about its node covers it: */
    char placed_host[FC_VERDICT_NAME];  /* that node */
    char placed_rack[FC_VERDICT_NAME];  /* and its rack ("" unknown) */
} fc_cmp_item_t;

/* A slowdown placed on a part, or a comparison standing alone. */
typedef struct fc_cmp_finding {
    char part[16];              /* node, path, rack, cluster */
    char host[FC_VERDICT_NAME]; /* the node, or a path's first host */
    char rack_a[FC_VERDICT_NAME], rack_b[FC_VERDICT_NAME];  /* none: every rack */
    char text[1024];
} fc_cmp_finding_t;

typedef struct fc_cmp_rack {
    char rack[FC_VERDICT_NAME];
    fc_verdict_t verdict;
    int compared, slower, not_compared;
    int least;                  /* the compared item least sensitive, or -1 */
    double detectable;          /* its detectable slowdown */
    json_t *reasons;            /* why INCOMPLETE: strings */
} fc_cmp_rack_t;

typedef struct fc_compare {
    const fc_compare_opts_t *o;
    fc_cmp_input_t in[2];       /* BEFORE, AFTER */
    fc_cmp_item_t *items;
    int nitems, cap;
    int ncompared;
    int only_after;             /* measurements AFTER made and BEFORE did not */
    fc_cmp_finding_t *findings;
    int nfindings;
    fc_cmp_rack_t *racks;
    int nracks;
    fc_verdict_t overall;
} fc_compare_t;

/* 1 when item concerns rack. */
int fc_cmp_item_in_rack(const fc_cmp_item_t *it, const char *rack);
/* 1 when item, slower, counts against rack: a slowdown placed on a node
 * counts against that node's rack alone (a pair across the spine with a
 * slow node at one end does not fail the other end's rack), one not
 * placed against every rack it concerns. */
int fc_cmp_item_fails_rack(const fc_cmp_item_t *it, const char *rack);
/* 1 when finding concerns rack. */
int fc_cmp_finding_in_rack(const fc_cmp_finding_t *f, const char *rack);
/* "31.2% slower (CI 27.0% to 35.1%)" for a compared item. */
void fc_cmp_item_text(const fc_cmp_item_t *it, char *buf, size_t len);
/* The rack's one-line statement: "no regression above 4.2% at 95%
 * confidence ..." or "3 of 12 comparisons slower ...". */
void fc_cmp_rack_statement(const fc_compare_t *c, const fc_cmp_rack_t *r, char *buf,
                           size_t len);

/* The findings (fc_compare_find.c), after the items are tested. */
void fc_cmp_findings(fc_compare_t *c);

/* The writers (fc_compare_write.c). */
json_t *fc_compare_certificate(const fc_compare_t *c, const fc_cmp_rack_t *r);
fc_status_t fc_compare_write(const fc_compare_t *c, const unsigned char *secret_key);
void fc_compare_summary(FILE *f, const fc_compare_t *c);

#endif
