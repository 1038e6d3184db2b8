#!/bin/bash
# uneven_racks.t - relative rules compare like with like, on a
# virtual cluster of racks of 5, 3 and 1 nodes (runners/vcluster). Shows:
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
#     (the pairs across the spine are all its own: the two-racks rule);
#   - FC_E2E_REPEAT=N runs each clean plan N more times (figures: runs
#     that PASS every rack, seconds each); off by default.
# To keep the cost down (9 nodes on a 2-core machine) each run has only
# the stages where groups of different shapes meet: node, pairs and rack
# at --ppn 1; node and rack at --ppn 2 (pairs take one rank per node
# whatever --ppn is); pairs and rack with the slowed node. The cluster
# stage is one group (nothing to compare), preflight, contention and soak
# have no relative rule; the --ppn 1 slowed node runs the rack stage
# alone. One size (64 KiB, where the relative rules
# apply), three collectives, 3 iterations; each run's profile is
# thresholds/vcluster.yaml cut to the stages it runs (a required stage
# left out makes every rack INCOMPLETE), with the pairs' relative limit
# at 95% (a veth pair on 9 namespaces sharing 2 cores wanders up to 5
# times; a shaped link is 99% below).
# lane: serial (clean runs judged by relative rules: failed 8 of 24 points beside neighbours; pinned to one CPU beside a pinned test, its slowed switch was read as 10 paths in 1 of 4 runs)
. tests/e2e/tap.sh
FC=$BUILD/fabcert
vcluster_up fcu 5,3,1
repeat=${FC_E2E_REPEAT:-0}
plan $(( 24 + ( repeat > 0 ? 2 : 0 ) ))
H2=${NAME}02 H6=${NAME}06 H9=${NAME}09
# profile STAGES: thresholds/vcluster.yaml with only these stages (a
# required stage left out would make every rack INCOMPLETE)
profile() {
    perl -ne 'BEGIN { %k = map { $_ => 1 } split /,/, shift }
        $in = $1 if /^  (\w+):$/; $in = "" if /^\S/;
        s/max_below_median_pct: 80/max_below_median_pct: 95/ if $in eq "pairs";
        print if $in eq "" || $k{$in}' "$1" thresholds/vcluster.yaml > "$TMP/$1.yaml"
}
run() {     # run OUT-NAME PPN STAGES [fabcert run options]: inside the first node
    local out=$1 ppn=$2 stages=$3; shift 3
    profile $stages
    $VC --name $NAME exec ${NAME}01 $FC run --hosts "${HOSTS:-$D/hosts}" --racks "$D/racks" \
        --ppn $ppn --profile "$TMP/$stages.yaml" \
        --sizes 64KiB --iters 3 --collectives all_reduce,all_gather,broadcast \
        --dtypes float32 --ops sum --out "$TMP/$out" "$@" > "$TMP/$out.out" 2> "$TMP/$out.err"
}
rec() { jsonl "$TMP/$1/results.jsonl" "$2"; }    # rec OUT PERL-EXPR
racks_are() {   # racks_are OUT V1 V2 V3: the verdicts of rack1..rack3
    grep -q "^rack rack1: $2" "$TMP/$1.out" && grep -q "^rack rack2: $3" "$TMP/$1.out" &&
        grep -q "^rack rack3: $4" "$TMP/$1.out"
}

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

# 3. a node of the 5-node rack slowed to 20 Mbit/s
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

# 4. one rank per node, the rack stage alone, a node slowed: the racks of
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

# 5. rack1's switch slowed to 10 Mbit/s between its own ports, the pairs
#    stage alone (its pairs inside are slow in their rounds by the
#    same-rack rule, then alone; each node is fast with the 3-node rack)
$VC --name $NAME slow-switch 1 10mbit > /dev/null 2>&1
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

# 6. an allocation of racks of 2 and 1 nodes ($H1 and $H2 of rack1, $H9
#    alone in rack3), the pairs stage alone. a) $H1 slowed: its partner
#    probe inside rack1 has no peer in its class (one pair), and is judged
#    against $H2's pair across the spine (lib/pairs/fc_pairs_alone.c); $H1 is
#    quarantined on its link, rack3 PASSes. b) $H9 slowed: every pair
#    across the spine is $H9's, so their class cannot see it; the
#    two-racks rule judges them against the pair inside rack1
#    (lib/pairs/fc_pairs_spine.c), and the confirmation names the spine between
#    rack1 and rack3 with $H9's link in series, nobody quarantined
H1=${NAME}01
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
