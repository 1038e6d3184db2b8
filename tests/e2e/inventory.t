#!/bin/bash
# inventory.t - bad inventories end a run before anything is launched: each
# case gives its own message naming the file and line, and exit status 2,
# with no verdict printed. A stage program launched on a host that the
# inventory lacks refuses to run (exit 2), naming the host and the rank.
# `fabcert check-inventory` prints the host -> rack mapping of a good one.
. tests/e2e/tap.sh
FC=$BUILD/fabcert
plan 10

inv() { printf "$2" > "$TMP/$1"; }
inv hosts 'gpu[001-004]\n'
inv two-racks 'gpu[001-002] r1\ngpu[002-004] r2\n'
inv empty-rack 'r1: gpu[001-004]\nr2:\n'
inv malformed 'gpu[001-004 r1\n'
inv backwards 'gpu[004-001] r1\n'
inv no-rack 'gpu[001-003] r1\n'

bad() {     # bad NAME RACKS-FILE EXPECTED-MESSAGE
    $FC run --out "$TMP/out-$1" --hosts "$TMP/hosts" --racks "$TMP/$2" > "$TMP/$1.out" 2> "$TMP/$1.err"
    local rc=$?
    [ $rc -eq 2 ] && grep -qF -- "$3" "$TMP/$1.err" && ! grep -q verdict "$TMP/$1.out"
    ok $? "$1: exit 2 ($rc) with '$3'"
}
bad "a host in two racks" two-racks "$TMP/two-racks:2: host 'gpu002' is in two racks: 'r2' here and 'r1' on line 1"
bad "an empty rack" empty-rack "$TMP/empty-rack:2: rack 'r2' has no host"
bad "a malformed range" malformed "$TMP/malformed:1: bad host list 'gpu[001-004': unbalanced"
bad "a range that runs backwards" backwards "$TMP/backwards:1: bad host list 'gpu[004-001]': range '004-001' runs backwards"
bad "a host in no rack" no-rack "$TMP/hosts:1: host 'gpu004' is in no rack"
$FC run --out "$TMP/out-missing" --hosts "$TMP/no-such-file" > /dev/null 2> "$TMP/missing.err"
rc=$?
[ $rc -eq 2 ] && grep -qF "$TMP/no-such-file: cannot open host list: No such file or directory" "$TMP/missing.err"
ok $? "a missing host list: exit 2 ($rc), named with the system's reason"

# the launcher puts ranks on a host the inventory lacks
inv others 'somewhere-else[1-2]\n'
mpirun -np 2 $BUILD/suites/node --hosts "$TMP/others" --out "$TMP/out-lacks" > "$TMP/lacks.out" 2> "$TMP/lacks.err"
rc=$?
[ $rc -eq 2 ] && grep -qF "host '$(hostname)' (rank 0) was given by the launcher but is not in the inventory" "$TMP/lacks.err"
ok $? "a rank on a host the inventory lacks: the stage exits 2 ($rc) naming host and rank"
[ ! -s "$TMP/out-lacks/results.jsonl" ] || ! grep -q '"type":"point"' "$TMP/out-lacks/results.jsonl"
ok $? "and measures nothing"

inv good-racks 'gpu[001-002] r1\nr2: gpu[003-004]\n'
$FC check-inventory --hosts "$TMP/hosts" --racks "$TMP/good-racks" > "$TMP/good.out"
ok $? "check-inventory accepts a good inventory"
grep -q '^gpu003 r2$' "$TMP/good.out" && grep -q '^# 4 hosts in 2 racks$' "$TMP/good.out"
ok $? "and prints each host's rack"
done_testing
