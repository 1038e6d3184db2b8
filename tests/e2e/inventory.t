#!/bin/bash
# inventory.t - bad inventories end a run before anything is launched: each
# case gives its own message naming the file and line, and exit status 2,
# with no verdict printed. A stage program launched on a host that the
# inventory lacks refuses to run (exit 2), naming the host and the rank.
# `fabcert check-inventory` prints the host -> rack mapping of a good one.
# A NUL byte in a host list, a rack map or a topology (which would end the
# text there and drop the hosts after it) is refused, naming line and
# column; a leading UTF-8 byte order mark (an editor's) is dropped.
. tests/e2e/tap.sh
FC=$BUILD/fabcert
plan 15

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
# a NUL byte: refused, where the lines after it would have been lost
printf 'gpu001\n\0gpu[002-004]\n' > "$TMP/nul-hosts"
$FC run --out "$TMP/out-nul" --hosts "$TMP/nul-hosts" > "$TMP/nul.out" 2> "$TMP/nul.err"
rc=$?
[ $rc -eq 2 ] && grep -qF "$TMP/nul-hosts:2:1: a NUL byte in the host list" "$TMP/nul.err" &&
    ! grep -q verdict "$TMP/nul.out"
ok $? "a NUL byte in the host list: exit 2 ($rc), its line and column named"
printf 'gpu[001-002] r1\ngpu[003-004] r2\0\n' > "$TMP/nul-racks"
$FC check-inventory --hosts "$TMP/hosts" --racks "$TMP/nul-racks" > /dev/null 2> "$TMP/nulr.err"
rc=$?
[ $rc -eq 2 ] && grep -qF "$TMP/nul-racks:2:16: a NUL byte in the rack map" "$TMP/nulr.err"
ok $? "a NUL byte in the rack map: exit 2 ($rc), its line and column named"
printf 'SwitchName=s1 Nodes=gpu[001-002]\0\nSwitchName=s2 Nodes=gpu[003-004]\n' > "$TMP/nul-topo"
$FC topology slurm - < "$TMP/nul-topo" > /dev/null 2> "$TMP/nult.err"
rc=$?
[ $rc -eq 2 ] && grep -qF "standard input:1:33: a NUL byte in the topology" "$TMP/nult.err"
ok $? "a NUL byte in a topology read from standard input: exit 2 ($rc), named"
# a byte order mark, as a Windows editor saves: dropped, not a host name
printf '\xef\xbb\xbfgpu[001-004]\n' > "$TMP/bom-hosts"
printf '\xef\xbb\xbfgpu[001-002] r1\ngpu[003-004] r2\n' > "$TMP/bom-racks"
$FC check-inventory --hosts "$TMP/bom-hosts" --racks "$TMP/bom-racks" > "$TMP/bom.out" 2> "$TMP/bom.err"
rc=$?
[ $rc -eq 0 ] && grep -q '^gpu001 r1$' "$TMP/bom.out" && grep -q '^# 4 hosts in 2 racks$' "$TMP/bom.out"
ok $? "a host list and a rack map that start with a byte order mark: read as without it ($rc)"
printf '\xef\xbb\xbfSwitchName=s1 Nodes=gpu[001-004]\n' > "$TMP/bom-topo"
$FC topology slurm "$TMP/bom-topo" > "$TMP/bomt.out" 2> "$TMP/bomt.err"
rc=$?
[ $rc -eq 0 ] && grep -q '^gpu004 s1$' "$TMP/bomt.out"
ok $? "a topology that starts with a byte order mark: read as without it ($rc)"

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
