"""Write src/gpuforge/data/torch_wheels.json: the Python tags of each torch release's wheels.

    python tools/torch_wheels.py [PYPI-JSON-FILE]

Reads PyPI's JSON API for torch (https://pypi.org/pypi/torch/json, or a saved copy of it) and
keeps, for every release, the CPython tags (cp38, cp39, ...) its wheels were built for, with the
sha256 of the document read. The doctor reads it to tell a pip pin that has no wheel for the
stated Python (`torch==1.6.0` on Python 3.9: 1.6.0 has cp36 to cp38) from other pip failures.
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
from gpuforge.fileio import write_atomic

URL = "https://pypi.org/pypi/torch/json"
OUT = Path(__file__).resolve().parents[1] / "src" / "gpuforge" / "data" / "torch_wheels.json"
TAG_RE = re.compile(r"-(cp\d+)-")


def main(argv: list[str]) -> int:
    if argv:
        raw = Path(argv[0]).read_bytes()
    else:
        with urllib.request.urlopen(URL, timeout=60) as response:  # noqa: S310 (a fixed https URL)
            raw = response.read()
    releases = json.loads(raw)["releases"]
    tags = {
        version: sorted(
            {m[1] for f in files if (m := TAG_RE.search(f["filename"]))}, key=lambda t: int(t[2:])
        )
        for version, files in releases.items()
    }
    head = {"source": URL, "sha256": hashlib.sha256(raw).hexdigest(), "read": date.today().isoformat()}
    # one release a line, so that a new read's diff shows the releases it added
    lines = [
        f'  "{v}": {json.dumps(t)}' for v, t in sorted(tags.items(), key=lambda kv: version_key(kv[0])) if t
    ]
    text = json.dumps(head, indent=1)[:-2] + ',\n "python_tags": {\n' + ",\n".join(lines) + "\n }\n}\n"
    write_atomic(OUT, text)
    print(f"wrote {OUT} ({len(lines)} releases with wheels)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
