"""The doctor on real reports damaged the way pastes are: hard-wrapped, redacted, curly or
full-width punctuation, a prefix cut off, other languages around the English error; and a DLL or
package name alone is never a cause (the error's form is). Each case starts from a corpus report
(tests/data/reports), the user's text as posted."""

from __future__ import annotations

from functools import cache

import pytest
from doctor_eval import REPORTS, read_report

from gpuforge.doctor.catalog import diagnose_text

# new entries proven on their labelled reports from several sources (test_doctor counts them)
PROVEN_ON_REPORTS = {
    "gpu_passthrough_older_than_driver",
    "nccl_shm_exhausted",
    "libcuda_unversioned_missing",
    "omp_duplicate_runtime",
    "numpy_abi_mismatch",
    "numpy_aliases_other_package",
    "conda_network_unreachable",
    "numpy_alias_removed",
    "dataloader_shm_exhausted",
    "dataloader_worker_died",
    "mmcv_ops_missing",
    "wheel_not_for_this_python",
    "torch_extension_other_torch",
    "extension_nvcc_not_torch_cuda",
    "mkl_2024_ijit",
    "keras_backend_not_theano",
    "numpy2_under_numpy1_build",
    "container_toolkit_missing",
    "conda_classic_solver_slow",
}


def text_of(name: str) -> str:
    return read_report(REPORTS / name).text


def ids(text: str) -> list[str]:
    return [f.id for f in diagnose_text(text)]


@cache
def first_findings() -> tuple[tuple[str, str, str, tuple[str, ...]], ...]:
    """(group, expected, first finding, its candidates) of every corpus report, diagnosed once."""
    out = []
    for path in sorted(REPORTS.rglob("*.txt")):
        r = read_report(path)
        found = diagnose_text(r.text)
        first = found[0] if found else None
        out.append((r.group, r.expected, first.id if first else "", first.entry.candidates if first else ()))
    return tuple(out)


@pytest.mark.parametrize("entry_id", sorted(PROVEN_ON_REPORTS))
def test_new_entries_are_proven_on_reports_from_two_sources(entry_id: str) -> None:
    """A new entry is named first on labelled reports of two repositories or sites at least; an
    undecided one lists the labelled cause among its candidates there."""
    groups = {
        group
        for group, expected, first, candidates in first_findings()
        if first == entry_id and (expected == entry_id or expected in candidates)
    }
    assert len(groups) >= 2, groups


def console_wrapped(text: str, width: int) -> str:
    """``text`` as a console copies it: every line cut each ``width`` characters, mid-word."""
    return "\n".join(
        line[i : i + width] for line in text.split("\n") for i in range(0, max(len(line), 1), width)
    )


def test_a_hard_wrapped_paste_splits_words_and_paths() -> None:
    text = text_of("b/qa_kohya-fbgemm-de-libomp140_95.txt")
    assert ids(text)[0] == "runtime_dll_beside_wheel"
    wrapped = console_wrapped(text, 80)
    assert "fbgemm.dll" not in wrapped and "Modul wurde" not in wrapped  # both cut by the wrap
    assert ids(wrapped)[0] == "runtime_dll_beside_wheel"
    omp = console_wrapped(text_of("d/csdn_omp15-kmp-duplicate_8.txt"), 61)
    assert "libiomp5md.dll already" not in omp and "OpenMP runtime have" not in omp
    assert ids(omp)[0] == "omp_duplicate_runtime"


def word_wrapped(text: str, width: int) -> str:
    """``text`` as an editor or a forum wraps it: every line broken at the last space before
    ``width`` characters, the space dropped."""
    import textwrap

    return "\n".join(
        "\n".join(textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False)) or line
        for line in text.split("\n")
    )


def test_a_paste_wrapped_between_words() -> None:
    """A message broken at a space (an editor's or a forum's wrap) is read on its lines joined by
    a space, as one broken inside a word is read on them joined by nothing."""
    text = text_of("y/pytorch/pytorch_cuda-path-driver-too-old-8000_1564.txt")
    assert ids(text)[0] == "mx_driver"
    wrapped = word_wrapped(text, 70)
    assert "NVIDIA driver" not in wrapped  # the wrap falls inside the message
    assert ids(wrapped)[0] == "mx_driver"


def test_redacted_process_ids() -> None:
    text = text_of("b/qa_dataloader-worker-exited-unexpectedly_109.txt")
    redacted = text.replace("1448, 8988", "***, ***")
    assert redacted != text
    # the worker-exit line still matches (its cause stays undecided: the worker's error is not there)
    assert ids(redacted)[0] == "dataloader_worker_died"


