#!/usr/bin/env bash
# For each environment file of a platform (envs/*-linux64.yml or envs/*-win64.yml):
# `nox -s gpu_smoke -- --target env:<env> --channel channel --report-dir reports/<env>`
# creates it against the local channel (channel/) plus the file's own channels and
# proves it. Every env runs even when one fails; the exit code is 1 if any did.
#
#   ci/smoke.sh linux-64
# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "$0")/common.sh"

[ $# -eq 1 ] || die 2 "usage: ci/smoke.sh PLATFORM (linux-64 or win-64)"
platform="$1"
channel="${CHANNEL:-channel}"

step "environment files for $platform"
envs_text="$(gpuforge ci envs "$platform")" || exit 2
mapfile -t envs <<<"$envs_text"
printf '    %s\n' "${envs[@]}"

[ -d "$channel" ] || die 2 "$channel: no such channel folder: build the packages first (ci/build.sh)"

step "conda"
need_conda "creating the environments"
conda --version

failed=()
for env_file in "${envs[@]}"; do
    name="$(basename "$env_file" .yml)"
    # gpu_smoke makes the env from the file with channel/ first (gpuforge's own packages
    # from it), runs the checks in it, and reports a failed solve as a failed target.
    step "$name: nox -s gpu_smoke -- --target env:$name --channel $channel --report-dir reports/$name"
    if ! "$PYTHON" -m nox -s gpu_smoke -- --target "env:$name" --channel "$channel" \
            --report-dir "reports/$name"; then
        failed+=("$name")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    die 1 "failed: ${failed[*]}"
fi
say "smoke: ${#envs[@]} environment(s) passed on $platform"
