"""The log reader's typed facts (doctor/log_facts.py), on lines as the programs print them, and
the catalog's fact rules judging a paste as they judge a probe."""

from __future__ import annotations

import pytest

from gpuforge.doctor.catalog import lookup
from gpuforge.doctor.log_facts import as_probe_facts, diagnose_log, extract, log_facts

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
    # the release a user types without its second dot (3.8.4 as `3.84`)
    ("PyMC3, python 3.84, win10, Jupyter-lab", "python.version", "3.8"),
    ("Python 3.12.1", "python.version", "3.12"),
    # the interpreter a command names
    ("$ python3.9 -m pip install -r requirements.txt", "python.version", "3.9"),
    ("pip3.8 install torch==1.6.0", "python.version", "3.8"),
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
    # lists as users type them
    ("theano0.8.2", "imports.theano.version", "0.8.2"),
    ("Lasagne - 0.1 - installation through pip", "imports.lasagne.version", "0.1"),
    ("PyTorch version: 1.7.0", "imports.torch.version", "1.7.0"),
    # NVIDIA's cuDNN archive names the CUDA first and the cuDNN after `v`
    ("cudnn-7.5-windows7-x64-v5.0-ga", "cuda.cudnn.version", "5.0"),
    # the old back-end's start-up line
    ("Using gpu device 0: GeForce GTX 1080 (CNMeM is disabled, cuDNN 5105)", "cuda.cudnn.version", "5.1.5"),
    # a data-center board's suffix (NVIDIA's legacy table: K40m/K40c cc 3.5; V100S cc 7.0)
    ("Version 1.3 no longer supporting Tesla K40m?", "gpu", {"name": "Tesla K40m", "cc": "3.5"}),
    ("|   0  Tesla V100S-PCIE-32GB  On   |", "gpu", {"name": "Tesla V100S", "cc": "7.0"}),
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


def test_a_message_with_many_causes_names_the_entry_only_beside_its_facts():
    """cuBLAS's EXECUTION_FAILED is any failed kernel (an index out of range in the user's code
    among them): old_cublas_new_gpu only where the paste states an old CUDA and a new GPU."""
    message = "RuntimeError: cublas runtime error : the GPU program failed to execute at THCBlas.cu:249\n"
    assert [f.id for f in diagnose_log(message)] == []
    assert [f.id for f in diagnose_log("CUDA-9.0\n" + message)] == []  # no GPU stated
    assert [f.id for f in diagnose_log("GTX 1080 Ti, cudatoolkit 9.0\n" + message)] == []  # it fits
    assert diagnose_log("RTX 3080, cudatoolkit 10.0\n" + message)[0].id == "old_cublas_new_gpu"
    # a Turing GPU (sm_75) past CUDA 9.0's newest architecture (sm_70), and within 10.0's
    assert diagnose_log("RTX 2080 Ti, cudatoolkit 9.0\n" + message)[0].id == "old_cublas_new_gpu"
    assert [f.id for f in diagnose_log("RTX 2080 Ti, cudatoolkit 10.0\n" + message)] == []
    # ... and an sm_86 card past CUDA 11.0's newest (sm_80), within 11.1's
    assert diagnose_log("RTX 3090, cudatoolkit 11.0\n" + message)[0].id == "old_cublas_new_gpu"
    assert [f.id for f in diagnose_log("RTX 3090, cudatoolkit 11.1\n" + message)] == []


# entries whose message is a program's source text that cannot run here (a GPU): tested below on it
FROM_THE_PROGRAMS_SOURCE = {
    "keras_mxnet_backend_missing",
    "zerogpu_cuda_in_main_process",
    "linker_older_than_macos_sdk",
    "fuel_pylearn2_data_path_unset",
    "powershell_scripts_disabled",
    "torch_compile_unsupported_here",
    "gpu_too_old_for_triton",
    "triton_missing",
    "tensors_on_two_devices",
    "libuv_not_in_build",
    "conda_pins_conflict",
    "driver_library_mismatch",
    "torch_jit_compile_failed",
    "no_nvidia_gpu",
    "no_build_for_python",
    "cuda_reinit_forked",
    "cudnn_header_library_mismatch",
    "bitsandbytes_cuda_setup",
}


def test_theano_code_on_keras_tensorflow_backend():
    """Recorded texts (no TensorFlow runs here): Keras 1.2.2's TensorFlow backend refusing the one
    output Theano's function takes (tensorflow_backend.py:1911-1913), and TensorFlow's shape checks
    (common_shapes.py, common_shape_fns.cc) and Keras's Flatten where channels-first images meet
    channels-last layers, and keras.json choosing TensorFlow beside Theano. A too-small image of
    channels-last data, or a Flatten of an undefined shape, is not read as the Theano ordering."""
    refusals = [
        '  File "/usr/lib/python3.5/site-packages/keras/backend/tensorflow_backend.py", line 1913\n'
        "TypeError: `outputs` of a TensorFlow backend function should be a list or tuple.\n",
        "Using TensorFlow backend.\nValueError: Filter must not be larger than the input: "
        "Filter: (8, 8) Input: (4, 84)\n",
        # ... which the filter's refusal says alone: a channel count (4 frames) as the first
        # spatial size (r/theano/coreylynch-async-rl_filter-larger-than-input-tf-dim-ordering_12.txt)
        "ValueError: Filter must not be larger than the input: Filter: (8, 8) Input: (4, 84)\n",
        # ... cut after its numbers, beside the script's ordering call
        "K.set_image_dim_ordering('th')\nThat's why you get the error \"ValueError: Negative dimension "
        'size caused by subtracting 3 from 1..."\n',
        # ... and Keras's layer classes say Keras where no other word does
        "model.add(MaxPooling2D(pool_size=(2, 2)))\nValueError: Negative dimension size caused by "
        "subtracting 2 from 1 for 'MaxPool_1' (op: 'MaxPool') with input shapes: [?,1,112,64].\n",
        "from keras.layers import MaxPooling2D\nValueError: Negative dimension size caused by "
        "subtracting 2 from 1 for 'max_pooling2d_2/MaxPool' (op: 'MaxPool') "
        "with input shapes: [?,1,112,64].\n",
        # Keras's own layer names (conv2d_1: Keras 2.2.4 base_layer.py:132) where the paste says
        # nothing else of Keras
        "ValueError: Negative dimension size caused by subtracting 5 from 1 for 'conv2d_1/convolution' "
        "(op: 'Conv2D') with input shapes: [?,1,28,28], [5,5,28,32].\n",
        # Keras's Flatten (1.2.2 core.py:473-479) on a spatial size collapsed to 0 ...
        'ValueError: The shape of the input to "Flatten" is not fully defined (got (0, 14, 50). Make '
        'sure to pass a complete "input_shape" or "batch_input_shape" argument to the first layer in '
        "your model.\n",
        # ... or beside a channels-first input_shape in the code
        "model.add(Convolution2D(20, 5, 5, border_mode='same', input_shape=(depth, height, width)))\n"
        'Exception: The shape of the input to "Flatten" is not fully defined\n',
        # keras.json choosing TensorFlow, shown in a question about Theano
        'My Theano image does not use Theano:\n{\n    "image_dim_ordering": "tf",\n'
        '    "backend": "tensorflow"\n}\n',
    ]
    for text in refusals:
        assert diagnose_log(text)[0].id == "keras_backend_not_theano", text
    small_image = (
        "from keras.layers import Conv2D\nValueError: Negative dimension size caused by subtracting 5 "
        "from 4 for 'conv2d_3/convolution' (op: 'Conv2D') with input shapes: [?,4,4,64], [5,5,64,64].\n"
    )
    assert [f.id for f in diagnose_log(small_image)] == []
    small_input = "ValueError: Filter must not be larger than the input: Filter: (8, 8) Input: (6, 6)\n"
    assert [f.id for f in diagnose_log(small_input)] == []
    # a Flatten of a shape that is not defined (None) and no channels-first code: another mistake
    unknown = 'ValueError: The shape of the input to "Flatten" is not fully defined (got (None, None, 64).\n'
    assert [f.id for f in diagnose_log(unknown)] == []


def test_cnmem_pool_made_then_exhausted_is_the_models_memory():
    """Recorded texts of Theano 0.9's old back-end (no GPU here): cuda_ndarray.cu's device_malloc
    (`Error allocating %llu bytes of device memory (%s).`, CNMeM's status) once the pool was made
    is the model's memory; initCnmem's failure is the preallocation's."""
    later = (
        "Using gpu device 0: GeForce GTX 1080 "
        "(CNMeM is enabled with initial size: 50.0% of memory, cuDNN 5110)\n"
        "MemoryError: Error allocating 2147483648 bytes of device memory (CNMEM_STATUS_OUT_OF_MEMORY).\n"
    )
    assert diagnose_log(later)[0].id == "gpu_out_of_memory"
    pool = "initCnmem: cnmemInit call failed! Reason=CNMEM_STATUS_OUT_OF_MEMORY. numdev=1\n"
    assert diagnose_log(pool)[0].id == "gpu_preallocate_oom"


def test_a_package_file_the_channel_lists_but_cannot_serve():
    """requests' own words under an old conda's `Error: HTTPError:` (Response.raise_for_status:
    "%s Client Error: %s for url: %s", run here on a real 404 response) for a package file is
    the channel failing its index; for repodata.json it is a channel that does not exist."""
    import requests  # the [test] extra's check-jsonschema and mkdocs-material depend on it

    response = requests.Response()
    response.status_code, response.reason = 404, "NOT FOUND"
    for url, expected in [
        ("https://conda.anaconda.org/astropy/linux-64/astroml-0.3-py27_0.tar.bz2", "channel_refused"),
        ("https://conda.anaconda.org/nobody/linux-64/repodata.json", "channel_missing"),
    ]:
        response.url = url
        with pytest.raises(requests.HTTPError) as raised:
            response.raise_for_status()
        error = raised.value
        assert diagnose_log(f"Error: HTTPError: {error}: {url}\n")[0].id == expected, error


def test_out_of_memory_told_in_prose_beside_a_gpu():
    """A user's own words for the GPU running out of memory (with a typo), beside the GPU they
    name; the same words about a machine with no GPU named say nothing."""
    told = "I use a titan X graphic  card with 12G memory, with batch_size=2 there are still out or memory"
    assert diagnose_log(told)[0].id == "gpu_out_of_memory"
    assert diagnose_log("with batch_size=2 I still run out of memory on my laptop") == []


def test_stable_diffusion_webui_on_a_python_newer_than_its_torch():
    """Recorded text (the webui is not run here): AUTOMATIC1111's check_python_version warning
    (modules/launch_utils.py) for Python 3.12, then its own `Couldn't install torch.`; for the
    Python 3.9 it also warns about on Windows, torch has wheels: that failure has another cause."""
    warned = (
        "INCOMPATIBLE PYTHON VERSION\n\nThis program is tested with 3.10.6 Python, but you have {}.\n"
        "Installing torch and torchvision\nRuntimeError: Couldn't install torch.\n"
    )
    assert diagnose_log(warned.format("3.12.1"))[0].id == "no_build_for_python"
    assert "no_build_for_python" not in [f.id for f in diagnose_log(warned.format("3.9.13"))]


def test_cuda_used_in_a_forked_worker():
    """torch 2.13.0 torch/cuda/__init__.py:516-520's message (a CUDA build whose parent
    initialized CUDA before forking: no GPU runs here, and the CPU build never marks a fork bad),
    as a DataLoader worker raises it."""
    paste = (
        '  File "/opt/conda/lib/python3.10/site-packages/torch/cuda/__init__.py", line 517, in _lazy_init\n'
        "    raise RuntimeError(\n"
        "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
        "multiprocessing, you must use the 'spawn' start method\n"
    )
    assert diagnose_log(paste)[0].id == "cuda_reinit_forked"


def test_theanos_refusals_of_the_cudnn_it_found():
    """Theano rel-1.0.5 theano/gpuarray/dnn.py's messages (a cuDNN on a CUDA context: no GPU runs
    here): version() refusing a cudnn.h of one cuDNN beside a libcudnn of another (:331-334), and
    _dnn_lib finding no cuDNN 5-7 library in dnn.bin_path's folder (:82-111)."""
    frame = '  File "/usr/lib/python3/site-packages/theano/gpuarray/dnn.py", line 333, in version\n'
    mixed = frame + (
        "RuntimeError: Mixed dnn version. The header is version 5005 while the library is version 5110.\n"
    )
    assert diagnose_log(mixed)[0].id == "cudnn_header_library_mismatch"
    unloaded = (
        "RuntimeError: Could not load cudnn library. Check your cudnn installation. Maybe using the "
        'Theano flag dnn.base_path can help you. Current value "C:\\cuda"\n'
    )
    assert diagnose_log(unloaded)[0].id == "cudnn_version"


def test_pytorch_finding_no_driver_at_all():
    """c10/cuda/CUDAFunctions.cpp device_count_impl's message (a CUDA build of PyTorch on a
    machine with no NVIDIA driver: no GPU runs here), as torch.cuda's lazy init raises it."""
    paste = (
        '  File "/usr/lib/python3/site-packages/torch/cuda/__init__.py", line 298, in _lazy_init\n'
        "    torch._C._cuda_init()\n"
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA "
        "GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n"
    )
    assert diagnose_log(paste)[0].id == "no_nvidia_gpu"


# the first lines of the kernel PyTorch's jiterator compiles (aten/src/ATen/native/cuda/jit_utils.cpp
# jit_common_types, formatted as torch 1.13 prints it): a failed compile raises it whole
JITERATOR = """RuntimeError:
  #define NAN __int_as_float(0x7fffffff)
  typedef long long int int64_t;
  constexpr int num_threads = 128;
  constexpr int thread_work_size = 4; // TODO: make template substitution once we decide where those vars live
  constexpr int block_work_size = thread_work_size * num_threads;
"""


def test_a_jit_compile_failure_is_decided_by_the_gpu_and_the_nvrtc_the_paste_states():
    [alone] = diagnose_log(JITERATOR)
    assert alone.id == "torch_jit_compile_failed" and alone.undecided
    first = diagnose_log(JITERATOR + "Versions:\nRTX 4090\npytorch 1.14+cu117 nightly\n")[0]
    assert first.id == "nvrtc_arch_unsupported" and not first.undecided
    assert "compute_35 ... compute_86" in first.evidence  # PyTorch's own table for NVRTC 11.1-11.7
    # an NVRTC that knows the GPU: the symptom stays undecided
    [fits] = diagnose_log(JITERATOR + "RTX 3090\ntorch==1.13.0+cu117\n")
    assert fits.id == "torch_jit_compile_failed"


def test_an_nvrtc_whose_architectures_are_unknown_is_not_judged():
    """NVRTC 11.8 and later answer nvrtcGetSupportedArchs (the probe asks it); a paste stating
    only the version says nothing of what it accepts."""
    assert diagnose_log("torch==2.1.0+cu121\nGPU: NVIDIA GeForce RTX 4090\nsomething failed\n") == []


def assert_no_build_judged(paste: str, fact: str, judged: bool) -> None:
    """``fact`` derived from the paste (or not), and no_build_for_python named first (or not)."""
    assert bool(log_facts(paste)["derived"].get(fact)) == judged
    assert any(f.id == "no_build_for_python" for f in diagnose_log(paste)[:1]) == judged


