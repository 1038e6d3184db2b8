#!/bin/bash
# topology.t - the rack map taken from what knows the topology (`fabcert
# topology`, `run --racks-from`; lib/inventory/fc_topology.h). Shows that:
#   - each fixture of tests/fixtures/topology (README there: where each
#     format comes from) gives the expected racks (its .racks file): Slurm's
#     `scontrol show topology` and topology.conf, ibnetdiscover files,
#     `kubectl get nodes -o json` and -o yaml; from a file, FORMAT:FILE and
#     standard input alike;
#   - malformed input exits 2 with one message naming file:line, and prints
#     no rack map;
#   - against a live slurmctld (Debian's Slurm with topology/tree, started
#     for this test on its own port and stopped by its pid): `fabcert
#     topology slurm` runs `scontrol show topology` itself and gives the
#     expected racks (skipped without Slurm or munge);
#   - check-inventory --racks-from, and the options run refuses;
#   - a host list in MPI hostfile form: slots=N is the ranks per node;
#     unequal slots, or a bad slots=, exit 2 naming the line;
#   - `fabcert run --racks-from slurm:FILE` on the virtual cluster PASSes,
#     with a certificate per leaf switch; the plan's inputs name the source
#     and the frozen rack map says where the racks came from.
# lane: pinned, about 6 s (starts and stops the host's munged, as slurm.t does: never beside it)
. tests/e2e/tap.sh
FC=$BUILD/fabcert
FIX=tests/fixtures/topology
plan 24

racks_of() { sed -e 's/#.*//' -e 's/[[:space:]]*$//' | grep -v '^$'; }
same() {    # same DESCRIPTION EXPECTED-FILE COMMAND...: its rack lines are the file's
    local d=$1 want=$2; shift 2
    "$@" > "$TMP/got" 2> "$TMP/got.err"
    local rc=$?
    if [ $rc -eq 0 ] && racks_of < "$TMP/got" | diff -u "$want" - > "$TMP/diff"; then
        ok 0 "$d"
    else
        ok 1 "$d"
        diag "exit $rc" "$(head -5 "$TMP/diff")" "$(head -3 "$TMP/got.err")"
    fi
}

# 1. fixtures give their racks
same "slurm: scontrol show topology (22.05, a spine listing every node) gives the leaf racks" \
    $FIX/slurm.racks $FC topology slurm $FIX/slurm-show-topology.txt
same "slurm: topology.conf gives the same racks" $FIX/slurm.racks $FC topology slurm:$FIX/slurm-topology.conf
same "slurm: read from standard input ('-')" $FIX/slurm.racks \
    sh -c "$FC topology slurm - < $FIX/slurm-show-topology.txt"
same "ibnetdiscover: the leaf of each host's first rail" $FIX/ibnet-rails.racks \
    $FC topology ibnetdiscover $FIX/ibnet-rails.txt
grep -q '^gpu02 leaf-r1-rail0  # rails: 0 mlx5_0 leaf-r1-rail0, 1 mlx5_1 leaf-r1-rail1$' "$TMP/got" &&
    grep -q "^# note: left out: HCA H-b83fd20300c0a000 (line [0-9]*) is described as 'MT4129" "$TMP/got"
ok $? "ibnetdiscover: each host's rails beside it; an HCA that names no host is left out, noted"
same "ibnetdiscover: a rail cabled to another rack's leaf does not move its host" \
    $FIX/ibnet-rails.racks $FC topology ibnetdiscover $FIX/ibnet-miscabled.txt
grep -q "^fabcert: note: host gpu02: rail 1 (mlx5_1, line 42) hangs off leaf-r2-rail1, where 1 other host(s) of rack leaf-r1-rail0 have leaf-r1-rail1" "$TMP/got.err"
ok $? "and the miscabled rail is reported, naming host, rail, line and leaves"
same "ibnetdiscover: leaves with the factory description are named by GUID" \
    $FIX/ibnet-unnamed.racks $FC topology ibnetdiscover $FIX/ibnet-unnamed.txt
same "k8s: kubectl get nodes -o json, the leaf label" $FIX/k8s-nodes.racks \
    $FC topology k8s $FIX/k8s-nodes.json
same "k8s: kubectl get nodes -o yaml, the NVLink clique where there is no leaf label" \
    $FIX/k8s-nodes-clique.racks $FC topology k8s $FIX/k8s-nodes-clique.yaml

