"""Facts a pasted log states, typed and located: what the live probe gathers, read from text.

A user's paste names its environment in many places: a pip or conda listing (`numpy 1.24.3`,
`numpy==1.24.3`, `cudnn  7.6.5  cuda10.1_0`), a traceback's paths (`python3.7/site-packages`,
`Python36-32\\lib`), Theano's own lines (`Using cuDNN version 7605`, `Mapped name None to device
cuda0: GeForce GTX 1080`), nvidia-smi's table (`Driver Version: 418.67  CUDA Version: 10.1`),
library names (`nvrtc64_90.dll`, `libcudnn.so.8`), wheel tags (`cp37-cp37m-win32`, `+cu113`) and
prose ("with cuDNN 8.0.5 on an RTX 3090"). ``extract`` puts each into the probe's shape (the
same paths: ``imports.numpy.version``, ``cuda.cudnn.version``, ``python.bits`` ...) with the line
it came from, so the catalog's fact rules (catalog.yaml ``facts:``, facts.py, gpu_fit.py) judge a
paste as they judge a probed environment: one rule per cause.

A fact stated twice with different values (a user who tried two versions) is dropped: only what
the paste says without contradiction is judged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from gpuforge import locations
from gpuforge.doctor import gpu_fit, nvcc_host, theano_api
from gpuforge.doctor.catalog import (
    Finding,
    confirmed_by_facts,
    diagnose_facts,
    diagnose_text,
    entry,
    explained_last,
    lookup,
    version_key,
)
from gpuforge.doctor.facts import host_platform
from gpuforge.doctor.gpu_names import NAME_RE, compute_capability
from gpuforge.envs import gpu_envs

V = r"(\d+\.\d+(?:\.\d+)?)"  # a version: major.minor[.patch]
# ... and a pre-release or development suffix after it, read as its release (Theano's tags
# rel-0.10.0beta1, rel-1.0.0rc1; `0.9.0rc2.dev-674f8d5`, `0.8.0.dev0` as Theano prints a checkout's
# version; PEP 440's `.post1`)
PRE = r"(?:(?:rc|beta|alpha|b|a)\d*)?(?:\.?dev[\w-]*|\.post\d+)?"
END = r"(?!\w|\.\w)"  # ... and no more of it (a sentence's full stop may follow: "Theano 0.8.0.")
# numpy==1.2, numpy 1.2, numpy-1.2 (a wheel), numpy: 1.2, a list's "Theano - 0.9.0", "theano0.8.2"
SEP = r"(?:\s*[=:]=?\s*|\s+v?|-(?=\d)|\s+-\s+(?=\d)|(?=\d))"


@dataclass(frozen=True)
class Fact:
    path: str  # the probe's fact path
    value: Any
    line: str  # the paste's line it was read from


def _cudnn_number(n: str) -> str:
    """cuDNN's CUDNN_VERSION as Theano prints it: 1000*major + 100*minor + patch up to 8.x
    (7605 = 7.6.5), 10000*major + 100*minor + patch from 9.0 (91900 = 9.19.0)."""
    v = int(n)
    if v >= 90000:
        return f"{v // 10000}.{v % 10000 // 100}.{v % 100}"
    return f"{v // 1000}.{v % 1000 // 100}.{v % 100}"


def _nvrtc_dll(m: re.Match[str]) -> str:
    """nvrtc64_90.dll -> 9.0, nvrtc64_102_0.dll -> 10.2, nvrtc64_112_0.dll -> 11.2."""
    digits = m.group(1)
    return f"{digits[:-1]}.{digits[-1]}"


def _cu_tag(m: re.Match[str]) -> str:
    """PyTorch's +cu113 / cu102 wheel tag -> 11.3 / 10.2."""
    digits = m.group(1)
    return f"{digits[:-1]}.{digits[-1]}"


def python_release(version: str) -> str:
    """A Python version as a user writes it, read as the release it names: `Python 3.84` is 3.8.4
    typed without its second dot (PEP 404: there is no Python 2.8; PEP 602's one minor release a
    year reaches 3.20 only in the 2030s), so a minor of two digits past those is its first digit."""
    major, minor = version.split(".")
    if len(minor) == 2 and int(minor) >= (8 if major == "2" else 20):
        return f"{major}.{minor[0]}"
    return version


# conda's build string of a PyTorch build after its version: the release and the CUDA it was
# built for (`pytorch 0.4.1_cuda9.2_cudnn7.1.4`, `pytorch 1.4.0 py3.7_cuda10.1.243_cudnn7.6.3_0`)
TORCH_BUILD_STRING = (
    r"\b(?:py)?torch[ \t=-]+v?(?P<release>\d+\.\d+(?:\.\d+)?)[ \t_]+(?:py[\d.]+_)?cuda(?P<build>\d+\.\d+)"
)

# torch's version or CUDA as Python shows it: `torch.__version__` (or `torch.version.cuda`) then
# its value on the same line after `:`, `=`, `->`, "is", "returns", or on the REPL's next line
# (`>>> torch.__version__` / `'2.1.0+cu121'`; `print(torch.__version__)` / `1.13.1+cpu`)
SHOWN = r"\)?[ \t]*(?:(?:[:=]|->|is|returns?|gives|prints?)[ \t]*)?(?:\n(?:>>>[^\n]*\n)?[ \t]*)?['\"]?"
TORCH_VERSION_SHOWN = r"\btorch\.__version__" + SHOWN
TORCH_CUDA_SHOWN = r"\btorch\.version\.cuda" + SHOWN