@pytest.mark.parametrize(
    ("paste", "judged"),
    [
        # pip's own message (pip/_internal/resolution/resolvelib/factory.py): the releases it
        # lists are those with a build this Python can install
        (
            "ERROR: Could not find a version that satisfies the requirement torch==1.13.1 "
            "(from versions: 2.0.0, 2.0.1, 2.1.0)\nERROR: No matching distribution found for torch==1.13.1\n",
            True,
        ),
        # a local version tag after the pin
        (
            "ERROR: Could not find a version that satisfies the requirement torch==1.4.0+cu92 "
            "(from versions: 1.7.0, 1.8.0)\n",
            True,
        ),
        # a pin newer than every listed release: a Python too old, a typo, a release not out yet
        (
            "ERROR: Could not find a version that satisfies the requirement torch==9.0"
            " (from versions: 2.0.0)\n",
            False,
        ),
        # an upper bound below every listed release, asked from a requirements file
        (
            "ERROR: Could not find a version that satisfies the requirement tensorflow-gpu<=1.14.0 (from "
            "-r requirements.txt (line 1)) (from versions: 2.2.0rc1, 2.2.0rc2, 2.2.0, 2.3.0rc0)\n",
            True,
        ),
        # ... but a torch release PyPI no longer has at all (0.4.1: PyPI's torch files start at
        # 1.0.0) is another index's, not a build missing for this Python
        (
            "ERROR: Could not find a version that satisfies the requirement torch==0.4.1 (from -r "
            "requirements-pip.txt (line 11)) (from versions: 1.7.0, 1.7.1, 1.8.0)\n",
            False,
        ),
        # nothing listed at all, of a package not recorded: the package or the index may be wrong
        # (nothing of torch, mxnet and the other wheels-only packages recorded is
        # test_a_release_without_a_wheel_for_the_stated_python's)
        (
            "ERROR: Could not find a version that satisfies the requirement mxnet-cu111==1.0"
            " (from versions: none)\n",
            False,
        ),
    ],
)
def test_a_pin_older_than_every_build_pip_lists(paste, judged):
    """pip's list of what this Python can install says the pinned release has no build here."""
    assert_no_build_judged(paste, "pin_older_than_builds", judged)


@pytest.mark.parametrize(
    ("paste", "judged"),
    [
        # pip >= 22.1 names the releases it skipped for their Requires-Python
        (
            "ERROR: Ignored the following versions that require a different python version: 1.21.2 "
            "Requires-Python >=3.7,<3.11; 1.21.3 Requires-Python >=3.7,<3.11\nERROR: Could not find a "
            "version that satisfies the requirement numpy==1.21.2 (from versions: 1.26.0, 1.26.1)\n",
            True,
        ),
        # ... which it may skip for another pin than the one that failed
        (
            "ERROR: Ignored the following versions that require a different python version: 1.6.2 "
            "Requires-Python >=3.7,<3.10\nERROR: Could not find a version that satisfies the requirement "
            "torch==2.1.2+cu118 (from versions: 2.1.0, 2.1.2)\n",
            False,
        ),
        # a torch pin whose wheels on PyPI are all for other Pythons than the stated one
        (
            "I use python 3.10\nERROR: Could not find a version that satisfies the requirement "
            "torch==1.9.1+cu111 (from versions: 1.11.0, 1.12.0)\n",
            True,
        ),
        (
            "Python 3.9.1\nERROR: No matching distribution found for torch==1.6.0\n"
            "ERROR: Could not find a version that satisfies the requirement torch==1.6.0\n",
            True,
        ),
        # ... a pin that has a wheel for it: something else (its index, its platform)
        (
            "Python 3.8.5\nERROR: Could not find a version that satisfies the requirement torch==1.6.0\n",
            False,
        ),
        # nothing at all listed for a 64-bit Python ...
        (
            "Python 3.12.0 (tags/v3.12.0:0fb18b0, Oct  2 2023) [MSC v.1935 64 bit (AMD64)] on win32\n"
            "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n",
            True,
        ),
        # ... which pip before 20.0 says with an empty list
        (
            "Python 3.7.0 (v3.7.0:1bf9cc5093, Jun 27 2018) [MSC v.1914 64 bit (AMD64)] on win32\n"
            "Could not find a version that satisfies the requirement torch (from versions: )\n",
            True,
        ),
        # ... unless pip could not read the index
        (
            "Python 3.12.0 [MSC v.1935 64 bit (AMD64)] on win32\nWARNING: Retrying (Retry(total=4)) after "
            "connection broken\nERROR: Could not find a version that satisfies the requirement torch "
            "(from versions: none)\n",
            False,
        ),
        # ... or the name is no package of the GPU stacks (a misspelt one lists nothing either)
        (
            "Python 3.12.0 [MSC v.1935 64 bit (AMD64)] on win32\nERROR: Could not find a version that "
            "satisfies the requirement pytorch3 (from versions: none)\n",
            False,
        ),
        # ... and with no bitness stated: torch has wheels only, for 64-bit CPythons (no sdist),
        # so this Python's version or bitness has none
        (
            "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n",
            True,
        ),
        # ... but a 32-bit Python stated is win32's
        (
            "Python 3.8.10 [MSC v.1928 32 bit (Intel)] on win32\nERROR: Could not find a version that "
            "satisfies the requirement torch (from versions: none)\n",
            False,
        ),
        # ... and mxnet's -cuXY variants are missing per platform, or were never published
        (
            "ERROR: Could not find a version that satisfies the requirement mxnet-cu111"
            " (from versions: none)\n",
            False,
        ),
        # ... while a package PyPI has wheels of only (no sdist) lists nothing for this Python or
        # platform: TensorFlow on a Python newer than its wheels, CuPy's CUDA 9.0 build on ppc64
        (
            "Python version 3.13\n> pip install tensorflow\nERROR: Could not find a version that "
            "satisfies the requirement tensorflow (from versions: none)\n",
            True,
        ),
        (
            "ERROR: Could not find a version that satisfies the requirement cupy-cuda90"
            " (from versions: none)\n",
            True,
        ),
        # ... ONNX Runtime's GPU build on a Python or platform it has no wheel for, Triton on Windows
        (
            "ERROR: Could not find a version that satisfies the requirement onnxruntime-gpu"
            " (from versions: none)\n",
            True,
        ),
        (
            "ERROR: Could not find a version that satisfies the requirement triton (from versions: none)\n",
            True,
        ),
        # ... decord, the video decoder beside PyTorch, on Apple silicon (no arm64 wheel)
        (
            "CPU: Apple M4 Pro\nERROR: Could not find a version that satisfies the requirement decord"
            " (from versions: none)\n",
            True,
        ),
        # ... unless pip could not read the index, or the package is not one recorded
        (
            "WARNING: Retrying (Retry(total=4)) after connection broken\nERROR: Could not find a version that"
            " satisfies the requirement tensorflow (from versions: none)\n",
            False,
        ),
        (
            "ERROR: Could not find a version that satisfies the requirement mypkg (from versions: none)\n",
            False,
        ),
        # releases that satisfy the request exist on PyPI, and pip lists others only
        # ... also where pip names the package that required it (`(from cnocr)`)
        (
            "ERROR: Could not find a version that satisfies the requirement mxnet<1.5.0,>=1.4.1 (from cnocr)"
            " (from versions: 0.12.0, 1.0.0, 1.2.0, 1.6.0)\n",
            True,
        ),
        (
            "ERROR: Could not find a version that satisfies the requirement mxnet~=1.7 (from versions: "
            "1.6.0)\nERROR: No matching distribution found for mxnet~=1.7\n",
            True,
        ),
        # a torchvision pin whose wheels on PyPI are for other Pythons than the one stated
        # (torchvision 0.8.2: cp36 to cp39)
        (
            "Python 3.10.4\nERROR: Could not find a version that satisfies the requirement "
            "torchvision==0.8.2 (from versions: 0.12.0, 0.13.0)\n",
            True,
        ),
        # ... on a Python it has wheels for, a torchvision release that never was
        (
            "Python 3.8.10\nERROR: Could not find a version that satisfies the requirement "
            "torchvision==0.8.3 (from versions: 0.8.2, 0.9.0)\n",
            False,
        ),
        # ... a release that never was (a typo, one not out yet)
        (
            "ERROR: Could not find a version that satisfies the requirement torch==9.0"
            " (from versions: 2.0.0)\n",
            False,
        ),
        # ... a local version pip lists the public release of: another index's build
        (
            "ERROR: Could not find a version that satisfies the requirement torch==2.1.2+cu118 "
            "(from versions: 1.11.0, 2.1.2, 2.2.1)\n",
            False,
        ),
        # ... a local version of a release pip lists with other local versions only: that
        # release's build for this CUDA is not on the index for this Python or platform
        (
            "ERROR: Could not find a version that satisfies the requirement torch==1.8.0+cu102 "
            "(from versions: 1.7.1+cu110, 1.8.0, 1.8.0+cpu, 1.8.0+cu101, 1.8.0+cu111)\n",
            True,
        ),
        # ... one it lists (another requirement failed) is not judged so
        (
            "ERROR: Could not find a version that satisfies the requirement torch==1.8.0+cu102 "
            "(from versions: 1.8.0+cpu, 1.8.0+cu102)\n",
            False,
        ),
    ],
)
def test_a_release_without_a_wheel_for_the_stated_python(paste, judged):
    """pip's words, PyPI's file lists of torch, torchvision, torchaudio and mxnet
    (data/pypi_wheels.json) and the stated Python."""
    assert_no_build_judged(paste, "no_wheel_for_python", judged)


def test_the_release_table_is_what_the_tool_writes(tmp_path):
    """tools/pypi_wheels.py keeps each release's CPython tags from PyPI's JSON, with its sha256."""
    import hashlib
    import json

    import pypi_wheels  # tools/pypi_wheels.py

    from gpuforge import locations

    docs = {
        "torch": {
            "releases": {
                "1.6.0": [
                    {"filename": "torch-1.6.0-cp38-cp38-win_amd64.whl"},
                    {"filename": "torch-1.6.0-cp36-cp36m-manylinux1_x86_64.whl"},
                ],
                "1.10.0": [{"filename": "torch-1.10.0-cp39-none-macosx_11_0_arm64.whl"}],
                "0.1.2": [],
            }
        },
        "torchvision": {
            "releases": {
                "0.8.2": [
                    {"filename": "torchvision-0.8.2-cp39-cp39-win_amd64.whl", "packagetype": "bdist_wheel"},
                    {"filename": "torchvision-0.8.2.tar.gz", "packagetype": "sdist"},
                ]
            }
        },
        "torchaudio": {"releases": {}},
        "mxnet": {"releases": {"1.9.1": [{"filename": "mxnet-1.9.1-py3-none-manylinux2014_x86_64.whl"}]}},
    }
    docs |= {name: {"releases": {}} for name in pypi_wheels.PACKAGES if name not in docs}
    args = []
    for name, doc in docs.items():
        (tmp_path / f"{name}.json").write_bytes(json.dumps(doc).encode())
        args.append(f"{name}={tmp_path / f'{name}.json'}")
    assert pypi_wheels.main(args, tmp_path / "pypi_wheels.json") == 0
    written = json.loads((tmp_path / "pypi_wheels.json").read_text())
    raw = (tmp_path / "torch.json").read_bytes()
    assert written["torch"]["sha256"] == hashlib.sha256(raw).hexdigest()
    assert written["torch"]["source"] == "https://pypi.org/pypi/torch/json"
    # by version, not by text; a release without files is no release
    assert list(written["torch"]["python_tags"].items()) == [
        ("1.6.0", ["cp36", "cp38"]),
        ("1.10.0", ["cp39"]),
    ]
    assert written["mxnet"]["python_tags"] == {"1.9.1": []}
    assert written["torchvision"]["python_tags"] == {"0.8.2": ["cp39"]}
    assert written["torchaudio"]["python_tags"] == {}
    # an sdist in any release: pip may build one where no wheel fits
    assert written["torchvision"]["sdist"] is True and written["mxnet"]["sdist"] is False
    stored = json.loads(locations.PYPI_WHEELS.read_text())
    assert set(stored) == set(pypi_wheels.PACKAGES) >= {"torch", "torchvision", "torchaudio", "mxnet"}
    assert all(isinstance(block["sdist"], bool) for block in stored.values())
    assert all(len(p["sha256"]) == 64 for p in stored.values())


def test_the_release_tool_refuses_bad_input_in_one_line(tmp_path, capsys):
    """A file that is not PyPI's JSON, or an argument of another shape: one line, nothing written."""
    import pypi_wheels  # tools/pypi_wheels.py

    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    out = tmp_path / "pypi_wheels.json"
    for args in (["torch=" + str(tmp_path / "bad.json")], ["tensorflow=x.json"], ["torch"]):
        assert pypi_wheels.main(args, out) == 2
        err = capsys.readouterr().err
        assert err.startswith("pypi_wheels: error: ") and err.count("\n") == 1
    assert not out.exists()


def test_condas_refusal_for_the_environments_python():
    """conda/exceptions.py UnsatisfiableError's python message (4.8 to 26.x), hard-wrapped as
    conda prints it."""
    paste = (
        "UnsatisfiableError: The following specifications were found\n"
        "to be incompatible with the existing python installation in your environment:\n\n"
        "Specifications:\n\n  - h5py==2.7.0 -> python[version='>=2.7,<2.8.0a0|>=3.6,<3.7.0a0']\n\n"
        "Your python: python=3.8\n"
    )
    assert diagnose_log(paste)[0].id == "no_build_for_python"


@pytest.mark.parametrize(
    ("paste", "judged"),
    [
        ("PyTorch 1.4 on my RTX 3090:\nRuntimeError: CUDA error: an illegal memory access\n", True),
        (
            "pip install torch==1.5.0 on an RTX 3080\n"
            "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n",
            True,
        ),
        # PyTorch 1.7.0 has CUDA 11.0 builds (a bare "1.7" is 1.7.0, not older)
        ("Pytorch 1.7 on an RTX 3090\nRuntimeError: CUDA error: no kernel image is available\n", False),
        # a GPU CUDA 10.2 knows
        ("torch 1.4.0 on a GeForce RTX 2080 Ti\nRuntimeError: CUDA error: out of memory\n", False),
        # nothing failed on the GPU: a pip or import error beside the same versions
        ("torch 1.4.0 on a GeForce RTX 3090\nImportError: No module named 'torchvision'\n", False),
        # the build's own CUDA: a wheel's tag, conda's build string, collect_env's line
        ("torch==1.7.1+cu101\nGeForce RTX 3090\nRuntimeError: CUDA error: no kernel image\n", True),
        ("torch==1.7.1+cu110\nGeForce RTX 3090\nRuntimeError: CUDA error: no kernel image\n", False),
        ("RTX 2080Ti\npytorch 0.4.1_cuda9.2_cudnn7.1.4\nRuntimeError: CUDA error: out of memory\n", True),
        ("pytorch 1.4.0 py3.7_cuda10.1.243_cudnn7.6.3_0\nRTX 2080 Ti\nCUDA error: no kernel image\n", False),
        ("CUDA used to build PyTorch: 10.2\nGPU 0: NVIDIA A100-SXM4\nCUDA error: no kernel image\n", True),
        # nothing failed at all: the paste states the build and the GPU only
        ("I have a RTX 3090, and the requirement torch==1.7.1+cu101 is too low for it\n", True),
    ],
)
def test_a_pytorch_whose_every_build_predates_the_gpu(paste, judged):
    """pytorch.org's previous versions: every build before 1.7.0 is for CUDA 10.2 or older,
    which makes no code for cc 8.0 and newer; a build's own CUDA (before 11.0) makes code up to
    the newest arch its nvcc knows (gpu_fit.OLD_NVRTC)."""
    found = log_facts(paste)["derived"].get("torch_build_predates_gpu")
    assert bool(found) == judged
    assert any(f.id == "old_gpu" for f in diagnose_log(paste)) == judged


