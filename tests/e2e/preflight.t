#!/bin/bash
# preflight.t - the preflight stage on a virtual cluster of 2 racks x 2
# nodes: every node's inventory (kernel, MPI library, cores, memory, NICs
# with state, speed, MTU and error counters, RDMA ports, GPUs) is recorded
# and goes into the certificates; a node whose NIC does not match the
# profile's expectation (MTU 1400 where 1500 is expected) fails, its rack
# fails naming the node, the NIC and both values, and it is left out of the
# next stage. Also: an output directory that already holds a run is
# refused (exit 2), so two runs are never mixed.
# Needs root (namespaces); skips with the reason otherwise.
. tests/e2e/tap.sh
FC=$BUILD/fabcert
vcluster_up fcp
plan 8
cat > "$TMP/pre.yaml" <<'YAML'
name: preflight-test
seed: 1
stages:
  preflight:
    timeout_s: 60
    expect:
      nic_pattern: "eth*"
      nics: 1
      mtu: 1500
  node:
    timeout_s: 60
    warmup: 0
    iters: 2
    sizes: [4KiB]
    collectives: [all_reduce]
    dtypes: [int32]
    ops: [sum]
YAML
run() {
    local out=$1; shift
    $VC --name $NAME exec ${NAME}01 $FC run --hosts "$D/hosts" --racks "$D/racks" --ppn 1 \
        --profile "$TMP/pre.yaml" --out "$TMP/$out" "$@" > "$TMP/$out.out" 2> "$TMP/$out.err"
}
run clean
rc=$?
ok $rc "a cluster that matches its expected inventory passes ($rc)"
n=$(jsonl "$TMP/clean/results.jsonl" 'scalar grep { $_->{type} eq "preflight" && $_->{inventory}{nics}[0]{name} eq "eth0" && $_->{inventory}{nics}[0]{mtu} == 1500 && $_->{inventory}{mpi} =~ /MPI/ } @r')
ok $(( n != 4 )) "each node's inventory is recorded: its own NICs, MTUs, MPI library ($n)"
perl -MJSON::PP -e 'local $/; my $c = decode_json(<STDIN>)->{certificate};
    exit !(@{$c->{nodes}} == 2 && $c->{nodes}[0]{inventory}{nics}[0]{mtu} == 1500)' \
    < "$TMP/clean/certificates/rack1.json"
ok $? "and the rack certificate lists its nodes with their inventory"

H3=${NAME}03
ip -n $H3 link set eth0 mtu 1400
run mtu
rc=$?
ip -n $H3 link set eth0 mtu 1500
ok $(( rc != 1 )) "one node with MTU 1400: exit 1 ($rc)"
grep -q '^rack rack1: PASS' "$TMP/mtu.out" && grep -q '^rack rack2: FAIL' "$TMP/mtu.out"
ok $? "its rack FAILs, the other passes"
grep -q "^  FAIL rack rack2, preflight stage, NIC $H3: .*NIC eth0 on $H3 has MTU 1400, the profile expects 1500" "$TMP/mtu.out"
ok $? "the verdict names the node, the NIC and both MTUs"
n=$(jsonl "$TMP/mtu/results.jsonl" 'scalar grep { $_->{type} eq "stage_start" && $_->{stage} eq "node" && !grep { $_ eq "'$H3'" } @{$_->{rank_hosts}} } @r')
ok $(( n != 1 )) "and the node is left out of the node stage"

run mtu
rc=$?
[ $rc -eq 2 ] && grep -q "already holds a run" "$TMP/mtu.err"
ok $? "an output directory that holds a run is refused, exit 2 ($rc)"
done_testing
