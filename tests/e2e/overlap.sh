# overlap.sh - helpers of the overlap stage's tests (overlap.t, timed,
# alone; overlap_gpu.t, judged on bits and rules, in the parallel lanes),
# sourced after tap.sh.
profile() {     # profile FILE SIZES COMPUTE_MS ITERS WARMUP
    cat > "$1" <<YAML
name: overlap-test
seed: 5
stages:
  overlap:
    timeout_s: 60
    warmup: $5
    iters: $4
    sizes: [$2]
    overlap:
      compute_ms: $3
      min_overlap_pct: 50
YAML
}
rec() { jsonl "$TMP/$1/results.jsonl" "$2"; }
fig() { rec $1 'my ($o) = grep { $_->{type} eq "overlap" } @r;
    sprintf("%s %.0f %.0f %.0f %.1f %.1f", $o->{verdict}, $o->{coll_alone_us}, $o->{compute_alone_us}, $o->{together_us}, $o->{overlap_pct}, $o->{compute_work_pct})'; }