@pytest.mark.parametrize(
    ("paste", "judged"),
    [
        # pymc3 3.11.2's own check beside pip's answer that Theano-PyMC is installed
        (
            "Requirement already satisfied: theano-pymc in c:\\anaconda3\\lib\\site-packages (1.1.2)\n"
            "The installed Theano(-PyMC) version (1.0.5) does not match the PyMC3 requirements.\n",
            True,
        ),
        (
            "theano-pymc               1.1.2\n"
            "The installed Theano(-PyMC) version (1.0.4) does not match the PyMC3\n",
            True,
        ),
        # no Theano-PyMC said installed: the Theano imported may be the only one
        ("The installed Theano(-PyMC) version (1.0.5) does not match the PyMC3 requirements.\n", False),
        # a Theano-PyMC older than 1.1.2 is the one imported (a single, too old install)
        (
            "Requirement already satisfied: theano-pymc\n"
            "The installed Theano(-PyMC) version (1.1.0) does not match the PyMC3 requirements.\n",
            False,
        ),
    ],
)
def test_pymc3_importing_theano_beside_theano_pymc(paste, judged):
    """pymc3 3.11.2 and 3.11.5 pymc3/__init__.py: below Theano-PyMC 1.1.2 it names the version
    imported; Theano 1.0 beside an installed Theano-PyMC is two packages of one module `theano`."""
    found = log_facts(paste)["derived"].get("two_theano_installs")
    assert bool(found) == judged, found
    assert any(f.id == "two_theano_installs" for f in diagnose_log(paste)) == judged


@pytest.mark.parametrize(
    ("line", "version"),
    [
        ("Theano 1.0.0rc1", "1.0.0"),
        ("theano:  0.9.0rc2.dev-674f8d5148cb8dcea446e7243e629d8f83647da5", "0.9.0"),
        ("Theano==0.8.0.dev0", "0.8.0"),
        ("Theano 0.10.0beta1", "0.10.0"),
        ("Theano 1.0.5.", "1.0.5"),
    ],
)
def test_a_release_candidate_or_development_version_reads_as_its_release(line, version):
    """Theano's tags rel-0.10.0beta1 and rel-1.0.0rc1, and a checkout's dev version string."""
    assert log_facts(line)["imports"]["theano"]["version"] == version


def test_a_pre_release_listed_by_pip_is_no_older_release():
    """pip's `(from versions: 2.2.0rc1, ...)`: rc1's "1" is no release older than the pin."""
    paste = (
        "ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==1.10.1 "
        "(from versions: 2.2.0rc1, 2.2.0rc2, 2.2.0, 2.3.0)\n"
    )
    assert log_facts(paste)["derived"].get("pin_older_than_builds")
    assert diagnose_log(paste)[0].id == "no_build_for_python"


@pytest.mark.parametrize(("header", "downloaded", "cut"), [(9000, 4000, True), (195, 310, False)])
def test_condas_content_length_check(header, downloaded, cut):
    """conda/gateways/download.py (4.3.2 and later): fewer bytes than the header is a download cut
    short; more is conda 4.3.2-4.3.4 counting the gzip-decoded body (commit db6d153ff, 4.3.5)."""
    paste = (
        "CondaError: Downloaded bytes did not match Content-Length\n  url: https://x/y.tar.bz2\n"
        f"  Content-Length: {header}\n  downloaded bytes: {downloaded}\n"
    )
    assert any(f.id == "conda_eof" for f in diagnose_log(paste)) == cut


SMI_418 = "| NVIDIA-SMI 418.87.01    Driver Version: 418.87.01    CUDA Version: 10.1     |\n"


@pytest.mark.parametrize(
    ("paste", "judged"),
    [
        # a CUDA 11.7 build on a driver for CUDA 10.1 at most
        (SMI_418 + "pip install torch==1.13.1+cu117\ntorch.cuda.is_available() returns False\n", True),
        # the driver's version alone, by the release notes' table (390.116 >= 390.46: CUDA 9.1)
        ("Driver Version: 390.116\ntorch 1.8.0+cu111\ntorch.cuda.is_available() False\n", True),
        ("Driver Version: 390.116\nmxnet-cu92\nmx.context.num_gpus() 0\n", True),
        # minor version compatibility: an 11.8 runtime on a driver for 11.4 runs
        (
            "Driver Version: 470.82.01    CUDA Version: 11.4\ntorch 2.0.1+cu118\n"
            "RuntimeError: CUDA error: out of memory\n",
            False,
        ),
        # before CUDA 11 a runtime needs its own release's driver: 9.2 on a driver for 9.1 does not
        ("CUDA Version: 9.1\nconda install cudatoolkit=9.2\nCUDA error: unknown error\n", True),
        # the driver runs the build's CUDA
        (SMI_418 + "torch 1.4.0+cu101\ntorch.cuda.is_available() returns False\n", False),
        # nothing says the GPU failed
        (SMI_418 + "pip install torch==1.13.1+cu117\nImportError: No module named 'torchvision'\n", False),
        # a CPU build: no CUDA runtime at all
        (SMI_418 + "torch 1.13.1+cu117, then torch 1.13.1+cpu\nis_available() False\n", False),
    ],
)
def test_a_driver_older_than_the_builds_cuda(paste, judged):
    """The CUDA release notes' driver table and NVIDIA's minor version compatibility (11.x runs
    on any driver >= 450, 12.x >= 525): a driver below the build's CUDA is mx_driver."""
    found = log_facts(paste)["derived"].get("driver_below_runtime")
    assert bool(found) == judged, found
    assert any(f.id == "mx_driver" for f in diagnose_log(paste)) == judged


@pytest.mark.parametrize(
    ("paste", "judged"),
    [
        (
            "THEANO_FLAGS=device=gpu,floatX=float32 python train.py\nTheano 0.8.2 with cuDNN 6.0\n"
            "Exception: ('The following error happened while compiling the node', GpuDnnConv{algo='small'}"
            "(...), 'nvcc return status', 2)\n",
            True,
        ),
        # the old back-end's own line says it ran (so Theano <= 0.9) and which cuDNN it loaded
        (
            "Using gpu device 0: GeForce GTX 1080 (CNMeM is disabled, cuDNN 6021)\n"
            "mod.cu(77): error: identifier is undefined\n",
            True,
        ),
        # cuDNN 5.1, which still has the _v4 functions
        ("device=gpu\nTheano 0.9.0 and cuDNN 5.1\nGpuDnnConv failed: nvcc return status 2\n", False),
        # the gpuarray back-end of the same Theano (device=cuda) compiles with cuDNN 6
        ("device=cuda\nTheano 0.9.0 and cuDNN 6.0\nGpuDnnConv failed: nvcc return status 2\n", False),
        # nothing of cuDNN's failed: a net without its ops never calls the removed functions
        ("Using gpu device 0: GeForce GTX 1080 (CNMeM is disabled, cuDNN 6021)\nImportError: foo\n", False),
        # cuDNN turned off
        ("device=gpu\ndnn.enabled=False\nTheano 0.9.0, cuDNN 6.0\nmod.cu: error\n", False),
    ],
)
def test_the_old_backend_beside_a_cudnn_that_removed_its_functions(paste, judged):
    """Theano #5830: Theano <= 0.9's old back-end calls cudnnSetFilterNdDescriptor_v4, which
    cuDNN 6 removed."""
    assert any(f.id == "cudnn_version" for f in diagnose_log(paste)) == judged


@pytest.mark.parametrize(
    ("paste", "entry", "named"),
    [
        # conda env create's ResolvePackageNotFound (conda/exceptions.py): a name=version spec
        # no channel in use publishes for this platform
        (
            "Solving environment: failed\n\nResolvePackageNotFound:\n  - cudatoolkit=11.1\n",
            "channel_missing",
            True,
        ),
        # ... build-string pins exported on another platform are another cause
        (
            "ResolvePackageNotFound:\n  - openssl==1.0.2p=h1de35cc_0\n  - tk==8.6.8=ha441bb4_0\n",
            "channel_missing",
            False,
        ),
        # libarchive failing to seek in a valid archive (conda-package-handling #71) is no cut download
        (
            "InvalidArchiveError: Error with archive /opt/conda/pkgs/pytorch-1.8.0.tar.bz2.  You probably"
            " need to delete and re-download or re-create this file.  Message from libarchive was:\n\n"
            "Seek failed\n",
            "conda_eof",
            False,
        ),
        (
            "InvalidArchiveError: Error with archive /opt/conda/pkgs/x.tar.bz2.  You probably need to "
            "delete and re-download or re-create this file.  Message from libarchive was:\n\n"
            "Truncated input file (needed 100 bytes)\n",
            "conda_eof",
            True,
        ),
        # device=gpu alone was every Theano's GPU setting before 1.0
        (
            "[global]\nfloatX = float32\ndevice = gpu\n\nmod.cu(299): error: identifier is undefined\n",
            "old_device_flag",
            False,
        ),
        # ... beside Theano 0.9's deprecation of the old back-end, or 1.0's own lines
        (
            "WARNING (theano.sandbox.cuda): The cuda backend is deprecated and will be removed in the next"
            " release (v0.10).\n[global]\ndevice = gpu\n",
            "old_device_flag",
            True,
        ),
        # Lasagne 0.1 beside Theano 0.9 or newer: its pool.py imports the removed downsample
        (
            "Lasagne - 0.1 - installation through pip\nTheano - 0.9.0 - installation through pip\n",
            "lasagne_too_old",
            True,
        ),
        ("Lasagne==0.1\nTheano==0.8.2\n", "lasagne_too_old", False),
    ],
)
def test_wordings_and_versions_judged_from_their_sources(paste, entry, named):
    assert any(f.id == entry for f in diagnose_log(paste)[:1]) == named


@pytest.mark.parametrize(
    ("paste", "judged"),
    [
        # Theano #4514's words: a gcc and an nvcc in prose, beside nvcc failing
        ("arch linux has now gcc 6.1.1 to which nvcc (7.5.17) is not compatible (100+ errors)\n", True),
        (
            "gcc (Ubuntu 6.2.0-5ubuntu12) 6.2.0 20161005\nCuda compilation tools, release 8.0, V8.0.44\n"
            "ERROR (theano.sandbox.cuda): Failed to compile cuda_ndarray.cu: ('nvcc return status', 1)\n",
            True,
        ),
        # "CUDA 7" is 7.0 or 7.5, both gcc 4.9 at most
        ("device=gpu with CUDA 7 and gcc 5.3: nvcc fails on every op\n", True),
        # a gcc the CUDA accepts (8.0 takes any gcc 5)
        ("gcc 5.4.0, CUDA 8.0\nERROR (theano.sandbox.cuda): Failed to compile cuda_ndarray.cu\n", False),
        # Python's banner names the gcc that built Python, not the one nvcc uses
        (
            "Python 3.6.9 (default)\n[GCC 8.4.0] on linux\nCUDA 9.0\n"
            "nvcc fatal : Unsupported gpu architecture\n",
            False,
        ),
        # "CUDA 9" is 9.0, 9.1 or 9.2, whose limits are not all recorded
        ("gcc 7.2 and CUDA 9\nnvcc return status 1\n", False),
        # Windows' nvcc compiles with cl.exe
        ("C:\\Users\\me> nvcc fatal error\ngcc 5.3 (mingw), CUDA 7.5\n", False),
        # nothing of nvcc failed
        ("gcc 6.1.1, CUDA 7.5\nImportError: No module named 'lasagne'\n", False),
    ],
)
def test_a_gcc_newer_than_its_cudas_nvcc_accepts(paste, judged):
    """crt/host_config.h's `#if __GNUC__ > N` guard, by CUDA release (doctor/nvcc_host.py)."""
    found = log_facts(paste)["derived"].get("nvcc_refuses_gcc")
    assert bool(found) == judged
    assert any(f.id == "gcc_too_new" for f in diagnose_log(paste)[:1]) == judged


@pytest.mark.parametrize(
    ("paste", "named"),
    [
        # the old back-end in a runtime image: no nvcc
        (
            "FROM nvidia/cuda:8.0-cudnn5-runtime-ubuntu14.04\nTHEANO_FLAGS=device=gpu python train.py\n"
            "WARNING (theano.sandbox.cuda): CUDA is installed, but device gpu is not available\n",
            "nvcc_not_found",
        ),
        # cuDNN's ops of the gpuarray back-end in a cudnn-runtime image: libcudnn without cudnn.h
        (
            "docker run -it nvidia/cuda:9.0-cudnn7-runtime-ubuntu16.04\nTHEANO_FLAGS=device=cuda0\n"
            "Can not use cuDNN on context None: cannot compile with cuDNN.\n",
            "cudnn_h_missing",
        ),
        # the devel image has both
        (
            "FROM nvidia/cuda:9.0-cudnn7-devel-ubuntu16.04\nTHEANO_FLAGS=device=cuda0\n"
            "Can not use cuDNN on context None: cannot compile with cuDNN.\n",
            None,
        ),
        # a runtime image is right for a prebuilt wheel that needs no compiler
        ("FROM nvidia/cuda:10.0-base\n>>> torch.cuda.is_available()\nFalse\n", None),
        # ... and docker's (nerdctl's) `--gpus device=GPU-<uuid>` names a GPU, not Theano's device
        (
            "nerdctl run -it --rm --gpus capabilities=utility,device=GPU-3a23c669-1f69-c64e-cf85-44e9b07e7a2a"
            " nvidia/cuda:9.0-base nvidia-smi\ntorch.cuda.is_available() returns False\n",
            None,
        ),
    ],
)
def test_nvidias_images_without_the_toolkit(paste, named):
    """base and runtime have no nvcc and no headers; only devel adds them (NVIDIA's container
    images page)."""
    found = diagnose_log(paste)
    assert (found[0].id if found else None) == named


