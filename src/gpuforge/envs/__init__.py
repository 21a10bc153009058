"""Environments: the env files, their mirrors, the offline check and solve, and lock files."""
