"""Recipes: render and lint the conda recipes against the variant matrix, fetch sources, build locally."""
