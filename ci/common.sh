# shellcheck shell=bash
# Helpers for the ci/*.sh scripts (sourced, not run). Exit codes of the scripts:
#   0 done, 1 a build or check failed, 2 bad arguments or input,
#   3 a prerequisite is missing (conda, conda-build, MSVC): the message says how to get it,
#   4 an infrastructure failure: a channel kept refusing or failing (HTTP 403, 429, 5xx, a
#     timeout) through every retry; the message names the host and the status.

set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
STEP=0

# The host Python that runs gpuforge (this checkout's src/, with its dependencies installed).
if [ -z "${PYTHON:-}" ]; then
    PYTHON="$(command -v python3 || command -v python || true)"
fi
if command -v cygpath >/dev/null 2>&1; then # Git Bash on Windows: a Windows path for Windows Python
    PYTHONPATH="$(cygpath -w "$ROOT/src")${PYTHONPATH:+;$PYTHONPATH}"
    export PYTHONPATH
else
    export PYTHONPATH="$ROOT/src${PYTHONPATH:+:$PYTHONPATH}"
fi

say() { printf '%s\n' "$*"; }
step() { STEP=$((STEP + 1)); printf '==> [%d] %s\n' "$STEP" "$*"; }
die() { # die CODE MESSAGE...
    local code="$1"
    shift
    printf '%s: error: %s\n' "$(basename "$0")" "$*" >&2
    exit "$code"
}

gpuforge() {
    [ -n "$PYTHON" ] || die 3 "no python3 on PATH: gpuforge needs Python >= 3.10 with its dependencies (python -m pip install -e .)"
    "$PYTHON" -m gpuforge "$@"
}

# conda's name for the machine this runs on.
host_platform() {
    case "$(uname -s)-$(uname -m)" in
        Linux-x86_64) echo linux-64 ;;
        MINGW*-x86_64 | MSYS*-x86_64 | CYGWIN*-x86_64) echo win-64 ;;
        *) echo "unsupported:$(uname -s)-$(uname -m)" ;;
    esac
}

# The first step that needs conda stops here when there is none.
need_conda() { # need_conda WHAT [build]
    local what="$1" want="${2:-}"
    if ! command -v conda >/dev/null 2>&1; then
        die 3 "conda is not installed: $what needs it. Install Miniforge" \
            "(https://github.com/conda-forge/miniforge), then \`conda install -n base conda-build\`," \
            "and run $0 again (in CI, conda-incubator/setup-miniconda does this)."
    fi
    if [ "$want" = build ] && ! conda build --version >/dev/null 2>&1; then
        die 3 "conda-build is not installed: $what needs it. Run \`conda install -n base conda-build\`" \
            "and run $0 again."
    fi
}

# msvc_env_changes BEFORE AFTER ENV_OUT PATH_OUT: from cmd's `set` before and after
# vcvarsall.bat, write to ENV_OUT each variable it set or changed (NAME=VALUE; not PATH, not
# its own __VSCMD_* bookkeeping: __VSCMD_PREINIT_PATH is PATH as it was, and a later vcvars,
# such as vs2019_win-64's activation, must record the PATH it finds) and to PATH_OUT each
# PATH entry it added, in order. AFTER may hold vcvarsall's banner: only NAME=VALUE lines count.
msvc_env_changes() {
    local before="$1" after="$2" env_out="$3" path_out="$4" old_path new_path entry
    local -a entries
    old_path="$(tr -d '\r' <"$before" | grep -i '^path=' | cut -d= -f2-)"
    new_path="$(tr -d '\r' <"$after" | grep -i '^path=' | cut -d= -f2-)"
    : >"$path_out"
    IFS=';' read -ra entries <<<"$new_path"
    for entry in "${entries[@]}"; do
        case ";$old_path;" in
            *";$entry;"*) ;;
            *) [ -z "$entry" ] || printf '%s\n' "$entry" >>"$path_out" ;;
        esac
    done
    tr -d '\r' <"$after" | grep -E '^[A-Za-z_][A-Za-z0-9_]*=' | grep -v -i -e '^path=' -e '^__VSCMD_' |
        grep -v -x -F -f <(tr -d '\r' <"$before") >"$env_out" || true
}

# channel_retry CMD...: run a command that fetches from conda channels (conda build, conda env
# create). When it fails and its output shows a channel failure (`gpuforge ci channel-failure`:
# HTTP 403/408/429/5xx or a timeout, not a 404 or a package conflict), run it again after each
# of CHANNEL_RETRY_DELAYS seconds (default "30 120 300"); when the failure persists, return 4
# with a message naming the host and the status: infrastructure, not a package problem. Any
# other failure returns the command's own status at once.
channel_retry() {
    local -a delays
    read -ra delays <<<"${CHANNEL_RETRY_DELAYS:-30 120 300}"
    local attempt=0 status failure log
    log="$(mktemp)"
    while true; do
        attempt=$((attempt + 1))
        status=0
        "$@" 2>&1 | tee "$log" || status=${PIPESTATUS[0]}
        [ "$status" -ne 0 ] || { rm -f "$log"; return 0; }
        printf '\n(the command: %s)\n' "$*" >>"$log" # a URL in it names the host when the output does not
        if ! failure="$(gpuforge ci channel-failure "$log")"; then
            rm -f "$log"
            return "$status"
        fi
        if [ "$attempt" -gt "${#delays[@]}" ]; then
            rm -f "$log"
            printf '%s: error: infrastructure failure, not a package problem: %s (%d attempts of: %s)\n' \
                "$(basename "$0")" "$failure" "$attempt" "$*" >&2
            return 4
        fi
        say "channel failure: $failure; trying again in ${delays[attempt - 1]} s (attempt $((attempt + 1)) of $((${#delays[@]} + 1)))"
        sleep "${delays[attempt - 1]}"
    done
}
