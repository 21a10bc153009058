"""The log reader's typed facts (doctor/log_facts.py), on lines as the programs print them, and
the catalog's fact rules judging a paste as they judge a probe."""

from __future__ import annotations

import pytest

from gpuforge.doctor.log_facts import as_probe_facts, diagnose_log, extract

# (a line as its program prints it, where that comes from) -> the fact it states
LINES = [
    # Theano 1.0.5 theano/gpuarray/__init__.py: `Using cuDNN version %d on context %s`
    ("Using cuDNN version 7605 on context None", "cuda.cudnn.version", "7.6.5"),
    ("Using cuDNN version 91900 on context None", "cuda.cudnn.version", "9.19.0"),
    # theano/gpuarray/__init__.py: `Mapped name %s to device %s: %s (%s)`
    (
        "Mapped name None to device cuda0: GeForce GTX 1080 (0000:01:00.0)",
        "gpu",
        {"name": "GeForce GTX 1080", "cc": "6.1"},
    ),
    (
        "Mapped name None to device cuda: NVIDIA GeForce RTX 3090 (0000:01:00.0)",
        "gpu",
        {"name": "NVIDIA GeForce RTX 3090", "cc": "8.6"},
    ),
    # nvidia-smi's header
    (
        "| NVIDIA-SMI 418.67       Driver Version: 418.67       CUDA Version: 10.1     |",
        "cuda.driver.version",
        "10.1",
    ),
    # CPython's banner (Windows)
    (
        "Python 3.6.5 |Anaconda, Inc.| (default, Mar 29 2018) [MSC v.1900 32 bit (Intel)] on win32",
        "python.bits",
        32,
    ),
    (
        "Python 3.6.5 |Anaconda, Inc.| (default, Mar 29 2018) [MSC v.1900 64 bit (AMD64)] on win32",
        "python.version",
        "3.6",
    ),
    # tracebacks' paths
    (
        '  File "/home/u/miniconda3/lib/python3.7/site-packages/theano/__init__.py", line 88',
        "python.version",
        "3.7",
    ),
    ('  File "C:\\Users\\u\\AppData\\Local\\Programs\\Python\\Python36-32\\lib\\site.py"', "python.bits", 32),
    # conda list, pip freeze, wheels
    ("cudnn                     7.6.5                cuda10.1_0", "cuda.cudnn.version", "7.6.5"),
    ("cudatoolkit               10.2.89              hfd86e86_1", "cuda.nvrtc.version", "10.2"),
    ("numpy==1.24.3", "imports.numpy.version", "1.24.3"),
    ("Theano==1.0.5", "imports.theano.version", "1.0.5"),
    ("pygpu                     0.7.6            py36h7eb728f_0", "imports.pygpu.version", "0.7.6"),
    ("Successfully installed torch-1.10.0+cu113", "cuda.nvrtc.version", "11.3"),
    # nvcc --version
    ("Cuda compilation tools, release 10.1, V10.1.243", "cuda.nvrtc.version", "10.1"),
    # the Windows loader's DLL names
    ("OSError: [WinError 126] ... nvrtc64_102_0.dll", "cuda.nvrtc.version", "10.2"),
    ("Could not load dynamic library 'cudnn64_8.dll'", "cuda.cudnn.version", "8"),
    # prose
    ("I have cuDNN 8.0.5 and Theano 1.0.4 on an RTX 3070", "cuda.cudnn.version", "8.0.5"),
]


@pytest.mark.parametrize(("line", "path", "value"), LINES, ids=[f"{p}: {ln[:40]}" for ln, p, _ in LINES])
def test_a_line_states_its_fact(line, path, value):
    facts = {f.path: f.value for f in extract(line)}
    assert facts.get(path) == value, facts


@pytest.mark.parametrize(
    "text",
    [
        "The aliases was originally deprecated in NumPy 1.20; for more details see the release note",
        "ImportError: this package requires numpy >= 1.16",
        "Theano 1.0 or higher is needed",
    ],
)
def test_a_requirement_or_a_history_is_no_installed_version(text):
    assert not [f for f in extract(text) if f.path.endswith(".version")]


def test_a_fact_stated_two_ways_is_dropped():
    facts = {f.path: f.value for f in extract("numpy 1.24.1 fails\nwith numpy 1.23.5 it works\n")}
    assert "imports.numpy.version" not in facts
    facts = {f.path: f.value for f in extract("numpy 1.24 fails\nnumpy==1.24.1\n")}  # the same, said twice
    assert facts["imports.numpy.version"] == "1.24.1"


def test_the_probe_shape():
    facts = as_probe_facts(extract("Theano==1.0.5\npygpu==0.6.9\n"))
    assert facts["imports"]["theano"] == {"version": "1.0.5", "found": True}
    assert facts["log_sources"]["imports.pygpu.version"] == "pygpu==0.6.9"


# the catalog's fact rules on pasted facts: one rule per cause, the probe's
PASTES = {
    "pygpu_version": "Theano 1.0.4 with pygpu 0.6.9\nERROR (theano.gpuarray): Could not initialize pygpu, "
    "support disabled\n",
    "numpy_aliases": 'numpy==1.24.2\n  File "/opt/conda/lib/python3.9/site-packages/theano/scalar/basic.py", '
    "line 2\nAttributeError: module 'numpy' has no attribute 'bool'.\n",
    "python_32bit": "Python 3.6.5 (v3.6.5:f59c0932b4, Mar 28 2018) [MSC v.1900 32 bit (Intel)] on win32\n"
    "import theano\n",
    "cudnn8_theano": "THEANO_FLAGS=device=cuda\nI installed cudnn 8.0.5 for CUDA 11 and Theano 1.0.5\n"
    "ERROR: compile failed\n",
    "old_cublas_new_gpu": "GPU: NVIDIA GeForce RTX 3090\ncudatoolkit 10.0.130\n"
    "RuntimeError: CUBLAS_STATUS_EXECUTION_FAILED\n",
}


@pytest.mark.parametrize("expected", list(PASTES))
def test_stated_facts_are_judged_by_the_catalogs_fact_rules(expected):
    ids = [f.id for f in diagnose_log(PASTES[expected])]
    assert expected in ids, ids


def test_a_symptom_the_stated_facts_decide_is_no_longer_undecided():
    """numpy's message alone cannot tell Theano's np.bool from another package's; the listing
    says Theano and numpy 1.24 are what runs."""
    message = "AttributeError: module 'numpy' has no attribute 'bool'.\n"
    [alone] = diagnose_log(message)
    assert alone.undecided and "numpy_aliases" in alone.entry.candidates
    first = diagnose_log("pip freeze:\nTheano==1.0.5\nnumpy==1.24.2\n" + message)[0]
    assert first.id == "numpy_aliases" and not first.undecided


def test_nothing_is_judged_on_facts_the_paste_does_not_state():
    """No driver, compiler or config in the paste: the rules on those say nothing."""
    assert diagnose_log("Theano 1.0.5\nnumpy 1.19.5\nsomething else went wrong\n") == []
