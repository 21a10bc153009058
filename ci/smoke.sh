#!/usr/bin/env bash
# For each environment file of a platform (envs/*-linux64.yml or envs/*-win64.yml):
# create it against the local channel (channel/) plus the file's own channels, then run
# `nox -s gpu_smoke -- --channel channel --report-dir reports/<env>`. Every env runs even
# when one fails; the exit code is 1 if any did.
#
#   ci/smoke.sh linux-64
# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "$0")/common.sh"

[ $# -eq 1 ] || die 2 "usage: ci/smoke.sh PLATFORM (linux-64 or win-64)"
platform="$1"
channel="${CHANNEL:-channel}"
work="build/ci"

step "environment files for $platform"
envs_text="$(gpuforge ci envs "$platform")" || exit 2
mapfile -t envs <<<"$envs_text"
printf '    %s\n' "${envs[@]}"

step "each with the local channel $channel/ first"
for env_file in "${envs[@]}"; do
    name="$(basename "$env_file" .yml)"
    gpuforge ci env-file "$env_file" --channel "$channel" --output "$work/envs/$name.yml" | sed 's/^/    /'
done

step "conda"
need_conda "creating the environments"
conda --version

failed=()
for env_file in "${envs[@]}"; do
    name="$(basename "$env_file" .yml)"
    prefix="$work/prefix/$name"
    step "$name: conda env create --prefix $prefix"
    rm -rf "$prefix"
    if ! conda env create --prefix "$prefix" --file "$work/envs/$name.yml"; then
        failed+=("$name (conda env create)")
        continue
    fi
    step "$name: nox -s gpu_smoke -- --channel $channel --report-dir reports/$name"
    if ! "$PYTHON" -m nox -s gpu_smoke -- --channel "$channel" --report-dir "reports/$name"; then
        failed+=("$name (gpu_smoke)")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    die 1 "failed: ${failed[*]}"
fi
say "smoke: ${#envs[@]} environment(s) passed on $platform"
