#!/usr/bin/env bash
# Build quinn-proto (quinn's protocol crate, from crates.io) with our harness
# patch, run its own test suite, and measure transfers over a deterministic
# bottleneck in its test Pair, variant by variant.  See README.md next to
# this file.  Everything built goes to $WORK_DIR (default target/quinn-integration).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
HARNESS=("python3" "$HERE/harness.py")
# Bump when the way trees are prepared changes, so old trees are rebuilt.
PREP_VERSION=2

usage() {
  cat <<'EOF'
usage: integrations/quinn/run.sh [options]

  --scoreboard      instead of the matrix, the scoreboard (scoreboard.py): every
                    row (bulk 1 GiB on mission and bench, short and many-stream
                    transfers, cable, jitter, shallow and standing queues, bufferbloat)
                    at 21 RTTs, variants quinn-default, quinn-8MiB, unlimited,
                    upstream-1..6, neqo-fc;
                    means per row and the targets of the upstream series
  --quick           CI subset. Matrix: variants quinn-default, unlimited, neqo-fc;
                    bulk transfers of 256 MiB on the mission path at 20 and 50 ms,
                    and one 4,096,000-byte transfer at 50 ms. Scoreboard: variants
                    quinn-default, unlimited, upstream-6; every row at 3 RTTs (the
                    1 GiB rows at 60 ms alone)
  --json FILE       write the results (tests and every run) as JSON
  --skip-tests      do not run quinn-proto's test suite
  --variants LIST   comma-separated, default quinn-default,quinn-8MiB,unlimited,neqo-fc
                    (also: upstream-1 .. upstream-6, quinn with the first 1 .. 6
                    patches of patches/upstream/, stream windows tuned up to
                    16 MiB from step 2 on, the connection window from 2.5 MB
                    up to 24 MiB from step 4 on; only the trees these need
                    are built; main always)
  --paths LIST      comma-separated, default mission,bench (also: cable, 200 Mbit/s;
                    jitter10, jitter30: mission with up to 10 / 30 ms more one way
                    server to client, drawn per datagram, order kept; shallow0.1,
                    shallow0.5: mission with a queue of 0.1 / 0.5 BDP; standing0.5:
                    mission where another flow keeps 0.5 BDP in the queue from 2 s;
                    bufferbloat: 50 Mbit/s, a 50-BDP queue)
  --rtts LIST       RTTs in ms, comma-separated (default 20,30,40,50,60,80,100)
  --bytes N         bytes of the bulk scenario (default 1073741824 = 1 GiB;
                    --quick: 268435456)
  --scenarios LIST  comma-separated, default bulk: one stream of --bytes, or
                    [req-]KxSIZE: K streams of SIZE bytes each (SIZE may end in
                    KiB, MiB, GiB), server-opened, or with req- the client's
                    requests answered by the server (1x4096000, req-10x409600, 100x1MiB)
  --jobs N          simulations at a time (default 2)
  --qlog DIR        write the server's qlog trace of every matrix run into DIR,
                    one file per run (not with --scoreboard; see README)
  --loopback        also run quinn's own endpoints (the quinn crate) over
                    loopback UDP, unpatched and with each patched tree built
                    among fc and the last upstream-N: bulk throughput and CPU time
  --loopback-runs K runs per tree, alternating (default 5); --loopback-bytes N
                    bytes per run (default 1073741824)
  -h, --help        this text

With --quick, --paths, --rtts and --scenarios replace the quick set. The
scoreboard takes none of --paths, --rtts, --bytes, --scenarios.

environment: WORK_DIR (default target/quinn-integration), QUINN_PROTO_VERSION
(default 0.11.19: another version is fetched the same way, and the patches
must apply to it), FC_CRATE (default the repository's neqo-fc), FC_SEND_WINDOW
(the server's send_window; default 0: each path's BDP + queue), FC_SEED (default 1:
the endpoints' and the jitter's generators)
EOF
}

step() { printf '\n== %s\n' "$*"; }
say() { printf '   %s\n' "$*"; }
die() { printf 'run.sh: error: %s\n' "$*" >&2; exit 1; }

SCOREBOARD=0 QUICK=0 JSON="" SKIP_TESTS=0 VARIANTS="" PATHS_="" RTTS="" BYTES="" SCENARIOS="" JOBS=2
LOOPBACK=0 LOOPBACK_RUNS=5 LOOPBACK_BYTES=1073741824 QLOG=""
ARGS=("$@")
need() { [[ $# -ge 2 && -n $2 ]] || die "$1 needs a value"; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --scoreboard) SCOREBOARD=1 ;;
    --json) need "$@"; JSON=$(realpath -m "$2"); shift ;;
    --skip-tests) SKIP_TESTS=1 ;;
    --variants) need "$@"; VARIANTS=$2; shift ;;
    --paths) need "$@"; PATHS_=$2; shift ;;
    --rtts) need "$@"; RTTS=$2; shift ;;
    --bytes) need "$@"; BYTES=$2; shift ;;
    --scenarios) need "$@"; SCENARIOS=$2; shift ;;
    --jobs) need "$@"; JOBS=$2; shift ;;
    --qlog) need "$@"; QLOG=$(realpath -m "$2"); shift ;;
    --loopback) LOOPBACK=1 ;;
    --loopback-runs) need "$@"; LOOPBACK_RUNS=$2; shift ;;
    --loopback-bytes) need "$@"; LOOPBACK_BYTES=$2; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
  shift
