#!/usr/bin/env bash
# The lint job: `nox -s lint` (ruff, the recipe lint, the CI matrix drift check,
# actionlint, zizmor, the GitHub workflow schema, shellcheck), installing nox if needed.
# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "$0")/common.sh"

step "nox"
"$PYTHON" -m nox --version >/dev/null 2>&1 || "$PYTHON" -m pip install --disable-pip-version-check -q nox
step "nox -s lint"
"$PYTHON" -m nox -s lint
