/*
 * stage_confirm.c - unit tests of the confirmation rule (lib/engine/fc_confirm_rule.c)
 * and of the sweep stages' confirmation decision (lib/stage/fc_stage_confirm.c,
 * its pure part): a rack of three racks fails the relative rule beside
 * the others, then its alone rounds are planted (slow or fast against a
 * fast control measured in the same round). Two rounds that agree decide
 * and ask for no third; two that disagree ask for a third, and the
 * majority of the three decides (slow, fast, slow is confirmed; fast,
 * slow, fast is cleared). The settled record keeps every measurement: the
 * one beside the others and each alone round with its control.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_confirm_rule.h"
#include "fc_judge.h"
#include "fc_stage_confirm.h"
#include "fc_tap.h"

static fc_tap_t tap;

/* A summary of one rack that ran: 3 nodes, 6 ranks, busbw, median time. */
static fc_point_summary_t group(const char *host, double busbw)
{
    fc_point_summary_t s;

    memset(&s, 0, sizeof(s));
    s.valid = 1;
    s.status = FC_OK;
    snprintf(s.host, sizeof(s.host), "%s", host);
    s.nhosts = 3;
    s.nranks = 6;
    s.busbw = busbw;
    s.algbw = busbw;
    s.time.median = 1e-3 / busbw;
    s.digest_ranks_agree = 1;
    s.digest_reps_agree = 1;
    s.first_bad_rank = -1;
    s.disagree_rank = -1;
    return s;
}

typedef struct settled {
    fc_point_summary_t sums[3];
    fc_judgement_t js[3];
    json_t *extra[3];
    int nrounds;
} settled_t;

/* Racks b1 (the suspect, 0.1 GB/s beside the others), a1 and c1 (1 GB/s);
 * its alone rounds follow seq ("SFS": slow, fast, slow), a1 the control,
 * as many rounds as the rule asks for (at most three); then settled. */
static void confirm(const char *seq, settled_t *o)
{
    fc_stage_profile_t sp;
    fc_test_point_t pt = { FC_COLL_ALL_REDUCE, FC_INT32, FC_OP_SUM, 65536, 1, 3, 1, 0 };
    fc_point_summary_t a[FC_CONFIRM_MAX_MEASURES], c[FC_CONFIRM_MAX_MEASURES];
    int fails[FC_CONFIRM_MAX_MEASURES];
    fc_confirm_decision_t d = FC_CONFIRM_MORE;

    memset(&sp, 0, sizeof(sp));
    sp.max_below_median_pct = 50;
    memset(o, 0, sizeof(*o));
    o->sums[0] = group("b1", 0.1);
    o->sums[1] = group("a1", 1.0);
    o->sums[2] = group("c1", 1.0);
    fc_judge_point_kind(&sp, &pt, o->sums, 3, "rack", o->js);
    while (d == FC_CONFIRM_MORE && o->nrounds < FC_CONFIRM_MAX_MEASURES) {
        int k = o->nrounds++;

        if (seq[k] == '\0')
            fc_tap_bail(&tap, "'%s': a round asked for beyond the planted ones", seq);
        a[k] = group("b1", seq[k] == 'S' ? 0.1 + 0.01 * k : 0.9 + 0.01 * k);
        a[k].valid = seq[k] != '-';
        c[k] = group("a1", 1.0);
        d = fc_stage_confirm_decide(&sp, &pt, "rack", &o->sums[0], &o->js[0], a, c, o->nrounds,
                                    fails);
    }
    fc_stage_confirm_settle(&sp, "rack", &pt, o->sums, o->js, 0, 1, a, c, o->nrounds,
                            o->extra);
}

static json_t *conf(const settled_t *o)
{
    return json_object_get(o->extra[0], "confirmation");
}

static const char *conf_str(const settled_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(conf(o), key));

    return v ? v : "";
}

