#!/usr/bin/env bash
# Build one CI job's recipes with conda-build into the local channel (channel/).
#
#   ci/build.sh linux-64                       libgpuarray for linux-64 (the base stage)
#   ci/build.sh linux-64_python3.6_numpy1.16   pygpu + theano for that variant, on the
#                                              libgpuarray already in channel/
#
# Job names: `gpuforge ci matrix`. Each job's conda-build config is ci/variants/<job>.yaml,
# generated from recipes/conda_build_config.yaml. conda-build writes into its own output
# folder (build/conda-out): what is there is what this job built, copied to artifact/ with
# its sha256 (artifact/manifest.json) for the job's artifact. A variant job first verifies
# the base job's artifact (downloaded into artifacts/<name>/) into channel/ and indexes it.
# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "$0")/common.sh"

[ $# -eq 1 ] || die 2 "usage: ci/build.sh JOB (the job names: gpuforge ci matrix)"
job="$1"
platform="${job%%_*}"
channel="${CHANNEL:-channel}"
artifacts="${ARTIFACTS:-artifacts}"
out="build/conda-out"
artifact="artifact"

step "generated CI files match recipes/conda_build_config.yaml"
gpuforge ci render --check || die 1 "ci/variants/ or the workflow drifted: run \`gpuforge ci render\` and commit"

step "conda build arguments for $job"
args_text="$(gpuforge ci build-args "$job" --channel "$channel" --output "$out")" || exit 2
mapfile -t args <<<"$args_text"
printf '    conda build'
printf ' %q' "${args[@]}"
printf '\n'

step "host is $platform"
host="$(host_platform)"
[ "$host" = "$platform" ] || die 2 "job $job builds for $platform, this machine is $host"

if [ "$platform" = win-64 ]; then
    step "MSVC (cl.exe, nmake.exe) on PATH for the vs2019 compiler"
    for program in cl.exe nmake.exe; do
        command -v "$program" >/dev/null || die 3 "$program is not on PATH: run ci/msvc.sh first (it adds" \
            "the MSVC 14.29 toolset to Visual Studio and loads it into the job)"
        say "    $(command -v "$program")"
    done
fi

step "conda and conda-build"
need_conda "conda build" build
conda build --version

if [ -d "$artifacts" ]; then
    step "what this job builds on: $artifacts/*/ verified against their manifests into $channel/"
    gpuforge ci collect "$artifacts" --channel "$channel" || exit 1
    conda index "$channel" || conda run -n base python -m conda_index "$channel"
fi

step "conda build (recipes and config above)"
rm -rf "$out" "$artifact"
mkdir -p "$out"
channel_retry conda build "${args[@]}"

step "the packages this job built, with their sha256, into $artifact/"
gpuforge ci outputs "$job" --from "$out" --to "$artifact"
