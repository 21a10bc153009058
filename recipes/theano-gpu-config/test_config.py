"""theano-gpu-config's test: in the activated environment, Theano uses its values.

Run by conda-build's test phase (which activates the test environment) and by
gpuforge's tests on a prefix that build.sh installed into. Prints what it read.
"""
from __future__ import print_function

import os
import sys

import theano

prefix = os.environ["CONDA_PREFIX"]
if sys.platform == "win32":
    prefix = prefix.replace("\\", "/")
    lib, inc = prefix + "/Library/lib", prefix + "/Library/include"
    cxx_dir = prefix + "/Library/mingw-w64/bin"
else:
    lib, inc = prefix + "/lib", prefix + "/include"
    cxx_dir = prefix + "/bin"
config = theano.config
read = {"cxx": config.cxx, "device": config.device, "floatX": config.floatX,
        "dnn.enabled": config.dnn.enabled, "dnn.include_path": config.dnn.include_path,
        "dnn.library_path": config.dnn.library_path,
        "MKL_THREADING_LAYER": os.environ.get("MKL_THREADING_LAYER")}
# cuDNN 5.1 ... 7 (cudnn.h, no cudnn_version.h): its paths; none or cuDNN 8+: disabled
cudnn7 = os.path.isfile(inc + "/cudnn.h") and not os.path.isfile(inc + "/cudnn_version.h")
for key in sorted(read):
    print("%s = %s" % (key, read[key]))
assert os.path.dirname(config.cxx) == cxx_dir, (config.cxx, cxx_dir)
assert os.path.basename(config.cxx).rsplit(".", 1)[0].endswith("g++"), config.cxx
assert (config.device, config.floatX) == ("cuda", "float32"), (config.device, config.floatX)
if cudnn7:
    assert (config.dnn.include_path, config.dnn.library_path) == (inc, lib)
else:
    assert config.dnn.enabled == "False", config.dnn.enabled
assert read["MKL_THREADING_LAYER"] == "GNU"
print("theano-gpu-config: Theano uses this environment's settings")
