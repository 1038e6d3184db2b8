/*
 * rails_rule.c - unit tests of the rail rule (lib/rails/fc_rails_judge.c,
 * fc_rails_rule) on synthetic rails of 2 racks x 2 nodes, the pairs'
 * figures wandering by +-30% (a busy machine): clean rails are not slow;
 * one rail's pairs across the spine 100 times slower make that rail slow
 * across the spine (not inside racks, not the other rail), with a pair
 * across the spine chosen to confirm it; one NIC 100 times slower (half
 * the pairs across the spine of its rail) does not make its rail slow
 * (the upper median); a rail whose every pair is slow is slow in both
 * kinds; without a relative rule nothing is compared. And whether the
 * rail's NICs explain a slow rail: two NICs of rail 1 in different racks
 * 100 times slower make rail 1 slow (5 of its 6 pairs) yet are named, not
 * the rail (its one fast pair crosses both leaves and the spine; the rule
 * blamed rail 1's leaf switches before); the uplinks' case stays the
 * rail's; a slow NIC alone in its rack is named beside the rail, the two
 * not told apart. NICs the transport could not drive (rails.count above
 * the NICs present: every pair of rail 2 measured nothing) do not make
 * their rail slow (its leaf switches were blamed).
 */
#include <stdio.h>
#include <string.h>

#include "fc_rails_stage.h"
#include "fc_tap.h"

#define N 4
#define R 3

typedef struct bed {
    fc_stage_ctx_t ctx;
    fc_rails_run_t rr;
    fc_pairs_run_t rails[R];
    char racks[2][FC_INV_NAME_MAX];
    char hosts[R][N][FC_HOST_MAX];
    int node_racks[N];
    fc_pair_t pairs[R][N * N];
    fc_rail_class_t classes[R * 2];
} bed_t;

static void bed_make(bed_t *b, int nrails, double pct)
{
    unsigned seed = 4242;

    memset(b, 0, sizeof(*b));
    b->ctx.sp.max_below_median_pct = pct;
    b->ctx.sp.nsizes = 1;
    b->ctx.sp.sizes[0] = 256 << 10;
    b->ctx.inv.nracks = 2;
    b->ctx.inv.racks = b->racks;
    snprintf(b->racks[0], sizeof(b->racks[0]), "rack1");
    snprintf(b->racks[1], sizeof(b->racks[1]), "rack2");
    for (int v = 0; v < N; ++v)
        b->node_racks[v] = v / 2;
    b->rr.ctx = &b->ctx;
    b->rr.nrails = nrails;
    b->rr.nnodes = N;
    b->rr.rails = b->rails;
    b->rr.classes = b->classes;
    for (int r = 0; r < nrails; ++r) {
        fc_pairs_run_t *run = &b->rails[r];

        run->ctx = &b->ctx;
        run->nnodes = N;
        run->node_hosts = b->hosts[r];
        run->node_racks = b->node_racks;
        run->pairs = b->pairs[r];
        for (int v = 0; v < N; ++v)
            snprintf(b->hosts[r][v], FC_HOST_MAX, "n%d:eth%d", v + 1, r);
        for (int x = 0; x < N; ++x)
            for (int y = x + 1; y < N; ++y) {
                fc_pair_t *p = &run->pairs[run->npairs++];

                seed = seed * 1103515245u + 12345u;
                p->a = x;
                p->b = y;
                p->bad_node = -1;
                p->bw_gbps = 1.0 * (0.7 + 0.6 * (double)((seed >> 16) % 1000) / 1000.0);
            }
    }
}

/* Scale rail r's pairs: kind 0 inside a rack, 1 across, 2 both; node v
 * only (touching it), or every pair (v < 0). */
static void bed_slow(bed_t *b, int r, int kind, int v, double factor)
{
    fc_pairs_run_t *run = &b->rails[r];

    for (int q = 0; q < run->npairs; ++q) {
        fc_pair_t *p = &run->pairs[q];
        int across = b->node_racks[p->a] != b->node_racks[p->b];

        if ((kind == 2 || across == kind) && (v < 0 || p->a == v || p->b == v))
            p->bw_gbps /= factor;
    }
}

static const fc_rail_class_t *cls(const bed_t *b, int r, int kind)
{
    return &b->classes[r * 2 + kind];
}

