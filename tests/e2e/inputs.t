#!/bin/bash
# inputs.t - every file fabcert is given to read is read only when it is a
# regular file below its kind's cap (lib/base/fc_input.h), or, for a text, a
# pipe a command writes: a FIFO no one writes to (which would block the
# reader forever), a directory, a character device (/dev/zero
# never ends) and a 2 GiB sparse file each get one error naming the file
# and exit 2 within a second (asserted with a generous 5 s), as a profile
# (check-profile, run --profile), a host list and a rack map (run,
# check-inventory), a results file (report, compare), and keys (report
# --sign-key, verify --pubkey).
. tests/e2e/tap.sh
FC=$BUILD/fabcert
LIMIT=${FC_INPUT_LIMIT_S:-5}

mkfifo "$TMP/fifo"
mkdir "$TMP/dir"
truncate -s 2G "$TMP/sparse"
printf 'gpu[001-002]\n' > "$TMP/hosts"
for k in fifo dir sparse; do
    mkdir -p "$TMP/run-$k"
done
mkfifo "$TMP/run-fifo/results.jsonl"
mkdir "$TMP/run-dir/results.jsonl"
truncate -s 2G "$TMP/run-sparse/results.jsonl"
cp -r tests/golden/report/clean "$TMP/good"

# refused NAME PATTERN COMMAND...: exit 2 within LIMIT s, PATTERN on stderr
refused() {
    local name=$1 pat=$2 t0 secs rc
    shift 2
    t0=$(date +%s.%N)
    timeout -k 10 60 "$@" > "$TMP/out" 2> "$TMP/err" < /dev/null
    rc=$?
    secs=$(echo "$(date +%s.%N) - $t0" | bc)
    [ $rc -eq 2 ] && [ "$(echo "$secs < $LIMIT" | bc)" = 1 ] && grep -qE -- "$pat" "$TMP/err" &&
        ! grep -q "^verdict" "$TMP/out"
    ok $? "$name: exit 2 ($rc) in $(printf '%.2f' "$secs") s, '$(head -1 "$TMP/err" | cut -c1-140)'"
}
kind_fifo="is a FIFO"
kind_dir="is a directory"
kind_sparse="has 2147483648 bytes, more than"
kind_zero="is a character device"
plan 24
for k in fifo dir sparse; do
    eval "kind=\$kind_$k"
    refused "check-profile on a $k" "$TMP/$k: the profile $kind" $FC check-profile "$TMP/$k"
    refused "run --profile on a $k" "$TMP/$k: the profile $kind" \
        $FC run --profile "$TMP/$k" --out "$TMP/o-$k"
    refused "run --hosts on a $k" "$TMP/$k: the host list $kind" \
        $FC run --hosts "$TMP/$k" --out "$TMP/o-$k"
    refused "check-inventory --racks on a $k" "$TMP/$k: the rack map $kind" \
        $FC check-inventory --hosts "$TMP/hosts" --racks "$TMP/$k"
    refused "report on a run whose results.jsonl is a $k" \
        "$TMP/run-$k/results.jsonl: the results file $kind" $FC report "$TMP/run-$k"
    refused "compare with a run whose results.jsonl is a $k" \
        "$TMP/run-$k/results.jsonl: the results file $kind" \
        $FC compare "$TMP/good" "$TMP/run-$k" --out "$TMP/cmp-$k"
done
refused "check-profile on /dev/zero" "/dev/zero: the profile $kind_zero" $FC check-profile /dev/zero
refused "run --racks on /dev/zero" "/dev/zero: the rack map $kind_zero" \
    $FC run --hosts "$TMP/hosts" --racks /dev/zero --out "$TMP/o-zero"
refused "report --sign-key on a FIFO" "$TMP/fifo: the secret key $kind_fifo" \
    $FC report "$TMP/good" --sign-key "$TMP/fifo"
refused "verify --pubkey on a FIFO" "$TMP/fifo: the public key $kind_fifo" \
    $FC verify tests/golden/report/clean/expected/certificates/rack1.json --pubkey "$TMP/fifo"
refused "verify on a FIFO" "$TMP/fifo: the certificate $kind_fifo" $FC verify "$TMP/fifo"
# and the same profile, as a regular file or from a command's pipe, is read
cp thresholds/local.yaml "$TMP/local.yaml"
$FC check-profile "$TMP/local.yaml" > "$TMP/out" 2>&1 &&
    $FC check-profile <(sleep 1; cat thresholds/local.yaml) > "$TMP/out" 2>&1
ok $? "a regular profile is still read, and one a command writes into a pipe"
done_testing
