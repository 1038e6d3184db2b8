#!/bin/bash
# report.t - `fabcert report`, `keygen` and `verify`:
#   - golden outputs: fixed results.jsonl files (a clean virtual-cluster
#     run, one with a slow link, and a soak with a link flap on one node;
#     tests/golden/report/) produce exactly
#     the expected certificates, JUnit and summary, and a second report of
#     the same directory gives the same bytes;
#   - the JUnit file is well-formed XML with the expected counts (xmllint);
#   - signing and tampering: an untouched certificate verifies; a flipped
#     byte, a changed figure, a swapped verdict, a signature by another key
#     and a damaged signature each fail with their own message;
#   - a partial output directory (results cut off mid-stage) gives
#     INCOMPLETE for the racks it touches, never PASS;
#   - the pairs heat map draws the pairs stage's `pair` records only (the
#     stage table's view), not one another stage wrote;
#   - a pair's PASS whose exchanges show wrong bits, or whose sizes carry
#     no count of wrong elements, is a FAIL;
#   - the record-type table (reports/fc_record.c) has a row for every
#     record type the stages and the runner write, and a record of a type
#     it does not name is context, never evidence.
. tests/e2e/tap.sh
FC=$BUILD/fabcert
G=tests/golden/report
plan 30

for fx in clean slow-link soak-flap; do
    mkdir -p "$TMP/$fx"
    cp "$G/$fx/results.jsonl" "$G/$fx/profile.yaml" "$G/$fx/hosts" "$G/$fx/racks" "$TMP/$fx/"
    $FC report "$TMP/$fx" > "$TMP/$fx.out" 2>&1
    echo $? > "$TMP/$fx.rc"
    same=0
    for f in certificates/rack1.json certificates/rack2.json junit.xml summary.txt; do
        cmp -s "$G/$fx/expected/$f" "$TMP/$fx/$f" || { same=1; diag "$fx: $f differs"; diff "$G/$fx/expected/$f" "$TMP/$fx/$f" | head -5 | sed 's/^/# /'; }
    done
    ok $same "$fx: certificates, JUnit and summary match the golden files"
    cp -r "$TMP/$fx" "$TMP/$fx-again"
    $FC report "$TMP/$fx-again" > /dev/null 2>&1
    same=0
    for f in certificates/rack1.json certificates/rack2.json junit.xml summary.txt report/index.html report/rack-rack1.html; do
        cmp -s "$TMP/$fx/$f" "$TMP/$fx-again/$f" || same=1
    done
    ok $same "$fx: reporting the same directory twice gives the same bytes"
done
ok $(cat "$TMP/clean.rc") "report exits 0 when every rack passes"
ok $(( $(cat "$TMP/slow-link.rc") != 1 )) "report exits 1 when a rack fails"
n=$(jsonl "$TMP/soak-flap/certificates/rack1.json" 'my ($s) = grep { $_->{stage} eq "soak" } @{$r[0]{certificate}{stages}}; scalar grep { $_->{counter_deltas}{eth0}{carrier_changes} == 2 && $_->{verdict} eq "FAIL" } @{$s->{figures}}')
ok $(( n != 1 )) "the soak certificate holds the counter deltas beside the verdict"

# JUnit
xmllint --noout "$TMP/slow-link/junit.xml"
ok $? "junit.xml is well-formed XML"
counts=$(xmllint --xpath 'concat(count(//testsuite), " ", //testsuite[@name="rack1"]/@failures, " ", //testsuite[@name="rack2"]/@failures, " ", count(//testsuite[@name="rack1"]/testcase), " ", //testsuite[@name="rack1"]/@tests)' "$TMP/slow-link/junit.xml")
set -- $counts
[ "$1" = 2 ] && [ "$2" = 4 ] && [ "$3" = 0 ] && [ "$4" = "$5" ]
ok $? "one testsuite per rack; rack1 has the 4 failed checks, rack2 none; tests= matches the testcases ($counts)"
xmllint --xpath 'string(//testcase[failure][1]/failure/@message)' "$TMP/slow-link/junit.xml" | grep -q 'below the median of all pairs'
ok $? "a failure carries its message"

