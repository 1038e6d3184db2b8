#!/bin/bash
# verify.t - what `verify` proves, and what it does not:
#   - a signed certificate with a NUL byte and a forged suffix appended, or
#     white space after its final newline, fails verify (the file is read
#     with its real length, not up to the first NUL); so do members beside
#     the certificate and its digest (a "verdict" appended inside the top
#     object) and a digest algorithm other than sha256,
#     and a certificate copied to another rack's file name;
#   - a FAIL rewritten to PASS with its unkeyed digest recomputed: verify
#     without a key says "intact, NOT AUTHENTICATED" (it cannot know), with
#     --pubkey the signature catches it, --require-signature fails it;
#   - keygen refuses an existing file and a symbolic link (even a dangling
#     one) where a key is to go, exit 2 naming the path, and makes the
#     secret key mode 600 whatever the umask;
#   - a profile with certificates: {require_signature: true}: `run` without
#     --sign-key refuses before anything runs (exit 2); `report` of such a
#     run without a key writes no certificate, says NOT CERTIFIED and exits
#     1 even though every rack passed; with a key it certifies.
. tests/e2e/tap.sh
FC=$BUILD/fabcert
G=tests/golden/report
plan 31

mkdir -p "$TMP/run"
cp "$G/slow-link/results.jsonl" "$G/slow-link/profile.yaml" "$G/slow-link/hosts" "$G/slow-link/racks" "$TMP/run/"
$FC keygen "$TMP/site" > /dev/null
$FC report "$TMP/run" --sign-key "$TMP/site.key" > /dev/null 2>&1
C=$TMP/run/certificates/rack1.json
# copies keep the rack's file name (verify checks it), each in its own directory
mkdir -p "$TMP"/{nul,ws,extra,none,forged,badsig,renamed}
$FC verify "$C" --pubkey "$TMP/site.pub" --require-signature > "$TMP/v.out" 2>&1
ok $? "the untouched signed certificate verifies with --pubkey and --require-signature"

# a NUL and a suffix appended: strlen would stop at the NUL
cp "$C" "$TMP/nul/rack1.json"; cp "$C.sig" "$TMP/nul/rack1.json.sig"
printf '\0{"verdict":"PASS"}\n' >> "$TMP/nul/rack1.json"
$FC verify "$TMP/nul/rack1.json" --pubkey "$TMP/site.pub" > "$TMP/nul.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'FAILED: a NUL byte at byte' "$TMP/nul.out" && ! grep -q 'OK' "$TMP/nul.out"
ok $? "a NUL byte and a suffix appended: verify fails ($rc): $(head -c 120 "$TMP/nul.out")"
$FC verify "$TMP/nul/rack1.json" > /dev/null 2>&1
ok $(( $? != 1 )) "... also without a key"
cp "$C" "$TMP/ws/rack1.json"; cp "$C.sig" "$TMP/ws/rack1.json.sig"
printf '\n \n' >> "$TMP/ws/rack1.json"
$FC verify "$TMP/ws/rack1.json" --pubkey "$TMP/site.pub" > "$TMP/ws.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "3 byte(s) after the certificate's final newline" "$TMP/ws.out"
ok $? "white space after the final newline: verify fails ($rc)"

# a certificate copied over another rack's file
cp "$C" "$TMP/renamed/rack2.json"; cp "$C.sig" "$TMP/renamed/rack2.json.sig"
$FC verify "$TMP/renamed/rack2.json" --pubkey "$TMP/site.pub" > "$TMP/renamed.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "FAILED: the file is named rack2.json, but it certifies rack rack1" "$TMP/renamed.out"
ok $? "a certificate renamed to another rack's file name fails verify ($rc), though intact and signed"

# members outside the signed certificate, and a digest that is no digest:
# the file must be exactly {"certificate": ..., "digest": {sha256}}
cp "$C" "$TMP/extra/rack1.json"; cp "$C.sig" "$TMP/extra/rack1.json.sig"
perl -pi -e 's/\}\n\z/,"rack":"rack2","verdict":"PASS"}\n/' "$TMP/extra/rack1.json"
$FC verify "$TMP/extra/rack1.json" --pubkey "$TMP/site.pub" > "$TMP/extra.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "FAILED: a member 'rack' beside the certificate and its digest" "$TMP/extra.out" &&
    ! grep -q 'OK' "$TMP/extra.out"
ok $? "members appended after the signed certificate fail verify ($rc): $(head -c 100 "$TMP/extra.out")"
cp "$C" "$TMP/none/rack1.json"
perl -pi -e 's/"algorithm":"sha256"/"algorithm":"none"/' "$TMP/none/rack1.json"
$FC verify "$TMP/none/rack1.json" > "$TMP/none.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "FAILED: digest algorithm 'none'" "$TMP/none.out"
ok $? "a digest algorithm other than sha256 fails verify ($rc)"

