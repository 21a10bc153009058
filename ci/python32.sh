#!/usr/bin/env bash
# A real 32-bit CPython (Debian's i386 python3.11) for the doctor's python_32bit
# test, unpacked into the gpuforge cache without installing anything i386
# system-wide (FACTS.md). Result: $GPUFORGE_CACHE/python32/python3 (default
# cache ~/.cache/gpuforge), a wrapper that runs it through its own loader.
set -euo pipefail

CACHE="${GPUFORGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpuforge}"
DEST="$CACHE/python32"
WRAPPER="$DEST/python3"
if [ -x "$WRAPPER" ] && "$WRAPPER" -c 'import struct, sys; sys.exit(struct.calcsize("P") != 4)'; then
    echo "32-bit CPython ready: $WRAPPER"
    exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
WORK="$(mktemp -d)"
ADDED_I386=0
cleanup() {
    rm -rf "$WORK"
    # leave apt as it was: no i386 index for later `apt-get update`s to fetch
    if [ "$ADDED_I386" = 1 ]; then
        $SUDO dpkg --remove-architecture i386 || true
    fi
}
trap cleanup EXIT
if ! dpkg --print-foreign-architectures | grep -qx i386; then
    $SUDO dpkg --add-architecture i386
    ADDED_I386=1
fi
$SUDO apt-get update -qq || echo "apt-get update reported errors (a mirror syncing?): trying the download anyway"
(cd "$WORK" && apt-get download -qq python3.11-minimal:i386 libpython3.11-minimal:i386 \
    libpython3.11-stdlib:i386 libc6:i386 zlib1g:i386 libexpat1:i386 libffi8:i386)
rm -rf "$DEST"
mkdir -p "$DEST/root"
for deb in "$WORK"/*.deb; do
    dpkg -x "$deb" "$DEST/root"
done

cat > "$WRAPPER" <<'WRAP'
#!/bin/sh
# Debian's i386 python3.11, run through its own loader (no i386 libraries installed system-wide).
D="$(dirname "$(readlink -f "$0")")/root"
PYTHONHOME="$D/usr" exec "$D/lib/ld-linux.so.2" \
    --library-path "$D/usr/lib/i386-linux-gnu:$D/lib/i386-linux-gnu" "$D/usr/bin/python3.11" "$@"
WRAP
chmod +x "$WRAPPER"
"$WRAPPER" -c 'import struct, json, ctypes, subprocess; print("32-bit CPython ready:", struct.calcsize("P") * 8, "bits")'
echo "$WRAPPER"