# (fact path, pattern, value of the match): the first group unless a function says otherwise
RULES: tuple[tuple[str, re.Pattern[str], Callable[[re.Match[str]], Any] | None], ...] = tuple(
    (path, re.compile(pattern, re.I | re.M), value)
    for path, pattern, value in (
        # Python: its banner, its site-packages, Windows' install folders, wheel tags
        (
            "python.version",
            r"\bPython ([23]\.\d{1,2})(?:\.\d+)?\b(?! ?-?bit)",
            lambda m: python_release(m[1]),
        ),
        ("python.version", r"[/\\]python([23]\.\d{1,2})[/\\](?:site|dist)-packages", None),
        ("python.version", r"[/\\]Python([23])(\d{1,2})(?:-32)?[/\\]", lambda m: f"{m[1]}.{m[2]}"),
        ("python.version", r"\bcp([23])(\d{1,2})-cp\d+m?-", lambda m: f"{m[1]}.{m[2]}"),
        # ... and the interpreter a command names (`python3.9 -m pip install`, `pip3.8 install`)
        ("python.version", r"(?:^|[\s/$>`'\"])(?:python|pip)([23]\.\d{1,2})(?=[ \t]+\S)", None),
        ("python.bits", r"\[MSC v\.\d+ (32|64) bit", lambda m: int(m[1])),
        ("python.bits", r"[/\\]Python\d{2,3}-32[/\\]", lambda m: 32),
        (
            "python.bits",
            r"\bcp\d{2,3}m?-win32\.whl|\bPython \d\.\d+(?:\.\d+)? \((?:32|32-bit)\)",
            lambda m: 32,
        ),
        ("python.bits", r"\b(32|64)[- ]bit (?:Python|Anaconda|Miniconda|interpreter)", lambda m: int(m[1])),
        # the stack's packages: listings, wheels and prose
        ("imports.theano.version", rf"\bTheano{SEP}{V}{PRE}{END}", None),
        ("imports.pygpu.version", rf"\b(?:pygpu|libgpuarray){SEP}(0\.\d+\.\d+)\b", None),
        ("imports.pygpu.version", r"Your installed version of pygpu\((\d+\.\d+\.\d+)", None),
        ("imports.numpy.version", rf"\bnumpy{SEP}{V}{PRE}{END}", None),
        # Lasagne: a listing, a wheel, prose (its master says 0.2.dev1; PyPI's release is 0.1)
        ("imports.lasagne.version", rf"\bLasagne{SEP}(\d+\.\d+(?:\.\d+)?(?:\.?dev\d*)?){END}", None),
        ("imports.lasagne.version", r"\bversion (\d+\.\d+(?:\.\d+)?(?:\.?dev\d*)?) of lasagne\b", None),
        ("imports.numpy.version", r"[/\\]numpy-(\d+\.\d+\.\d+)(?:\.dist-info|-py)", None),
        # PyTorch: a listing, a wheel, prose, torch.utils.collect_env's own line
        # (not collect_env's "CUDA used to build PyTorch: 10.2", the build's CUDA)
        ("imports.torch.version", rf"(?<!to build )\b(?:py)?torch{SEP}{V}{PRE}{END}", None),
        ("imports.torch.version", rf"\bPyTorch version:\s*{V}{END}", None),
        ("imports.torch.version", rf"{TORCH_VERSION_SHOWN}{V}{END}", None),
        # ... and conda's build string after it (`pytorch 0.4.1_cuda9.2_cudnn7.1.4`)
        ("imports.torch.version", TORCH_BUILD_STRING, lambda m: m["release"]),
        # cuDNN: Theano's own line, listings, library names, prose
        ("cuda.cudnn.version", r"Using cuDNN version (\d{4,6})\b", lambda m: _cudnn_number(m[1])),
        # the old back-end's start-up line (Theano <= 0.9 theano/sandbox/cuda/__init__.py: `Using
        # gpu device %d: %s (CNMeM is %s, cuDNN %s)`, the cuDNN part being dnn.version()'s number)
        (
            "cuda.cudnn.version",
            r"Using gpu device \d+: [^\n]*?\bcuDNN (\d{4,5})\)",
            lambda m: _cudnn_number(m[1]),
        ),
        # NVIDIA's archive names the CUDA first: cudnn-8.0-linux-x64-v5.1.tgz is cuDNN 5.1
        ("cuda.cudnn.version", r"\bcudnn-\d+\.\d+-(?:windows\d*|linux|osx)-x64-v(\d+(?:\.\d+)*)", None),
        ("cuda.cudnn.version", rf"\bcu[dD][nN][nN]{SEP}{V}{END}(?!-(?:windows|linux|osx))", None),
        ("cuda.cudnn.version", r"\bcudnn64_(\d+)\.dll", lambda m: m[1]),
        ("cuda.cudnn.version", r"\blibcudnn\.so\.(\d+(?:\.\d+){0,2})\b", None),
        # the CUDA an environment compiles with: NVRTC's library, the toolkit package, nvcc, tags
        ("cuda.nvrtc.version", r"\bnvrtc64_(\d{2,3})(?:_0)?\.dll", _nvrtc_dll),
        ("cuda.nvrtc.version", r"\blibnvrtc\.so\.(\d+\.\d+)", None),
        ("cuda.nvrtc.version", rf"\bcudatoolkit{SEP}(\d+\.\d+)", None),
        ("cuda.nvrtc.version", r"Cuda compilation tools, release (\d+\.\d+)", None),
        (
            "cuda.nvrtc.version",
            r"\b(?:py)?(?:torch|torchvision)(?:[=-]=?| v?)\d+\.\d+(?:\.\d+)?(?:\.dev\d+)?\+cu(\d{3})\b",
            _cu_tag,
        ),
        # conda's pytorch-cuda=11.7 (pytorch channel), torch.utils.collect_env's own line, and
        # mxnet's CUDA wheels (mxnet-cu90 ... mxnet-cu112: the CUDA their runtime is of)
        ("cuda.nvrtc.version", rf"\bpytorch-cuda{SEP}(\d+\.\d+)", None),
        ("cuda.nvrtc.version", r"\bCUDA used to build PyTorch:\s*(\d+\.\d+)", None),
        (
            "cuda.nvrtc.version",
            rf"{TORCH_VERSION_SHOWN}\d+\.\d+(?:\.\d+)?(?:\.dev\d+)?\+cu(\d{{3}})\b",
            _cu_tag,
        ),
        ("cuda.nvrtc.version", rf"{TORCH_CUDA_SHOWN}(\d+\.\d+)\b", None),
        ("cuda.nvrtc.version", TORCH_BUILD_STRING, lambda m: m["build"]),
        ("cuda.nvrtc.version", r"\bmxnet-cu(\d{2,3})\b", _cu_tag),
        # the CUDA whose nvcc compiles: its --version line, its own version, its install folder,
        # prose ("CUDA 8.0", "cuda-7.5"; nvidia-smi's "CUDA Version:" is the driver's, below)
        ("cuda.nvcc.release", r"Cuda compilation tools, release (\d+\.\d+)", None),
        ("cuda.nvcc.release", r"\bnvcc[ (]{1,2}v?(\d+\.\d+)(?:\.\d+)*\b", None),
        ("cuda.nvcc.release", r"[/\\]cuda-(\d+\.\d+)[/\\]", None),
        (
            "cuda.nvcc.release",
            r"\bCUDA(?: ?toolkit)?[ -]v?(\d+(?:\.\d)?)(?![\d.]*[- ]?(?:bit|GB|x|driver))\b",
            None,
        ),
        # the host compiler: gcc --version's first line, gcc -v's last, a listing or prose ("gcc
        # 6.1.1", "g++-5"); not Python's banner ("[GCC 7.3.0] on linux") nor clang's
        # "GCC 4.2.1 Compatible"
        ("compiler.cxx_version", r"\bg(?:cc|\+\+) \([^)\n]*\) (\d+\.\d+(?:\.\d+)?)", None),
        ("compiler.cxx_version", r"\bgcc version (\d+\.\d+(?:\.\d+)?)", None),
        (
            "compiler.cxx_version",
            r"(?<!\[)\bg(?:cc|\+\+)(?:\s*[=:]\s*|\s+v?|-)(\d+(?:\.\d+){0,2})\b(?! Compatible)",
            None,
        ),
        # the driver, as nvidia-smi's header says it
        ("cuda.driver.version", r"CUDA Version:\s*(\d+\.\d+)", None),
        ("cuda.driver.driver_version", r"Driver Version:\s*(\d+\.\d+(?:\.\d+)?)", None),
    )
)
THEANO_USED_RE = re.compile(
    r"[/\\]theano[/\\]\w+|^[ \t]*(?:import|from) theano\b|\btheano\.(?:function|tensor|config)\b", re.M
)
# the device Theano was given (THEANO_FLAGS, .theanorc, its own "Mapped name ... to device cuda0")
CUDA_DEVICE_RE = re.compile(
    r"\bdevice\s*=\s*cuda\d*\b|to device cuda\d*\b|\binit_gpu_device\s*=\s*cuda", re.I
)
# a paste where cuDNN's ops failed to build or load (the old back-end compiles each with nvcc:
# mod.cu, `nvcc return status`; its cuDNN ops are GpuDnn*; dnn_available's own words)
DNN_FAILED_RE = re.compile(
    r"\bGpuDnn\w+|\bmod\.cu\b|nvcc return status|cuDNN (?:is )?not available|Can not use cuDNN|"
    r"cudnn\w*_v\d\b|dnn\.py",
    re.I,
)
# the old back-end (Theano <= 0.9's theano.sandbox.cuda): its device setting, or its own
# start-up line, which only a Theano that still has it prints
OLD_BACKEND_RAN_RE = re.compile(r"Using gpu device \d+: ")
# (not docker's or nerdctl's `--gpus device=GPU-<uuid>`, which names a GPU by its UUID)
OLD_DEVICE_RE = re.compile(
    rf"(?:^|[\s,='\"])device\s*=\s*gpu\d*\b(?!-)|{OLD_BACKEND_RAN_RE.pattern}", re.I | re.M
)
# nvcc compiled and failed: its own words, Theano's old back-end compiling with it (its device,
# its cuda_ndarray.cu, its ERROR line), or nvcc named beside a failure in prose
NVCC_FAILED_RE = re.compile(
    r"nvcc return status|nvcc fatal|Failed to compile cuda_ndarray\.cu|ERROR \(theano\.sandbox\.cuda\)|"
    r"\bnvcc\b[^\n]{0,120}\b(?:error|fail|not (?:work|compatible|supported)|incompatible|refuse|support)"
    r"|\b(?:error|fail|not (?:work|compatible)|incompatible)[^\n]{0,120}\bnvcc\b",
    re.I,
)
# NVIDIA's CUDA images without the toolkit: `base` (libcudart) and `runtime` (the shared
# libraries; a cudnnN-runtime tag adds libcudnn alone) have no nvcc and no headers, which only
# `devel` adds (nvidia.github.io/container-wiki toolkit/container-images: "devel: extends the
# runtime image by adding the compiler toolchain, the debugging tools, the headers and the static
# libraries"); tags such as nvidia/cuda:8.0-cudnn5-runtime-ubuntu14.04, nvidia/cuda:10.0-base
TOOLKIT_ABSENT_IMAGE_RE = re.compile(r"\bnvidia/cuda:[\w.-]*?\b(?:runtime|base)\b[\w.-]*", re.I)
DNN_OFF_RE = re.compile(
    r"\bdnn\.enabled\s*=\s*(?:False|0|no)\b|\[dnn\][^\[]*?\benabled\s*=\s*(?:False|0|no)\b", re.I
)
WINDOWS_RE = re.compile(r"\b[A-Z]:\\\\?[\w$ .-]+\\|\.dll\b|\bwin-64\b|\bwin_amd64\b|\bwin32\b", re.I)
LINUX_RE = re.compile(r"(?:^|[\s'\"(])/(?:usr|home|opt|root)/|\blinux-64\b|\.so\b|manylinux", re.M)


def _lines(text: str) -> Iterator[tuple[int, str]]:
    start = 0
    for line in text.splitlines():
        yield start, line
        start += len(line) + 1


