"""Write src/gpuforge/data/pypi_wheels.json: the releases of the GPU stacks' packages on PyPI.

    python tools/pypi_wheels.py [PACKAGE=PYPI-JSON-FILE ...]

Reads PyPI's JSON API (https://pypi.org/pypi/<package>/json, or a saved copy of it) for each
package of PACKAGES and keeps, for every release with files, the CPython tags (cp38, cp39, ...)
of its wheels, whether any release has an sdist, and the sha256 of the document read. The
doctor reads it to tell a pip failure that is a release with no build for this interpreter
(`torch==1.6.0` on Python 3.9: 1.6.0 has cp36 to cp38; `mxnet~=1.7` where pip lists only 1.6.0;
nothing listed of a package with no sdist) from a pin of a release that never was.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import urllib.request
from datetime import date
from pathlib import Path

from gpuforge.doctor.catalog import version_key
from gpuforge.errors import GpuforgeError
from gpuforge.fileio import write_atomic

PACKAGES = (
    "torch",
    "torchvision",
    "torchaudio",
    "mxnet",
    # the GPU builds pip is asked for by name, and TensorFlow beside them: whether any release
    # has an sdist tells "nothing listed" (no build for this Python or platform) from a build
    # pip could have compiled
    "mxnet-mkl",
    "mxnet-cu80",
    "mxnet-cu90",
    "mxnet-cu92mkl",
    "mxnet-cu100",
    "mxnet-cu101mkl",
    "mxnet-cu102mkl",
    "mxnet-cu110",
    "mxnet-cu112",
    "cupy-cuda90",
    "cupy-cuda100",
    "cupy-cuda110",
    "cupy-cuda11x",
    "cupy-cuda12x",
    "tensorflow",
    # the inference and compiler packages beside PyTorch, published as wheels only (PyPI's JSON,
    # read 2026-11-29: no sdist in any release): nothing listed is no build for this Python or
    # platform (Triton: Linux only)
    "onnxruntime",
    "onnxruntime-gpu",
    "triton",
    # the video decoder beside PyTorch published as wheels only (PyPI's JSON, read 2026-11-29: no
    # sdist in its 24 releases, no macOS arm64 or Linux aarch64 wheel)
    "decord",
)
URL = "https://pypi.org/pypi/{}/json"
OUT = Path(__file__).resolve().parents[1] / "src" / "gpuforge" / "data" / "pypi_wheels.json"
TAG_RE = re.compile(r"-(cp\d+)-")


def read_package(name: str, saved: str | None) -> list[str]:
    """One package's block of the file, a line a release (a new read's diff shows what it added)."""
    where = saved or URL.format(name)
    try:
        if saved:
            raw = Path(saved).read_bytes()
        else:
            with urllib.request.urlopen(where, timeout=60) as response:  # noqa: S310 (a fixed https URL)
                raw = response.read()
        releases = {v: files for v, files in json.loads(raw)["releases"].items() if files}
    except (OSError, ValueError) as exc:  # unreadable, not JSON (JSONDecodeError is a ValueError)
        raise GpuforgeError(f"cannot read PyPI's JSON for {name}: {exc}", where) from None
    except (KeyError, AttributeError, TypeError):
        raise GpuforgeError(f"not PyPI's JSON for {name} (no releases mapping)", where) from None
    head = {
        "source": URL.format(name),
        "sha256": hashlib.sha256(raw).hexdigest(),
        "read": date.today().isoformat(),
        # a source distribution in any release: pip may build one for a Python without wheels
        "sdist": any(f.get("packagetype") == "sdist" for files in releases.values() for f in files),
    }
    lines = [f'  "{name}": {{', *(f"   {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items())]
    lines.append('   "python_tags": {')
    rows = []
    for version in sorted(releases, key=version_key):
        tags = sorted(
            {m[1] for f in releases[version] if (m := TAG_RE.search(f["filename"]))}, key=lambda t: int(t[2:])
        )
        rows.append(f'    "{version}": {json.dumps(tags)}')
    return [*lines, ",\n".join(rows), "   }", "  }"]


def main(argv: list[str], out: Path = OUT) -> int:
    saved = dict(arg.split("=", 1) for arg in argv if "=" in arg)
    try:
        unknown = sorted(set(saved) - set(PACKAGES)) or [arg for arg in argv if "=" not in arg]
        if unknown:
            raise GpuforgeError(
                f"expected PACKAGE=FILE with PACKAGE one of {', '.join(PACKAGES)}, got {unknown[0]}"
            )
        blocks = ["\n".join(read_package(name, saved.get(name))) for name in PACKAGES]
    except GpuforgeError as exc:
        print(f"pypi_wheels: error: {exc}", file=sys.stderr)
        return 2
    write_atomic(out, "{\n" + ",\n".join(blocks) + "\n}\n")
    print(f"wrote {out} ({', '.join(PACKAGES)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
