"""Run by the conda-tools venv's Python: conda-build's own render of recipes, as a JSON file.

usage: python conda_build_render.py OUT.json CONFIG RECIPE_DIR...  (CONDA_SUBDIR picks the platform)

conda_build.api.render with bypass_env_check: what conda-build renders with no channel (the host
environment is not solved, so pin_compatible() and pin_run_as_build wait for the build).
"""

import json
import sys

from conda_build import api


def main(out_path, config, recipes):
    out = []
    for recipe in recipes:
        for m, _, _ in api.render(recipe, variant_config_files=[config], bypass_env_check=True,
                                  finalize=False):
            used = m.get_used_vars()
            out.append({
                "recipe": recipe,
                "name": m.name(),
                "version": m.version(),
                "variant": {k: str(v) for k, v in sorted(m.config.variant.items()) if k in used},
                "requirements": {k: v for k, v in (m.meta.get("requirements") or {}).items() if v},
                "test": m.meta.get("test") or {},
            })
    with open(out_path, "w") as fh:  # not stdout: conda-build prints there
        json.dump(out, fh, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