@pytest.mark.parametrize(
    ("paste", "named"),
    [
        # Theano's ops when their GPU working memory could not be allocated
        ("RuntimeError: GpuCorrMM failed to allocate working memory of 576 x 802816\n", "gpu_out_of_memory"),
        ("MemoryError: Could not allocate working GPU memory\n", "gpu_out_of_memory"),
        ("I encountered to GPU out of memory. I am having an Nvidia Quadro 2 GB GPU.\n", "gpu_out_of_memory"),
        # Theano's second line while it waits for the compile lock
        (
            "INFO (theano.gof.compilelock): To manually release the lock, delete "
            "/home/u/.theano/compiledir_Linux/lock_dir\n",
            "compile_lock",
        ),
        # blas.ldflags split at the space of C:\Program Files: the path's rest is a token
        (
            "ValueError: ('The following error happened while compiling the node', Dot22Scalar(x), "
            "'\\n', 'invalid token \"Files\\\\Anaconda\\\\Library\\\\bin\"\" in ldflags_str: "
            '"-L"C:\\\\Program Files\\\\Anaconda\\\\Library\\\\bin" -lmkl_rt"\')\n',
            "path_spaces_nonascii",
        ),
        # a flag Theano does not take is no path
        ('ValueError: invalid token "mkl_rt" in ldflags_str: "mkl_rt"\n', None),
        # CUDA 11 and later name the runtime by major alone
        (
            "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n",
            "mx_cudart",
        ),
        # Theano's own warning of a cuDNN newer than it supports: the cause where nothing failed
        # after it (Theano 0.8.2's old back-end's wording) ...
        (
            "/usr/local/lib/python2.7/dist-packages/theano/sandbox/cuda/__init__.py:600: UserWarning: "
            "Your cuDNN version is more recent than the one Theano officially supports. If you see any "
            "problems, try updating Theano or downgrading cuDNN to version 5.\n  warnings.warn(warn)\n",
            "cudnn_version",
        ),
        # ... not where an exception follows it (that is what failed)
        (
            "UserWarning: Your cuDNN version is more recent than Theano. If you encounter problems, try "
            "updating Theano or downgrading cuDNN to version 5.1.\nTraceback (most recent call last):\n"
            '  File "x.py", line 1, in <module>\nImportError: No module named keras.applications\n',
            None,
        ),
        # Theano 0.9's pygpu check (1.0's names the version: "pygpu(0.6.9)")
        (
            "ValueError: Your installed version of pygpu is too old, please upgrade to 0.6.1 or later\n",
            "pygpu_version",
        ),
        # Theano 1.0's MKL check, its second wording (the line break as the source has it)
        (
            "RuntimeError: \nCould not import 'mkl'.  If you are using conda, update the numpy\n"
            "packages to the latest build otherwise, set MKL_THREADING_LAYER=GNU in\nyour environment\n",
            "mkl_threading",
        ),
        # a cuDNN op of the old back-end needing a newer cuDNN
        # torch's shared-memory file of a tensor between processes (libtorch_cpu.so MapAllocator:
        # "unable to write to file <" "/torch_{}_{}_{}"), /dev/shm full
        (
            "RuntimeError: unable to write to file </torch_18692_1954506624_0>: "
            "No space left on device (28)\n",
            "dataloader_shm_exhausted",
        ),
        (
            "In Docker the workers fail with No space left on device (28) writing shared memory\n",
            "dataloader_shm_exhausted",
        ),
        # ... a checkpoint written to a full disk is the disk's (disk_full), not shared memory
        ("OSError: [Errno 28] No space left on device (28) while saving the checkpoint\n", "disk_full"),
        ("RuntimeError: cuDNN winograd convolution requires cuDNN v5 or more recent\n", "cudnn_version"),
        # ... Theano 0.8.0's wordings
        (
            "RuntimeError: CuDNN selection of convolution implementation based on heuristics requires "
            "CuDNN v3\n",
            "cudnn_version",
        ),
        ("RuntimeError: Need CuDNN v3 for log-softmax\n", "cudnn_version"),
        # Theano 1.0's init_dev with under 75 MB free
        (
            "RuntimeError: Can not enable cuDNN as there is only 50 MB of free GPU memory.\n",
            "gpu_out_of_memory",
        ),
        # mamba's and libsolv's words for a package no channel in use publishes, beside a channel
        # the user named
        (
            "conda create -n gf -c gpuforge pygpu\nerror    libmamba Could not solve for environment "
            "specs\n    └─ pygpu 0.7.6**  does not exist (perhaps a typo or a missing channel).\n",
            "channel_missing",
        ),
        (
            "mamba install -c nvidia pytorch-cuda=11.8\nEncountered problems while solving:\n"
            "  - nothing provides requested pytorch-cuda 11.8**\n",
            "channel_missing",
        ),
        # ... no channel named and no version asked: the name may be misspelt
        ("    └─ pygpu  does not exist (perhaps a typo or a missing channel).\n", None),
        # mamba 1.x's libsolv line (src/problems.c:1411-1412) for a CUDA build on a host without
        # a driver: no __cuda virtual package
        (
            "Encountered problems while solving:\n  - nothing provides __cuda needed by "
            "pytorch-1.13.1-cuda112py310he33e0d6_200\n",
            "driver_below_env_floor",
        ),
        ("  - nothing provides cudatoolkit 11.8.* needed by pytorch-2.0.1-cuda118_0\n", None),
        # conda 3.x's hint when a package and the Python asked for are the conflict (resolve.py
        # 3.19.0:935, the set joined by "\n  - ") ...
        (
            "Error: Unsatisfiable package specifications.\nGenerating hint:\nHint: the following packages "
            "conflict with each other:\n  - python 3.5*\n  - anaconda\n\nUse 'conda info python' etc. to "
            "see the dependencies for each package.\n",
            "no_build_for_python",
        ),
        # ... but not where the set holds more than those two
        (
            "Hint: the following packages conflict with each other:\n  - python 3.5*\n  - anaconda\n"
            "  - numpy 1.9*\n\nUse 'conda info python' etc.\n",
            None,
        ),
        # libmamba 2.x's tree and libsolv's line for a package whose builds need another Python
        # (and no Theano was installed: py312_distutils says nothing)
        (
            "Could not solve for environment specs\nThe following packages are incompatible\n"
            "├─ python 3.12** is requested and can be installed;\n└─ theano 1.0.4** is not installable "
            "because it requires\n   └─ python >=3.6,<3.7.0a0 , which conflicts with any installable "
            "versions previously reported.\n",
            "no_build_for_python",
        ),
        (
            "Encountered problems while solving:\n  - package theano-1.0.4-py36h6e3c8b6_0 requires "
            "python >=3.6,<3.7.0a0, but none of the providers can be installed\n",
            "no_build_for_python",
        ),
        ("  - package rapids-0 requires ptxcompiler, but none of the providers can be installed\n", None),
        # Theano's own refusal of a child forked after the parent took the GPU (rel-1.0.1 ... 1.0.5)
        (
            "RuntimeError: You can't initialize the GPU in a subprocess if the parent process already "
            "did it\n",
            "cuda_reinit_forked",
        ),
        # MissingGXX, the compile without g++ itself: the warnings before it do not yield to it
        (
            "WARNING (theano.configdefaults): g++ not detected ! Theano will be unable to execute optimized "
            "C-implementations\nTraceback (most recent call last):\ntheano.gof.cmodule.MissingGXX: g++ not "
            "available! We can't compile c code.\n",
            "gxx_missing",
        ),
        # Aesara 2.9's wordings: its g++ warning, its compiledir under %LOCALAPPDATA%\Aesara
        (
            "WARNING (aesara.configdefaults): g++ not detected!  Aesara will be unable to compile "
            "C-implementations and will default to Python. Performance may be severely degraded.\n",
            "gxx_missing",
        ),
        (
            "g++: error: C:\\Users\\José Pérez\\AppData\\Local\\Aesara\\compiledir_Windows-10\\"
            "lazylinker_ext\\mod.cpp: No such file or directory\n",
            "path_spaces_nonascii",
        ),
        # cudaMalloc's failure said in prose
        ("when I increase the batch size from 192 to 256, cuda malloc error occurs\n", "gpu_out_of_memory"),
        # a conda before 4.6 asking the retired pkgs/pro among its default channels
        (
            "C:\\Users\\me>conda update anaconda\nError: HTTPError: 403  Forbidden  "
            "http://repo.continuum.io/pkgs/pro/win-64/\n",
            "conda_too_old",
        ),
        (
            "CondaHTTPError: HTTP 403 FORBIDDEN for url <https://repo.anaconda.com/pkgs/main/win-64/"
            "current_repodata.json>\n",
            "channel_refused",
        ),
        # a CUDA package no channel builds for macOS (NVIDIA's last CUDA with macOS was 10.2) ...
        (
            "Platform: osx-arm64\nPackagesNotFoundError: The following packages are not available from "
            "current channels:\n\n  - pytorch-cuda=11.8*\n",
            "channel_missing",
        ),
        # ... conda 4.3's wording (exceptions.py: "Package not found: '%s' %s" around "%s missing
        # in current %s channels: %s")
        (
            "PackageNotFoundError: Package not found: '' Package missing in current osx-64 channels: \n"
            "  - cuda80\n",
            "channel_missing",
        ),
        # ... and on Linux, with no channel named, the channels searched (the defaults) lack it
        # as conda's words say: pytorch-cuda is the pytorch and nvidia channels'
        (
            "Platform: linux-64\nPackagesNotFoundError: The following packages are not available from "
            "current channels:\n\n  - pytorch-cuda=11.8*\n",
            "channel_missing",
        ),
        # Keras' shape check with the image channels at the other end: Keras 1's full shapes
        # (Python 2's longs), Keras 2.2's without the batch axis; a 5-D video's channels too
        (
            "Exception: Error when checking : expected input_2 to have shape (None, 224, 224, 3) "
            "but got array with shape (1L, 3L, 224L, 224L)\n",
            "keras_backend_not_theano",
        ),
        (
            "ValueError: Error when checking input: expected conv2d_1_input to have shape "
            "(3, 224, 224) but got array with shape (224, 224, 3)\n",
            "keras_backend_not_theano",
        ),
        (
            "Exception: Error when checking model input: expected input_1 to have shape "
            "(None, 10, 3, 128, 160) but got array with shape (4, 10, 128, 160, 3)\n",
            "keras_backend_not_theano",
        ),
        # Keras's refusal of a kernel saved in the other ordering's layout (topology.py set_weights)
        (
            "ValueError: Layer weight shape (3, 3, 200, 64) not compatible with provided weight "
            "shape (64, 3, 3, 3)\n",
            "keras_backend_not_theano",
        ),
        # ... and TensorFlow's Assign of such a kernel (Keras 2 loading 'th' weights on its backend)
        (
            "ValueError: Dimension 0 in both shapes must be equal, but are 5 and 128 for 'Assign' "
            "(op: 'Assign') with input shapes: [5,1,1,128], [128,1,5,1].\n",
            "keras_backend_not_theano",
        ),
        (
            "ValueError: Dimension 2 in both shapes must be equal, but are 320 and 64 for 'Assign_3' "
            "(op: 'Assign') with input shapes: [7,7,320,64], [7,7,64,3].\n",
            None,
        ),
        # ... and TensorFlow's conv reading a channels-first image's size as its channels
        (
            "ValueError: number of input channels does not match corresponding dimension of filter,"
            " 224 != 3\n",
            "keras_backend_not_theano",
        ),
        (
            "ValueError: number of input channels does not match corresponding dimension of filter, 4 != 3\n",
            None,
        ),
        # ... not weights of another model (another size, other outputs)
        (
            "ValueError: Layer weight shape (3, 3, 64, 128) not compatible with provided weight "
            "shape (3, 3, 64, 256)\n",
            None,
        ),
        # ... not other dimensions, nor other channels
        (
            "ValueError: Error when checking target: expected dense_8 to have shape (128,) but "
            "got array with shape (10,)\n",
            None,
        ),
        (
            "ValueError: Error when checking input: expected conv2d_1_input to have shape "
            "(28, 28, 1) but got array with shape (28, 28, 3)\n",
            None,
        ),
        # Python's own message in a notebook beside "installed" is another environment's ...
        (
            "<ipython-input-2-ca39b75918e7> in <module>()\n----> 2 import d2l\n"
            "ModuleNotFoundError: No module named 'mxnet'\nbut mxnet is installed: pip show mxnet\n",
            "env_mismatch",
        ),
        # ... not where the user says it is not installed
        (
            "The module mxnet is not installed in text-preprocessing.ipynb, but d2l tries to import it.\n"
            "<ipython-input-2-ca39b75918e7> in <module>()\nModuleNotFoundError: No module named 'mxnet'\n",
            None,
        ),
        # ... not where the spec pins a build (env_file_exported_builds), nor a dependency chain
        ("ResolvePackageNotFound:\n  - freetype 2.5.5 2\n", None),
        ("ResolvePackageNotFound:\n  - torchvision -> pytorch[version='>=1.1']\n", None),
        # ... but a spec of its own in MatchSpec's bracket form is the package asked for
        ("ResolvePackageNotFound: \n  - taskgraph[version='>=0.9.1']\n", "channel_missing"),
        # ... not a file given to `conda install` as if it were a package (`conda env create -f`)
        (
            "PackagesNotFoundError: The following packages are not available from current channels:\n\n"
            "  - conda/environment.yml\n",
            None,
        ),
        # mxnet counting no GPU: a CPU build's Context::GetGPUCount (base.h:440-456) ...
        ("print(mxnet.context.num_gpus())   #0\nprint(get_gpu_count_torch())   # 4\n", "mx_cpu_build"),
        ('mx.context.num_gpus()\n```\ngives "0" as result\n', "mx_cpu_build"),
        ("mx.context.num_gpus() returns 2\n", None),
        # ... but a CUDA build named counts 0 only without a driver or a visible device
        ("pip install mxnet-cu117\nmx.context.num_gpus() gives 0\n", None),
        # mxnet's MXNET_GPU_NOT_ENABLED_ERROR cut at its last letter
        (
            "mxnet.base.MXNetError: [16:50:21] src/ndarray/ndarray.cc:1285: GPU is not enable\n",
            "mx_cpu_build",
        ),
        # the BLAS probe's attribute in the user's words or workaround
        (
            "I tried adding `np.distutils.__config__.blas_opt_info = np.distutils.__config__."
            "blas_ilp64_opt_info` before importing theano\n",
            "blas_opt_info",
        ),
        # Theano up to 1.0.3 beside numpy 1.16 or newer, both stated
        ("theano 1.0.3\nnumpy 1.16.2\nException: Compilation failed\n", "ndarray_c_version"),
        ("theano 1.0.4\nnumpy 1.16.2\nException: Compilation failed\n", None),
        # glog's CHECK_EQ of a CUDA call cut after its number: cudaErrorMemoryAllocation is 2
        (
            "MXNetError: tensor_gpu-inl.cuh:110: Check failed: err == cudaSuccess (2 vs. 0) Name: Map\n",
            "gpu_out_of_memory",
        ),
        ("Check failed: err == cudaSuccess (48 vs. 0) Name: MapPlanKernel\n", None),
        # torch's SIGBUS words for a worker, quoted without their advice
        (
            "during training I get the error 'dataloader's workers are out of shared memory'.\n",
            "dataloader_shm_exhausted",
        ),
        # -m32 on a 32-bit x86 Python's g++ line, and on an ARM board's (Theano 0.6/0.7 passed it
        # there too), where the flag is the failure and no 64-bit Python exists
        (
            "g++ -shared -g -m32 -fPIC -I/usr/include/python2.7 -o /root/.theano/compiledir_Linux-4.4"
            "-i686-with-Ubuntu-16.04-2.7.12-32/lazylinker_ext/lazylinker_ext.so\n",
            "python_32bit",
        ),
        (
            "cc1plus: error: unrecognized command line option '-m32'\ng++ -shared -g -march=armv7-a "
            "-m32 -fPIC -I/usr/include/python2.7\n",
            None,
        ),
        (
            "/usr/bin/g++ -shared -g -m32 -fPIC -o /root/.theano/compiledir_Linux-3.18.11+-armv6l-with-"
            "debian-7.8--2.7.3-32/lazylinker_ext/lazylinker_ext.so\n",
            None,
        ),
        # the GPU memory cuDNN's FindEx and the pooling ops could not get
        ("MemoryError: Could not allocate GPU memory for FindEx\n", "gpu_out_of_memory"),
        ("RuntimeError: GpuMaxPoolGrad: failed to allocate memory\n", "gpu_out_of_memory"),
        # the old back-end's keys in THEANO_FLAGS, which Theano 1.0 no longer knows: a warning ...
        ("UserWarning: Theano does not recognise this flag: lib.cnmem\n", "old_backend_keys"),
        # ... and any other unknown flag is no cause the catalog has
        ("UserWarning: Theano does not recognise this flag: floatx\n", None),
        # a pasted .theanorc's [lib] cnmem beside device=cuda: the cause of what the GPU's memory
        # shows, not of another failure the paste reports
        (
            "[global]\ndevice=cuda0\n[lib]\ncnmem=1\nnvidia-smi shows 199MiB / 12206MiB used\n",
            "old_backend_keys",
        ),
        ("[global]\ndevice=cuda0\n[lib]\ncnmem=0.815\nruntime error 'CUDNN_STATUS_NOT_SUPPORTED'\n", None),
        # libgpuarray 0.7.6's BLAS call of an OpenCL context without clBLAS/CLBlast ...
        (
            "Mapped name None to device opencl0:0: pthread-Intel\npygpu.gpuarray.GpuArrayException: "
            "b'Blas operation not supported by device or missing library: gemv'\n",
            "opencl_blas_missing",
        ),
        # ... which a CUDA context whose cuBLAS did not load says too
        ("GpuArrayException: b'Blas operation not supported by device or missing library: gemm'\n", None),
        # Aesara's wordings of Theano's warnings (its own name in them)
        (
            "UserWarning: Your cuDNN version is more recent than Aesara. If you encounter problems, try "
            "updating Aesara or downgrading cuDNN to a version >= v5 and <= v7.\n",
            "cudnn_version",
        ),
        ("UserWarning: Aesara does not recognise this flag: lib.cnmem\n", "old_backend_keys"),
        # Keras' Theano back-end when Theano lacks what it calls (0.3.2 to 2.3.1) ...
        (
            "Using Theano backend.\nEnvironmentError: It looks like like your version of Theano is out "
            "of date. Install the latest version with:\npip install git+git://github.com/Theano/Theano.git"
            " --upgrade --no-deps\n",
            "theano_too_old",
        ),
        # ... and its dilated convolution (1.1.1 to 1.2.2)
        ("ValueError: conv2d with filter dilation requires Theano 0.9.0dev2 or newer.\n", "theano_too_old"),
        # Lasagne master's grouped convolution
        ("RuntimeError: num_groups > 1 requires Theano 0.10 or later\n", "theano_too_old"),
        # Lasagne master's warning on a GPU layer with floatX=float64, where nothing failed after it
        (
            "lasagne/layers/dnn.py:34: UserWarning: You are using a GPU layer with Theano configured for "
            "double precision (floatX=float64). Depending on your Theano version and GPU, this may be "
            "slow or unsupported.\n",
            "float64_gpu",
        ),
        (
            "UserWarning: You are using a GPU layer with Theano configured for double precision "
            "(floatX=float64).\nTraceback (most recent call last):\nImportError: No module named foo\n",
            None,
        ),
        # Theano 0.8's warning on importing downsample, where nothing failed ...
        (
            "/x/theano/tensor/signal/downsample.py:6: UserWarning: downsample module has been moved to the "
            'theano.tensor.signal.pool module.\n  "downsample module has been moved to the '
            'theano.tensor.signal.pool module.")\n',
            "theano_downsample_removed",
        ),
        # ... and beside an exception the report opens with: that is what failed
        (
            "AttributeError: 'numpy.float32' object has no attribute 'owner'\n\n/x/theano/tensor/signal/"
            "downsample.py:6: UserWarning: downsample module has been moved to the theano.tensor.signal."
            "pool module.\n",
            None,
        ),
        # ... or a sentence quoting one, or a process the shell reports killed by a signal (the
        # signal, not the warning, is what failed: SIGILL has its own cause)
        (
            "I met a problem: fuel.config_parser.ConfigurationError: Configuration not set and no "
            "default provided: data_path.\n/x/theano/tensor/signal/downsample.py:6: UserWarning: "
            "downsample module has been moved to the theano.tensor.signal.pool module.\n",
            "fuel_pylearn2_data_path_unset",
        ),
        (
            "/x/theano/tensor/signal/downsample.py:6: UserWarning: downsample module has been moved to "
            "the theano.tensor.signal.pool module.\n.Illegal instruction: 4\n",
            "cpu_lacks_instructions",
        ),
        (
            "/x/theano/tensor/signal/downsample.py:6: UserWarning: downsample module has been moved to "
            "the theano.tensor.signal.pool module.\nSegmentation fault (core dumped)\n",
            None,
        ),
        # Theano 1.0's advice on the old device flag, restated in prose
        ("thano no longer supports the gpu flag per the errors I received\n", "old_device_flag"),
        ('Theano now raises an error asking the user to switch "gpu" with "cuda".\n', "old_device_flag"),
        # numpy 1.24's aliases said in prose beside Theano and a newer numpy
        (
            "module cannot be imported with newer versions of numpy because theano uses numpy.bool\n",
            "numpy_aliases",
        ),
        ("theano: numpy.float32 is slow with newer numpy\n", None),
        # CUDA 7.5's nvcc on glibc 2.23, the error restated without string.h's location ...
        ("error: 'memcpy' was not declared in the scope with glibc 2.23 and cuda 7.5\n", "gcc_too_new"),
        # ... which a C++ file missing <cstring> says too, with no nvcc
        ("foo.cpp:3: error: 'memcpy' was not declared in this scope\n", None),
        # vm.py's CVM, undefined when lazylinker_c's cached module did not import
        ("NameError: name 'CVM' is not defined\n", "cache_corrupt"),
        # a keyword only Lasagne's master has, refused with no frame or call shown ...
        ("TypeError: __init__() got an unexpected keyword argument 'only_return_final'\n", "lasagne_too_old"),
        # ... or passed to a layer under another name (Conv2DLayer as ConvLayer)
        (
            "TypeError: __init__() got an unexpected keyword argument 'flip_filters'\n"
            "    l = ConvLayer(net['x'], 1, 3, pad=0, flip_filters=False)\n",
            "lasagne_too_old",
        ),
        # ... not a keyword other libraries have (Keras 2's PReLU(shared_axes))
        ("TypeError: __init__() got an unexpected keyword argument 'shared_axes'\n", None),
        # a cuDNN name (an enum value) the installed cudnn.h lacks, in Theano's compile
        ('mod.cu(92): error: identifier "CUDNN_POOLING_AVERAGE" is undefined\n', "cudnn_version"),
        # cuDNN's status for a GPU its build has no code for
        ("RuntimeError: cuDNN error: CUDNN_STATUS_ARCH_MISMATCH\n", "gpu_too_old_cuda"),
        # PyTorch's capability warning with its lines broken where the paste broke them
        (
            "NVIDIA H100 PCIe with CUDA capability\nsm_90 is not compatible with the current PyTorch "
            "installation.\n",
            "old_gpu",
        ),
        # cuDNN 8's loader, where what it could not open is cuDNN's own ...
        (
            "Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open "
            "shared object file: No such file or directory\n",
            "runtime_dll_beside_wheel",
        ),
        # ... not the driver's libcuda by its unversioned name (WSL keeps it in /usr/lib/wsl/lib)
        (
            "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared "
            "object file: No such file or directory\n",
            "libcuda_unversioned_missing",
        ),
        # a message inside a JSON string (Jupyter's error output), its quotes escaped
        (
            '{"name": "OSError", "message": "[WinError 126] The specified module could not be found. '
            'Error loading \\"c:\\\\x\\\\torch\\\\lib\\\\fbgemm.dll\\" or one of its dependencies."}\n',
            "runtime_dll_beside_wheel",
        ),
        # ... its folder elided by the user, the name misspelt
        (
            "results in an error with PyTorch 2.4 on Windows: The specified module could not be found. Error"
            ' loading "[...]fbgem.dll" or one of its dependencies.\n',
            "runtime_dll_beside_wheel",
        ),
        # pygpu's failed start beside the user's "Missing libcuda.so"
        (
            "results in Missing `libcuda.so` error when importing Theano\n"
            "ERROR (theano.gpuarray): Could not initialize pygpu, support disabled\n",
            "pygpu_load_lib",
        ),
        # CUDA's "no kernel image" with its last word retyped by the user
        ("RuntimeError: CUDA error: no kernel image is available for execution on the driver\n", "old_gpu"),
        # PyTorch seeing no GPU in a container started without one ...
        (
            "I pulled the official docker image, and torch.cuda.is_available() = False.\n",
            "no_nvidia_gpu",
        ),
        # ... not where the container was given the GPU, or a CUDA error says more (804: the
        # forward-compatibility libraries standing in for a driver older than the CUDA)
        ("docker run --gpus all img python -c 'import torch'\ntorch.cuda.is_available() False\n", None),
        (
            "in the container: UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount()."
            " Error 804: forward compatibility was attempted on non supported HW\n"
            "torch.cuda.is_available() False\n",
            "mx_driver",
        ),
        # host_config.h's refusal of the gcc, its prefix cut or the sentence restated
        (
            "I get the message that gcc versions later than 12 are not supported. gcc (GCC) 13.2.1\n",
            "gcc_too_new",
        ),
        # mamba's refusal of a versioned spec no channel in use publishes (an env file's)
        (
            "mamba env create -f environment-cuda.yml\nCould not solve for environment specs\n"
            "├─ cudatoolkit 11.8.0**  does not exist (perhaps a typo or a missing channel);\n",
            "channel_missing",
        ),
        # a channel's package file said to be missing: the channel failing to serve its index
        (
            "My install fails because https://conda.anaconda.org/pytorch/noarch/pytorch-mutex-1.0-cuda.tar.bz2"
            " does not exist.\n",
            "channel_refused",
        ),
        # "C:\\Program Files" cut at its space in a g++ argument
        (
            "Compilation failed (return status=1): g++.exe: error: C:\\Program: No such file or directory\n",
            "path_spaces_nonascii",
        ),
        # pip's legacy resolver on a release declaring another Requires-Python
        ("ERROR: Package 'numpy' requires a different Python: 3.6.9 not in '>=3.7'\n", "no_build_for_python"),
        # PyTorch's own words: a build without CUDA, a compiler newer than its CUDA accepts
        ("RuntimeError: PyTorch was compiled without CUDA support\n", "mx_cpu_build"),
        # numpy's removed alias under IPython 8's traceback frames: another package's code
        (
            "  File ~\\envs\\x\\lib\\site-packages\\pandas\\util\\testing.py:27\n"
            "    import pandas._libs.testing as _testing\n"
            "  File pandas/_libs/testing.pyx:10 in init pandas._libs.testing\n"
            "AttributeError: module 'numpy' has no attribute 'bool'.\n",
            "numpy_aliases_other_package",
        ),
        # Theano's MKL 2018 check said in prose: both of its message's facts
        (
            "Theano with MKL 2018 requires to define the environment variable MKL_THREADING_LAYER=GNU"
            " to run.\n",
            "mkl_threading",
        ),
        ("PyTensor does not find MKL for BLAS although MKL_THREADING_LAYER=GNU is set\n", None),
        # mxnet 0.9-0.10's imperative call of a built-in on a device it has no function for
        (
            "mxnet.base.MXNetError: [21:26:49] src/c_api/c_api_ndarray.cc:274: Operator _zeros cannot be"
            " run; requires at least one of FCompute<xpu>, NDArrayFunction, FCreateOperator be registered\n",
            "mx_cpu_build",
        ),
        # ... not a user's own operator (no underscore name): it may lack its GPU function anywhere
        (
            "Operator MyProposal cannot be run; requires at least one of FCompute<xpu>, NDArrayFunction,"
            " FCreateOperator be registered\n",
            None,
        ),
        (
            "RuntimeError: The current installed version of g++ (13.2.1) is greater than the maximum "
            "required version by CUDA 12.1. Please make sure to use an adequate version of g++"
            " (>=6.0.0, <13.0).\n",
            "gcc_too_new",
        ),
        # conda's ProxyError (4.7.0 to 26.7.0)
        (
            "ProxyError: Conda cannot proceed due to an error in your proxy configuration.\n"
            "Check for typos and other configuration errors in any '.netrc' file in your home directory\n",
            "conda_network_unreachable",
        ),
        # DJL's MXNet engine: Java's loader for mxnet.dll
        (
            "Caused by: java.lang.UnsatisfiedLinkError: Unable to load library "
            "'C:\\Users\\me\\.djl.ai\\mxnet\\1.9.1-mkl-win-x86_64\\mxnet.dll':\n",
            "mx_winerror126",
        ),
        # Theano's (PyTensor's) compiler from another conda environment than the one running
        (
            '  File "/u/mamba/envs/new/lib/python3.11/site-packages/pytensor/graph/basic.py", line 9\n'
            "cxx (<class 'str'>) \n    Doc:  The C++ compiler to use.\n"
            "    Value:  /u/mamba/envs/old/bin/clang++\n",
            "foreign_gxx",
        ),
        (
            '  File "/u/mamba/envs/new/lib/python3.11/site-packages/pytensor/graph/basic.py", line 9\n'
            "cxx (<class 'str'>) \n    Doc:  The C++ compiler to use.\n"
            "    Value:  /u/mamba/envs/new/bin/clang++\n",
            None,
        ),
        # "installed" said of another package is no sign the missing one is installed elsewhere
        (
            "I installed Merlin using a virtual environment and pip install for the requirements.\n"
            "ERROR (theano.gpuarray): pygpu was configured but could not be imported\n"
            "ImportError: No module named pygpu\n",
            "pygpu_import",
        ),
        # older conda's words for a channel without that platform's folder: 4.1's "Could not find
        # URL" (fetch.py:142), 4.2-4.3.9's help text (fetch.py:150, core/index.py:239)
        (
            "Fetching package metadata ........\nCondaHTTPError: HTTP Error: Could not find URL: "
            "https://repo.example.org/anaconda/cloud/somechannel/linux-64/\n",
            "channel_missing",
        ),
        (
            "CondaHTTPError: HTTP 404 NOT FOUND for url <https://repo.example.org/somechannel/win-64>\n\n"
            "The remote server could not find the channel you requested.\n",
            "channel_missing",
        ),
        # conda 4.3's CondaHTTPError around requests' timeout to Anaconda's own host
        (
            "CondaHTTPError: HTTP None None\nfor url <None>\n\nAn HTTP error occurred when trying to "
            'retrieve this URL.\nConnectTimeout(MaxRetryError("HTTPSConnectionPool('
            "host='repo.continuum.io', port=443): Max retries exceeded with url: "
            "/pkgs/free/linux-64/repodata.json.bz2\n",
            "conda_network_unreachable",
        ),
        # Open MPI's libraries, linked by torch builds made with MPI (torch/__init__.py
        # _load_global_deps), on Linux and macOS
        (
            '  File "/usr/lib/python3/dist-packages/torch/__init__.py", line 93, in _load_global_deps\n'
            "    ctypes.CDLL(lib_path, mode=ctypes.RTLD_GLOBAL)\n"
            "OSError: libmpi_cxx.so.40: cannot open shared object file: No such file or directory\n",
            "runtime_dll_beside_wheel",
        ),
        (
            "ImportError: dlopen(/opt/env/lib/python3.7/site-packages/torch/_C.cpython-37m-darwin.so, 9): "
            "Library not loaded: /usr/local/opt/open-mpi/lib/libmpi.40.dylib\n",
            "runtime_dll_beside_wheel",
        ),
        # PyTorch's MPS allocator (aten/src/ATen/mps/MPSAllocator.mm)
        (
            "RuntimeError: MPS backend out of memory (MPS allocated: 8.00 GB, other allocations: 1.00 GB, "
            "max allowed: 9.07 GB). Tried to allocate 25.00 MB on private pool.\n",
            "gpu_out_of_memory",
        ),
        # dockerd with no device driver for --gpus (moby daemon/errors.go): the NVIDIA Container
        # Toolkit missing; on a machine the paste says has another GPU, no NVIDIA GPU at all
        (
            "$ docker run --gpus all -it myimage\n"
            "docker: Error response from daemon: "
            'could not select device driver "" with capabilities: [[gpu]].\n',
            "container_toolkit_missing",
        ),
        (
            "My laptop only has Intel Iris Xe Graphics.\n"
            "docker: Error response from daemon: "
            'could not select device driver "" with capabilities: [[gpu]].\n',
            "no_nvidia_gpu",
        ),
        # PyTorch without the GPU in a container: nvidia-smi working there is a container given the
        # GPU (another cause); nvidia-smi missing there is one not given it, whatever flag the paste
        # shows for another image
        (
            'In the docker container "nvidia-smi" worked.\n>>> torch.cuda.is_available()\nFalse\n',
            None,
        ),
        (
            "docker run --gpus all nvidia/cuda:11.0-base nvidia-smi works on the host.\n"
            "In my container torch.cuda.is_available() returns False\n"
            "/bin/bash: nvidia-smi: command not found\n",
            "no_nvidia_gpu",
        ),
        # a CPU build asked for CUDA where the only GPU is Intel's: no NVIDIA GPU to install for;
        # on an Apple-silicon Mac, where PyTorch has no CUDA build at all: the CPU build's own cause
        (
            "My laptop only has Intel Iris Xe Graphics.\n"
            "AssertionError: Torch not compiled with CUDA enabled\n",
            "no_nvidia_gpu",
        ),
        (
            "I have a MacBook with the M2 Pro chip.\nAssertionError: Torch not compiled with CUDA enabled\n",
            "mx_cpu_build",
        ),
        # a Jetson running PyPI's CPU-only aarch64 torch (YOLOv5's select_device banner)
        (
            "Running on a Jetson Xavier NX.\nYOLOv5 v6.1 Python-3.8.10 torch-1.11.0 CPU\n",
            "mx_cpu_build",
        ),
        # pip falling back to torch's 0.1.2 placeholder on an ARM board
        (
            "$ pip install torch\nCollecting torch\n  Downloading https://files.pythonhosted.org/packages/"
            "f8/02/abc/torch-0.1.2.post2.tar.gz (128kB)\n    error: package directory 'torch/cuda' does "
            'not exist\nCommand "python setup.py egg_info" failed with error code 1 in '
            "/tmp/pip-build-x/torch/\n",
            "no_build_for_python",
        ),
        # bitsandbytes 0.41.1's own words (cextension.py, cuda_setup/main.py, from its PyPI wheel):
        # no CUDA build of its library for this CUDA version loaded where torch sees a GPU
        (
            "CUDA SETUP: Required library version not found: libbitsandbytes_cuda124.so. Maybe you "
            "need to compile it from source?\nCUDA SETUP: Defaulting to libbitsandbytes_cpu.so...\n",
            "bitsandbytes_cuda_setup",
        ),
        (
            "RuntimeError:\n        CUDA Setup failed despite GPU being available. Please run the "
            "following command to get more information:\n\n        python -m bitsandbytes\n",
            "bitsandbytes_cuda_setup",
        ),
        # ... its setup's failure (cuda_setup/main.py:140-152), and its fallback to the CPU library
        # as ctypes words the missing CUDA function (cextension.py:28-37); a CPU-only torch is
        # the cause of that fallback when the paste shows one
        ("Exception: CUDA SETUP: Setup Failed!\n", "bitsandbytes_cuda_setup"),
        # mmcv's ops dispatcher and its older ops (mmcv 1.7.1 / 2.1.0 sdists,
        # pytorch_device_registry.hpp:116-122, deform_conv.cpp:154): ops built without CUDA, and
        # one op given tensors on two devices
        ("RuntimeError: nms_impl: implementation for device cuda:0 not found.\n", "mmcv_ops_missing"),
        ("RuntimeError: DeformConv is not compiled with GPU support\n", "mmcv_ops_missing"),
        # torch's advanced indexing with indices on another device (torch 2.13.0 libtorch_cpu.so)
        (
            "RuntimeError: indices should be either on cpu or on the same device as the indexed tensor "
            "(cpu)\n",
            "tensors_on_two_devices",
        ),
        # micromamba's activate without its shell hook (micromamba/src/activate.cpp)
        (
            "Run micromamba activate leakpro\ncritical libmamba Shell not initialized\n\n'micromamba' is "
            "running as a subprocess and can't modify the parent shell.\n",
            "conda_shell_not_initialized",
        ),
        # conda-lock's refusals of a lock file made for other platforms (1.2.1, 2.5.7, 0.13.2)
        (
            "conda_lock.errors.PlatformValidationError: Dependencies are not locked for the current "
            "platform (osx-arm64)\n",
            "env_file_exported_builds",
        ),
        (
            "conda_lock.errors.PlatformValidationError: The lockfile conda-lock.yml does not contain a "
            "solution for the current platform osx-arm64. The lockfile only contains solutions for the "
            "following platforms: linux-64.\n",
            "env_file_exported_builds",
        ),
        (
            "PlatformValidationError: Platform in lockfile 'linux-64' is not compatible with system "
            "platform 'osx-arm64'. Disable validation with `--no-validate-platform`.\n",
            "env_file_exported_builds",
        ),
        # conda 23.7-23.10's argparse refusing `activate` where the shell was not set up for conda
        (
            "root@x# conda activate\nusage: conda [-h] [--no-plugins] [-V] COMMAND ...\nconda: error: "
            "argument COMMAND: invalid choice: 'activate' (choose from 'clean', 'compare', 'config', "
            "'create', 'info', 'init', 'install', 'list')\n",
            "conda_shell_not_initialized",
        ),
        # an `env create --file` whose file is not there: conda refuses the --name as a remote spec
        (
            "$ conda env create --quiet --name latest --file environment.yml\nSpecNotFound: Invalid "
            "name, try the format: user/package\n",
            None,
        ),
        # ROCm's HIP runtime finding no code object for an AMD GPU (ROCm/clr hip_code_object.cpp);
        # PyTorch's CUDA-capability warning on a ROCm build stays silent (spurious there)
        (
            'Radeon RX 6700 XT, torch 1.13.1+rocm5.2\n"hipErrorNoBinaryForGpu: Unable to find code object '
            'for all current devices!"\n',
            "old_gpu",
        ),
        (
            "GPU: Nvidia GeForce RTX 3050 Laptop GPU\nhipErrorNoBinaryForGpu: Unable to find code object "
            "for all current devices!\n",
            None,
        ),
        (
            "Radeon RX 7900 XTX, torch 2.1.0+rocm5.6\nUserWarning: AMD Radeon RX 7900 XTX with CUDA "
            "capability sm_110 is not compatible with the current PyTorch installation.\n",
            None,
        ),
        # torch's device check in its own words (torch 2.13.0 libtorch_cpu.so)
        ("RuntimeError: expected device cuda:0 but got device cpu\n", "tensors_on_two_devices"),
        # pixi's check of the machine against the manifest (v0.40.0 virtual_packages.rs)
        (
            "  x The current system has a mismatching virtual package. The project requires '__cuda' to "
            "be at least version '12' but the system has version '11.4'\n",
            "driver_below_env_floor",
        ),
        # an assert on torch.cuda.is_available() beside defaults' CPU build of pytorch
        (
            "    assert torch.cuda.is_available(), 'must have cuda enabled'\nAssertionError: must have "
            "cuda enabled\n$ conda list pytorch\npytorch                   2.1.0           "
            "cpu_py38hab5cca8_0    defaults\n",
            "mx_cpu_build",
        ),
        # too little GPU memory as the reason for a setting, not the failure: another error follows
        (
            "为了解决显存不足的问题设置了flash_attention_2，推理时报错：\n"
            "RuntimeError: FlashAttention only support fp16 and bf16 data type\n",
            None,
        ),
        ("训练时显存不足，怎么办？\n", "gpu_out_of_memory"),
        ("如何解决显存不足的问题？\n", "gpu_out_of_memory"),
        (
            "RuntimeError: roi_align_forward_impl: at param 2, inconsistent device: cpu vs cuda:0\n",
            "tensors_on_two_devices",
        ),
        (
            "UserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit "
            "optimizers, 8-bit multiplication, and GPU quantization are unavailable.\n/opt/venv/lib/"
            "python3.10/site-packages/bitsandbytes/libbitsandbytes_cpu.so: undefined symbol: "
            "cadam32bit_grad_fp32\n",
            "bitsandbytes_cuda_setup",
        ),
        (
            "torch 2.0.1+cpu\n/opt/venv/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cpu.so: "
            "undefined symbol: cadam32bit_grad_fp32\n",
            None,
        ),
        # an exported environment file's build strings, said in words
        (
            "conda env create -f environment.yml fails: conda is unable to identify the packages "
            "because of the build strings in the environment yml file.\n",
            "env_file_exported_builds",
        ),
        # torch 2.8 and later's warning for a GPU its build has no kernels for (torch 2.13.0
        # torch/cuda/__init__.py:362-404, _warn_unsupported_code): a Blackwell GPU under a cu126
        # build (no libgpuarray in the paste, so not libgpuarray's arch bug), and a Kepler one no
        # build supports
        (
            "UserWarning: Found GPU0 NVIDIA GeForce RTX 5090 which is of compute capability (CC) 12.0.\n"
            "The following list shows the CCs this version of PyTorch was built for and the hardware "
            "CCs it supports:\n- 5.0 which supports hardware CC >=5.0,<6.0\n"
            "- 9.0 which supports hardware CC >=9.0,<10.0\n"
            "Your installed torch==2.7.0+cu126 does not include kernels for this GPU. Reinstall the "
            "same version against a CUDA build that does, e.g.:\n"
            "  For CUDA 12.8 use pip install torch==2.7.0 --index-url https://download.pytorch.org/whl/cu128\n",
            "old_gpu",
        ),
        (
            "UserWarning: Found GPU0 Tesla K80 which is of compute capability (CC) 3.7.\n"
            "No published PyTorch CUDA builds for release 2.9.0+cu128 support this GPU. Visit "
            "https://pytorch.org/get-started/locally/ to find a compatible release.\n",
            "old_gpu",
        ),
        # torch's NVML queries of a device index past the visible ones (torch/cuda/__init__.py:1127-1143)
        ("RuntimeError: device 1 is not visible (CUDA_VISIBLE_DEVICES=[0])\n", "gpu_index_missing"),
        # Poetry's installer with no file of the locked release for this environment (1.8.3
        # chooser.py:74; 2.1.1 chooser.py:109-175 adds its reasons)
        (
            "  - Installing torch (2.4.1): Failed\n\n  RuntimeError\n\n"
            "  Unable to find installation candidates for torch (2.4.1)\n",
            "no_build_for_python",
        ),
        (
            "  | Unable to find installation candidates for torch (2.5.1)\n  | \n"
            "  | This is likely not a Poetry issue.\n  | \n"
            "  |   - 17 candidate(s) were identified for the package\n"
            "  |   - 17 wheel(s) were skipped as your project's environment does not support the "
            "identified abi tags\n",
            "no_build_for_python",
        ),
        # not a channel's: an env file's spec written as a package file's name (conda reads it
        # whole as a name: conda/models/match_spec.py _parse_spec_str), and Python 3.1 asked for
        # where a workflow's YAML read `3.10` as a number (test_yaml_reads_an_unquoted_3_10_as_3_1)
        ("ResolvePackageNotFound: \n  - pytorch3d-0.7.0-py38_cu113_pyt1110 (line 149)\n", None),
        (
            "PackagesNotFoundError: The following packages are not available from current channels:"
            "\n\n  - python[version='3.1.*,3.10.*']\n",
            None,
        ),
        # a setup-miniconda workflow whose later steps ran without the environment's activation
        # (no login shell), not one whose own environment creation failed
        (
            "- uses: conda-incubator/setup-miniconda@v2\n  with:\n    activate-environment: my-venv\n"
            "- name: Info\n  run: which python\nI'm expecting the conda environment's python, but get "
            "the system one.\n",
            "conda_shell_not_initialized",
        ),
        (
            "- uses: conda-incubator/setup-miniconda@v3\n  with:\n    activate-environment: my-env\n"
            "    environment-file: env.yml\nLibMambaUnsatisfiableError: Encountered problems while "
            "solving:\n  - package foo-1.0-py_0 requires bar >=2, but none of the providers can be "
            "installed\n",
            None,
        ),
        # uv's resolver: no wheel of the release for this Python's ABI tag, or for Windows
        (
            "  × No solution found when resolving dependencies:\n  ╰─▶ Because torch==2.5.1 has no wheels "
            "with a matching Python ABI tag (e.g., `cp313`) and you require torch==2.5.1, we can "
            "conclude that your requirements are unsatisfiable.\n",
            "no_build_for_python",
        ),
        (
            "  ╰─▶ Because triton==3.1.0 has no wheels with a matching platform tag (e.g., `win_amd64`) "
            "and you require triton==3.1.0, we can conclude that your requirements are unsatisfiable.\n",
            "no_build_for_python",
        ),
        # uv's lock installer (0.5.14 crates/uv-resolver/src/lock/mod.rs)
        (
            "error: Distribution `torch==2.5.1 @ registry+https://pypi.org/simple` can't be installed "
            "because it doesn't have a source distribution or wheel for the current platform\n",
            "no_build_for_python",
        ),
        # Triton (PyPI: Linux wheels only) missing on Windows, and on Linux (another cause)
        (
            'File "C:\\ComfyUI\\python_embeded\\Lib\\site-packages\\torch\\_inductor\\runtime\\'
            "hints.py\", line 29\nModuleNotFoundError: No module named 'triton'\n",
            "no_build_for_python",
        ),
        ("File \"/home/u/env/lib/python3.11/site-packages/x.py\", line 3\nNo module named 'triton'\n", None),
        # conda 4.1-4.3's root_read_only (conda/cli/help.py)
        (
            "CondaIOError: Missing write permissions in: C:\\ProgramData\\Anaconda3\n#\n"
            "# You don't appear to have the necessary permissions to install packages\n",
            "conda_not_writable",
        ),
        # THC's words for cudaErrorInitializationError in a forked multiprocessing child
        (
            '  File "/opt/conda/lib/python3.7/multiprocessing/process.py", line 99, in run\n'
            "    self._target(*self._args, **self._kwargs)\n"
            "RuntimeError: cuda runtime error (3) : initialization error at "
            "../torch/csrc/cuda/Module.cpp:33\n",
            "cuda_reinit_forked",
        ),
        # an editor's interpreter without the package: Pylance's words (pyright en.json
        # importResolveFailure) beside it installed, and the import failing in the IDE in prose
        (
            "- pytorch version: 1.9.0\nWhen I type `import torch`, a warning appears - "
            '`Import "torch" could not be resolved Pylance(reportMissingImports)`\n',
            "env_mismatch",
        ),
        (
            "I use pycharm to import torch, cannot use it.\nBut I use cmd to import torch, it can work.\n",
            "env_mismatch",
        ),
        # pip refusing a wheel built for the very python the paste shows: the pip is another's;
        # a wheel of another Python is the wheel's
        (
            "E:\\app\\python_embeded>python --version\nPython 3.12.7\n"
            'E:\\app\\python_embeded>pip install "C:\\dl\\triton-3.1.0-cp312-cp312-win_amd64.whl"\n'
            "ERROR: triton-3.1.0-cp312-cp312-win_amd64.whl is not a supported wheel on this platform.\n",
            "env_mismatch",
        ),
        (
            "E:\\app\\python_embeded>python --version\nPython 3.11.9\n"
            'E:\\app\\python_embeded>pip install "C:\\dl\\triton-3.1.0-cp312-cp312-win_amd64.whl"\n'
            "ERROR: triton-3.1.0-cp312-cp312-win_amd64.whl is not a supported wheel on this platform.\n",
            "wheel_not_for_this_python",
        ),
        # onnxruntime-gpu's CUDA provider DLL whose CUDA / cuDNN DLLs Windows cannot find
        # (onnxruntime/core/platform/windows/env.cc)
        (
            "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : "
            'LoadLibrary failed with error 126 "" when trying to load '
            '"C:\\Python310\\lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll"\n',
            "runtime_dll_beside_wheel",
        ),
        # DeepSpeed's op builder (0.14.0 op_builder/builder.py:82-104)
        (
            "deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed "
            "CUDA version 12.2 does not match the version torch was compiled with 11.7, unable to "
            "compile cuda/cpp extensions without a matching cuda version.\n",
            "extension_nvcc_not_torch_cuda",
        ),
        # mamba's words for a versioned spec, with or without its `**`, and the same in prose with
        # one of conda's platform subdirs
        (
            "error    libmamba Could not solve for environment specs\n"
            "    The following package could not be installed\n"
            "    └─ pyg 2.2.0  does not exist (perhaps a typo or a missing channel).\n",
            "channel_missing",
        ),
        ("No magma-cuda80 for osx-64\n\nIs this expected?\n", "channel_missing"),
        # conda's classic solver left running, in prose
        (
            'I tried `conda env create -f environment.yml` but conda displays "Solving environment" '
            "indefinitely.\n",
            "conda_classic_solver_slow",
        ),
        # torchrun, whose shebang is another Python's, failing an import `python -m` finds
        (
            "torchrun --nproc_per_node=8 test.py\nModuleNotFoundError: No module named 'datasets'\n"
            "Changing from 'torchrun' to 'python3 -m torch.distributed.launch', then it all works.\n",
            "env_mismatch",
        ),
        # uv's hint for a build that imports torch without declaring it (uv 0.5.14's strings)
        (
            "  × Failed to build `flash-attn==2.7.4.post1`\n  ├─▶ The build backend returned an error\n"
            "      ModuleNotFoundError: No module named 'torch'\n"
            "      hint: This error likely indicates that `flash-attn@2.7.4.post1` depends on `torch`, "
            "but doesn't declare it as a build dependency. If `flash-attn` is a first-party package, "
            "consider adding `torch` to its `build-system.requires`. Otherwise, `uv pip install torch` "
            "into the environment and re-run with `--no-build-isolation`.\n",
            "build_isolation_no_torch",
        ),
        # pip's legacy build in 10.0.1's words ("Complete output from command %s:") and 19.3-21.x's
        # short form ("Command errored out with exit status {}: {} Check the logs ..."); its
        # isolated build's step (23.2.1 build_env.py:274, "Installing {kind}")
        (
            "    Complete output from command python setup.py egg_info:\n"
            "    Traceback (most recent call last):\n    ModuleNotFoundError: No module named 'torch'\n",
            "torch_not_installed_before_build",
        ),
        (
            "[WARNING] Unable to import torch, pre-compiling ops will be disabled.\n"
            "ERROR: Command errored out with exit status 1: python setup.py egg_info Check the logs for full "
            "command output.\n",
            "torch_not_installed_before_build",
        ),
        (
            "  Installing build dependencies ... done\n  Getting requirements to build editable ... error\n"
            "  ModuleNotFoundError: No module named 'torch'\n",
            "build_isolation_no_torch",
        ),
        # Python's own _ssl refused by Windows' loader (CPython 3.8+ dynload_win.c)
        (
            "ImportError: DLL load failed while importing _ssl: The specified procedure could not be "
            "found.\n",
            "python_ssl_unavailable",
        ),
        # Windows' error 206 without its number, conda 3.19/4.0's "Error: " before its not-found
        # words, and the placeholder of conda 4.0's own create_default_packages hint
        (
            "FileNotFoundError(2, 'The filename or extension is too long')\n",
            "windows_path_too_long",
        ),
        ("Error:  Package missing in current osx-64 channels: \n  - pomegranate\n", "channel_missing"),
        ("Error:  Package missing in current osx-64 channels: \n  - package_name\n", None),
        # CNMeM's out-of-memory from initCnmem (preallocation) and from an allocation afterwards
        (
            "initCnmem: cnmemInit call failed! Reason=CNMEM_STATUS_OUT_OF_MEMORY. numdev=1\n",
            "gpu_preallocate_oom",
        ),
        # PyTorch's device checks (the torch 2.13.0 wheel's libtorch_cpu.so strings): two devices,
        # a CUDA input and a CPU weight; the same words for two dtypes on one device are not it;
        # mxnet Gluon's parameter on another context (gluon/parameter.py)
        (
            "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu!\n",
            "tensors_on_two_devices",
        ),
        (
            "RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be "
            "the same\n",
            "tensors_on_two_devices",
        ),
        (
            "RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) "
            "should be the same\n",
            None,
        ),
        (
            "RuntimeError: Parameter 'conv2d_0weight' was not initialized on context cpu(0). It was only "
            "initialized on [gpu(0)].\n",
            "tensors_on_two_devices",
        ),
        # the device count failing with CUDA's error 500 in a container on Windows; on a bare
        # Linux machine the same words are not judged
        (
            "docker compose up\nRuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run "
            "some cuda functions before calling NumCudaDevices() that might have already set an error? "
            "Error 500: named symbol not found\n",
            "gpu_passthrough_older_than_driver",
        ),
        (
            "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
            "before calling NumCudaDevices() that might have already set an error? Error 500: named "
            "symbol not found\n",
            None,
        ),
        # NCCL's shared-memory segment refused (its WARN as 2.21 prints it), and a bus error in its
        # frames; a bus error elsewhere is not it
        (
            "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device "
            "error.\nError while creating shared memory segment /dev/shm/nccl-1YsMbG (size 7340384)\n",
            "nccl_shm_exhausted",
        ),
        (
            "Caught signal 7 (Bus error: nonexistent physical address)\n"
            " 2 0x000000000007587d ncclGroupEnd()  ???:0\n",
            "nccl_shm_exhausted",
        ),
        ("Caught signal 7 (Bus error: nonexistent physical address)\n 2 0x00007587d memcpy()  ???:0\n", None),
        # the driver's library by its unversioned name refused: only on WSL2 (else a driver not
        # installed at all reads the same)
        (
            "Linux 5.15.153.1-microsoft-standard-WSL2\n"
            "OSError: libcuda.so: cannot open shared object file: No such file or directory\n",
            "libcuda_unversioned_missing",
        ),
        ("OSError: libcuda.so: cannot open shared object file: No such file or directory\n", None),
        # TCPStore's refusal of libuv (torch 2.13.0's libtorch_cpu.so; 2.4's Windows wheels "build")
        (
            "RuntimeError: use_libuv was requested but PyTorch was built without libuv support, run with "
            "USE_LIBUV=0 to disable it.\n",
            "libuv_not_in_build",
        ),
        # conda's conflict report (4.14.0 exceptions.py:744; 4.6.14:646): a pin outside the range a
        # requested package's builds need; not where the pin lies inside it
        (
            "UnsatisfiableError: The following specifications were found to be incompatible with each "
            "other:\n\nOutput in format: Requested package -> Available versions\n\n"
            "Package cudatoolkit conflicts for:\n"
            "pytorch=1.3.1 -> cudatoolkit[version='>=10.1,<10.2']\ncudatoolkit=10.0\n",
            "conda_pins_conflict",
        ),
        (
            "UnsatisfiableError: The following specifications were found to be in conflict:\n"
            "  - cudatoolkit 10.1*\n  - pytorch 1.0.1* -> cudatoolkit >=10.0.130,<10.1.0a0\n"
            'Use "conda info <package>" to see the dependencies for each package.\n',
            "conda_pins_conflict",
        ),
        (
            "UnsatisfiableError: The following specifications were found to be incompatible with each "
            "other:\n\nPackage cudatoolkit conflicts for:\n"
            "pytorch=1.3.1 -> cudatoolkit[version='>=10.1,<10.2']\ncudatoolkit=10.1\n",
            None,
        ),
        # the NVIDIA kernel module refusing libraries of another version (osapi.c, older and newer
        # wording), and NVML's word for it (nvidia-smi, nvidia-container-cli, pynvml)
        (
            "[ 5080.898738] NVRM: API mismatch: the client has the version 545.29.06, but\n"
            "               NVRM: this kernel module has the version 550.54.14.  Please\n",
            "driver_library_mismatch",
        ),
        (
            "NVRM: API mismatch: the client 'nvidia-smi' (pid 4242)\n"
            "NVRM: has the version 570.86.16, but this kernel module has\nNVRM: the version 570.86.15.\n",
            "driver_library_mismatch",
        ),
        (
            "$ nvidia-smi\nFailed to initialize NVML: Driver/library version mismatch\n",
            "driver_library_mismatch",
        ),
        (
            "pynvml.NVMLError_LibRmVersionMismatch: RM has detected an NVML/RM version mismatch.\n",
            "driver_library_mismatch",
        ),
        # conda 4.13.0 and later's UnavailableInvalidChannel for a 403 on the channel's noarch
        # (4.6.14 to 25.11.1 raise it for 403 as for 404), and 4.6.14-4.12.0's `error code:`
        (
            "UnavailableInvalidChannel: HTTP 403 FORBIDDEN for channel intel <https://conda.anaconda.org/intel>\n\n"
            "The channel is not accessible or is invalid.\n",
            "channel_refused",
        ),
        (
            "UnavailableInvalidChannel: The channel is not accessible or is invalid.\n"
            "  channel name: intel\n  channel url: https://conda.anaconda.org/intel\n  error code: 403\n",
            "channel_refused",
        ),
        (
            "UnavailableInvalidChannel: The channel is not accessible or is invalid.\n"
            "  channel name: inetl\n  channel url: https://conda.anaconda.org/inetl\n  error code: 404\n",
            "channel_missing",
        ),
        # libmamba's problems (one `  - ` line each, then conda-libmamba-solver's explanation after
        # a blank line): a dependency nothing provides, alone; beside another problem, undecided
        (
            "LibMambaUnsatisfiableError: Encountered problems while solving:\n"
            "  - nothing provides pytorch needed by micro_sam-0.0.2-pyhd8ed1ab_0\n\n"
            "Could not solve for environment specs\n",
            "channel_missing",
        ),
        (
            "LibMambaUnsatisfiableError: Encountered problems while solving:\n"
            "  - nothing provides pytorch needed by micro_sam-0.0.2-pyhd8ed1ab_0\n"
            "  - package napari-0.4.19-pyh_0 requires vispy >=0.14, but none of the providers can be "
            "installed\n\n"
            "Could not solve for environment specs\n",
            None,
        ),
        # conda 4.4-4.6's conflict of a package's Python (a range) with the Python asked for
        (
            "UnsatisfiableError: The following specifications were found to be in conflict:\n"
            "  - caiman -> mypy -> python >=3.5,<3.6.0a0\n  - python 2.7*\n",
            "no_build_for_python",
        ),
        # xFormers' warning (xformers/_cpp_lib.py), then its dispatcher finding no operator
        (
            "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.6.0+cu124 with CUDA 1204 (you have 2.6.0+cu126)\n"
            "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n",
            "torch_extension_other_torch",
        ),
        (
            "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.6.0+cu124 with CUDA 1204 (you have 2.6.0+cu126)\n"
            "ValueError: The config file ./configs/v2.yaml does not exist\n",
            None,
        ),
        # DGL's GraphBolt library for another torch (dgl 2.1.0 graphbolt/__init__.py:46)
        (
            "FileNotFoundError: Cannot find DGL C++ graphbolt library at "
            "/opt/conda/lib/python3.10/site-packages/dgl/graphbolt/libgraphbolt_pytorch_2.3.1.so\n",
            "torch_extension_other_torch",
        ),
        # torchaudio's own library is an extension like the others; torch's own is not
        (
            "OSError: /opt/conda/lib/python3.10/site-packages/torchaudio/lib/libtorchaudio.so: "
            "undefined symbol: _ZNK5torch8autograd4Node4nameB5cxx11Ev\n",
            "torch_extension_other_torch",
        ),
        (
            "OSError: /opt/conda/lib/python3.10/site-packages/torch/lib/libtorch_cpu.so: "
            "undefined symbol: _ZN3c1010Dispatcher17runRecordFunctionERN2at14RecordFunctionE\n",
            None,
        ),
        # pip's legacy setup.py build without torch in older pips' words: 19.3.1-21.1.3's
        # command line (setuptools_build.py's shim, then egg_info), 9.0.3/10.0.1's command_desc
        (
            "ERROR: Command errored out with exit status 1:\n"
            "     command: /usr/bin/python3 -c 'import sys, setuptools, tokenize; sys.argv[0] = "
            "'\"'\"'/tmp/pip-install-x1/torch-scatter/setup.py'\"'\"'; __file__='\"'\"'/tmp/pip-install-x1/"
            "torch-scatter/setup.py'\"'\"';f=getattr(tokenize, '\"'\"'open'\"'\"', open)(__file__)' egg_info "
            "--egg-base /tmp/pip-install-x1/torch-scatter/pip-egg-info\n"
            "    Complete output (5 lines):\n    Traceback (most recent call last):\n"
            '      File "/tmp/pip-install-x1/torch-scatter/setup.py", line 5, in <module>\n'
            "        import torch\n    ModuleNotFoundError: No module named 'torch'\n",
            "torch_not_installed_before_build",
        ),
        (
            "    ImportError: No module named torch\n\n    ----------------------------------------\n"
            'Command "python setup.py egg_info" failed with error code 1 in /tmp/pip-build-q2f3xv/x/\n',
            "torch_not_installed_before_build",
        ),
        # NVRTC refusing the architecture on a Blackwell GPU under libgpuarray, no NVRTC version
        # stated: 0.7.6 asked for compute_12 whatever the NVRTC; on an Ada GPU, this NVRTC's own
        (
            "Mapped name None to device cuda: NVIDIA GeForce RTX 5090\n"
            "pygpu.gpuarray.GpuArrayException: b'nvrtcCompileProgram: NVRTC_ERROR_INVALID_OPTION'\n",
            "arch_truncated_blackwell",
        ),
        (
            "Mapped name None to device cuda: NVIDIA GeForce RTX 4090\n"
            "pygpu.gpuarray.GpuArrayException: b'nvrtcCompileProgram: NVRTC_ERROR_INVALID_OPTION'\n",
            "nvrtc_arch_unsupported",
        ),
        # macOS's EBADARCH as zsh and Python print it, dyld's three wordings of a library of
        # another architecture (dyld-852, dyld-940 and later, dyld-960), and an Intel Python that
        # Rosetta runs on Apple silicon (conda info's platform line); an M1 named beside an
        # arm64 platform is no finding
        ("zsh: bad CPU type in executable: /Users/u/miniconda3/bin/conda\n", "binary_for_other_cpu"),
        ("OSError: [Errno 86] Bad CPU type in executable: 'ffmpeg'\n", "binary_for_other_cpu"),
        (
            "ImportError: dlopen(/opt/m/lib/python3.9/site-packages/torch/_C.cpython-39-darwin.so, 2): "
            "no suitable image found.  Did find:\n\t/opt/m/torch/_C.so: mach-o, but wrong architecture\n",
            "binary_for_other_cpu",
        ),
        (
            "OSError: dlopen(libtorch_global_deps.dylib, 0x000A): tried: 'libtorch_global_deps.dylib' "
            "(mach-o file, but is an incompatible architecture (have 'arm64', need 'x86_64'))\n",
            "binary_for_other_cpu",
        ),
        (
            "tried: '/u/.djl.ai/mxnet/libmxnet.dylib' (mach-o file, but is an incompatible "
            "architecture (have (x86_64), need (arm64e)))\n",
            "binary_for_other_cpu",
        ),
        (
            "MacBook Pro with the M2 Max chip, torch.backends.mps.is_available() is False\n"
            "     active environment : base\n            platform : osx-64\n",
            "binary_for_other_cpu",
        ),
        (
            "MacBook Pro with the M2 Max chip, torch.backends.mps.is_available() is False\n"
            "            platform : osx-arm64\n",
            None,
        ),
        # Lightning's words for CUDA unavailable beside a CPU wheel or nvidia-smi's failure, and
        # its check of GPU numbers (some counted: a number past them; none: no GPU); DeepSpeed's
        # op builder finding no toolkit
        ("MisconfigurationException: No supported gpu backend found!\ntorch 2.1.0+cpu\n", "mx_cpu_build"),
        (
            "MisconfigurationException: You passed `accelerator='gpu'`, but GPUs are not available.\n"
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver\n",
            "no_nvidia_gpu",
        ),
        ("GPU available: False, used: False\n", None),
        (
            "MisconfigurationException: You requested gpu: [1]\n But your machine only has: [0]\n",
            "gpu_index_missing",
        ),
        ("MisconfigurationException: You requested gpu: [0]\n But your machine only has: []\n", None),
        # pip's "No matching distribution" for a pin of a release PyPI has (torch 1.6.0: wheels for
        # cp36 to cp38, data/pypi_wheels.json), its listing not pasted; not where pip could not
        # read the index, nor for a release PyPI never had
        (
            "ERROR: Could not find a version that satisfies the requirement torch==1.6.0\n"
            "ERROR: No matching distribution found for torch==1.6.0\n",
            "no_build_for_python",
        ),
        (
            "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) "
            "after connection broken by 'NewConnectionError'\n"
            "ERROR: Could not find a version that satisfies the requirement torch==1.6.0\n",
            None,
        ),
        ("ERROR: Could not find a version that satisfies the requirement torch==1.6.9\n", None),
        # c10's device guard on a CPU build (LibTorch's and R torch's words); Intel MKL's refusal of
        # a CPU without the sets it needs (Rosetta 2's x86_64 among them)
        (
            "Error in torch_tensor_cpp(data, dtype, device, requires_grad, pin_memory) :\n"
            "  PyTorch is not linked with support for cuda devices\n",
            "mx_cpu_build",
        ),
        (
            "Intel MKL FATAL ERROR: This system does not meet the minimum requirements for use of the "
            "Intel(R) Math Kernel Library.\nThe processor must support the Intel(R) Advanced Vector "
            "Extensions (Intel(R) AVX) instructions.\n",
            "cpu_lacks_instructions",
        ),
        # the signal by name in the user's words; CUDA's index_select on tensors of two devices;
        # DeepSpeed's CUDA mismatch as a title cuts it; a Theano-trained Keras model under
        # TensorFlow; a conda platform's build, or a channel's, not there in the user's words
        (
            "My issue is Python3 which end with SIGILL instruction when i import torch.\n",
            "cpu_lacks_instructions",
        ),
        ("RuntimeError: Input, output and indices must be on the current device\n", "tensors_on_two_devices"),
        ("Installed CUDA version 11.7 does not match torch version\n", "extension_nvcc_not_torch_cuda"),
        (
            "I am converting a Resnet model (h5 file) created using Theano backend to a tensorflow pb file\n",
            "keras_backend_not_theano",
        ),
        ("I compared the speed of Theano and TensorFlow on the same model\n", None),
        (
            "Can't install minimap2 from bioconda on an M1 Mac as the osx-arm64 build is not included\n",
            "channel_missing",
        ),
        ("I do not see such builds available via the pyg conda channel.\n", "channel_missing"),
        # PyPI's torch placeholders where pip could not read PyTorch's own wheel page: no 32-bit sign
        (
            "Could not fetch URL https://download.pytorch.org/whl/torch_stable.html: There was a problem "
            "confirming the ssl certificate\nERROR: Could not find a version that satisfies the requirement "
            "torch===1.4.0 (from versions: 0.1.2, 0.1.2.post1, 0.1.2.post2)\n",
            None,
        ),
        # pip's words for a wheel's host refusing it (pip 9's, requests')
        (
            "HTTP error 403 while getting https://s3.amazonaws.com/pytorch/whl/torch-0.1.10.post2-cp27-none-"
            "macosx_10_7_x86_64.whl\n",
            "channel_refused",
        ),
        (
            "403 Client Error: Forbidden for url: https://download.pytorch.org/whl/cu118/torch-2.0.1%2Bcu118-"
            "cp310-cp310-linux_x86_64.whl\n",
            "channel_refused",
        ),
        # a full disk or quota where an install or a cache is written; the bare words in a
        # training run stay unnamed (as often /dev/shm, the DataLoader's)
        (
            "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device\n",
            "disk_full",
        ),
        (
            "conda install pytorch\nOSError: [Errno 122] Disk quota exceeded: '/home/u/.conda/pkgs'\n",
            "disk_full",
        ),
        ("No space left on device with plenty of space left on GPU\nmode=train, cache=False\n", None),
        # conda's CPU builds of pytorch by their build strings (the pytorch channel's, conda-forge's)
        # where CUDA is asked for and unavailable; a CUDA build's string is no finding
        (
            "pytorch                   1.13.1              py3.9_cpu_0    pytorch\n"
            ">>> torch.cuda.is_available()\nFalse\n",
            "mx_cpu_build",
        ),
        (
            "  pytorch            conda-forge/linux-64::pytorch-2.1.2-cpu_mkl_py310h3ea73d3_100\n"
            "torch.cuda.is_available() returns False\n",
            "mx_cpu_build",
        ),
        (
            "pytorch                   1.13.1          py3.9_cuda11.7_cudnn8.5.0_0    pytorch\n"
            ">>> torch.cuda.is_available()\nFalse\n",
            None,
        ),
        (
            "deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, "
            "unable to compile CUDA op(s)\n",
            "torch_extension_no_cuda_home",
        ),
        # MSVC's C++ library refusing an nvcc older than CUDA 12.4 (yvals_core.h), as nvcc prints it
        (
            "C:\\Program Files\\Microsoft Visual Studio\\2022\\BuildTools\\VC\\Tools\\MSVC\\14.44.35207"
            '\\include\\yvals_core.h(902): error: static assertion failed with "error STL1002: '
            'Unexpected compiler version, expected CUDA 12.4 or newer."\n',
            "gcc_too_new",
        ),
        # cuDNN 9's loader missing a sub-library (libcudnn_graph.so.9's words), as CTranslate2 shows it
        (
            "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, "
            "libcudnn_ops.so}\nInvalid handle. Cannot load symbol cudnnCreateTensorDescriptor\n",
            "runtime_dll_beside_wheel",
        ),
        # PowerShell's Restricted policy on conda's profile hook, then conda missing in that shell
        (
            ". : File C:\\Users\\me\\Documents\\WindowsPowerShell\\profile.ps1 cannot be loaded because "
            "running scripts is disabled on this system. For more information, see about_Execution_Policies "
            "at https:/go.microsoft.com/fwlink/?LinkID=135170.\n"
            "conda : The term 'conda' is not recognized as the name of a cmdlet, function, script file, or "
            "operable program.\n",
            "powershell_scripts_disabled",
        ),
        # an old ld64 on a newer SDK's stubs, as Theano's compile error carries it
        (
            "Exception: ('The following error happened while compiling the node', "
            "DeepCopyOp(TensorConstant{1.0}), '\\n', \"Compilation failed (return status=1): ld: unsupported "
            "tapi file type '!tapi-tbd' in YAML file '/Library/Developer/CommandLineTools/SDKs/MacOSX12.sdk"
            "/usr/lib/libSystem.tbd' for architecture x86_64. clang-16: error: linker command failed\")\n",
            "linker_older_than_macos_sdk",
        ),
        # Fuel's and pylearn2's unset dataset paths
        (
            "fuel.exceptions.ConfigurationError: Configuration not set and no default provided: data_path.\n",
            "fuel_pylearn2_data_path_unset",
        ),
        (
            "pylearn2.utils.exc.NoDataPathError: You need to define your PYLEARN2_DATA_PATH environment "
            "variable. If you are\nusing a computer at LISA, this should be set to /data/lisa/data.\n",
            "fuel_pylearn2_data_path_unset",
        ),
        # the Terms of Service plugin's refusal of channels whose terms were rejected
        (
            "CondaToSRejectedError: Terms of Service has been rejected for the following channels. Please "
            "remove or accept them before proceeding:\n    • https://repo.anaconda.com/pkgs/main\n",
            "conda_tos",
        ),
        # the official Keras asked for keras-mxnet's backend (2.2.4's and 2.1.6's words)
        (
            '  File "keras/backend/__init__.py", line 108\nValueError: Unable to import backend : mxnet\n',
            "keras_mxnet_backend_missing",
        ),
        ("ValueError: Unknown backend: mxnet\n", "keras_mxnet_backend_missing"),
        (
            '$ cat ~/.keras/keras.json\n"backend": "mxnet"\n'
            "ValueError: Invalid backend. Missing required entry : placeholder\n",
            "keras_mxnet_backend_missing",
        ),
        ("ValueError: Invalid backend. Missing required entry : placeholder\n", None),
        # a ZeroGPU Space's main process starting CUDA (the spaces package's patch of torch)
        (
            "RuntimeError: CUDA must not be initialized in the main process on Spaces with Stateless GPU "
            "environment.\nYou can look at this Stacktrace to find out which part of your code triggered a "
            "CUDA init\n",
            "zerogpu_cuda_in_main_process",
        ),
        # CTranslate2's words for the GPU's memory running out (faster-whisper's large model)
        ("RuntimeError: CUDA failed with error out of memory\n", "gpu_out_of_memory"),
        # Triton's kernel refused by the driver: a newer ptxas than the driver, or a kernel cached
        # for another GPU (triton-lang/triton#1323) say the same, so the text does not decide
        (
            "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
            "RuntimeError: Triton Error [CUDA]: device kernel image is invalid\n",
            None,
        ),
        # Triton 2.1's own search for libcuda.so
        (
            "AssertionError: libcuda.so cannot found!\nPossible files are located at "
            "['/usr/lib/wsl/lib/libcuda.so.1'].Please create a symlink of libcuda.so to any of the file.\n",
            "libcuda_unversioned_missing",
        ),
        # Keras' TensorFlow K.dot of a 3-D tensor with a vector weight (code for Theano's dot)
        (
            "Using TensorFlow backend.\n"
            '  File "site-packages/keras/backend/tensorflow_backend.py", line 968, in dot\n'
            "    y_permute_dim = [y_permute_dim.pop(-2)] + y_permute_dim\n"
            "IndexError: pop index out of range\n",
            "keras_backend_not_theano",
        ),
        # torch.compile's refusal retold in prose, in other case
        (
            "Runtimeerror: python 3.11+ not yet supported for torch. compile\n",
            "torch_compile_unsupported_here",
        ),
        (
            "it returned such error saying that Dynamo not supported on Python 3.12+.\n",
            "torch_compile_unsupported_here",
        ),
        # torch.compile's guards, as the traceback ends (torch 2.1.0's and 2.6.0's words)
        (
            '  File "torch/_dynamo/eval_frame.py", line 537\n'
            "RuntimeError: Python 3.12+ not yet supported for torch.compile\n",
            "torch_compile_unsupported_here",
        ),
        ("RuntimeError: torch.compile is not supported on Python 3.14+\n", "torch_compile_unsupported_here"),
        ("RuntimeError: Windows not yet supported for torch.compile\n", "torch_compile_unsupported_here"),
        (
            "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
            "RuntimeError: Found Tesla P100-PCIE-16GB which is too old to be supported by the triton GPU "
            "compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, "
            "but your device is of CUDA capability 6.0\n",
            "gpu_too_old_for_triton",
        ),
        (
            "torch._inductor.exc.TritonMissing: Cannot find a working triton installation. Either the "
            "package is not installed or it is too old. More information on installing Triton can be found "
            "at: https://github.com/triton-lang/triton\n",
            "triton_missing",
        ),
    ],
)
def test_messages_read_from_the_programs_sources(paste, named):
    found = diagnose_log(paste)
    assert (found[0].id if found else None) == named


