#!/bin/bash
# baseline.t - `fabcert baseline` on fixtures (no root, no cluster): two
# draws of the golden clean run with per-iteration samples (the fixture
# generator of compare.t, fixed seeds):
#   - the derived profile loads (check-profile) and derives the four
#     stages the runs ran, sweeping what they measured;
#   - every limit is at least the margin away from every figure of every
#     run (the cluster all_reduce 4 KiB rule against both runs' medians
#     and busbw), and each rule has its comment with the figures;
#   - a larger --margin gives looser limits; the relative rule is at
#     least the margin;
#   - the same runs give the same bytes;
#   - a run that does not PASS (the golden slow-link run) is refused,
#     exit 2, nothing written; usage errors exit 2.
. tests/e2e/tap.sh
FC=$BUILD/fabcert
G=tests/golden/report/clean
plan 11
eval "$(sed -n '/^mk() {/,/^}/p' tests/e2e/compare.t)"
mk "$TMP/r1" 1 '1'
mk "$TMP/r2" 2 '1'

$FC baseline "$TMP/r1" "$TMP/r2" --out "$TMP/b.yaml" > "$TMP/b.out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "derived from 2 run(s), 4 stage(s); valid" "$TMP/b.out"
ok $? "two runs: a profile of 4 stages, valid ($rc): $(cat "$TMP/b.out" | cut -c1-120)"
$FC check-profile "$TMP/b.yaml" > /dev/null 2>&1
ok $? "check-profile accepts it"
grep -q '^    sizes: \[4KiB, 64KiB\]$' "$TMP/b.yaml" && grep -q '^    collectives: \[all_reduce, all_gather\]$' "$TMP/b.yaml"
ok $? "it sweeps what the runs measured (sizes 4KiB, 64KiB; all_reduce, all_gather)"

# the cluster stage's all_reduce float32 sum 4 KiB rule against the figures
lim=$(perl -e 'local $/; $_ = <STDIN>; /\n  cluster:.*?- collective: all_reduce\n.*?min_bytes: 4KiB\n.*?min_busbw_gbps: (\S+)\n\s+max_latency_us: (\S+)/s; print "$1 $2"' < "$TMP/b.yaml")
fig=$(for r in r1 r2; do jsonl "$TMP/$r/results.jsonl" 'join " ", map { "$_->{busbw_gbps} $_->{time_us}{median}" } grep { $_->{type} eq "point" && $_->{stage} eq "cluster" && $_->{collective} eq "all_reduce" && $_->{requested_bytes} == 4096 } @r'; done)
perl -e 'my ($bw, $lat, @f) = @ARGV; my $ok = 1; while (@f) { my ($b, $t) = splice @f, 0, 2;
    $ok &&= $bw * 1.1 <= $b * 1.0001 && $lat >= 1.1 * $t * 0.9999 } exit !$ok' $lim $fig
ok $? "cluster all_reduce 4 KiB: min_busbw and max_latency ($lim) at least 10% beyond both runs' figures ($fig)"
n=$(grep -c '^      - collective:' "$TMP/b.yaml"); c=$(grep -c '^      # .*figure(s) from 2 run(s)' "$TMP/b.yaml")
[ "$n" -gt 0 ] && [ "$n" = "$c" ]
ok $? "each of the $n rules has its comment with the figures it came from ($c)"

cp "$TMP/b.yaml" "$TMP/b-first.yaml"
$FC baseline "$TMP/r1" "$TMP/r2" --out "$TMP/b.yaml" > /dev/null 2>&1
cmp -s "$TMP/b.yaml" "$TMP/b-first.yaml"
ok $? "the same runs (and --out) give the same bytes"
$FC baseline "$TMP/r1" "$TMP/r2" --out "$TMP/b50.yaml" --margin 50 > /dev/null 2>&1
l10=$(awk '/max_latency_us/ { s += $2 } END { print s }' "$TMP/b.yaml")
l50=$(awk '/max_latency_us/ { s += $2 } END { print s }' "$TMP/b50.yaml")
lo=$(paste <(grep max_latency_us "$TMP/b.yaml") <(grep max_latency_us "$TMP/b50.yaml") | awk '$4 < $2' | wc -l)
p50=$(grep -m1 'max_below_median_pct' "$TMP/b50.yaml" | awk '{print $2}')
perl -e 'exit !($ARGV[1] > $ARGV[0] && $ARGV[2] >= 50 && $ARGV[3] == 0)' "$l10" "$l50" "$p50" "$lo"
ok $? "--margin 50: no limit tighter, their sum looser ($l10 -> $l50 us), a relative rule of at least 50% ($p50)"

mkdir -p "$TMP/bad"; cp tests/golden/report/slow-link/{results.jsonl,profile.yaml,hosts,racks} "$TMP/bad/"
$FC baseline "$TMP/r1" "$TMP/bad" --out "$TMP/b3.yaml" > "$TMP/b3.out" 2>&1
rc=$?
[ $rc = 2 ] && [ ! -e "$TMP/b3.yaml" ] && grep -q 'is not healthy: rack rack1 is FAIL' "$TMP/b3.out"
ok $? "a run that does not PASS is refused, exit $rc, nothing written: $(head -1 "$TMP/b3.out" | cut -c1-100)"
# a run made to read PASS: a cluster point's median past its max_latency_us
# under its PASS; the report's verdict, judged again from the figures, is
# FAIL, and the baseline takes it (fc_verdict_of_dir), not the record's
cp -r "$TMP/r1" "$TMP/slowpass"
perl -i -pe 's/"median":[0-9.]+/"median":2500000.0/ if /"type":"point"/ && /"stage":"cluster"/ && !$d++' "$TMP/slowpass/results.jsonl"
$FC baseline "$TMP/r2" "$TMP/slowpass" --out "$TMP/b5.yaml" > "$TMP/b5.out" 2>&1
rc=$?
[ $rc = 2 ] && [ ! -e "$TMP/b5.yaml" ] && grep -q 'is not healthy: rack rack1 is FAIL' "$TMP/b5.out"
ok $? "a run whose PASS its own figures contradict is refused, exit $rc: $(head -1 "$TMP/b5.out" | cut -c1-100)"
$FC baseline "$TMP/r1" > /dev/null 2>&1
is $? 2 "no --out: usage, exit 2"
$FC baseline "$TMP/r1" --out "$TMP/b4.yaml" --margin -5 > /dev/null 2>&1
is $? 2 "--margin -5: exit 2"
done_testing
