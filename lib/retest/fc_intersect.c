/*
 * fc_intersect.c - see fc_intersect.h: the sightings of a wrong result in
 * the run's records, their intersection and the hosts to retest. Host
 * sets are JSON arrays of names, kept in the order first met; the
 * evidence folds the sightings of one stage, group and observers into one
 * entry with a count, so a stage that failed 40 points is one line.
 */
#include "fc_intersect.h"

#include <stdio.h>
#include <string.h>

#include "fc_json.h"

static void fc_add(json_t *set, const char *name)
{
    if (name[0] && !fc_json_has_string(set, name))
        json_array_append_new(set, json_string(name));
}

/* a ∩ b, in a's order (a new array) */
static json_t *fc_common(json_t *a, json_t *b)
{
    json_t *out = json_array(), *h;
    size_t i;

    json_array_foreach(a, i, h)
        if (fc_json_has_string(b, json_string_value(h)))
            json_array_append(out, h);
    return out;
}

static int fc_meets(json_t *set, json_t *hosts)
{
    size_t i;
    json_t *h;

    json_array_foreach(hosts, i, h)
        if (fc_json_has_string(set, json_string_value(h)))
            return 1;
    return 0;
}

void fc_intersect_names(json_t *set, char *buf, size_t len)
{
    size_t i, at = 0;
    json_t *h;

    buf[0] = '\0';
    json_array_foreach(set, i, h)
        if (at < len)
            at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "",
                                   json_string_value(h));
}

static int fc_is_fail(json_t *rec)
{
    return strcmp(fc_json_str(rec, "verdict"), "FAIL") == 0;
}

static int fc_is_retest_wrong(json_t *rec)
{
    return strcmp(fc_json_str(rec, "type"), "retest") == 0 && strcmp(fc_json_str(rec, "kind"), "slow") != 0;
}

/* The host a record placed for wrong data, or NULL: a retest that
 * localised a wrong result, a pair or node of the pairs stage quarantined
 * for the data it exchanged. */
static const char *fc_placed_host(json_t *rec)
{
    json_t *imp = json_object_get(rec, "implicates");
    const char *type = fc_json_str(rec, "type");

    if (!fc_is_fail(rec))
        return NULL;
    if (fc_is_retest_wrong(rec) && json_is_true(json_object_get(rec, "localised")))
        return fc_json_str(json_object_get(rec, "culprit"), "host")[0]
                   ? fc_json_str(json_object_get(rec, "culprit"), "host") : fc_json_str(imp, "host");
    if ((strcmp(type, "pair") == 0 || strcmp(type, "pairs_node") == 0) &&
        strcmp(fc_json_str(imp, "part"), "node") == 0 && json_is_true(json_object_get(imp, "quarantine")))
        return fc_json_str(imp, "host");
    return NULL;
}

/* A failing record of a wrong result no retest placed yet: a check whose
 * implicates is its group, not localised (not a slowness), or a retest
 * record of a wrong result that placed nothing. */
static int fc_unplaced_wrong(json_t *rec)
{
    json_t *imp = json_object_get(rec, "implicates");

    if (!fc_is_fail(rec))
        return 0;
    if (strcmp(fc_json_str(rec, "type"), "retest") == 0)
        return fc_is_retest_wrong(rec) && !json_is_true(json_object_get(rec, "localised"));
    return json_is_object(imp) && json_is_false(json_object_get(imp, "localised")) &&
           strcmp(fc_json_str(imp, "kind"), "slow") != 0;
}

typedef struct fc_find {
    json_t *placed;                 /* hosts placed for wrong data */
    json_t *evidence, *groups;
    int sightings, new_sightings, explained;
} fc_find_t;

/* One sighting: hosts one of which is at fault, observers the hosts whose
 * own output held the wrong bits (empty: not known). */
static void fc_sighting(fc_find_t *f, json_t *rec, int fresh, const char *what, json_t *hosts,
                        json_t *observers)
{
    json_t *e;
    size_t i;

    if (json_array_size(hosts) == 0)
        return;
    if (fc_meets(f->placed, hosts)) {
        ++f->explained;
        return;
    }
    ++f->sightings;
    f->new_sightings += fresh;
    json_array_foreach(f->evidence, i, e)
        if (strcmp(fc_json_str(e, "stage"), fc_json_str(rec, "stage")) == 0 &&
            strcmp(fc_json_str(e, "what"), what) == 0 && json_equal(json_object_get(e, "hosts"), hosts) &&
            json_equal(json_object_get(e, "observers"), observers)) {
            json_object_set_new(e, "points", json_integer(
                json_integer_value(json_object_get(e, "points")) + 1));
            return;
        }
    json_array_append_new(f->evidence, json_pack("{s:s, s:s, s:O, s:O, s:i}", "stage",
                          fc_json_str(rec, "stage"), "what", what, "hosts", hosts, "observers",
                          observers, "points", 1));
}

