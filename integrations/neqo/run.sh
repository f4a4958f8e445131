#!/usr/bin/env bash
# Build real neqo (Mozilla's QUIC stack) with our harness patch, run neqo's
# own transport tests, and measure bulk transfers in neqo's deterministic
# test-fixture simulator, variant by variant.  See README.md next to this
# file.  Everything built goes to $WORK_DIR (default target/neqo-integration).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
HARNESS=("python3" "$HERE/harness.py")
# Bump when the way trees are prepared changes, so old trees are rebuilt.
PREP_VERSION=2
NSS_MIN=3.126

usage() {
  cat <<'EOF'
usage: integrations/neqo/run.sh [options]

  --quick          CI subset: variants neqo-main, unlimited, neqo-fc+pacing (two
                   trees to build); mission path at 20, 50, 80 ms; bench path at 40 ms
  --scoreboard     the scoreboard instead of the matrix: every row (bulk, short,
                   many streams, cable) at 21 RTTs, every variant, 21-RTT means;
                   with --quick: 3 RTTs (the 1 GiB rows at 60 ms alone) and the variants
                   neqo-main, neqo-main+pacing, neqo-firefox, upstream-5, neqo-fc+pacing,
                   unlimited
  --json FILE      write the results (tests and every run) as JSON
  --skip-tests     do not run neqo's test suite
  --only-matrix    no preparing, building or testing: run the matrix with the
                   binaries of the last build (fails if the patches changed since)
  --variants LIST  comma-separated, default neqo-main,unlimited,neqo-fc,neqo-main+pacing,neqo-fc+pacing
                   (only the trees these need are built); also neqo-firefox,
                   upstream-1 ... upstream-5, upstream-5-nopacing, upstream-5-firefox
                   (and the -nopacing, -firefox twins of upstream-3 and upstream-4)
  --paths LIST     comma-separated, default mission,bench (also: cable, 200 Mbit/s;
                   jitter10, jitter30: mission with up to 10 / 30 ms more one way;
                   h3bench: neqo-http3's streams-flow-controlled link, 800 Mbit/s, 2 MB queue;
                   bufferbloat: 50 Mbit/s, a 50-BDP queue; standing0.5: mission where
                   another flow keeps 0.5 BDP in the queue from 2 s)
  --rtts LIST      RTTs in ms, comma-separated (default: 20,30,40,50,60,80,100)
  --bytes N        bytes per transfer (default 1073741824 = 1 GiB)
  --streams K      send --bytes on each of K streams at once (default 1)
  --requests       the client opens the streams (bidirectional, one empty
                   request each) and the server answers with --bytes, as in
                   HTTP/3; without it the server opens unidirectional streams
  --warm           as --requests, but the client first reads the response to one
                   request of 64 MiB and then opens the K requests (a warm connection)
  --jobs N         simulations at a time (default 2)
  --qlog DIR       keep neqo's own qlog of every run: one folder per run under DIR
                   (e.g. DIR/mission-neqo-fc+pacing-50ms-10MiB/) with the client's
                   and the server's .sqlog (qvis's congestion view: the server's);
                   keep --bytes small (10 MiB: 3 MB client, 6 MB server); not with
                   --scoreboard; check: node integrations/neqo/qvis_check.mjs DIR
  -h, --help       this text

environment: WORK_DIR, NEQO_SRC, NSS_RS_SRC, NSS_DEBS, NSS_DIR, FC_CRATE (see DETAILS.md, "Pointing it elsewhere")
EOF
}

step() { printf '\n== %s\n' "$*"; }
say() { printf '   %s\n' "$*"; }
die() { printf 'run.sh: error: %s\n' "$*" >&2; exit 1; }