# signing and tampering
$FC keygen "$TMP/site" > "$TMP/keygen.out"
ok $? "keygen makes a key pair"
[ "$(stat -c %a "$TMP/site.key")" = 600 ]
ok $? "the secret key is readable by its owner only ($(stat -c %a "$TMP/site.key"))"
$FC keygen "$TMP/site" > /dev/null 2>&1
ok $(( $? != 2 )) "keygen refuses to overwrite a key"
$FC report "$TMP/slow-link" --sign-key "$TMP/site.key" > /dev/null 2>&1
C=$TMP/slow-link/certificates/rack1.json
$FC verify "$C" --pubkey "$TMP/site.pub" > "$TMP/v.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q 'digest OK' "$TMP/v.out" && grep -q 'signature OK' "$TMP/v.out"
ok $? "an untouched certificate verifies: digest and signature ($rc)"

tamper() {  # tamper NAME PERL-SUBSTITUTION EXPECTED-MESSAGE
    mkdir -p "$TMP/t"; cp "$C" "$TMP/t/rack1.json"; cp "$C.sig" "$TMP/t/rack1.json.sig"
    perl -pi -e "$2" "$TMP/t/rack1.json"
    cmp -s "$C" "$TMP/t/rack1.json" && { ok 1 "$1: the tampering changed nothing"; return; }
    $FC verify "$TMP/t/rack1.json" --pubkey "$TMP/site.pub" > "$TMP/t.out" 2>&1
    local rc=$?
    [ $rc -eq 1 ] && grep -q "$3" "$TMP/t.out"
    ok $? "$1: verify fails ($rc) with '$3'"
}
tamper "one byte flipped" 's/"host":"fcv01"/"host":"fcv0l"/' "digest mismatch"
tamper "a figure changed" 's/"bw_gbps":0\.00206903/"bw_gbps":0.00706903/' "digest mismatch"
tamper "a verdict swapped" 's/"verdict":"FAIL"}$/"verdict":"PASS"}/; s/,"verdict":"FAIL"},"digest"/,"verdict":"PASS"},"digest"/' "digest mismatch"
tamper "white space added" 's/^\{"certificate":/{ "certificate":/' "not in canonical form"
tamper "cut short" 's/.{40}$//' "not valid JSON"
$FC keygen "$TMP/other" > /dev/null
$FC verify "$C" --pubkey "$TMP/other.pub" > "$TMP/o.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'signature does not match' "$TMP/o.out"
ok $? "another site's key does not verify the signature ($rc)"

# a partial directory: the clean run cut off in the middle of the rack stage
mkdir -p "$TMP/partial"; cp "$G/clean/profile.yaml" "$G/clean/hosts" "$G/clean/racks" "$TMP/partial/"
n=$(grep -n '"type":"point"' "$G/clean/results.jsonl" | awk -F: -v s="$(grep -n '"type":"stage_start"' "$G/clean/results.jsonl" | sed -n 3p | cut -d: -f1)" '$1 > s { print $1; exit }')
head -n "$n" "$G/clean/results.jsonl" > "$TMP/partial/results.jsonl"
sed -n "$((n + 1))p" "$G/clean/results.jsonl" | head -c 100 >> "$TMP/partial/results.jsonl"
$FC report "$TMP/partial" > "$TMP/partial.out" 2>&1
rc=$?
ok $(( rc != 1 )) "a partial directory: report exits 1 ($rc)"
grep -q '^rack rack1: INCOMPLETE' "$TMP/partial.out" && grep -q '^rack rack2: INCOMPLETE' "$TMP/partial.out" &&
    ! grep -q ': PASS' "$TMP/partial.out"
ok $? "every rack the cut-off stage touched is INCOMPLETE, none PASS"
grep -q 'INCOMPLETE rack rack1, rack stage: required stage rack did not finish' "$TMP/partial.out" &&
    grep -q 'INCOMPLETE rack rack1, cluster stage: required stage cluster did not run' "$TMP/partial.out" &&
    grep -q '1 record(s) in results.jsonl were cut off' "$TMP/partial.out"
ok $? "the summary says which stages did not finish or run, and that a record was cut off"

# the record-type table: every type a writer in lib/, suites/ or runners/
# names has its row, or the reports would take it for an unknown type
writer_types() {    # each type name the writers give a record, once
    perl -ne 'while (/(?:fc_stage_record|fc_run_record|fc_diag_finding)\(\s*&?\w+,\s*"(\w+)"|"type",\s*"(\w+)"/g) { print(($1 // $2), "\n") }' \
        $(find lib suites runners -name "*.c") | sort -u
}
types=$(writer_types | wc -l)
missing=$(writer_types | while read -r t; do
    grep -qE "(\.name = |FC_RECORD_CONTEXT\(FC_RECORD_[A-Z_]+, )\"$t\"" reports/fc_record.c || echo "$t"; done)
