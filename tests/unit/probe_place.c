/*
 * probe_place.c - unit tests of which hosts the runner's point-to-point
 * probe places (runners/fc_probe.c, fc_probe_silent_hosts): the probe's
 * answers built by hand, one rank per host, each host hearing the ranks a
 * matrix of arrived exchanges says. Cases:
 *   - every exchange arrived: nobody;
 *   - a host answering no partner: it alone; two of six: both; one of 65
 *     (no search over sets of hosts: a cluster of any size); one beside
 *     a stray lost exchange between two others: it alone;
 *   - a host whose link still carries a message or two (one partner of
 *     three hears it, it hears none), as a 10 kbit/s link did on the
 *     virtual cluster: it alone, said with what it heard and was heard by;
 *     the same one way only (heard by one, hearing all; hearing one,
 *     heard by all): it alone;
 *   - a healthy host whose answer is missing (its rank killed before it
 *     printed), every partner having heard it: nobody; beside a dead one:
 *     the dead one alone;
 *   - one exchange lost, or two between two hosts: nobody (either end);
 *   - a host whose sends to two of five partners were lost: nobody;
 *   - two hosts each failing with another partner: nobody; every host
 *     failing every exchange: nobody; two of four hosts cut off one way:
 *     nobody (too few left to vouch for the fabric);
 *   - one answer of three, missing one message: nobody; a nearly dead
 *     host beside a missing answer (unknown, not failed): it alone;
 *   - two hosts talking only to each other (a rack behind a dead uplink,
 *     or the rest behind theirs): nobody, said;
 *   - an answer naming its host otherwise than the list: the launcher's
 *     order places it, nobody is placed;
 *   - two hosts: the probe cannot place (NULL); three all silent: nobody.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc_probe.h"
#include "fc_tap.h"

static fc_tap_t tap;

/* The probe's record for n hosts h0..h(n-1): arrived[s][r] (a string per
 * sender, '1' where r heard s) gives each answer's "heard" list; a rank
 * listed in `dead` ("2,4") gave no answer. */
static json_t *probe_of(int n, const char *const *arrived, const char *dead)
{
    json_t *p = json_object(), *hosts = json_array(), *answers = json_array();
    char name[16], key[8];

    for (int h = 0; h < n; ++h) {
        snprintf(name, sizeof(name), "h%d", h);
        json_array_append_new(hosts, json_string(name));
    }
    for (int r = 0; r < n; ++r) {
        json_t *heard = json_array();

        snprintf(key, sizeof(key), "%d", r);
        if (dead && strstr(dead, key)) {
            json_decref(heard);
            continue;
        }
        for (int s = 0; s < n; ++s)
            if (s != r && arrived[s][r] == '1')
                json_array_append_new(heard, json_integer(s));
        snprintf(name, sizeof(name), "h%d", r);
        json_array_append_new(answers, json_pack("{s:i, s:s, s:o, s:[], s:[]}", "rank", r, "host",
                                                 name, "heard", heard, "wrong", "sent"));
    }
    json_object_set_new(p, "hosts", hosts);
    json_object_set_new(p, "answers", answers);
    return p;
}

/* The hosts placed, "h1,h3", "" for none, "NULL" when it cannot place. */
static const char *placed(int n, const char *const *arrived, const char *dead, char *summary,
                          size_t len)
{
    static char out[128];
    json_t *p = probe_of(n, arrived, dead), *got = fc_probe_silent_hosts(p, summary, len), *h;
    size_t i;

    out[0] = '\0';
    if (got == NULL)
        snprintf(out, sizeof(out), "NULL");
    json_array_foreach(got, i, h)
        snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? "," : "",
                 json_string_value(h));
    json_decref(got);
    json_decref(p);
    return out;
}

