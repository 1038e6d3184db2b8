#!/bin/bash
# long_run.t - operating a long burn-in (issue 17), on this machine alone:
#   - progress: a 20-second soak run with --progress prints a line at
#     every window and at least every 10 s (stage, time done of total,
#     failures, ETA), and each line's ETA, added to the moment it was
#     printed, falls within 4 s of the moment the stage really ended;
#     a reader polling progress.json every 50 ms while it runs never finds
#     it invalid (it is replaced by rename, never rewritten in place);
#     without --progress, stdout not a terminal, no progress line.
. tests/e2e/tap.sh
FC=$BUILD/fabcert
plan 7
SWEEP=(--sizes 4KiB --collectives all_reduce --dtypes int32 --ops sum --iters 2 --warmup 1)
# stamp each line with the time it was read, in seconds
stamp() { perl -MTime::HiRes=time -ne 'BEGIN { $| = 1 } printf "%.3f %s", time, $_'; }

cat > "$TMP/long.yaml" <<'YAML'
name: long-local
seed: 17
stages:
  node:
    timeout_s: 60
    warmup: 1
    iters: 2
    sizes: [4KiB]
    collectives: [all_reduce]
    dtypes: [int32]
    ops: [sum]
  soak:
    timeout_s: 120
    warmup: 1
    iters: 4
    sizes: [4KiB]
    collectives: [all_reduce]
    dtypes: [float32]
    ops: [sum]
    soak:
      duration_s: 20
      window_s: 2.5
      max_drift_pct: 1000
YAML
# the soak FAILs a link that vanishes while it runs; other tests' virtual
# clusters come and go on a shared machine, so follow a device-backed NIC
phys=$(for i in /sys/class/net/*; do [ -L "$i" ] && ! readlink "$i" | grep -q /virtual/ && basename "$i"; done | head -1)
echo "      nic_pattern: \"${phys:-*}\"" >> "$TMP/long.yaml"

# 1. the 20-second soak, watched
mkdir -p "$TMP/long"
perl -MJSON::PP -MTime::HiRes=sleep -e '
    my ($f, $stop) = @ARGV; my ($n, $bad, %state, $eta) = (0, 0);
    until (-e $stop) {
        if (open(my $h, "<", $f)) {
            local $/; my $t = <$h>; close $h; ++$n;
            my $d = eval { JSON::PP::decode_json($t) };
            if ($d) { $state{$d->{state} . ($d->{stage} ? "/$d->{stage}" : "")}++;
                      $eta++ if defined $d->{eta_s} }
            else { ++$bad }
        }
        sleep 0.05;
    }
    print "$n $bad ", ($eta // 0), " ", join(",", sort keys %state), "\n"' \
    "$TMP/long/progress.json" "$TMP/long.stop" > "$TMP/reader.out" &
reader=$!
$FC run --out "$TMP/long" --np 2 --profile "$TMP/long.yaml" --progress 2> "$TMP/long.err" |
    stamp > "$TMP/long.out"
rc=${PIPESTATUS[0]}
touch "$TMP/long.stop"; wait $reader
[ $rc -eq 0 ] && grep -q ' verdict: PASS' "$TMP/long.out"
ok $? "a 20-second soak run with --progress passes ($rc)"
lines=$(grep -c ' progress: stage soak (2 of 2): [0-9.]* of 20.0 s, window [0-9]*, 0 failed, ETA [0-9]* s$' "$TMP/long.out")
gaps=$(perl -ne '($t) = /^(\S+)/; if (/ stage soak: \d+ host/) { $p = $t } elsif (/ progress: stage soak/) { $g = $t - $p if $t - $p > $g; $p = $t } END { printf "%.1f", $g }' "$TMP/long.out")
[ "$lines" -ge 7 ] && awk -v g="$gaps" 'BEGIN { exit !(g <= 10.5) }'
ok $? "a progress line at every window, none more than 10 s apart ($lines lines, widest gap ${gaps} s)"
err=$(perl -ne '($t) = /^(\S+)/; push @e, $t + $1 if / progress: stage soak.*ETA (\d+) s$/; $end = $t if / stage soak: PASS/;
    END { my $w = 0; for (@e) { my $d = abs($_ - $end); $w = $d if $d > $w } printf "%.1f %d", $w, scalar @e }' "$TMP/long.out")
set -- $err
[ "$2" -ge 7 ] && awk -v w="$1" 'BEGIN { exit !(w <= 4) }'
ok $? "every line's ETA is within 4 s of the soak's real end (worst ${1} s over $2 lines)"
set -- $(cat "$TMP/reader.out")
[ "${1:-0}" -ge 100 ] && [ "${2:-1}" -eq 0 ] && [ "${3:-0}" -ge 50 ] &&
    echo "$4" | grep -q 'running/soak'
ok $? "progress.json was valid at each of $1 reads while the run went on ($2 not), with an ETA in $3 ($4)"
jq_last=$(perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); print join " ", $d->{state}, $d->{verdict},
    map { "$_->{stage}:$_->{ended}" } @{$d->{finished}}' < "$TMP/long/progress.json")
is "$jq_last" "finished PASS node:1 soak:1" "at the end progress.json says the run finished, its verdict and each stage"
! ls "$TMP/long" | grep -q 'progress.json.tmp'
ok $? "no temporary file is left beside it"

# 2. not a terminal, no --progress: quiet (a 3 s soak, windows of 1 s)
sed 's/duration_s: 20/duration_s: 3/; s/window_s: 2.5/window_s: 1/' "$TMP/long.yaml" > "$TMP/short.yaml"
$FC run --out "$TMP/quiet" --np 2 --profile "$TMP/short.yaml" > "$TMP/quiet.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ! grep -q 'progress:' "$TMP/quiet.out" && grep -q '"state": "finished"' "$TMP/quiet/progress.json"
ok $? "without --progress and a terminal no progress line is printed; progress.json is still written ($rc)"
done_testing