def test_yaml_reads_an_unquoted_3_10_as_3_1():
    """A workflow's `python-version: 3.10` (GitHub Actions reads YAML) is the number 3.1, so conda
    is asked for Python 3.1: a YAML reader's own reading (ruamel.yaml's safe loader, YAML 1.2's
    float), the one the exclusion above stands on."""
    from ruamel.yaml import YAML

    assert YAML(typ="safe").load("python-version: 3.10") == {"python-version": 3.1}
    assert YAML(typ="safe").load('python-version: "3.10"') == {"python-version": "3.10"}


def test_a_windows_path_cmd_cut_at_its_space():
    """cmd.exe's "is not recognized" of a path's first word, where the paste shows the path with
    its space (a launcher's unquoted install folder); not of a whole path that is not there."""
    cut = (
        "'J:\\Super' is not recognized as an internal or external command,\n"
        "operable program or batch file.\n\n"
        "J:\\Super Easy AI Installer Tool\\stable-diffusion-webui>\n"
    )
    assert diagnose_log(cut)[0].id == "path_spaces_nonascii"
    missing = (
        "'C:\\tools\\sd\\webui.bat' is not recognized as an internal or external command,\n"
        "operable program or batch file.\n"
    )
    assert "path_spaces_nonascii" not in {f.id for f in diagnose_log(missing)}