[ -z "$missing" ] && [ "$types" -ge 20 ]
ok $? "every record type the stages and the runner write has a row in the record-type table ($types found${missing:+; missing: $missing})"
# a type the table does not name (a later fabcert's record) is no evidence:
# the clean run with one after its end certifies exactly as without it
mkdir -p "$TMP/unknown"; cp "$G/clean/profile.yaml" "$G/clean/hosts" "$G/clean/racks" "$TMP/unknown/"
run_id=$(jsonl "$G/clean/results.jsonl" '$r[0]{run_id}')
{ cat "$G/clean/results.jsonl"
  echo "{\"type\":\"frobnicate\",\"run_id\":\"$run_id\",\"stage\":\"cluster\",\"rack\":\"rack1\",\"host\":\"fcv01\"}"
} > "$TMP/unknown/results.jsonl"
$FC report "$TMP/unknown" > /dev/null 2>&1
rc=$?
same=0
for f in certificates/rack1.json certificates/rack2.json junit.xml summary.txt; do
    cmp -s "$G/clean/expected/$f" "$TMP/unknown/$f" || same=1
done
[ $rc -eq 0 ] && [ $same -eq 0 ]
ok $? "a record of a type the table does not name is not judged: the same certificates, JUnit and summary (rc $rc)"

# the heat map is the view of the stages whose view is the pair matrix
# (lib/base/fc_stages.c): a `pair` record another stage wrote (here inside the
# cluster stage, its figure 777.5 GB/s) is not drawn over the pairs
# stage's fcv01 - fcv02 cell
mkdir -p "$TMP/heatmap"; cp "$G/slow-link/profile.yaml" "$TMP/heatmap/"
end=$(grep -n '"type":"stage_end"' "$G/slow-link/results.jsonl" | grep '"stage":"cluster"' | cut -d: -f1)
{ head -n $((end - 1)) "$G/slow-link/results.jsonl"
  grep -m1 '"type":"pair"' "$G/slow-link/results.jsonl" |
      sed 's/"stage":"pairs"/"stage":"cluster"/; s/"bw_gbps":0\.0024355398014172464/"bw_gbps":777.5/'
  tail -n +"$end" "$G/slow-link/results.jsonl"
} > "$TMP/heatmap/results.jsonl"
$FC report "$TMP/heatmap" > /dev/null 2>&1
cell=$(grep -o '<title>fcv01 - fcv02: [^<]*' "$TMP/heatmap/report/rack-rack1.html")
is "$cell" "<title>fcv01 - fcv02: 0.002436 GB/s (FAIL)" "the pairs heat map draws the pairs stage's records only, not a pair record of the cluster stage"

# a pair's PASS that its own figures do not back: a direction that says it
# received wrong bits, or a size without its count of wrong elements
pairforge() {   # pairforge NAME PERL-SUBSTITUTION (on the clean run's pair records)
    mkdir -p "$TMP/$1"
    cp "$G/clean/profile.yaml" "$G/clean/hosts" "$G/clean/racks" "$TMP/$1/"
    perl -pe "$2 if /\"type\":\"pair\"/" "$G/clean/results.jsonl" > "$TMP/$1/results.jsonl"
    $FC report "$TMP/$1" > "$TMP/$1.out" 2>&1
}
pairforge pair-exch 's/"sizes":/"exchanges":[{"sender_host":"fcv01","receiver_host":"fcv02","wrong":2,"verdict":"wrong"}],"sizes":/'
rc=$?
[ $rc -eq 1 ] && grep -q "own figures show wrong bits (wrong from fcv01 to fcv02 2)" "$TMP/pair-exch.out"
ok $? "a pair PASS whose exchanges say fcv02 received wrong bits is a FAIL ($rc)"
pairforge pair-nowrong 's/,"wrong":0\}/}/g'
rc=$?
[ $rc -eq 1 ] && grep -q "own figures show wrong bits (wrong at 4096 bytes missing" "$TMP/pair-nowrong.out"
ok $? "a pair PASS whose sizes carry no count of wrong elements is a FAIL ($rc)"
done_testing