def test_curly_and_full_width_quotes_colons_and_brackets() -> None:
    text = text_of("b/qa_llamafactory-fbgemm-zh_96.txt")
    assert ids(text)[0] == "runtime_dll_beside_wheel"
    damaged = (
        text.replace('"', "“", 1)
        .replace('"', "”", 1)
        .replace(": ", "：", 2)
        .replace("[", "【")
        .replace("]", "】")
    )
    assert "【WinError" in damaged and "“" in damaged
    assert ids(damaged)[0] == "runtime_dll_beside_wheel"


def test_an_error_loading_line_without_its_winerror_prefix() -> None:
    """c/chenwei-zhao_...: `Erro loading “xxx\\...\\fbgemm.dll” or one of its dependencies.`, as
    posted: no error number, curly quotes, a redacted path."""
    posted = text_of("c/chenwei-zhao_fbgemm-curly-quotes-no-winerror_2.txt")
    assert ids(posted)[0] == "runtime_dll_beside_wheel"
    # error 126's message kept, its number cut: `The specified module could not be found. Error
    # loading "torch\lib\caffe2_detectron_ops.dll"` (a fresh Windows without the VC++ runtime)
    assert ids(text_of("c/Djdefrag_caffe2-detectron-ops-fresh-win10-vcredist_9.txt"))[0] == "dll_missing"
    text = text_of("b/qa_kohya-fbgemm-de-libomp140_95.txt")
    cut = text[text.index("Error loading") :]
    assert "WinError" not in cut
    assert ids(cut)[0] == "runtime_dll_beside_wheel"


@pytest.mark.parametrize(
    "before, after",
    [
        ("Привет! При запуске скрипта получаю ошибку:\n", "\nПомогите, пожалуйста, что делать?\n"),
        ("Hallo, beim Start des Skripts bekomme ich diesen Fehler:\n", "\nWeiß jemand, woran das liegt?\n"),
        ("実行すると次のエラーが出ます：\n", "\nどうすればいいですか？\n"),
        ("运行时报错如下：\n", "\n请问怎么解决？\n"),
    ],
)
def test_other_languages_around_an_english_error(before: str, after: str) -> None:
    text = text_of("c/carpedm20_torch-numpy-0xb-0xa_8.txt")
    assert ids(before + text + after)[0] == "numpy_abi_mismatch"


def test_omp_error_15_is_two_runtimes_not_a_missing_dll() -> None:
    """The DLL's name occurs, but the error's form is two copies loaded: installing intel-openmp
    (runtime_dll_beside_wheel's fix) would add a third."""
    for name in ("d/csdn_omp15-kmp-duplicate_8.txt", "c/kuaikuaikim_omp15-anaconda-library-bin_36.txt"):
        found = ids(text_of(name))
        assert found[0] == "omp_duplicate_runtime" and "runtime_dll_beside_wheel" not in found, name


def test_a_numpy_abi_error_is_named_by_the_package_that_raised_it() -> None:
    torch = diagnose_text(text_of("c/carpedm20_torch-numpy-0xb-0xa_8.txt"))
    assert [f.id for f in torch][:1] == ["numpy_abi_mismatch"]
    assert "pygpu_numpy_abi" not in [f.id for f in torch]
    assert "numpy C API mismatch: torch" in torch[0].evidence
    from test_doctor import LOGS, read_case  # pygpu's own (Theano #6099, pygpu.test())

    _, pygpu = read_case(LOGS / "upstream_pygpu_numpy_abi_6099.txt")
    assert ids(pygpu)[0] == "pygpu_numpy_abi"


