"""Code written for a newer Theano (doctor/theano_api.py) on the release tags' own name lists
(data/theano_api.json, written by tools/theano_api.py)."""

from __future__ import annotations

import json
import os

import pytest

from gpuforge import locations
from gpuforge.doctor.log_facts import diagnose_log, log_facts
from gpuforge.doctor.theano_api import api


@pytest.mark.parametrize(
    ("paste", "asked"),
    [
        # Python 3.7's ImportError names the module; 2.7's does not (the import line does)
        (
            "ImportError: cannot import name 'pool' from 'theano.tensor.signal' (/x/signal/__init__.py)\n",
            "theano.tensor.signal.pool is in Theano 0.8.0",
        ),
        ("from theano.tensor.signal import pool\nImportError: cannot import name pool\n", "signal.pool"),
        # an attribute chain in the traceback's line, Keras 0.x's activations.relu
        (
            "    return T.nnet.relu(x)\n"
            "AttributeError: module 'theano.tensor.nnet' has no attribute 'relu'\n",
            "theano.tensor.nnet.relu",
        ),
        (
            "import theano.gpuarray\nImportError: No module named gpuarray\n",
            "theano.gpuarray is in Theano 0.9.0",
        ),
        # Python 2's attribute error cut before its closing quote
        (
            '  File "/usr/lib/python2.7/dist-packages/keras/activations.py", line 20, in relu\n'
            "    return T.nnet.relu(x)\nAttributeError: 'module' object has no attribute 'relu\n",
            "theano.tensor.nnet.relu",
        ),
        # a name the old back-end gained in 0.9 and lost with it in 1.0: the module imported
        # (1.0's theano.sandbox.cuda raises on import), so the Theano is older than 0.9
        (
            "from theano.sandbox.cuda.dnn import GpuDnnBatchNorm, dnn_batch_normalization_train\n"
            "ImportError: cannot import name 'GpuDnnBatchNorm'\n",
            "theano.sandbox.cuda.dnn.GpuDnnBatchNorm is in Theano 0.9.0",
        ),
        (
            "from theano.sandbox.cuda.basic_ops import gpu_alloc_empty\n"
            "ImportError: cannot import name gpu_alloc_empty\n",
            "gpu_alloc_empty is in Theano 0.8.0",
        ),
        # a bare name raised in a Theano user's own frame (Keras' backend, the line not shown):
        # every Theano module having `pool` gained it in 0.8.0 or later
        (
            '  File "build\\bdist.win-amd64\\egg\\keras\\backend\\theano_backend.py", line 4, in <module>\n'
            "ImportError: cannot import name pool\n",
            "theano.tensor.signal.pool is in Theano 0.8.0",
        ),
        # a keyword the release's signature lacks (the tags' own signatures): conv2d gained
        # filter_dilation in 0.9.0, called from the paste's own line
        (
            "    T.nnet.conv2d(x, W, border_mode=pad, filter_dilation=(1, 2))\n"
            "TypeError: conv2d() got an unexpected keyword argument 'filter_dilation'\n",
            "conv2d(filter_dilation=...) is in Theano 0.9.0",
        ),
        # Python 2 does not say whose __init__ refused it: Theano's own frame above the error
        # passed it on (0.7's conv.conv2d hands **kargs to ConvOp; 0.8.0's nnet.conv2d takes it)
        (
            '  File "/home/a/.local/lib/python2.7/site-packages/theano/tensor/nnet/conv.py", '
            "line 149, in conv2d\n    imshp=imshp, kshp=kshp, nkern=nkern, bsize=bsize, **kargs)\n"
            "TypeError: __init__() got an unexpected keyword argument 'input_shape'\n",
            "conv2d(input_shape=...) is in Theano 0.8.0",
        ),
        # a config section a later release added (0.7's AddConfigVar('scan.allow_gc', ...)),
        # asked of the config object itself
        (
            "    theano.config.scan.allow_gc = False\n"
            "AttributeError: 'TheanoConfigParser' object has no attribute 'scan'\n",
            "theano.config.scan is in Theano 0.7",
        ),
        # Theano-PyMC 1.0.12's double-underscore config names (PyMC3 3.11's compiler flags)
        (
            "    current = theano.config.gcc__cxxflags\n"
            "AttributeError: 'TheanoConfigParser' object has no attribute 'gcc__cxxflags'\n",
            "theano.config.gcc__cxxflags is named so from Theano-PyMC 1.0.12 on",
        ),
    ],
)
def test_a_name_a_later_release_added(paste, asked):
    facts = log_facts(paste)
    assert asked in facts["derived"]["theano_name_added"]
    assert diagnose_log(paste)[0].id == "theano_too_old"