def _line_at(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return text[start : end if end != -1 else len(text)].strip()[:300]


# a version that is a program's requirement or history, not what is installed: "deprecated in
# NumPy 1.20", "requires numpy >= 1.16", "Theano 1.0 or higher", "since cuDNN 8" (not the REPL's
# `>>> ` prompt)
NOT_INSTALLED_BEFORE = re.compile(
    r"(?:deprecated|removed|introduced|added|since|requires?|required|needs?|expired|as of|before|after|"
    r"until|up to|upgrade to|downgrade to|(?<!>)>(?!>)=?|<=?|~=|!=)\s*(?:in\s+|to\s+|from\s+)?\S*\s*$",
    re.I,
)
# ... and a version a solver refused (libmamba's tree: `theano 1.0.4** is not installable because
# it requires`, mamba-org/mamba libmamba/src/solver/problems_graph.cpp:1443)
NOT_INSTALLED_AFTER = re.compile(
    r"^\S*[ \t]*(?:or (?:higher|later|newer|above)|and (?:above|up|later)|\+(?!cu|cpu|rocm)"
    r"|is not installable\b)",
    re.I,
)


def _installed(text: str, m: re.Match[str]) -> bool:
    before = text[max(0, m.start() - 24) : m.start()]
    return not NOT_INSTALLED_BEFORE.search(before) and not NOT_INSTALLED_AFTER.search(
        text[m.end() : m.end() + 24]
    )


def extract(text: str) -> list[Fact]:
    """Every fact the paste states without contradiction, with its line."""
    seen: dict[str, list[Fact]] = {}
    for path, pattern, value in RULES:
        for m in pattern.finditer(text):
            if not _installed(text, m):
                continue
            found = value(m) if value else m.group(1)
            seen.setdefault(path, []).append(Fact(path, found, _line_at(text, m.start())))
    gpus = []
    for m in NAME_RE.finditer(text):
        cc = compute_capability(m.group(0))
        if cc:
            gpus.append(Fact("gpu", {"name": m.group(0), "cc": cc}, _line_at(text, m.start())))
    if gpus and len({g.value["cc"] for g in gpus}) == 1:
        seen["gpu"] = gpus[:1]
    windows, linux = WINDOWS_RE.search(text), LINUX_RE.search(text)
    if bool(windows) != bool(linux):
        where = windows or linux
        assert where is not None
        system = "win32" if windows else "linux"
        seen["platform.sys_platform"] = [Fact("platform.sys_platform", system, _line_at(text, where.start()))]
    facts = []
    for found in seen.values():
        agreed = _agreed(found)
        if agreed is not None:
            facts.append(agreed)
    return facts


def _agreed(found: list[Fact]) -> Fact | None:
    """The most precise of facts that agree (1.24 and 1.24.3 agree; 1.24 and 1.23 do not), or
    None on a contradiction."""
    if any(isinstance(f.value, dict) for f in found):
        return found[0]
    texts = [str(f.value).split(".") for f in found]
    longest = max(texts, key=len)
    if all(t == longest[: len(t)] for t in texts):
        return next(f for f, t in zip(found, texts, strict=True) if t is longest)
    return None


def as_probe_facts(facts: list[Fact]) -> dict[str, Any]:
    """The facts in the probe's shape (``imports.numpy.version`` ...), with ``log_sources``: each
    path's line, for the evidence."""
    out: dict[str, Any] = {"log_sources": {}}
    for f in facts:
        if f.path == "gpu":
            out.setdefault("cuda", {}).setdefault("driver", {})["devices"] = [f.value]
        else:
            node = out
            *parents, leaf = f.path.split(".")
            for key in parents:
                node = node.setdefault(key, {})
            node[leaf] = f.value
        out["log_sources"][f.path] = f.line
    for name in ("theano", "pygpu", "numpy"):
        if name in out.get("imports", {}):
            out["imports"][name]["found"] = True
    return out


# Keras' check of an array against a model's input or output, standardize_input_data: Keras 1's
# keras/engine/training.py (`'Error when checking ' + exception_prefix + ': expected ' + names[i]
# + ' to have shape ' + str(shapes[i]) + ' but got array with shape ' + str(array.shape)`: the
# model's batch axis None, the array's a number; 1.0.7's line 108 in a pasted traceback) and
# Keras 2.2's keras/engine/training_utils.py (lines 143-145: both shapes without the batch axis
# when it is not checked). Python 2's numpy prints a long as `224L`.
KERAS_SHAPE_CHECK_RE = re.compile(
    r"Error when checking [^\n]{0,40}?: ?expected \w+ to have shape \((?P<expected>[^()\n]*)\)"
    r" but got array with shape \((?P<got>[^()\n]*)\)"
)
CHANNELS = (1, 3, 4)  # an image's channels: grey, RGB, RGBA


def _dims(shape: str) -> list[int | None] | None:
    """A printed shape's dimensions (`None` for an undefined one), or None if it is not a shape."""
    dims: list[int | None] = []
    for part in (p.strip().rstrip("Ll") for p in shape.split(",")):
        if part == "None":
            dims.append(None)
        elif part.isdigit():
            dims.append(int(part))
        elif part:
            return None
    return dims


def _channels_moved(expected: list[int | None], got: list[int | None]) -> int | None:
    """The channel count moved between the channels-first place and the last (the rest of the
    order kept), the one difference between ``expected`` and ``got``; None otherwise."""
    for start in range(len(expected) - 2):
        head, want, have = expected[:start], expected[start:], got[start:]
        if got[:start] != head or want == have:
            continue
        if want[0] in CHANNELS and have == want[1:] + want[:1]:  # first -> last
            return want[0]
        if want[-1] in CHANNELS and have == want[-1:] + want[:-1]:  # last -> first
            return want[-1]
    return None


# Keras's refusal of saved weights of another shape (keras/engine/topology.py Layer.set_weights,
# 2.0.x at 001c03d: 'Layer weight shape ' + str(pv.shape) + ' not compatible with provided weight
# shape ' + str(w.shape)): a convolution's kernel is (out, in, rows, cols) under the 'th'
# ordering and (rows, cols, in, out) under 'tf'
KERAS_WEIGHT_SHAPE_RE = re.compile(
    r"Layer weight shape \((?P<layer>[\d, ]+)\) not compatible with provided weight shape"
    r" \((?P<given>[\d, ]+)\)"
)


# TensorFlow's refusal to assign the saved kernel to the variable (Keras 2's backend
# batch_set_value, an Assign op): its shape-inference words (tensorflow/core/framework/
# shape_inference.cc, InferenceContext::Merge: "Dimension ", i, " in both shapes must be equal,
# but are ", ...) and the op and its input shapes after them (u/theano/Veleslavia-EUSIPCO2017_...2)
TF_ASSIGN_SHAPES_RE = re.compile(
    r"in both shapes must be equal, but are \d+ and \d+ for '[^'\n]*' \(op: 'Assign'\)"
    r" with input shapes: \[(?P<layer>[\d, ]+)\], \[(?P<given>[\d, ]+)\]"
)


def _kernel_layouts_differ(layer: list[int | None], given: list[int | None]) -> bool:
    """One 4-D kernel in the 'tf' layout and the other in 'th', the same kernel size and outputs."""
    if len(layer) != 4 or len(given) != 4:
        return False
    tf_th = layer[:2] == given[2:] and layer[3] == given[0]
    th_tf = given[:2] == layer[2:] and given[3] == layer[0]
    return tf_th or th_tf


def keras_ordering_mismatch(text: str) -> str | None:
    """Keras's shape check where the array holds the model's dimensions with the image channels at
    the other end, or its refusal of a convolution kernel saved in the other ordering's layout:
    code for the channels-first ('th') ordering run with the channels-last ('tf') one, or the
    reverse."""
    for m in KERAS_SHAPE_CHECK_RE.finditer(text):
        expected, got = _dims(m["expected"]), _dims(m["got"])
        if not expected or not got:
            continue
        if expected[0] is None:  # Keras 1's full shapes: drop the batch axis of both
            expected, got = expected[1:], got[1:]
        if len(expected) != len(got) or len(expected) < 3 or None in expected:
            continue
        channels = _channels_moved(expected, got)
        if channels:
            return (
                f"Keras expected ({m['expected']}) and got ({m['got']}): the same dimensions, the"
                f" {channels} channels at the other end (channels-first 'th' against channels-last 'tf')"
            )
    refusals = ((KERAS_WEIGHT_SHAPE_RE, "Keras's layer kernel"), (TF_ASSIGN_SHAPES_RE, "an Assign of"))
    for regex, where in refusals:
        for m in regex.finditer(text):
            layer, given = _dims(m["layer"]), _dims(m["given"])
            if layer and given and _kernel_layouts_differ(layer, given):
                return (
                    f"{where} ({m['layer']}) against saved weights ({m['given']}): the same kernel in"
                    " the other ordering's layout ('th' out, in, rows, cols; 'tf' rows, cols, in, out)"
                )
    return None


# pip's resolver (pip/_internal/resolution/resolvelib/factory.py, and the legacy resolver's
# package_finder.py): "Could not find a version that satisfies the requirement %s (from
# versions: %s)", the versions listed being those with a build this Python and platform can use
# where pip says a requirement came from, between it and the versions it lists: `(from cnocr)`,
# `(from -r requirements.txt (line 1))`
REQUIRED_BY = r"(?:\s*\(from (?!versions)[^()\n]*(?:\([^()\n]*\))?[^()\n]*\))?"
PIP_NOT_FOUND_RE = re.compile(
    r"satisfies the requirement\s+(?P<name>[\w.-]+)\s*(?P<op>==|<=|<)\s*(?P<want>\d+(?:\.\d+)*)[^\s(]*"
    rf"[^(\n]*{REQUIRED_BY}\s*\(from versions:? (?P<listed>[^)\n]*)\)",
    re.I,
)


def _above(version: str, op: str, want: str) -> bool:
    """``version`` is outside the upper bound ``op want`` (``==``, ``<=`` or ``<``)."""
    if op == "<":
        return version_key(version) >= version_key(want)
    return version_key(version) > version_key(want)


def pin_older_than_builds(text: str) -> str | None:
    """A pinned release (or an upper bound: `<=1.14.0`, `<2`) older than every release pip lists
    for this Python: PyPI keeps old releases, so the ones asked for have no build for this
    Python (newer than those releases)."""
    for m in PIP_NOT_FOUND_RE.finditer(text):
        # each listed version's release number (2.2.0rc1 is 2.2.0: its "1" is no version)
        listed = re.findall(r"(?<![\w.])\d+(?:\.\d+)*", m["listed"])
        released = pypi_releases(m["name"].lower())  # torch's and mxnet's file lists
        if released and all(_above(v, m["op"], m["want"]) for v in released):
            continue  # no such release on PyPI at all (torch 0.4.1 left it): another index's
        if listed and all(_above(v, m["op"], m["want"]) for v in listed):
            pin = f"{m['name']}{m['op']}{m['want']}"
            return f"{pin} is older than every build pip lists for this Python ({listed[0]} ...)"
    return None


# pip's resolver lists the releases it skipped for their Requires-Python just before its "Could
# not find a version" (pip >= 22.1: src/pip/_internal/resolution/resolvelib/factory.py:719,
# "Ignored the following versions that require a different python version: %s", each
# "<version> Requires-Python <specifier>")
REQUIRES_PYTHON_SKIPPED_RE = re.compile(
    r"Ignored the following versions that require a different python version: (?P<skipped>[^\n]*)\n"
    r"(?:[^\n]*\n){0,2}?[^\n]*satisfies the requirement\s+(?P<name>[\w.-]+)"
    r"\s*(?:==\s*(?P<want>\d+(?:\.\d+)*))?"
    r"[^\n(]*\(from versions:? (?P<listed>[^)\n]*)\)",
    re.I,
)
# pip's "Could not find a version" for a package of the GPU stacks (a name that is no package at
# all also reads "from versions: none": only these names are judged)
PIP_STACK_REQUIREMENT_RE = re.compile(
    r"satisfies the requirement\s+(?P<name>torch|torchvision|torchaudio|mxnet(?:-cu\d+\w*|-mkl)?)\b"
    r"(?P<spec>\s*(?:(?P<op>==|>=|~=|<=|!=|<|>)\s*(?P<want>\d+(?:\.\d+)*)[^\s(,]*)"
    r"(?:\s*,\s*(?:==|>=|~=|<=|!=|<|>)\s*[\w.*+]+)*)?"
    rf"{REQUIRED_BY}(?:\s*\(from versions:? (?P<listed>[^)\n]*)\))?",
    re.I,
)
# pip could not read the index: its retries and connection errors say so, not a missing build
PIP_UNREACHABLE_RE = re.compile(
    r"Retrying \(Retry\(|SSLError|ProxyError|NewConnectionError|ConnectTimeout|Could not fetch URL|"
    r"connection broken|Temporary failure in name resolution|Max retries exceeded",
    re.I,
)


@cache
def _pypi_wheels() -> dict[str, Any]:
    return json.loads(locations.PYPI_WHEELS.read_text(encoding="utf-8"))


def pypi_wheels_only(package: str) -> bool:
    """Whether ``package`` is one PyPI has wheels of and no sdist in any release (data/pypi_wheels.json):
    pip listing none of its versions read the index and found no wheel for this Python or platform."""
    recorded = _pypi_wheels().get(package)
    return recorded is not None and recorded.get("sdist") is False


# pip's "Could not find a version" with nothing listed (pip 20.0 and later say "none"; before,
# the list is empty), for any package
PIP_NOTHING_LISTED_RE = re.compile(
    rf"satisfies the requirement\s+(?P<name>[\w.-]+)[^(\n]*{REQUIRED_BY}\s*\(from versions:? ?(?:none)?\)",
    re.I,
)


# pip's "Could not find a version" for one local version of a release (`torch==1.8.0+cu102`) while
# it lists that release with other local versions: the index has the release built for those
# (CUDA versions) and not, for this interpreter or platform, the one asked for (pip lists only
# what it can install: src/pip/_internal/index/package_finder.py keeps the candidates whose
# wheel tags this interpreter supports)
PIP_LOCAL_VERSION_RE = re.compile(
    rf"satisfies the requirement\s+(?P<name>[\w.-]+)\s*==\s*(?P<public>\d+(?:\.\d+)*)\+(?P<local>[\w.]+)"
    rf"{REQUIRED_BY}\s*\(from versions:? (?P<listed>[^)\n]*)\)",
    re.I,
)


def _local_versions_listed_instead(text: str) -> str | None:
    """A release pip lists with other local versions than the one asked for, as words."""
    for m in PIP_LOCAL_VERSION_RE.finditer(text):
        listed = {v.strip() for v in m["listed"].split(",")}
        if f"{m['public']}+{m['local']}" in listed:
            continue
        others = sorted(v for v in listed if v.startswith(f"{m['public']}+"))
        if others:
            return (
                f"pip lists {m['name']} {', '.join(others)} here, not {m['public']}+{m['local']}:"
                " that build is not published for this Python or platform"
            )
    return None


def pypi_releases(package: str) -> dict[str, list[str]]:
    """{release: the CPython tags of its wheels} of torch, torchvision, torchaudio or mxnet on PyPI
    (data/pypi_wheels.json, tools/pypi_wheels.py, read once); empty for another package."""
    return _pypi_wheels().get(package, {}).get("python_tags", {})


def _releases_with_no_build_here(name: str, spec: str, listed: str) -> list[str]:
    """The PyPI releases of ``name`` that satisfy ``spec`` when pip listed other releases but
    none of them: they exist, with no build for this interpreter or platform (pip lists only
    what it can install). A local version (`+cu118`) is another index's: not judged."""
    released = pypi_releases(name.lower())
    listed_versions = re.findall(r"\d+(?:\.\d+)*(?:\.?post\d+)?", listed)
    if not released or not listed_versions or not spec or "+" in spec:
        return []
    try:
        wanted = SpecifierSet(spec)
        matching = [v for v in released if Version(v) in wanted]
        listed_match = any(Version(v) in wanted for v in listed_versions)
    except (InvalidSpecifier, InvalidVersion):
        return []
    return [] if listed_match else matching


def no_wheel_for_python(facts: dict[str, Any], text: str) -> str | None:
    """A pip failure that is a release with no build for the paste's Python: pip skipping the
    release asked for by its Requires-Python; releases of torch, torchvision, torchaudio or mxnet
    that satisfy the request (PyPI's file lists) while pip lists others and none of them; a local
    version (`+cu102`) of a release pip lists with other local versions only; a pin of
    one whose wheels are all for other Pythons than the one stated, or of one PyPI has wheels of
    that pip found nothing of (its listing not pasted, no Python stated); or nothing at all listed for a
    64-bit Python (a 32-bit one is win32's), or of a package PyPI has wheels of only, while pip
    read the index."""
    for m in REQUIRES_PYTHON_SKIPPED_RE.finditer(text):
        skipped = re.findall(r"(\d+(?:\.\d+)*) Requires-Python", m["skipped"])
        if (m["want"] in skipped) or (not m["want"] and skipped and m["listed"].strip() == "none"):
            return f"pip skipped {m['name']} {m['want'] or ', '.join(skipped)} for its Requires-Python"
    local = _local_versions_listed_instead(text)
    if local:
        return local
    python, bits = lookup(facts, "python.version"), lookup(facts, "python.bits")
    index_read = not PIP_UNREACHABLE_RE.search(text)
    for m in PIP_STACK_REQUIREMENT_RE.finditer(text):
        listed = (m["listed"] or "").strip()
        # pip 20.0 and later say "none"; before, the list is empty (pip 19.3
        # src/pip/_internal/index.py:899: `', '.join(...)` of no candidate)
        nothing = m["listed"] is not None and listed in ("", "none")
        unlisted = _releases_with_no_build_here(m["name"], (m["spec"] or "").replace(" ", ""), listed)
        if unlisted:
            span = unlisted[0] if len(unlisted) == 1 else f"{unlisted[0]} to {unlisted[-1]}"
            return f"{m['name']} {span} on PyPI, but pip lists only {listed[:60]} here"
        releases = pypi_releases(m["name"].lower())
        want = m["want"] if m["want"] in releases else f"{m['want']}.0"
        # mxnet's wheels are py2.py3: no CPython tag to judge
        tags = releases.get(want) if m["op"] == "==" else None
        if tags and isinstance(python, str) and f"cp{python.replace('.', '')}" not in tags:
            return f"{m['name']} {want}'s wheels are for {', '.join(tags)}: none for Python {python}"
        # ... a pin of a release PyPI has (wheels only, for the CPythons of its time) that pip,
        # reading the index, found nothing of, its listing not pasted and no Python stated: no
        # build of it for this Python or platform (a Python it has wheels for leaves the index or
        # the platform, not judged)
        pinned_public = not re.search(r"==\s*[\d.]+\+", m[0])
        if (
            tags
            and python is None
            and m["listed"] is None
            and pinned_public
            and pypi_wheels_only(m["name"].lower())
            and index_read
        ):
            return (
                f"{m['name']} {want} is on PyPI (wheels for {tags[0]} to {tags[-1]} only),"
                " and pip found none for this Python or platform"
            )
        if nothing and index_read:
            if bits == 64:
                return f"pip lists no {m['name']} build at all for this 64-bit Python {python or ''}".rstrip()
            # torch publishes wheels only, for 64-bit CPythons: PyPI's torch JSON (the file
            # data/pypi_wheels.json records, sha256 f55b7eac...9f88) has no sdist and no win32 or
            # i686 wheel, nor has torchaudio's (torchvision's one sdist is 0.1.6), so nothing
            # listed is this Python's version or bitness; mxnet's -cuXY variants may instead be
            # missing for the platform or never published
            if bits is None and m["name"].lower().startswith("torch"):
                return (
                    f"pip lists no {m['name']} build at all for this Python {python or ''}".rstrip()
                    + " (torch has wheels only, for 64-bit CPythons of its release's time)"
                )
    # any package PyPI has wheels of only (no sdist: data/pypi_wheels.json): nothing listed while
    # pip read the index is no wheel for this interpreter or platform (a 32-bit Python's: win32)
    if bits != 32 and index_read:
        for m in PIP_NOTHING_LISTED_RE.finditer(text):
            if pypi_wheels_only(m["name"].lower()):
                return (
                    f"pip lists no {m['name']} build at all here, and PyPI has wheels of it only (no sdist)"
                )
    return None


# the C++ compiler Theano (Aesara, PyTensor) is set to, as its config printout shows it
# (rel-1.0.5 configparser.py:178-182: `cxx (<class 'str'>) `, `    Doc:  ...`, `    Value:  ...`)
# or a .theanorc / THEANO_FLAGS line, and the conda environment a path lies in
CXX_VALUE_RE = re.compile(
    r"(?m)^cxx \([^\n]*\)[ \t]*\n(?:[ \t]*Doc:[^\n]*\n)?[ \t]*Value:[ \t]*(?P<printed>\S+)"
    r"|(?:^|[\s,])cxx\s*=\s*(?P<set>[^\s,]+)"
)
ENV_OF_PATH_RE = re.compile(r"[/\\]envs[/\\]([^/\\\s\"']+)[/\\]")
SITE_PACKAGES_RE = re.compile(
    r"[/\\]envs[/\\]([^/\\\s\"']+)[/\\](?:lib[/\\](?:python[\d.]+[/\\])?)?[Ss]ite-packages[/\\]"
)


def theano_080_flags_beside_a_newer_theano(facts: dict[str, Any], text: str) -> str | None:
    """The macOS compile flags of Theano 0.8.0 or older refused (clang's words, as the
    theano080_mac_native_flags entry matches them) while the paste states a Theano of 0.8.1 or
    later: no such release passes them (rel-0.8.1 keeps only -target-cpu on macOS), so an old copy
    is the one imported."""
    refused = entry("theano080_mac_native_flags").all_groups[0][0]
    version = lookup(facts, "imports.theano.version")
    if not refused.search(text) or not isinstance(version, str):
        return None
    try:
        newer = Version(version) >= Version("0.8.1")
    except InvalidVersion:
        return None
    if newer:
        return (
            f"Theano {version} stated, while the compile line is of Theano 0.8.0 or older"
            " (clang refuses -target-feature)"
        )
    return None


# cmd.exe running an unquoted path that holds a space: it takes the path's first word for the
# command ("'J:\\Super' is not recognized as an internal or external command, operable program or
# batch file."), where the paste shows that word followed by the rest of the folder's name
CMD_NOT_RECOGNIZED_RE = re.compile(
    r"'(?P<head>[A-Za-z]:\\[^'\n]*?)' is not recognized as an internal or external command"
)


def path_split_at_space(text: str) -> str | None:
    """A Windows path cmd.exe cut at a space, as words."""
    for m in CMD_NOT_RECOGNIZED_RE.finditer(text):
        head = m["head"]
        whole = re.search(re.escape(head) + r" [^\s\\'\"]", text)
        if whole:
            path = text[whole.start() :].split("\n", 1)[0].strip()
            return f"cmd.exe ran `{head}` of `{path[:80]}`: the path has a space"
    return None


def cxx_of_another_env(text: str) -> str | None:
    """A compiler set in one conda environment while the traceback's packages run from another."""
    cxx = CXX_VALUE_RE.search(text)
    path = cxx and (cxx["printed"] or cxx["set"])
    cxx_env = path and ENV_OF_PATH_RE.search(path)
    running = set(SITE_PACKAGES_RE.findall(text))
    if cxx_env and running and cxx_env.group(1) not in running:
        runs = ", ".join(sorted(running))
        return f"cxx = {path}, of environment {cxx_env.group(1)}, but the packages run from {runs}"
    return None


# a container (docker, podman) in which PyTorch sees no GPU, with no CUDA error that names
# another cause: the container was started without the GPU (`docker run --gpus all`, NVIDIA's
# container toolkit), unless the paste shows it started with one
CONTAINER_RE = re.compile(r"\b(?:docker|podman|container)\b", re.I)
NO_GPU_SEEN_RE = re.compile(
    r"is_available\(\)\W{0,6}(?:=|==|is|returns?|gives|:|->|prints?)?\W{0,4}False|No CUDA GPUs are available"
)
GPU_GIVEN_OR_FAILED_RE = re.compile(
    r"--gpus|--runtime[= ]nvidia|nvidia-docker run|NVIDIA_VISIBLE_DEVICES|CUDA initialization|"
    r"CUDA error|cudaGetDeviceCount|not compiled with CUDA|\+cpu\b|Error \d{3}:|"
    # ... or nvidia-smi working where it runs (the GPU was given: another cause, as a container
    # without /dev/nvidia-uvm, x/pytorch/NVIDIA-nvidia-docker_cuda-false-uvm-device_1085.txt), or
    # an NVIDIA Jetson, whose GPU its L4T containers reach another way (a torch without CUDA
    # there is mx_cpu_build's)
    r"nvidia-smi[^\n]{0,40}\b(?:work(?:s|ed|ing)?|shows?|lists?)\b|\bjetson\b|\bagx\b|\borin\b|\bxavier\b|\bl4t\b",
    re.I,
)
# ... but nvidia-smi missing where PyTorch runs is a container the GPU was not given, whatever
# flag the paste shows elsewhere (NVIDIA's runtime mounts nvidia-smi into a GPU container:
# x/pytorch/iot-salzburg-gpu-jupyter_docker-no-gpus-flag_22.txt ran `docker run --gpus all` on
# another image, then its own without)
SMI_MISSING_RE = re.compile(r"nvidia-smi: (?:command )?not found")


def container_without_gpu(text: str) -> str | None:
    """PyTorch seeing no GPU inside a container that was not given one."""
    seen = NO_GPU_SEEN_RE.search(text)
    if not seen or not CONTAINER_RE.search(text):
        return None
    if SMI_MISSING_RE.search(text) or not GPU_GIVEN_OR_FAILED_RE.search(text):
        return f"{seen.group(0)} inside a container started without the GPU"
    return None


# pytorch.org's "Previous PyTorch Versions" (pytorch/pytorch.github.io
# _get_started/previous-versions.md): every build of v1.6.0 and older is for CUDA 10.2 or older
# (v1.6.0: 9.2, 10.1, 10.2); v1.7.0 is the first with a CUDA 11.0 build. CUDA 10.2 makes code
# up to sm_75 (gpu_fit.OLD_NVRTC), so no such build runs on an Ampere or newer GPU (cc >= 8.0):
# "GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current PyTorch
# installation ... supports CUDA capabilities sm_37 sm_50 sm_60 sm_70 sm_75" (corpus
# b/qa_rtx3090-sm86-cu102-no-kernel_83.txt)
TORCH_FIRST_CUDA11 = (1, 7)
# ... judged from a paste only where it says the GPU failed, or where nothing failed at all (a pip
# or import error beside the same versions is another cause)
CUDA_FAILED_RE = re.compile(
    r"CUDA error|no kernel image|not compatible with the current PyTorch|CUDNN_STATUS_\w+|"
    r"CUBLAS_STATUS_\w+|cuda runtime error|CUDA (?:capability|kernel)|invalid device function",
    re.I,
)


# ... or the build's own CUDA where the paste names it: a wheel's `+cu102`, conda's build string
# (`pytorch 1.4.0 py3.7_cuda10.1.243_cudnn7.6.3_0`, `0.4.1_cuda9.2`), collect_env's `CUDA used
# to build PyTorch: 10.2`: a build for CUDA 10.x or older makes no code for cc >= 8.0 whatever its
# PyTorch release (1.7.1+cu101 and 1.8.0+cu102 were published beside their CUDA 11 builds)
TORCH_BUILD_CUDA_RE = re.compile(
    r"\b(?:py)?torch(?:[=-]=?| v?)\d+\.\d+(?:\.\d+)?(?:\.dev\d+)?\+cu(?P<tag>\d{2,3})\b"
    rf"|{TORCH_BUILD_STRING}"
    r"|\bCUDA used to build PyTorch:\s*(?P<collect>\d+\.\d+)"
    rf"|{TORCH_VERSION_SHOWN}\d+\.\d+(?:\.\d+)?(?:\.dev\d+)?\+cu(?P<shown>\d{{2,3}})\b",
    re.I,
)


# ... or where nothing else failed: the paste only states the build and the GPU ("torch==1.7.1+cu101
# is too low for my RTX 3090")
ANY_ERROR_RE = re.compile(r"Error\b|error:|Exception\b|Traceback|\bfailed\b", re.I)


def torch_build_cuda(text: str) -> str | None:
    """The CUDA the stated PyTorch build is for, when the paste names one (and only one)."""
    found = set()
    for m in TORCH_BUILD_CUDA_RE.finditer(text):
        tag = m.group("tag") or m.group("shown")
        if tag:
            found.add(f"{tag[:-1]}.{tag[-1]}")
        else:
            found.add(m.group("build") or m.group("collect"))
    return found.pop() if len(found) == 1 else None


def torch_build_predates_gpu(facts: dict[str, Any], text: str) -> str | None:
    """A stated PyTorch build for a CUDA that predates the stated GPU's architecture (a paste's
    rule: the probe does not import torch)."""
    torch = lookup(facts, "imports.torch.version")
    cc, name, _ = gpu_fit.gpu_of(facts)
    if not cc or not (CUDA_FAILED_RE.search(text) or not ANY_ERROR_RE.search(text)):
        return None
    gpu = f"{name or 'this GPU'} (cc {cc})"
    build = torch_build_cuda(text)
    archs = gpu_fit.nvrtc_archs({"version": build}) if build and version_key(build)[:2] < (11, 0) else ()
    if archs and max(archs) < gpu_envs.arch_of(cc):
        return f"this PyTorch build is for CUDA {build}, making code up to sm_{max(archs)}, not for {gpu}"
    if isinstance(torch, str) and version_key(torch)[:2] < TORCH_FIRST_CUDA11 and gpu_envs.arch_of(cc) >= 80:
        return (
            f"PyTorch {torch}: every build is for CUDA 10.2 or older, which makes no code for "
            f"{gpu}; CUDA 11 builds start at PyTorch 1.7.0"
        )
    return None


# The CUDA runtime on a machine with no NVIDIA driver at all says the driver is too old:
# cudaErrorInsufficientDriver with cudaDriverGetVersion 0 (libcudart 13.0 on a driverless
# machine, tests/doctor/test_catalog_repro.py; PyTorch's c10/cuda/CUDAFunctions.cpp
# device_count_impl turns the same pair into "Found no NVIDIA driver on your system"). Where the
# paste says the machine's only GPU is not NVIDIA's, and names no NVIDIA GPU nor nvidia-smi's
# table, that is the cause.
INSUFFICIENT_DRIVER_RE = re.compile(
    r"CUDA driver version is insufficient for CUDA runtime version|cudaErrorInsufficientDriver"
    # ... or dockerd finding no device driver for `--gpus` (moby daemon/errors.go
    # incompatibleDeviceRequest), which on such a machine has no NVIDIA GPU to give
    r'|could not select device driver "[^"\n]*" with capabilities: \[\[gpu\]\]'
)
# A Singularity or Apptainer container started without --nv (or --nvccli), the options that give
# it the host's NVIDIA driver: inside, no libcuda answers, and the CUDA runtime says the driver is
# too old (cudaErrorInsufficientDriver, error 35: libcudart 13.0 says so on this driverless
# machine, test_catalog_repro.py::test_the_cuda_runtime_without_a_driver), as the dorado
# container of zf/pytorch/nanoporetech-dorado_singularity-no-nv-driver-insufficient_116.txt did
SINGULARITY_RE = re.compile(r"\b(?:singularity|apptainer)\b", re.I)
NV_OPTION_RE = re.compile(r"--nv(?:ccli)?\b|\bSINGULARITYENV_|\bAPPTAINERENV_")


def container_without_driver(facts: dict[str, Any], text: str) -> str | None:
    """The CUDA runtime's 'driver too old' inside a Singularity or Apptainer container whose
    command shows no --nv, and no driver version stated (nvidia-smi's table, read as a fact)."""
    insufficient = INSUFFICIENT_DRIVER_RE.search(text)
    if not insufficient or not SINGULARITY_RE.search(text):
        return None
    if NV_OPTION_RE.search(text) or lookup(facts, "cuda.driver.driver_version"):
        return None
    return f"{insufficient.group(0)} inside a Singularity/Apptainer container with no --nv shown"


# A Mac with Apple's own GPU: PyTorch publishes no CUDA build for macOS at all (its install
# selector's data, pytorch/pytorch.github.io site/published_versions.json, macos pip cuda.x: "#
# CUDA is not available on MacOS, please use default package"), so a CPU build asked for CUDA
# there is mx_cpu_build's cause itself (the fix: the MPS device or the CPU), not a driver
APPLE_GPU = r"\bApple (?:M\d|silicon)\b|\bM[1-4] (?:chip|Pro|Max|Ultra)\b"
APPLE_GPU_RE = re.compile(APPLE_GPU + r"|\bmacbook\b", re.I)
OTHER_GPU_RE = re.compile(
    r"\b(?:integrated|onboard|on-board)\b[^\n]{0,40}\b(?:GPU|graphics)\b"
    # (® copied as "(R)" or " R", and Iris's I read as l)
    r"|\bIntel(?:\(R\)|®| R)? (?:[Il]ris|UHD|HD|Xe)(?:(?:\(R\)|®| R)? Xe)? Graphics"
    r"|\b[Il]ris(?:\(R\)|®| R)? ?Xe\b|\bAMD Radeon\b"
    rf"|{APPLE_GPU}"
    r"|\bmacbook ?(?:pro|air)?\b[^\n]{0,30}\bM[1-4]\b"
    r"|\bno (?:NVIDIA|dedicated|discrete) (?:GPU|graphics|card)"
    r"|\b(?:don't|do not|doesn't|does not|dont) have (?:an? |any )?(?:NVIDIA|dedicated|discrete)"
    r" (?:GPU|graphics|card)",
    re.I,
)
NVIDIA_GPU_NAMED_RE = re.compile(r"\b(?:GeForce|Quadro|Tesla|RTX|GTX|TITAN)\b|Driver Version:", re.I)


def no_nvidia_gpu_stated(text: str) -> str | None:
    """The CUDA runtime's 'driver too old' (or Docker's 'no device driver for --gpus', or a CPU
    build asked for the GPU, in mx_cpu_build's words: a CUDA build would not mend it there) on a
    machine the paste says has no NVIDIA GPU."""
    other = OTHER_GPU_RE.search(text)
    if not other or NVIDIA_GPU_NAMED_RE.search(text):
        return None
    cpu_build = any(p.search(text) for p in entry("mx_cpu_build").patterns)
    insufficient_driver = INSUFFICIENT_DRIVER_RE.search(text)
    if not cpu_build and not insufficient_driver:
        return None
    if not insufficient_driver and APPLE_GPU_RE.search(other.group(0)):
        return None
    said = _line_at(text, other.start())
    return f"{said} (no NVIDIA GPU named): no NVIDIA driver answers there"


# `conda info` and `mamba info` list the machine's virtual packages (conda 26.7.1
# conda/cli/main_info.py:373-376, "virtual packages : " and one `__name=version=build` a line);
# __cuda is there only where the NVIDIA driver's library loads (conda/plugins/virtual_packages/
# cuda.py: cuda_version() is None without it) or CONDA_OVERRIDE_CUDA sets it. conda-forge's CUDA
# builds of PyTorch (build string cuda*, pytorch-gpu) depend on __cuda (pytorch-cpu-feedstock
# recipe/meta.yaml: run `__cuda  # [cuda_compiler_version != "None"]`), so they cannot be solved
# on such a machine: a paste whose listing lacks __cuda beside such a spec is that cause even when
# its solver error was cut away.
VIRTUAL_PACKAGES_RE = re.compile(r"virtual packages\s*:\s*(__\w+=[^\n]*(?:\n[ \t]+__\w+=[^\n]*)*)")
CUDA_BUILD_SPEC_RE = re.compile(r"=\*?cuda\*|\bpytorch-gpu\b", re.I)


def no_cuda_virtual_package(text: str) -> str | None:
    """A Linux or Windows conda listing no __cuda beside a CUDA build asked for."""
    listing = VIRTUAL_PACKAGES_RE.search(text)
    spec = CUDA_BUILD_SPEC_RE.search(text)
    if not listing or not spec or "__cuda" in listing.group(1):
        return None
    if not re.search(r"__(?:linux|win)\b", listing.group(1)):
        return None
    found = " ".join(listing.group(1).split())
    return f"virtual packages: {found} (no __cuda: no NVIDIA driver seen), beside {spec.group(0)}"


# PyMC3's own check of the Theano it imported (pymc3 3.11.2 pymc3/__init__.py:34-41 and 3.11.5
# :62-78, below Theano-PyMC 1.1.2: "The installed Theano(-PyMC) version (%s) does not match the
# PyMC3 requirements."; PyPI wheels pymc3-3.11.2-py3-none-any.whl sha256
# d1cbd8a58ab57d933aa6648093656a26b89d6d960112bdcca724f3490c96446e and
# pymc3-3.11.5-py3-none-any.whl 6040163a1be90db80721d5ac0be2076135d776e6c631abaf0447747590994b3e)
PYMC3_THEANO_RE = re.compile(
    r"The installed Theano\(-PyMC\) version \((?P<version>\d+\.\d+[^)\s]*)\) does not match the PyMC3"
)
# ... beside pip or a listing saying Theano-PyMC is installed all the same
THEANO_PYMC_INSTALLED_RE = re.compile(
    r"Requirement already satisfied: theano-pymc\b|Successfully installed [^\n]*\btheano-pymc-\d"
    r"|^[ \t]*theano-pymc[ \t]+\d+\.\d+",
    re.I | re.M,
)


# conda's classic solver naming a conflict between a version the user pinned and a range a
# requested package's builds depend on: conda 4.7.12 to 26.x conda/exceptions.py
# UnsatisfiableError ("Package %s conflicts for:", then one `a -> b[version='...']` chain a
# line, the requested spec alone on its own line: 4.14.0:744, 26.5.0:1000), and 4.3-4.6's form
# ("found to be in conflict:", `  - pytorch 1.0.1* -> cudatoolkit >=10.0.130,<10.1.0a0` beside
# `  - cudatoolkit 10.1*`: 4.6.14:646). Where the pin lies outside every range a chain asks of
# that package, no build pairs the two: the pins conflict. Python's key is no_build_for_python's,
# a virtual package's (`__cuda`) the driver's.
CONFLICT_BLOCK_RE = re.compile(r"Package ([A-Za-z0-9][\w.-]*) conflicts for:[ \t]*\n((?:[ \t]*\S[^\n]*\n?)+)")
CONFLICT_43_RE = re.compile(r"found to be in conflict:[ \t]*\n((?:[ \t]*- [^\n]+\n?)+)")


def _pinned_outside(pin: str, ranges: list[str]) -> bool:
    """``pin`` (conda's `10.0`, `10.1*`: a version and its patch releases) lies outside each of
    ``ranges`` (`>=10.1,<10.2`, conda's and PEP 440's operators alike)."""
    try:
        versions = [Version(v) for v in (pin, f"{pin}.0", f"{pin}.999999")]
        specs = [SpecifierSet(r.replace(" ", "")) for r in ranges]
    except (InvalidVersion, InvalidSpecifier):
        return False
    return all(not spec.contains(v, prereleases=True) for spec in specs for v in versions)


def pins_conflict(text: str) -> str | None:
    """A package version pinned beside a requested package whose builds need another version
    of it (conda's conflict report): `cudatoolkit=10.0` beside `pytorch=1.3.1 ->
    cudatoolkit[version='>=10.1,<10.2']`."""
    blocks = [(m.group(1), m.group(2)) for m in CONFLICT_BLOCK_RE.finditer(text)]
    for m in CONFLICT_43_RE.finditer(text):
        lines = m.group(1)
        for name in set(re.findall(r"-> ([A-Za-z0-9][\w.-]*) [<>=!~]", lines)):
            blocks.append((name, lines))
    for name, lines in blocks:
        if name.lower() == "python":
            continue
        dep = re.escape(name)
        pins = re.findall(rf"(?m)^[ \t]*(?:- )?{dep}(?:==?|[ \t]+)(\d[\w.]*?)\*?[ \t]*$", lines)
        ranges = re.findall(rf"-> {dep}(?:\[version='([^']+)'\]| ([<>=!~][^\s\]]*))[ \t]*$", lines, re.M)
        wanted = [a or b for a, b in ranges]
        for pin in pins:
            if wanted and _pinned_outside(pin, wanted):
                need = " or ".join(sorted(set(wanted)))
                return f"{name} pinned to {pin}, where the builds asked for need {name} {need}"
    return None


def pymc3_theano_beside_theano_pymc(text: str) -> str | None:
    """PyMC3 imported Theano older than Theano-PyMC 1.1 while Theano-PyMC is installed: both
    packages install the module `theano`, and the one imported is not the one pip reports."""
    imported = PYMC3_THEANO_RE.search(text)
    installed = THEANO_PYMC_INSTALLED_RE.search(text)
    if imported is None or installed is None or version_key(imported["version"]) >= (1, 1):
        return None
    return f"PyMC3 imported Theano {imported['version']} although {installed.group(0).strip()!r}"


# conda's hint for a virtual package (UnsatisfiableError "incompatible with your system", conda
# 4.10 ... 26.7: the specs, then "Your installed version is: %s") naming __glibc, where the
# installed version is below a constraint it lists. (Where it meets them all, glibc is not what
# failed, and the hint does not say what did: a package missing from the channels, or a conflict.)
GLIBC_CONSTRAINT_RE = re.compile(r"__glibc\[version='>=?(\d+\.\d+)'\]")
INSTALLED_VIRTUAL_RE = re.compile(r"Your installed version is: (\d+\.\d+)")


def glibc_hint_below(text: str) -> str | None:
    """conda's __glibc hint where the installed glibc is older than a constraint it lists."""
    installed = INSTALLED_VIRTUAL_RE.search(text)
    wanted = GLIBC_CONSTRAINT_RE.findall(text)
    if not installed or not wanted or "incompatible with your system" not in text:
        return None
    newest = max(wanted, key=version_key)
    if version_key(newest) <= version_key(installed[1]):
        return None
    return f"conda names __glibc >= {newest}; the glibc installed is {installed[1]}"


# the conda environment the paste activates (`conda activate NAME`) and the ones its traceback's
# frames run in: a site-packages of the install's base (`anaconda3/lib/python3.8/site-packages`,
# Windows' `Anaconda3\Lib\site-packages`) or of `envs/NAME`; an import failing in another
# environment than the one activated is a kernel, IDE or shell running another Python
ACTIVATED_ENV_RE = re.compile(r"\bconda activate ([\w.-]+)")
CONDA_FRAME_ENV_RE = re.compile(
    r"[/\\](?:ana|mini)(?:conda|forge)3?[/\\](?:envs[/\\](?P<env>[\w.-]+)[/\\])?[Ll]ib[/\\]"
    r"(?:python[\d.]+[/\\])?site-packages[/\\]",
    re.I,
)
IMPORT_FAILED_RE = re.compile(r"\b(?:ModuleNotFoundError|ImportError)\b|No module named ")


def activated_env_not_running(text: str) -> str | None:
    """`conda activate NAME` in the paste, and an import that failed in frames of another
    environment of the same install (its base, or envs/OTHER)."""
    activated = {m[1] for m in ACTIVATED_ENV_RE.finditer(text)} - {"base"}
    if len(activated) != 1 or not IMPORT_FAILED_RE.search(text):
        return None
    [name] = activated
    ran = {m["env"] or "base" for m in CONDA_FRAME_ENV_RE.finditer(text)}
    if not ran or name in ran:
        return None
    where = ", ".join(sorted("the base environment" if e == "base" else f"envs/{e}" for e in ran))
    return f"`conda activate {name}`, but the failing import ran in {where}"


# pip's refusal of a wheel by its tags (pip 9.0.3 to 25.3: "{} is not a supported wheel on this
# platform."), the wheel's file name parsed by PEP 427 (name-version[-build]-python-abi-platform)
WHEEL_REFUSED_RE = re.compile(
    r"([\w.]+)-[\w.+!]+(?:-\d\w*)?-(cp|py)(\d)(\d+)-(\w+)-(\w+)\.whl"
    r" is not a supported wheel on this platform"
)
WHEEL_PLATFORM_OS = (("win_amd64", "win32"), ("manylinux", "linux"), ("linux_x86_64", "linux"))
THIRTY_TWO_BIT_RE = re.compile(r"(?i)\b32[- ]?bit\b|\bwin32\b")
# the interpreter's own words for its version (`python --version`, the REPL's banner)
PYTHON_SAYS_RE = re.compile(r"(?m)^[ \t>]*Python (3)\.(\d+)\.\d+\b")


def pip_of_another_python(facts: dict[str, Any], text: str) -> str | None:
    """pip refusing a wheel whose tags fit the Python the paste shows (its version as that python
    printed it, a Python 3 one, 64-bit, its platform from the paste's paths): the pip that ran
    belongs to another Python (a bare `pip` on PATH beside an embedded or a venv's python)."""
    m = WHEEL_REFUSED_RE.search(text)
    said = {f"{v[0]}.{v[1]}" for v in PYTHON_SAYS_RE.findall(text)}
    if not m or len(said) != 1 or THIRTY_TWO_BIT_RE.search(text):
        return None
    wheel_python = f"{m[3]}.{m[4]}"
    wanted_os = next((os_ for tag, os_ in WHEEL_PLATFORM_OS if m[6].startswith(tag)), None)
    if said != {wheel_python} or wanted_os is None or lookup(facts, "platform.sys_platform") != wanted_os:
        return None
    return (
        f"pip refused a {m[2]}{m[3]}{m[4]} {m[6]} wheel, while the python the paste shows is "
        f"{wheel_python} on that platform: that pip is another Python's"
    )


# a driver too old for the build's CUDA (gpu_fit.DRIVER_FLOOR) is judged where the paste says the
# GPU is unusable: PyTorch sees none, a CUDA call failed, or the driver is named beside the failure
GPU_UNUSABLE_RE = re.compile(
    rf"{NO_GPU_SEEN_RE.pattern}|{CUDA_FAILED_RE.pattern}|CUDA initialization|\bdriver\b[^\n]{{0,80}}"
    r"\b(?:too old|insufficient|update|upgrade|old)\b|Compile with USE_CUDA|num_gpus\(\)\W{0,6}0\b",
    re.I,
)


# mxnet's count of GPUs read as 0 (`mx.context.num_gpus()` then "0", "#0", "is coming only 0"):
# a CPU build always says so (include/mxnet/base.h:440-456, Context::GetGPUCount's #else); a
# CUDA build (an mxnet-cuXY package named) only without a driver or a visible device
MXNET_NO_GPU_COUNTED_RE = re.compile(
    r"\bmx(?:net)?\.(?:context\.)?num_gpus\(\)\)?[\s\S]{0,80}?[\s\"#]0(?:[\s\".]|$)"
)
MXNET_CUDA_BUILD_RE = re.compile(r"mxnet[-_]cu\d+", re.I)

# ROCm's HIP runtime finding no code object of a ROCm build for the AMD GPU's gfx architecture
# (ROCm/clr hipamd/src/hip_code_object.cpp:571 at f9f995c6, rocm-5.6.0 :506: "hipErrorNoBinaryForGpu:
# Unable to find code object for all current devices!"; hip_error.cpp:106-107 names the error): the
# build has no kernels for this GPU. Judged here because old_gpu's text rules are off for ROCm
# pastes, where PyTorch's CUDA-capability warning is spurious
ROCM_NO_CODE_OBJECT_RE = re.compile(
    r"hipErrorNoBinaryForGpu|Unable to find code object for all current devices", re.I
)


def driver_below_runtime(facts: dict[str, Any], text: str) -> str | None:
    """A driver (nvidia-smi's "CUDA Version", or its version by the release notes' table) older
    than the CUDA the paste's build or toolkit runs (gpu_fit.DRIVER_FLOOR), where the GPU failed."""
    runtime = lookup(facts, "cuda.nvrtc.version")
    driver_cuda = lookup(facts, "cuda.driver.version")
    driver = lookup(facts, "cuda.driver.driver_version")
    if not isinstance(driver_cuda, str) and isinstance(driver, str):
        driver_cuda = gpu_fit.driver_cuda_of(driver)
    if not isinstance(runtime, str) or not isinstance(driver_cuda, str) or "+cpu" in text:
        return None
    if not gpu_fit.driver_below_runtime(driver_cuda, runtime) or not GPU_UNUSABLE_RE.search(text):
        return None
    by = f"driver {driver} (" if isinstance(driver, str) else "the driver ("
    return f"{by}CUDA {driver_cuda} at most) runs no CUDA {runtime} runtime"


# libgpuarray in the paste (its Python module, Theano's back-end on it, or a fork's): the GPU
# rules about libgpuarray's own code (gpu_fit: 0.7.6's truncated Blackwell arch) judge only there
LIBGPUARRAY_USED_RE = re.compile(r"(?i)pygpu|libgpuarray|gpuarray|\btheano\b|\baesara\b")


# NVRTC refusing the architecture it was given (nvrtc.h NVRTC_ERROR_INVALID_OPTION; NVRTC's own
# line, as libgpuarray 0.7.6 passes its log on: src/gpuarray_buffer_cuda.c:1101)
NVRTC_ARCH_REFUSED_RE = re.compile(r"NVRTC_ERROR_INVALID_OPTION|invalid value for --gpu-architecture")


def blackwell_arch_refused(facts: dict[str, Any], text: str) -> str | None:
    """NVRTC refusing the architecture where the paste names a GPU of cc 10.0 or later and no NVRTC
    version: whatever the NVRTC, libgpuarray 0.7.6 asked it for compute_10 or compute_12
    (gpu_envs.TRUNCATED_FROM), which none accepts."""
    cc = gpu_fit.gpu_of(facts)[0]
    refused = NVRTC_ARCH_REFUSED_RE.search(text)
    if not cc or not refused or not gpu_envs.VERSION_RE.match(cc):
        return None
    if gpu_envs.arch_of(cc) < gpu_envs.TRUNCATED_FROM:
        return None
    major = cc.split(".")[0]
    return (
        f"cc {cc}: libgpuarray 0.7.6 truncates compute_{gpu_envs.arch_of(cc)} to compute_{major}, "
        f"which no NVRTC accepts (the paste: {refused.group(0)})"
    )


def derive_from_log(facts: dict[str, Any], text: str) -> dict[str, Any]:
    """The derived facts a paste can support (facts.derive's others need a probe): the device
    Theano was given, whether cuDNN was turned off, and the GPU rules (gpu_fit)."""
    derived: dict[str, Any] = {}
    cuda_stated = any(
        lookup(facts, p) for p in ("cuda.cudnn.version", "cuda.nvrtc.version", "cuda.driver.devices")
    )
    theano = lookup(facts, "imports.theano.found")
    # Theano on the GPU: its device setting or its own line, or Theano beside a CUDA the paste names
    old_device = OLD_DEVICE_RE.search(text)
    if old_device:
        derived["device"] = "gpu"
    if OLD_BACKEND_RAN_RE.search(text):
        derived["old_backend_ran"] = True
    if CUDA_DEVICE_RE.search(text) or (theano and cuda_stated and not old_device):
        derived["cuda_device"] = derived["gpu_device"] = True
    image = TOOLKIT_ABSENT_IMAGE_RE.search(text)
    if image:
        derived["toolkit_absent_image"] = image.group(0)
    derived["dnn_not_disabled"] = not DNN_OFF_RE.search(text)
    split = path_split_at_space(text)
    if split:
        derived["path_split_at_space"] = split
    if DNN_FAILED_RE.search(text):
        derived["dnn_failed"] = True
    lasagne_keyword = theano_api.lasagne_keyword_added(text, facts)
    if lasagne_keyword:
        derived["lasagne_keyword_added"] = lasagne_keyword
    dropped = theano_api.dropped_theano_named(text)
    if dropped:
        derived["theano_name_dropped"] = dropped
    newer = theano_api.newer_theano_asked(text, facts)
    if newer:
        derived["theano_name_added"] = newer
    if NVCC_FAILED_RE.search(text) and host_platform(facts) != "win":
        refused = nvcc_host.refused_gcc(facts)  # Windows' nvcc compiles with cl.exe, not gcc
        if refused:
            derived["nvcc_refuses_gcc"] = refused
    predates = torch_build_predates_gpu(facts, text)
    if predates:
        derived["torch_build_predates_gpu"] = predates
    for name, judged in (
        ("pin_older_than_builds", pin_older_than_builds),
        ("foreign_gxx", cxx_of_another_env),
        ("container_without_gpu", container_without_gpu),
        ("no_cuda_virtual_package", no_cuda_virtual_package),
        ("no_nvidia_gpu_stated", no_nvidia_gpu_stated),
        ("glibc_hint_below", glibc_hint_below),
        ("env_mismatch", activated_env_not_running),
        ("keras_ordering_mismatch", keras_ordering_mismatch),
        ("pins_conflict", pins_conflict),
    ):
        found = judged(text)
        if found:
            derived[name] = found
    both = pymc3_theano_beside_theano_pymc(text) or theano_080_flags_beside_a_newer_theano(facts, text)
    if both:
        derived["two_theano_installs"] = both
    for name, judged_with_facts in (
        ("driver_below_runtime", driver_below_runtime),
        ("env_mismatch", pip_of_another_python),
        ("no_wheel_for_python", no_wheel_for_python),
        ("container_without_driver", container_without_driver),
    ):
        found = judged_with_facts(facts, text)
        if found:
            derived[name] = found
    no_code_object = ROCM_NO_CODE_OBJECT_RE.search(text)
    # ... not where the paste names an NVIDIA GPU (a compute capability): no AMD GPU to judge
    if no_code_object and not gpu_fit.gpu_of(facts)[0]:
        derived["rocm_no_code_object"] = no_code_object.group(0)
    counted = MXNET_NO_GPU_COUNTED_RE.search(text)
    if counted and not MXNET_CUDA_BUILD_RE.search(text):
        derived["mxnet_counts_no_gpu"] = " ".join(counted.group(0).split())  # the evidence, one line
    derived.update(gpu_fit.derive_gpu(facts))
    if not LIBGPUARRAY_USED_RE.search(text):  # libgpuarray's own arch bug needs libgpuarray
        derived.pop("arch_truncated", None)
    elif "arch_truncated" not in derived:
        refused = blackwell_arch_refused(facts, text)
        if refused:
            derived["arch_truncated"] = refused
    nvrtc_line = (facts.get("log_sources") or {}).get("cuda.nvrtc.version", "")
    if predates and TORCH_BUILD_CUDA_RE.search(nvrtc_line):
        # the CUDA those rules judge is the PyTorch build's: its missing kernels fail first
        for judged_on_it in ("nvrtc_arch", "old_cuda_new_gpu"):
            derived.pop(judged_on_it, None)
    facts["derived"] = derived
    return derived


def log_facts(text: str) -> dict[str, Any]:
    """A paste's facts in the probe's shape, derived facts included."""
    facts = as_probe_facts(extract(text))
    if THEANO_USED_RE.search(text):
        facts.setdefault("imports", {}).setdefault("theano", {})["found"] = True
    derive_from_log(facts, text)
    return facts


def diagnose_log(text: str, off: dict[str, frozenset[bytes]] | None = None) -> list[Finding]:
    """A paste's findings: what its messages name (the catalog's text patterns), then what the
    facts it states show by the catalog's fact rules, those the probe's facts are judged by; a
    fact rule whose facts the paste does not state is not judged."""
    found = diagnose_text(text, off)
    facts = log_facts(text)
    by_facts = diagnose_facts(facts, host_platform(facts), stated_only=True)
    found = confirmed_by_facts(found, by_facts)  # only where the paste states the facts it needs
    ids = {f.id for f in found}
    sources = facts.get("log_sources") or {}
    judged = []
    for finding in by_facts:
        if finding.id in ids:
            continue
        lines = [line for path, line in sources.items() if path in finding.evidence]
        said = (
            f"{finding.evidence} (the paste: {' | '.join(dict.fromkeys(lines))})"
            if lines
            else finding.evidence
        )
        judged.append(Finding(finding.entry, said))
    for i, f in enumerate(found):  # an undecided symptom the stated facts decide
        decided = next((j for j in judged if f.undecided and j.id in f.entry.candidates), None)
        if decided is not None:
            found[i] = decided
            judged.remove(decided)
    # a fact rule may explain a message's finding too: its consequence comes after every cause
    return explained_last(found + judged)