# The same cause in another release's or platform's words: each text as its thread posted it.
OTHER_WORDS = [
    (
        "https://github.com/NVlabs/xmp/issues/4",
        "gcc_too_new",
        "/usr/include/string.h: In function ‘void* __mempcpy_inline(void*, const void*, size_t)’:\n"
        "/usr/include/string.h:652:42: error: ‘memcpy’ was not declared in this scope\n"
        "   return (char *) memcpy (__dest, __src, __n) + __n;",
    ),
    (
        "https://github.com/BVLC/caffe/issues/2776",
        "gcc_too_new",
        "[  2%] Building NVCC (Device) object src/caffe/CMakeFiles/cuda_compile.dir/util/"
        "cuda_compile_generated_math_functions.cu.o\n"
        "nvcc fatal   : The version ('60100') of the host compiler ('Apple clang') is not supported",
    ),
    (
        "https://github.com/cholla-hydro/cholla/issues/12",
        "gcc_too_new",
        "nvcc fatal   : The version ('10.0') of the host compiler ('Apple clang') is not supported.",
    ),
    (
        "https://github.com/pytorch/ort/issues/102",
        "mkl_threading",
        "Error: mkl-service + Intel(R) MKL: MKL_THREADING_LAYER=INTEL is incompatible with libgomp.so.1 "
        "library.\n\tTry to import numpy first or set the threading layer accordingly. Set "
        "MKL_SERVICE_FORCE_INTEL to force it.",
    ),
    (
        "https://github.com/junluan/shadow/issues/2",
        "cudnn8_theano",
        "/home/zz/work/shadow/shadow/operators/kernels/conv.cu(178): error: identifier "
        '"CUDNN_CONVOLUTION_FWD_SPECIFY_WORKSPACE_LIMIT" is undefined\n\n'
        "/home/zz/work/shadow/shadow/operators/kernels/conv.cu(178): error: identifier "
        '"cudnnGetConvolutionForwardAlgorithm" is undefined\n\n'
        '2 errors detected in the compilation of "/home/zz/work/shadow/shadow/operators/kernels/conv.cu".',
    ),
    (
        "https://github.com/Sense-X/Co-DETR/issues/31",
        "mmcv_ops_missing",
        "ModuleNotFoundError: No module named 'mmcv._ext'",
    ),
]


@pytest.mark.parametrize(
    "url, expected, text", OTHER_WORDS, ids=[u.split("github.com/")[1] for u, _, _ in OTHER_WORDS]
)
def test_the_same_cause_in_other_words(url: str, expected: str, text: str) -> None:
    assert ids(text)[:1] == [expected], url


def test_a_broken_pipe_without_the_dataloader_frames() -> None:
    """Only the user's loop over the loader and the BrokenPipeError (the tutorial's
    `for i, data in enumerate(trainloader, 0):`): the DataLoader's own frames were not pasted."""
    text = (
        'Traceback (most recent call last):\n  File "cifar10_tutorial.py", line 171, in <module>\n'
        "    for i, data in enumerate(trainloader, 0):\nBrokenPipeError: [Errno 32] Broken pipe"
    )
    assert ids(text)[:1] == ["broken_pipe"]
    # a broken pipe of a shell pipeline (`| head`) is not a DataLoader's
    assert "broken_pipe" not in ids(
        '  File "dump.py", line 3, in <module>\n    print(row)\nBrokenPipeError: [Errno 32] Broken pipe'
    )


def test_a_conda_mirror_host_spelled_wrong_or_right() -> None:
    """HTTP 000 from a host a letter or a word away from a real mirror's is the .condarc; from the
    real host it is the network; from a host gpuforge does not know it stays undecided."""

    def first(host: str) -> str:
        return ids(
            f"CondaHTTPError: HTTP 000 CONNECTION FAILED for url <https://{host}/anaconda/cloud/"
            "conda-forge/win-64/current_repodata.json>"
        )[0]

    assert first("mirrors.tua.tsinghua.edu.cn") == "channel_missing"
    assert first("nanomirrors.tuna.tsinghua.edu.cn") == "channel_missing"
    assert first("mirrors.tuna.tsinghua.edu.cn") == "conda_network_unreachable"
    assert first("mirrors.ustc.edu.cn") == "conda_connection_failed"  # real, not in mirrors.yaml
    assert first("mirrors.sjtug.sjtu.edu.cn") == "conda_connection_failed"  # another host of SJTU


def test_a_retyped_error_is_read_one_letter_off():
    """A word one edit from exactly one word of the catalog's patterns reads as that word
    (doctor/typos.py); a word the patterns spell themselves, in a group's alternatives too, is
    not a typo: "satisfied" (env_mismatch's `already satisfied|...`) stays, though pip's
    "satisfies" is one letter away."""
    from gpuforge.doctor.catalog import corrector

    assert corrector().correct("pygpu was configued") == "pygpu was configured"
    said = "reinstalling says requirement already satisfied\nImportError: No module named theano\n"
    assert corrector().correct(said) == said
    assert ids(said)[0] == "env_mismatch"
    # a word of a pattern's top-level alternative is a whole word too (conda's
    # `ResolvePackageNotFound|The following packages ...`), not one inside a group
    from gpuforge.doctor.typos import pattern_words, top_level_alternatives

    assert top_level_alternatives(r"ResolvePackageNotFound|x (Forward|Backward) [|] a\|b") == [
        "ResolvePackageNotFound",
        r"x (Forward|Backward) [|] a\|b",
    ]
    assert pattern_words([r"ResolvePackageNotFound|(Forwarding|Backwarding)"]) == {"ResolvePackageNotFound"}
    assert corrector().correct("ResolvePackagesNotFound") == "ResolvePackageNotFound"


