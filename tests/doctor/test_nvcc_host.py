"""The newest gcc each CUDA's nvcc accepts, checked where a toolkit is installed, and judged on
the probe's facts as on a paste's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpuforge.doctor.catalog import diagnose_facts
from gpuforge.doctor.facts import derive
from gpuforge.doctor.nvcc_host import NEWEST_GCC, gcc_refused, newest_gcc

INSTALLED = sorted(Path("/usr/local").glob("cuda-*/include/crt/host_config.h"))


@pytest.mark.skipif(
    not INSTALLED,
    reason="needs a CUDA toolkit in /usr/local/cuda-X.Y (its include/crt/host_config.h); this "
    "machine's nvcc is CUDA 13.0",
)
@pytest.mark.parametrize("header", INSTALLED, ids=lambda p: p.parts[3])
def test_the_table_says_what_the_installed_header_guards(header):
    release = re.fullmatch(r"cuda-(\d+\.\d+)", header.parts[3])
    assert release
    guard = re.search(r"^#if __GNUC__ > (\d+)\s*$", header.read_text(errors="replace"), re.M)
    assert guard, f"{header}: no gcc guard"
    assert NEWEST_GCC.get(release[1]) == guard[1]


@pytest.mark.parametrize(
    ("cuda", "gcc", "refused"),
    [
        ("7.5", "4.9.3", False),
        ("7.5", "5.2", True),
        ("8.0", "5.4.0", False),
        ("8.0", "6", True),
        ("9.0", "6.4", False),
        ("9.0", "7.2.0", True),
        ("12.4", "13.2.0", False),
        ("12.4", "14.1", True),
        ("10.1", "9.3", False),  # not recorded: not judged
    ],
)
def test_a_gcc_against_a_cuda(cuda, gcc, refused):
    assert bool(gcc_refused(cuda, gcc)) == refused


def test_a_bare_major_version_only_where_its_releases_agree():
    assert newest_gcc("7") == "4.9"
    assert newest_gcc("8") == "5"
    assert newest_gcc("9") is None
    assert newest_gcc("12") is None


def _probed(device: str, gxx: str, nvcc: str, system: str = "linux") -> dict:
    return {
        "platform": {"sys_platform": system},
        "config": {"settings": {"device": {"value": device, "source": "THEANO_FLAGS"}}},
        "compiler": {"cxx_version": gxx, "gxx_on_path": "/usr/bin/g++"},
        "cuda": {"nvcc": {"path": "/usr/local/cuda-8.0/bin/nvcc", "release": nvcc}},
    }


@pytest.mark.parametrize(
    ("facts", "judged"),
    [
        (_probed("gpu", "6.3.0", "8.0"), True),
        (_probed("gpu0", "5.4.0", "8.0"), False),
        # the gpuarray back-end compiles its kernels with NVRTC, not nvcc
        (_probed("cuda0", "6.3.0", "8.0"), False),
    ],
)
def test_the_probe_judges_the_old_backends_gcc_and_nvcc(facts, judged):
    derive(facts)
    assert any(f.id == "gcc_too_new" for f in diagnose_facts(facts, "linux")) == judged
