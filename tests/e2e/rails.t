#!/bin/bash
# rails.t - the rails stage on one virtual cluster of 2 racks x
# 2 nodes x 2 rails (runners/vcluster up --rails 2: eth0 and eth1 of every
# node, each rail on its own leaf bridges and spine), one rank per NIC
# (--ppn 2), the tcp transport; faults planted from outside with tc:
#   - a clean run PASSes both racks, every NIC and both rails, each NIC's
#     record carrying its figures (both directions, latency, every partner,
#     no wrong bits);
#   - one NIC shaped (vcluster slow HOST 20mbit --nic eth1): exactly that
#     host's eth1 is named and quarantined for rail 1 (the host stays in
#     service), its eth0 and every other NIC pass, its rack alone FAILs;
#     the certificate lists every NIC's figures;
#   - rail 1's uplink of rack 1 shaped (vcluster slow-uplink 1 20mbit
#     --rail 1): rail 1 is named (across the spine: its uplinks or spine),
#     no NIC is blamed;
#   - preflight: each node's eth0 and eth1 are its rails 0 and 1 at the
#     declared rate; declared at 100 Gb/s, each NIC is named with its rail;
#   - the report holds the records to the plan (a rail pair's record
#     deleted: INCOMPLETE, naming it; a NIC's rail_node record deleted:
#     INCOMPLETE, naming host and rail) and re-judges their figures;
#   - two NICs of rail 1 in different racks shaped (H1's and H3's eth1):
#     5 of the rail's 6 pairs slow, yet those NICs are named, not the
#     rail's leaf switches (H2 <-> H4 on rail 1 is fast); meanwhile H4's
#     eth0 cable pulled for 2 s mid-stage: named by its carrier changes;
#   - a cable pulled (vcluster cut HOST --nic eth1): that NIC named at once,
#     its transport's reason (no carrier) in the verdict;
#   - one bit flipped in what one NIC receives (--selftest-corrupt on its
#     rank): its pairs' wrong data placed on that NIC, quarantined once;
#   - one rank per node where the profile declares two rails: not a pass;
#   - a bad rails map in the profile: exit 2 naming file and line.
# Small sizes and few iterations (256 KiB, 3 timed): about 30 s on a quiet
# machine.
# lane: pinned, about 61 s (each NIC judged against its rail's figures)
. tests/e2e/tap.sh
FC=$BUILD/fabcert
vcluster_up frl 2 2
plan 28
H1=${NAME}01 H2=${NAME}02 H3=${NAME}03
cat > "$TMP/rails.yaml" <<'YAML'
name: rails
description: the rails stage of tests/e2e/rails.t
seed: 20261203
stages:
  preflight:
    required: false
    timeout_s: 30
  rails:
    required: true
    timeout_s: 90
    warmup: 1
    iters: 3
    sizes: [256KiB]
    relative:
      max_below_median_pct: 90
    limits:
      - collective: any
        min_busbw_gbps: 0.0001
    rails:
      count: 2
      nic_pattern: "eth*"
      rate_gbps: 10
      transport: tcp
YAML
run() {     # run OUT [fabcert run options]: inside the first node
    local out=$1; shift
    local t0=$SECONDS
    $VC --name $NAME exec $H1 $FC run --hosts "$D/hosts" --racks "$D/racks" --ppn 2 \
        --profile "$TMP/rails.yaml" --out "$TMP/$out" "$@" > "$TMP/$out.out" 2> "$TMP/$out.err"
    local rc=$?
    echo $((SECONDS - t0)) > "$TMP/$out.secs"
    return $rc
}
rec() { jsonl "$TMP/$1/results.jsonl" "$2"; }
nics() {    # nics OUT VERDICT: the rail_node records of that verdict, "host:nic" sorted
    rec "$1" 'join ",", sort map { "$_->{host}:$_->{nic}" } grep { $_->{type} eq "rail_node" &&
        $_->{verdict} eq "'$2'" } @r'
}

