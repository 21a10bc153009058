#!/usr/bin/env bash
# Every environment file of a platform (envs/*-linux64[-variant].yml or *-win64[-variant].yml),
# created the way a user creates it, then proved with gpu_smoke inside it:
#
#   ci/smoke.sh linux-64            the env files as they are: their own channels
#                                   (defaults, pytorch; nodefaults), Theano and
#                                   theano-gpu-config from their pip: section
#   ci/smoke.sh linux-64 channel    the gpuforge-built variant of each file, made by
#                                   `gpuforge ci env-file FILE --channel channel`
#
# For each file: `conda env create --yes -p build/smoke/<pass>/<env> -f FILE`, then
# `conda run -p ...` (conda's activation, so theano-gpu-config's activate.d scripts run)
# `gpuforge smoke --python <env's python>`; reports under reports/<pass>/<env>. On a
# machine without an NVIDIA GPU (hosted runners) THEANO_FLAGS=device=cpu overrides the
# environment's device=cuda, and says so. Every env runs even when one fails; the exit
# code is 1 if any did, 4 if the only failures were channels that kept failing (conda env
# create through channel_retry: an infrastructure failure, not the env's).
# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "$0")/common.sh"

[ $# -ge 1 ] && [ $# -le 2 ] || die 2 "usage: ci/smoke.sh PLATFORM [CHANNEL] (linux-64 or win-64)"
platform="$1"
channel="${2:-}"
pass="${channel:+local-channel}"
pass="${pass:-as-published}"
work="$ROOT/build/smoke/$pass"

step "environment files for $platform ($pass)"
envs_text="$(gpuforge ci envs "$platform")" || exit 2
mapfile -t envs <<<"$envs_text"
printf '    %s\n' "${envs[@]}"
if [ -n "$channel" ] && [ ! -d "$channel" ]; then
    die 2 "$channel: no such channel folder: build the packages first (ci/build.sh)"
fi

step "conda"
need_conda "creating the environments"
conda --version

native() { # a path as conda and Windows Python take it (Git Bash on Windows)
    if command -v cygpath >/dev/null 2>&1; then cygpath -w "$1"; else printf '%s\n' "$1"; fi
}

if ! command -v nvidia-smi >/dev/null 2>&1; then
    export THEANO_FLAGS="device=cpu${THEANO_FLAGS:+,$THEANO_FLAGS}"
    say "    no NVIDIA GPU here: THEANO_FLAGS=$THEANO_FLAGS overrides the environments' device=cuda (the GPU half is not run)"
fi

failed=()
infrastructure=()
rm -rf "$work"
mkdir -p "$work"
for env_file in "${envs[@]}"; do
    name="$(basename "$env_file" .yml)"
    prefix="$work/$name"
    file="$env_file"
    if [ -n "$channel" ]; then
        file="$work/$name.yml"
        step "$name: gpuforge ci env-file $env_file --channel $channel"
        if ! gpuforge ci env-file "$env_file" --channel "$channel" --output "$file" >/dev/null; then
            failed+=("$name (gpuforge ci env-file)")  # this env only: the others still run
            continue
        fi
    fi
    step "$name: conda env create -p $prefix -f $file"
    status=0
    channel_retry conda env create --yes -p "$(native "$prefix")" -f "$(native "$file")" || status=$?
    if [ "$status" -eq 4 ]; then
        infrastructure+=("$name (conda env create: a channel kept failing, above)")
        continue
    elif [ "$status" -ne 0 ]; then
        failed+=("$name (conda env create)")
        continue
    fi
    python="$prefix/bin/python"
    [ "$platform" = win-64 ] && python="$prefix/python.exe"
    step "$name: conda run -p $prefix gpuforge smoke --python $python"
    if ! conda run -p "$(native "$prefix")" --no-capture-output "$PYTHON" -m gpuforge smoke \
            --python "$(native "$python")" --report-dir "reports/$pass/$name"; then
        failed+=("$name")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    die 1 "failed ($pass): ${failed[*]}${infrastructure:+; infrastructure failures: ${infrastructure[*]}}"
fi
if [ ${#infrastructure[@]} -gt 0 ]; then
    die 4 "infrastructure failures, not package problems ($pass): ${infrastructure[*]}"
fi
say "smoke: ${#envs[@]} environment(s) passed on $platform ($pass)"
