#!/bin/bash
# uneven_racks.t - relative rules compare like with like, on a virtual
# cluster of racks of 5, 3 and 1 nodes (tests/e2e/uneven_plan.sh), clean
# runs (the same rules against planted faults: uneven_faults.t). Shows:
#   - at --ppn 1 and at --ppn 2 a clean cluster PASSes every rack: the
#     one-node rack is not failed for being unlike the others, and a
#     one-rank group (bus factor 0) is compared by algbw with the groups of
#     its shape (none for the one-node rack: judged on time only) where
#     its call copies data, never for a broadcast (it moves nothing);
#   - each record says how the relative rule met it: the class it was
#     compared with ("the median of the other 8 nodes of 1 node x 2 ranks (intra-node)",
#     "23 pairs across the spine"), or that it could not apply and why
#     ("no peer of its shape", "the bus factor ... is 0"), also in the
#     certificate; a pair inside a rack also says how the same-rack rule
#     (its rack's pairs against those inside the other racks) met it;
#   - FC_E2E_REPEAT=N runs each clean plan N more times (figures: runs
#     that PASS every rack, seconds each); off by default.
# To keep the cost down (9 nodes on a 2-core machine) each run has only
# the stages where groups of different shapes meet: node, pairs and rack
# at --ppn 1; node and rack at --ppn 2 (pairs take one rank per node
# whatever --ppn is). The cluster stage is one group (nothing to compare),
# preflight, contention and soak have no relative rule. The pairs'
# relative limit is 95% (a veth pair on 9 namespaces sharing 2 cores
# wanders up to 5 times; a shaped link is 99% below).
# lane: serial (clean runs judged by relative rules: failed 8 of 24 points beside neighbours)
. tests/e2e/tap.sh
. tests/e2e/uneven_plan.sh
uneven_plan_up fcu
repeat=${FC_E2E_REPEAT:-0}
plan $(( 11 + ( repeat > 0 ? 2 : 0 ) ))


# 1. clean, one rank per node: every rack and node group is unlike its
#    neighbours in some stage
run clean1 1 node,pairs,rack
rc=$?
racks_are clean1 PASS PASS PASS
ok $(( rc != 0 || $? != 0 )) "--ppn 1: a clean cluster of racks of 5, 3 and 1 nodes passes every rack ($rc)"
[ $rc -eq 0 ] || why "$(grep -E 'FAIL|INCOMPLETE' "$TMP/clean1.out" | head -5)"
n=$(rec clean1 'scalar grep { $_->{type} eq "point" && $_->{stage} eq "rack" && $_->{group} eq "rack3" &&
    $_->{collective} eq "all_reduce" && $_->{busbw_gbps} == 0 && $_->{verdict} eq "PASS" &&
    grep { /relative rule not applied: no peer of its shape: the only rack of 1 node x 1 rank/ } @{$_->{rules_not_applied}} } @r')
is "$n" 1 "the one-rank rack's all_reduce (busbw 0, algbw compared) has no peer of its shape, and says so ($n)"
n=$(rec clean1 'scalar grep { $_->{type} eq "point" && $_->{stage} eq "rack" && $_->{group} eq "rack1" &&
    $_->{collective} eq "all_gather" && !$_->{relative} &&
    grep { /no peer of its shape: the only rack of 5 nodes x 5 ranks \(network\)/ } @{$_->{rules_not_applied}} } @r')
