#!/bin/bash
# blame_hang.t - crash is not hang, and a stage stuck inside a collective,
# on a virtual cluster with uneven racks (2, 3 and 1 nodes), 2 ranks per
# node, faults planted from outside the suite by the MPI interposition
# library (tests/inject). Shows that:
#   - a clean run of the rack and cluster stages passes, and no crash or
#     hang is recorded;
#   - on this machine alone (--np 4): a rank ending with status 2 mid-stage
#     is a crash (named, quarantined, exit 1), not the stage rejecting its
#     input (exit 2, the run stopped); a rank killed in MPI_Finalize after
#     the stage wrote its PASS end is named and quarantined, its rack FAILs;
#   - every rank of one node killed (SIGKILL) inside the rack stage's
#     all_reduce: the stage ends early, and the runner names that host
#     alone as dead (record type crash: both ranks, signal 9, the
#     launcher's words, how many ranks reported being torn down), quarantines
#     it alone, runs the stage again without it, and the cluster stage runs
#     after it; the racks without it PASS;
#   - a node that dies outright (every process of its namespace, Open
#     MPI's daemon too, killed -9 from outside while its ranks are held in
#     the cluster stage): that host alone is named and quarantined, the
#     stage runs again without it and the racks without it PASS;
#   - one rank of a node (rank 7 of its two) stopped inside the cluster
#     stage's all_reduce (alive, never returning; one GPU's process of
#     several): every rank reports at the timeout, stuck in the same call;
#     the point-to-point probe finds every host answering, and the ranks'
#     own accounts of their last seconds (the stopped rank used no CPU, the
#     waiting ones, its host's other rank too, polled) name that host
#     alone, and that rank; the stage runs again without it and the other
#     racks PASS;
#   - one node's Open MPI daemon stopped (SIGSTOP from outside) while the
#     cluster stage runs: the stage writes its end but its launch hangs
#     and is killed at the limit: not a PASS, that node alone is named and
#     quarantined, the stage runs again (about 40 s: only with
#     FC_E2E_DAEMON_STOP=1, else its two points are skipped);
#   - every rank of one healthy node has an MPI call fail inside the
#     cluster stage (the injector's fail mode: the communicator's error
#     handler called with MPI_ERR_OTHER, as the library does when a
#     transport error hits a call, e.g. a peer's link died): those ranks
#     say so (FABCERT-MPIERR) and end the job; mpirun names one of them,
#     yet they observed the fault: the probe finds every host answering,
#     so nobody is quarantined and the stage's racks FAIL as a group;
#   - a node whose fabric stops forwarding mid-stage (its MPI traffic's
#     TCP ports held back by tc on both ends of its link, while the
#     launcher's own traffic passes): every rank reports stuck, none of
#     them idle, and the probe finds that host answering no partner: it is
#     named (part link) and quarantined alone; cut before the stage
#     starts, the stage hangs in its start-up, before any watchdog, and the
#     probe still names that host. These cost about two minutes more (the
#     launches wait out their limits, the probe its deadline), so they run
#     only with FC_E2E_FABRIC_CUT=1; otherwise their points are skipped with
#     that reason.
# Needs root (namespaces); skips with the reason otherwise.
# lane: long (a minute or more: started first)
. tests/e2e/tap.sh
FC=$BUILD/fabcert
vcluster_up fcb 2,3,1
plan 32
H1=${NAME}01 H2=${NAME}02 H4=${NAME}04 H5=${NAME}05
INJ="--env LD_PRELOAD=$PWD/$BUILD/libfc_inject.so"
# p.yaml: the rack and cluster stages; c.yaml: the cluster stage alone
# (a run of part of a profile is INCOMPLETE by design)
cat > "$TMP/p.yaml" <<YAML
name: blame-hang-test
seed: 5
stages:
  rack:
    required: true
    timeout_s: 10
    warmup: 1
    iters: 3
    sizes: [64KiB]
    collectives: [all_reduce]
    dtypes: [float32]
    ops: [sum]
  cluster:
    required: true
    timeout_s: 10
    warmup: 1
    iters: 3
    sizes: [4KiB, 64KiB]
    collectives: [all_reduce, all_gather]
    dtypes: [float32]
    ops: [sum]
