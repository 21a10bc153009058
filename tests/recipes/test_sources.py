"""Recipe sources: a copy of the same tree with its other published hash is accepted."""

from __future__ import annotations

import pytest
from conftest import RECIPES

from gpuforge.errors import GpuforgeError
from gpuforge.recipes.render import find_recipes, render_variants
from gpuforge.downloads import SAME_TREE, Source, sha256_of
from gpuforge.recipes.variants import load_config


def test_same_tree_hashes_belong_to_a_recipe_source():
    config = load_config(RECIPES / "conda_build_config.yaml", "linux-64")
    recipe_hashes = {render_variants(r, config)[0].meta["source"].get("sha256")
                     for r in find_recipes(RECIPES)}
    assert set(SAME_TREE) <= recipe_hashes  # libgpuarray's tarball, used by libgpuarray and pygpu


def test_a_copy_with_the_same_trees_other_hash_is_accepted(tmp_path, monkeypatch):
    tarball = tmp_path / "tree.tar.gz"
    tarball.write_bytes(b"the same tree, archived another way")
    monkeypatch.setitem(SAME_TREE, "a" * 64, (sha256_of(tarball),))
    assert "matches the same tree's other hash" in Source("https://x/tree.tar.gz", "a" * 64).check(tarball)
    with pytest.raises(GpuforgeError, match="sha256 mismatch"):
        Source("https://x/tree.tar.gz", "b" * 64).check(tarball)