# 2. malformed input: exit 2, file:line, no rack map
bad() {     # bad DESCRIPTION FORMAT TEXT EXPECTED-MESSAGE
    printf "$3" > "$TMP/bad.in"
    $FC topology "$2" "$TMP/bad.in" > "$TMP/bad.out" 2> "$TMP/bad.err"
    local rc=$?
    [ $rc -eq 2 ] && [ ! -s "$TMP/bad.out" ] && grep -qF -- "$4" "$TMP/bad.err"
    ok $? "$1: exit 2 ($rc), '$4'"
    [ $? -eq 0 ] || why "$(cat "$TMP/bad.err")"
}
bad "slurm, a node under two leaves" slurm \
    'SwitchName=s1 Level=0 Nodes=n[1-2]\nSwitchName=s2 Level=0 Nodes=n2\n' \
    "$TMP/bad.in:2: host 'n2' is in two racks: 's2' here and 's1' on line 1"
bad "ibnetdiscover, a line of another file" ibnetdiscover '#\nSwitchName=s1 Nodes=n1\n' \
    "$TMP/bad.in:2: not a line of an ibnetdiscover topology file"
bad "k8s, a node without a name" k8s \
    '{"items": [\n {"metadata": {"labels": {"topology.kubernetes.io/zone": "z"}}}]}\n' \
    "$TMP/bad.in:2: a node without metadata.name"
$FC topology lldp "$TMP/bad.in" > /dev/null 2> "$TMP/fmt.err"
[ $? -eq 2 ] && grep -q "unknown format 'lldp': give slurm, ibnetdiscover or k8s" "$TMP/fmt.err"
ok $? "an unknown format: exit 2, naming the formats"

# 3. live: scontrol show topology from a private slurmctld
live_slurm() {
    local S=$TMP/slurm port=$((18000 + RANDOM % 1000)) H
    H=$(hostname)
    for tool in slurmctld scontrol munge unmunge munged; do
        command -v $tool > /dev/null || { echo "$tool is missing (make deps installs it)"; return 1; }
    done
    [ "$(id -u)" = 0 ] || { echo "needs root to start slurmctld"; return 1; }
    mkdir -p "$S/ctld"
    if ! timeout -k 10 5 munge -n 2> /dev/null | timeout -k 10 5 unmunge > /dev/null 2>&1; then
        mkdir -p /run/munge && chown munge: /run/munge 2> /dev/null
        runuser -u munge -- munged > /dev/null 2>&1 || { echo "munged does not start"; return 1; }
        for _ in $(seq 1 20); do
            MUNGED_PID=$(cat /run/munge/munged.pid 2> /dev/null)
            [ -n "$MUNGED_PID" ] && timeout -k 10 5 munge -n 2> /dev/null | timeout -k 10 5 unmunge > /dev/null 2>&1 &&
                break
            sleep 0.25
        done
    fi
    cat > "$S/slurm.conf" <<EOF
ClusterName=fctopo$port
SlurmctldHost=$H
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SlurmUser=root
SlurmctldPidFile=$S/slurmctld.pid
StateSaveLocation=$S/ctld
SlurmctldLogFile=$S/slurmctld.log
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
TopologyPlugin=topology/tree
NodeName=gpu[001-008] NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
NodeName=cpu[1-2] NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=fc Nodes=ALL Default=YES State=UP
EOF
    grep -v '^#' $FIX/slurm-topology.conf > "$S/topology.conf"
    export SLURM_CONF=$S/slurm.conf
    slurmctld -f "$SLURM_CONF" 2> "$S/ctld.err" || { echo "slurmctld does not start"; return 1; }
    for _ in $(seq 1 40); do
        timeout -k 10 5 scontrol show topology > /dev/null 2>&1 && return 0
        sleep 0.25
    done
    echo "slurmctld does not answer: $(tail -1 "$S/slurmctld.log")"
    return 1
}
stop_slurm() {
    [ -s "$TMP/slurm/slurmctld.pid" ] && kill "$(cat "$TMP/slurm/slurmctld.pid")" 2> /dev/null
    [ -n "${MUNGED_PID:-}" ] && kill "$MUNGED_PID" 2> /dev/null
}
MUNGED_PID=
if live_slurm > "$TMP/why"; then
    same "live: fabcert topology slurm runs scontrol show topology and gives the leaf racks" \
        $FIX/slurm.racks $FC topology slurm
    grep -q '^# rack map from `scontrol show topology`, run here' "$TMP/got"
    ok $? "the rack map says it came from scontrol, run here"
else
    ok 0 "# SKIP live Slurm: $(cat "$TMP/why")"
    ok 0 "# SKIP live Slurm: $(cat "$TMP/why")"
fi
stop_slurm
unset SLURM_CONF

# 4. check-inventory and run's checks
$FC check-inventory --hosts <(printf 'gpu00[5-6]\n') --racks-from slurm:$FIX/slurm-show-topology.txt \
    > "$TMP/ci.out" 2>&1
[ $? -eq 0 ] && grep -q '^gpu006 leaf-b$' "$TMP/ci.out" &&
    grep -q '^# 2 hosts in 1 racks$' "$TMP/ci.out"