# 1. clean
run clean
rc=$?
grep -q "^rack rack1: PASS" "$TMP/clean.out" && grep -q "^rack rack2: PASS" "$TMP/clean.out"
ok $(( rc != 0 || $? != 0 )) "clean run: both racks PASS ($rc, $(cat "$TMP/clean.secs") s)"
[ $rc -eq 0 ] || why "$(grep -E '^  (FAIL|INCOMPLETE)' "$TMP/clean.out" | head -3)"
is "$(nics clean PASS | tr ',' '\n' | wc -l) $(rec clean 'scalar grep { $_->{type} eq "rail" && $_->{verdict} eq "PASS" } @r') $(rec clean 'my ($s) = grep { $_->{type} eq "stage_start" && $_->{stage} eq "rails" } @r; "$s->{work}{unit}:$s->{work}{total}"')" \
   "8 2 rounds:3" "every NIC (4 nodes x 2) and both rails PASS; the stage planned 3 rounds (the runner's progress)"
n=$(rec clean 'scalar grep { my $x = $_; $x->{type} eq "rail_node" && $x->{nic} =~ /^eth[01]$/ &&
    $x->{rail} == substr($x->{nic}, 3) && @{$x->{figures}} == 1 && $x->{figures}[0]{bytes} == 262144 &&
    @{$x->{figures}[0]{partners}} == 3 && $x->{figures}[0]{send_gbps_median} > 0 &&
    $x->{figures}[0]{recv_gbps_median} > 0 && $x->{figures}[0]{latency_us_median} > 0 &&
    $x->{figures}[0]{wrong_received} == 0 } @r')
is "$n" 8 "each NIC's record: host, nic, its rail by name order, both directions and the latency with its 3 partners, no wrong bits"
n=$(rec clean 'scalar grep { $_->{type} eq "preflight" && $_->{verdict} eq "PASS" &&
    2 == grep({ defined $_->{rail} && $_->{name} eq "eth$_->{rail}" && !exists $_->{pci} }
              @{$_->{inventory}{nics}}) } @r')
is "$n" 4 "preflight: each node's eth0 and eth1 are rails 0 and 1 at the declared 10 Gb/s, no PCI address (veth)"
n=$(rec clean 'scalar grep { $_->{type} eq "rail_pair" && $_->{nic_a} eq $_->{nic_b} &&
    $_->{rail} == substr($_->{nic_a}, 3) && $_->{host_a} ne $_->{host_b} } @r')
is "$n" 12 "6 pairs of NICs per rail, each between the same NIC of two hosts"

# the report holds the records to the plan and re-judges their figures:
# a copy of the clean run without one rail_pair record of rail 1 (the end
# record recounted), and one with a pair's bandwidth below its limit
cp -r "$TMP/clean" "$TMP/cut" && cp -r "$TMP/clean" "$TMP/forged"
perl -i -ne 'if (/"type":"rail_pair"/ && /"rail":1[,}]/ && !$done) { $done = 1; next }
    s/"judged_records":(\d+)/"judged_records":@{[$1-1]}/; s/"points":(\d+)/"points":@{[$1-1]}/; print' \
    "$TMP/cut/results.jsonl"
$FC report "$TMP/cut" > "$TMP/cut.rep" 2>&1
grep -q "INCOMPLETE rack rack1, rails stage, sweep: .*planned 10 pairs, 9 judged (first missing: rail 1 pair $H1 <-> $H2)" "$TMP/cut.rep"
ok $? "a rail pair's record deleted: rack1 INCOMPLETE, naming the missing pair and its rail"
cp -r "$TMP/clean" "$TMP/nonode"
H3=$H3 perl -MJSON::PP -i -ne 'if (/"type":"rail_node"/ && !$done) { my $r = decode_json($_);
        if ($r->{host} eq $ENV{H3} && $r->{rail} == 1) { $done = 1; next } }
    if (/"type":"stage_end"/ && /"stage":"rails"/) { s/"judged_records":(\d+)/"judged_records":@{[$1-1]}/;
        s/"points":(\d+)/"points":@{[$1-1]}/ } print' \
    "$TMP/nonode/results.jsonl"
$FC report "$TMP/nonode" > "$TMP/nonode.rep" 2>&1
grep -q "INCOMPLETE rack rack2, rails stage, sweep: .*no rail_node record of host $H3's NIC on rail 1" "$TMP/nonode.rep" &&
    grep -q "^rack rack1: PASS" "$TMP/nonode.rep"
