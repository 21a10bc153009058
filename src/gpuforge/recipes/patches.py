"""A recipe's patches: checked against the SHA256SUMS beside them, applied as conda-build does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gpuforge import processes
from gpuforge.downloads import sha256_of
from gpuforge.errors import GpuforgeError

PATCH_SUMS = "SHA256SUMS"  # beside a recipe's patches: `sha256sum *.patch` of the reviewed files


def patch_sums(folder: Path) -> dict[str, str]:
    """``name -> sha256`` of ``folder``/SHA256SUMS (``sha256sum`` format); a bad line is an error."""
    path = Path(folder) / PATCH_SUMS
    sums: dict[str, str] = {}
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        digest, _, name = line.partition("  ")
        if len(digest) != 64 or not name or any(c not in "0123456789abcdef" for c in digest):
            raise GpuforgeError("expected `<sha256>  <file name>` (sha256sum's format)", path, i)
        sums[name.strip()] = digest
    return sums


def apply_patches(tree: Path, recipe_dir: Path, patches: list[str],
                  say: Callable[[str], None] = print) -> None:
    """Apply a recipe's ``source.patches`` to ``tree`` in order (``patch -p1``, as conda-build),
    each first checked against the SHA256SUMS beside it."""
    for rel in patches:
        path = (Path(recipe_dir) / rel).resolve()
        if not path.is_file():
            raise GpuforgeError(f"source.patches: {rel} does not exist", Path(recipe_dir) / "meta.yaml")
        sums = patch_sums(path.parent) if (path.parent / PATCH_SUMS).is_file() else {}
        if sums.get(path.name) != sha256_of(path):
            raise GpuforgeError(f"sha256 {sha256_of(path)} is not the one {PATCH_SUMS} pins "
                                f"({sums.get(path.name, 'none')}): review it and update {PATCH_SUMS}",
                                path)
        proc = processes.run(
            ["patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch", "-i", str(path)],
            cwd=tree,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=60,
        )
        if proc.returncode != 0:
            first = next((ln for ln in (proc.stdout + proc.stderr).splitlines() if "FAILED" in ln
                          or "malformed" in ln or "can't find" in ln), "patch failed")
            raise GpuforgeError(f"does not apply to {tree.name}: {first.strip()}", path)
        say(f"patch: {rel}")