done
[[ -z $BYTES || $BYTES =~ ^[1-9][0-9]*$ ]] || die "--bytes needs a positive whole number, not $BYTES"
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || die "--jobs needs a positive whole number, not $JOBS"
[[ $LOOPBACK_RUNS =~ ^[1-9][0-9]*$ ]] || die "--loopback-runs needs a positive whole number, not $LOOPBACK_RUNS"
[[ $LOOPBACK_BYTES =~ ^[1-9][0-9]*$ ]] || die "--loopback-bytes needs a positive whole number, not $LOOPBACK_BYTES"
if [[ $SCOREBOARD -eq 1 ]]; then
  [[ -z $PATHS_$RTTS$BYTES$SCENARIOS ]] || die "--scoreboard has its own rows: drop --paths, --rtts, --bytes and --scenarios"
  [[ $LOOPBACK -eq 0 ]] || die "--scoreboard and --loopback: run them one at a time"
  [[ -z $QLOG ]] || die "--qlog is for matrix runs, not --scoreboard"
  if [[ -z $VARIANTS ]]; then
    VARIANTS=$(cd "$HERE" && python3 -c "import scoreboard as s; print(s.QUICK_VARIANTS if $QUICK else s.DEFAULT_VARIANTS)")
  fi
elif [[ -z $VARIANTS ]]; then
  if [[ $QUICK -eq 1 ]]; then
    VARIANTS=quinn-default,unlimited,neqo-fc
  else
    VARIANTS=quinn-default,quinn-8MiB,unlimited,neqo-fc
  fi
fi

QUINN_PROTO_VERSION=${QUINN_PROTO_VERSION:-0.11.19}
WORK_DIR=$(realpath -m "${WORK_DIR:-$ROOT/target/quinn-integration}")
FC_CRATE=$(realpath -m "${FC_CRATE:-$ROOT/neqo-fc}")
SEND_WINDOW=${FC_SEND_WINDOW:-0}
SEED=${FC_SEED:-1}
export CARGO_INCREMENTAL=0
mkdir -p "$WORK_DIR/logs" "$WORK_DIR/bin"

T_START=$SECONDS
declare -A TIMES=()
timed() { TIMES[$1]=$((SECONDS - $2)); }

