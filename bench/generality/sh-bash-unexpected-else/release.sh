#!/usr/bin/env bash
# release.sh -- build, sign and publish a release of the firmware image.
#
# Usage: ./release.sh [-n] [-s KEYID] VERSION
#   -n        dry run: print what would be uploaded, don't upload
#   -s KEYID  sign the artefacts with this GPG key (default: $RELEASE_KEY)
#
# The script is run by CI on tags and by maintainers by hand, so it mustn't assume a clean tree
# unless it's on CI. Don't add bashisms that busybox can't run in the recovery image's hook.

set -euo pipefail

readonly PROG=${0##*/}
readonly ROOT=$(cd "$(dirname "$0")/.." && pwd)
readonly BUILD_DIR="${BUILD_DIR:-$ROOT/build/release}"
readonly BOARDS=(rpi4 rpi5 imx8mm "beaglebone black")
DRY_RUN=0
SIGN_KEY=${RELEASE_KEY:-}
VERBOSE=${VERBOSE:-0}

log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { log "error: $*"; exit 1; }
debug() { [ "$VERBOSE" -gt 0 ] && log "debug: $*" || true; }

usage() {
    cat <<USAGE
Usage: $PROG [-n] [-s KEYID] VERSION

Builds the images for: ${BOARDS[*]}
Artefacts go to $BUILD_DIR/<version>/ and are uploaded to the "releases" bucket.
USAGE
}

while getopts ':ns:vh' opt; do
    case "$opt" in
        n) DRY_RUN=1 ;;
        s) SIGN_KEY=$OPTARG ;;
        v) VERBOSE=$((VERBOSE + 1)) ;;
        h) usage; exit 0 ;;
        :) die "option -$OPTARG needs an argument" ;;
        \?) die "unknown option -$OPTARG (try -h)" ;;
    esac
done
shift $((OPTIND - 1))

[ $# -eq 1 ] || { usage >&2; exit 2; }
VERSION=$1

# Versions look like 2024.04 or 2024.04.1 (point releases); release candidates get -rcN.
if ! [[ $VERSION =~ ^[0-9]{4}\.[0-9]{2}(\.[0-9]+)?(-rc[0-9]+)?$ ]]; then
    die "bad version '$VERSION' (expected YYYY.MM[.N][-rcN])"
fi

is_ci() { [ -n "${CI:-}" ] && [ "${CI:-}" != "false" ]; }

check_tree() {
    local dirty
    dirty=$(git -C "$ROOT" status --porcelain --untracked-files=no)
    if [ -n "$dirty" ]; then
        if is_ci; then
            die "working tree is dirty on CI:"$'\n'"$dirty"
        else
            log "warning: working tree has local changes; the image won't match the tag"
        fi
    fi
    local tag
    tag=$(git -C "$ROOT" describe --tags --exact-match 2>/dev/null || echo "")
    if [ "$tag" != "v$VERSION" ]; then
        log "warning: HEAD is '${tag:-untagged}', not v$VERSION"
    fi
}

board_config() {
    # maps a board name to its defconfig; names with spaces are quoted in BOARDS
    case "$1" in
        rpi4) echo "raspberrypi4_64_defconfig" ;;
        rpi5) echo "raspberrypi5_defconfig" ;;
        imx8mm) echo "imx8mm_evk_defconfig" ;;
        "beaglebone black") echo "beaglebone_defconfig" ;;
        *) return 1 ;;
    esac
}

build_board() {
    local board=$1 out=$2 config
    config=$(board_config "$board") || die "no defconfig for board '$board'"
    local slug=${board// /-}
    debug "building $board with $config into $out/$slug"
    mkdir -p "$out/$slug"
    if [ "$DRY_RUN" -eq 1 ]; then
        log "[dry run] make O=$out/$slug $config && make O=$out/$slug -j$(nproc)"
        return 0
    fi
    make -C "$ROOT" O="$out/$slug" "$config" >"$out/$slug/config.log" 2>&1 ||
        die "configuring $board failed (see $out/$slug/config.log)"
    make -C "$ROOT" O="$out/$slug" -j"$(nproc)" >"$out/$slug/build.log" 2>&1 ||
        die "building $board failed (see $out/$slug/build.log)"
    cp "$out/$slug/images/sdcard.img" "$out/tidewatch-$VERSION-$slug.img"
    xz -T0 -9 -f "$out/tidewatch-$VERSION-$slug.img"
}

checksums() {
    local dir=$1
    (
        cd "$dir"
        sha256sum -- *.img.xz >SHA256SUMS
        if [ -n "$SIGN_KEY" ]; then
            gpg --batch --yes --local-user "$SIGN_KEY" --armor --detach-sign SHA256SUMS
        fi
    )
}

upload() {
    local dir=$1 file
    local bucket="s3://releases.example.org/tidewatch/$VERSION"
    for file in "$dir"/*.img.xz "$dir"/SHA256SUMS*; do
        [ -e "$file" ] || continue
        if [ "$DRY_RUN" -eq 1 ]; then
            log "[dry run] would upload ${file##*/} to $bucket/"
        else
            aws s3 cp --only-show-errors "$file" "$bucket/${file##*/}"
        fi
    done
}

release_notes() {
    local previous
    previous=$(git -C "$ROOT" describe --tags --abbrev=0 "v$VERSION^" 2>/dev/null || echo "")
    echo "# tidewatch $VERSION"
    echo
    if [ -n "$previous" ]; then
        echo "Changes since $previous:"
        git -C "$ROOT" log --no-merges --format='- %s (%an)' "$previous..v$VERSION"
    else
        echo "First release."
    fi
    echo
    echo "Images: ${BOARDS[*]}"
}

main() {
    local out="$BUILD_DIR/$VERSION" board failed=()
    check_tree
    mkdir -p "$out"
    log "building $VERSION for ${#BOARDS[@]} boards"
    for board in "${BOARDS[@]}"; do
        if ! (build_board "$board" "$out"); then
            failed+=("$board")
        fi
    done
    if [ ${#failed[@]} -gt 0 ]; then
        # keep going on CI so that the other boards' images are still published
        if is_ci; then
            log "warning: failed boards: ${failed[*]}"
            for board in "${failed[@]}"; do
                log "  see $out/${board// /-}/build.log"
        else
            die "failed boards: ${failed[*]}"
        fi
    fi
    checksums "$out"
    release_notes >"$out/RELEASE_NOTES.md"
    upload "$out"
    log "done: $out"
}

main "$@"