/* The sightings in one record. */
static void fc_record_sightings(fc_find_t *f, json_t *rec, int fresh)
{
    json_t *imp = json_object_get(rec, "implicates"), *observers = json_array(), *x;
    const char *type = fc_json_str(rec, "type");
    char what[256];
    size_t i;

    if (strcmp(type, "retest") != 0) {
        json_t *first = json_object_get(rec, "first_mismatch");

        /* the wrong bits on one host's output alone: flipped on their way
         * into that node (or in its memory); on every rank's: in a
         * contribution they all summed */
        if (json_integer_value(json_object_get(rec, "bad_ranks")) == 1 ||
            json_is_true(json_object_get(first, "all_on_host")))
            fc_add(observers, fc_json_str(first, "host"));
        json_array_foreach(json_object_get(rec, "exchanges"), i, x)   /* a pair's */
            if (json_integer_value(json_object_get(x, "wrong")) > 0)
                fc_add(observers, fc_json_str(x, "receiver_host"));
        fc_sighting(f, rec, fresh, fc_json_str(imp, "group")[0] ? fc_json_str(imp, "group") : type,
                    json_object_get(imp, "hosts"), observers);
    }
    json_decref(observers);
    /* a retest's group is the failure it followed, seen once already; its
     * wrong exchanges are new sightings */
    json_array_foreach(json_object_get(rec, "exchanges"), i, x) {
        json_t *ends, *to;

        if (strcmp(type, "retest") != 0 || strcmp(fc_json_str(x, "verdict"), "wrong") != 0)
            continue;
        ends = json_array();
        to = json_array();
        fc_add(ends, fc_json_str(x, "sender_host"));
        fc_add(ends, fc_json_str(x, "receiver_host"));
        fc_add(to, fc_json_str(x, "receiver_host"));
        snprintf(what, sizeof(what), "retest exchange %s -> %s", fc_json_str(x, "sender_host"),
                 fc_json_str(x, "receiver_host"));
        fc_sighting(f, rec, fresh, what, ends, to);
        json_decref(ends);
        json_decref(to);
    }
}

static void fc_group(fc_find_t *f, json_t *rec)
{
    int retest = strcmp(fc_json_str(rec, "type"), "retest") == 0;
    json_t *imp = json_object_get(rec, "implicates"), *g;
    json_t *hosts = json_object_get(retest ? rec : imp, retest ? "group_hosts" : "hosts");
    const char *name = retest ? fc_json_str(rec, "group") : fc_json_str(imp, "group");
    size_t i;

    if (fc_meets(f->placed, hosts))
        return;
    json_array_foreach(f->groups, i, g)
        if (strcmp(fc_json_str(g, "stage"), fc_json_str(rec, "stage")) == 0 && strcmp(fc_json_str(g, "group"), name) == 0)
            return;
    json_array_append_new(f->groups, json_pack(
        "{s:s, s:s, s:o, s:o}", "stage", fc_json_str(rec, "stage"), "group", name, "hosts",
        hosts ? json_deep_copy(hosts) : json_array(), "racks",
        json_object_get(retest ? rec : imp, "racks")
            ? json_deep_copy(json_object_get(retest ? rec : imp, "racks")) : json_array()));
}

/* Where the intersection runs dry: the sightings before item k had `so_far`
 * in common, item k none of them. */
static void fc_no_common_text(json_t *evidence, char *buf, size_t len)
{
    json_t *so_far = json_deep_copy(json_object_get(json_array_get(evidence, 0), "hosts"));
    char a[512], b[512];
    size_t k;

    for (k = 1; k < json_array_size(evidence); ++k) {
        json_t *e = json_array_get(evidence, k), *next;

        next = fc_common(so_far, json_object_get(e, "hosts"));
        if (json_array_size(next) == 0) {
            fc_intersect_names(so_far, a, sizeof(a));
            fc_intersect_names(json_object_get(e, "hosts"), b, sizeof(b));
            snprintf(buf, len, "no host is in every group that saw wrong bits: the sightings "
                     "before %s %.200s had %.300s in common, it has %.300s (two faults, or one "
                     "off these groups)", fc_json_str(e, "stage"), fc_json_str(e, "what"), a, b);
            json_decref(next);
            break;
        }
        json_decref(so_far);
        so_far = next;
    }
    json_decref(so_far);
}

/* Up to two partners from the healthy hosts outside the suspects: first
 * those off the suspects' racks, then those in no sighting, then a rack
 * the other partner is not on; the inventory's order breaks ties. */
