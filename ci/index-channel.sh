#!/usr/bin/env bash
# The local channel (channel/) of a platform from its build jobs' artifacts, each
# downloaded into its own folder under artifacts/: every file checked against the sha256
# its job published (artifacts/<name>/manifest.json), two different files of one name
# refused, then indexed.
#
#   ci/index-channel.sh linux-64
# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "$0")/common.sh"

[ $# -eq 1 ] || die 2 "usage: ci/index-channel.sh PLATFORM (linux-64 or win-64)"
platform="$1"
channel="${CHANNEL:-channel}"
artifacts="${ARTIFACTS:-artifacts}"

if [ -d "$artifacts" ]; then
    step "the build artifacts in $artifacts/, verified, into $channel/"
    gpuforge ci collect "$artifacts" --channel "$channel" || exit 1
fi

step "packages for $platform in $channel/"
shopt -s nullglob
packages=("$channel/$platform"/*.conda "$channel/$platform"/*.tar.bz2 "$channel/noarch"/*.conda "$channel/noarch"/*.tar.bz2)
[ ${#packages[@]} -gt 0 ] || die 2 "no packages in $channel/$platform or $channel/noarch: build them (ci/build.sh) or download the build artifacts first"
printf '    %s\n' "${packages[@]}"

step "conda index $channel"
need_conda "indexing the channel" build
# conda-index (a conda-build dependency) provides `conda index`; older ones only the module.
conda index "$channel" || conda run -n base python -m conda_index "$channel"
ls "$channel/$platform/repodata.json"