@pytest.mark.parametrize(
    ("paste", "asked"),
    [
        ("Lasagne's rectify encapsulate theano.tensor.nnet.relu which is not exist.\n", "nnet.relu"),
        ("T.nnet.relu is missing in my install of theano\n", "theano.tensor.nnet.relu"),
        ("I can't find relu in theano.tensor.nnet, what is wrong?\n", "theano.tensor.nnet.relu"),
        # Markdown's code marks round the names, "defined in" the module
        (
            "Then I use Pycharm to check the source code. I did not find ```dump``` defined in"
            " ```theano.misc.pkl_utils```\n",
            "theano.misc.pkl_utils.dump is in Theano 0.8.0",
        ),
        ("Calling theano.tensor.nnet.conv3d() doesn't exist here\n", "nnet.conv3d is in Theano 0.9.0"),
        # other words before the name, its module from the line or the paste's own import
        ("theano's tensor.nnet will not support the relu() function yet\n", "theano.tensor.nnet.relu"),
        (
            "I get an import error on the gpu_alloc_empty here:\n"
            "from theano.sandbox.cuda.basic_ops import (host_from_gpu,\n    gpu_alloc_empty)\n",
            "basic_ops.gpu_alloc_empty is in Theano 0.8.0",
        ),
        # a keyword the paste's own call passes to Theano's function
        (
            "I found a non-existent arg(filter_dilation) in theano.\n"
            "T.nnet.conv2d(x, W, filter_dilation=(2, 1))\n",
            "conv2d(filter_dilation=...) is in Theano 0.9.0",
        ),
    ],
)
def test_a_name_said_missing_in_prose(paste, asked):
    """The user's own words for `has no attribute`: the same lookup in the release lists."""
    assert asked in log_facts(paste)["derived"]["theano_name_added"]
    assert diagnose_log(paste)[0].id == "theano_too_old"


@pytest.mark.parametrize(
    "paste",
    [
        # a name every release has (the old back-end's stub stays in 1.0): not a version's name
        "I have no cuda under theano.sandbox\n",
        # the same words about another package's names
        "keras.layers.Conv2D is missing, and my.own.module does not exist\n",
        # a Theano stated as new as the release adding it
        "Theano 1.0.4: theano.tensor.nnet.relu is not found\n",
        # a sub-module asked as an attribute: its package may not import it (Theano #6211)
        "T.signal.pool is missing in my install of theano\n",
        # what a module does not support is no name it lacks
        "theano.gpuarray does not support float64 on my GPU\n",
        # a lacking name asked of no Theano module the paste shows
        "Theano does not support the pool_2d function with ignore_border\n",
        # the error line itself is MISSING_RE's, which reads a sub-module as an attribute
        "import theano.tensor as tt\n > AttributeError: module 'theano.tensor' has no attribute 'slinalg'\n",
        # a keyword said lacking, passed to a function that is not Theano's
        "import theano\nthis build has no filter_dilation\nbuild(filter_dilation=2)\n",
        # a Theano stated as new as the release adding it
        "Theano 0.9.0 has no filter_dilation?\nT.nnet.conv2d(x, W, filter_dilation=(2, 1))\n",
    ],
)
def test_prose_that_names_no_newer_theano(paste):
    assert "theano_name_added" not in log_facts(paste)["derived"]