static void done(settled_t *o)
{
    for (int g = 0; g < 3; ++g)
        json_decref(o->extra[g]);
}

int main(void)
{
    settled_t o;
    int ok;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 42);

    /* the rule itself */
    {
        static const struct {
            int slow[3], n;
            fc_confirm_decision_t want;
        } rule[] = {
            { { 1 }, 1, FC_CONFIRM_MORE },
            { { 1, 1 }, 2, FC_CONFIRM_SLOW },
            { { 0, 0 }, 2, FC_CONFIRM_CLEARED },
            { { 1, 0 }, 2, FC_CONFIRM_MORE },
            { { 0, 1 }, 2, FC_CONFIRM_MORE },
            { { 1, 0, 1 }, 3, FC_CONFIRM_SLOW },
            { { 0, 1, 0 }, 3, FC_CONFIRM_CLEARED },
            { { 0, 1, 1 }, 3, FC_CONFIRM_SLOW },
            { { 1, -1 }, 2, FC_CONFIRM_UNMEASURED },
            { { 1, 0, -1 }, 3, FC_CONFIRM_UNMEASURED },
        };
        ok = 1;
        for (size_t i = 0; i < sizeof(rule) / sizeof(rule[0]); ++i)
            if (fc_confirm_decide(rule[i].slow, rule[i].n) != rule[i].want) {
                fc_tap_diag(&tap, "case %zu: %d", i, fc_confirm_decide(rule[i].slow, rule[i].n));
                ok = 0;
            }
        fc_tap_ok(&tap, ok, "the rule: two that agree decide, two that disagree ask for a "
                  "third, three decide by their majority, a missing one decides nothing");
    }

    /* the suspect failed beside the others (the relative rule) */
    confirm("SS", &o);
    fc_tap_ok(&tap, o.js[0].confirmed,
              "slow twice alone: confirmed after two rounds, no third (%d rounds)", o.nrounds);
    fc_tap_is_int(&tap, o.js[0].status, FC_ERR_FAIL,
                  "slow twice alone: confirmed after two rounds, no third (%d rounds)"
                  " [o.js[0].status]", o.nrounds);
    fc_tap_is_int(&tap, o.nrounds, 2,
                  "slow twice alone: confirmed after two rounds, no third (%d rounds)"
                  " [o.nrounds]", o.nrounds);
    fc_tap_is_str(&tap, conf_str(&o, "verdict"), "confirmed",
                  "slow twice alone: confirmed after two rounds, no third (%d rounds)"
                  " [conf_str(&o, \"verdict\")]", o.nrounds);
    fc_tap_is_int(&tap, json_array_size(json_object_get(conf(&o), "rounds")), 2,
                  "slow twice alone: confirmed after two rounds, no third (%d rounds)"
                  " [json_array_size(json_object_get(conf(&o), \"rounds\"))]", o.nrounds);
    done(&o);

    confirm("FF", &o);
    fc_tap_ok(&tap, !o.js[0].confirmed,
              "fast twice alone: not reproduced after two rounds, it passes (%d rounds)",
              o.nrounds);
    fc_tap_is_int(&tap, o.js[0].status, FC_OK,
                  "fast twice alone: not reproduced after two rounds, it passes (%d rounds)"
                  " [o.js[0].status]", o.nrounds);
    fc_tap_is_int(&tap, o.nrounds, 2,
                  "fast twice alone: not reproduced after two rounds, it passes (%d rounds)"
                  " [o.nrounds]", o.nrounds);
    fc_tap_is_str(&tap, conf_str(&o, "verdict"), "not_reproduced",
                  "fast twice alone: not reproduced after two rounds, it passes (%d rounds)"
                  " [conf_str(&o, \"verdict\")]", o.nrounds);
    done(&o);

    confirm("SFS", &o);
    fc_tap_ok(&tap, o.js[0].confirmed,
              "slow, fast, slow alone: the third round decides, confirmed (%d rounds)",
              o.nrounds);
    fc_tap_is_int(&tap, o.js[0].status, FC_ERR_FAIL,
                  "slow, fast, slow alone: the third round decides, confirmed (%d rounds)"
                  " [o.js[0].status]", o.nrounds);
    fc_tap_is_int(&tap, o.nrounds, 3,
                  "slow, fast, slow alone: the third round decides, confirmed (%d rounds)"
                  " [o.nrounds]", o.nrounds);
    fc_tap_is_str(&tap, conf_str(&o, "verdict"), "confirmed",
                  "slow, fast, slow alone: the third round decides, confirmed (%d rounds)"
                  " [conf_str(&o, \"verdict\")]", o.nrounds);
    fc_tap_is_int(&tap, json_array_size(json_object_get(conf(&o), "rounds")), 3,
                  "its record keeps every measurement: beside the others, and the three alone "
                  "rounds with their controls");
    fc_tap_is_int(&tap, json_integer_value(json_object_get(conf(&o), "alone_slow")), 2,
                  "its record keeps every measurement: beside the others, and the three alone "
                  "rounds with their controls"
                  " [json_integer_value(json_object_get(conf(&o), \"alone_slow\"))]");
    fc_tap_ok(&tap, strstr(conf_str(&o, "text"), "0.100, 0.910, 0.120") != NULL &&
                  strstr(conf_str(&o, "text"), "beside the others busbw 0.100") != NULL &&
                  strstr(conf_str(&o, "text"), "slow in 2 of 3") != NULL &&
                  strstr(o.js[0].reasons[0], "confirmed alone (slow in 2 of 3") != NULL,
              "its record keeps every measurement: beside the others, and the three alone "
              "rounds with their controls [names '0.100, 0.910, 0.120', 'beside the others "
              "busbw 0.100', 'slow in 2 of 3', 'confir...]");
    fc_tap_diag(&tap, "text: %s", conf_str(&o, "text"));
    fc_tap_diag(&tap, "reason: %s", o.js[0].reasons[0]);
    done(&o);

    confirm("FSF", &o);
    fc_tap_ok(&tap, !o.js[0].confirmed,
              "fast, slow, fast alone: the third round decides, not reproduced (%d rounds)",
              o.nrounds);
    fc_tap_is_int(&tap, o.js[0].status, FC_OK,
                  "fast, slow, fast alone: the third round decides, not reproduced (%d rounds)"
                  " [o.js[0].status]", o.nrounds);
    fc_tap_is_int(&tap, o.nrounds, 3,
                  "fast, slow, fast alone: the third round decides, not reproduced (%d rounds)"
                  " [o.nrounds]", o.nrounds);
    fc_tap_is_str(&tap, conf_str(&o, "verdict"), "not_reproduced",
                  "fast, slow, fast alone: the third round decides, not reproduced (%d rounds)"
                  " [conf_str(&o, \"verdict\")]", o.nrounds);
    fc_tap_ok(&tap, strstr(conf_str(&o, "text"), "slow in 1 of 3") != NULL,
              "fast, slow, fast alone: the third round decides, not reproduced (%d rounds)"
              " [names 'slow in 1 of 3']", o.nrounds);
    done(&o);

    confirm("FSS", &o);
    fc_tap_ok(&tap, o.js[0].confirmed,
              "fast, slow, slow alone: confirmed by the majority (%d rounds)", o.nrounds);
    fc_tap_is_int(&tap, o.nrounds, 3,
                  "fast, slow, slow alone: confirmed by the majority (%d rounds)"
                  " [o.nrounds]", o.nrounds);
    done(&o);

    confirm("SFF", &o);
    fc_tap_ok(&tap, !o.js[0].confirmed,
              "slow, fast, fast alone: cleared by the majority (%d rounds)", o.nrounds);
    fc_tap_is_int(&tap, o.js[0].status, FC_OK,
                  "slow, fast, fast alone: cleared by the majority (%d rounds)"
                  " [o.js[0].status]", o.nrounds);
    fc_tap_is_int(&tap, o.nrounds, 3,
                  "slow, fast, fast alone: cleared by the majority (%d rounds)"
                  " [o.nrounds]", o.nrounds);
    done(&o);

    /* a round that could not be measured decides nothing */
    confirm("S-", &o);
    fc_tap_ok(&tap, !o.js[0].confirmed,
              "a round not measured: the failure stands, unconfirmed (nobody blamed)");
    fc_tap_is_int(&tap, o.js[0].status, FC_ERR_FAIL,
                  "a round not measured: the failure stands, unconfirmed (nobody blamed)"
                  " [o.js[0].status]");
    fc_tap_is_int(&tap, o.nrounds, 2,
                  "a round not measured: the failure stands, unconfirmed (nobody blamed)"
                  " [o.nrounds]");
    fc_tap_is_str(&tap, conf_str(&o, "verdict"), "not_measured",
                  "a round not measured: the failure stands, unconfirmed (nobody blamed)"
                  " [conf_str(&o, \"verdict\")]");
    done(&o);

    /* the control measured in the same round is the reference: a round
     * where everything was slow (the machine) does not count as slow */
    {
        fc_stage_profile_t sp;
        fc_test_point_t pt = { FC_COLL_ALL_REDUCE, FC_INT32, FC_OP_SUM, 65536, 1, 3, 1, 0 };
        fc_point_summary_t sums[3] = { group("b1", 0.1), group("a1", 1.0), group("c1", 1.0) };
        fc_point_summary_t a = group("b1", 0.1), c = group("a1", 0.15);
        fc_judgement_t js[3];

        memset(&sp, 0, sizeof(sp));
        sp.max_below_median_pct = 50;
        fc_judge_point_kind(&sp, &pt, sums, 3, "rack", js);
        fc_tap_is_int(&tap,
                      fc_stage_confirm_round(&sp, &pt, "rack", js[0].peer_median_busbw, 1,
                                             sp.max_below_median_pct, &a, &c), 0,
                      "an alone round is judged against the control of the same round");
    }

    /* the noise floor: a 1% tolerance, the control's own alone rounds
     * 1.0 and 0.7 GB/s (30% apart), the suspect 0.9 both times: a
     * tolerance under the control's spread confirms nothing; the rounds
     * are judged by 30% (both fast: not reproduced) and the record says so */
    {
        fc_stage_profile_t sp;
        fc_test_point_t pt = { FC_COLL_ALL_REDUCE, FC_INT32, FC_OP_SUM, 65536, 1, 3, 1, 0 };
        fc_point_summary_t sums[3] = { group("b1", 0.9), group("a1", 1.0), group("c1", 1.0) };
        fc_point_summary_t a[2] = { group("b1", 0.9), group("b1", 0.9) };
        fc_point_summary_t c[2] = { group("a1", 1.0), group("a1", 0.7) };
        fc_judgement_t js[3];
        json_t *extra[3] = { NULL, NULL, NULL }, *tol;
        int fails[FC_CONFIRM_MAX_MEASURES];

        memset(&sp, 0, sizeof(sp));
        sp.max_below_median_pct = 1;
        fc_judge_point_kind(&sp, &pt, sums, 3, "rack", js);
        ok = js[0].status == FC_ERR_FAIL &&
             fc_stage_confirm_decide(&sp, &pt, "rack", &sums[0], &js[0], a, c, 2, fails) ==
                 FC_CONFIRM_CLEARED;
        fc_stage_confirm_settle(&sp, "rack", &pt, sums, js, 0, 1, a, c, 2, extra);
        tol = json_object_get(json_object_get(extra[0], "confirmation"), "tolerance");
        ok &= js[0].status == FC_OK && json_is_true(json_object_get(tol, "widened")) &&
              json_number_value(json_object_get(tol, "used_pct")) > 29.9 &&
              json_number_value(json_object_get(tol, "used_pct")) < 30.1 &&
              strstr(json_string_value(json_object_get(tol, "why")), "the control's own alone "
                     "rounds spread 30%: a tolerance tighter than that cannot confirm "
                     "anything") != NULL;
        fc_tap_ok(&tap, ok, "a 1%% tolerance under the control's 30%% spread alone: judged by "
                  "30%%, not reproduced, and the record says why (%s)",
                  json_string_value(json_object_get(tol, "why")));
        for (int g = 0; g < 3; ++g)
            json_decref(extra[g]);
    }
    /* an alone round held by a host's CPU (fc_stage_confirm_held): slow,
     * a rank of the suspect waiting 25% of the run or more and 20 points
     * beyond every rank of its control */
    {
        fc_point_summary_t sus, ctl;

        memset(&sus, 0, sizeof(sus));
        memset(&ctl, 0, sizeof(ctl));
        sus.cpu_wait = 0.90;
        sus.cpu_wait_rank = 2;
        sus.time.median = 3.2e-3;           /* 8 times its control's */
        ctl.valid = 1;
        ctl.cpu_wait = 0.30;
        ctl.cpu_wait_rank = 5;
        ctl.time.median = 0.4e-3;
        fc_tap_is_int(&tap, fc_stage_confirm_held(&sus, &ctl, 1), 1,
                      "slow 8 times, a suspect's rank waited 90%% against its control's 30%%: "
                      "held (its time less the wait, 320 us, within the control's 400)");
        sus.time.median = 0.4;
        fc_tap_is_int(&tap, fc_stage_confirm_held(&sus, &ctl, 1), 0,
                      "slow 1000 times with the same wait: more than the wait explains, not "
                      "held (judged as measured)");
        sus.time.median = 3.994e-3;         /* a scheduler tick: 150 times its control's */
        sus.cpu_wait = 0.989;
        ctl.time.median = 27e-6;
        ctl.cpu_wait = 0.723;
        fc_tap_is_int(&tap, fc_stage_confirm_held(&sus, &ctl, 1), 1,
                      "a call held a scheduler tick (3,994 us against 27), 98.9%% of it waited "
                      "against 72.3%%: 44 us left, under the 0.5 ms floor: held");
        sus.time.median = 60e-3;
        fc_tap_is_int(&tap, fc_stage_confirm_held(&sus, &ctl, 1), 0,
                      "a call of 60 ms with the same share: 660 us left, past the floor and "
                      "the control's time: slow whatever the CPU did, not held");
        sus.time.median = 3.2e-3;
        sus.cpu_wait = 0.90;
        ctl.time.median = 0.4e-3;
        ctl.cpu_wait = 0.30;
        fc_tap_is_int(&tap, fc_stage_confirm_held(&sus, &ctl, 0), 0,
                      "... not slow: nothing to hold");
        ctl.cpu_wait = 0.80;
        fc_tap_is_int(&tap, fc_stage_confirm_held(&sus, &ctl, 1), 0,
                      "the control's ranks waited as long (80%%): the cores are shared alike, "
                      "not held");
        sus.cpu_wait = 0.20;
        ctl.cpu_wait = 0;
        fc_tap_is_int(&tap, fc_stage_confirm_held(&sus, &ctl, 1), 0,
                      "a 20%% wait: below the rule's 25%%, not held");
        sus.cpu_wait = 0.60;
        fc_tap_is_int(&tap, fc_stage_confirm_held(&sus, NULL, 1), 0,
                      "no control: 60%% against nothing says nothing (ranks that outnumber "
                      "their cores wait for each other), not held");
        sus.cpu_wait = -1;
        fc_tap_is_int(&tap, fc_stage_confirm_held(&sus, NULL, 1), 0,
                      "a wait not known: not held (the round stands)");
    }
    return fc_tap_done(&tap);
}
