#!/bin/bash
# install.t - `make install`: PREFIX/bin/fabcert finds its stage programs,
# the GPU plugin and the shipped profiles relative to itself
# (PREFIX/libexec/fabcert, PREFIX/share/fabcert/thresholds), so an
# installed copy runs from any directory without the build tree; --version
# says where it runs from; DESTDIR stages the tree for a package.
. tests/e2e/tap.sh
plan 6
X=$TMP/x

make -s --no-print-directory install PREFIX="$X" BUILD="$BUILD" > "$TMP/install.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ -x "$X/bin/fabcert" ] && [ -x "$X/libexec/fabcert/node" ] &&
    [ -x "$X/libexec/fabcert/soak" ] && [ -x "$X/libexec/fabcert/retest" ] &&
    [ -x "$X/libexec/fabcert/probe" ] && [ -s "$X/share/fabcert/thresholds/local.yaml" ]
ok $? "make install PREFIX=... installs the command, the stage programs and the profiles ($rc)"
v=$("$X/bin/fabcert" --version)
echo "$v" | grep -qx "program: $X/bin/fabcert" &&
    echo "$v" | grep -qx "stage programs: $X/libexec/fabcert" &&
    echo "$v" | grep -qx "default profile: $X/share/fabcert/thresholds/local.yaml"
ok $? "fabcert --version says where it runs from and where its parts are"

# from another directory, with nothing but the installed copy
mkdir -p "$TMP/elsewhere"
( cd "$TMP/elsewhere" && "$X/bin/fabcert" run --np 2 --sizes 4KiB --collectives all_reduce \
    --dtypes int32 --ops sum --iters 2 --warmup 1 > run.out 2>&1 )
rc=$?
out=$(ls -d "$TMP"/elsewhere/fabcert-out/*/ 2> /dev/null | head -1)
[ $rc -eq 0 ] && grep -q '^verdict: PASS' "$TMP/elsewhere/run.out" && [ -s "$out/certificates/default.json" ]
ok $? "the installed fabcert run passes from another directory, its output there ($rc)"
p=$(jsonl "$out/results.jsonl" '(grep { $_->{type} eq "plan" } @r)[0]{inputs}{profile}')
is "$p" "$X/share/fabcert/thresholds/local.yaml" "its default profile is the installed one"
! grep -rqs "$PWD/$BUILD\|$PWD/thresholds" "$out/results.jsonl" "$out/node.log" "$out/node.tap"
ok $? "nothing the run wrote names the build tree"

make -s --no-print-directory install PREFIX=/opt/fabcert DESTDIR="$TMP/stage" BUILD="$BUILD" \
    > "$TMP/stage.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ -x "$TMP/stage/opt/fabcert/bin/fabcert" ] &&
    [ -x "$TMP/stage/opt/fabcert/libexec/fabcert/node" ] &&
    [ -s "$TMP/stage/opt/fabcert/share/fabcert/thresholds/vcluster.yaml" ]
ok $? "DESTDIR stages the same tree under it ($rc)"
done_testing