YAML
sed '/^  rack:/,/^  cluster:/{/^  cluster:/!d}' "$TMP/p.yaml" > "$TMP/c.yaml"
run() { vcluster_run "$1" --ppn 2 --profile "$TMP/p.yaml" "${@:2}"; }   # run OUT [options]

# 1. clean
t0=$(date +%s)
run clean
rc=$?
n=$(rec clean 'scalar grep { $_->{type} eq "crash" || $_->{type} eq "hang" } @r')
[ $rc -eq 0 ] && [ "$n" = 0 ] && grep -q "^rack rack1: PASS" "$TMP/clean.out" &&
    grep -q "^rack rack2: PASS" "$TMP/clean.out" && grep -q "^rack rack3: PASS" "$TMP/clean.out"
ok $? "a clean run of the rack and cluster stages passes every rack, nothing blamed ($rc, $n, $(( $(date +%s) - t0 ))s)"

# 1b. on this machine alone (--np 4, the cluster stage): rank 2 ends with
# status 2 inside its third call (a library on a node calling exit(2)):
# a death like any other, not the stage rejecting its input (that is
# checked before its stage_start), so the run goes on and names it; and
# rank 1 killed inside MPI_Finalize, after the stage wrote its end (every
# check PASSed): not certified, the host is named and quarantined
t0=$(date +%s)
HERE=$(hostname)
$FC run --np 4 --profile "$TMP/c.yaml" --out "$TMP/exit2" $INJ --env FC_INJECT_HOST=$HERE \
    --env FC_INJECT_RANK=2 --env FC_INJECT_MODE=exit --env FC_INJECT_PROGRAM=cluster \
    --env FC_INJECT_CALL=3 > "$TMP/exit2.out" 2> "$TMP/exit2.err"
rc=$?
n=$(rec exit2 'join ",", map { "$_->{host}/$_->{ranks}/$_->{exit_code}/" . ($_->{implicates}{quarantine} ? 1 : 0) } grep { $_->{type} eq "crash" } @r')
# (Open MPI names rank 2 alone; a rank of the same host whose tear-down
# line was lost as the job ended is listed beside it, as in a host's
# death: the launcher cannot tell the two apart, the host is the same)
[ $rc -eq 1 ] && [[ "$n" =~ ^$HERE/([0-9],)*2(,[0-9])*/2/1$ ]] && [ -s "$TMP/exit2/summary.txt" ] &&
    ! grep -q "rejected its input" "$TMP/exit2.err"
ok $? "a rank that ends with status 2 mid-stage is a crash, not bad input: named, quarantined, the run reports, exit 1 ($rc, $n, $(( $(date +%s) - t0 ))s)"
t0=$(date +%s)
$FC run --np 4 --profile "$TMP/c.yaml" --out "$TMP/atend" $INJ --env FC_INJECT_HOST=$HERE \
    --env FC_INJECT_RANK=1 --env FC_INJECT_MODE=kill-at-end --env FC_INJECT_PROGRAM=cluster \
    > "$TMP/atend.out" 2> "$TMP/atend.err"
rc=$?
n=$(rec atend 'my ($e) = grep { $_->{type} eq "stage_end" } @r; join ",", $e->{verdict}, map { "$_->{host}/$_->{ranks}/$_->{signal}/" . ($_->{implicates}{quarantine} ? 1 : 0) } grep { $_->{type} eq "crash" } @r')
is "$n" "PASS,$HERE/1/9/1" "a rank killed in MPI_Finalize after the stage wrote its PASS end: a crash record names it, signal 9, quarantined ($n, $(( $(date +%s) - t0 ))s)"
[ $rc -eq 1 ] && grep -q "^rack default: FAIL" "$TMP/atend.out" &&
    grep -q "rank 1 on host $HERE died after the stage wrote its end: the launcher reports it exited on signal 9" "$TMP/atend.out"
ok $? "its rack FAILs, not PASS, and the run says why, exit 1 ($rc)"

# 2. both ranks of $H4 killed in the rack stage's third all_reduce
t0=$(date +%s)
run kill $INJ --env FC_INJECT_HOST=$H4 --env FC_INJECT_MODE=kill --env FC_INJECT_PROGRAM=rack \
    --env FC_INJECT_CALL=3