is "$n" 1 "the 5-node rack has no peer of its shape: judged on the absolute limits alone, and says so ($n)"
n=$(rec clean1 'my %c; for my $p (grep { $_->{type} eq "pair" && "$_->{host_a} $_->{host_b}" =~ /'$H2'/ } @r) {
    $c{$_->{relative}{class} // "none"}++ for @{$p->{sizes}} } join ",", sort keys %c')
[[ "$n" == *"13 pairs in the same rack"* && "$n" == *"23 pairs across the spine"* ]]
ok $? "pairs are compared with pairs of their path: 13 in the same rack, 23 across the spine"
[ $? -eq 0 ] || why "classes of $H2's pairs: $n"
n=$(rec clean1 'my @s = map { my $p = $_; map { [$p->{rack_a}, $_->{same_rack_rule} || {}] } @{$p->{sizes}} }
        grep { $_->{type} eq "pair" && $_->{rack_a} eq $_->{rack_b} } @r;
    my $a = grep { $_->[0] eq "rack1" && ($_->[1]{class} // "") eq "upper median of the 3 pairs inside rack rack2" &&
        defined $_->[1]{rack_slow} && !$_->[1]{rack_slow} } @s;
    my $b = grep { $_->[0] eq "rack2" && ($_->[1]{class} // "") eq "upper median of the 10 pairs inside rack rack1" &&
        defined $_->[1]{rack_slow} && !$_->[1]{rack_slow} } @s;
    "$a+$b of " . scalar @s')
is "$n" "10+3 of 13" "the same-rack rule: rack1's 10 pairs inside are judged against rack2's 3, and rack2's against rack1's (neither rack slow), and the records say so"
n=$(rec clean1 'scalar grep { $_->{type} eq "point" && $_->{stage} eq "node" && $_->{ranks} == 1 &&
    $_->{collective} ne "broadcast" &&
    $_->{verdict} eq "PASS" && ($_->{relative}{figure} // "") eq "algbw" &&
    $_->{relative}{class} =~ /the median of the other 8 nodes of 1 node x 1 rank/ } @r')
is "$n" 18 "every all_reduce and all_gather of the one-rank node checks (a copy) is compared by algbw with the other 8 nodes, and says so ($n of 18)"
n=$(rec clean1 'scalar grep { $_->{type} eq "point" && $_->{ranks} == 1 && $_->{collective} eq "broadcast" &&
    $_->{verdict} eq "PASS" && !$_->{relative} &&
    grep { /relative rule not applied: broadcast moves nothing on one rank/ } @{$_->{rules_not_applied}} } @r')
is "$n" 10 "a one-rank broadcast (9 nodes, the one-node rack) moves nothing and is never compared, and says so ($n of 10)"
perl -MJSON::PP -e 'local $/; my $c = decode_json(<>)->{certificate};
    my @f = map { @{$_->{figures} || []} } @{$c->{stages} || []};
    exit !(grep { ref $_->{rules_not_applied} && grep { /no peer of its shape/ } @{$_->{rules_not_applied}} } @f)' \
    "$TMP/clean1/certificates/rack1.json" 2> /dev/null
ok $? "the certificate shows the rule that could not judge the rack"

# 2. clean, two ranks per node: the node checks now have a class of 9
run clean2 2 node,rack
rc=$?
racks_are clean2 PASS PASS PASS
ok $(( rc != 0 || $? != 0 )) "--ppn 2: the clean cluster passes every rack ($rc)"
[ $rc -eq 0 ] || why "$(grep -E 'FAIL|INCOMPLETE' "$TMP/clean2.out" | head -5)"
n=$(rec clean2 'scalar grep { $_->{type} eq "point" && $_->{stage} eq "node" && $_->{collective} eq "all_reduce" &&
    ($_->{relative}{class} // "") eq "the median of the other 8 nodes of 1 node x 2 ranks (intra-node)" } @r')
is "$n" 9 "each node is compared with the median of the other 8 nodes of its shape, and the record says so ($n)"
n=$(rec clean2 'scalar grep { $_->{type} eq "point" && $_->{stage} eq "rack" && $_->{group} eq "rack3" &&
    $_->{collective} eq "all_reduce" && $_->{verdict} eq "PASS" && $_->{busbw_gbps} > 0 &&
    grep { /the only rack of 1 node x 2 ranks \(intra-node\)/ } @{$_->{rules_not_applied}} } @r')
is "$n" 1 "the one-node rack runs over shared memory and is compared with no network rack ($n)"

# FC_E2E_REPEAT=N: each clean plan (--ppn 1: node, pairs, rack; --ppn 2:
# node, rack) N more times, for figures; off by default (make check)
repeat=${FC_E2E_REPEAT:-0}
if [ "$repeat" -gt 0 ] 2> /dev/null; then
    for plan in "1 node,pairs,rack" "2 node,rack"; do
        set -- $plan
        pass=0 times=""
        for i in $(seq 1 "$repeat"); do
            t0=$(date +%s%N)
            run rep$1_$i $1 $2
            rc=$?
            racks_are rep$1_$i PASS PASS PASS && [ $rc -eq 0 ] && pass=$((pass + 1))
            [ $rc -eq 0 ] || why "--ppn $1 repeat $i: $(grep -E '^rack|^  FAIL' "$TMP/rep$1_$i.out" | head -4)"
            times="$times $(awk "BEGIN { printf \"%.1f\", ($(date +%s%N) - $t0) / 1e9 }")"
        done
        ok $(( pass != repeat )) "--ppn $1 ($2), clean, repeated: $pass of $repeat runs PASS every rack (s:$times)"
    done
fi
done_testing
