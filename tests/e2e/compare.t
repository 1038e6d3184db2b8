#!/bin/bash
# compare.t - `fabcert compare BEFORE AFTER` on fixtures (no root, no
# cluster): the golden clean run (tests/golden/report/clean) given
# per-iteration samples by a fixed-seed generator (3% log-normal noise
# around each record's own median), then:
#   - two clean draws: no regression, exit 0, each rack's statement says
#     the slowdown it could have detected;
#   - AFTER with fcv02's pairs 30% slower and rack2's rack-stage points
#     40% slower: exit 1; node fcv02 named (every one of its pairs), the
#     pair's slowdown with an interval that holds 30%; rack1 FAILs for
#     fcv02, rack2 for its own points, not for the pairs across the spine
#     that fcv02 explains;
#   - fcv02's pairs 30 times slower and fcv03's others 1.3 times: only
#     fcv02 is named (fcv03's one pair beyond the floor is fcv02's);
#   - the same inputs give the same bytes (certificates, JUnit, summary,
#     HTML); verify accepts a delta certificate, signed too, and catches a
#     changed byte; JUnit is well-formed;
#   - records without samples (the golden file as it is), and a
#     measurement AFTER lacks: INCOMPLETE with the reason, exit 1 (so is
#     a rack whose own verdict in either run is not PASS);
#   - bad input: exit 2, nothing written.
. tests/e2e/tap.sh
FC=$BUILD/fabcert
G=tests/golden/report/clean
plan 19

# fixture DIR SEED PERL-FACTOR: the golden clean run with samples drawn
# around each record's median; FACTOR($r, $host_a, $host_b) scales them;
# each fixture a run of its own (its run id from SEED: compare refuses a
# run compared with itself)
mk() {
    mkdir -p "$1"; cp "$G/profile.yaml" "$G/hosts" "$G/racks" "$1/"
    perl -MJSON::PP -e '
        my ($seed, $factor) = @ARGV[0, 1]; srand($seed);
        my $f = eval "sub { my (\$r, \$a, \$b) = \@_; $factor }" or die $@;
        my $js = JSON::PP->new->canonical;
        sub draw { my ($med, $k) = @_; my @v;
            for (1 .. 12) { my $z = sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand());
                push @v, int($med * $k * exp(0.03 * $z) * 100 + 0.5) || 1 }
            return { unit_ns => 10, values => \@v, of => 12 } }
        while (<STDIN>) { my $r = decode_json($_);
            $r->{run_id} = "1796211956-" . (20000 + $seed) if exists $r->{run_id};
            if ($r->{type} eq "point") {
                $r->{samples} = draw($r->{time_us}{median}, $f->($r, $r->{host}, ""))
            } elsif ($r->{type} eq "pair") {
                for my $z (@{$r->{sizes}}) {
                    $z->{samples} = draw($z->{bytes} / $z->{bw_gbps} / 1000,
                                         $f->($r, $r->{host_a}, $r->{host_b})) } }
            print $js->encode($r), "\n" }' "$2" "$3" < "$G/results.jsonl" > "$1/results.jsonl"
}
mk "$TMP/before" 1 '1'
mk "$TMP/clean" 2 '1'
mk "$TMP/slow" 3 '($r->{type} eq "pair" && ($a eq "fcv02" || $b eq "fcv02")) ? 1.3 :
                  ($r->{stage} eq "rack" && $r->{rack} eq "rack2") ? 1.4 : 1'

$FC compare "$TMP/before" "$TMP/clean" --out "$TMP/c1" > "$TMP/c1.out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q '^rack rack1: PASS: no regression above [0-9.]*% at 95% confidence' "$TMP/c1.out" &&
    grep -q '^rack rack2: PASS: no regression above' "$TMP/c1.out"
ok $? "two clean runs: no regression, exit $rc; $(grep '^rack rack1' "$TMP/c1.out")"
n=$(jsonl "$TMP/c1/certificates/rack1.json" 'my $c = $r[0]{certificate}; scalar grep { $_->{verdict} eq "not slower" && $_->{detectable_slowdown_pct} > 0 } @{$c->{comparisons}}')
is "$n" 26 "rack1's certificate: 26 comparisons (its 2 nodes' 8 points, its rack's 4, the cluster's 4, 5 pairs at 2 sizes), each with its detectable slowdown"

$FC compare "$TMP/before" "$TMP/slow" --out "$TMP/s1" > "$TMP/s1.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q '^rack rack1: FAIL' "$TMP/s1.out" &&
    grep -q '^  node fcv02: every one of its 6 pairs (all sizes) is slower' "$TMP/s1.out"
