#!/bin/bash
# long_run.t - operating a long burn-in, on this machine alone:
#   - progress: a 20-second soak run with --progress prints a line at
#     every window and at least every 10 s (stage, time done of total,
#     failures, ETA), and each line's ETA, added to the moment it was
#     printed, falls within 4 s of the moment the stage really ended;
#     a reader polling progress.json every 50 ms while it runs never finds
#     it invalid (it is replaced by rename, never rewritten in place);
#     without --progress, stdout not a terminal, no progress line;
#   - resume: the same plan interrupted (SIGTERM to the runner) while its
#     third stage runs, after it wrote some checks, then `run --resume`:
#     the first two stages are kept, the third runs again from its start
#     (its earlier attempt superseded, its checks not counted twice), the
#     soak runs, and the verdict and each stage's checks are the
#     uninterrupted run's; quarantine carries over; a resume with another
#     profile, other overrides or another launch is refused, exit 2, and
#     changes nothing; the certificate, summary and HTML say when the run
#     was resumed; in the records, a failure of a superseded attempt still
#     fails the rack, and a resume record cannot turn a stage that never
#     finished into a pass;
#   - metrics: --metrics on the watched run, the interrupted one and the
#     resume; each file, read by a real parser (Python prometheus_client's
#     Prometheus text parser and its OpenMetrics parser), has the run's
#     state, a verdict sample per rack, checks and failures per stage,
#     busbw per stage and collective, the soak's drift and windows and
#     the link counter deltas; the resume's counts are the uninterrupted
#     run's (the superseded attempt's checks not counted twice).
. tests/e2e/tap.sh
FC=$BUILD/fabcert
plan 20
SWEEP=(--sizes 4KiB --collectives all_reduce --dtypes int32 --ops sum --iters 2 --warmup 1)
# the cluster stage's all_to_all calls held 0.1 s each (the MPI injector), so
# that the stage is still running when SIGTERM comes after its first points
SLOW=(--env "LD_PRELOAD=$PWD/$BUILD/libfc_inject.so" --env "FC_INJECT_HOST=*"
      --env FC_INJECT_MODE=delay --env FC_INJECT_PROGRAM=cluster
      --env FC_INJECT_COLL=alltoall --env FC_INJECT_DELAY_US=100000)
# stamp each line with the time it was read, in seconds
stamp() { perl -MTime::HiRes=time -ne 'BEGIN { $| = 1 } printf "%.3f %s", time, $_'; }

cat > "$TMP/long.yaml" <<'YAML'
name: long-local
seed: 17
stages:
  node:
    timeout_s: 60
    warmup: 1
    iters: 2
    sizes: [4KiB]
    collectives: [all_reduce]
    dtypes: [int32]
    ops: [sum]
  rack:
    timeout_s: 60
    warmup: 1
    iters: 2
    sizes: [4KiB]
    collectives: [all_gather]
    dtypes: [int32]
    ops: [sum]
  cluster:
    timeout_s: 60
    warmup: 1
    iters: 4
    sizes: [256KiB]
    collectives: [all_reduce, all_gather, reduce_scatter, broadcast, all_to_all, sendrecv]
    dtypes: [int32, float32, float64]
    ops: [sum]
  soak:
    timeout_s: 120
    warmup: 1
    iters: 4
    sizes: [256KiB]
    collectives: [all_reduce]
    dtypes: [float32]
    ops: [sum]
    soak:
      duration_s: 20            # windows of a tenth: 2 s (0.3 s at --soak-duration 3)
      max_drift_pct: 1000000    # a busy 2-core machine stalls a window 400-fold