QUICK=0 SCOREBOARD=0 JSON="" QLOG="" SKIP_TESTS=0 ONLY_MATRIX=0
VARIANTS="" PATHS_=mission,bench RTTS="" BYTES=1073741824 STREAMS=1 JOBS=2 REQUESTS=()
ARGS=("$@")
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --scoreboard) SCOREBOARD=1 ;;
    --json) JSON=$(realpath -m "${2:?--json needs a file}"); shift ;;
    --qlog) QLOG=$(realpath -m "${2:?--qlog needs a folder}"); shift ;;
    --skip-tests) SKIP_TESTS=1 ;;
    --only-matrix) ONLY_MATRIX=1 SKIP_TESTS=1 ;;
    --variants) VARIANTS=${2:?}; shift ;;
    --paths) PATHS_=${2:?}; shift ;;
    --rtts) RTTS=${2:?}; shift ;;
    --bytes) BYTES=${2:?}; shift ;;
    --streams) STREAMS=${2:?}; shift ;;
    --requests) REQUESTS=(--requests) ;;
    --warm) REQUESTS=(--warm) ;;
    --jobs) JOBS=${2:?}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown option $1" ;;
  esac
  shift
done
if [[ $SCOREBOARD -eq 1 && -n $QLOG ]]; then
  die "--qlog is for the matrix (pick the runs with --variants, --paths, --rtts, --bytes, --streams), not --scoreboard"