ok $? "a NIC's rail_node record deleted: its rack INCOMPLETE, naming host and rail (it was a PASS, the NIC missing from the certificate)"
perl -i -pe 'if (/"type":"rail_pair"/ && !$done) { s/"bw_gbps":[0-9.e+-]+/"bw_gbps":0.00001/; $done = 1 }' \
    "$TMP/forged/results.jsonl"
$FC report "$TMP/forged" > "$TMP/forged.rep" 2>&1
grep -q "FAIL rack rack1, rails stage, .*rail 0 pair $H1 eth0 <-> $H2 eth0: its own figures fail its limit" "$TMP/forged.rep"
ok $? "a rail pair's figure below its limit under a PASS: re-judged FAIL"

# 2. one NIC shaped
$VC --name $NAME slow $H2 20mbit --nic eth1 > /dev/null
run nic --stages rails     # preflight: in the clean run
rc=$?
q=$(rec nic 'join ",", map { "$_->{host}:$_->{nic}:$_->{rail}:$_->{scope}" } grep { $_->{type} eq "quarantine" } @r')
is "$rc $q" "1 $H2:eth1:1:rail" "one NIC shaped: exactly $H2's eth1 quarantined, for rail 1 ($(cat "$TMP/nic.secs") s)"
is "$(nics nic FAIL)" "$H2:eth1" "of the 8 NICs, $H2's eth1 alone FAILs"
nics nic PASS | grep -q "$H2:eth0" && [ "$(nics nic PASS | tr ',' '\n' | wc -l)" = 7 ]
ok $? "$H2's eth0 and the 6 NICs of the other hosts PASS"
grep -q "^rack rack1: FAIL" "$TMP/nic.out" && grep -q "^rack rack2: PASS" "$TMP/nic.out" &&
    grep -q "NIC eth1 of host $H2 quarantined for rail 1 after the rails stage: slow with .* confirmed alone" "$TMP/nic.out"
st=$?
ok $st "rack1 alone FAILs, the verdict naming NIC eth1 of $H2, rail 1, confirmed alone"
[ $st -eq 0 ] || why "$(grep -E '^rack|^  FAIL' "$TMP/nic.out" | head -4)"
n=$(rec nic 'scalar grep { $_->{type} eq "rail_pair" && $_->{verdict} eq "FAIL" &&
    $_->{implicates}{part} eq "nic" && $_->{implicates}{host} eq "'$H2'" && $_->{implicates}{nic} eq "eth1" } @r')
is "$n" 3 "each of that NIC's 3 pairs is explained by it ($n)"
H2=$H2 perl -MJSON::PP -e 'local $/; my $c = decode_json(<>)->{certificate};
    my @f = grep { defined $_->{nic} && ref $_->{sizes} && defined $_->{sizes}[0]{send_gbps_median} }
        map { @{$_->{figures} || []} } @{$c->{stages} || []};
    my ($n) = grep { $_->{host} eq $ENV{H2} } @{$c->{nodes}};
    exit !(@f == 4 && $n->{quarantine}{nic} eq "eth1" && $n->{quarantine}{rail} == 1)' \
    "$TMP/nic/certificates/rack1.json" 2> /dev/null
ok $? "rack1's certificate lists the figures of its 4 NICs, and $H2's quarantine names eth1, rail 1"
grep -q "NIC eth1 of $H2 (rail 1)" "$TMP/nic/report/rack-rack1.html"
ok $? "rack1's HTML page has a row per NIC"
grep -q "^  NICs rack rack1, rails stage: 4 NIC(s) at 262144 bytes: send .* GB/s (slowest $H2 eth1, rail 1), receive" "$TMP/nic.out"
ok $? "the summary gives rack1's 4 NICs' range, the slowest named"
$VC --name $NAME clear > /dev/null