YAML
# the soak FAILs a link that vanishes while it runs; other tests' virtual
# clusters come and go on a shared machine, so follow a device-backed NIC
phys=$(for i in /sys/class/net/*; do [ -L "$i" ] && ! readlink "$i" | grep -q /virtual/ && basename "$i"; done | head -1)
echo "      nic_pattern: \"${phys:-*}\"" >> "$TMP/long.yaml"

# 1. the plan with a 20-second soak, watched
mkdir -p "$TMP/long"
perl -MJSON::PP -MTime::HiRes=sleep -e '
    my ($f, $stop) = @ARGV; my ($n, $bad, %state, $eta) = (0, 0);
    until (-e $stop) {
        if (open(my $h, "<", $f)) {
            local $/; my $t = <$h>; close $h; ++$n;
            my $d = eval { JSON::PP::decode_json($t) };
            if ($d) { $state{$d->{state} . ($d->{stage} ? "/$d->{stage}" : "")}++;
                      $eta++ if defined $d->{eta_s} }
            else { ++$bad }
        }
        sleep 0.05;
    }
    print "$n $bad ", ($eta // 0), " ", join(",", sort keys %state), "\n"' \
    "$TMP/long/progress.json" "$TMP/long.stop" > "$TMP/reader.out" &
reader=$!
$FC run --out "$TMP/long" --np 2 --profile "$TMP/long.yaml" "${SLOW[@]}" --progress \
    --metrics "$TMP/long.prom" 2> "$TMP/long.err" |
    stamp > "$TMP/long.out"
rc=${PIPESTATUS[0]}
touch "$TMP/long.stop"; wait $reader
[ $rc -eq 0 ] && grep -q ' verdict: PASS' "$TMP/long.out"
ok $? "a 20-second soak run with --progress passes ($rc)"
lines=$(grep -c ' progress: stage soak (4 of 4): [0-9.]* of 20.0 s, window [0-9]*, 0 failed, ETA [0-9]* s$' "$TMP/long.out")
gaps=$(perl -ne '($t) = /^(\S+)/; if (/ stage soak: \d+ host/) { $p = $t } elsif (/ progress: stage soak/) { $g = $t - $p if $t - $p > $g; $p = $t } END { printf "%.1f", $g }' "$TMP/long.out")
[ "$lines" -ge 8 ] && awk -v g="$gaps" 'BEGIN { exit !(g <= 10.5) }'
ok $? "a progress line at every window, none more than 10 s apart ($lines lines, widest gap ${gaps} s)"
err=$(perl -ne '($t) = /^(\S+)/; push @e, $t + $1 if / progress: stage soak.*ETA (\d+) s$/; $end = $t if / stage soak: PASS/;
    END { my $w = 0; for (@e) { my $d = abs($_ - $end); $w = $d if $d > $w } printf "%.1f %d", $w, scalar @e }' "$TMP/long.out")
set -- $err
[ "$2" -ge 8 ] && awk -v w="$1" 'BEGIN { exit !(w <= 4) }'
ok $? "every line's ETA is within 4 s of the soak's real end (worst ${1} s over $2 lines)"
set -- $(cat "$TMP/reader.out")
[ "${1:-0}" -ge 100 ] && [ "${2:-1}" -eq 0 ] && [ "${3:-0}" -ge 50 ] &&
    echo "$4" | grep -q 'running/soak'
ok $? "progress.json was valid at each of $1 reads while the run went on ($2 not), with an ETA in $3 ($4)"
jq_last=$(perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); print join " ", $d->{state}, $d->{verdict},
    map { "$_->{stage}:$_->{ended}" } @{$d->{finished}}' < "$TMP/long/progress.json")
is "$jq_last" "finished PASS node:1 rack:1 cluster:1 soak:1" "at the end progress.json says the run finished, its verdict and each stage"
! ls "$TMP/long" | grep -q 'progress.json.tmp'
ok $? "no temporary file is left beside it"

# 2. the same plan (a 3 s soak), stopped while its third stage runs
rec() { jsonl "$TMP/$1/results.jsonl" "$2"; }
SHORT=(--np 2 --profile "$TMP/long.yaml" --soak-duration 3 "${SLOW[@]}")
$FC run --out "$TMP/cut" "${SHORT[@]}" --metrics "$TMP/cut.prom" > "$TMP/cut.out" 2>&1 &
pid=$!
for i in $(seq 600); do   # two checks of the cluster stage written, then SIGTERM
    [ "$(grep -c '"stage":"cluster".*"type":"point"' "$TMP/cut/results.jsonl" 2> /dev/null)" -ge 2 ] && break
    sleep 0.05
done
kill -TERM $pid; wait $pid
rc=$?
n=$(rec cut 'join " ", map { my $s = $_; scalar grep { $_->{type} eq "stage_done" && $_->{stage} eq $s } @r } qw(node rack cluster soak)')
[ $rc -eq 1 ] && [ "$n" = "1 1 0 0" ] && grep -q 'stage cluster: DID NOT FINISH' "$TMP/cut.out" &&
    ! grep -q 'progress:' "$TMP/cut.out"
ok $? "SIGTERM during the cluster stage: node and rack done, cluster not, soak not run; no progress line without --progress ($rc; done: $n)"
partial=$(rec cut 'scalar grep { $_->{type} eq "point" && $_->{stage} eq "cluster" } @r')
cp "$TMP/cut/results.jsonl" "$TMP/cut.before"
sed 's/duration_s: 20/duration_s: 21/' "$TMP/long.yaml" > "$TMP/other.yaml"
$FC run --resume "$TMP/cut" --np 2 --profile "$TMP/other.yaml" --soak-duration 3 "${SLOW[@]}" > "$TMP/other.out" 2>&1
rc1=$?
$FC run --resume "$TMP/cut" "${SHORT[@]}" --iters 3 > "$TMP/iters.out" 2>&1
rc2=$?
$FC run --resume "$TMP/cut" --np 3 --profile "$TMP/long.yaml" --soak-duration 3 "${SLOW[@]}" > "$TMP/np.out" 2>&1
rc3=$?
[ $rc1 -eq 2 ] && grep -q "the profile .*other.yaml (sha256 [0-9a-f]*) is not the one the run began with (long-local" "$TMP/other.out" &&
    [ $rc2 -eq 2 ] && grep -q 'the command-line overrides differ from the run.s: it began with {"--env":\[[^]]*\],"--np":"2","--soak-duration":"3"}, this command gives {"--env":\[[^]]*\],"--iters":"3","--np":"2","--soak-duration":"3"}' "$TMP/iters.out" &&
    [ $rc3 -eq 2 ] && grep -q '"ranks":2[,}].*, this command gives .*"ranks":3[,}]' "$TMP/np.out" &&
    cmp -s "$TMP/cut.before" "$TMP/cut/results.jsonl" && [ ! -e "$TMP/cut/hosts.resume" ]
ok $? "a resume with another profile, other overrides or another --np is refused with the difference, exit 2, and changes nothing ($rc1 $rc2 $rc3)"

cp "$TMP/cut.prom" "$TMP/cut-interrupted.prom"
# 3. resumed
$FC run --resume "$TMP/cut" "${SHORT[@]}" --metrics "$TMP/cut.prom" > "$TMP/resume.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^stage node: finished before the resume: kept' "$TMP/resume.out" &&
    grep -q '^stage rack: finished before the resume: kept' "$TMP/resume.out" &&
    grep -q '^stage cluster: run again from its start (1 attempt(s) before the resume superseded)' "$TMP/resume.out" &&
    grep -q '^stage soak: PASS' "$TMP/resume.out"
ok $? "the resume keeps node and rack, runs cluster again and the soak, and passes ($rc)"
n=$(rec cut 'join " ", map { my $s = $_; scalar(grep { $_->{type} eq "stage_end" && $_->{stage} eq $s } @r) . "/" .
    scalar(grep { $_->{type} eq "stage_start" && $_->{stage} eq $s } @r) } qw(node rack cluster soak)')
is "$n" "1/1 1/1 1/2 1/1" "each stage ran to its end once (ends/starts per stage; the interrupted cluster attempt had $partial checks)"
cert() { perl -MJSON::PP -e 'local $/; my $c = decode_json(<STDIN>)->{certificate};
    print join " ", $c->{verdict}, map { "$_->{stage}:$_->{verdict}:$_->{checks}" } @{$c->{stages}}' < "$TMP/$1/certificates/default.json"; }
is "$(cert cut)" "$(cert long)" "the same verdict and the same checks per stage as the uninterrupted run ($(cert long))"
r=$(perl -MJSON::PP -e 'local $/; my $c = decode_json(<STDIN>)->{certificate}; my $x = $c->{resumed}[0];
    print scalar @{$c->{resumed}}, " ", join(",", @{$x->{kept}}), " ", join(",", @{$x->{to_run}}), " ",
          join(",", map { "$_->{stage}:$_->{attempts}" } @{$x->{superseded}}), " ", $x->{time} =~ /^\d{4}-\d\d-\d\dT/ ? "time" : "no-time"' \
    < "$TMP/cut/certificates/default.json")
[ "$r" = "1 node,rack cluster,soak cluster:1 time" ] &&
    grep -q '^resumed: [0-9T:-]*Z: kept node, rack; ran cluster, soak again from the start (1 earlier attempt superseded)' "$TMP/cut/summary.txt" &&
    grep -q '<b>Resumed</b> [0-9T:-]*Z: kept node, rack' "$TMP/cut/report/index.html" &&
    grep -q '"state": "finished"' "$TMP/cut/progress.json"
ok $? "the certificate, the summary and the HTML say when it was resumed and what ran again ($r)"

# 4. the verdict over edited records (fabcert report alone)
edit() {    # edit NAME PERL: a copy of the resumed run with its records edited
    forge_report "$1" "$TMP/cut" -ne "$2; print"
}
# a failure measured before the interruption is evidence: the first
# cluster point, made FAIL with wrong bits, in the superseded attempt
edit badold 'if (!$done && /"stage":"cluster"/ && /"type":"point"/) { s/"verdict":"PASS"/"verdict":"FAIL"/; s/"wrong":0/"wrong":3/; $done = 1 }'
rc=$?
[ $rc -eq 1 ] && grep -q '^verdict: FAIL' "$TMP/badold.out"
ok $? "a failure written by the superseded attempt still fails the rack ($rc)"
# a resume record that says node was superseded, though node never ran again
edit forged 's/"superseded":\[/"superseded":[{"attempts":1,"stage":"node"},/ if /"type":"resume"/'
rc=$?
[ $rc -eq 1 ] && grep -q 'INCOMPLETE rack default, node stage: required stage node did not run' "$TMP/forged.out"
ok $? "a resume record cannot make a stage that did not run again pass: its superseded attempt speaks for nothing ($rc)"
# a quarantine before the interruption carries over: the resumed stages
# leave the host out (here the only one: they are skipped); a node check
# made FAIL with wrong bits too, for the metrics (5.)
mkdir -p "$TMP/q"
perl -ne 's/"verdict":"PASS"/"verdict":"FAIL"/, s/"wrong":0/"wrong":3/ if /"stage":"node"/ && /"type":"point"/;
    print; if (/"type":"stage_done"/ && /"stage":"rack"/) { s/"type":"stage_done"/"type":"quarantine"/; s/"stage":"rack"/"stage":"rack","host":"'"$(hostname)"'","rack":"default","part":"node","reason":"planted"/; print }' \
    "$TMP/cut.before" > "$TMP/q/results.jsonl"
cp "$TMP/cut/profile.yaml" "$TMP/cut/hosts" "$TMP/q/"
$FC run --resume "$TMP/q" "${SHORT[@]}" --metrics "$TMP/q.prom" > "$TMP/q.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "^  $(hostname) stays quarantined" "$TMP/q.out" &&
    grep -q '^stage cluster: skipped: no healthy host is left' "$TMP/q.out" && grep -q '^verdict: FAIL' "$TMP/q.out"
ok $? "a quarantine written before the interruption carries over into the resumed stages ($rc)"

# 5. the metrics, read by a real parser
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
cat > "$TMP/prom.py" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families as prometheus
from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics
text = open(sys.argv[1]).read()
fams = {f.name: f for f in prometheus(text)}
n_om = len(list(openmetrics(text)))
def samples(name, **want):
    return [s for s in fams[name].samples if all(s.labels.get(k) == v for k, v in want.items())] if name in fams else []
def one(name, **want):
    s = samples(name, **want)
    return s[0].value if len(s) == 1 else None
out = [str(len(fams)), str(n_om),
       "run:" + ",".join(s.labels["state"] for s in samples("fabcert_run_state") if s.value == 1),
       "rack:" + ",".join("%s=%s" % (s.labels["rack"], s.labels["verdict"]) for s in samples("fabcert_rack_verdict") if s.value == 1)]
for st in ("node", "rack", "cluster", "soak"):
    out.append("%s:%s/%s/%s" % (st, one("fabcert_stage_checks", stage=st), one("fabcert_stage_failures", stage=st),
                                ",".join(s.labels["state"] for s in samples("fabcert_stage_state", stage=st) if s.value == 1)))
out.append("busbw:" + ",".join(sorted("%s/%s" % (s.labels["stage"], s.labels["collective"]) for s in samples("fabcert_busbw_gbps") if s.value > 0)))
out.append("soak:%d/%d/%d" % (len(samples("fabcert_soak_drift_pct")), one("fabcert_soak_window") or 0, len(samples("fabcert_soak_window_busbw_gbps"))))
out.append("links:%d" % len([s for s in samples("fabcert_link_error_delta") if s.labels.get("host") and s.labels.get("counter")]))
print(" ".join(out))
PY
if ! $PY -c 'import prometheus_client' 2> /dev/null; then
    for k in 1 2 3 4 5; do ok 0 "# SKIP python3-prometheus-client is not installed (make deps installs it)"; done
else
    long=$($PY "$TMP/prom.py" "$TMP/long.prom" 2>&1)
    diag "long: $long"
    set -- $long
    [ "$1" -ge 14 ] && [ "$1" = "$2" ] && [ "$3" = run:finished ] && [ "$4" = rack:default=PASS ] &&
        [ "$5" = node:1.0/0.0/done ] && [ "$6" = rack:1.0/0.0/done ] && [ "$7" = cluster:18.0/0.0/done ] &&
        [ "$8" = soak:2.0/0.0/done ]
    ok $? "the metrics parse (Prometheus and OpenMetrics parsers, $1 families) with the run's state, a verdict per rack and checks, failures and state per stage"
    echo "$long" | grep -q ' busbw:cluster/all_gather,cluster/all_reduce,cluster/all_to_all,cluster/broadcast,cluster/reduce_scatter,cluster/sendrecv,node/all_reduce,rack/all_gather soak:1/10/1 links:[1-9]'
    ok $? "busbw per stage and collective, the soak's drift and its 10 windows, and the link counter deltas"
    cut=$($PY "$TMP/prom.py" "$TMP/cut-interrupted.prom" 2>&1)
    set -- $cut
    [ "$3" = run:interrupted ] && [ "$4" = rack:default=INCOMPLETE ] && [ "$5" = node:1.0/0.0/done ] &&
        [ "${7%/running}" != "$7" ] && [ "${8#soak:None/None/}" = pending ]
    ok $? "the interrupted run's metrics say interrupted, INCOMPLETE, and where each stage stood ($cut)"
    resumed=$($PY "$TMP/prom.py" "$TMP/cut.prom" 2>&1)
    [ "$(echo "$resumed" | cut -d' ' -f3-8)" = "$(echo "$long" | cut -d' ' -f3-8)" ]
    ok $? "the resumed run's metrics give the uninterrupted run's verdict and counts per stage ($(echo "$resumed" | cut -d' ' -f3-8))"
    q=$($PY "$TMP/prom.py" "$TMP/q.prom" 2>&1)
    set -- $q
    [ "$4" = rack:default=FAIL ] && [ "$5" = node:1.0/1.0/done ] && [ "$7" = cluster:0.0/0.0/skipped ] &&
        grep -q "^fabcert_host_quarantined{run=\"[^\"]*\",rack=\"default\",host=\"$(hostname)\"} 1$" "$TMP/q.prom"
    ok $? "a failed check, a quarantined host and a skipped stage show in the metrics ($(echo "$q" | cut -d' ' -f3-8))"
fi
done_testing
