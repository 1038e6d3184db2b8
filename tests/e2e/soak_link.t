#!/bin/bash
# soak_link.t - a link that vanishes during the soak, on a virtual cluster
# of 2 racks x 1 node: the second node gets a second veth (eth1, matched
# by nic_pattern eth*) before the run, and it is deleted mid-soak, after
# the stage's first counter snapshot. The soak must FAIL that node's rack,
# implicating link eth1 of that host (before, a vanished link was simply
# left out of the deltas and the rack passed), and pass the other rack.
# tests/e2e/counters.t plants the same on fixture sysfs trees, with resets
# and saturated counters. Needs root (namespaces); skips otherwise.
. tests/e2e/tap.sh
FC=$BUILD/fabcert
vcluster_up fck 1
plan 4
H1=${NAME}01 H2=${NAME}02
cat > "$TMP/soak.yaml" <<'YAML'
name: soak-link
seed: 3
stages:
  soak:
    timeout_s: 90
    warmup: 1
    iters: 3
    sizes: [64KiB]
    collectives: [all_reduce]
    dtypes: [float32]
    ops: [sum]
    soak:
      duration_s: 4
      window_s: 1
      max_drift_pct: 1000000     # drift is not what this test is about
      nic_pattern: "eth*"
YAML
$VC --name $NAME exec $H2 ip link add eth1 type veth peer name spare1 &&
    $VC --name $NAME exec $H2 ip link set eth1 up
ok $? "$H2 has a second link, eth1"
$VC --name $NAME exec $H1 $FC run --hosts "$D/hosts" --racks "$D/racks" --ppn 1 \
    --profile "$TMP/soak.yaml" --out "$TMP/run" > "$TMP/run.out" 2>&1 &
pid=$!
waited=0
# once the soak's first window has closed (60 s at most): its counters were
# read before it, so eth1 goes mid-soak, with 3 s of the soak left
until grep -qs '"type":"soak_window"' "$TMP/run/results.jsonl" || [ $waited -ge 600 ]; do
    sleep 0.1; waited=$((waited + 1))
done
$VC --name $NAME exec $H2 ip link del eth1
wait $pid
rc=$?
n=$(jsonl "$TMP/run/results.jsonl" 'join " ", map { "$_->{host}:$_->{verdict}:" . join(",", @{$_->{vanished}}) . ":" . ($_->{implicates} ? $_->{implicates}{link} : "-") } sort { $a->{host} cmp $b->{host} } grep { $_->{type} eq "soak_counters" } @r')
[ "$rc" = 1 ] && [ "$n" = "$H1:PASS::- $H2:FAIL:eth1:eth1" ]
ok $? "eth1 deleted mid-soak: $H2's counters FAIL with eth1 vanished and implicated, $H1's pass ($n, exit $rc)"
grep -q "^rack rack2: FAIL" "$TMP/run.out" &&
    grep -q "FAIL rack rack2, soak stage, link $H2: .*link eth1 of host $H2 vanished during the soak" "$TMP/run.out"
ok $? "rack2 FAILs, naming the link and the host"
grep -q "^rack rack1: PASS" "$TMP/run.out"
ok $? "rack1, whose link stayed, passes"
done_testing
