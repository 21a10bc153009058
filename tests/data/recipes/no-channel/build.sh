#!/bin/bash
# The install prefix is written into a text file: conda-build records it as a placeholder and
# the installer (py-rattler here) replaces it with the real prefix.
set -euo pipefail
mkdir -p "${PREFIX}/etc/gpuforge-no-channel"
echo "${PREFIX}" > "${PREFIX}/etc/gpuforge-no-channel/prefix.txt"
