#!/bin/bash
# contention.t - the contention stage on a virtual cluster of 2 racks x 2
# nodes (one foreground and one background rank per node):
#   - with both rack uplinks shaped narrow (tc tbf) and cross-rack
#     background traffic (incast to a storage rank in the other rack, and
#     a tenant's all-to-all), the cluster all_reduce slows: a profile with
#     a tight slowdown limit fails with the ratio in the message, a loose
#     one passes, and the achieved background rates are recorded;
#   - counters on the same interval: the storage_net phase record carries
#     every node's eth0 (its veth) over that phase and the clean one
#     before, whose difference covers what the background says it moved;
#     node 01's phase deltas, added, agree with the bytes the root side of
#     its veth received over the run (no more, at least half); the HTML
#     shows them beside the slowdown; counters: {read: false} records none;
#   - storage traffic to a read-only directory moves nothing: the stage is
#     INCOMPLETE with the reason, never PASS; a directory that does not
#     exist is named with the system's reason;
#   - the background on other nodes (background_hosts) that share the
#     narrow spine slows the foreground as well; its records name the hosts
#     measured and their racks, so a rack of background hosts alone (its
#     records edited to that) is not judged by the stage: INCOMPLETE; a
#     background host that is not in the inventory is refused before
#     anything runs;
#   - the report judges each record again against the frozen profile's
#     max_slowdown: records of the tight run edited to PASS at 4.0x (or
#     with their own limit raised, or no slowdown) FAIL; a record whose
#     max_slowdown is not the profile's is INCOMPLETE; and to the plan:
#     each point under each background kind once per group (the whole
#     job, or each rack under scope: rack), a kind's record deleted or
#     recorded as another kind is INCOMPLETE on the racks it concerns;
#   - a bit flipped in the foreground under load is caught and attributed;
#   - the foreground on the nccl backend, on this machine (no GPU: 2 ranks,
#     one foreground, one background, file I/O): without the GPU plugin
#     the stage is skipped naming the foreground rank (the background
#     rank needs no GPU), --backend auto falls back to mpi and says why;
#     with the stand-in GPU plugin giving a GPU to local rank 0 alone, the
#     foreground runs on nccl beside a background rank that has none, and
#     the devices record lists the foreground's GPU alone.
# Needs root (namespaces); skips with the reason otherwise.
# lane: long (a minute or more: started first)
. tests/e2e/tap.sh
FC=$BUILD/fabcert
vcluster_cleanup() { umount "$TMP/ro" 2>/dev/null; }
vcluster_up fcc
plan 30
run() {     # run OUT PROFILE [options]
    local out=$1 profile=$2; shift 2
    $VC --name $NAME exec ${NAME}01 $FC run --hosts "$D/hosts" --racks "$D/racks" \
        --profile "$profile" --out "$TMP/$out" "$@" > "$TMP/$out.out" 2> "$TMP/$out.err"
}
rec() { jsonl "$TMP/$1/results.jsonl" "$2"; }
profile() {     # profile FILE MAX_SLOWDOWN EXTRA-YAML-LINES
    cat > "$1" <<YAML
name: contention-test
seed: 5
retest: {intermittent_s: 5}
stages:
  contention:
    timeout_s: 120
    warmup: 1
    iters: 9
    sizes: [64KiB]
    collectives: [all_reduce]
    dtypes: [float32]
    ops: [sum]
    contention:
      scope: cluster
      max_slowdown: $2
      min_background_pct: 10
      phase_s: 1.0
$3
YAML
}
NET='      storage_net: {block: 1MiB, rate_mbps: 2, targets: 1, placement: cross-rack}
      tenant: {block: 1MiB, rate_mbps: 2, pattern: all_to_all}'
profile "$TMP/tight.yaml" 1.3 "$NET"
profile "$TMP/loose.yaml" 1000 "$NET"