def test_a_programs_quoted_source_is_not_its_output():
    """A paste quoting the source (a traceback's line, a developer quoting Theano's init_dev):
    the message of a `raise`, a `warnings.warn` or a `return` there may never have been raised,
    and one that was is printed on its own line too."""
    quoted = (
        "def init_dev(dev, name=None, preallocate=None):\n"
        "    if not config.cxx:\n"
        '        raise RuntimeError("The new gpu-backend need a c++ compiler.")\n'
    )
    assert ids(quoted) == []
    raised = quoted + "RuntimeError: The new gpu-backend need a c++ compiler.\n"
    assert ids(raised)[:1] == ["gpuarray_needs_cxx"]
    # ... and a message a quoted function returns (Theano 0.9's gpuarray/dnn.py _dnn_check_version)
    returned = (
        "def _dnn_check_version():\n    v = version()\n    if v < 5000:\n"
        '        return False, "cuDNN version is too old. Update to v5, was %d." % v\n'
    )
    assert ids(returned) == []
    # ... but a `raise` right under a traceback's frame line is the line that raised, in a
    # paste cut after it (Theano 1.0.5 theano/gpuarray/__init__.py:65, init_dev)
    cut = (
        '  File "/usr/lib/python3/dist-packages/theano/gpuarray/__init__.py", line 65, in init_dev\n'
        "    raise RuntimeError(\"You can't initialize the GPU in a subprocess if the parent process"
        ' already did it")\n'
    )
    assert ids(cut)[:1] == ["cuda_reinit_forked"]
    assert ids(cut.replace("raise RuntimeError(", "return False, ")) == []  # a return there raised nothing


def test_theanos_start_up_notice_of_an_old_cudnn_is_not_the_failure_after_it():
    """The old back-end's `Using gpu device` line names the cuDNN it could not use and goes on
    without it (rel-0.9.0 theano/sandbox/cuda/__init__.py:601-629): alone it names cudnn_version,
    beside an exception raised after it, nothing of cuDNN; the same message raised (the new
    back-end's `You enabled cuDNN, but we aren't able to use it`) is the failure."""
    notice = (
        "Using gpu device 0: GRID K520 (CNMeM is enabled with initial size: 75.0% of memory, cuDNN"
        " Version is too old. Update to v5, was 3007.)\n"
    )
    assert ids(notice)[:1] == ["cudnn_version"]
    failed = notice + 'Traceback (most recent call last):\n  File "x.py", line 3\nTypeError: bad call\n'
    assert "cudnn_version" not in ids(failed)
    raised = (
        "RuntimeError: You enabled cuDNN, but we aren't able to use it: cuDNN version is too old."
        " Update to v5, was 3007.\n"
    )
    assert ids(raised)[:1] == ["cudnn_version"]
    # rel-1.0.x's refusal of a cuDNN before 7.0.2 on Volta (theano/gpuarray/dnn.py:236-241), as
    # the new back-end's start-up notice (gpuarray/__init__.py:127) and raised under dnn.enabled=True
    volta = "Can not use cuDNN on context None: Use cuDNN 7.0.2 or higher for Volta.\n"
    assert ids(volta)[:1] == ["cudnn_version"]
    assert "cudnn_version" not in ids(
        volta + 'Traceback (most recent call last):\n  File "x.py", line 3\nTypeError: bad call\n'
    )
    volta_raised = (
        "RuntimeError: You enabled cuDNN, but we aren't able to use it: Use cuDNN 7.0.2 or higher"
        " for Volta.\n"
    )
    assert ids(volta_raised)[:1] == ["cudnn_version"]


def test_a_warning_is_not_the_cause_of_an_exception_after_it():
    """Theano's `g++ not available` warning (configdefaults.py: it falls back to Python code and
    goes on) names gxx_missing alone, not beside an exception raised after it (round 5's
    pylearn2 report: a renamed module) or pasted before it (round 9's ladder report)."""
    warning = (
        "WARNING (theano.configdefaults): g++ not available, if using conda: "
        "`conda install m2w64-toolchain`\n"
    )
    assert ids(warning) == ["gxx_missing"]
    failed = (
        warning
        + 'Traceback (most recent call last):\n  File "x.py", line 10\n'
        + "ImportError: cannot import name string\n"
    )
    assert ids(failed) == []
    # ... nor beside one printed before it: a report often opens with its error, then the log
    assert ids(failed.replace(warning, "") + "\n" + warning) == []
    # the gpu-backend's own exception for it (a wrapper entry): the warning's consequence
    consequence = warning + "RuntimeError: The new gpu-backend need a c++ compiler.\n"
    assert ids(consequence)[:1] == ["gxx_missing"]
