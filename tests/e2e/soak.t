#!/bin/bash
# soak.t - the soak stage on a virtual cluster of 2 racks x 2 nodes, two
# ranks per node, 8 s in windows of 1.5 s (5 s for the flap, 10 s in
# windows of 1 s for the slowed link). Shows that:
#   - a clean cluster soaks and passes beside a CPU hog that comes and goes
#     (busy 1 s, idle 1 s), under a drift limit of 100%, with every
#     window's medians, the drift rule, its noise floor and tolerance, and
#     every node's link counters recorded;
#   - a node's link taken down for half a second mid-soak (vcluster flap)
#     is caught by its carrier_changes counter: that node's rack FAILs and
#     the failure names the link and host; the other rack passes;
#   - a node's link slowed mid-soak (tc tbf, once two windows have closed:
#     a drift is measured against a level held over two) and left slow is
#     a drift, confirmed by the windows the soak runs on for, with the
#     figures in the message and a plot of the window medians on the
#     rack's page; the retest places it on that node;
#   - the same slowdown lifted as soon as the soak asks to confirm it is
#     contradicted by the confirming windows: INCOMPLETE with both
#     figures, nobody quarantined, no rack FAILs;
#   - interrupting the run (SIGINT) stops the stage at once, keeps the
#     windows measured so far and reports INCOMPLETE, never PASS;
#   - the report judges the clean run's soak points again (edited): a
#     drift_pct above its tolerance under a PASS FAILs, so do windows
#     edited into a step the record does not report, and a drift not
#     judged (drift_pct null) is INCOMPLETE.
# Needs root (namespaces); skips with the reason otherwise.
# lane: pinned, about 75 s (a clean soak held to 100% drift: beside two other tests its windows swung 2.4 to 36 ms)
. tests/e2e/tap.sh
FC=$BUILD/fabcert
vcluster_up fcs
plan 16
H1=${NAME}01 H2=${NAME}02 H3=${NAME}03
start() {   # start OUT PROFILE [options]: in the background, inside the first node
    local out=$1 profile=$2; shift 2
    $VC --name $NAME exec $H1 $FC run --hosts "$D/hosts" --racks "$D/racks" \
        --profile "$profile" --out "$TMP/$out" "$@" > "$TMP/$out.out" 2> "$TMP/$out.err" &
}
rec() { jsonl "$TMP/$1/results.jsonl" "$2"; }
started() {     # started OUT: wait (60 s at most) until the stage has started:
    local waited=0  # launching 8 ranks can take seconds on a busy machine
    until grep -qs '"type":"stage_start"' "$TMP/$1/results.jsonl" || [ $waited -ge 600 ]; do
        sleep 0.1; waited=$((waited + 1))
    done
}
windowed() {    # windowed OUT [N]: wait (60 s at most) until the soak's first N
    local waited=0 n=${2:-1}    # windows (1) have closed: their counters were
                    # read before, so a fault planted now is mid-soak, and
                    # N windows are kept
    until [ "$(cat "$TMP/$1/results.jsonl" 2> /dev/null | grep -c '"type":"soak_window"')" -ge "$n" ] ||
          [ $waited -ge 600 ]; do
        sleep 0.1; waited=$((waited + 1))
    done
}
confirming() {  # confirming OUT: wait (60 s at most) until the soak's time is up
    local waited=0  # with a drift seen, and it runs on to confirm it
    until grep -qs 'the time is up with the drift unsettled (confirm)' "$TMP/$1/soak.tap" ||
          [ $waited -ge 600 ]; do
        sleep 0.1; waited=$((waited + 1))
    done
}
hog_start() {   # a CPU hog that comes and goes: busy 1 s, idle 1 s
    ( while :; do timeout 1 bash -c 'while :; do :; done'; sleep 1; done ) &
    HOG=$!
}
profile() {     # profile FILE MAX_DRIFT_PCT
    cat > "$1" <<YAML
name: soak-test
seed: 11
stages:
  soak:
    timeout_s: 120
    warmup: 1
    iters: 5
    sizes: [64KiB]
    collectives: [all_reduce]
    dtypes: [float32]
    ops: [sum]
    soak:
      duration_s: 8
      window_s: 1.5
      max_drift_pct: $2
      nic_pattern: "eth*"
YAML
}
profile "$TMP/loose.yaml" 1000
profile "$TMP/tight.yaml" 100
# the flap run: planted once the first window has closed, so 5 s (3
# windows) leave it 3 s inside the soak
sed 's/duration_s: 8/duration_s: 5/' "$TMP/loose.yaml" > "$TMP/flap.yaml"
# the slowed link's runs: planted once two 1-second windows have closed, so
# 10 s leave it several whole windows of 20 Mbit/s rounds (a drift of about
# 5,600%; at 5 Mbit/s, 23,600%, rounds of 2-3 s and the scenario 20 s longer)
sed 's/duration_s: 8/duration_s: 10/; s/window_s: 1.5/window_s: 1/' "$TMP/tight.yaml" > "$TMP/step.yaml"

