#!/bin/bash
# scale.t - the reports of a large run, from a synthetic one (bench/scale_gen:
# real records of the golden fixtures rewritten for NODES hosts, with two
# slow NICs, a slow path and a soak link failure planted) using the sampled
# pairs plan (its profile's pairs stage says mode: sampled, partners: 6;
# lib/stage/fc_pairs_schedule.h): the racks that FAIL are exactly the planted
# ones and the others PASS, the report holding the pair records to the
# sampled plan it derives again (768 of the 32,640 pairs), and saying
# so; above 64 hosts the pairs are drawn rack by rack on the
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
    grep -q '^verdict: FAIL (16 racks: 11 pass, 5 fail, 0 incomplete)' "$TMP/s256.out" &&
    grep -q '^pairs: sampled: 6 partners per node, 768 of 32640 pairs measured (not the full matrix' "$TMP/s256.out"
ok $? "256 nodes in 16 racks, sampled pairs (6 partners): exactly the planted racks FAIL ($fail; planted $planted), the others PASS, held to the sampled plan's 768 of 32,640 pairs"
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
    grep -q 'pairs: bandwidth per direction' "$TMP/s64/report/rack-r001.html" &&
    grep -q '<title>n[0-9]* - n[0-9]*: not measured</title>' "$TMP/s64/report/rack-r001.html" &&
    grep -q 'sampled: 6 partners per node, [0-9]* of 2016 pairs measured (grey cells: not measured)' "$TMP/s64/report/rack-r001.html"
ok $? "64 hosts: the pairs are drawn node by node on each rack's page, as before; the pairs the sampled plan did not meet grey and titled 'not measured', the page saying it was sampled"
done_testing