def test_pips_requirement_on_the_next_line():
    """pip's "Could not find a version" with the requirement wrapped onto the next line, as a
    narrow console or a forum's paste leaves it, is read as on one line."""
    paste = (
        "ERROR: Could not find a version that satisfies the requirement \n"
        "mxnet-cu102mkl==1.6.0 (from versions: none)\n"
        "ERROR: No matching distribution found for mxnet-cu102mkl==1.6.0\n"
    )
    assert diagnose_log(paste)[0].id == "no_build_for_python"


def test_torchs_version_as_pythons_prompt_shows_it():
    """`torch.__version__` and `torch.version.cuda` typed at Python's prompt, their values on the
    next line (the console's repr, CPython Lib/code.py): the build's CUDA and a CPU build are
    facts the driver and CPU-build rules judge; the `>>> ` prompt is no comparison (">=")."""
    smi = (
        "| NVIDIA-SMI 470.182.03   Driver Version: 470.182.03   CUDA Version: 11.4     |\n"
        "+-----------------------------------------------------------------------------+\n"
    )
    cu121 = "torch.cuda.is_available() returns False\n>>> torch.__version__\n'2.1.0+cu121'\n" + smi
    facts = log_facts(cu121)
    assert lookup(facts, "imports.torch.version") == "2.1.0"
    assert lookup(facts, "cuda.nvrtc.version") == "12.1"
    assert diagnose_log(cu121)[0].id == "mx_driver"
    # CUDA 11.8's runtime runs on a CUDA 11.4 driver (minor version compatibility)
    cu118 = cu121.replace("2.1.0+cu121", "2.1.0+cu118")
    assert "mx_driver" not in {f.id for f in diagnose_log(cu118)}
    shown = ">>> print(torch.version.cuda)\n12.1\n>>> torch.cuda.is_available()\nFalse\n" + smi
    assert lookup(log_facts(shown), "cuda.nvrtc.version") == "12.1"
    cpu = "torch.cuda.is_available() returns False\n>>> import torch; torch.__version__\n'1.13.1+cpu'\n"
    assert diagnose_log(cpu)[0].id == "mx_cpu_build"


