#!/bin/bash
# blame_data.t - a wrong result is placed on the node that caused it, by a
# retest, never on the rank that observed it. Faults are planted from
# outside the suite with the MPI interposition library (tests/inject) on a
# virtual cluster of uneven racks (2, 3 and 1 nodes, 2 ranks per node),
# cluster stage:
#   - a clean run passes every rack and runs no retest;
#   - one host corrupting what it sends: the collective's wrong output
#     spreads to every rank (the first rank with wrong bits is on another
#     rack), the retest (checked point-to-point exchanges) confirms the
#     host: it alone is quarantined, its rack FAILs naming it with the
#     exchanges as evidence (results.jsonl, certificate, HTML, summary),
#     the two other racks PASS; after the repair (no injector),
#     `run --rerun-failed` of that run runs rack2's three hosts only (the
#     quarantined one among them) in a new directory, rack2 PASSes, the
#     other racks are left out, and the plan, certificate, summary, HTML
#     and verify name the earlier run and its results' sha256; a rerun of
#     a run that all passed, of no run, with another profile, of an
#     unfinished run, of one still being written or of one whose plan
#     record puts a host in a rack its frozen rack map does not is
#     refused, exit 2, no directory made; a rack INCOMPLETE because the
#     run's host list left one of its hosts out (at --ppn 1) is rerun
#     whole, that host included, at the --ppn it ran with (not given
#     again), and PASSes; without the retest's records (killed) every
#     rack of the group FAILs, "not yet localised";
#   - the same host corrupting only what it sends into all_reduce (its
#     point-to-point traffic right): the retest's all_reduce without each
#     node in turn places it, only it is quarantined;
#   - the same host corrupting one call only (FC_INJECT_TIMES=1): the
#     retest cannot place it, every rack of the group FAILs "intermittent
#     corruption in cluster, not localised", nobody is quarantined;
#   - the same host flipping a bit in every 4th buffer it receives
#     (all_reduce and the retests' exchanges): the wrong outputs are its
#     own, the stage's retest sees wrong exchanges into it from several
#     senders but none from every one; the bounded retest of the host in
#     every group that saw wrong bits (runners/fc_retest_hosts.c) places it
#     on its checked exchanges with two partners: only it is quarantined,
#     rack1 and rack3 PASS, their wrong all_reduce "explained by" it in
#     the certificate, the HTML and the summary; without that retest's
#     record every rack of the group FAILs, and with it edited (its
#     culprit no suspect, or no wrong exchange of it) too;
#   - the same host in the pairs stage: the pairs' own checked exchanges
#     (both directions) place it, not the partners that received from it;
#     and re-sending its previous buffer (mode stale): the exchanges
#     alternate two input sets, so the replay is caught and placed too;
# and on this machine alone (node stage, 4 ranks), rank 2 corrupting its
# sends: the retest names rank 2, not rank 0 that observed it first, and
# its --rerun-failed without the injector passes, its --stages kept; the
# same in place (its contribution corrupted inside its recv buffer): every
# in-place collective sees it, and the retest names rank 2.
# Needs root (namespaces); skips with the reason otherwise.
# lane: long (a minute or more: started first)
. tests/e2e/tap.sh
FC=$BUILD/fabcert
INJ=$PWD/$BUILD/libfc_inject.so
vcluster_up fbd 2,3,1
plan 35
H1=${NAME}01 H4=${NAME}04
# one stage per profile (a required stage left out would make the racks
# INCOMPLETE); the virtual cluster's settings, and no relative rule for
# the pairs: this test is about wrong data, not a loaded machine's noise
# the bounded retest of a suspect host: 5 s at most (it stops once placed)
profile() {     # profile NAME STAGE-YAML
    printf 'name: blame-%s\nseed: 20261202\nretest:\n  intermittent_s: 5\nstages:\n%s\n' \
        "$1" "$2" > "$TMP/$1.yaml"
}
profile cluster "  cluster:
    required: true
    timeout_s: 120
    warmup: 1
    iters: 5
    sizes: [64KiB]
    collectives: [all_reduce, all_gather, broadcast]
    dtypes: [float32]
    ops: [sum]
    max_wrong: 0
    limits:
      - collective: any
        max_latency_us: 2000000"