# 3. a rail's uplink shaped
$VC --name $NAME slow-uplink 1 20mbit --rail 1 > /dev/null
run uplink --stages rails
rc=$?
r=$(rec uplink 'join ",", map { "$_->{rail}:$_->{verdict}:" . ($_->{implicates}{part} // "") } grep { $_->{type} eq "rail" } @r')
is "$rc $r" "1 0:PASS:,1:FAIL:rail" "rail 1's uplink shaped: rail 1 FAILs, implicated as a rail; rail 0 PASSes ($(cat "$TMP/uplink.secs") s)"
grep -q "rail 1 across the spine: .* confirmed alone: .* rail 1's leaf uplinks or spine switch" "$TMP/uplink.out"
ok $? "the verdict names rail 1 across the spine, confirmed alone against rail 0"
is "$(nics uplink FAIL)/$(rec uplink 'scalar grep { $_->{type} eq "quarantine" } @r')" "/0" "no NIC is blamed or quarantined"
$VC --name $NAME clear > /dev/null

# 3b. two NICs of one rail in different racks shaped: the NICs, not the rail
H4=${NAME}04
$VC --name $NAME slow $H1 20mbit --nic eth1 > /dev/null
$VC --name $NAME slow $H3 20mbit --nic eth1 > /dev/null
# and H4's eth0 cable pulled for 2 s once the stage runs on H4: a connect
# waits it out, so only the link's carrier_changes can tell
( for i in $(seq 100); do ip netns pids $H4 2> /dev/null | xargs -r -n1 -I{} cat /proc/{}/comm 2> /dev/null |
      grep -qx rails && break; sleep 0.1; done
  sleep 1; $VC --name $NAME cut $H4 --nic eth0 > /dev/null; sleep 2; $VC --name $NAME mend $H4 --nic eth0 > /dev/null ) &
flap=$!
run two --stages rails
rc=$?
wait $flap
r=$(rec two 'join ",", map { "$_->{rail}:$_->{verdict}:" . ($_->{implicates}{part} // "") . ":" . join("+", @{$_->{implicates}{nics} || []}) } grep { $_->{type} eq "rail" } @r')
is "$rc $r" "1 0:FAIL:nic:$H4:eth0,1:FAIL:nic:$H1:eth1+$H3:eth1" "two NICs of rail 1 shaped, one per rack: the rail record names those NICs, not the rail; H4's eth0 pulled for 2 s mid-stage: named on rail 0 ($(cat "$TMP/two.secs") s)"
grep -q "rail 0: 1 NIC(s) whose link went down during the stage .*$H4:eth0 (eth0: its link went down and up during the stage (carrier_changes [0-9]* -> [0-9]*))" "$TMP/two.out" &&
    [ "$(rec two 'join ",", map { $_->{verdict} } grep { $_->{type} eq "rail_node" && $_->{host} eq "'$H4'" && $_->{nic} eq "eth0" } @r')" = FAIL ]
ok $? "a cable pulled and put back mid-stage: the NIC named with its carrier changes, its own record FAIL (a connect waits the cut out; the figures need not show it)"
grep -q "not rail 1's leaf switches: $H2:eth1 <-> $H4:eth1 is fast .* NIC(s) $H1:eth1, $H3:eth1, each slow with every partner" "$TMP/two.out" &&
    ! grep -q "rail 1's leaf switches\$" "$TMP/two.out"
ok $? "the verdict says why not the rail ($H2 <-> $H4 fast on rail 1) and names both NICs"
$VC --name $NAME clear > /dev/null

# 4. a cable pulled (the switch side of H3's eth1 down): named at once
$VC --name $NAME cut $H3 --nic eth1 > /dev/null
run pulled --stages rails
rc=$?
$VC --name $NAME mend $H3 --nic eth1 > /dev/null
q=$(rec pulled 'join ",", map { "$_->{host}:$_->{nic}:$_->{rail}" } grep { $_->{type} eq "quarantine" } @r')
grep -q "NIC eth1 of host $H3 quarantined for rail 1 after the rails stage: .*its transport: eth1: no carrier" "$TMP/pulled.out"
is "$rc $q $?" "1 $H3:eth1:1 0" "a pulled cable: $H3's eth1 alone quarantined, the verdict saying it has no carrier ($(cat "$TMP/pulled.secs") s)"