int main(void)
{
    char summary[512], text[160];
    json_t *p;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 28);

    {
        const char *all[] = { "-111", "1-11", "11-1", "111-" };

        fc_tap_is_str(&tap, placed(4, all, NULL, summary, sizeof(summary)), "",
                      "every exchange arrived: nobody placed");
        fc_tap_is_str(&tap, summary, "4 host(s), 12 of 12 directed exchanges arrived intact, "
                      "4 answer(s) of 4", "and the summary counts them");
    }
    {
        /* h2 hears nobody and nobody hears it */
        const char *cut[] = { "-101", "1-01", "00-0", "110-" };

        fc_tap_is_str(&tap, placed(4, cut, NULL, summary, sizeof(summary)), "h2",
                      "a host answering no partner: it alone");
        p = probe_of(4, cut, NULL);
        fc_probe_host_text(p, "h2", text, sizeof(text));
        fc_tap_is_str(&tap, text, "answering no partner (3 of them said so)", "said so");
        json_decref(p);
    }
    {
        /* the 10 kbit/s link as the virtual cluster showed it: h2 heard by h0
         * alone, hearing nobody; every other exchange arrived */
        const char *crawl[] = { "-101", "1-01", "10-0", "110-" };

        fc_tap_is_str(&tap, placed(4, crawl, NULL, summary, sizeof(summary)), "h2",
                      "a nearly dead link (one partner of three hears it): it alone");
        fc_tap_ok(&tap, strstr(summary, "7 of 12 directed exchanges arrived intact") &&
                            strstr(summary, "1 host(s) cut off one way or both, every other "
                                            "pair talking"),
                  "the summary says every failure was its own: %s", summary);
        p = probe_of(4, crawl, NULL);
        fc_probe_host_text(p, "h2", text, sizeof(text));
        fc_tap_is_str(&tap, text, "heard by 1 of the 3 partners that answered and hearing 0 of 3",
                      "and what it heard and was heard by");
        json_decref(p);
    }
    {
        /* rank 3's answer is missing (killed before it printed); what it
         * sent arrived everywhere: a healthy host, not placed */
        const char *all[] = { "-111", "1-11", "11-1", "111-" };
        /* the same beside h1 answering no partner */
        const char *dead1[] = { "-011", "0-00", "10-1", "101-" };

        fc_tap_is_str(&tap, placed(4, all, "3", summary, sizeof(summary)), "",
                      "a host whose answer is missing, though every partner heard it: nobody");
        fc_tap_is_str(&tap, placed(4, dead1, "3", summary, sizeof(summary)), "h1",
                      "the same beside a host answering no partner: that one alone");
    }
    {
        /* one way only: h2's sends lost but to h0 (it hears everyone) */
        const char *egress[] = { "-111", "1-11", "10-0", "111-" };
        /* h2 hears only h0, everyone hears it */
        const char *ingress[] = { "-111", "1-01", "11-1", "110-" };

        fc_tap_is_str(&tap, placed(4, egress, NULL, summary, sizeof(summary)), "h2",
                      "a link nearly dead one way (heard by one partner of three): it alone");
        fc_tap_is_str(&tap, placed(4, ingress, NULL, summary, sizeof(summary)), "h2",
                      "the other way (it hears one partner of three): it alone");
    }
    {
        /* 65 hosts, h0 answering nobody */
        static char rows[65][66];
        const char *big[65];

        for (int a = 0; a < 65; ++a) {
            for (int b = 0; b < 65; ++b)
                rows[a][b] = a == b ? '-' : a == 0 || b == 0 ? '0' : '1';
            rows[a][65] = '\0';
            big[a] = rows[a];
        }
        fc_tap_is_str(&tap, placed(65, big, NULL, summary, sizeof(summary)), "h0",
                      "a host answering no partner among 65: it alone");
    }
    {
        /* h0 answering nobody, and h1's message to h2 lost */
        const char *stray[] = { "-0000", "0-011", "01-11", "011-1", "0111-" };

        fc_tap_is_str(&tap, placed(5, stray, NULL, summary, sizeof(summary)), "h0",
                      "a host answering nobody beside a stray lost exchange: it alone");
    }
    {
        /* h1 and h4 answer nobody, of six */
        const char *two6[] = { "-01101", "0-0000", "10-101", "101-01", "0000-0", "10110-" };

        fc_tap_is_str(&tap, placed(6, two6, NULL, summary, sizeof(summary)), "h1,h4",
                      "two hosts of six answering nobody: both");
    }
    {
        /* one exchange lost, h0 to h1 */
        const char *one[] = { "-011", "1-11", "11-1", "111-" };
        /* both ways between h0 and h1 */
        const char *pair[] = { "-011", "0-11", "11-1", "111-" };

        fc_tap_is_str(&tap, placed(4, one, NULL, summary, sizeof(summary)), "",
                      "one exchange lost: nobody (either end could be)");
        fc_tap_ok(&tap, strstr(summary, "single out no host") != NULL, "said so: %s", summary);
        fc_tap_is_str(&tap, placed(4, pair, NULL, summary, sizeof(summary)), "",
                      "both ways between two hosts: nobody");
    }
    {
        /* what h0 sent to h1 and h2 lost: every failure is h0's, but 3 of 5
         * partners heard it */
        const char *few[] = { "-00111", "1-1111", "11-111", "111-11", "1111-1", "11111-" };
        /* h0 heard by h1 alone, h1 heard by h0 alone: two of four cut off */
        const char *half[] = { "-100", "1-00", "11-1", "111-" };

        fc_tap_is_str(&tap, placed(6, few, NULL, summary, sizeof(summary)), "",
                      "every failure one host's, but 3 of its 5 partners heard it: nobody");
        fc_tap_is_str(&tap, placed(4, half, NULL, summary, sizeof(summary)), "",
                      "two of four hosts cut off one way: nobody (two left cannot vouch)");
    }
    {
        /* h0 to h1 and h2 to h3 lost: no one host in both */
        const char *apart[] = { "-0111", "1-111", "11-01", "111-1", "1111-" };
        const char *none[] = { "-000", "0-00", "00-0", "000-" };

        fc_tap_is_str(&tap, placed(5, apart, NULL, summary, sizeof(summary)), "",
                      "failures with no host in common: nobody");
        fc_tap_is_str(&tap, placed(4, none, NULL, summary, sizeof(summary)), "",
                      "every host failing every exchange: nobody");
    }
    {
        /* only h0 answered, and it missed h2's message: one word against h2 */
        const char *lone[] = { "-11", "1-1", "01-" };
        /* h5 nearly dead (heard by h0 alone, hearing nobody), and h1's answer
         * missing (what h1 heard is not known, not failed) */
        const char *crawl6[] = { "-11110", "1-1110", "11-110", "111-10", "1111-0", "10000-" };
        /* h0 and h1 hear each other and nobody else: a rack of two behind a
         * dead uplink, or the other four behind theirs */
        const char *split[] = { "-10000", "1-0000", "00-111", "001-11", "0011-1", "00111-" };

        fc_tap_is_str(&tap, placed(3, lone, "1,2", summary, sizeof(summary)), "",
                      "one answer of three, missing one message: nobody");
        fc_tap_is_str(&tap, placed(6, crawl6, "1", summary, sizeof(summary)), "h5",
                      "a nearly dead host beside a missing answer: it alone");
        fc_tap_is_str(&tap, placed(6, split, NULL, summary, sizeof(summary)), "",
                      "two hosts talking only to each other: nobody (which side is cut off?)");
        fc_tap_ok(&tap, strstr(summary, "cut off together") != NULL, "said so: %s", summary);
    }
    {
        /* h3's answer names its host otherwise than the host list
         * (h3.cluster): the launcher's order places that rank */
        const char *all[] = { "-111", "1-11", "11-1", "111-" };
        char host3[] = "h3.cluster";

        p = probe_of(4, all, NULL);
        json_object_set_new(json_array_get(json_object_get(p, "answers"), 3), "host",
                            json_string(host3));
        {
            json_t *got = fc_probe_silent_hosts(p, summary, sizeof(summary));

            fc_tap_is_int(&tap, (long long)json_array_size(got), 0,
                          "an answer naming its host otherwise: nobody placed (%s)", summary);
            json_decref(got);
        }
        json_decref(p);
    }
    {
        const char *pair[] = { "-0", "0-" };
        const char *three[] = { "-00", "0-0", "00-" };

        fc_tap_is_str(&tap, placed(2, pair, NULL, summary, sizeof(summary)), "NULL",
                      "two hosts: the probe cannot place");
        fc_tap_is_str(&tap, placed(3, three, NULL, summary, sizeof(summary)), "",
                      "three hosts all silent: nobody");
    }
    return fc_tap_done(&tap);
}