rc=$?
diag "kill: $(( $(date +%s) - t0 )) s"
n=$(rec kill 'my @c = grep { $_->{type} eq "crash" } @r; scalar(@c) . ":" . join(",", map { "$_->{host}/$_->{ranks}/$_->{signal}/$_->{implicates}{quarantine}" } @c)')
is "$n" "1:$H4/3,9/9/1" "one crash record: $H4, both its ranks (3,9), signal 9, quarantined ($n)"
q=$(quarantined kill)
is "$q" "$H4" "only $H4 is quarantined ($q)"
# (a tear-down line can be lost as mpirun ends the job: such a rank is
# listed as silent_not_blamed, never blamed)
n=$(rec kill 'my ($c) = grep { $_->{type} eq "crash" } @r; my @l = grep { length } split /,/, $c->{evidence}{silent_not_blamed} // ""; sprintf "%d/%d/%d", !$c->{evidence}{timeout_came}, $c->{evidence}{torn_down_ranks} + @l, scalar grep { /exited on signal 9/ } @{$c->{evidence}{launcher}}')
is "$n" "1/10/1" "it ended before any watchdog fired; the 10 others were torn down (or lost their line, not blamed); the launcher's notice is kept ($n)"
n=$(rec kill 'scalar grep { $_->{type} eq "hang" } @r')
ok $n "no hang is recorded for a crash ($n)"
grep -q "CRASH ranks 3,9 on host $H4 died: the launcher reports rank [39] exited on signal 9 (Killed)" "$TMP/kill.out"
ok $? "the run says which ranks died, where and of what"
n=$(rec kill 'join ",", map { $_->{stage} . (grep({ $_ eq "'$H4'" } @{$_->{rank_hosts}}) ? "+" : "-") } grep { $_->{type} eq "stage_start" } @r')
e=$(rec kill 'join ",", map { $_->{stage} } grep { $_->{type} eq "stage_end" } @r')
is "$n; ended: $e" "rack+,rack-,cluster-; ended: rack,cluster" \
    "the rack stage runs again without $H4, and the cluster stage after it ($n; ended: $e)"
[ $rc -eq 1 ] && grep -q "^rack rack1: PASS" "$TMP/kill.out" && grep -q "^rack rack2: FAIL" "$TMP/kill.out" &&
    grep -q "^rack rack3: PASS" "$TMP/kill.out"
ok $? "rack2 (with $H4) FAILs, rack1 and rack3 PASS ($rc)"
grep -q "exited on signal 9" "$TMP/kill/certificates/rack2.json" &&
    ! grep -q "exited on signal 9" "$TMP/kill/certificates/rack1.json"
ok $? "rack2's certificate holds the crash's evidence, rack1's does not"
# the evidence where people and programs read it: rack2's HTML page says
# who died and how the others ended; its certificate holds the record's
# evidence (the launcher's words, the torn-down count, no watchdog fired)
grep -q "ranks 3,9 on host $H4 died: the launcher reports rank [39] exited on signal 9 (Killed).*other rank(s) were torn down" "$TMP/kill/report/rack-rack2.html" &&
    perl -MJSON::PP -e 'local $/; my $c = decode_json(<>)->{certificate};
        my @f = grep { ref $_->{evidence} } map { @{$_->{figures} || []} } @{$c->{stages} || []};
        exit !(grep { !$_->{evidence}{timeout_came} && $_->{evidence}{torn_down_ranks} > 0 &&
                      grep({ /exited on signal 9/ } @{$_->{evidence}{launcher}}) } @f)' \
        "$TMP/kill/certificates/rack2.json"
ok $? "the crash in rack2's HTML (who died, the others torn down) and its evidence in the certificate"

# 2b. node $H5 dies outright in the cluster stage: its ranks held at the
# third all_reduce (the injector's stop, so the stage cannot end first),
# then every process of its namespace, Open MPI's daemon too, killed -9
# from outside. mpirun says it lost the daemon, or only that a daemon
# failed: either way $H5 is the one host all silent, placed alone
t0=$(date +%s)
run nodedie $INJ --env FC_INJECT_HOST=$H5 --env FC_INJECT_MODE=stop --env FC_INJECT_PROGRAM=cluster \
    --env FC_INJECT_CALL=3 --profile "$TMP/c.yaml" &
pid=$!
for _ in $(seq 1 150); do
    grep -q '"stage_start"' "$TMP/nodedie/results.jsonl" 2> /dev/null && break
    sleep 0.2