int main(void)
{
    fc_tap_t tap;
    static bed_t b;
    int slow = 0;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 44);

    bed_make(&b, 3, 60);
    fc_rails_rule(&b.rr);
    for (int c = 0; c < 3 * 2; ++c)
        slow += b.classes[c].slow;
    fc_tap_is_int(&tap, slow, 0,
                  "three clean rails (+-30%%): none slow; 4 pairs across the spine, 2 inside "
                  "racks");
    fc_tap_is_int(&tap, cls(&b, 0, 1)->members, 4,
                  "three clean rails (+-30%%): none slow; 4 pairs across the spine, 2 inside racks"
                  " [cls(&b, 0, 1)->members]");
    fc_tap_is_int(&tap, cls(&b, 0, 0)->members, 2,
                  "three clean rails (+-30%%): none slow; 4 pairs across the spine, 2 inside racks"
                  " [cls(&b, 0, 0)->members]");

    bed_make(&b, 2, 60);
    bed_slow(&b, 1, 1, -1, 100);
    fc_rails_rule(&b.rr);
    fc_tap_ok(&tap, cls(&b, 1, 1)->slow,
              "rail 1's uplinks 100x slow: rail 1 slow across the spine (against rail 0), "
              "not inside racks; rail 0 not slow");
    fc_tap_is_int(&tap, cls(&b, 1, 0)->slow, 0, "... rail 1 not slow inside racks");
    fc_tap_is_int(&tap, cls(&b, 0, 1)->slow, 0, "... rail 0 not slow across the spine");
    fc_tap_is_int(&tap, cls(&b, 0, 0)->slow, 0, "... nor inside racks");
    fc_tap_is_int(&tap, cls(&b, 1, 1)->ref_rail, 0,
                  "rail 1's uplinks 100x slow: rail 1 slow across the spine (against rail 0), "
                  "not inside racks; rail 0 not slow"
                  " [cls(&b, 1, 1)->ref_rail]");
    fc_tap_ok(&tap, cls(&b, 1, 1)->pa >= 0, "a pair is chosen to confirm it alone (n%d, n%d)",
              cls(&b, 1, 1)->pa + 1, cls(&b, 1, 1)->pb + 1);
    fc_tap_ok(&tap, cls(&b, 1, 1)->pa >= 0 && b.node_racks[cls(&b, 1, 1)->pa] !=
                  b.node_racks[cls(&b, 1, 1)->pb],
              "... across the spine");

    /* the same, every NIC of the reference rail blamed by its own
     * confirmation: no pair may speak for rail 1 against it (measured
     * there, a dead reference would clear any pair) */
    {
        int blamed[N] = { 1, 1, 1, 1 };

        bed_make(&b, 2, 60);
        bed_slow(&b, 1, 1, -1, 100);
        b.rails[0].confirmed = 1;
        b.rails[0].confirm.link = blamed;
        fc_rails_rule(&b.rr);
        fc_tap_is_int(&tap, cls(&b, 1, 1)->pa, -1, "rail 1 slow, every NIC of the reference "
                      "rail blamed: no pair chosen to confirm it (left unmeasured)");
        b.rails[0].confirmed = 0;
        b.rails[0].confirm.link = NULL;
    }

    /* rule 6's reading of a rails measurement: each direction's sender
     * side with its receiver's waits joined */
    {
        fc_rail_side_t x, y, jx, jy;

        memset(&x, 0, sizeof(x));
        x.side.median_s = 0.010;
        x.side.cpu_wait = 0.02;             /* x waited 2% while sending */
        x.side.free_median_s = 0.0098;
        x.side.calm = 0x1f;                 /* 5 calm sends */
        x.recv_wait = 0.01;
        x.recv_calm = 0x1f;
        y = x;
        y.side.node = 1;
        y.side.partner = 0;
        x.side.partner = 1;
        y.recv_wait = 0.60;                 /* y held while it received x's */
        y.recv_calm = 0x03;                 /* calm in 2 of them */
        fc_rails_sides_joined(&x, &y, &jx, &jy);
        fc_tap_is_double(&tap, jx.side.cpu_wait, 0.60, 1e-12,
                         "x's sends, y held while receiving them: the receiver's share speaks");
        fc_tap_is_double(&tap, jx.side.free_median_s, 0.004, 1e-12,
                         "... and its time without waits is estimated from that share");
        fc_tap_is_int(&tap, jx.wait_node, 1, "... and the host whose CPU held it is y's");
        fc_tap_is_int(&tap, (int)jx.side.calm, 0x03, "... calm only where both were");
        fc_tap_is_double(&tap, jy.side.cpu_wait, 0.02, 1e-12,
                         "y's sends, x received calmly: y's own share, its own figure");
        x.recv_wait = -1;
        fc_rails_sides_joined(&x, &y, &jx, &jy);
        fc_tap_is_double(&tap, jy.side.cpu_wait, -1, 0, "a receiver that could not say: that "
                         "direction's waits unknown (-1)");
        fc_tap_is_int(&tap, (long long)jy.side.calm, 0, "... none of its sends calm");
        fc_tap_is_double(&tap, jx.side.cpu_wait, 0.60, 0, "... the other's still known");
    }

    bed_make(&b, 2, 60);
    bed_slow(&b, 1, 2, 1, 100);
    fc_rails_rule(&b.rr);
    fc_tap_is_int(&tap, cls(&b, 1, 1)->slow, 0,
                  "one NIC 100x slow (2 of rail 1's 4 pairs across, 1 of its 2 inside): the "
                  "upper median keeps rail 1 from being slow (%.3g against %.3g GB/s across)",
                  cls(&b, 1, 1)->median, cls(&b, 1, 1)->ref);
    fc_tap_is_int(&tap, cls(&b, 1, 0)->slow, 0, "... nor inside racks");

    bed_make(&b, 2, 60);
    bed_slow(&b, 0, 2, -1, 100);
    fc_rails_rule(&b.rr);
    fc_tap_ok(&tap, cls(&b, 0, 1)->slow, "every pair of rail 0 slow: slow across the spine");
    fc_tap_ok(&tap, cls(&b, 0, 0)->slow, "... and inside racks, against rail 1");
    fc_tap_is_int(&tap, cls(&b, 0, 0)->ref_rail, 1,
                  "every pair of rail 0 slow: slow in both kinds, against rail 1"
                  " [cls(&b, 0, 0)->ref_rail]");

    bed_make(&b, 2, -1);
    bed_slow(&b, 1, 1, -1, 100);
    fc_rails_rule(&b.rr);
    fc_tap_is_int(&tap, cls(&b, 1, 1)->slow, 0, "no relative rule in the profile: no rail slow");
    fc_tap_is_int(&tap, cls(&b, 1, 1)->ref_rail, -1, "... none compared with another (-1)");

    bed_make(&b, 2, 60);
    bed_slow(&b, 1, 2, 0, 100);
    bed_slow(&b, 1, 2, 2, 100);
    fc_rails_rule(&b.rr);
    {
        const unsigned char *sus = &b.rr.suspect[1 * N];

        fc_tap_ok(&tap, cls(&b, 1, 0)->slow,
                  "n1's and n3's eth1 100x slow: rail 1 slow, explained by those 2 NICs "
                  "(suspects %d%d%d%d), n2 <-> n4 fast (%.3g GB/s), not the rail", sus[0], sus[1],
                  sus[2], sus[3], cls(&b, 1, 0)->fast_bw);
        fc_tap_is_int(&tap, cls(&b, 1, 0)->explained, 1,
                      "n1's and n3's eth1 100x slow: rail 1 slow, explained by those 2 NICs "
                      "(suspects %d%d%d%d), n2 <-> n4 fast (%.3g GB/s), not the rail"
                      " [cls(&b, 1, 0)->explained]", sus[0], sus[1], sus[2], sus[3],
                      cls(&b, 1, 0)->fast_bw);
        fc_tap_is_int(&tap, cls(&b, 1, 1)->explained, 1,
                      "n1's and n3's eth1 100x slow: rail 1 slow, explained by those 2 NICs "
                      "(suspects %d%d%d%d), n2 <-> n4 fast (%.3g GB/s), not the rail"
                      " [cls(&b, 1, 1)->explained]", sus[0], sus[1], sus[2], sus[3],
                      cls(&b, 1, 0)->fast_bw);
        fc_tap_ok(&tap, sus[0], "... n1's eth1 a suspect");
        fc_tap_is_int(&tap, sus[1], 0, "... n2's not");
        fc_tap_ok(&tap, sus[2], "... n3's a suspect");
        fc_tap_is_int(&tap, sus[3], 0, "... n4's not");
        fc_tap_is_int(&tap, cls(&b, 1, 0)->fa, 1,
                      "n1's and n3's eth1 100x slow: rail 1 slow, explained by those 2 NICs "
                      "(suspects %d%d%d%d), n2 <-> n4 fast (%.3g GB/s), not the rail"
                      " [cls(&b, 1, 0)->fa]", sus[0], sus[1], sus[2], sus[3],
                      cls(&b, 1, 0)->fast_bw);
        fc_tap_is_int(&tap, cls(&b, 1, 0)->fb, 3,
                      "n1's and n3's eth1 100x slow: rail 1 slow, explained by those 2 NICs "
                      "(suspects %d%d%d%d), n2 <-> n4 fast (%.3g GB/s), not the rail"
                      " [cls(&b, 1, 0)->fb]", sus[0], sus[1], sus[2], sus[3],
                      cls(&b, 1, 0)->fast_bw);
    }
    bed_make(&b, 2, 60);
    bed_slow(&b, 1, 1, -1, 100);
    fc_rails_rule(&b.rr);
    fc_tap_ok(&tap, cls(&b, 1, 1)->slow,
              "rail 1's uplinks 100x slow: no NIC explains it (each has a fast partner in its "
              "rack): still the rail's");
    fc_tap_is_int(&tap, cls(&b, 1, 1)->explained, 0,
                  "rail 1's uplinks 100x slow: no NIC explains it (each has a fast partner in its "
                  "rack): still the rail's"
                  " [cls(&b, 1, 1)->explained]");
    bed_make(&b, 2, 60);
    b.node_racks[2] = 0;    /* racks of 3 and 1 nodes: n4 alone in rack2 */
    for (int r = 0; r < 2; ++r)
        for (int q = 0; q < b.rails[r].npairs; ++q)
            b.rails[r].pairs[q].bw_gbps = 1.0;
    bed_slow(&b, 1, 2, 3, 100);
    fc_rails_rule(&b.rr);
    fc_tap_ok(&tap, cls(&b, 1, 1)->slow,
              "n4's eth1 slow, n4 alone in its rack: rail 1 slow across the spine, n4's eth1 "
              "named beside it (the two cannot be told apart)");
    fc_tap_is_int(&tap, cls(&b, 1, 1)->explained, 2,
                  "n4's eth1 slow, n4 alone in its rack: rail 1 slow across the spine, n4's eth1 "
                  "named beside it (the two cannot be told apart)"
                  " [cls(&b, 1, 1)->explained]");
    fc_tap_ok(&tap, b.rr.suspect[1 * N + 3], "... n4's eth1 a suspect");
    fc_tap_is_int(&tap, b.rr.suspect[1 * N + 0], 0, "... n1's not");
    bed_make(&b, 3, 60);
    {
        static unsigned char undriven[R * N];

        bed_slow(&b, 2, 2, -1, 1e12);   /* no bandwidth: the transport failed */
        for (int v = 0; v < N; ++v)
            undriven[2 * N + v] = 1;
        b.rr.undriven = undriven;
        fc_rails_rule(&b.rr);
        b.rr.undriven = NULL;
    }
    fc_tap_is_int(&tap, cls(&b, 2, 0)->slow, 0,
                  "rail 2's NICs not driven (none found): their pairs judge nothing, rail 2 not "
                  "slow inside racks (%d pairs compared)", cls(&b, 2, 0)->members);
    fc_tap_is_int(&tap, cls(&b, 2, 1)->slow, 0, "... nor across the spine (%d pairs compared)",
                  cls(&b, 2, 1)->members);
    fc_tap_is_int(&tap, cls(&b, 2, 0)->members, 0,
                  "rail 2's NICs not driven (none found): their pairs judge nothing, rail 2 not "
                  "slow (%d pairs compared)"
                  " [cls(&b, 2, 0)->members]", cls(&b, 2, 0)->members);
    return fc_tap_done(&tap);
}
