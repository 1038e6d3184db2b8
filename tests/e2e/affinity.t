#!/bin/bash
# affinity.t - preflight's GPU-NIC affinity check through the
# real stage program and `fabcert run` on this machine (one rank, the
# preflight stage alone), reading the 8-GPU, 8-NIC two-socket fixture
# tree (tests/fixtures/sysfs/hgx/fc_mk_hgx.sh) through FC_SYSFS_ROOT,
# passed with --env, the faults planted in the tree:
#   - as built: PASS; each GPU's nearest NIC, the distance (PIX) and both
#     NUMA nodes are in the record and the certificate;
#   - NIC 3 moved into a slot of the other socket, the profile mapping GPU
#     3 to it, and NIC 5's PCIe link trained at 16 GT/s x8: FAIL naming the GPU, the NIC, both NUMA nodes and SYS, and
#     the slow NIC with the GPU it serves, in the TAP, the verdict, the
#     record, the certificate and the HTML;
#   - no GPU on the node: the check says it did not apply, and why.
# tests/unit/pci_topo.c covers the distances and the judge on the same
# trees; profiles.t the profile's refusals. No root needed.
# in memory where there is a tmpfs: five trees of ~700 small files
[ -w /dev/shm ] && export TMPDIR=${TMPDIR:-/dev/shm}
. tests/e2e/tap.sh
FC=$BUILD/fabcert
MK=tests/fixtures/sysfs/hgx/fc_mk_hgx.sh
H=$(hostname)
plan 11
profile() {     # profile FILE [map line]
    cat > "$1" <<YAML
name: affinity
seed: 1
stages:
  preflight:
    timeout_s: 60
    expect:
      nic_pattern: "ib*"
      gpu_nic_affinity:
        max_distance: PXB
        nics: "mlx5_*"
$2
YAML
}
profile "$TMP/plain.yaml"
profile "$TMP/map.yaml" '        map: {"0000:5d:00.0": mlx5_3}'
run() {     # run NAME PROFILE VARIANT...
    local name=$1 p=$2; shift 2
    $MK "$TMP/sys-$name" "$@" || why "fc_mk_hgx.sh $* failed"
    $FC run --out "$TMP/$name" --np 1 --stages preflight --profile "$TMP/$p.yaml" \
        --env FC_SYSFS_ROOT="$TMP/sys-$name" > "$TMP/$name.out" 2>&1
}
rec() {     # rec NAME PERL: evaluated on the preflight record as $p
    jsonl "$TMP/$1/results.jsonl" "my (\$p) = grep { \$_->{type} eq 'preflight' } @r; $2"
}

run good map
rc=$?
ok $rc "the tree as built passes, with the map ($rc)"
[ $rc -eq 0 ] || why "$(cat "$TMP/good.out")"
n=$(rec good 'scalar grep { my $i = $_; my $g = $p->{inventory}{gpu_nic_affinity}{gpus}[$i];
    $g->{nearest} eq "mlx5_$i" && $g->{distance} eq "PIX" && $g->{numa} == ($i < 4 ? 0 : 1)
    && $g->{nearest_numa} == $g->{numa} } 0..7')
ok $(( n != 8 )) "each GPU's nearest NIC is its own switch's, PIX, on its NUMA node ($n of 8)"
perl -MJSON::PP -e 'local $/; my $c = decode_json(<STDIN>)->{certificate};
    my $a = $c->{nodes}[0]{inventory}{gpu_nic_affinity};
    exit !($a->{applied} && @{$a->{gpus}} == 8 && $a->{gpus}[4]{gpu} eq "0000:9b:00.0"
           && $a->{gpus}[4]{nearest_bdf} eq "0000:9a:00.0")' < "$TMP/good/certificates/default.json"
ok $? "the certificate lists each GPU with its nearest NIC"
grep -q "^# $H: GPU-NIC affinity: 8 GPU(s), each GPU's nearest NIC at most PIX away (the profile allows PXB)$" "$TMP/good/preflight.tap"
ok $? "the TAP says what the check saw"

# two faults in one tree (a failing stage takes ~3 s here: one run, not two)
MOVED="GPU 0000:5d:00.0 (NUMA 0) on $H: its mapped NIC mlx5_3 0000:df:00.0 (NUMA 1) is SYS: across the CPU interconnect; the profile allows at most PXB"
SLOW="NIC mlx5_5 0000:ba:00.0 (NUMA 1, the nearest NIC of GPU 0000:bb:00.0) on $H: its PCIe link runs at 16.0 GT/s x8, where it and its slot can do 32.0 GT/s x16"
run bad map move-nic=3 slow-nic=5
rc=$?
ok $(( rc != 1 )) "NIC 3 in a slot of the other socket, NIC 5 slow: exit 1 ($rc)"
grep -qF "  FAIL rack default, preflight stage, NIC $H: host $H quarantined after the preflight stage: $MOVED" "$TMP/bad.out" &&
    grep -qF "not ok 1 - node $H: $MOVED" "$TMP/bad/preflight.tap"
ok $? "the verdict and the TAP name the GPU, its mapped NIC, both NUMA nodes and SYS"
[ $? -eq 0 ] || why "$(cat "$TMP/bad.out")"
n=$(rec bad '$p->{verdict} eq "FAIL" && $p->{implicates}{part} eq "NIC" && $p->{reasons}[0] eq "'"$MOVED"'" && $p->{reasons}[1] eq "'"$SLOW"'" ? 1 : 0')
grep -qF "$MOVED" "$TMP/bad/certificates/default.json" &&
    grep -qF "$SLOW" "$TMP/bad/certificates/default.json"
ok $(( $? || n != 1 )) "the record fails with both reasons, and the certificate carries them ($n)"
[ "$n" = 1 ] || why "$(rec bad 'join "\n", @{$p->{reasons}}')"
grep -qF "GPU-NIC (at most PXB): 0000:19:00.0 &rarr; mlx5_0 PIX; 0000:3b:00.0 &rarr; mlx5_1 PIX; 0000:4c:00.0 &rarr; mlx5_2 PIX; 0000:5d:00.0 &rarr; mlx5_0 NODE (mapped mlx5_3 SYS); " "$TMP/bad/report/rack-default.html"
ok $? "the rack's HTML page shows each GPU's nearest NIC, the distance, and the mapped one"
n=$(rec bad 'my $g = $p->{inventory}{gpu_nic_affinity}{gpus}[3]; "$g->{nearest} $g->{distance} $g->{expected} $g->{expected_distance}"')
is "$n" "mlx5_0 NODE mlx5_3 SYS" "GPU 3's record: its nearest NIC now across host bridges (NODE), its mapped one SYS"

run cpu plain no-gpus
rc=$?
n=$(rec cpu '!$p->{inventory}{gpu_nic_affinity}{applied} && $p->{inventory}{gpu_nic_affinity}{why} =~ /has no NVIDIA GPU under / ? 1 : 0')
ok $(( rc != 0 || n != 1 )) "no GPU: the node passes its other checks ($rc) and the record says the check did not apply, and why ($n)"
grep -q "^# $H: GPU-NIC affinity did not apply: $H has no NVIDIA GPU under .*: there is no GPU to place$" "$TMP/cpu/preflight.tap"
ok $? "and so does the TAP"
done_testing