# 1. clean, beside a CPU hog that comes and goes, under the tight limit
hog_start
start clean "$TMP/tight.yaml"; wait $!
rc=$?
kill $HOG; wait $HOG 2> /dev/null
[ $rc -eq 0 ] && grep -q "^rack rack1: PASS" "$TMP/clean.out" && grep -q "^rack rack2: PASS" "$TMP/clean.out"
ok $? "a clean cluster soaks for 8 s beside a CPU hog that comes and goes, and passes ($rc)"
[ $rc -eq 0 ] || why "$(rec clean 'join "\n", map { "windows: " . join(" ", map { sprintf "%.0f", $_->{median_us} } @{$_->{soak}{windows}}) . "; " . join("; ", @{$_->{reasons}}) } grep { $_->{type} eq "point" } @r')"
n=$(rec clean 'scalar grep { $_->{type} eq "soak_window" } @r')
w=$(rec clean '(map { scalar @{$_->{soak}{windows}} } grep { $_->{type} eq "point" } @r)[0]')
t=$(rec clean 'my ($s) = map { $_->{soak} } grep { $_->{type} eq "point" } @r;
    defined $s->{noise_floor_pct} && $s->{tolerance_pct} >= 100 && $s->{drift_rule} =~ /noise floor/ &&
    $s->{tolerance_pct} == ($s->{noise_floor_pct} > 100 ? $s->{noise_floor_pct} : 100) ? "yes" : "no"')
[ "$n" -ge 4 ] && [ "$n" = "$w" ] && [ "$t" = yes ]
ok $? "every window is recorded as it closes, with the drift rule, noise floor and tolerance ($n windows, $w in the point; $t)"
# the report judges the soak points' drift again: the clean run's point
# edited to a drift of 1500% under its PASS FAILs, so does a step edited
# into its windows; with drift_pct null (too few windows) it is INCOMPLETE
forge() {   # forge NAME PERL: the report of the clean run, its soak points' $s edited
    forge_report "$1" "$TMP/clean" -MJSON::PP -ne 'my $r = decode_json($_); my $s = $r->{soak}; if ($r->{type} eq "point" && $s) { '"$2"' }
        print JSON::PP->new->canonical->encode($r), "\n"'
}
forge drift '$s->{drift_pct} = 1500'
forge step 'my $w = $s->{windows}; $_->{median_us} *= 50 for @$w[-2, -1]'
forge nodrift '$s->{drift_pct} = undef'
grep -q "^  FAIL rack rack1, soak stage, .*its own figures fail its limit (drift 1500.0% is above its tolerance [0-9.]*%" "$TMP/drift.out" &&
    grep -q "^  FAIL rack rack2, soak stage, .*its own figures fail its limit (its windows show a drift of [0-9.]*% (windows [0-9]* to [0-9]* against [0-9]* to [0-9]*), above its tolerance" "$TMP/step.out" &&
    grep -q '^verdict: INCOMPLETE' "$TMP/nodrift.out" &&
    grep -q "^  INCOMPLETE rack rack2, soak stage, limit: .*its drift was not judged (drift_pct null over [0-9]* window(s)) under max_drift_pct 100" "$TMP/nodrift.out"
ok $? "a soak PASS whose drift, or windows, show a drift above its tolerance FAILs; one whose drift was not judged is INCOMPLETE"
n=$(rec clean 'scalar grep { $_->{type} eq "soak_counters" && $_->{verdict} eq "PASS" && exists $_->{links}{eth0}{carrier_changes} } @r')
ok $(( n != 4 )) "the link counters of all 4 nodes are read before and after ($n)"
# and each window carries what every node's links did in it (shown, not judged)
n=$(rec clean 'my @w = grep { $_->{type} eq "soak_window" } @r;
    scalar(grep { my $h = $_->{counters}{hosts}; keys %$h == 4 && !grep { !(($h->{$_}{links}{eth0}{tx_bytes} // 0) > 0) } keys %$h } @w) . "/" . scalar(@w)')
[ "${n%/*}" = "${n#*/}" ] && [ "${n#*/}" -ge 4 ]
ok $? "every window carries the link counters of all 4 nodes, bytes out of each eth0 ($n)"

# 2. a link that drops out for half a second mid-soak
start flap "$TMP/flap.yaml"; pid=$!
windowed flap
$VC --name $NAME flap $H2 0.5 > /dev/null
wait $pid
rc=$?
ok $(( rc != 1 )) "a link flap mid-soak makes the run exit 1 ($rc)"
grep -q "^rack rack1: FAIL" "$TMP/flap.out" &&
    grep -q "^  FAIL rack rack1, soak stage, link $H2: .*link eth0 of host $H2: carrier_changes rose by [1-9]" "$TMP/flap.out"
ok $? "rack1 fails on $H2's link, named with the counter that moved"
grep -q "^rack rack2: PASS" "$TMP/flap.out"
ok $? "rack2, whose links held, passes"

# 3. a link that slows down mid-soak and stays slow: a drift, confirmed
start slow "$TMP/step.yaml"; pid=$!
windowed slow 2
$VC --name $NAME slow $H3 20mbit > /dev/null
wait $pid
rc=$?
$VC --name $NAME clear
drift=$(rec slow '(map { $_->{soak}{drift_pct} } grep { $_->{type} eq "point" } @r)[0]')
ok $(( rc != 1 )) "a link slowed mid-soak makes the run exit 1 ($rc)"
awk -v d="$drift" 'BEGIN { exit !(d > 100) }' &&
    grep -q "sustained drift [0-9.]*%: windows [0-9]* to [0-9]* all ran at .* us or slower, against .* us held by windows [0-9]* to [0-9]* (tolerance [0-9.]*%: .*); confirmed: seen over the first [0-9]* windows ([0-9.]*%), still there [2-9] windows later" "$TMP/slow.out" &&
    [ "$(rec slow 'scalar grep { ($_->{after_duration} // "") eq "confirm" } @r')" -ge 2 ]
st=$?
ok $st "the drift is above the tolerance, with the figures, and confirmed by the windows the soak ran on for (${drift}%)"
[ $st -eq 0 ] || why "$(grep -E '^  (FAIL|INCOMPLETE)' "$TMP/slow.out" | cut -c1-700 | head -4)"
# the drift is the soak group's until the retest after the soak places it:
# the slowed node alone is quarantined, the other rack passes
q=$(rec slow 'join ",", map { $_->{host} } grep { $_->{type} eq "quarantine" } @r')
[ "$q" = "$H3" ] && grep -q "^rack rack1: PASS" "$TMP/slow.out" &&
    grep -q "^rack rack2: FAIL" "$TMP/slow.out" &&
    grep -q "^  FAIL rack rack2, soak stage, node $H3: .*slowness placed on $H3" "$TMP/slow.out"
ok $? "the retest places the drift on $H3 alone; rack1 passes ($q)"
grep -q 'soak: median time per window (drift)' "$TMP/slow/report/rack-rack1.html" &&
    grep -q 'stroke-dasharray="6 4"' "$TMP/slow/report/rack-rack1.html" &&
    grep -q 'was confirmed over' "$TMP/slow/report/rack-rack1.html"
ok $? "the rack's page plots the window medians with the drift's tolerance, and says it was confirmed"

# 3b. the same slowdown, lifted as the soak runs on to confirm it: the
# confirming windows contradict it, so it blames nobody
start gone "$TMP/step.yaml"; pid=$!
windowed gone 2
$VC --name $NAME slow $H3 20mbit > /dev/null
confirming gone
$VC --name $NAME clear
wait $pid
rc=$?
q=$(rec gone 'join ",", map { $_->{host} } grep { $_->{type} eq "quarantine" } @r')
[ $rc -eq 1 ] && [ -z "$q" ] && grep -q "^rack rack1: INCOMPLETE" "$TMP/gone.out" &&
    grep -q "^rack rack2: INCOMPLETE" "$TMP/gone.out" &&
    grep -q "INCOMPLETE rack rack1, soak stage, .*drift not confirmed: over the first [0-9]* windows drift [0-9.]*%: .*; [0-9]* windows later it is [0-9.]*% (tolerance [0-9.]*%): the windows contradict each other, so they blame nobody" "$TMP/gone.out" &&
    [ "$(rec gone 'scalar grep { $_->{type} eq "retest_launch" } @r')" = 0 ]
st=$?
ok $st "a slowdown gone when the soak confirms it is INCOMPLETE with both figures, no retest, nobody quarantined ($rc, '$q')"
[ $st -eq 0 ] || why "$(grep -E '^(rack|  (FAIL|INCOMPLETE))' "$TMP/gone.out" | cut -c1-700 | head -6)"

# 4. interrupted: the stage stops at once, the windows measured stay
sed 's/duration_s: 8/duration_s: 600/; s/timeout_s: 120/timeout_s: 700/' "$TMP/loose.yaml" > "$TMP/long.yaml"
start stop "$TMP/long.yaml"
windowed stop
t0=$(date +%s)
pkill -INT -f "fabcert run --hosts $D/hosts .* --out $TMP/stop"
wait
took=$(( $(date +%s) - t0 ))
grep -q "^rack rack1: INCOMPLETE" "$TMP/stop.out" && grep -q "^rack rack2: INCOMPLETE" "$TMP/stop.out" &&
    grep -q "stage soak: DID NOT FINISH.*(stopped: the run was interrupted)" "$TMP/stop.out" &&
    grep -q "INCOMPLETE rack rack1, soak stage: required stage soak did not finish: interrupted by signal 2" "$TMP/stop.out"
ok $? "an interrupted soak is reported INCOMPLETE with the reason, never PASS"
[ $took -le 15 ] && ! pgrep -f "suites/soak .*$TMP/stop" > /dev/null
ok $? "the stage was stopped at once and left no process (${took}s)"
n=$(rec stop 'scalar grep { $_->{type} eq "soak_window" } @r')
ok $(( n < 1 )) "the windows measured before the stop are in results.jsonl ($n)"
done_testing
