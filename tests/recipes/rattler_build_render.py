"""Run by the conda-tools venv's Python (py-rattler-build from PyPI): rattler-build's render of
v1 recipes (recipe.yaml) for one platform, as a JSON file.

usage: python rattler_build_render.py OUT.json PLATFORM CONFIG RECIPE_YAML...
"""

import json
import sys

from rattler_build import JinjaConfig, PlatformConfig, RenderConfig, Stage0Recipe, VariantConfig


def main(out_path, platform, config, recipes):
    target = PlatformConfig(target_platform=platform)
    variants = VariantConfig.from_conda_build_config(config, JinjaConfig(platform=target))
    out = []
    for path in recipes:
        for rendered in Stage0Recipe.from_file(path).render(variants, RenderConfig(platform=target)):
            recipe = rendered.recipe.to_dict()
            out.append({"recipe": path, "variant": {k: str(v) for k, v in rendered.variant.items()},
                        "package": recipe["package"], "requirements": recipe.get("requirements", {}),
                        "tests": recipe.get("tests", [])})
    with open(out_path, "w") as fh:
        json.dump(out, fh, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