ok $? "check-inventory --racks-from: an allocation's hosts in the topology's racks"
$FC run --racks "$TMP/x" --racks-from slurm:$FIX/slurm.racks > /dev/null 2> "$TMP/both.err"
rc=$?
$FC run --racks-from slurm:$FIX/slurm-topology.conf --rack-label a/b > /dev/null 2> "$TMP/label.err"
[ $rc -eq 2 ] && grep -q "give one rack map" "$TMP/both.err" && [ $? -eq 0 ] &&
    grep -q -- "--rack-label a/b names a Kubernetes node label" "$TMP/label.err"
ok $? "run refuses --racks with --racks-from, and --rack-label without k8s (exit 2)"

# 5. a hostfile: slots=N is the ranks per node
printf 'gpu001 slots=8\ngpu002 slots=4\n' > "$TMP/uneven"
$FC run --hosts "$TMP/uneven" --out "$TMP/uneven-out" > /dev/null 2> "$TMP/uneven.err"
rc=$?
printf 'gpu001 slots=x\n' > "$TMP/badslots"
$FC check-inventory --hosts "$TMP/badslots" > /dev/null 2> "$TMP/badslots.err"
[ $rc -eq 2 ] && grep -q "$TMP/uneven:2: host gpu002 has slots=4, host gpu001 (line 1) slots=8" "$TMP/uneven.err" &&
    [ $? -eq 0 ] && grep -q "$TMP/badslots:1: bad 'slots=x'" "$TMP/badslots.err" && [ ! -e "$TMP/uneven-out" ]
ok $? "a hostfile of unequal slots, or a bad slots=, exits 2 naming the line, and leaves nothing"

# 5b. the README's form on this machine: --hosts from a pipe (read once,
#     frozen as read), the racks from the topology
echo "SwitchName=sw-local Level=0 LinkSpeed=1 Nodes=$(hostname)" > "$TMP/local-topo"
$FC run --hosts <(hostname) --racks-from slurm:"$TMP/local-topo" --stages node --np 2 \
    --sizes 4KiB --collectives all_reduce --dtypes int32 --ops sum --iters 2 --out "$TMP/local" \
    > "$TMP/local.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^rack sw-local: PASS' "$TMP/local.out" && [ "$(cat "$TMP/local/hosts")" = "$(hostname)" ]
ok $? "--hosts <(hostname) with --racks-from: PASS, the piped host list frozen as read ($rc)"
[ $rc -eq 0 ] || why "$(grep -m3 -i 'fabcert:\|verdict' "$TMP/local.out")"

# 6. run --racks-from on the virtual cluster
vcluster_up fct
H1=${NAME}01
{   echo "SwitchName=tor-1 Level=0 LinkSpeed=1 Nodes=${NAME}[01-02]"
    echo "SwitchName=tor-2 Level=0 LinkSpeed=1 Nodes=${NAME}[03-04]"
    echo "SwitchName=spine Level=1 LinkSpeed=1 Nodes=${NAME}[01-04] Switches=tor-[1-2]"
} > "$TMP/topo.txt"
perl -ne '$in = $1 if /^  (\w+):$/; $in = "" if /^\S/; print if $in eq "" || $in =~ /^(node|rack)$/' \
    thresholds/vcluster.yaml > "$TMP/profile.yaml"
$VC --name $NAME exec $H1 $FC run --hosts "$D/hosts" --racks-from "slurm:$TMP/topo.txt" \
    --profile "$TMP/profile.yaml" --ppn 2 --sizes 64KiB --iters 3 --collectives all_reduce \
    --dtypes float32 --ops sum --out "$TMP/run" > "$TMP/run.out" 2>&1
rc=$?
grep -q '^rack tor-1: PASS' "$TMP/run.out" && grep -q '^rack tor-2: PASS' "$TMP/run.out"
ok $(( rc != 0 || $? != 0 )) "run --racks-from slurm:FILE on the virtual cluster: the leaf switches are the racks, and PASS ($rc)"
[ $rc -eq 0 ] || why "$(tail -5 "$TMP/run.out")"
[ -s "$TMP/run/certificates/tor-1.json" ] && [ -s "$TMP/run/certificates/tor-2.json" ]
ok $? "a certificate per leaf switch"
n=$(jsonl "$TMP/run/results.jsonl" 'join ",", map { $_->{inputs}{racks} } grep { $_->{type} eq "plan" } @r')
is "$n" "slurm:$TMP/topo.txt" "the plan's inputs name the topology the racks came from"
grep -q "^# rack map from slurm:$TMP/topo.txt (fabcert topology)" "$TMP/run/racks" &&
    grep -q "^${NAME}03 tor-2" "$TMP/run/racks"
ok $? "the frozen rack map in the run's directory says where it came from"
done_testing