# 5. one bit of what H2's eth1 receives flipped (--selftest-corrupt on its
# rank, the second on H2: rail 1): wrong data, placed on that NIC
R=$(rec clean 'my ($s) = grep { $_->{type} eq "stage_start" && $_->{stage} eq "rails" } @r;
    my @h = @{$s->{rank_hosts}}; (grep { $h[$_] eq "'$H2'" } 0..$#h)[-1]')
run flip --stages rails --selftest-corrupt rank=$R,iter=1
rc=$?
q=$(rec flip 'join ",", map { "$_->{host}:$_->{nic}:$_->{rail}" } grep { $_->{type} eq "quarantine" } @r')
n=$(rec flip 'scalar grep { $_->{type} eq "rail_pair" && $_->{verdict} eq "FAIL" && $_->{sizes}[0]{wrong} > 0 &&
    $_->{implicates}{nic} eq "eth1" && $_->{implicates}{host} eq "'$H2'" } @r')
grep -q "^rack rack1: FAIL (2 hosts, 0 quarantined, 1 NIC for its rail)" "$TMP/flip.out"
is "$rc $q $n $?" "1 $H2:eth1:1 3 0" "one bit flipped in what rank $R ($H2 eth1) receives: its 3 pairs' wrong data placed on that NIC, quarantined once for rail 1"

# 6. one rank per node, two rails declared: never a pass
$VC --name $NAME exec $H1 $FC run --hosts "$D/hosts" --racks "$D/racks" --ppn 1 --stages rails \
    --profile "$TMP/rails.yaml" --out "$TMP/ppn1" > "$TMP/ppn1.out" 2>&1
rc=$?
grep -q "rails.count is 2, the nodes run 1 rank(s) each" "$TMP/ppn1/rails.tap"
ok $(( rc == 0 || $? != 0 )) "one rank per node where two rails are declared: not a pass, saying why ($rc)"

# 7. the rails declared at 100 Gb/s: preflight names every NIC's rate
sed 's/rate_gbps: 10$/rate_gbps: 100/' "$TMP/rails.yaml" > "$TMP/rate.yaml"
$VC --name $NAME exec $H1 $FC run --hosts "$D/hosts" --racks "$D/racks" --stages preflight \
    --profile "$TMP/rate.yaml" --out "$TMP/rate" > "$TMP/rate.out" 2>&1
rc=$?
n=$(rec rate 'scalar grep { $_->{type} eq "preflight" && $_->{verdict} eq "FAIL" &&
    (join "|", @{$_->{reasons}}) =~ /NIC eth0 \(rail 0\) on \Q$_->{host}\E runs at 10000 Mb\/s; the rails declare 100 Gb\/s.*NIC eth1 \(rail 1\) on \Q$_->{host}\E runs at 10000 Mb\/s/ } @r')
is "$rc $n" "1 4" "rails declared at 100 Gb/s on 10 Gb/s NICs: preflight fails each node, naming each NIC and its rail"

# 8. bad rails maps
sed 's/nic_pattern: "eth\*"/map: "eth0,,eth1"/' "$TMP/rails.yaml" > "$TMP/bad1.yaml"
$FC check-profile "$TMP/bad1.yaml" > /dev/null 2> "$TMP/bad1.err"
rc=$?
grep -q "bad1.yaml:[0-9]*:[0-9]*: 'map': rail 1 has no NIC name" "$TMP/bad1.err"
ok $(( rc != 2 || $? != 0 )) "a map with an empty name: exit 2 at its line ($(head -1 "$TMP/bad1.err"))"
sed 's/nic_pattern: "eth\*"/map: "eth0,eth1,eth2"/' "$TMP/rails.yaml" > "$TMP/bad2.yaml"
$FC check-profile "$TMP/bad2.yaml" > /dev/null 2> "$TMP/bad2.err"
rc=$?
grep -q "bad2.yaml:[0-9]*:[0-9]*: 'map' names 3 NIC(s), 'count' says 2" "$TMP/bad2.err"
ok $(( rc != 2 || $? != 0 )) "a map of 3 NICs under count 2: exit 2 at its line ($(head -1 "$TMP/bad2.err"))"
done_testing