@pytest.mark.parametrize(
    "paste",
    [
        # a Theano stated as new as the release adding the name: something else is wrong
        "Theano==1.0.5\nfrom theano.tensor.signal import pool\nImportError: cannot import name pool\n",
        # a module Theano 0.9 removed (theano_downsample_removed's): old and new lack it alike
        "from theano.tensor.signal import downsample\nImportError: cannot import name downsample\n",
        # a bare name raised outside Theano's users: whose it is the paste does not show
        '  File "/x/app/net.py", line 4, in <module>\nImportError: cannot import name pool\n',
        # a name every release has, and one no release has
        "from theano import function\nImportError: cannot import name function\n",
        "from theano.tensor import no_such_name\nImportError: cannot import name no_such_name\n",
        # another package's missing name
        "from keras.layers import Conv2D\nImportError: cannot import name 'Conv2D'\n",
        # Python 2's __init__ of a frame that is not Theano's
        '  File "/x/app/layers.py", line 9, in conv2d\n'
        "TypeError: __init__() got an unexpected keyword argument 'input_shape'\n",
        # a keyword of a function that is not Theano's (no Theano call or frame asks it)
        "import theano\n    build(filter_dilation=2)\nTypeError: build() got an unexpected keyword argument "
        "'filter_dilation'\n",
        # a sub-module asked as an attribute: theano.tensor does not import slinalg (it needs
        # scipy), in every release having it (Theano #6211, lamblin and nouiz)
        "import theano.tensor as tt\ntt.slinalg\n"
        "AttributeError: module 'theano.tensor' has no attribute 'slinalg'\n",
        # a config section Theano 1.0 dropped with the old back-end (nvcc.*): old and new lack it
        # alike, and a flag every release has
        "AttributeError: 'TheanoConfigParser' object has no attribute 'nvcc'\n",
        "AttributeError: 'TheanoConfigParser' object has no attribute 'floatX'\n",
    ],
)
def test_nothing_else_is_a_newer_theano(paste):
    assert "theano_name_added" not in log_facts(paste)["derived"]


def test_the_table_is_theanos_release_tags():
    releases, spans = api()
    assert releases[0] == "0.6" and releases[-1] == "1.0.5"
    newest = len(releases) - 1
    assert spans["theano.tensor.nnet:relu"] == (releases.index("0.8.0"), newest)
    assert spans["theano.gpuarray"] == (releases.index("0.9.0"), newest)
    # 0.9 removed downsample (theano_downsample_removed); 1.0 the old back-end's modules
    assert spans["theano.tensor.signal.downsample"] == (0, releases.index("0.8.2"))
    # a sub-module is a name of its package only where the package imports it: nnet imports
    # abstract_conv (`from .abstract_conv import ...`, 0.8.0 on); tensor never imports slinalg
    assert spans["theano.tensor.nnet:abstract_conv"] == (releases.index("0.8.0"), newest)
    assert "theano.tensor.slinalg" in spans and "theano.tensor:slinalg" not in spans
    assert spans["theano.sandbox.cuda.dnn"][1] == releases.index("0.9.0")
    assert "theano:function" not in spans  # every release has it: it says nothing of a version
    # the keywords of a release Python 3 cannot parse (0.6 and 0.7: print statements, `except
    # E, e`) are read from its text: 0.7's scan has strict=False, 0.6's has not
    assert spans["theano.scan_module.scan:scan(strict)"] == (releases.index("0.7"), newest)


def test_the_table_is_what_the_tool_writes_from_a_theano_clone(tmp_path):
    """Regenerate from a clone of Theano (GPUFORGE_THEANO_GIT): the same file."""
    import theano_api as tool  # tools/theano_api.py

    clone = os.environ.get("GPUFORGE_THEANO_GIT")
    if not clone:
        pytest.skip("set GPUFORGE_THEANO_GIT to a clone of github.com/Theano/Theano (with its rel-* tags)")
    out = tmp_path / "theano_api.json"
    assert tool.main([clone], out) == 0
    assert json.loads(out.read_text()) == json.loads(locations.THEANO_API.read_text())