ok $? "fcv02's pairs 30% slower: exit $rc, node fcv02 named: $(grep 'node fcv02' "$TMP/s1.out" | head -1)"
fig=$(jsonl "$TMP/s1/certificates/rack1.json" 'my ($p) = grep { $_->{check} eq "pairs: pair fcv01 <-> fcv02 64 KiB" } @{$r[0]{certificate}{comparisons}};
    sprintf "%s %.3f %.3f %.3f %s", $p->{verdict}, $p->{ratio}, @{$p->{interval}}, $p->{placed_on}{host}')
set -- $fig
[ "$1" = slower ] && perl -e 'exit !($ARGV[0] > 1.2 && $ARGV[0] < 1.4 && $ARGV[1] < 1.3 && $ARGV[2] > 1.3)' "$2" "$3" "$4" && [ "$5" = fcv02 ]
ok $? "pair fcv01 <-> fcv02 64 KiB: slower, ratio $2, interval $3-$4 holds 1.30, placed on $5"
grep -q '^rack rack2: FAIL: 4 of ' "$TMP/s1.out" &&
    grep -q '^  rack: all_reduce float32 sum .* on rack2 is 4[0-9.]*% slower (CI' "$TMP/s1.out"
ok $? "rack2 FAILs for its own rack-stage points (40% slower), not for the pairs fcv02 explains: $(grep '^rack rack2' "$TMP/s1.out")"
n=$(jsonl "$TMP/s1/certificates/rack2.json" 'scalar grep { $_->{part} eq "node" } @{$r[0]{certificate}{findings}}')
is "$n" 0 "rack2's certificate holds no finding about fcv02"

# the slow link's partner: fcv02's pairs 30 times slower, fcv03's other
# pairs 1.3 times (ranks waiting on the link slow the cores they share):
# every pair of fcv03 is slower beyond the noise, but its only one beyond
# the 200% floor is fcv02's, which has more: fcv03 is not named for it
mk "$TMP/link" 4 '$r->{type} ne "pair" ? 1 : ($a eq "fcv02" || $b eq "fcv02") ? 30 :
                  ($a eq "fcv03" || $b eq "fcv03") ? 1.3 : 1'
$FC compare "$TMP/before" "$TMP/link" --out "$TMP/k1" --min-slowdown 200 > "$TMP/k1.out" 2>&1
rc=$?
p=$(jsonl "$TMP/k1/certificates/rack2.json" 'my ($p) = grep { $_->{check} eq "pairs: pair fcv02 <-> fcv03 64 KiB" } @{$r[0]{certificate}{comparisons}};
    sprintf "%s %s", $p->{verdict}, $p->{placed_on}{host} // "-"')
[ $rc = 1 ] && grep -q '^  node fcv02: every one of its 6 pairs' "$TMP/k1.out" &&
    ! grep -q '^  node fcv03' "$TMP/k1.out" && [ "$p" = "slower fcv02" ] &&
    grep -q '^rack rack2: PASS' "$TMP/k1.out"
st=$?
ok $st "a slow link's partner, its other pairs 30% slower: only fcv02 named, pair fcv02 <-> fcv03 placed on fcv02 ($p), rack2 PASSes (exit $rc)"
[ $st -eq 0 ] || why "$(grep -E '^rack|^  ' "$TMP/k1.out" | head -10 | cut -c1-200)"

cp -r "$TMP/s1" "$TMP/s1-first"
$FC compare "$TMP/before" "$TMP/slow" --out "$TMP/s1" > /dev/null 2>&1
same=0
for f in certificates/rack1.json certificates/rack2.json junit.xml summary.txt index.html; do
    cmp -s "$TMP/s1-first/$f" "$TMP/s1/$f" || { same=1; diag "$f differs"; }
done
ok $same "the same inputs give the same bytes (certificates, JUnit, summary, HTML)"

$FC verify "$TMP/s1/certificates/rack1.json" > "$TMP/v.out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q 'digest OK .*rack rack1, verdict FAIL' "$TMP/v.out" &&
    grep -q "before: run .*results.jsonl sha256 $(sha256sum < "$TMP/before/results.jsonl" | cut -c1-64)" "$TMP/v.out"
ok $? "verify accepts the delta certificate and names BEFORE by its results' SHA-256 ($rc)"
mkdir -p "$TMP/t"
sed 's/"ratio":1\.\([0-9]\)/"ratio":1.9/' "$TMP/s1/certificates/rack1.json" > "$TMP/t/rack1.json"
cmp -s "$TMP/t/rack1.json" "$TMP/s1/certificates/rack1.json"
ok $(( $? == 0 )) "the tampering changed a byte"
$FC verify "$TMP/t/rack1.json" > "$TMP/t.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'digest mismatch' "$TMP/t.out"
ok $? "a changed ratio fails verify ($rc): $(grep -o 'digest mismatch' "$TMP/t.out" | head -1)"
$FC keygen "$TMP/site" > /dev/null
$FC compare "$TMP/before" "$TMP/clean" --out "$TMP/c2" --sign-key "$TMP/site.key" > /dev/null 2>&1
$FC verify "$TMP/c2/certificates/rack2.json" --pubkey "$TMP/site.pub" --require-signature > "$TMP/v2.out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q 'signature OK' "$TMP/v2.out"
ok $? "a signed delta certificate verifies with the public key ($rc)"

xmllint --noout "$TMP/s1/junit.xml" &&
    [ "$(xmllint --xpath 'string(//testsuite[@name="rack1"]/@failures)' "$TMP/s1/junit.xml")" = 6 ] &&
    [ "$(xmllint --xpath 'string(//testsuite[@name="rack2"]/@failures)' "$TMP/s1/junit.xml")" = 4 ]
ok $? "junit.xml is well-formed; failures: rack1 6 (fcv02's 3 pairs at 2 sizes), rack2 4 (its rack-stage points)"

# records without samples, and a measurement AFTER lacks
mkdir -p "$TMP/old"; cp "$G/results.jsonl" "$G/profile.yaml" "$G/hosts" "$G/racks" "$TMP/old/"
$FC compare "$TMP/old" "$TMP/clean" --out "$TMP/o1" > "$TMP/o1.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q '^rack rack1: INCOMPLETE' "$TMP/o1.out" &&
    grep -q 'not compared: .*the test could not run for lack of samples (BEFORE has 0' "$TMP/o1.out"
ok $? "records of an older fabcert (no samples): INCOMPLETE, exit $rc, 'lack of samples'"
mkdir -p "$TMP/less"; cp "$G/profile.yaml" "$G/hosts" "$G/racks" "$TMP/less/"
grep -v '"host_a":"fcv03","host_b":"fcv04"' "$TMP/clean/results.jsonl" > "$TMP/less/results.jsonl"
$FC compare "$TMP/before" "$TMP/less" --out "$TMP/l1" > "$TMP/l1.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q '^rack rack2: INCOMPLETE' "$TMP/l1.out" &&
    grep -q 'pair fcv03 <-> fcv04 4 KiB: AFTER did not measure it' "$TMP/l1.out" &&
    grep -q "^  incomplete: AFTER's own verdict on the rack is INCOMPLETE" "$TMP/l1.out"
ok $? "a pair record cut from AFTER: rack2 INCOMPLETE, 'AFTER did not measure it' (exit $rc), and AFTER's own verdict (its stage_end counts a record it lacks) is said"

$FC compare "$TMP/before" "$TMP/nothing" --out "$TMP/b1" > "$TMP/b1.out" 2>&1
rc=$?
[ $rc = 2 ] && [ ! -e "$TMP/b1" ]
ok $? "a directory without results.jsonl: exit $rc, nothing written ($(head -1 "$TMP/b1.out"))"
# a run compared with itself: the same directory, a copy of it, or a
# copy whose bytes differ but whose run id is the same
cp -r "$TMP/before" "$TMP/copy"
mkdir -p "$TMP/resaved"; cp "$G/profile.yaml" "$G/hosts" "$G/racks" "$TMP/resaved/"
perl -pe 's/"type":"plan"/"type": "plan"/' "$TMP/before/results.jsonl" > "$TMP/resaved/results.jsonl"
for d in before copy resaved; do
    $FC compare "$TMP/before" "$TMP/$d" --out "$TMP/self-$d" > "$TMP/self-$d.out" 2>&1
    echo $? > "$TMP/self-$d.rc"
done
[ "$(cat "$TMP/self-before.rc" "$TMP/self-copy.rc" "$TMP/self-resaved.rc" | tr '\n' ' ')" = "2 2 2 " ] &&
    grep -q "BEFORE and AFTER are the same run (results.jsonl sha256 [0-9a-f]\{64\})" "$TMP/self-before.out" "$TMP/self-copy.out" &&
    grep -q "BEFORE and AFTER are the same run (run id 1796211956-20001)" "$TMP/self-resaved.out" &&
    [ ! -e "$TMP/self-before" ] && [ ! -e "$TMP/self-copy" ] && [ ! -e "$TMP/self-resaved" ]
ok $? "compare R R, R and a copy, R and a resaved copy: refused, exit 2, nothing written: the same run"
$FC compare "$TMP/before" > /dev/null 2>&1
is $? 2 "one run only: usage, exit 2"
$FC compare "$TMP/before" "$TMP/clean" --confidence 120 > /dev/null 2>&1
is $? 2 "--confidence 120: exit 2"
done_testing