done
sleep 1
kill -9 $(ip netns pids $H5) 2> /dev/null
wait $pid
rc=$?
diag "node dies: $(( $(date +%s) - t0 )) s"
n=$(rec nodedie 'my @c = grep { $_->{type} eq "crash" || $_->{type} eq "hang" } @r; scalar(@c) . ":" . join(",", map { "$_->{type}/$_->{host}/$_->{ranks}/" . ($_->{implicates}{quarantine} ? 1 : 0) } @c)')
q=$(quarantined nodedie)
is "$n; $q" "1:crash/$H5/4,10/1; $H5" "a node that died outright: one crash record names $H5 (ranks 4,10), $H5 alone quarantined ($n; $q)"
n=$(rec nodedie 'join ",", map { $_->{stage} . (grep({ $_ eq "'$H5'" } @{$_->{rank_hosts}}) ? "+" : "-") } grep { $_->{type} eq "stage_start" } @r')
[ "$n" = "cluster+,cluster-" ] && [ $rc -eq 1 ] && grep -q "^rack rack1: PASS" "$TMP/nodedie.out" &&
    grep -q "^rack rack2: FAIL" "$TMP/nodedie.out" && grep -q "^rack rack3: PASS" "$TMP/nodedie.out"
ok $? "the stage runs again without $H5: rack1 and rack3 PASS, rack2 FAILs ($n, $rc)"

# 3. rank 7 of $H2 (not its rank 1) stopped in the cluster stage's third
# all_reduce
t0=$(date +%s)
run stop $INJ --env FC_INJECT_HOST=$H2 --env FC_INJECT_RANK=7 --env FC_INJECT_MODE=stop \
    --env FC_INJECT_PROGRAM=cluster --env FC_INJECT_CALL=3 --profile "$TMP/c.yaml"
rc=$?
diag "stop: $(( $(date +%s) - t0 )) s"
n=$(rec stop 'my @h = grep { $_->{type} eq "hang" } @r; scalar(@h) . ":" . join(",", map { "$_->{host}/$_->{ranks}/$_->{implicates}{part}/$_->{implicates}{quarantine}" } @h)')
is "$n" "1:$H2/7/node/1" "stuck in a collective: one hang record names $H2 and its stopped rank 7 ($n)"
n=$(rec stop 'my ($h) = grep { $_->{type} eq "hang" } @r; $h->{evidence}{probe}')
echo "$n" | grep -q "6 host(s), 30 of 30 directed exchanges arrived intact"
ok $? "the probe ran on the 6 hosts and every pair answered ($n)"
n=$(rec stop 'my ($h) = grep { $_->{type} eq "hang" } @r; join ",", map { sprintf "%s:%s", $_->{rank}, $_->{cpu_pct} < 0.2 ? "idle" : "busy" } @{$h->{evidence}{ranks}}')
is "$n" "0:busy,1:busy,2:busy,3:busy,4:busy,5:busy,6:busy,7:idle,8:busy,9:busy,10:busy,11:busy" \
    "the ranks' accounts: only rank 7 was idle, $H2's rank 1 polled ($n)"
q=$(quarantined stop)
is "$q" "$H2" "only $H2 is quarantined ($q)"
[ $rc -eq 1 ] && grep -q "^rack rack1: FAIL" "$TMP/stop.out" && grep -q "^rack rack2: PASS" "$TMP/stop.out" &&
    grep -q "^rack rack3: PASS" "$TMP/stop.out"
ok $? "the stage runs again without it: rack2 and rack3 PASS, rack1 FAILs ($rc)"
grep -q "the process(es) of rank(s) 7 on host $H2 stopped making progress: ranks 7 used at most [0-9.]*% of a core .*a point-to-point probe placed no host: [0-9]* host(s), [0-9]* of [0-9]* directed exchanges arrived intact" "$TMP/stop/report/rack-rack1.html" &&
    perl -MJSON::PP -e 'local $/; my $c = decode_json(<>)->{certificate};
        my @f = grep { ref $_->{evidence} } map { @{$_->{figures} || []} } @{$c->{stages} || []};
        exit !(grep { $_->{evidence}{probe} =~ /30 of 30 directed exchanges/ &&
                      @{$_->{evidence}{probe_answers} || []} == 6 && @{$_->{evidence}{ranks} || []} == 12 } @f)' \
        "$TMP/stop/certificates/rack1.json"
