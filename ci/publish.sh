#!/usr/bin/env bash
# Tags only (the workflow's publish job): upload the packages of the smoke-tested
# channels to anaconda.org. The token comes from the environment (ANACONDA_API_TOKEN,
# a secret of the workflow's `anaconda` environment) and is never printed or passed
# on a command line; ANACONDA_OWNER (optional) names the user or organisation.
#
#   ANACONDA_API_TOKEN=... ci/publish.sh channel
# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "$0")/common.sh"

[ $# -eq 1 ] || die 2 "usage: ci/publish.sh CHANNEL_DIR"
channel="$1"
# anaconda-client from PyPI: `pip index versions anaconda-client` lists 1.16.0 (the newest),
# checked 2026-11-24.
client_version="1.16.0"

step "a tag build with a token"
case "${GITHUB_REF:-}" in
    refs/tags/v*) say "    $GITHUB_REF" ;;
    *) die 2 "publish runs for tags v* only (GITHUB_REF=${GITHUB_REF:-unset})" ;;
esac
[ -n "${ANACONDA_API_TOKEN:-}" ] || die 2 "ANACONDA_API_TOKEN is not set: add it as a secret of the" \
    "repository's \`anaconda\` environment"

step "packages in $channel/"
shopt -s nullglob
packages=("$channel"/*/*.conda "$channel"/*/*.tar.bz2)
[ ${#packages[@]} -gt 0 ] || die 2 "no packages in $channel/*/"
printf '    %s\n' "${packages[@]}"

step "anaconda-client $client_version"
if ! command -v anaconda >/dev/null 2>&1; then
    "$PYTHON" -m pip install --disable-pip-version-check -q "anaconda-client==$client_version" ||
        die 3 "cannot install anaconda-client $client_version"
fi

step "anaconda upload"
owner=()
[ -z "${ANACONDA_OWNER:-}" ] || owner=(--user "$ANACONDA_OWNER")
anaconda upload --skip-existing "${owner[@]}" "${packages[@]}"
