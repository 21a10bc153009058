"""Recipe test: compile exp() with Theano's C backend and compare with numpy.

The seeds' GPU check, corrected for the gpuarray backend: GpuElemwise
subclasses Elemwise, so an op counts as CPU work only when it is an Elemwise
whose class name does not start with Gpu. Exits non-zero on a wrong result
or when Theano fell back to the Python implementation (no C compiler).
"""
from __future__ import print_function

import json
import os
import subprocess
import sys

import numpy
import theano
from theano import tensor


def option(name):
    """The value after ``name`` on the command line, or None."""
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv[:-1] else None


def package_version(prefix, name):
    """The version of conda package ``name`` installed in ``prefix`` (its conda-meta record)."""
    meta = os.path.join(prefix, "conda-meta")
    found = [f for f in (os.listdir(meta) if os.path.isdir(meta) else [])
             if f.startswith(name + "-") and f.endswith(".json") and f[len(name) + 1:][:1].isdigit()]
    if len(found) != 1:
        sys.exit("no single %s package in %s (found: %s)" % (name, meta, ", ".join(found) or "none"))
    with open(os.path.join(meta, found[0])) as fh:
        return json.load(fh)["version"]


def check_compiler(cxx, prefix, package):
    """With --cxx-in-prefix / --cxx-package: Theano's compiler must be the environment's own
    g++ (under PREFIX), of the version of the compiler package installed there, not whatever
    g++ the machine has."""
    if prefix:
        real = os.path.realpath(cxx) if os.path.isabs(cxx) else cxx
        if not real.startswith(os.path.realpath(prefix) + os.sep):
            sys.exit("cxx=%r is not the environment's g++ (under %s): THEANO_FLAGS=cxx=$GXX did "
                     "not take effect, or the compiler package is missing" % (cxx, prefix))
    if prefix and package:
        version = package_version(prefix, package)
        found = subprocess.check_output([cxx, "-dumpversion"]).decode().strip()
        if found != version and not version.startswith(found + "."):
            sys.exit("cxx=%r is g++ %s, the environment's %s is %s" % (cxx, found, package, version))
        print("cxx: %s (g++ %s, %s %s)" % (cxx, found, package, version))


check_compiler(theano.config.cxx, option("--cxx-in-prefix"), option("--cxx-package"))

rng = numpy.random.RandomState(22)
x = theano.shared(numpy.asarray(rng.rand(10 * 30 * 768), theano.config.floatX))
f = theano.function([], tensor.exp(x))
nodes = f.maker.fgraph.toposort()
print(nodes)

result = numpy.asarray(f())
expected = numpy.exp(x.get_value())
ok = numpy.allclose(result, expected, rtol=1e-5, atol=1e-6)
on_cpu = any(isinstance(n.op, tensor.Elemwise) and not type(n.op).__name__.startswith("Gpu")
             for n in nodes)
print("device=%s cxx=%r used=%s matches_numpy=%s"
      % (theano.config.device, theano.config.cxx, "cpu" if on_cpu else "gpu", ok))
if not theano.config.cxx:
    sys.exit("no C++ compiler: Theano fell back to Python (cxx is empty)")
sys.exit(0 if ok else "exp() differs from numpy.exp")