ok $? "the placement in rack1's HTML (idle ranks, the probe) and its evidence in the certificate (the probe's 6 answers, the 12 ranks' accounts)"

# 3c. $H5's Open MPI daemon stopped (SIGSTOP from outside) while the
# cluster stage runs: the stage ends and writes its end, but its launch
# cannot finish (the daemon forwards $H5's ranks' words and their
# shutdown) and is killed at the limit. Not a PASS: the ranks whose words
# never came name $H5, it alone is quarantined and the stage runs again.
# About 40 s: only with FC_E2E_DAEMON_STOP=1
if [ -z "${FC_E2E_DAEMON_STOP:-}" ]; then
    for _ in 1 2; do
        ok 0 "# SKIP the stopped-daemon scenario takes about 40 s: FC_E2E_DAEMON_STOP=1 runs it"
    done
else
    sed 's/iters: 3/iters: 30/' "$TMP/c.yaml" > "$TMP/c30.yaml"
    t0=$(date +%s)
    run dstop --profile "$TMP/c30.yaml" &
    pid=$!
    for _ in $(seq 1 150); do
        grep -q '"stage_start"' "$TMP/dstop/results.jsonl" 2> /dev/null && break
        sleep 0.2
    done
    daemon=$(for p in $(ip netns pids $H5); do
                 [ "$(cat /proc/$p/comm 2> /dev/null)" = orted ] && echo $p; done)
    kill -STOP $daemon
    wait $pid
    rc=$?
    kill -9 $daemon 2> /dev/null
    diag "daemon stopped: $(( $(date +%s) - t0 )) s"
    n=$(rec dstop 'join ",", map { "$_->{type}/$_->{host}/" . ($_->{implicates}{quarantine} ? 1 : 0) } grep { $_->{type} =~ /^(hang|crash)$/ } @r')
    q=$(quarantined dstop)
    is "$n; $q" "hang/$H5/1; $H5" "a launch killed after the stage ended: $H5, whose ranks' words never came, is named and quarantined ($n; $q)"
    [ $rc -eq 1 ] && grep -q "the stage wrote its end, but its launch did not end" "$TMP/dstop.out" &&
        grep -q "^rack rack1: PASS" "$TMP/dstop.out" && grep -q "^rack rack2: FAIL" "$TMP/dstop.out" &&
        grep -q "^rack rack3: PASS" "$TMP/dstop.out"
    ok $? "not a PASS: the run says so, rack2 FAILs, the stage runs again and rack1 and rack3 PASS ($rc)"
fi

# 3b. both ranks of $H2 (healthy) have the cluster stage's third all_reduce
# fail through the communicator's error handler: observers, not culprits
t0=$(date +%s)
run mpierr $INJ --env FC_INJECT_HOST=$H2 --env FC_INJECT_MODE=fail --env FC_INJECT_PROGRAM=cluster \
    --env FC_INJECT_CALL=3 --profile "$TMP/c.yaml"
