/*
 * rails_map.c - unit tests of the rails' declaration (lib/fc_rails.h):
 * the profile's map parsed ("eth0, eth1" is two rails; an empty name, a
 * duplicate, a name too long or with a space, too many: refused, saying
 * which rail), rails by name order with digits as numbers (eth2 before
 * eth10; a pattern leaves lo and others out).
 */
#include <stdio.h>
#include <string.h>

#include "fc_rails.h"
#include "fc_tap.h"

int main(void)
{
    fc_tap_t tap;
    char names[FC_RAILS_MAX][FC_RAIL_NIC_MAX], why[256] = "";
    char have[6][FC_RAIL_NIC_MAX] = { "eth10", "lo", "eth2", "ib0", "eth0", "eth1" };
    char out[FC_RAILS_MAX][FC_RAIL_NIC_MAX];
    int n;

    fc_tap_init(&tap, stdout, 1);
    fc_tap_plan(&tap, 8);
    n = fc_rails_map_parse(" eth0, eth1 ,mlx5_2", names, FC_RAILS_MAX, why, sizeof(why));
    fc_tap_ok(&tap, n == 3 && strcmp(names[0], "eth0") == 0 && strcmp(names[1], "eth1") == 0 &&
                  strcmp(names[2], "mlx5_2") == 0, "a map of three rails, spaces trimmed (%d)", n);
    n = fc_rails_map_parse("eth0,,eth1", names, FC_RAILS_MAX, why, sizeof(why));
    fc_tap_ok(&tap, n == -1 && strstr(why, "rail 1 has no NIC name") != NULL,
              "an empty name is refused, naming the rail (%s)", why);
    n = fc_rails_map_parse("eth0,eth1,eth0", names, FC_RAILS_MAX, why, sizeof(why));
    fc_tap_ok(&tap, n == -1 && strcmp(why, "eth0 is rail 0 and rail 2") == 0,
              "a NIC twice is refused (%s)", why);
    n = fc_rails_map_parse("eth0,a_name_far_too_long", names, FC_RAILS_MAX, why, sizeof(why));
    fc_tap_ok(&tap, n == -1 && strstr(why, "rail 1: 'a_name_far_too_long' is longer") != NULL,
              "a name longer than an interface's is refused (%s)", why);
    n = fc_rails_map_parse("eth0,eth 1", names, FC_RAILS_MAX, why, sizeof(why));
    fc_tap_ok(&tap, n == -1 && strstr(why, "'eth 1' is not an interface name") != NULL,
              "a name with a space is refused (%s)", why);
    n = fc_rails_map_parse("a,b,c", names, 2, why, sizeof(why));
    fc_tap_ok(&tap, n == -1 && strcmp(why, "more than 2 rails") == 0, "too many rails (%s)", why);
    fc_tap_ok(&tap, fc_rails_name_cmp("eth2", "eth10") < 0 && fc_rails_name_cmp("eth10", "eth9") > 0 &&
                  fc_rails_name_cmp("eth1", "eth1") == 0 && fc_rails_name_cmp("eth", "eth0") < 0,
              "name order: digit runs as numbers (eth2 < eth10)");
    n = fc_rails_by_pattern(have, 6, "eth*", out, FC_RAILS_MAX);
    fc_tap_ok(&tap, n == 4 && strcmp(out[0], "eth0") == 0 && strcmp(out[1], "eth1") == 0 &&
                  strcmp(out[2], "eth2") == 0 && strcmp(out[3], "eth10") == 0,
              "rails by pattern eth*: eth0, eth1, eth2, eth10 (lo and ib0 left out) (%d)", n);
    return fc_tap_done(&tap);
}