$VC --name $NAME slow-uplink 1 20mbit > /dev/null
$VC --name $NAME slow-uplink 2 20mbit > /dev/null
run tight "$TMP/tight.yaml"
rc=$?
ratio=$(rec tight '(map { $_->{slowdown} } grep { $_->{type} eq "contention" && $_->{kind} eq "all" } @r)[0]')
ok $(( rc != 1 )) "narrow spine, tight limit (1.3x): exit 1 ($rc)"
awk -v r="$ratio" 'BEGIN { exit !(r > 1.3) }'
ok $? "the cluster all_reduce slows under all the background traffic (${ratio}x)"
grep -q "slowdown [0-9.]*x under [a-z_]* (median .* us loaded, .* us clean) is above the limit 1.30x" "$TMP/tight.out"
ok $? "the failure gives the ratio and both times"
veth() { cat /sys/class/net/$NAME-01/statistics/rx_bytes; }   # node 01's eth0, seen from the root side
v0=$(veth)
run loose "$TMP/loose.yaml"
rc=$?
v1=$(veth)
ok $rc "the same with a loose limit passes ($rc)"
n=$(rec loose 'scalar grep { $_->{type} eq "contention" && $_->{background}{storage_net}{achieved_mbps} > 0 && $_->{background}{storage_net}{target_mbps} > 0 } @r')
ok $(( n < 2 )) "achieved background rates are recorded beside their targets ($n records)"
# counters on the same interval: each phase record carries every node's
# eth0 (the vcluster's veth) over its loaded phase and the clean one
# before; under storage_net the links moved at least what the background
# says it moved (its rate x ranks x phase_s) beyond the clean phase
c=$(rec loose 'my ($c) = grep { $_->{type} eq "contention" && $_->{kind} eq "storage_net" } @r;
    my ($l, $k) = ($c->{counters}, $c->{clean_counters}); my $b = $c->{background}{storage_net};
    my $hosts = join(",", sort grep { exists $l->{hosts}{$_}{links}{eth0}{tx_bytes} } keys %{$l->{hosts}});
    sprintf("%s %d %d %d %s %s", $hosts, $l->{sum}{tx_bytes}, $k->{sum}{tx_bytes},
        $b->{achieved_mbps} * $b->{ranks} * 1e6, exists $l->{sum}{congestion} ? "congestion" : "none",
        defined $l->{sum}{errors} && defined $l->{sum}{drops} ? "errdrops" : "missing")')
set -- $c
diag "storage_net phase: links moved $2 bytes out (clean phase before: $3), background $4 bytes/s"
[ "$1" = "${NAME}01,${NAME}02,${NAME}03,${NAME}04" ] && [ $(( $2 - $3 )) -ge $(( $4 / 2 )) ] &&
    [ "$5" = none ] && [ "$6" = errdrops ]
ok $? "the storage_net phase carries each node's eth0 deltas: the bytes beyond the clean phase's cover the background's ($c)"
# the phases' deltas of node 01's eth0, added, against what the root side
# of its veth received over the whole run: never more, and most of it
s01=$(rec loose 'my %seen; my $t = 0; for my $c (grep { $_->{type} eq "contention" } @r) {
    for my $k ("counters", "clean_counters") { $t += $c->{$k}{hosts}{"'"${NAME}01"'"}{links}{eth0}{tx_bytes} } } $t')
diag "node 01 eth0: $s01 bytes out over the recorded phases, $((v1 - v0)) received by its veth's peer over the run"
[ "$s01" -gt 0 ] && [ "$s01" -le $((v1 - v0)) ] && [ $(( s01 * 2 )) -ge $((v1 - v0)) ]
ok $? "node 01's phase deltas agree with its veth read from outside ($s01 of $((v1 - v0)) bytes)"
grep -qs 'storage_net [0-9.e+]* of [0-9.]* MB/s; links \*: [0-9.]* MB out, [0-9.]* MB in, 0 errors, [0-9]* drops, no congestion counter exposed; busiest .*(clean phase before: [0-9.]* MB out)' "$TMP"/loose/report/*.html
ok $? "the HTML shows beside the slowdown what the links moved in that phase and in the clean one"
# the other tenant on other nodes that share the spine: fcX02 and fcX04
# only generate, fcX01 and fcX03 only measure
profile "$TMP/apart.yaml" 1.3 "      background_hosts: ${NAME}02,${NAME}04
$NET"
run apart "$TMP/apart.yaml"
rc=$?
ratio=$(rec apart '(map { $_->{slowdown} } grep { $_->{type} eq "contention" && $_->{kind} eq "all" } @r)[0]')
grep -q "^# contention: 2 foreground and 4 background ranks" "$TMP/apart/contention.tap" &&
    awk -v r="$ratio" 'BEGIN { exit !(r > 1.3) }' && [ $rc -eq 1 ]
ok $? "background on other nodes across the narrow spine slows the foreground too (${ratio}x, exit $rc)"
m=$(rec apart 'my @c = grep { $_->{type} eq "contention" } @r; scalar(@c) . " " . scalar grep {
    join(",", @{$_->{measured_hosts}}) ne "'"${NAME}01,${NAME}03"'" || join(",", sort @{$_->{racks}}) ne "rack1,rack2" ||
    (ref $_->{implicates} && join(",", sort @{$_->{implicates}{racks} // []}) ne "rack1,rack2") } @c')
[ "${m#* }" = 0 ] && [ "${m% *}" -gt 0 ]
ok $? "its records name the hosts measured and their racks, not the background hosts (records, wrong: $m)"
# a rack whose hosts only generated: the same records, as a run whose
# foreground was rack1's alone writes them; rack2 ran in the stage but was
# not measured by it, so it is not judged by it (required: INCOMPLETE)
mkdir -p "$TMP/bgrack"; cp "$TMP/apart/profile.yaml" "$TMP/apart/hosts" "$TMP/apart/racks" "$TMP/bgrack/"
perl -MJSON::PP -ne 'my $r = decode_json($_); if ($r->{type} eq "contention") {
        $r->{measured_hosts} = ["'"${NAME}01"'"]; $r->{racks} = ["rack1"];
        $r->{implicates}{racks} = ["rack1"] if ref $r->{implicates};
        $_ = JSON::PP->new->canonical->encode($r) . "\n" } print' "$TMP/apart/results.jsonl" > "$TMP/bgrack/results.jsonl"
$FC report "$TMP/bgrack" > "$TMP/bgrack.out" 2>&1
grep -q '^rack rack2: INCOMPLETE' "$TMP/bgrack.out" &&
    grep -q '^  INCOMPLETE rack rack2, contention stage: required stage contention finished but judged no check on this rack' "$TMP/bgrack.out" &&
    ! grep -q '^  FAIL rack rack2' "$TMP/bgrack.out" && grep -q '^rack rack1: FAIL' "$TMP/bgrack.out"
ok $? "a rack of background hosts alone is not judged by the contention stage: INCOMPLETE, neither PASS nor its slowdown's FAIL"
# the report judges the records again against the frozen profile's
# max_slowdown (1.3 in tight): the tight run's records edited to PASS at
# 1.1x (its end record to match) pass; one kind's PASS at 4.0x, or with
# its own max_slowdown raised to 10, or with no slowdown, FAILs; the loose
# run's record with another max_slowdown than its profile's is INCOMPLETE
forgec() {  # forgec NAME FROM PERL: the report of run FROM, each record $r edited by PERL
    forge_report "$1" "$TMP/$2" -MJSON::PP \
        -ne 'my $r = decode_json($_); '"$3"'; print JSON::PP->new->canonical->encode($r), "\n" if $r'
}
ALLPASS='if ($r->{type} eq "contention") { $r->{verdict} = "PASS"; $r->{reasons} = []; $r->{implicates} = undef; $r->{slowdown} = 1.1 }
    if ($r->{type} eq "stage_end") { $r->{status} = "ok"; $r->{verdict} = "PASS"; $r->{failed_points} = $r->{judged_not_pass} = 0 }'
TENANT='if $r->{type} eq "contention" && $r->{kind} eq "tenant"'
forgec fpass tight "$ALLPASS"
forgec fslow tight "$ALLPASS; \$r->{slowdown} = 4.0 $TENANT"
forgec floose tight "$ALLPASS; @\$r{qw(slowdown max_slowdown)} = (4.0, 10) $TENANT"
forgec fnone tight "$ALLPASS; delete \$r->{slowdown} $TENANT"
grep -q '^verdict: PASS' "$TMP/fpass.out" &&
    grep -q "^  FAIL rack rack1, contention stage, rack: .* under tenant: its own figures fail its limit (slowdown 4.00x under tenant is above max_slowdown 1.3x), though its verdict says 'PASS'" "$TMP/fslow.out" &&
    grep -q "^  FAIL rack rack2, contention stage, limit: .* under tenant: its own figures fail the frozen profile's limit (slowdown 4.00x under tenant is above max_slowdown 1.3x), though its verdict says 'PASS' and its max_slowdown 10 is not the frozen profile's 1.3" "$TMP/floose.out" &&
    grep -q "^  FAIL rack rack1, .*under tenant: its own figures fail its limit (slowdown missing under tenant" "$TMP/fnone.out"
ok $? "a contention PASS at 4.0x (its own limit or one raised to 10), or with no slowdown, FAILs against max_slowdown 1.3; at 1.1x it passes"
forgec flimit loose "\$r->{max_slowdown} = 2000 $TENANT"
grep -q '^verdict: INCOMPLETE' "$TMP/flimit.out" &&
    grep -q "^  INCOMPLETE rack rack2, contention stage, limit: .* under tenant: its max_slowdown 2000 is not the frozen profile's 1000" "$TMP/flimit.out"
ok $? "a contention record judged against another max_slowdown than the profile's: INCOMPLETE, naming both"
# the loaded phase's link counters are judged too (lib/counters/fc_counters_check.h),
# and again by the report: every phase of the loose run passed its traffic
# floor; its tenant record edited to show rx_errors +2 on eth0 of node 02
# FAILs naming that link
forgec ferrs loose "\$r->{counters}{hosts}{'${NAME}02'}{links}{eth0}{rx_errors} = 2 $TENANT"
n=$(rec loose 'join(",", map { $_->{counters}{check}{verdict} // "none" } grep { $_->{type} eq "contention" } @r)')
[[ "$n" =~ ^PASS(,PASS)*$ ]] &&
    grep -q "^  FAIL rack rack1, contention stage, .* under tenant: its own figures fail its limit (link eth0 of host ${NAME}02: error counters rose during the point (rx_errors +2), above max_errors 0)" "$TMP/ferrs.out"
ok $? "each contention phase's counters judged (the loose run's: $n); rx_errors +2 on ${NAME}02's eth0 under a PASS FAILs naming the link"
# the tenant record with its counters cut out: its phase's traffic and
# errors were never judged, so not a PASS
forgec fnoc loose "delete \$r->{counters} $TENANT"
grep -q "^  INCOMPLETE rack rack[12], contention stage, limit: .* under tenant: it carries no link counters, though its stage read them" "$TMP/fnoc.out" &&
    ! grep -q '^verdict: PASS' "$TMP/fnoc.out"
ok $? "a contention record without its counters, where its stage read them: INCOMPLETE"
# each planned point under each background kind, once per group: one
# kind's record deleted (the end record recounted) is missing, one kind
# recorded as another is there twice, though every point was measured
forgec fnokind loose "if (\$r->{type} eq 'stage_end') { \$r->{judged_records} = \$r->{points} = 2 } \$r = undef $TENANT"
forgec ftwice loose "\$r->{kind} = 'storage_net' $TENANT"
sweep='contention stage, sweep: stage contention did not measure what the plan says (the frozen profile with the plan.s overrides): planned 3 points, 2 judged (first missing: all_reduce float32 sum 64 KiB under tenant)'
grep -q "^  INCOMPLETE rack rack1, $sweep$" "$TMP/fnokind.out" && grep -q '^verdict: INCOMPLETE' "$TMP/fnokind.out" &&
    grep -q "^  INCOMPLETE rack rack2, $sweep; 1 record(s) of a point measured twice (first: all_reduce float32 sum 64 KiB on cluster under storage_net)$" "$TMP/ftwice.out"
ok $? "a background kind's record deleted, or recorded as another kind: INCOMPLETE, naming the point and kind missing"
# scope: rack (the loose run as each rack's foreground would record it,
# its profile changed to say so): rack2's tenant record deleted leaves
# rack2 INCOMPLETE and rack1 PASS
mkdir -p "$TMP/frack"; cp "$TMP/loose/hosts" "$TMP/loose/racks" "$TMP/frack/"
sed 's/scope: cluster/scope: rack/' "$TMP/loose/profile.yaml" > "$TMP/frack/profile.yaml"
perl -MJSON::PP -ne 'BEGIN { ($old, $new) = map { my $f = $_; `sha256sum < $f` =~ /^(\w+)/ } @ARGV[0, 1]; @ARGV = ($ARGV[2]) }
    s/$old/$new/g; my $r = decode_json($_);
    if ($r->{type} eq "stage_end") { $r->{judged_records} = $r->{points} = 5 }
    if ($r->{type} ne "contention") { print JSON::PP->new->canonical->encode($r), "\n"; next }
    for my $k (1, 2) { my %c = %$r; $c{group} = $c{rack} = "rack$k"; $c{racks} = ["rack$k"];
        $c{measured_hosts} = [grep { /0@{[2 * $k - 1]}$|0@{[2 * $k]}$/ } @{$r->{measured_hosts}}];
        print JSON::PP->new->canonical->encode(\%c), "\n" unless $k == 2 && $c{kind} eq "tenant" }' \
    "$TMP/loose/profile.yaml" "$TMP/frack/profile.yaml" "$TMP/loose/results.jsonl" > "$TMP/frack/results.jsonl"
$FC report "$TMP/frack" > "$TMP/frack.out" 2>&1
grep -q '^rack rack1: PASS' "$TMP/frack.out" && grep -q '^rack rack2: INCOMPLETE' "$TMP/frack.out" &&
    grep -q '^  INCOMPLETE rack rack2, contention stage, sweep: .*planned 3 points, 2 judged (first missing: all_reduce float32 sum 64 KiB on rack2 under tenant)$' "$TMP/frack.out"
ok $? "scope rack: a kind's record missing on one rack leaves that rack INCOMPLETE, the other PASS"
$VC --name $NAME clear
sed "s/background_hosts: .*/background_hosts: ${NAME}09/" "$TMP/apart.yaml" > "$TMP/typo.yaml"
run typo "$TMP/typo.yaml"
rc=$?
[ $rc -eq 2 ] && grep -q "background_hosts names ${NAME}09, which is not in the inventory" "$TMP/typo.err" &&
    [ ! -e "$TMP/typo/results.jsonl" ]
ok $? "a background host that is not in the inventory: exit 2 before anything runs ($rc)"

# storage traffic that cannot be written
mkdir -p "$TMP/ro" && mount -t tmpfs -o ro,size=1m tmpfs "$TMP/ro"
profile "$TMP/ro.yaml" 1000 "      storage_dir: $TMP/ro
      storage_file: {block: 1MiB, rate_mbps: 20}"
run readonly "$TMP/ro.yaml"
rc=$?
ok $(( rc != 1 )) "a read-only storage_dir: exit 1 ($rc)"
grep -q '^rack rack1: INCOMPLETE' "$TMP/readonly.out" && grep -q '^rack rack2: INCOMPLETE' "$TMP/readonly.out" &&
    ! grep -q ': PASS' "$TMP/readonly.out" &&
    grep -q '^stage contention: INCOMPLETE: [0-9]* checks, 0 failed, [0-9]* incomplete (first: background storage_file ' "$TMP/readonly.out"
ok $? "the racks are INCOMPLETE, not PASS; the stage's line says INCOMPLETE and why, not FAIL"
[ $? -eq 0 ] || why "$(grep '^stage contention' "$TMP/readonly.out")"
grep -q "background storage_file logged an error (it reached 0.000 MB/s .*storage_dir $TMP/ro on host ${NAME}0[1-4]: cannot create .*Read-only file system" "$TMP/readonly.out"
ok $? "the reason names the directory, the host and the system's error"
profile "$TMP/missing.yaml" 1000 "      storage_dir: $TMP/no-such-dir
      storage_file: {block: 1MiB, rate_mbps: 20}"
run missing "$TMP/missing.yaml"
grep -q "storage_dir $TMP/no-such-dir on host ${NAME}0[1-4]: No such file or directory" "$TMP/missing.out" &&
    grep -q "storage_file traffic cannot run: storage_dir $TMP/no-such-dir" "$TMP/missing/contention.log"
ok $? "a missing storage_dir is named, with the system's reason"

# a flip in the foreground under load
run flip "$TMP/loose.yaml" --selftest-corrupt rank=0,iter=2 --selftest-stage contention
rc=$?
host0=$(rec flip '(grep { $_->{type} eq "stage_start" } @r)[0]{rank_hosts}[0]')
ok $(( rc != 1 )) "a flip under load makes the run exit 1 ($rc)"
n=$(rec flip 'scalar grep { $_->{type} eq "contention" && $_->{verdict} eq "FAIL" && $_->{wrong} > 0 && $_->{reasons}[0] =~ /wrong elements under load; first on rank 0 \(host '$host0'\)/ } @r')
ok $(( n < 1 )) "it is caught under load and attributed to rank 0 on $host0 ($n records)"

# the foreground on nccl, on this machine: rank 0 measures, rank 1 writes
mkdir -p "$TMP/st"
profile "$TMP/gpu.yaml" 1000000 "      storage_dir: $TMP/st
      storage_file: {block: 64KiB, rate_mbps: 5, direct: false}"
sed -i 's/      phase_s: 1.0/      phase_s: 0.3/; s/    iters: 9/    iters: 3/' "$TMP/gpu.yaml"
local_run() {   # local_run OUT BACKEND [VAR=VALUE...]: the stage under mpirun here
    local out=$1 backend=$2; shift 2
    env "$@" timeout -k 10 60 mpirun -np 2 "$BUILD/suites/contention" --backend "$backend" \
        --profile "$TMP/gpu.yaml" --out "$TMP/$out" > "$TMP/$out.tap" 2> "$TMP/$out.err"
    rc=$?
}
H=$(hostname)
local_run noplugin nccl FABCERT_GPU_PLUGIN="$TMP/none.so"
grep -q "^1\.\.0 # SKIP --backend nccl: host $H (rank 0) cannot run it: the GPU plugin $TMP/none.so is missing" "$TMP/noplugin.tap" && [ $rc -eq 1 ]
ok $? "contention on nccl without the GPU plugin: skipped, naming the foreground rank 0 alone ($rc)"
sed -i 's/^    ops: \[sum\]$/&\n    counters: {read: false}/' "$TMP/gpu.yaml"     # this run reads none
local_run auto auto FABCERT_GPU_PLUGIN="$TMP/none.so"
[ $rc -eq 0 ] && grep -q "^# --backend auto: using mpi, as host $H (rank 0) cannot use nccl" "$TMP/auto.tap" &&
    grep -q '^ok 1 - all_reduce float32 sum 64 KiB under storage_file' "$TMP/auto.tap"
ok $? "--backend auto falls back to mpi, says why, and measures ($rc)"
n=$(rec auto 'scalar grep { $_->{type} eq "contention" && (exists $_->{counters} || exists $_->{clean_counters}) } @r')
[ "$n" = 0 ] && ! grep -q 'counters:' "$TMP/auto.tap"
ok $? "counters: {read: false}: no phase record or TAP line carries counters ($n records do)"
sed -i '/^    counters: {read: false}$/d' "$TMP/gpu.yaml"
# through fabcert run, for the verdict: the stand-in measured host memory,
# so the rack is INCOMPLETE whatever its checks say
$FC run --out "$TMP/standin" --np 2 --profile "$TMP/gpu.yaml" --backend nccl \
    --env FABCERT_GPU_PLUGIN="$PWD/$BUILD/tests/libfc_gpu_standin.so" --env FC_GPU_STANDIN=host \
    --env FC_GPU_STANDIN_GPUS=1 > "$TMP/standin.out" 2>&1
rc=$?
d=$(rec standin 'my ($s) = grep { $_->{type} eq "stage_start" } @r; my ($d) = grep { $_->{type} eq "devices" } @r;
    my ($c) = grep { $_->{type} eq "contention" } @r;
    "$s->{backend} " . join(",", map { "$_->{rank}:$_->{gpu}" } @{$d->{devices}}) . " $c->{backend} $c->{verdict}"')
[ "$d" = "nccl 0:stand-in nccl PASS" ] &&
    grep -q 'stand-in GPU plugin: rank 0 ended: .*aborts=0 destroys=1' "$TMP/standin/contention.log"
ok $? "with a GPU on the foreground rank alone (stand-in plugin), the foreground runs on nccl beside an MPI background, and the devices record lists its GPU alone ($d)"
[ $rc -eq 1 ] && grep -q '^rack default: INCOMPLETE' "$TMP/standin.out" &&
    grep -q '^  INCOMPLETE rack default, contention stage, gpus: the contention stage was measured by the test stand-in plugin, not a GPU' "$TMP/standin.out"
ok $? "its checks PASS, but the rack is INCOMPLETE: measured by the test stand-in plugin, not a GPU ($rc)"
n=$(rec standin 'my ($c) = grep { $_->{type} eq "contention" } @r; join(",", keys %{$c->{counters}{hosts}}) . " " . scalar(@{$c->{counters}{not_read}})')
[ "$n" = "$H 0" ]
ok $? "by default each phase record carries this host's links, read once for its two ranks ($n)"
done_testing