def test_an_intel_gpu_named_as_a_copy_mangles_it():
    """ "Intel R lris R Xe Graphics" (® copied as R, Iris's I read as l) is the machine's only GPU:
    a CPU torch asked for CUDA there is no NVIDIA GPU, which a CUDA build would not mend."""
    paste = (
        "My PC is Intel R lris Xe Graphics ,help me\n"
        '  File "\\wav2liphp\\lib\\site-packages\\torch\\cuda\\__init__.py", line 239, in _lazy_init\n'
        '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
        "AssertionError: Torch not compiled with CUDA enabled\n"
    )
    assert diagnose_log(paste)[0].id == "no_nvidia_gpu"
    assert diagnose_log(paste.replace("Intel R lris Xe Graphics", "RTX 3060"))[0].id == "mx_cpu_build"


def test_an_import_that_failed_in_another_environment_than_the_one_activated():
    """`conda activate NAME`, then an import failing in frames of the install's base environment
    (a notebook's kernel of another Python): env_mismatch. Frames of the environment activated,
    or no environment named, say nothing of it."""
    paste = (
        'conda create -c conda-forge -n pymc_env "pymc>=5"\nconda activate pymc_env\n'
        "and opened up a jupyter notebook.\n"
        "ModuleNotFoundError                       Traceback (most recent call last)\n"
        "~/anaconda3/lib/python3.8/site-packages/pymc/__init__.py in <module>\n"
        "ModuleNotFoundError: No module named 'pymc.model'\n"
    )
    assert log_facts(paste)["derived"]["env_mismatch"].endswith("ran in the base environment")
    assert diagnose_log(paste)[0].id == "env_mismatch"
    same = paste.replace("anaconda3/lib/python3.8", "anaconda3/envs/pymc_env/lib/python3.8")
    assert "env_mismatch" not in log_facts(same)["derived"]
    assert "env_mismatch" not in log_facts(paste.replace("conda activate pymc_env\n", ""))["derived"]


def test_condas_glibc_hint_is_judged_by_the_version_it_prints():
    """conda's UnsatisfiableError "incompatible with your system" listing __glibc constraints and
    "Your installed version is": glibc_too_old only where the installed glibc is below one."""
    hint = (
        "UnsatisfiableError: The following specifications were found to be incompatible with your system:\n\n"
        "  - feature:/linux-64::__glibc==2.12=0\n"
        "  - coverm=0.6.1 -> libgcc-ng[version='>=9.3.0'] -> __glibc[version='>=2.17']\n\n"
        "Your installed version is: 2.12\n"
    )
    assert diagnose_log(hint)[0].id == "glibc_too_old"
    met = hint.replace("2.12", "2.17")
    assert "glibc_too_old" not in {f.id for f in diagnose_log(met)}
