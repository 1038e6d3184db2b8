#!/bin/bash
# layers.t - the layering of docs/ARCHITECTURE.md held on the built objects
# (tests/layers/check_layers.py, make check-layers): the tree as built has
# no circle of files and no use of a higher layer; an object planted in a
# copy of the objects, lib's TAP (the lowest layer) calling into the stage
# driver, is caught both as a use upward and as a circle; a fixture graph
# with a circle inside one concept, a file the table does not know, and a
# file in another concept's folder is caught on each.
. tests/e2e/tap.sh
plan 4
CHECK="python3 tests/layers/check_layers.py"

out=$($CHECK --objdir "$BUILD/obj" 2>&1)
rc=$?
diag "$out"
ok $rc "the built tree: no circle, no use upward"

# a temp object calling upward: fc_tap.o with a call to the stage driver
# linked in (ld -r), in a copy of the objects (hard links; the copy's
# fc_tap.o is a new file)
cp -al "$BUILD/obj" "$TMP/obj"
tap=$(cd "$TMP/obj" && find lib -name fc_tap.o -not -path 'lib/gpu/*')
printf 'int fc_stage_comm_hosts(const void *ctx, int comm);\nint fc_tap_planted(void) { return fc_stage_comm_hosts(0, 0); }\n' > "$TMP/planted.c"
cc -c -fPIC -o "$TMP/planted.o" "$TMP/planted.c" &&
    ld -r -o "$TMP/fc_tap.o" "$BUILD/obj/$tap" "$TMP/planted.o" &&
    rm "$TMP/obj/$tap" && cp "$TMP/fc_tap.o" "$TMP/obj/$tap"
out=$($CHECK --objdir "$TMP/obj" 2>&1)
rc=$?
diag "$out"
[ $rc -eq 1 ] &&
    grep -Eq "check-layers: lib/(base/)?fc_tap.c \(base, layer [0-9]+\) uses lib/(stage/)?fc_stage_world.c \(stage, layer [0-9]+\): fc_stage_comm_hosts" <<< "$out" &&
    grep -Eq "check-layers: circle of [0-9]+ files: .*lib/(base/)?fc_tap.c" <<< "$out"
ok $? "a planted call from lib's TAP into the stage driver: a use upward and a circle ($rc)"

# fixtures: a circle inside one concept; unclassified; the wrong folder
cat > "$TMP/circle.txt" <<'G'
lib/stage/fc_stage_sweep.c lib/stage/fc_stage_confirm.c fc_stage_confirm_point
lib/stage/fc_stage_confirm.c lib/stage/fc_stage_records.c fc_stage_record
lib/stage/fc_stage_records.c lib/stage/fc_stage_sweep.c fc_stage_gather_summaries
lib/stage/fc_stage_sweep.c lib/base/fc_log.c fc_log_info
G
out=$($CHECK --graph "$TMP/circle.txt" 2>&1)
rc=$?
diag "$out"
[ $rc -eq 1 ] &&
    grep -q "circle of 3 files: lib/stage/fc_stage_confirm.c lib/stage/fc_stage_records.c lib/stage/fc_stage_sweep.c" <<< "$out" &&
    grep -q "lib/stage/fc_stage_records.c -> lib/stage/fc_stage_sweep.c (fc_stage_gather_summaries)" <<< "$out" &&
    ! grep -q "fc_log.c" <<< "$out"
ok $? "a circle of three files of one concept is named with each step's symbol ($rc)"

cat > "$TMP/misc.txt" <<'G'
lib/fc_no_such_concept.c lib/base/fc_log.c fc_log_info
lib/pairs/fc_log.c lib/base/fc_status.c fc_status_str
G
out=$($CHECK --graph "$TMP/misc.txt" 2>&1)
rc=$?
diag "$out"
[ $rc -eq 1 ] &&
    grep -q "lib/fc_no_such_concept.c: not classified" <<< "$out" &&
    grep -q "lib/pairs/fc_log.c: in lib/pairs/, but its concept is base" <<< "$out"
ok $? "a file the table does not know and a file in another concept's folder ($rc)"
done_testing