shopt -s nullglob
HARNESS_PATCHES=("$HERE"/patches/harness/*.patch)
FC_PATCHES=("$HERE"/patches/neqo-fc/*.patch)
UPSTREAM_PATCHES=("$HERE"/patches/upstream/*.patch)
HARNESS_UPSTREAM_PATCHES=("$HERE"/patches/harness-upstream/*.patch)
shopt -u nullglob
[[ ${#HARNESS_PATCHES[@]} -gt 0 ]] || die "no patches in $HERE/patches/harness"

# The trees: quinn-proto + the harness patches, for `fc` the neqo-fc
# patches (quinn-proto's receive flow control from neqo-fc), for `upstream-N`
# the first N patches of the upstream series (patches/upstream/, stream
# windows tuned behind a TransportConfig knob) and the test-only
# patches/harness-upstream/ (the variants' configs, and a check of the tuning
# against neqo-fc's), each from the step its `Applies-From: upstream-K` line
# names, from step 2 where it has none. The tree each variant runs on
# (harness.py VARIANTS says the same):
declare -A VARIANT_TREE=([quinn-default]=main [quinn-8MiB]=main [unlimited]=main [neqo-fc]=fc)
for n in {1..9}; do VARIANT_TREE[upstream-$n]=upstream-$n; done
declare -A WANTED=([main]=1) # main: the reference for quinn-proto's tests
for v in ${VARIANTS//,/ }; do
  [[ -n ${VARIANT_TREE[$v]:-} ]] || die "unknown variant $v (known: ${!VARIANT_TREE[*]})"
  WANTED[${VARIANT_TREE[$v]}]=1
done

# ---------------------------------------------------------------- 1. tools
step "tools"
for t in cargo rustc python3 patch sha256sum; do
  command -v "$t" >/dev/null || die "$t not found"
done
RUSTC_VERSION=$(rustc --version)
say "$(cargo --version), $RUSTC_VERSION, $(python3 --version)"

# ------------------------------------------------------------- 2. quinn-proto
step "quinn-proto $QUINN_PROTO_VERSION from crates.io"
t=$SECONDS
fetch="$WORK_DIR/fetch"
mkdir -p "$fetch/src"
: >"$fetch/src/lib.rs"
cat >"$fetch/Cargo.toml" <<EOF
# Written by integrations/quinn/run.sh: only here to make cargo download quinn-proto.
[package]
name = "fc-harness-fetch"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
quinn-proto = "=$QUINN_PROTO_VERSION"

[workspace]
EOF
(cd "$fetch" && cargo fetch >"$WORK_DIR/logs/fetch.log" 2>&1) ||
  { tail -n 20 "$WORK_DIR/logs/fetch.log" >&2; die "cargo fetch of quinn-proto =$QUINN_PROTO_VERSION failed; log: $WORK_DIR/logs/fetch.log"; }
SRC=$(cd "$fetch" && cargo metadata --format-version 1 2>>"$WORK_DIR/logs/fetch.log" | "${HARNESS[@]}" crate-dir quinn-proto) ||
  die "cargo metadata does not list quinn-proto; log: $WORK_DIR/logs/fetch.log"
[[ -f $SRC/Cargo.lock ]] || die "$SRC has no Cargo.lock (the crate ships one from 0.11.x on)"
SRC_FP=$(cd "$SRC" && find . -type f ! -name .cargo-ok -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
say "source: $SRC"
timed fetch "$t"

# A tree is built only if its patch folder holds a patch.
TREES=(main)
declare -A TREE_SKIP=()
if [[ -n ${WANTED[fc]:-} ]]; then
  if [[ ${#FC_PATCHES[@]} -gt 0 ]]; then
    TREES+=(fc)
  else
    TREE_SKIP[fc]="no patch in integrations/quinn/patches/neqo-fc/ yet"
    say "fc tree: skipped (${TREE_SKIP[fc]})"
  fi
fi
for n in {1..9}; do
  [[ -n ${WANTED[upstream-$n]:-} ]] || continue
  if [[ ${#UPSTREAM_PATCHES[@]} -ge $n ]]; then
    TREES+=(upstream-$n)
  else
    TREE_SKIP[upstream-$n]="integrations/quinn/patches/upstream/ has ${#UPSTREAM_PATCHES[@]} patches"
    say "upstream-$n tree: skipped (${TREE_SKIP[upstream-$n]})"
  fi
done

# ----------------------------------------------------------------- 3. trees
# tree_stamp NAME PATCH... -> what a tree is made of; the tree is rebuilt
# from scratch when this changes.
tree_stamp() {
  local name=$1 p
  shift
  echo "prep=$PREP_VERSION tree=$name quinn-proto=$QUINN_PROTO_VERSION source=$SRC_FP"
  for p in "$@"; do
    echo "$(basename "$p") $(sha256sum "$p" | cut -d' ' -f1)"
  done
}

tree_patches() { # tree_patches NAME -> its patches, in order
  printf '%s\n' "${HARNESS_PATCHES[@]}"
  [[ $1 == fc ]] && printf '%s\n' "${FC_PATCHES[@]}"
  if [[ $1 == upstream-* ]]; then
    local n=${1#upstream-}
    printf '%s\n' "${UPSTREAM_PATCHES[@]:0:n}"
    local p from
    for p in "${HARNESS_UPSTREAM_PATCHES[@]}"; do
      from=$(sed -n 's/^Applies-From: upstream-\([0-9]*\)$/\1/p' "$p" | head -n 1)
      [[ $n -ge ${from:-2} ]] && printf '%s\n' "$p"
    done
  fi
  return 0
}

prepare_tree() { # prepare_tree NAME
  local name=$1 dir="$WORK_DIR/trees/$1" stamp p patches
  mapfile -t patches < <(tree_patches "$name")
  stamp=$(tree_stamp "$name" "${patches[@]}")
  if [[ -f $dir/.fc-harness-stamp && $(<"$dir/.fc-harness-stamp") == "$stamp" ]]; then
    say "$name: reusing $dir (same quinn-proto, same patches)"
    return
  fi
  say "$name: fresh tree in $dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  # A plain copy: files get the current time, so cargo rebuilds a fresh tree
  # even if an older build sits in the target directory.
  cp -R "$SRC" "$dir/quinn-proto"
  chmod -R u+w "$dir/quinn-proto"
  rm -f "$dir/quinn-proto/.cargo-ok" "$dir/quinn-proto/.cargo_vcs_info.json"
  cp "$SRC/Cargo.lock" "$dir/Cargo.lock" # the versions quinn-proto was published with
  cat >"$dir/Cargo.toml" <<'EOF'
# Written by integrations/quinn/run.sh.
[workspace]
members = ["quinn-proto"]
resolver = "2"
EOF
  for p in "${patches[@]}"; do
    (cd "$dir/quinn-proto" && patch -p1 -s -N --no-backup-if-mismatch <"$p") >"$WORK_DIR/logs/patch-$name.log" 2>&1 ||
      { cat "$WORK_DIR/logs/patch-$name.log" >&2; die "$(basename "$(dirname "$p")")/$(basename "$p") does not apply to quinn-proto $QUINN_PROTO_VERSION"; }
    say "$name: applied $(basename "$(dirname "$p")")/$(basename "$p")"
  done
  if [[ $name != main ]]; then
    # One target directory for all trees (dependencies built once) needs
    # artifacts of other names per tree: cargo derives them from the package's
    # name, version and dependencies, not from its folder. SemVer build
    # metadata on the version makes the names differ and changes nothing else.
    sed -i "0,/^version = \"$QUINN_PROTO_VERSION\"/s//version = \"$QUINN_PROTO_VERSION+fc-$name\"/" \
      "$dir/quinn-proto/Cargo.toml"
    grep -q "^version = \"$QUINN_PROTO_VERSION+fc-$name\"" "$dir/quinn-proto/Cargo.toml" ||
      die "could not mark quinn-proto's version in the $name tree"
  fi
  if [[ $name == fc || $name == upstream-[2-9] ]]; then
    # The fc patch says `neqo-fc = { path = "../neqo-fc" }`, the upstream
    # tree's test-only harness-upstream/0002 the same as a dev-dependency (its
    # check against neqo-fc's tuner; the series itself has no such
    # dependency): a link to the crate. Inside the workspace folder cargo would
    # make it a member and resolve its dev-dependencies too (proptest: index
    # update, Cargo.lock churn); excluded, it is a plain path dependency. It needs nothing from
    # a workspace (no `workspace = true` fields).
    [[ -f $FC_CRATE/Cargo.toml ]] || die "FC_CRATE=$FC_CRATE has no Cargo.toml"
    ln -sfn "$FC_CRATE" "$dir/neqo-fc"
    echo 'exclude = ["neqo-fc"]' >>"$dir/Cargo.toml"
    say "$name: neqo-fc -> $FC_CRATE"
  fi
  echo "$stamp" >"$dir/.fc-harness-stamp"
}

step "trees in $WORK_DIR/trees"
t=$SECONDS
for tree in "${TREES[@]}"; do
  prepare_tree "$tree"
done
timed prepare "$t"

# ---------------------------------------------------------------- 4. builds
# All trees share one target directory, so dependencies are built once; each
# tree's quinn-proto has a version of its own (prepare_tree), so its
# artifacts have names of their own; the check below makes sure of it.
export CARGO_TARGET_DIR="$WORK_DIR/cargo-target"
step "build quinn-proto's lib tests (release), which hold the fc_run driver"
t=$SECONDS
declare -A EXE=()
for tree in "${TREES[@]}"; do
  log="$WORK_DIR/logs/build-$tree.log"
  t1=$SECONDS
  if ! (cd "$WORK_DIR/trees/$tree" &&
    cargo test --release --lib -p quinn-proto --no-run --message-format=json-render-diagnostics 2>"$log" |
    "${HARNESS[@]}" test-exe >"$WORK_DIR/bin/$tree.exe"); then
    tail -n 40 "$log" >&2
    die "building quinn-proto ($tree tree) failed; full log: $log"
  fi
  EXE[$tree]=$(<"$WORK_DIR/bin/$tree.exe")
  say "$tree: built in $((SECONDS - t1)) s: ${EXE[$tree]}"
done
for a in "${TREES[@]}"; do
  for b in "${TREES[@]}"; do
    if [[ $a < $b && ${EXE[$a]} == "${EXE[$b]}" ]]; then
      die "the $a and $b trees built the same artifact (${EXE[$a]}): they would overwrite each other (prepare_tree gives each tree's quinn-proto a version of its own)"
    fi
  done
done
timed build "$t"

# ----------------------------------------------------------------- 5. tests
TESTS_JSON=""
TESTS_BROKEN=0
if [[ $SKIP_TESTS -eq 0 ]]; then
  step "quinn-proto's tests (cargo test --release --lib) on ${TREES[*]}"
  t=$SECONDS
  for tree in "${TREES[@]}"; do
    log="$WORK_DIR/logs/test-$tree.log"
    t1=$SECONDS
    (cd "$WORK_DIR/trees/$tree" &&
      cargo test --release --lib -p quinn-proto --no-fail-fast >"$log" 2>&1) || true
    say "$tree: ran in $((SECONDS - t1)) s (log: $log)"
    "${HARNESS[@]}" tests "$log" "$WORK_DIR/logs/tests-$tree.json" --seconds $((SECONDS - t1))
  done
  patched_tests=()
  for tree in "${TREES[@]}"; do
    if [[ $tree != main && -f $WORK_DIR/logs/tests-$tree.json ]]; then
      patched_tests+=("$tree=$WORK_DIR/logs/tests-$tree.json")
    fi
  done
  "${HARNESS[@]}" classify "$WORK_DIR/logs/tests.json" "$WORK_DIR/logs/tests-main.json" "${patched_tests[@]}" ||
    TESTS_BROKEN=1
  TESTS_JSON="$WORK_DIR/logs/tests.json"
  timed tests "$t"
fi

# ---------------------------------------------------------------- 6. matrix
what=matrix
[[ $SCOREBOARD -eq 1 ]] && what=scoreboard
step "$what$([[ $QUICK -eq 1 ]] && echo ' (quick)')"
t=$SECONDS
matrix=(--variants "$VARIANTS" --jobs "$JOBS" --send-window "$SEND_WINDOW" --seed "$SEED"
  --quinn-proto-version "$QUINN_PROTO_VERSION" --command "integrations/quinn/run.sh ${ARGS[*]}"
  --env-info "$RUSTC_VERSION")
for tree in "${TREES[@]}"; do
  matrix+=(--exe "$tree=${EXE[$tree]}")
done
for tree in "${!TREE_SKIP[@]}"; do
  matrix+=(--skip-reason "$tree=${TREE_SKIP[$tree]}")
done
[[ $QUICK -eq 1 ]] && matrix+=(--quick)
[[ -n $PATHS_ ]] && matrix+=(--paths "$PATHS_")
[[ -n $RTTS ]] && matrix+=(--rtts "$RTTS")
[[ -n $BYTES ]] && matrix+=(--bytes "$BYTES")
[[ -n $SCENARIOS ]] && matrix+=(--scenarios "$SCENARIOS")
[[ -n $QLOG ]] && matrix+=(--qlog "$QLOG")
[[ -n $JSON ]] && matrix+=(--json "$JSON")
[[ -n $TESTS_JSON ]] && matrix+=(--tests-json "$TESTS_JSON")
timings="{\"fetch\": ${TIMES[fetch]}, \"prepare\": ${TIMES[prepare]}, \"build\": ${TIMES[build]}"
[[ -n ${TIMES[tests]:-} ]] && timings+=", \"tests\": ${TIMES[tests]}"
matrix+=(--timings "$timings}")
MATRIX_OK=1
"${HARNESS[@]}" "$what" "${matrix[@]}" || MATRIX_OK=0
timed "$what" "$t"

# -------------------------------------------------------------- 7. loopback
# quinn's own endpoints (the quinn crate, with each tree's quinn-proto through
# [patch.crates-io]) over loopback UDP: both ends in one process on one
# thread, so its CPU time is the cost of both. main against each patched tree
# built among fc and the last upstream-N (whose client tunes its stream and
# connection windows, the loopback crate's feature `tuned-conn`). Runs alternate between the trees so that
# a busy machine slows all alike.
if [[ $LOOPBACK -eq 1 ]]; then
  LB_TREES=(main)
  last_upstream=
  for tree in "${TREES[@]}"; do
    [[ $tree == fc ]] && LB_TREES+=(fc)
    [[ $tree == upstream-* ]] && last_upstream=$tree
  done
  [[ ${last_upstream#upstream-} -ge 4 ]] 2>/dev/null && LB_TREES+=("$last_upstream")
  [[ ${#LB_TREES[@]} -gt 1 ]] || die "--loopback needs a patched tree: variant neqo-fc or upstream-4 or later"
  step "loopback: quinn's endpoints over UDP, ${LB_TREES[*]}"
  t=$SECONDS
  for tree in "${LB_TREES[@]}"; do
    dir="$WORK_DIR/loopback-$tree"
    rm -rf "$dir"
    cp -R "$HERE/loopback" "$dir"
    # The tree's quinn-proto with the version loopback/Cargo.lock pins (the
    # tree's own carries build metadata, which [patch] would not take
    # without re-resolving the lock), and its neqo-fc link; outside the
    # loopback folder, which would make it a workspace member.
    src="$WORK_DIR/loopback-src-$tree"
    rm -rf "$src"
    mkdir -p "$src"
    cp -R "$WORK_DIR/trees/$tree/quinn-proto" "$src/quinn-proto"
    sed -i "0,/^version = \"$QUINN_PROTO_VERSION+fc-$tree\"/s//version = \"$QUINN_PROTO_VERSION\"/" "$src/quinn-proto/Cargo.toml"
    ln -sfn "$FC_CRATE" "$src/neqo-fc"
    printf '\n[patch.crates-io]\nquinn-proto = { path = "%s" }\n' "$src/quinn-proto" >>"$dir/Cargo.toml"
    features=()
    [[ $tree == upstream-* ]] && features=(--features tuned-conn)
    log="$WORK_DIR/logs/loopback-build-$tree.log"
    (cd "$dir" && cargo build --release "${features[@]}" >"$log" 2>&1) ||
      { tail -n 30 "$log" >&2; die "building the loopback check ($tree) failed; log: $log"; }
    ! grep -q "was not used in the crate graph" "$log" ||
      die "the loopback check ($tree) did not build with the tree's quinn-proto; log: $log"
    cp "$CARGO_TARGET_DIR/release/quinn-loopback" "$WORK_DIR/bin/loopback-$tree"
    : >"$WORK_DIR/logs/loopback-$tree.jsonl"
  done
  for ((i = 0; i < LOOPBACK_RUNS; i++)); do
    for tree in "${LB_TREES[@]}"; do
      "$WORK_DIR/bin/loopback-$tree" --bytes "$LOOPBACK_BYTES" >>"$WORK_DIR/logs/loopback-$tree.jsonl" ||
        die "loopback run with the $tree tree failed"
    done
  done
  lb=("$WORK_DIR/logs/loopback-main.jsonl")
  for tree in "${LB_TREES[@]:1}"; do
    lb+=("$tree=$WORK_DIR/logs/loopback-$tree.jsonl")
  done
  [[ -n $JSON ]] && lb+=(--json "$JSON")
  "${HARNESS[@]}" loopback "${lb[@]}"
  timed loopback "$t"
fi

# --------------------------------------------------------------- 8. summary
step "done in $((SECONDS - T_START)) s"
for k in fetch prepare build tests matrix scoreboard loopback; do
  [[ -n ${TIMES[$k]:-} ]] && say "$k: ${TIMES[$k]} s"
done
status=0
if [[ $TESTS_BROKEN -eq 1 ]]; then
  say "BROKEN: quinn-proto tests fail on a patched tree that pass on main (see above)"
  status=1
fi
if [[ $MATRIX_OK -eq 0 ]]; then
  say "BROKEN: a run failed that should not (see above)"
  status=1
fi
exit $status