static json_t *fc_partners(json_t *healthy, json_t *suspects, json_t *evidence,
                           json_t *host_racks)
{
    json_t *partners = json_array(), *srack = json_array(), *h, *e;
    size_t i, k;

    json_array_foreach(suspects, i, h)
        fc_add(srack, fc_json_str(host_racks, json_string_value(h)));
    for (int pick = 0; pick < 2; ++pick) {
        const char *best = NULL;
        int best_key = 1 << 30;

        json_array_foreach(healthy, i, h) {
            const char *name = json_string_value(h), *rack = fc_json_str(host_racks, name);
            int key = 0, seen = 0;

            if (fc_json_has_string(suspects, name) || fc_json_has_string(partners, name))
                continue;
            json_array_foreach(evidence, k, e)
                seen |= fc_json_has_string(json_object_get(e, "hosts"), name);
            key = 4 * fc_json_has_string(srack, rack) + 2 * seen;
            if (pick == 1 && json_array_size(partners) > 0)
                key += strcmp(rack, fc_json_str(host_racks, json_string_value(
                                  json_array_get(partners, 0)))) == 0;
            if (key < best_key) {
                best_key = key;
                best = name;
            }
        }
        if (best)
            json_array_append_new(partners, json_string(best));
    }
    json_decref(srack);
    return partners;
}

json_t *fc_intersect_find(json_t *records, const char *run_id, size_t from, json_t *healthy,
                          json_t *host_racks)
{
    fc_find_t f = { json_array(), json_array(), json_array(), 0, 0, 0 };
    json_t *rec, *common = NULL, *seen = NULL, *suspects, *partners, *out, *e;
    char reason[1024] = "", names[512];
    size_t i;
    int narrowed = 0;

    json_array_foreach(records, i, rec) {
        const char *h = fc_placed_host(rec);

        if (h && strcmp(fc_json_str(rec, "run_id"), run_id) == 0)
            fc_add(f.placed, h);
    }
    json_array_foreach(records, i, rec)
        if (strcmp(fc_json_str(rec, "run_id"), run_id) == 0 && fc_unplaced_wrong(rec)) {
            fc_group(&f, rec);
            fc_record_sightings(&f, rec, i >= from);
        }
    /* the hosts in every sighting, and the observers of every sighting
     * whose observers are known */
    json_array_foreach(f.evidence, i, e) {
        json_t *hosts = json_object_get(e, "hosts"), *obs = json_object_get(e, "observers");
        json_t *next;

        next = common ? fc_common(common, hosts) : json_deep_copy(hosts);
        json_decref(common);
        common = next;
        if (json_array_size(obs) > 0) {
            next = seen ? fc_common(seen, obs) : json_deep_copy(obs);
            json_decref(seen);
            seen = next;
        }
    }
    if (common == NULL)
        common = json_array();
    suspects = fc_common(common, healthy);
    if (json_array_size(suspects) == json_array_size(healthy) && seen) {
        /* every host is in every group: the hosts that saw the wrong bits
         * on their own output are the suspects, the others their partners */
        json_t *by_eye = fc_common(suspects, seen);

        if (json_array_size(by_eye) > 0 && json_array_size(by_eye) < json_array_size(suspects)) {
            json_decref(suspects);
            suspects = by_eye;
            narrowed = 1;
        } else {
            json_decref(by_eye);
        }
    }
    partners = fc_partners(healthy, suspects, f.evidence, host_racks);
    if (f.sightings == 0) {
        snprintf(reason, sizeof(reason), "no wrong result waits to be placed");
    } else if (f.sightings == 1) {
        e = json_array_get(f.evidence, 0);
        snprintf(reason, sizeof(reason), "wrong bits seen once (%s stage, %s): nothing "
                 "recurs to intersect", fc_json_str(e, "stage"), fc_json_str(e, "what"));
    } else if (json_array_size(common) == 0) {
        fc_no_common_text(f.evidence, reason, sizeof(reason));
    } else if (json_array_size(suspects) == 0) {
        fc_intersect_names(common, names, sizeof(names));
        snprintf(reason, sizeof(reason), "the hosts in every group that saw wrong bits (%s) "
                 "are out of the run already", names);
    } else if (json_array_size(suspects) + json_array_size(partners) < 3) {
        fc_intersect_names(suspects, names, sizeof(names));
        snprintf(reason, sizeof(reason), "too few hosts for a retest of %s: a placement "
                 "needs two partners beside it", names);
    }
    out = json_pack("{s:b, s:s, s:o, s:o, s:b, s:i, s:i, s:i, s:o, s:o, s:o, s:o}",
                    "placeable", reason[0] == '\0', "reason", reason, "suspects", suspects,
                    "partners", partners, "narrowed", narrowed, "sightings", f.sightings,
                    "new_sightings", f.new_sightings, "explained", f.explained,
                    "common", common, "evidence", f.evidence, "groups", f.groups,
                    "host_racks", host_racks ? json_deep_copy(host_racks) : json_object());
    json_decref(seen);
    json_decref(f.placed);
    return out;
}