# a forger rewrites FAIL to PASS and recomputes the unkeyed digest
forge() {   # forge IN OUT: every "FAIL" verdict to "PASS", digest recomputed
    perl -MDigest::SHA=sha256_hex -e '
        local $/; open(my $f, "<", $ARGV[0]) or die; my $t = <$f>;
        $t =~ s/"verdict":"FAIL"/"verdict":"PASS"/g;
        $t =~ /^\{"certificate":(.*),"digest":\{"algorithm":"sha256","value":"[0-9a-f]{64}"\}\}\n\z/s or die "shape";
        my $d = sha256_hex($1);
        $t =~ s/"value":"[0-9a-f]{64}"\}\}\n\z/"value":"$d"}}\n/;
        open(my $o, ">", $ARGV[1]) or die; print $o $t' "$1" "$2"
}
forge "$C" "$TMP/forged/rack1.json"; cp "$C.sig" "$TMP/forged/rack1.json.sig"
grep -q '"verdict":"FAIL"' "$C" && ! grep -q '"verdict":"FAIL"' "$TMP/forged/rack1.json"
ok $? "the forgery turned the rack's FAIL verdicts into PASS"
$FC verify "$TMP/forged/rack1.json" > "$TMP/f0.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q 'digest OK.*verdict PASS' "$TMP/f0.out" &&
    grep -q 'intact, NOT AUTHENTICATED' "$TMP/f0.out" && grep -q 'anyone who can edit the file' "$TMP/f0.out"
ok $? "without a key the forgery is only 'intact, NOT AUTHENTICATED' ($rc), never 'signature OK'"
grep -q 'a signature file is there: give --pubkey' "$TMP/f0.out"
ok $? "... and verify points at the signature file it did not check"
$FC verify "$TMP/forged/rack1.json" --pubkey "$TMP/site.pub" > "$TMP/f1.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'FAILED: signature does not match' "$TMP/f1.out"
ok $? "with --pubkey the forgery fails: the signature does not match ($rc)"
$FC verify "$TMP/forged/rack1.json" --require-signature > "$TMP/f2.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'FAILED: --require-signature: no public key' "$TMP/f2.out"
ok $? "--require-signature without a key fails (exit $rc)"
rm "$TMP/forged/rack1.json.sig"
$FC verify "$TMP/forged/rack1.json" --pubkey "$TMP/site.pub" --require-signature > "$TMP/f3.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'FAILED: no signature' "$TMP/f3.out"
ok $? "--require-signature with a key and no .sig fails (exit $rc)"
cp "$C" "$TMP/badsig/rack1.json"; { cat "$C.sig"; printf 'junk\n'; } > "$TMP/badsig/rack1.json.sig"
$FC verify "$TMP/badsig/rack1.json" --pubkey "$TMP/site.pub" > "$TMP/bs.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'is not one signature' "$TMP/bs.out"
ok $? "a signature file with bytes after the signature fails ($rc)"

# keygen: O_EXCL | O_NOFOLLOW, mode 600
cp "$TMP/site.key" "$TMP/site.key.before"
$FC keygen "$TMP/site" > /dev/null 2> "$TMP/k1.err"
rc=$?
[ $rc -eq 2 ] && grep -qF "$TMP/site.key: File exists" "$TMP/k1.err" && cmp -s "$TMP/site.key" "$TMP/site.key.before"
ok $? "keygen refuses an existing key, exit $rc naming the path; the key is unchanged"
echo "precious" > "$TMP/target"
ln -s "$TMP/target" "$TMP/link.key"
$FC keygen "$TMP/link" > /dev/null 2> "$TMP/k2.err"
rc=$?
[ $rc -eq 2 ] && grep -qF "$TMP/link.key" "$TMP/k2.err" && [ "$(cat "$TMP/target")" = precious ] &&
    [ ! -e "$TMP/link.pub" ]
ok $? "keygen refuses a symbolic link where the key goes (exit $rc); its target is untouched"
ln -s "$TMP/planted" "$TMP/dangle.key"
$FC keygen "$TMP/dangle" > /dev/null 2>&1
rc=$?
[ $rc -eq 2 ] && [ ! -e "$TMP/planted" ]
ok $? "keygen refuses a dangling link too (exit $rc): nothing is created through it"
echo "someone's" > "$TMP/half.pub"
$FC keygen "$TMP/half" > /dev/null 2> "$TMP/k3.err"
rc=$?
[ $rc -eq 2 ] && [ ! -e "$TMP/half.key" ] && grep -qF "$TMP/half.pub" "$TMP/k3.err"
ok $? "an existing .pub: refused (exit $rc), and no orphan secret key is left behind"
( umask 000; $FC keygen "$TMP/open" > /dev/null )
[ "$(stat -c %a "$TMP/open.key")" = 600 ] && [ "$(stat -c %a "$TMP/open.pub")" = 644 ]
ok $? "with umask 000 the secret key is still 600 ($(stat -c %a "$TMP/open.key")), the public 644"

