#!/usr/bin/env bash
# The lint job: `nox -s lint` (ruff, the recipe lint, the CI matrix drift check,
# actionlint, zizmor, the GitHub workflow schema, shellcheck), installing nox if needed.
# shellcheck source=common.sh source-path=SCRIPTDIR
source "$(dirname "$0")/common.sh"

# CONDA_SMITHY_VERSION (the workflow's pin): conda-smithy into conda's base first, for the real
# recipe-lint; a channel that keeps refusing is an infrastructure failure (exit 4).
if [ -n "${CONDA_SMITHY_VERSION:-}" ]; then
    step "conda-smithy $CONDA_SMITHY_VERSION into conda's base"
    need_conda "the recipe lint"
    channel_retry conda install -n base --yes "conda-smithy==$CONDA_SMITHY_VERSION"
fi

# NOX_VERSION: the workflow's exact pin (.github/workflows/build.yml, env); without it, any nox.
step "nox${NOX_VERSION:+ $NOX_VERSION}"
if [ -n "${NOX_VERSION:-}" ]; then
    [ "$("$PYTHON" -m nox --version 2>&1)" = "$NOX_VERSION" ] ||
        "$PYTHON" -m pip install --disable-pip-version-check -q "nox==$NOX_VERSION"
else
    "$PYTHON" -m nox --version >/dev/null 2>&1 || "$PYTHON" -m pip install --disable-pip-version-check -q nox
fi
step "nox -s lint"
"$PYTHON" -m nox -s lint
