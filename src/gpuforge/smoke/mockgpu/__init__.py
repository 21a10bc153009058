"""The mock GPU tier: libgpuarray, the NVRTC shim and Theano's kernel compile path against
gpuforge's mock CUDA driver (no GPU: nothing runs, results are meaningless) with NVIDIA's real
NVRTC, and NVIDIA's real ptxas assembling the PTX for the real architectures.

- ``nvidia``: NVIDIA's wheels from PyPI (NVRTC, ptxas), pinned by url and sha256;
- ``build``: the mock driver, mock cuBLAS, the Windows loader harness and the shims, compiled here;
- ``cases``: the cases (a GPU, an NVRTC, a library build) and what each shows.
"""