profile pairs "  pairs:
    required: true
    timeout_s: 120
    warmup: 1
    iters: 5
    sizes: [256KiB]
    max_wrong: 0"
run() {     # run OUT-NAME PROFILE [fabcert run options]: inside the first node
    local out=$1 prof=$2; shift 2
    $VC --name $NAME exec $H1 $FC run --hosts "$D/hosts" --racks "$D/racks" \
        --ppn 2 --profile "$TMP/$prof.yaml" --out "$TMP/$out" "$@" \
        > "$TMP/$out.out" 2> "$TMP/$out.err"
}
rec() { jsonl "$TMP/$1/results.jsonl" "$2"; }    # rec OUT PERL-EXPR

# 1. clean
run clean cluster
rc=$?
grep -q "^rack rack1: PASS" "$TMP/clean.out" && grep -q "^rack rack2: PASS" "$TMP/clean.out" &&
    grep -q "^rack rack3: PASS" "$TMP/clean.out"
ok $(( rc != 0 || $? != 0 )) "a clean cluster stage passes all three racks, exit 0 ($rc)"
n=$(rec clean 'scalar grep { $_->{type} eq "retest" || $_->{type} eq "quarantine" } @r')
is "$n" 0 "and runs no retest, quarantines nobody ($n records)"

# 2. host 04 (rack2) corrupts every buffer it sends
start=$(date +%s)
run send cluster --env LD_PRELOAD=$INJ --env FC_INJECT_HOST=$H4 --env FC_INJECT_MODE=corrupt-send
rc=$?
took=$(( $(date +%s) - start ))
is "$rc" 1 "a host corrupting what it sends makes the run exit 1 ($rc)"
obs=$(rec send '(grep { $_->{type} eq "point" && $_->{wrong} > 0 } @r)[0]{first_mismatch}{host}')
n=$(rec send 'scalar grep { $_->{type} eq "point" && $_->{verdict} eq "FAIL" && $_->{implicates}{part} eq "group" && !$_->{implicates}{quarantine} && @{$_->{implicates}{racks}} == 3 } @r')
ok $(( n < 1 )) "the wrong output (first observed on $obs) implicates the whole group, quarantining nobody ($n points)"
q=$(rec send 'join ",", map { $_->{host} } grep { $_->{type} eq "quarantine" } @r')
is "$q" "$H4" "the retest confirms $H4 and only it is quarantined ($q)"
grep -q "^rack rack2: FAIL" "$TMP/send.out" && grep -q "^rack rack1: PASS" "$TMP/send.out" &&
    grep -q "^rack rack3: PASS" "$TMP/send.out"
