#!/bin/bash
# uneven_faults.t - relative rules on uneven racks still place a planted
# fault, on a virtual cluster of racks of 5, 3 and 1 nodes
# (tests/e2e/uneven_plan.sh; its clean runs: uneven_racks.t). Shows:
#   - a node slowed with tc tbf still fails its own rack (named, its link
#     implicated) and only that rack: at --ppn 2 through the pairs stage,
#     at --ppn 1 through the rack stage's relative rule against the one
#     rack of its shape (an allocation of 3 nodes of the 5-node rack);
#   - the 5-node rack's switch slowed (vcluster slow-switch: what its
#     bridge forwards between the rack's own nodes, shaped on each node
#     link; the uplink's traffic is not), the pairs stage alone: its 10
#     pairs inside are named the switch of rack1 (part "switch", nobody
#     quarantined), each node shown fast with a node outside the rack;
#     the other racks PASS;
#   - an allocation of racks of 2 and 1 nodes, the pairs stage alone: a
#     slowed node of the 2-node rack is quarantined on its link (its probe
#     inside the rack has no class peer), and a slowed node alone in its
#     rack FAILs both racks on the spine between them, nobody quarantined
#     (the pairs across the spine are all its own: the two-racks rule).
# Each run has only the stages the fault is judged in: pairs and rack with
# the slowed node, the rack stage alone at --ppn 1. The pairs' relative
# limit is 95% (a shaped link is 99% below).
# lane: quiet, about 40 s (planted faults judged against healthy peers: never beside the parallel lanes' load)
. tests/e2e/tap.sh
. tests/e2e/uneven_plan.sh
uneven_plan_up fcf
plan 13

# 1. a node of the 5-node rack slowed to 20 Mbit/s
$VC --name $NAME slow $H2 20mbit > /dev/null
run slow 2 pairs,rack
rc=$?
$VC --name $NAME clear
is "$rc" 1 "a slowed node makes the run exit 1 ($rc)"
racks_are slow FAIL PASS PASS
ok $? "its rack FAILs; the racks of 3 and 1 nodes PASS"
[ $? -eq 0 ] || why "$(grep -E '^rack|FAIL' "$TMP/slow.out" | head -8)"
grep -q "^  FAIL rack rack1, pairs stage, link $H2: .*slow with .* partners in the rounds, and confirmed alone: .*: its NIC or link is implicated" "$TMP/slow.out"
ok $? "the verdict names $H2 and implicates its link"
n=$(rec slow 'scalar grep { $_->{type} eq "pair" && $_->{verdict} eq "FAIL" && ($_->{implicates}{host} // "") ne "'$H2'" } @r')
is "$n" 0 "no pair failure is blamed on another node ($n)"
n=$(rec slow 'scalar grep { $_->{type} eq "stage_start" && $_->{stage} eq "rack" && !grep { $_ eq "'$H2'" } @{$_->{rank_hosts}} } @r')
is "$n" 1 "the slowed node is quarantined before the rack stage"

