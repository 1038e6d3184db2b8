#!/bin/bash
# slurm.t - the srun launcher against a real Slurm: a private one-node
# cluster (slurmctld and slurmd from Debian's packages, on their own ports
# and state directories under $TMP, munge for authentication) started for
# this test and stopped after it. Shows that:
#   - `fabcert run --launcher srun` starts every stage as a Slurm job step
#     (srun --mpi=pmix), alone and with an inventory, and passes;
#   - a rank that hangs under srun is named, its stage is ended at the
#     timeout and the step leaves no process and no job behind;
#   - a rank killed under srun (the injector, tests/inject) is a crash, not
#     a hang: srun's notice of the task's end, written before it aborted
#     the step, names it dead; the task srun killed itself is not blamed;
#   - the stage program unable to start on the host (a shared library
#     missing there: tests/inject/fc_nostart.c's constructor exits 127
#     before main): srun names the host and its tasks; it is every host of
#     the stage, so one run-level error names the cause and nobody is
#     quarantined, never a PASS;
#   - inside an allocation (salloc) without an inventory, the hosts are the
#     allocation's.
# Needs root and the Slurm packages (make deps installs them); skips with
# the reason otherwise.
. tests/e2e/tap.sh
FC=$BUILD/fabcert
if [ "$(id -u)" != 0 ]; then
    echo "1..0 # SKIP needs root to start slurmctld and slurmd (CI runs as root)"; exit 0
fi
for tool in slurmctld slurmd srun salloc squeue sinfo munged munge unmunge; do
    command -v $tool > /dev/null ||
        { echo "1..0 # SKIP $tool is missing (make deps installs it)"; exit 0; }
done
[ -r /etc/munge/munge.key ] || { echo "1..0 # SKIP no munge key in /etc/munge"; exit 0; }

H=$(hostname)
S=$TMP/slurm
mkdir -p "$S/ctld" "$S/d"
port=$((16000 + RANDOM % 2000))
cat > "$S/slurm.conf" <<EOF
ClusterName=fabcert$port
SlurmctldHost=$H
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmUser=root
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmdSpoolDir=$S/d
StateSaveLocation=$S/ctld
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
NodeName=$H CPUs=$(nproc) State=UNKNOWN
PartitionName=fc Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
EOF
export SLURM_CONF=$S/slurm.conf
started_munge=
stop_slurm() {
    for p in slurmd slurmctld; do
        [ -s "$S/$p.pid" ] && kill "$(cat "$S/$p.pid")" 2>/dev/null
    done
    pkill -f -- "-f $S/slurm.conf" 2>/dev/null
    [ -n "$started_munge" ] && pkill -x munged
    [ -n "${KEEP:-}" ] || rm -rf "$TMP"
}
trap stop_slurm EXIT
munge_works() { timeout -k 10 5 munge -n 2> /dev/null | timeout -k 10 5 unmunge > /dev/null 2>&1; }
if ! munge_works; then
    mkdir -p /run/munge && chown munge: /run/munge 2>/dev/null
    runuser -u munge -- munged 2> "$TMP/munged.err" || munged --force 2>> "$TMP/munged.err"
    started_munge=1
    for _ in $(seq 1 20); do munge_works && break; sleep 0.25; done
    munge_works || { echo "1..0 # SKIP munged does not start: $(tail -1 "$TMP/munged.err")"; exit 0; }
fi
slurmctld -f "$SLURM_CONF" 2> "$TMP/ctld.err"
slurmd -f "$SLURM_CONF" 2> "$TMP/d.err"
node_state() { timeout -k 10 5 sinfo -h -o %t 2> /dev/null; }
for _ in $(seq 1 40); do
    [ "$(node_state)" = idle ] && break
    sleep 0.5
done
if [ "$(node_state)" != idle ]; then
    echo "1..0 # SKIP the private Slurm did not come up: $(tail -1 "$S/slurmd.log" 2>/dev/null)"
    exit 0
fi

plan 10
rec() { jsonl "$TMP/$1/results.jsonl" "$2"; }

# 1. this machine alone, then with an inventory
$FC run --launcher srun --np 2 --out "$TMP/alone" --sizes 4KiB \
    --collectives all_reduce,all_gather > "$TMP/alone.out" 2>&1
rc=$?
n=$(rec alone 'scalar grep { $_->{type} eq "stage_start" && $_->{ranks} == 2 && $_->{slurm}{job_id} =~ /^\d+$/ } @r')
[ $rc -eq 0 ] && grep -q '^verdict: PASS' "$TMP/alone.out" && [ "$n" = 1 ]
ok $? "fabcert run --launcher srun: the node stage runs as a Slurm job step and passes ($rc, $n)"
grep -q '"launcher": *"srun"' "$TMP/alone/run.json"
ok $? "run.json names the launcher"
echo "$H" > "$TMP/hosts"
$FC run --launcher srun --hosts "$TMP/hosts" --ppn 2 --out "$TMP/inv" --sizes 4KiB \
    --collectives all_reduce > "$TMP/inv.out" 2>&1
rc=$?
n=$(rec inv 'scalar grep { $_->{type} eq "stage_start" && $_->{slurm}{job_id} } @r')
[ $rc -eq 0 ] && grep -q '^rack default: PASS' "$TMP/inv.out" && [ "$n" = 1 ]
ok $? "with an inventory: srun on the healthy hosts, --ntasks-per-node from --ppn ($rc)"