ok $? "its rack FAILs, the two other racks of the group PASS"
grep -q "^  FAIL rack rack2, cluster stage, node $H4: .*wrong data sent by $H4 (ranks [0-9]*, [0-9]*) confirmed by 5 retests: $H4 -> $H1 wrong, $H1 -> $H4 right" "$TMP/send.out"
ok $? "the failure names $H4 and the retests that confirm it"
# evidence: every exchange its ranks sent off the host wrong, every one they received right
n=$(rec send 'my ($t) = grep { $_->{type} eq "retest" } @r; my $h = "'$H4'"; my @x = @{$t->{exchanges}};
    my $bad = grep { ($_->{sender_host} eq $h && $_->{receiver_host} ne $h && $_->{verdict} ne "wrong") ||
                     ($_->{receiver_host} eq $h && $_->{sender_host} ne $h && $_->{verdict} ne "right") } @x;
    ($t->{localised} && $t->{culprit}{host} eq $h && $t->{culprit}{direction} eq "send" && !$bad) ? scalar @x : 0')
ok $(( n < 40 )) "results.jsonl holds the retest's exchanges: $H4's sends wrong, its receives right ($n exchanges)"
n=$(jsonl "$TMP/send/certificates/rack2.json" 'my ($s) = grep { $_->{stage} eq "cluster" } @{$r[0]{certificate}{stages}}; scalar grep { $_->{culprit}{host} eq "'$H4'" && @{$_->{exchanges}} > 0 } @{$s->{figures}}')
is "$n" 1 "rack2's certificate carries the retest with its exchanges ($n)"
grep -q "wrong data sent by $H4 .*confirmed by 5 retests" "$TMP/send/report/rack-rack2.html" &&
    grep -q "confirmed by 5 retests" "$TMP/send/summary.txt"
ok $? "the HTML and the summary show the confirmation"
secs=$(rec send '(grep { $_->{type} eq "retest" } @r)[0]{seconds}')
launch=$(rec send 'sprintf "%.1f", (grep { $_->{type} eq "retest_launch" } @r)[0]{seconds} // -1')
diag "retest: ${launch} s launched, of which $(printf %.1f "$secs") s of checks (12 ranks: 11 rounds of exchanges, 6 all_reduce without one node); whole run ${took} s"

# 2a. after the repair (no injector): --rerun-failed runs rack2 again, its
# three hosts only ($H4, quarantined, among them), in a new directory whose
# plan and certificate name the run it follows; rack1 and rack3 are left
# out (their certificates stay the first run's)
start=$(date +%s)
$VC --name $NAME exec $H1 $FC run --rerun-failed "$TMP/send" --out "$TMP/resend" --ppn 2 \
    > "$TMP/resend.out" 2> "$TMP/resend.err"
rc=$?
took=$(( $(date +%s) - start ))
certs=$(cd "$TMP/resend/certificates" 2>/dev/null && echo *.json)
[ "$rc" = 0 ] && [ "$certs" = rack2.json ] && grep -q "^rack rack2: PASS (3 hosts)" "$TMP/resend.out" &&
    ! grep -q "^rack rack[13]" "$TMP/resend.out" &&
    grep -q "left out of this run (2 rack(s) entirely)" "$TMP/resend.out"
ok $? "--rerun-failed after the repair: rack2 PASSes, exit 0, rack1 and rack3 are left out, no certificate of theirs (rc $rc, certificates: $certs, ${took} s)"
hosts=$(rec resend 'my %h; for my $s (grep { $_->{type} eq "stage_start" } @r) { $h{$_} = 1 for @{$s->{rank_hosts}} } join ",", sort keys %h')
is "$hosts" "${NAME}03,${NAME}04,${NAME}05" "it ran on rack2's hosts only, $H4 (quarantined before) among them ($hosts)"
sha=$(sha256sum "$TMP/send/results.jsonl" | cut -d' ' -f1)
was=$(rec send '(grep { $_->{type} eq "plan" } @r)[0]{run_id}')
named=$(rec resend 'my $p = (grep { $_->{type} eq "plan" } @r)[0]{rerun_of}; join " ", $p->{run_id}, $p->{results_sha256}, @{$p->{racks}}, map { "$_->{rack}=$_->{verdict}" } @{$p->{verdicts}}')
cert=$(jsonl "$TMP/resend/certificates/rack2.json" '$r[0]{certificate}{rerun_of}{run_id}')
line="rerun of $was ($TMP/send) after repair: racks rack2 (its results.jsonl sha256 $sha); racks that passed there and keep its certificates: rack1, rack3"
[ "$named" = "$was $sha rack2 rack1=PASS rack2=FAIL rack3=PASS" ] && [ "$cert" = "$was" ] &&
    grep -qxF "$line" "$TMP/resend/summary.txt" && grep -qF "$line" "$TMP/resend/report/index.html" &&
    $FC verify "$TMP/resend/certificates/rack2.json" | grep -qF ": $line"
ok $? "the plan, the certificate, the summary, the HTML and verify name the earlier run, its results' sha256 and the racks run again ($named)"
# refused, exit 2, nothing written: every rack passed; not a run; another
# profile; a run that did not finish (its stage_done gone, as when killed)
mkdir -p "$TMP/cut"
grep -v '"type":"stage_done"' "$TMP/send/results.jsonl" > "$TMP/cut/results.jsonl"
cp "$TMP/send/profile.yaml" "$TMP/cut/"
refused=""
for c in "clean" "nosuch" "send --profile $TMP/pairs.yaml" "cut"; do
    set -- $c
    d=$1; shift
    $FC run --rerun-failed "$TMP/$d" --out "$TMP/re-$d" "$@" > "$TMP/re-$d.out" 2>&1
    refused="$refused $d:$?"
    [ -e "$TMP/re-$d" ] && refused="$refused(written)"
done
# and a run still being written (a runner holds its results.jsonl: flock)
flock "$TMP/send/results.jsonl" $FC run --rerun-failed "$TMP/send" --out "$TMP/re-busy" \
    > "$TMP/re-busy.out" 2>&1
refused="$refused busy:$?"
[ -e "$TMP/re-busy" ] && refused="$refused(written)"
[ "$refused" = " clean:2 nosuch:2 send:2 cut:2 busy:2" ] &&
    grep -q "a fabcert run is still writing it: wait for it to end" "$TMP/re-busy.out" &&
    grep -q "every rack of run .* passed (3 rack(s)): there is nothing to run again" "$TMP/re-clean.out" &&
    grep -q "nosuch/results.jsonl: No such file or directory: not a run's output directory" "$TMP/re-nosuch.out" &&
    grep -q "the profile .*pairs.yaml (sha256 [0-9a-f]*) is not run $was's (blame-cluster" "$TMP/re-send.out" &&
    grep -q "did not finish: its cluster stage never ended (interrupted); carry it on first: fabcert run --resume" "$TMP/re-cut.out"
ok $? "--rerun-failed refuses a run whose racks all passed, a directory that is no run, another profile, an unfinished run and one still being written: exit 2, nothing written ($refused)"
# a plan record edited to put a host in rack2 that the frozen rack map
# does not have: refused before NEW is made, naming the earlier run's
# record and files, not the host list the rerun would have written
mkdir -p "$TMP/ghost"
cp "$TMP/send/profile.yaml" "$TMP/send/hosts" "$TMP/send/racks" "$TMP/ghost/"
perl -MJSON::PP -ne 'my $r = decode_json($_);
    if ($r->{type} eq "plan") { push @{$r->{inventory}{hosts}}, { host => "ghost", rack => "rack2" };
                                $_ = JSON::PP->new->canonical->encode($r) . "\n" } print' \
    "$TMP/send/results.jsonl" > "$TMP/ghost/results.jsonl"
$FC run --rerun-failed "$TMP/ghost" --out "$TMP/re-ghost" > "$TMP/re-ghost.out" 2>&1
rc=$?
[ "$rc" = 2 ] && [ ! -e "$TMP/re-ghost" ] && ! grep -q "re-ghost" "$TMP/re-ghost.out" &&
    grep -qF "fabcert: --rerun-failed $TMP/ghost: $TMP/ghost/results.jsonl: the plan record of run $was does not match its frozen inventory ($TMP/ghost/hosts, $TMP/ghost/racks): the plan's inventory.hosts runs ghost (rack rack2), the frozen inventory does not" "$TMP/re-ghost.out"
ok $? "a plan record with a host its frozen rack map lacks: exit 2 naming the earlier run's record and files, no directory made (rc $rc)"

# 2c. a rack INCOMPLETE because the run's host list left ${NAME}05 out,
# at --ppn 1: its --rerun-failed (no --ppn given) runs rack2 whole, the
# left-out host with it, at DIR's --ppn 1, and rack2 PASSes
start=$(date +%s)
grep -vx "${NAME}05" "$D/hosts" > "$TMP/part-hosts"
$VC --name $NAME exec $H1 $FC run --hosts "$TMP/part-hosts" --racks "$D/racks" --ppn 1 \
    --profile "$TMP/cluster.yaml" --out "$TMP/part" > "$TMP/part.out" 2>&1
$VC --name $NAME exec $H1 $FC run --rerun-failed "$TMP/part" --out "$TMP/repart" \
    > "$TMP/repart.out" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
was=$(rec part '(grep { $_->{type} eq "plan" } @r)[0]{run_id}')
grep -q "^rack rack2: INCOMPLETE" "$TMP/part.out" && grep -q "^rack rack1: PASS" "$TMP/part.out" &&
    [ "$rc" = 0 ] && grep -q "^rack rack2: PASS (3 hosts)" "$TMP/repart.out" &&
    grep -qF "note: run $was left rack2's ${NAME}05 out of its host list (rack2 was INCOMPLETE there): a rerun runs every host its rack map $TMP/part/racks gives the racks it runs again, so it runs them now" "$TMP/repart.out"
ok $? "a rack INCOMPLETE for a host left out: its rerun runs the host too, says so, and rack2 PASSes (rc $rc, both runs ${took} s)"
ran=$(rec repart 'my @h; for my $s (grep { $_->{type} eq "stage_start" } @r) { push @h, @{$s->{rank_hosts}} } join ",", sort @h')
carried=$(rec repart 'my ($p) = grep { $_->{type} eq "plan" } @r; join " ", $p->{overrides}{"--ppn"}, $p->{launch}{ranks_per_node}, @{$p->{rerun_of}{hosts_left_out}}')
[ "$ran" = "${NAME}03,${NAME}04,${NAME}05" ] && [ "$carried" = "1 1 ${NAME}05" ] &&
    ! grep -q "the overrides differ" "$TMP/repart.out"
ok $? "it ran one rank on each of rack2's three hosts: the earlier run's --ppn 1 carried over, the host left out recorded ($ran; $carried)"

# 2b. the same host corrupting only what it sends into all_reduce: its
# point-to-point traffic is right, the all_reduce without it is right
run coll cluster --env LD_PRELOAD=$INJ --env FC_INJECT_HOST=$H4 --env FC_INJECT_MODE=corrupt-send \
    --env FC_INJECT_COLL=allreduce
q=$(rec coll 'join ",", map { $_->{host} } grep { $_->{type} eq "quarantine" } @r')
n=$(rec coll 'my ($t) = grep { $_->{type} eq "retest" } @r; my @l = @{$t->{leave_one_out}};
    ($t->{method} eq "leave-one-out" && $t->{exchanges_wrong} == 0 && @l == 6 &&
     1 == grep { $_->{verdict} eq "right" && $_->{without} eq "'$H4'" } @l) ? 1 : 0')
[ "$q" = "$H4" ] && [ "$n" = 1 ] && grep -q "^rack rack2: FAIL" "$TMP/coll.out" &&
    grep -q "^rack rack1: PASS" "$TMP/coll.out" && grep -q "^rack rack3: PASS" "$TMP/coll.out" &&
    grep -q "^  FAIL rack rack2, cluster stage, node $H4: .*confirmed by 6 retests of all_reduce int32 sum 64 KiB, each without one node: without $H4 right, without $H1 wrong" "$TMP/coll.out"
ok $? "corrupting all_reduce only: the all_reduce without $H4 alone is right; only $H4 quarantined ($q)"

# the same records without the retest's (as if it had been killed): every
# rack of the group fails, not yet localised
mkdir -p "$TMP/noretest"
grep -v '"type":"retest"\|"type":"quarantine"' "$TMP/send/results.jsonl" > "$TMP/noretest/results.jsonl"
$FC report "$TMP/noretest" > "$TMP/noretest.out" 2>&1
n=$(grep -c "^  FAIL rack rack[123], cluster stage, group: .*wrong result in cluster (6 hosts), not yet localised" "$TMP/noretest.out")
is "$n" 3 "without its retest a wrong result fails every rack of the group, not yet localised ($n)"

# 3. the same host corrupts one call only: not reproducible
run once cluster --env LD_PRELOAD=$INJ --env FC_INJECT_HOST=$H4 --env FC_INJECT_MODE=corrupt-send \
    --env FC_INJECT_TIMES=1
rc=$?
is "$rc" 1 "an intermittent corruption makes the run exit 1 ($rc)"
n=$(rec once 'scalar grep { $_->{type} eq "quarantine" } @r')
is "$n" 0 "the retest cannot reproduce it: nobody is quarantined ($n)"
n=$(grep -c "^  FAIL rack rack[123], cluster stage, group: intermittent corruption in cluster (6 hosts), not localised" "$TMP/once.out")
grep -q "^rack rack1: FAIL" "$TMP/once.out" && grep -q "^rack rack2: FAIL" "$TMP/once.out" &&
    grep -q "^rack rack3: FAIL" "$TMP/once.out"
ok $(( $? != 0 || n != 3 )) "every rack of the group FAILs, not localised ($n findings)"
n=$(rec once 'scalar grep { $_->{type} eq "retest" && ($_->{method} // "") ne "intersection" && !$_->{localised} && !$_->{implicates}{quarantine} && $_->{implicates}{part} eq "group" } @r')
is "$n" 1 "its retest record says not localised and implicates the group ($n)"

# 3b. the same host flipping a bit in every 4th buffer it receives
start=$(date +%s)
run recv cluster --env LD_PRELOAD=$INJ --env FC_INJECT_HOST=$H4 --env FC_INJECT_MODE=corrupt-recv \
    --env FC_INJECT_EVERY=4 --env FC_INJECT_COLL=allreduce,sendrecv
rc=$?
took=$(( $(date +%s) - start ))
q=$(rec recv 'join ",", map { $_->{host} } grep { $_->{type} eq "quarantine" } @r')
[ "$rc" = 1 ] && [ "$q" = "$H4" ] && grep -q "^rack rack1: PASS" "$TMP/recv.out" &&
    grep -q "^rack rack2: FAIL" "$TMP/recv.out" && grep -q "^rack rack3: PASS" "$TMP/recv.out" &&
    grep -q "^retest of the suspects after cluster: wrong data received by $H4, placed by a retest of [0-9.]* s of checked exchanges with partners ${NAME}0[0-9], ${NAME}0[0-9] " "$TMP/recv.out"
ok $? "a host flipping received bits now and then: the bounded retest places it, only it is quarantined, rack1 and rack3 PASS (rc $rc, quarantined: $q, ${took} s)"
[ $? -eq 0 ] || why "$(grep -E '^rack|retest|FAIL' "$TMP/recv.out" | cut -c1-300)"
# evidence: from each partner into $H4 some exchange wrong, everything else right
n=$(rec recv 'my ($t) = grep { $_->{type} eq "retest" && ($_->{method} // "") eq "intersection" } @r;
    my $h = "'$H4'"; my @x = @{$t->{exchanges} || []}; my %p = map { $_ => 1 } @{$t->{partners} || []};
    my $into = grep { $p{$_->{sender_host}} && $_->{receiver_host} eq $h && $_->{wrong_exchanges} > 0 } @x;
    my $bad = grep { $_->{receiver_host} ne $h && $_->{wrong_exchanges} > 0 } @x;
    my $ex = grep { $_->{stage} eq "cluster" && $_->{group} eq "cluster" } @{$t->{explains} || []};
    ($t->{localised} && $t->{culprit}{host} eq $h && $t->{culprit}{direction} eq "receive" &&
     $t->{seconds} > 0 && $t->{seconds} <= $t->{limit_s} + 5 && $t->{bytes_checked} > 0 &&
     keys %p == 2 && $into == 2 && !$bad && $ex == 1) ? scalar @x : 0')
ok $(( n < 5 )) "results.jsonl holds the bounded retest: wrong exchanges into $H4 from both partners, none elsewhere, its time and bytes, the cluster group explained ($n host pairs)"
n=$(jsonl "$TMP/recv/certificates/rack1.json" 'my ($s) = grep { $_->{stage} eq "cluster" } @{$r[0]{certificate}{stages}}; scalar grep { $_->{host} eq "'$H4'" && $_->{evidence} =~ /^explained by '$H4' \(rack rack2\), placed by the retest after the cluster stage: wrong data received by/ } @{$s->{explained} || []}')
f=$(jsonl "$TMP/recv/certificates/rack2.json" 'my ($s) = grep { $_->{stage} eq "cluster" } @{$r[0]{certificate}{stages}}; scalar grep { ($_->{method} // "") eq "intersection" && @{$_->{partners}} == 2 && @{$_->{exchanges}} > 0 && $_->{seconds} > 0 } @{$s->{figures}}')
[ "$n" -ge 1 ] && [ "$f" = 1 ] && grep -q "Explained by a host placed elsewhere" "$TMP/recv/report/rack-rack1.html" &&
    grep -q "placed by a retest of .* with partners" "$TMP/recv/report/rack-rack2.html" &&
    grep -q "^  EXPLAINED rack rack1, cluster stage, [0-9]* checks\?: explained by $H4 (rack rack2)" "$TMP/recv/summary.txt"
ok $? "rack1's certificate, HTML and summary say its wrong all_reduce is explained by $H4 ($n); rack2's certificate and HTML carry the retest's partners, exchanges and time"
forge_report noplace "$TMP/recv" -ne 'print unless /"method":"intersection"|"type":"quarantine"/'
n=$(grep -c "^rack rack[123]: FAIL" "$TMP/noplace.out")
is "$n" 3 "without the bounded retest's record every rack of the group FAILs ($n)"
# its record edited: the culprit no suspect, or no wrong exchange left to
# show it: it explains nothing
edit() {   # edit NAME PERL-STATEMENT (on the bounded retest's record)
    forge_report "$1" "$TMP/recv" -MJSON::PP -ne 'my $j = JSON::PP->new->canonical;
        my $r = decode_json($_); if (($r->{method} // "") eq "intersection") { '"$2"' }
        print $j->encode($r), "\n"'
}
edit nosuspect '$r->{suspects} = ["'$H1'"]'
n=$(grep -c "^rack rack[123]: FAIL" "$TMP/nosuspect.out")
is "$n" 3 "a placement whose culprit is not among its suspects explains no rack's wrong result ($n)"
edit noexch '$r->{exchanges} = []'
n=$(grep -c "^rack rack[123]: FAIL" "$TMP/noexch.out")
is "$n" 3 "nor one whose record holds no wrong exchange of its culprit ($n)"

# 4. the pairs stage: its own checked exchanges place the same host
run pairs pairs --env LD_PRELOAD=$INJ --env FC_INJECT_HOST=$H4 \
    --env FC_INJECT_MODE=corrupt-send
q=$(rec pairs 'join ",", map { $_->{host} } grep { $_->{type} eq "quarantine" } @r')
n=$(rec pairs 'scalar grep { $_->{type} eq "pair" && $_->{verdict} eq "FAIL" && $_->{implicates}{host} eq "'$H4'" } @r')
[ "$q" = "$H4" ] && [ "$n" = 5 ] && grep -q "^rack rack1: PASS" "$TMP/pairs.out" &&
    grep -q "^rack rack3: PASS" "$TMP/pairs.out" &&
    grep -q "^  FAIL rack rack2, pairs stage, node $H4: .*wrong data sent by $H4, confirmed with every one of its 5 partners" "$TMP/pairs.out" &&
    [ "$(rec pairs 'scalar grep { $_->{type} eq "pairs_node" && $_->{verdict} eq "FAIL" } @r')" = 1 ]
ok $? "pairs stage: the 5 pairs with wrong data implicate $H4, not the partners that received it; only $H4 quarantined ($q)"

# 4b. the same host re-sending what its previous call sent: each buffer is
# the other input set's, wrong for this one
run stale pairs --env LD_PRELOAD=$INJ --env FC_INJECT_HOST=$H4 --env FC_INJECT_MODE=stale
q=$(rec stale 'join ",", map { $_->{host} } grep { $_->{type} eq "quarantine" } @r')
n=$(rec stale 'scalar grep { $_->{type} eq "pair" && $_->{verdict} eq "FAIL" && $_->{implicates}{host} eq "'$H4'" } @r')
[ "$q" = "$H4" ] && [ "$n" = 5 ] && grep -q "^rack rack1: PASS" "$TMP/stale.out" &&
    grep -q "^rack rack3: PASS" "$TMP/stale.out"
ok $? "pairs stage, $H4 re-sending stale buffers: its 5 pairs implicate it, only it quarantined ($q, $n)"

# 5. this machine alone, node stage: rank 2 corrupts, rank 0 sees it first
$FC run --out "$TMP/node" --stages node --np 4 --sizes 4KiB --collectives all_reduce \
    --env LD_PRELOAD=$INJ --env FC_INJECT_HOST=$(hostname) --env FC_INJECT_RANK=2 \
    --env FC_INJECT_MODE=corrupt-send > "$TMP/node.out" 2>&1
rc=$?
first=$(rec node '(grep { $_->{type} eq "point" && $_->{wrong} > 0 } @r)[0]{first_mismatch}{rank}')
culprit=$(rec node 'my ($t) = grep { $_->{type} eq "retest" } @r; join ",", @{$t->{culprit}{ranks}}')
is "$rc" 1 "node stage, rank 2 corrupting its sends: exit 1 ($rc)"
[ "$culprit" = 2 ] && [ "$first" != 2 ] &&
    grep -q "^  FAIL rack default, node stage, node $(hostname): .*wrong data sent by $(hostname) (rank 2) confirmed by 3 retests: rank 2 -> rank 0 wrong, rank 0 -> rank 2 right" "$TMP/node.out"
ok $? "the retest names rank 2 (the ranks: $culprit), not rank $first that observed it"
# the same on this machine alone, after the repair: --rerun-failed runs
# it again (the --stages node of the run it follows), without the injector
$FC run --rerun-failed "$TMP/node" --out "$TMP/renode" --np 4 --sizes 4KiB \
    --collectives all_reduce > "$TMP/renode.out" 2>&1
rc=$?
[ "$rc" = 0 ] && grep -q "^rack default: PASS" "$TMP/renode.out" &&
    grep -q "^rerun of .* ($TMP/node) after repair: racks default" "$TMP/renode/summary.txt" &&
    [ "$(rec renode '(grep { $_->{type} eq "plan" } @r)[0]{overrides}{"--stages"}')" = node ]
ok $? "on this machine: --rerun-failed of the failed node run passes, runs the node stage only, names it ($rc)"
# 5b. the same, in place (MPI_IN_PLACE): rank 2's contribution corrupted
# inside its recv buffer before each call (the injector's in-place
# corrupt-send): every in-place collective sees it, the retest names rank 2
$FC run --out "$TMP/inplace" --stages node --np 4 --sizes 64KiB --dtypes int32 \
    --collectives all_reduce_inplace,all_gather_inplace,reduce_scatter_inplace \
    --env LD_PRELOAD=$INJ --env FC_INJECT_HOST=$(hostname) --env FC_INJECT_RANK=2 \
    --env FC_INJECT_MODE=corrupt-send > "$TMP/inplace.out" 2>&1
rc=$?
n=$(rec inplace 'my %c; $c{$_->{collective}}++ for grep { $_->{type} eq "point" && $_->{wrong} > 0 && $_->{op} =~ /^(sum|none)$/ } @r; join ",", map { "$_" } sort keys %c')
culprit=$(rec inplace 'my ($t) = grep { $_->{type} eq "retest" } @r; join ",", @{$t->{culprit}{ranks}}')
[ $rc -eq 1 ] && [ "$n" = "all_gather_inplace,all_reduce_inplace,reduce_scatter_inplace" ] &&
    [ "$culprit" = 2 ]
ok $? "in place: every in-place collective's sum (or gather) is wrong, the retest names rank 2 ($rc; $n; $culprit)"
# what the confirmations and retests added to each run (docs/verdicts.md,
# "What confirmation costs")
for r in clean send coll once recv pairs stale; do
    [ -e "$TMP/$r/results.jsonl" ] && diag "cost $r: $(cost "$TMP/$r")"
done
done_testing