# 2. one rank per node, the rack stage alone, a node slowed: the racks of
#    5, 3 and 1 nodes are classes of one there, so the run covers an
#    allocation of part of the cluster (rack1's first 3 nodes, rack2,
#    rack3): rack1 and rack2 are peers (3 nodes x 3 ranks over the
#    network) and the rack stage's relative rule judges rack1, with $H2
#    slowed to 10 Mbit/s, against rack2
grep -v -x -e ${NAME}04 -e ${NAME}05 "$D/hosts" > "$TMP/hosts7"
$VC --name $NAME slow $H2 10mbit > /dev/null
t0=$(date +%s)
HOSTS=$TMP/hosts7 run rack1 1 rack
rc=$?
secs=$(( $(date +%s) - t0 ))
$VC --name $NAME clear
racks_are rack1 FAIL PASS PASS
st=$?
ok $(( rc != 1 || st != 0 )) "--ppn 1, the rack stage, $H2 slowed: rack1 FAILs, rack2 and rack3 PASS ($rc; $secs s)"
[ $rc -eq 1 ] && [ $st -eq 0 ] || why "$(grep -E '^rack|^  FAIL|^#' "$TMP/rack1.out" | head -8)"
n=$(rec rack1 'my $c = grep { $_->{type} eq "point" && $_->{group} eq "rack3" && !$_->{relative} } @r;
    my @p = grep { $_->{type} eq "point" && $_->{stage} eq "rack" &&
        ($_->{relative}{class} // "") eq "the other rack of 3 nodes x 3 ranks (network)" } @r;
    my $a = grep { $_->{group} eq "rack1" && $_->{verdict} eq "FAIL" } @p;
    my $b = grep { $_->{group} eq "rack2" && $_->{verdict} eq "PASS" } @p;
    "rack1 $a fail, rack2 $b pass, rack3 $c alone"')
[[ "$n" =~ ^rack1\ [123]\ fail,\ rack2\ 3\ pass,\ rack3\ 3\ alone$ ]]
ok $? "rack1 fails against its one peer, rack2 (3 nodes x 3 ranks), which passes against it; the records name the class; rack3 has none ($n)"
n=$(rec rack1 'scalar grep { $_->{type} eq "point" && $_->{stage} eq "rack" && $_->{verdict} eq "FAIL" &&
    grep { /below the other rack of 3 nodes x 3 ranks \(network\)/ } @{$_->{reasons}} } @r')
q=$(rec rack1 'join ",", map { $_->{host} } grep { $_->{type} eq "quarantine" } @r')
[ "$n" -ge 1 ] && { [ "$q" = "$H2" ] || [ -z "$q" ]; }
ok $? "the failure is the relative rule's, in words ($n point(s)); nobody but $H2 quarantined (${q:-nobody})"

# 3. rack1's switch slowed to 20 Mbit/s between its own ports, the pairs
#    stage alone (its pairs inside are slow in their rounds by the
#    same-rack rule, then alone; each node is fast with the 3-node rack)
$VC --name $NAME slow-switch 1 20mbit > /dev/null 2>&1
run tor 1 pairs
rc=$?
$VC --name $NAME clear
racks_are tor FAIL PASS PASS
st=$?
grep -q "^  FAIL rack rack1, pairs stage, switch: .*explained by the switch of rack rack1 (top of rack): every pair inside it (10) was slow in its round and alone too, while each of its 5 nodes is fast alone with a node outside the rack" "$TMP/tor.out"
sw=$?
perl -MJSON::PP -e 'local $/; my $c = decode_json(<>)->{certificate};
    exit !grep { $_->{part} eq "switch" && $_->{action} =~ /ToR switch/ } @{$c->{failures} || []}' \
    "$TMP/tor/certificates/rack1.json" 2> /dev/null
ok $(( rc != 1 || st != 0 || sw != 0 || $? != 0 )) "rack1's switch slowed: rack1 FAILs on its switch, named in the verdict, and its certificate says to check the ToR; rack2 and rack3 PASS ($rc)"
[ $rc -eq 1 ] && [ $st -eq 0 ] || why "$(grep -E '^rack|^  FAIL' "$TMP/tor.out" | head -6)"
n=$(rec tor 'my @f = grep { $_->{type} eq "pair" && $_->{verdict} eq "FAIL" } @r;
    my $s = grep { $_->{rack_a} eq "rack1" && $_->{rack_b} eq "rack1" && $_->{implicates}{part} eq "switch" &&
        $_->{implicates}{rack} eq "rack1" && !$_->{implicates}{quarantine} &&
        $_->{confirmation}{verdict} eq "switch" } @f;
    my $q = grep { $_->{type} eq "quarantine" || ($_->{type} eq "pairs_node" && $_->{verdict} ne "PASS") } @r;
    "$s of " . scalar(@f) . " failing pairs the switch\x27s, $q node(s) blamed"')
is "$n" "10 of 10 failing pairs the switch's, 0 node(s) blamed" "the 10 pairs inside rack1 and no other fail, each implicating the switch of rack1; no node is quarantined or blamed"

# 4. an allocation of racks of 2 and 1 nodes ($H1 and $H2 of rack1, $H9
#    alone in rack3), the pairs stage alone. a) $H1 slowed: its partner
#    probe inside rack1 has no peer in its class (one pair), and is judged
#    against $H2's pair across the spine (lib/pairs/fc_pairs_alone.c); $H1 is
#    quarantined on its link, rack3 PASSes. b) $H9 slowed: every pair
#    across the spine is $H9's, so their class cannot see it; the
#    two-racks rule judges them against the pair inside rack1
#    (lib/pairs/fc_pairs_spine.c), and the confirmation names the spine between
#    rack1 and rack3 with $H9's link in series, nobody quarantined
printf '%s\n' $H1 $H2 $H9 > "$TMP/hosts3"
$VC --name $NAME slow $H1 50mbit > /dev/null
HOSTS=$TMP/hosts3 run two1 1 pairs
rc=$?
$VC --name $NAME clear
q=$(rec two1 'join ",", map { $_->{host} } grep { $_->{type} eq "quarantine" } @r')
grep -q "^rack rack1: FAIL" "$TMP/two1.out" && grep -q "^rack rack3: PASS" "$TMP/two1.out" &&
    grep -q "^  FAIL rack rack1, pairs stage, link $H1: .*confirmed alone: .*(same rack).*: its NIC or link is implicated" "$TMP/two1.out"
ok $(( rc != 1 || $? != 0 )) "racks of 2 and 1, $H1 slowed: its link confirmed alone (its probe inside rack1 judged against its partner's pair across the spine), quarantined (${q:-nobody}); rack3 PASSes ($rc)"
[ "$q" = "$H1" ] || why "$(grep -E '^rack|^  FAIL|quarantined' "$TMP/two1.out" | head -6)"
$VC --name $NAME slow $H9 50mbit > /dev/null
HOSTS=$TMP/hosts3 run two9 1 pairs
rc=$?
$VC --name $NAME clear
grep -q "^rack rack1: FAIL" "$TMP/two9.out" && grep -q "^rack rack3: FAIL" "$TMP/two9.out" &&
    grep -q "^  FAIL rack rack3, pairs stage, uplink: .*explained by the spine between rack rack1 and rack rack3: .*the link of $H9 (alone in its rack) are in series" "$TMP/two9.out"
ok $(( rc != 1 || $? != 0 )) "racks of 2 and 1, $H9 (alone in its rack) slowed: both racks FAIL on the spine between them, $H9's link named in series ($rc)"
[ $rc -eq 1 ] || why "$(grep -E '^rack|^  FAIL' "$TMP/two9.out" | head -6)"
n=$(rec two9 'my @s = grep { $_->{type} eq "pair" && $_->{rack_a} ne $_->{rack_b} } @r;
    my $j = grep { my $e = $_->{sizes}[0]; $e->{two_racks_rule} && $e->{two_racks_rule}{lone_host} eq "'$H9'" &&
        grep { /rack rule not applied: two racks/ } @{$e->{rules_not_applied} || []} } @s;
    my $u = grep { $_->{verdict} eq "FAIL" && $_->{implicates}{part} eq "uplink" && !$_->{implicates}{quarantine} } @s;
    my $q = grep { $_->{type} eq "quarantine" } @r;
    "$j of " . scalar(@s) . " judged by the two-racks rule, $u on the uplink, $q quarantined"')
is "$n" "2 of 2 judged by the two-racks rule, 2 on the uplink, 0 quarantined" "the pairs across the spine record the two-racks rule and why the rack rule did not apply; nobody quarantined"
done_testing