# 2. a rank that hangs under srun
sed 's/timeout_s: 900/timeout_s: 8/' thresholds/local.yaml > "$TMP/short.yaml"
start=$(date +%s)
$FC run --launcher srun --hosts "$TMP/hosts" --ppn 2 --out "$TMP/hang" --profile "$TMP/short.yaml" \
    --sizes 4KiB --collectives all_reduce,all_gather --selftest-hang rank=1,index=1 \
    > "$TMP/hang.out" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
[ $rc -eq 1 ] && grep -q "HANG rank 1 on host $H did not arrive" "$TMP/hang.out"
ok $? "a hung rank under srun is named: rank 1 on $H ($rc)"
[ $took -le $(( 8 + 15 + 10 )) ]
ok $? "and the stage ends by its timeout plus the margin (${took}s)"
# Slurm reaps the step's tasks on its own schedule: wait for that, bounded
for _ in $(seq 1 20); do
    ! pgrep -f "suites/node .*$TMP/hang" > /dev/null && [ -z "$(timeout -k 10 10 squeue -h)" ] && break
    sleep 0.5
done
! pgrep -f "suites/node .*$TMP/hang" > /dev/null && [ -z "$(timeout -k 10 10 squeue -h)" ]
ok $? "the step leaves no process and no job behind (within 10 s)"

# 2b. a rank killed under srun; LD_PRELOAD goes to the tasks, not srun
$FC run --launcher srun --hosts "$TMP/hosts" --ppn 2 --out "$TMP/kill" --profile "$TMP/short.yaml" \
    --sizes 4KiB --collectives all_reduce,all_gather \
    --mpirun-arg "--export=ALL,LD_PRELOAD=$PWD/$BUILD/libfc_inject.so" --env FC_INJECT_HOST=$H \
    --env FC_INJECT_RANK=1 --env FC_INJECT_MODE=kill --env FC_INJECT_CALL=2 \
    --env FC_INJECT_PROGRAM=node --env FC_INJECT_COLL=allreduce > "$TMP/kill.out" 2>&1
rc=$?
n=$(rec kill 'my @c = grep { $_->{type} eq "crash" || $_->{type} eq "hang" } @r; join ",", map { "$_->{type}/$_->{ranks}/$_->{signal}" } @c')
[ $rc -eq 1 ] && [ "$n" = "crash/1/9" ] &&
    grep -q "CRASH rank 1 on host $H died: the launcher reports rank 1 exited on signal 9" "$TMP/kill.out"
ok $? "a rank killed under srun is a crash, not a hang: rank 1, signal 9 ($rc, $n)"
for _ in $(seq 1 20); do
    ! pgrep -f "suites/node .*$TMP/kill" > /dev/null && [ -z "$(timeout -k 10 10 squeue -h)" ] && break
    sleep 0.5
done

# 2c. the stage program cannot start on the only host: every host of the
# stage, so a run-level error, not a quarantine
$FC run --launcher srun --hosts "$TMP/hosts" --ppn 2 --out "$TMP/nostart" --profile "$TMP/short.yaml" \
    --sizes 4KiB --collectives all_reduce \
    --mpirun-arg "--export=ALL,LD_PRELOAD=$PWD/$BUILD/libfc_nostart.so" --env FC_NOSTART_HOST=$H \
    > "$TMP/nostart.out" 2>&1
rc=$?
n=$(rec nostart 'join ",", map { "$_->{type}:" . ($_->{cannot_start} ? "$_->{hosts}/" . scalar(@{$_->{cannot_start}{launcher}}) : "") } grep { $_->{type} =~ /^(stage_error|cannot_start|quarantine|crash|hang)$/ } @r')
[ $rc -eq 1 ] && [ "$n" = "stage_error:$H/2" ] &&
    grep -q "ERROR the stage program could not start on any host: no rank of the stage reached main (no start line from any); rank 0 on host $H exited with status 127 before reaching main.*srun: error: $H: tasks 0-1: Exited with exit code 127.*error while loading shared libraries" "$TMP/nostart.out" &&
    grep -q "^rack default: INCOMPLETE" "$TMP/nostart.out"
ok $? "the stage program unable to start on the only host: srun names $H and its 2 tasks, status 127; a run-level error, nobody quarantined, INCOMPLETE ($rc, $n)"
for _ in $(seq 1 20); do
    [ -z "$(timeout -k 10 10 squeue -h)" ] && break
    sleep 0.5
done

# 3. inside an allocation, without an inventory
timeout -k 10 300 salloc -N 1 --exclusive --quiet --immediate=60 $FC run --launcher srun --out "$TMP/alloc" --sizes 4KiB \
    --collectives all_reduce > "$TMP/alloc.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^fabcert: hosts from SLURM_JOB_NODELIST: $H$" "$TMP/alloc.out"
ok $? "in an allocation the hosts come from SLURM_JOB_NODELIST ($rc)"
n=$(rec alloc 'my %j = map { $_->{slurm}{job_id} => 1 } grep { $_->{type} eq "stage_start" } @r; scalar keys %j')
ok $(( n != 1 )) "and the stage runs as a step of that allocation ($n job)"
done_testing
