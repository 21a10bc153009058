"""A GPU's name, as users paste it (nvidia-smi, PyTorch's get_device_name, prose), to its
compute capability: what the log reader needs to judge a pasted environment by the same GPU
rules as a probed one.

Source: NVIDIA's tables, https://developer.nvidia.com/cuda-gpus (cc 7.5 ... 12.1) and
https://developer.nvidia.com/cuda-legacy-gpus (cc 3.0 ... 7.2), read 2026-11-27. Families, not
every board: the first pattern that matches a name wins (so "RTX A6000" is tried before "A6").
Laptop variants share their family's cc (the tables list "GeForce RTX 3080 Laptop GPU" at 8.6).
"""

from __future__ import annotations

import re

_FAMILIES: tuple[tuple[str, str], ...] = (
    # Blackwell
    (r"RTX 50[5-9]0|RTX PRO \d{4} Blackwell", "12.0"),
    (r"\bGB10\b", "12.1"),
    (r"\bG?B300\b", "10.3"),
    (r"\bG?B200\b", "10.0"),
    # Hopper
    (r"\bG?H(100|200)\b", "9.0"),
    # Ada
    (r"RTX 40[5-9]0|\bL40S?\b|\bL4\b|RTX \d{4} Ada", "8.9"),
    # Ampere
    (r"RTX 30[5-9]0|RTX A[2-6]000|\bA(40|10|16|2)\b", "8.6"),
    (r"\bA(100|30|800)\b", "8.0"),
    # Turing
    (r"RTX 20[6-8]0|GTX 16[5-6]0|\bT4\b|Quadro RTX|TITAN RTX|\bT(400|600|1000)\b", "7.5"),
    # Volta
    (r"\bV100S?\b|TITAN V\b|Quadro GV100", "7.0"),
    # Pascal
    (r"\bP100\b|Quadro GP100", "6.0"),
    (r"GTX 10[5-8]0|TITAN Xp|NVIDIA TITAN X\b|\bP(40|4)\b|Quadro P\d{3,4}", "6.1"),
    # Maxwell
    (r"GTX (9[5-8]0|TITAN X)(?!M)|GTX 9(65|70|80)M|\bM(40|60)\b|Quadro M\d{4}\b", "5.2"),
    (r"GTX 750|GTX (850|860|950|960)M|GeForce (830|840|930|940)M|Quadro K(620|1200|2200)", "5.0"),
    # Kepler
    (r"\bK80\b", "3.7"),
    (r"\bK(20|40)[cmx]?\b|GTX 7[89]0|GTX TITAN( Black| Z)?\b", "3.5"),
    (r"GTX 6[5-9]0|\bK10\b|GTX 770|GTX 760", "3.0"),
)
FAMILIES = tuple((re.compile(p, re.I), cc) for p, cc in _FAMILIES)
# a GPU's name where logs print it (nvidia-smi's table, torch.cuda.get_device_name, Theano's
# "Mapped name None to device cuda: GeForce GTX 1080", prose "my RTX 3090"): a GeForce/Quadro
# RTX or GTX number, or a data-center part after NVIDIA/Tesla/Quadro; a bare "A2" or "T4" in
# prose is no GPU name
NAME_RE = re.compile(
    r"(?:(?:NVIDIA|GeForce|Quadro) )*(?:RTX|GTX) ?(?:PRO )?A?\d{3,4}(?: ?Ti| ?SUPER| Ada| Blackwell|M)?\b"
    r"|(?:NVIDIA|Tesla)(?: Tesla)? [ABHKLMPTV]\d{1,3}[SXCM]?\b"
    r"|(?:NVIDIA |GeForce GTX )?TITAN (?:Xp|X|V|RTX|Black|Z)\b",
    re.I,
)


def compute_capability(name: str) -> str | None:
    """``8.6`` for "GeForce RTX 3090", None for a name the tables do not place."""
    for pattern, cc in FAMILIES:
        if pattern.search(name):
            return cc
    return None
