#!/usr/bin/env bash
# Seeds a target's corpus from fixtures/ and runs the built fuzz target (see ../FUZZING.md).
#   fuzz/run.sh <target> [seconds]       (build first: RUSTC_BOOTSTRAP=1 cargo fuzz build -O)
# Crashes, timeouts and OOMs are written to fuzz/artifacts/<target>/ and the run goes on
# (-fork=1 -ignore_*), so a campaign always lasts its full time.
set -euo pipefail
cd "$(dirname "$0")"
target=$1
secs=${2:-600}
bin=${FUZZ_BIN_DIR:-target/x86_64-unknown-linux-gnu/release}/$target
case $target in
    detect_any | to_gltf | convert_bounded) fmts="bmf smf mdl elem skm" ;;
    # Seeds: .glb files written by the writer's tests, e.g.
    #   MODELS_GLTF_DUMP_DIR=$PWD/corpus/import_gltf cargo test -p models --test gltf_writer
    import_gltf | import_bounded) fmts="" ;;
    *) fmts=${target#*_} ;;
esac
mkdir -p "corpus/$target" "artifacts/$target" logs
for f in $fmts; do
    cp -n ../fixtures/"$f"/* "corpus/$target/" 2>/dev/null || true
    if [ -d ../fixtures/regressions/"$f" ]; then
        cp -n ../fixtures/regressions/"$f"/* "corpus/$target/" 2>/dev/null || true
    fi
done
exec "$bin" "corpus/$target" \
    -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="artifacts/$target/" -print_final_stats=1