rc=$?
diag "mpierr: $(( $(date +%s) - t0 )) s"
n=$(rec mpierr 'my @h = grep { $_->{type} eq "hang" || $_->{type} eq "crash" } @r; my @e = map { @{$_->{evidence}{mpi_errors} || []} } @h;
    scalar(@h) . ":" . join(",", map { "$_->{type}/$_->{host}/" . ($_->{implicates}{quarantine} ? 1 : 0) } @h) . ":" .
    (@e && !grep({ $_->{host} ne "'$H2'" } @e) ? "'$H2'" : "?")')
is "$n" "1:hang//0:$H2" "an MPI call failed on $H2's ranks: one record, nobody placed, the failed calls of $H2 as evidence ($n)"
q=$(quarantined mpierr)
is "$q" "" "the observer $H2 is not quarantined (${q:-nobody})"
n=$(rec mpierr 'my ($h) = grep { $_->{type} eq "hang" } @r; $h->{evidence}{probe}')
grep -q "HANG an MPI call failed and ended the stage after .*on $H2 (in all_reduce float32 sum .*MPI_ERR_OTHER.*those ranks observed a fault, they did not cause it, and the probe places none" "$TMP/mpierr.out" &&
    echo "$n" | grep -q "6 host(s), 30 of 30 directed exchanges arrived intact"
ok $? "the run says which call failed where, and that the probe found every host answering ($n)"
[ $rc -eq 1 ] && grep -q "^rack rack1: FAIL" "$TMP/mpierr.out" && grep -q "^rack rack2: FAIL" "$TMP/mpierr.out" &&
    grep -q "^rack rack3: FAIL" "$TMP/mpierr.out"
ok $? "the stage's racks FAIL as a group ($rc)"

# 4. $H5's fabric stops forwarding while the cluster stage runs
cut() {     # cut DEV [command prefix]: hold back the MPI ports on DEV's egress
    local dev=$1; shift
    "$@" tc qdisc add dev $dev root handle 1: htb default 10 2> /dev/null &&
    "$@" tc class add dev $dev parent 1: classid 1:10 htb rate 10gbit 2> /dev/null &&
    "$@" tc class add dev $dev parent 1: classid 1:20 htb rate 8bit ceil 8bit 2> /dev/null &&
    "$@" tc filter add dev $dev parent 1: protocol ip prio 1 u32 match ip dport 20480 0xff00 flowid 1:20 &&
    "$@" tc filter add dev $dev parent 1: protocol ip prio 2 u32 match ip sport 20480 0xff00 flowid 1:20
}
if [ -z "${FC_E2E_FABRIC_CUT:-}" ]; then
    for _ in 1 2 3 4 5; do
        ok 0 "# SKIP the fabric-cut scenario takes about a minute: FC_E2E_FABRIC_CUT=1 runs it"
    done
else
    # the MPI traffic's TCP ports, so that only it is held back
    export OMPI_MCA_btl_tcp_port_min_v4=20480 OMPI_MCA_btl_tcp_port_range_v4=256
    t0=$(date +%s)
    sed 's/iters: 3/iters: 50/; s/timeout_s: 10/timeout_s: 20/' "$TMP/c.yaml" > "$TMP/long.yaml"
    $VC --name $NAME exec $H1 $FC run --hosts "$D/hosts" --racks "$D/racks" --ppn 2 \
        --profile "$TMP/long.yaml" --out "$TMP/cut" > "$TMP/cut.out" 2> "$TMP/cut.err" &
    pid=$!
    for _ in $(seq 1 150); do      # until the stage has started (its ranks connected)
        grep -q '"stage_start"' "$TMP/cut/results.jsonl" 2> /dev/null && break
        sleep 0.2
    done
    cut eth0 $VC --name $NAME exec $H5 && cut "${NAME}-05"
    wait $pid
    rc=$?
    diag "cut: $(( $(date +%s) - t0 )) s"
    n=$(rec cut 'my @h = grep { $_->{type} eq "hang" } @r; scalar(@h) . ":" . join(",", map { "$_->{host}/$_->{implicates}{part}/$_->{implicates}{quarantine}" } @h)')
    is "$n" "1:$H5/link/1" "a fabric that stopped forwarding: the probe names $H5, part link ($n)"
    q=$(quarantined cut)
    is "$q" "$H5" "only $H5 is quarantined ($q)"
    [ $rc -eq 1 ] && grep -q "^rack rack1: PASS" "$TMP/cut.out" && grep -q "^rack rack2: FAIL" "$TMP/cut.out" &&
        grep -q "^rack rack3: PASS" "$TMP/cut.out"
    ok $? "the stage runs again without it: rack1 and rack3 PASS, rack2 FAILs ($rc)"
    # 4b. the cut already there when the stage starts ($H5's link still cut)
    t0=$(date +%s)
    run cut0 --profile "$TMP/c.yaml"
    rc=$?
    diag "cut before the stage: $(( $(date +%s) - t0 )) s"
    n=$(rec cut0 'join ",", map { "$_->{type}/$_->{host}/" . ($_->{implicates}{part} // "") } grep { $_->{type} =~ /^(hang|crash|stage_error|probe)$/ } @r')
    is "$n" "stage_error//,probe/$H5/link" "the stage never started: the probe names $H5, part link ($n)"
    q=$(quarantined cut0)
    [ $rc -eq 1 ] && [ "$q" = "$H5" ] && grep -q "^rack rack1: PASS" "$TMP/cut0.out" &&
        grep -q "^rack rack3: PASS" "$TMP/cut0.out"
    ok $? "only $H5 is quarantined, and rack1 and rack3 PASS on the second launch ($rc, $q)"
fi
done_testing
