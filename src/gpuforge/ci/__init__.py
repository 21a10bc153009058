"""CI: the build workflow and variant files generated from the matrix, and the steps its jobs run."""
