#!/bin/bash
# docs.t - the documents a reader follows from the README: every relative
# link of README.md and docs/ resolves to a file and, for #anchors, to a
# heading (tests/docs/linkcheck.py); a link planted to a missing file and
# one to a missing heading are both caught; the README stays a front door
# (at most 300 lines).
. tests/e2e/tap.sh
plan 3
out=$(python3 tests/docs/linkcheck.py . 2>&1)
rc=$?
diag "$out"
ok $rc "every relative link of README.md and docs/ resolves"
mkdir -p "$TMP/tree/docs"
cp README.md "$TMP/tree/" && cp -r docs/. "$TMP/tree/docs/"
printf '\nSee [gone](docs/no-such-file.md) and [there](docs/DESIGN.md#no-such-heading).\n' >> "$TMP/tree/README.md"
out=$(python3 tests/docs/linkcheck.py "$TMP/tree" 2>&1)
rc=$?
[ $rc -eq 1 ] && grep -q 'README.md:[0-9]*: missing file: docs/no-such-file.md' <<< "$out" &&
    grep -q 'README.md:[0-9]*: missing anchor: docs/DESIGN.md#no-such-heading' <<< "$out"
ok $? "a planted link to a missing file and one to a missing heading are named by file and line ($rc)"
n=$(wc -l < README.md)
[ "$n" -le 300 ]
ok $? "README.md is a front door: $n lines, at most 300"
done_testing