@pytest.mark.parametrize(
    ("paste", "judged"),
    [
        # Lasagne master hides Conv3DLayer from a Theano without T.nnet.conv3d (conv.py:789):
        # beside a stated Lasagne master, the Theano is too old for it
        (
            "AttributeError: 'module' object has no attribute 'Conv3DLayer'\n"
            "I have the version 0.2.dev1 of lasagne and Theano 0.8.0.\n",
            True,
        ),
        (
            "from lasagne.layers import MaxPool3DLayer\n"
            "ImportError: cannot import name MaxPool3DLayer\nTheano 0.8.2\n",
            True,
        ),
        # nothing stated: Lasagne 0.1 lacks it too (lasagne_too_old's to name)
        ("import theano\nAttributeError: 'module' object has no attribute 'Conv3DLayer'\n", False),
        # a Theano new enough: something else is wrong
        (
            "Lasagne 0.2.dev1, Theano 1.0.5\n"
            "AttributeError: 'module' object has no attribute 'Conv3DLayer'\n",
            False,
        ),
    ],
)
def test_a_lasagne_layer_hidden_from_an_older_theano(paste, judged):
    added = log_facts(paste)["derived"].get("theano_name_added")
    assert bool(added) == judged, added
    if judged:
        assert diagnose_log(paste)[0].id == "theano_too_old"


@pytest.mark.parametrize(
    ("paste", "entry"),
    [
        (
            "signal.downsample.max_pool_2d do not exist, change to signal.pool.pool_2d\n",
            "theano_downsample_removed",
        ),
        (
            "The new version of theano has removed/renamed the max_pool_2d, resulting in an error\n",
            "theano_downsample_removed",
        ),
        # "has been changed to", in Chinese
        (
            "from theano.tensor.signal import downsample 已经更改为from theano.tensor.signal import pool\n",
            "theano_downsample_removed",
        ),
        (
            "Because theano.sandbox.cuda.dnn is discarded in theano 1, layer.py fails\n",
            "theano_old_backend_removed",
        ),
    ],
)
def test_a_name_a_later_release_dropped_said_gone_in_prose(paste, entry):
    """A name the release lists say a release dropped, said to be gone: the code was written
    for an older Theano than the one installed."""
    assert log_facts(paste)["derived"].get("theano_name_dropped")
    assert diagnose_log(paste)[0].id == entry


@pytest.mark.parametrize(
    "paste",
    [
        # a name every release still has
        "theano: pool_2d was renamed in my fork\n",
        # a bare word of the old back-end's (use, cuda_enabled) in a paste that never names Theano
        "the cuda_enabled flag was removed from my config\n",
        # another package's name
        "torch.nn.functional.upsample has been renamed to interpolate\n",
        # a dropped name, but nothing said gone
        "from theano.tensor.signal import downsample\nimport numpy\n",
    ],
)
def test_prose_that_names_no_dropped_theano_name(paste):
    assert "theano_name_dropped" not in log_facts(paste)["derived"]


@pytest.mark.parametrize(
    ("paste", "judged"),
    [
        # Lasagne 0.1's Conv2DLayer hands **kwargs to Layer.__init__, which refuses flip_filters
        (
            '  File "/x/lib/python3.4/site-packages/lasagne/layers/conv.py", line 391, in __init__\n'
            "    super(Conv2DLayer, self).__init__(incoming, **kwargs)\n"
            "TypeError: __init__() got an unexpected keyword argument 'flip_filters'\n",
            True,
        ),
        # the paste's own call of the layer (Python 3.10's qualified name, no frame shown)
        (
            "l = DenseLayer(l_in, num_units=10, num_leading_axes=2)\n"
            "TypeError: Layer.__init__() got an unexpected keyword argument 'num_leading_axes'\n",
            True,
        ),
        # Lasagne master stated: something else refused it
        (
            "Lasagne 0.2.dev1\n"
            '  File "/x/site-packages/lasagne/layers/conv.py", line 391, in __init__\n'
            "TypeError: __init__() got an unexpected keyword argument 'flip_filters'\n",
            False,
        ),
        # the same keyword refused by code that is not Lasagne's
        (
            '  File "/x/app/layers.py", line 9, in __init__\n'
            "TypeError: __init__() got an unexpected keyword argument 'flip_filters'\n",
            False,
        ),
    ],
)
def test_a_keyword_only_lasagne_master_has(paste, judged):
    """Lasagne v0.1's signatures against master 5d3c63c's (theano_api.LASAGNE_MASTER_KEYWORDS)."""
    assert bool(log_facts(paste)["derived"].get("lasagne_keyword_added")) == judged
    assert any(f.id == "lasagne_too_old" for f in diagnose_log(paste)) == judged