fi
if [[ $SCOREBOARD -eq 1 ]]; then
  [[ $PATHS_ == mission,bench && -z $RTTS && $STREAMS == 1 && $BYTES == 1073741824 && ${#REQUESTS[@]} -eq 0 ]] ||
    die "--scoreboard has its own rows and RTTs; --paths, --rtts, --bytes, --streams, --requests and --warm do not apply"
fi
if [[ -z $VARIANTS && $SCOREBOARD -eq 1 ]]; then
  if [[ $QUICK -eq 1 ]]; then
    VARIANTS=neqo-main,neqo-main+pacing,neqo-firefox,upstream-5,neqo-fc+pacing,unlimited
  else
    VARIANTS=neqo-main,neqo-main+pacing,neqo-firefox,upstream-1,upstream-2,upstream-3,upstream-4,upstream-5,upstream-5-nopacing,upstream-5-firefox,neqo-fc+pacing,unlimited
  fi
elif [[ -z $VARIANTS ]]; then
  if [[ $QUICK -eq 1 ]]; then
    VARIANTS=neqo-main,unlimited,neqo-fc+pacing
  else
    VARIANTS=neqo-main,unlimited,neqo-fc,neqo-main+pacing,neqo-fc+pacing
  fi
fi

WORK_DIR=$(realpath -m "${WORK_DIR:-$ROOT/target/neqo-integration}")
NEQO_SRC=$(realpath -m "${NEQO_SRC:-$ROOT/../shared/vendor/neqo-80ca01e.tar.gz}")
NSS_RS_SRC=$(realpath -m "${NSS_RS_SRC:-$ROOT/../shared/vendor/nss-rs-63c6304.tar.gz}")
NSS_DEBS=$(realpath -m "${NSS_DEBS:-$ROOT/../shared/vendor/nss}")
FC_CRATE=$(realpath -m "${FC_CRATE:-$ROOT/neqo-fc}")
export CARGO_TARGET_DIR="$WORK_DIR/cargo-target" # shared by both trees
export CARGO_PROFILE_BENCH_LTO=false             # faster builds; same simulated results
export CARGO_INCREMENTAL=0
mkdir -p "$WORK_DIR/logs" "$WORK_DIR/bin"

T_START=$SECONDS
declare -A TIMES=()
timed() { # timed LABEL SECONDS_AT_START
  TIMES[$1]=$((SECONDS - $2))
}

shopt -s nullglob
HARNESS_PATCHES=("$HERE"/patches/harness/*.patch)
shopt -u nullglob
[[ ${#HARNESS_PATCHES[@]} -gt 0 ]] || die "no patches in $HERE/patches/harness"

# The trees: each is neqo + the harness patches + these patch folders, in
# this order; `folder:A-B` takes the folder's patches A to B (1-based, in
# name order). `main` is neqo as it is; `pacing` fixes neqo's pacer
# (upstream/0001: ACK-only packets spend no pacing credit); `upstream-N` is
# the upstream series up to patch N (from `upstream-3` on also with
# `check/`, a test that its auto-tuning is neqo-fc's ExcessTuner, test code
# only), `upstream-nopacing` patches 2-3 and `upstream-nopacing-N` patches
# 2-N without the pacer fix; `fc` swaps neqo's receive flow control for
# neqo-fc's (the full integration), `fc-pacing` with the pacer fix.
TREE_NAMES=(main pacing upstream-2 upstream-3 upstream-4 upstream-5 upstream-nopacing upstream-nopacing-4 upstream-nopacing-5 fc fc-pacing)
declare -A TREE_FOLDERS=([main]="" [pacing]="upstream:1-1" [upstream-2]="upstream:1-2"
  [upstream-3]="upstream:1-3 check" [upstream-4]="upstream:1-4 check"
  [upstream-5]="upstream:1-5 check"
  [upstream-nopacing]="upstream:2-3" [upstream-nopacing-4]="upstream:2-4" [upstream-nopacing-5]="upstream:2-5"
  [fc]="neqo-fc" [fc-pacing]="upstream:1-1 neqo-fc")
# Each tree but main builds its neqo crates with its own codegen-units (the
# same code) so that the shared target directory keeps them apart.
declare -A TREE_CGU=([main]=0 [fc]=16 [pacing]=15 [fc-pacing]=14 [upstream-2]=13
  [upstream-3]=12 [upstream-4]=11 [upstream-nopacing]=10 [upstream-nopacing-4]=9
  [upstream-5]=8 [upstream-nopacing-5]=7)
# The tree each variant runs on (harness.py VARIANTS says the same).
declare -A VARIANT_TREE=([neqo-main]=main [unlimited]=main [neqo-firefox]=main
  [neqo-main+pacing]=pacing [upstream-1]=pacing [upstream-2]=upstream-2
  [upstream-3]=upstream-3 [upstream-3-nopacing]=upstream-nopacing [upstream-3-firefox]=upstream-3
  [upstream-4]=upstream-4 [upstream-4-nopacing]=upstream-nopacing-4 [upstream-4-firefox]=upstream-4
  [upstream-5]=upstream-5 [upstream-5-nopacing]=upstream-nopacing-5 [upstream-5-firefox]=upstream-5
  [neqo-fc]=fc [neqo-fc+pacing]=fc-pacing)
declare -A WANTED=([main]=1) # main: the reference for neqo's tests
for v in ${VARIANTS//,/ }; do
  [[ -n ${VARIANT_TREE[$v]:-} ]] || die "unknown variant $v (known: ${!VARIANT_TREE[*]})"
  WANTED[${VARIANT_TREE[$v]}]=1
done

# tree_patches NAME -> the tree's patches beyond the harness, one per line
tree_patches() {
  local f from to all
  shopt -s nullglob
  for f in ${TREE_FOLDERS[$1]}; do
    if [[ $f == *:* ]]; then
      from=${f#*:} to=${from#*-} from=${from%-*}
      all=("$HERE/patches/${f%%:*}"/*.patch)
      printf '%s\n' "${all[@]:from-1:to-from+1}"
    else
      printf '%s\n' "$HERE/patches/$f"/*.patch
    fi
  done
  shopt -u nullglob
}

# tree_missing NAME -> the patch folders (or patches) the tree lacks
tree_missing() {
  local f from to n
  for f in ${TREE_FOLDERS[$1]}; do
    if [[ $f == *:* ]]; then
      from=${f#*:} to=${from#*-}
      n=$(compgen -G "$HERE/patches/${f%%:*}/*.patch" | wc -l)
      [[ $n -ge $to ]] || printf ' patches/%s/ (%s of %s)' "${f%%:*}" "$n" "$to"
    else
      compgen -G "$HERE/patches/$f/*.patch" >/dev/null || printf ' patches/%s/' "$f"
    fi
  done
}

version_ge() { # version_ge HAVE WANT
  [[ -n $1 ]] && printf '%s\n%s\n' "$2" "$1" | sort -V -C
}

APT_UPDATED=0
apt_install() { # apt_install REASON PACKAGE...
  local reason=$1
  shift
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || die "$reason: install $* (apt-get install -y $*); not root and no sudo"
    sudo=(sudo -n)
  fi
  command -v apt-get >/dev/null || die "$reason: install $* with your package manager"
  say "$reason: installing $* with apt-get"
  local log="$WORK_DIR/logs/apt.log"
  if [[ $APT_UPDATED -eq 0 ]]; then
    "${sudo[@]}" apt-get update -qq >>"$log" 2>&1 || { tail -n 20 "$log" >&2; die "apt-get update failed; log: $log"; }
    APT_UPDATED=1
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >>"$log" 2>&1 ||
    { tail -n 20 "$log" >&2; die "apt-get install $* failed; log: $log"; }
}

have_libclang() {
  [[ -n ${LIBCLANG_PATH:-} ]] && return 0
  ldconfig -p 2>/dev/null | grep -Eq 'libclang(-[0-9.]+)?\.so' && return 0
  compgen -G '/usr/lib/llvm-*/lib/libclang.so*' >/dev/null || compgen -G '/usr/lib/llvm-*/lib/libclang-[0-9]*.so*' >/dev/null
}

# ---------------------------------------------------------------- 1. tools
step "tools"
for t in cargo python3 git tar gzip sha256sum; do
  command -v "$t" >/dev/null || die "$t not found"
done
if [[ $ONLY_MATRIX -eq 0 ]]; then
  command -v pkg-config >/dev/null || apt_install "pkg-config is missing (nss-rs finds NSS with it)" pkg-config
  have_libclang || apt_install "libclang is missing (bindgen in nss-rs needs it)" libclang-dev
fi
say "$(cargo --version), $(python3 --version)"

# ------------------------------------------------------------------ 2. NSS
step "NSS (nss-rs needs >= $NSS_MIN at build and run time)"
NSS_INFO=""
if [[ -n ${NSS_DIR:-} ]]; then
  # nss-rs's own mechanism: an NSS source checkout it builds (or, with
  # NSS_PREBUILT=1, has built) into $NSS_DIR/../dist.
  export NSS_DIR
  export LD_LIBRARY_PATH="$(dirname "$NSS_DIR")/dist/Release/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  NSS_INFO="NSS_DIR"
  say "using NSS_DIR=$NSS_DIR (nss-rs builds and links it itself)"
else
  sys_ver=$(pkg-config --modversion nss 2>/dev/null || true)
  if version_ge "$sys_ver" "$NSS_MIN"; then
    NSS_INFO="system $sys_ver"
    say "system NSS $sys_ver"
  else
    say "system NSS is ${sys_ver:-absent}; using the packages in $NSS_DEBS"
    shopt -s nullglob
    debs=("$NSS_DEBS"/*.deb)
    shopt -u nullglob
    [[ ${#debs[@]} -gt 0 ]] || die "no .deb files in NSS_DEBS=$NSS_DEBS (need NSS >= $NSS_MIN)"
    command -v dpkg >/dev/null || die "dpkg not found (needed to unpack $NSS_DEBS)"
    nss_root="$WORK_DIR/nss"
    stamp=$("${HARNESS[@]}" fingerprint "${debs[@]}")
    if [[ -f $nss_root/.stamp && $(<"$nss_root/.stamp") == "$stamp" ]]; then
      say "reusing $nss_root"
    else
      rm -rf "$nss_root"
      mkdir -p "$nss_root"
      for d in "${debs[@]}"; do
        say "dpkg -x $(basename "$d")"
        dpkg -x "$d" "$nss_root"
      done
      echo "$stamp" >"$nss_root/.stamp"
    fi
    pc=$(find "$nss_root" -name nss.pc -print -quit)
    [[ -n $pc ]] || die "no nss.pc in $NSS_DEBS (is libnss3-dev there?)"
    export PKG_CONFIG_LIBDIR=$(dirname "$pc")
    export PKG_CONFIG_SYSROOT_DIR=$nss_root
    export PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 # else pkgconf drops -L and the system NSS gets linked
    libdir=$(dirname "$PKG_CONFIG_LIBDIR")
    export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    deb_ver=$(pkg-config --modversion nss)
    version_ge "$deb_ver" "$NSS_MIN" || die "NSS in $NSS_DEBS is $deb_ver, need >= $NSS_MIN"
    NSS_INFO="$deb_ver from .deb packages"
    say "NSS $deb_ver unpacked in $nss_root (PKG_CONFIG_LIBDIR, LD_LIBRARY_PATH set)"
  fi
fi

# --------------------------------------------------------------- 3. sources
step "sources"
[[ -e $NEQO_SRC ]] || die "NEQO_SRC=$NEQO_SRC does not exist"
if [[ -f $NEQO_SRC ]]; then
  NEQO_FP=$(sha256sum "$NEQO_SRC" | cut -d' ' -f1)
  NEQO_COMMIT=${NEQO_COMMIT:-$(gzip -dc "$NEQO_SRC" 2>/dev/null | git get-tar-commit-id 2>/dev/null || true)}
else
  NEQO_FP=$("${HARNESS[@]}" fingerprint "$NEQO_SRC")
  NEQO_COMMIT=${NEQO_COMMIT:-$(git -C "$NEQO_SRC" rev-parse HEAD 2>/dev/null || true)}
  if [[ -n $NEQO_COMMIT && -n $(git -C "$NEQO_SRC" status --porcelain 2>/dev/null) ]]; then
    NEQO_COMMIT="$NEQO_COMMIT-dirty"
  fi
fi
NEQO_COMMIT=${NEQO_COMMIT:-unknown}
say "neqo:   $NEQO_SRC (commit $NEQO_COMMIT)"

[[ -e $NSS_RS_SRC ]] || die "NSS_RS_SRC=$NSS_RS_SRC does not exist"
if [[ -f $NSS_RS_SRC ]]; then
  NSS_RS_DIR="$WORK_DIR/nss-rs"
  stamp=$(sha256sum "$NSS_RS_SRC" | cut -d' ' -f1)
  if [[ -f $NSS_RS_DIR/.stamp && $(<"$NSS_RS_DIR/.stamp") == "$stamp" ]]; then
    say "nss-rs: reusing $NSS_RS_DIR"
  elif [[ $ONLY_MATRIX -eq 0 ]]; then
    rm -rf "$NSS_RS_DIR"
    mkdir -p "$NSS_RS_DIR"
    tar -xzf "$NSS_RS_SRC" -C "$NSS_RS_DIR" --strip-components=1
    echo "$stamp" >"$NSS_RS_DIR/.stamp"
    say "nss-rs: unpacked $NSS_RS_SRC into $NSS_RS_DIR"
  fi
else
  NSS_RS_DIR=$NSS_RS_SRC
  say "nss-rs: $NSS_RS_DIR"
fi

# A tree is built only if every one of its patch folders holds a patch.
TREES=()
declare -A TREE_SKIP=()
for tree in "${TREE_NAMES[@]}"; do
  [[ -n ${WANTED[$tree]:-} ]] || continue
  missing=$(tree_missing "$tree")
  if [[ -n $missing ]]; then
    TREE_SKIP[$tree]="no patch in$missing"
    say "$tree tree: skipped (${TREE_SKIP[$tree]})"
  else
    TREES+=("$tree")
    say "$tree tree: neqo + harness${TREE_FOLDERS[$tree]:+ + ${TREE_FOLDERS[$tree]// / + }}"
  fi
done

# ----------------------------------------------------------------- 4. trees
# tree_stamp NAME PATCH... -> what a tree is made of; a tree is rebuilt from
# scratch when this changes.
tree_stamp() {
  local name=$1
  shift
  echo "prep=$PREP_VERSION tree=$name neqo=$NEQO_FP"
  local p
  for p in "$@"; do
    echo "$(basename "$p") $(sha256sum "$p" | cut -d' ' -f1)"
  done
}

# prepare_tree NAME NUM_HARNESS_PATCHES PATCH...
prepare_tree() {
  local name=$1 nharness=$2
  shift 2
  local dir="$WORK_DIR/trees/$name" stamp
  stamp=$(tree_stamp "$name" "$@")
  if [[ -f $dir/.fc-harness-stamp && $(<"$dir/.fc-harness-stamp") == "$stamp" ]]; then
    say "$name: reusing $dir (same neqo, same patches)"
  else
    say "$name: fresh tree in $dir"
    rm -rf "$dir"
    mkdir -p "$dir"
    # -m: files get the current time, so cargo rebuilds whatever a fresh
    # tree holds even if an older build sits in the shared target directory.
    if [[ -f $NEQO_SRC ]]; then
      tar -xzmf "$NEQO_SRC" -C "$dir" --strip-components=1
    else
      tar -C "$NEQO_SRC" --exclude=./target --exclude=./.git -cf - . | tar -C "$dir" -xmf -
    fi
    # The tree is its own git repository: the base commit is neqo plus the
    # harness patches, so `git diff` there shows exactly the neqo-fc change.
    local g=(git -C "$dir" -c user.name=fc-harness -c user.email=fc-harness@invalid -c commit.gpgsign=false)
    "${g[@]}" init -q
    printf '%s\n' /.fc-harness-stamp /.cargo/config.toml /neqo-fc/ >>"$dir/.git/info/exclude"
    "${g[@]}" add -A
    "${g[@]}" commit -q -m "neqo $NEQO_COMMIT"
    local i=0 p
    for p in "$@"; do
      "${g[@]}" apply --whitespace=nowarn "$p" || die "$(basename "$p") does not apply to $NEQO_SRC"
      say "$name: applied $(basename "$(dirname "$p")")/$(basename "$p")"
      i=$((i + 1))
      if [[ $i -eq $nharness ]]; then
        # Let cargo settle Cargo.lock for the local nss-rs now, so that the
        # lock file is part of the base commit and not of `git diff`.
        "${HARNESS[@]}" cargo-config "$dir" "$NSS_RS_DIR"
        local host
        host=$(rustc -vV | sed -n 's/^host: //p')
        (cd "$dir" && cargo metadata -q --format-version 1 --filter-platform "$host" >/dev/null 2>"$WORK_DIR/logs/resolve-$name.log") ||
          die "cargo cannot resolve the $name tree; see $WORK_DIR/logs/resolve-$name.log"
        "${g[@]}" add -A
        "${g[@]}" commit -q -m "fc-harness patches"
      fi
    done
    echo "$stamp" >"$dir/.fc-harness-stamp"
  fi
  if [[ $# -gt 0 ]] && grep -qs 'neqo-fc = { path = "../neqo-fc" }' "$@"; then
    # neqo-fc at the workspace root, so a patch can say
    # `neqo-fc = { path = "../neqo-fc" }`: a generated manifest plus a src/
    # symlink into this repository (harness.py crate-shim says why not a
    # plain symlink).
    [[ -f $FC_CRATE/Cargo.toml ]] || die "FC_CRATE=$FC_CRATE has no Cargo.toml"
    "${HARNESS[@]}" crate-shim "$FC_CRATE" "$dir/neqo-fc"
    say "$name: neqo-fc/src -> $FC_CRATE/src"
  fi
  local distinct=()
  [[ ${TREE_CGU[$name]} -ne 0 ]] && distinct=(--distinct "${TREE_CGU[$name]}")
  # nss-rs from NSS_RS_SRC instead of github, as a [patch] in cargo's config
  # (no neqo file changes); for every tree but main also its own artifact
  # names.
  "${HARNESS[@]}" cargo-config "$dir" "$NSS_RS_DIR" "${distinct[@]}"
}

if [[ $ONLY_MATRIX -eq 0 ]]; then
  step "trees in $WORK_DIR/trees"
  t=$SECONDS
  for tree in "${TREES[@]}"; do
    mapfile -t extra < <(tree_patches "$tree")
    prepare_tree "$tree" "${#HARNESS_PATCHES[@]}" "${HARNESS_PATCHES[@]}" "${extra[@]}"
  done
  timed prepare "$t"
fi

# ---------------------------------------------------------------- 5. builds
if [[ $ONLY_MATRIX -eq 0 ]]; then
  step "build the fc_matrix bench (bench profile, LTO off; ~4 min cold per 2 cores)"
  t=$SECONDS
  for tree in "${TREES[@]}"; do
    log="$WORK_DIR/logs/build-$tree.log"
    say "$tree: cargo bench -p neqo-transport --features bench --bench fc_matrix --no-run  (log: $log)"
    t1=$SECONDS
    if ! (cd "$WORK_DIR/trees/$tree" &&
      cargo bench -p neqo-transport --features bench --bench fc_matrix --no-run \
        --message-format=json-render-diagnostics 2>"$log" |
      "${HARNESS[@]}" bench-exe >"$WORK_DIR/bin/$tree.exe"); then
      tail -n 40 "$log" >&2
      die "building neqo ($tree tree) failed; full log: $log"
    fi
    cp "$WORK_DIR/trees/$tree/.fc-harness-stamp" "$WORK_DIR/bin/$tree.stamp"
    say "$tree: built in $((SECONDS - t1)) s: $(<"$WORK_DIR/bin/$tree.exe")"
  done
  timed build "$t"
fi

exe_for() { # exe_for TREE -> path of the tree's fc_matrix binary, checked fresh
  local tree=$1 exe stamp
  [[ -f $WORK_DIR/bin/$tree.exe ]] || die "no $tree build yet; run without --only-matrix first"
  exe=$(<"$WORK_DIR/bin/$tree.exe")
  [[ -x $exe ]] || die "$exe is gone; run without --only-matrix"
  local extra
  mapfile -t extra < <(tree_patches "$tree")
  stamp=$(tree_stamp "$tree" "${HARNESS_PATCHES[@]}" "${extra[@]}")
  [[ $(<"$WORK_DIR/bin/$tree.stamp") == "$stamp" ]] || die "the $tree build is older than the patches; run without --only-matrix"
  echo "$exe"
}

# ----------------------------------------------------------------- 6. tests
# The series we judge is the last tree built (fc-pacing when all patches are
# there); `main` tells which failures are not ours. --quick tests only those
# two; the quick scoreboard tests every tree but those whose patches another
# tested tree also has (pacing's 0001 is in upstream-5: CI's time); a full
# run tests every tree.
TESTS_JSON=""
TREE_TESTS=()
TESTS_BROKEN=0
if [[ $SKIP_TESTS -eq 0 ]]; then
  JUDGED=${TREES[-1]}
  if [[ $QUICK -eq 1 && $SCOREBOARD -eq 0 ]]; then
    order=("$JUDGED")
  elif [[ $QUICK -eq 1 ]]; then
    order=()
    for tree in "${TREES[@]:1}"; do
      covered=0
      for other in "${TREES[@]:1}"; do
        [[ $other == "$tree" ]] && continue
        # Every patch of $tree is in $other, and $other has more.
        if [[ -z $(comm -23 <(tree_patches "$tree" | sort) <(tree_patches "$other" | sort)) &&
          $(tree_patches "$other" | wc -l) -gt $(tree_patches "$tree" | wc -l) ]]; then
          covered=1
          say "$tree: tests skipped (--quick): its patches are all in the $other tree"
          break
        fi
      done
      [[ $covered -eq 1 ]] || order+=("$tree")
    done
  else
    order=("${TREES[@]:1}")
  fi
  [[ $JUDGED == main ]] && order=()
  order+=(main)
  step "neqo's tests: cargo test -p neqo-transport (dev profile) on ${order[*]}"
  t=$SECONDS
  for tree in "${order[@]}"; do
    log="$WORK_DIR/logs/test-$tree.log"
    t1=$SECONDS
    say "$tree: building the tests (log: $log)"
    if ! (cd "$WORK_DIR/trees/$tree" && cargo test -p neqo-transport --no-run >"$log" 2>&1); then
      tail -n 40 "$log" >&2
      die "neqo's tests do not build on the $tree tree; full log: $log"
    fi
    t2=$SECONDS
    say "$tree: built in $((t2 - t1)) s; running"
    (cd "$WORK_DIR/trees/$tree" && cargo test -p neqo-transport --no-fail-fast >>"$log" 2>&1) || true
    say "$tree: ran in $((SECONDS - t2)) s"
    "${HARNESS[@]}" tests "$log" "$WORK_DIR/logs/tests-$tree.json"
  done
  for tree in "${order[@]}"; do
    [[ $tree == main ]] && continue
    say "$tree against main:"
    "${HARNESS[@]}" classify "$WORK_DIR/logs/tests-$tree.json" "$WORK_DIR/logs/tests-main.json" \
      "$WORK_DIR/logs/tests-vs-main-$tree.json" || TESTS_BROKEN=1
  done
  if [[ $JUDGED == main ]]; then
    say "no patches beyond the harness: the judged tree is main"
    "${HARNESS[@]}" classify "$WORK_DIR/logs/tests-main.json" "$WORK_DIR/logs/tests-main.json" \
      "$WORK_DIR/logs/tests-vs-main-main.json" || TESTS_BROKEN=1
  fi
  TESTS_JSON="$WORK_DIR/logs/tests-vs-main-$JUDGED.json"
  TREE_TESTS=()
  for tree in "${order[@]}"; do
    [[ $tree == main ]] || TREE_TESTS+=(--tree-tests "$tree=$WORK_DIR/logs/tests-vs-main-$tree.json")
  done
  timed tests "$t"
fi

# ---------------------------------------------------- 7. matrix or scoreboard
# What both runners take: the variants, each tree's binary, the trees skipped.
common=(--variants "$VARIANTS" --jobs "$JOBS" --neqo-commit "$NEQO_COMMIT"
  --command "integrations/neqo/run.sh ${ARGS[*]}" --env-info "NSS $NSS_INFO; $(rustc --version)")
for tree in "${TREES[@]}"; do
  exe=$(exe_for "$tree") || exit 1
  common+=(--exe "$tree=$exe")
done
for tree in "${!TREE_SKIP[@]}"; do
  common+=(--skip-reason "$tree=${TREE_SKIP[$tree]}")
done
[[ $QUICK -eq 1 ]] && common+=(--quick)
[[ -n $JSON ]] && common+=(--json "$JSON")
MATRIX_OK=1
t=$SECONDS
if [[ $SCOREBOARD -eq 1 ]]; then
  step "scoreboard$([[ $QUICK -eq 1 ]] && echo ' (quick)')"
  "${HARNESS[@]}" scoreboard "${common[@]}" "${TREE_TESTS[@]}" || MATRIX_OK=0
  timed scoreboard "$t"
else
  step "matrix$([[ $QUICK -eq 1 ]] && echo ' (quick)')"
  matrix=("${common[@]}" --paths "$PATHS_" --bytes "$BYTES" --streams "$STREAMS" "${REQUESTS[@]}")
  [[ -n ${JUDGED:-} ]] && matrix+=(--tests-tree "$JUDGED")
  [[ -n $RTTS ]] && matrix+=(--rtts "$RTTS")
  [[ -n $QLOG ]] && matrix+=(--qlog "$QLOG")
  [[ -n $TESTS_JSON ]] && matrix+=(--tests-json "$TESTS_JSON")
  "${HARNESS[@]}" matrix "${matrix[@]}" || MATRIX_OK=0
  timed matrix "$t"
fi

# --------------------------------------------------------------- 8. summary
step "done in $((SECONDS - T_START)) s"
for k in prepare build tests matrix scoreboard; do
  [[ -n ${TIMES[$k]:-} ]] && say "$k: ${TIMES[$k]} s"
done
status=0
if [[ $TESTS_BROKEN -eq 1 ]]; then
  say "BROKEN: neqo tests fail on a patched tree that pass on main (see above)"
  status=1
fi
if [[ $MATRIX_OK -eq 0 ]]; then
  say "BROKEN: some simulation runs failed (see above)"
  status=1
fi
exit $status
