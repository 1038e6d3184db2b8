#!/bin/bash
# scale.t - the reports of a large run, from a synthetic one (bench/scale_gen:
# real records of the golden fixtures rewritten for NODES hosts, with two
# slow NICs, a slow path and a soak link failure planted) using the sampled
# pairs plan (lib/fc_pairs_sample.h): the racks that FAIL are exactly the
# planted ones, and the others are INCOMPLETE for one reason only: the
# pairs stage runs the full tournament, so a sampled one did not measure
# every pair its plan has (the report holds every stage to its plan's
# sweep); above 64 hosts the pairs are drawn rack by rack on the
# index (the failed pairs' cells marked) with a node x rack drill-down on
# each rack's page; at 64 hosts and fewer, node by node as before.
. tests/e2e/tap.sh
FC=$BUILD/fabcert
plan 5

"$BUILD/bench/scale_gen" 256 16 sampled 4 tests/golden/report "$TMP/s256" > "$TMP/planted" 2> "$TMP/gen.err"
$FC report "$TMP/s256" > "$TMP/s256.out" 2>&1
rc=$?
fail=$(sed -n 's/^rack \([^:]*\): FAIL.*/\1/p' "$TMP/s256.out" | sort | tr '\n' ' ')
planted=$(sort -u "$TMP/planted" | tr '\n' ' ')
[ $rc -eq 1 ] && [ -n "$planted" ] && [ "$fail" = "$planted" ] &&
    grep -q '^verdict: FAIL (16 racks: 0 pass, 5 fail, 11 incomplete)' "$TMP/s256.out" &&
    [ "$(grep -c '^  INCOMPLETE' "$TMP/s256.out")" -ge 11 ] &&
    ! grep '^  INCOMPLETE' "$TMP/s256.out" | grep -qv "^  INCOMPLETE rack r[0-9]*, pairs stage, sweep: stage pairs did not measure what the plan says (the frozen profile with the plan's overrides): planned 3960 pairs, [0-9]* judged (first missing: pair "
ok $? "256 nodes in 16 racks, sampled pairs: exactly the planted racks FAIL ($fail; planted $planted), the others INCOMPLETE only for the pairs the sampled plan left out"
nic=$(sed -n 's/.*pairs stage, link \(n[0-9]*\): host .* quarantined after the pairs stage.*/\1/p' "$TMP/s256.out" | head -1)
r=$(sed -n 1p "$TMP/planted")
grep -q '<h2>Pairs, rack by rack</h2>' "$TMP/s256/report/index.html" &&
    [ "$(grep -o 'stroke="#000" stroke-width="2"><title>[^<]*' "$TMP/s256/report/index.html" | grep -c "^.*$r - \|- $r:")" -ge 1 ]
ok $? "the index draws the pairs rack by rack, the planted NIC's rack ($r) with failed cells"
grep -q "Pairs of this rack's nodes, by the rack of the partner" "$TMP/s256/report/rack-$r.html" &&
    grep -q "<title>$nic - rack r[0-9]*: [0-9]* pair(s), [1-9][0-9]* failed; slowest [^<]*(FAIL)" "$TMP/s256/report/rack-$r.html" &&
    ! grep -q 'pairs: bandwidth per direction' "$TMP/s256/report/rack-$r.html"
ok $? "rack $r's page drills down, node by rack, the failed pairs of $nic named"
n=$(grep -c '<title>n[0-9]* - rack r[0-9]*:' "$TMP/s256/report/rack-r004.html")
[ "$n" -eq 80 ]
ok $? "a healthy rack's drill-down has a cell per node and rack met (16 nodes x its own and 4 other racks: $n)"
"$BUILD/bench/scale_gen" 64 16 sampled 4 tests/golden/report "$TMP/s64" > /dev/null 2>&1
$FC report "$TMP/s64" > /dev/null 2>&1
! grep -q 'Pairs, rack by rack' "$TMP/s64/report/index.html" &&
    grep -q 'pairs: bandwidth per direction' "$TMP/s64/report/rack-r001.html"
ok $? "64 hosts: the pairs are drawn node by node on each rack's page, as before"
done_testing