# a profile that requires signatures
sed 's/^seed: .*/&\ncertificates:\n  require_signature: true/' thresholds/local.yaml > "$TMP/signed.yaml"
$FC check-profile "$TMP/signed.yaml" > /dev/null
ok $? "certificates: {require_signature: true} is a valid profile setting"
printf 'name: x\ncertificates:\n  require_signature: sometimes\nstages:\n  node:\n    timeout_s: 60\n' > "$TMP/badsig.yaml"
$FC check-profile "$TMP/badsig.yaml" 2> "$TMP/bp.err"
rc=$?
[ $rc -eq 2 ] && grep -qF "badsig.yaml:3:22: 'require_signature' must be true or false" "$TMP/bp.err"
ok $? "a bad require_signature value: file:line:col, exit $rc"
$FC run --profile "$TMP/signed.yaml" --out "$TMP/signed-run" > "$TMP/r.out" 2> "$TMP/r.err"
rc=$?
[ $rc -eq 2 ] && grep -q 'requires signed certificates.*give --sign-key' "$TMP/r.err" &&
    [ ! -e "$TMP/signed-run/results.jsonl" ]
ok $? "run without --sign-key under that profile refuses before anything runs (exit $rc)"

# report of such a run: the clean golden run under its profile with the
# setting added (the frozen copy, and its hash in every record that names
# it), its plan marked as the runner marks it
signed_fixture() {  # signed_fixture DIR PLAN-FLAG(1|0)
    mkdir -p "$1"
    cp "$G/clean/hosts" "$G/clean/racks" "$1/"
    { cat "$G/clean/profile.yaml"; printf 'certificates:\n  require_signature: true\n'; } > "$1/profile.yaml"
    local old new
    old=$(sha256sum < "$G/clean/profile.yaml" | cut -c1-64); new=$(sha256sum < "$1/profile.yaml" | cut -c1-64)
    perl -pe "s/$old/$new/g; s/^\\{(.*\"type\":\"plan\".*)\\}\$/{\$1,\"require_signature\":true}/ if $2" \
        "$G/clean/results.jsonl" > "$1/results.jsonl"
}
signed_fixture "$TMP/req" 1
grep -q '"require_signature":true' "$TMP/req/results.jsonl" && ! grep -q 89c6cf19 "$TMP/req/results.jsonl"
ok $? "fixture: the clean run's plan record requires signatures, as its frozen profile does"
$FC report "$TMP/req" > "$TMP/req.out" 2>&1
rc=$?
ok $(( rc != 1 )) "report without a key exits 1 although every rack passed ($rc)"
[ -z "$(ls -A "$TMP/req/certificates" 2> /dev/null)" ]
ok $? "and writes no certificate that could be taken for a signed-off one"
grep -q '^NOT CERTIFIED: profile vcluster requires signed certificates' "$TMP/req.out" &&
    grep -q '^NOT CERTIFIED' "$TMP/req/summary.txt"
ok $? "the summary (terminal and summary.txt) says NOT CERTIFIED and why"
$FC report "$TMP/req" --sign-key "$TMP/site.key" > "$TMP/req2.out" 2>&1
rc=$?
ok $rc "with --sign-key the same run is certified (exit $rc)"
! grep -q 'NOT CERTIFIED' "$TMP/req2.out" && [ -s "$TMP/req/certificates/rack1.json.sig" ]
ok $? "... signed, and the summary does not say NOT CERTIFIED"
$FC verify "$TMP/req/certificates/rack1.json" --pubkey "$TMP/site.pub" --require-signature > /dev/null
ok $? "its certificate verifies with --require-signature"
# the setting is the frozen profile's: a plan line that lost it still
# gives no unsigned certificate
signed_fixture "$TMP/reqdel" 0
$FC report "$TMP/reqdel" > "$TMP/reqdel.out" 2>&1
rc=$?
! grep -q '"require_signature"' "$TMP/reqdel/results.jsonl" && [ $rc -eq 1 ] &&
    [ -z "$(ls -A "$TMP/reqdel/certificates" 2> /dev/null)" ] &&
    grep -q '^NOT CERTIFIED: profile vcluster requires signed certificates' "$TMP/reqdel.out" &&
    grep -q "INCOMPLETE rack rack1, run stage, results: the plan record does not match the frozen profile .*: the profile requires signed certificates, the plan does not say so" "$TMP/reqdel.out"
ok $? "require_signature deleted from the plan: still no unsigned certificate, NOT CERTIFIED, INCOMPLETE (exit $rc)"
# without the profile setting nothing changes: the golden run certifies unsigned
mkdir -p "$TMP/plain"; cp "$G/clean/results.jsonl" "$G/clean/profile.yaml" "$G/clean/hosts" "$G/clean/racks" "$TMP/plain/"
$FC report "$TMP/plain" > /dev/null 2>&1
rc=$?
[ $rc -eq 0 ] && [ -s "$TMP/plain/certificates/rack1.json" ]
ok $? "a profile without the setting still writes unsigned certificates (exit $rc)"
done_testing
