"""Recipe test: compile exp() with Theano's C backend and compare with numpy.

The seeds' GPU check, corrected for the gpuarray backend: GpuElemwise
subclasses Elemwise, so an op counts as CPU work only when it is an Elemwise
whose class name does not start with Gpu. Exits non-zero on a wrong result
or when Theano fell back to the Python implementation (no C compiler).
"""
from __future__ import print_function

import sys

import numpy
import theano
from theano import tensor

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
