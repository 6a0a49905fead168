#!/usr/bin/env bash
# Old and new paper thumbnails side by side, one PNG per figure (issue 21's review aid).
#   bash docs/before_after.sh [OLD_REV] [OUT_DIR]
# OLD_REV defaults to e0f5573, the last thumbnails drawn before the fidelity work (issue 21);
# the new ones are the working tree's docs/figures. Needs ImageMagick (convert).
set -euo pipefail
old_rev=${1:-e0f5573}
out=${2:-build/before-after}
here=$(cd "$(dirname "$0")/.." && pwd)
command -v convert > /dev/null || { echo "before_after.sh: needs ImageMagick's convert (apt install imagemagick)" >&2; exit 1; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for new in "$here"/docs/figures/*.png; do
    name=$(basename "$new")
    label_new="new ($(git -C "$here" log -1 --format=%h -- "docs/figures/$name"))"
    if git -C "$here" cat-file -e "$old_rev:docs/figures/$name" 2> /dev/null; then
        git -C "$here" show "$old_rev:docs/figures/$name" > "$tmp/old.png"
        label_old="old ($old_rev)"
    else
        convert -size 600x400 xc:white -gravity center -font DejaVu-Sans -pointsize 22 \
            -annotate 0 "no such figure at $old_rev" "$tmp/old.png"
        label_old="old: none"
    fi
    convert \( "$tmp/old.png" -resize x480 -background white -gravity north -splice 0x36 \
                  -font DejaVu-Sans -pointsize 22 -annotate +0+6 "$label_old" \) \
            \( "$new" -resize x480 -background white -gravity north -splice 0x36 \
                  -font DejaVu-Sans -pointsize 22 -annotate +0+6 "$label_new" \) \
            -bordercolor white -border 8 +append "$out/$name"
    echo "$out/$name"
done
