"""Build theano-gpu-config's NVRTC shim and cuBLAS forwarder for one conda environment.

What the published, unpatched libgpuarray 0.7.6 needs to find a CUDA >= 11 (MODERN_GPU.md
1.3, 5.1), decided from the files the environment has (its CUDA packages are installed
before pip runs theano-gpu-config's setup.py):

- Windows (Library\\bin): when a CUDA >= 11 NVRTC is there (nvrtc64_112_0.dll,
  nvrtc64_120_0.dll, ...), nvrtc64_91.dll (the shim: 0.7.6 tries 9.1 after the driver's own
  version) and cublas64_91.dll (the forwarder: 0.7.6 then loads cuBLAS by that NVRTC's 9.1).
  Not in a CUDA 9.0 environment: there 0.7.6's own fallback reaches nvrtc64_90.dll, and a
  shim found first would hide it.
- Linux (lib): libnvrtc.so (the shim) when the environment has a CUDA >= 11 NVRTC only by
  its SONAME (conda-forge cuda-nvrtc without -dev); libcublas.so (the forwarder) likewise.
  Where the package ships the unversioned name (cudatoolkit 11.8), nothing is built: the
  file belongs to that package. A file built here before is rebuilt (it carries the marker
  symbol gpuforge_nvrtc_shim_clamp or gpuforge_cublas_slots).

gpuforge's own conda packages need none of this: recipes/libgpuarray's patch series
teaches libgpuarray the same names and the arch clamp (`gpuforge ci env-file --channel`).

The compiler is the environment's own: m2w64-toolchain's gcc.exe on Windows, the gcc of
gxx_linux-64/gcc_linux-64 on Linux; $CC wins. Python 3.6+ and the standard library only.
Usage: python build_shims.py PREFIX [--platform linux-64|win-64] [--cc CC] [--out DIR]
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NVRTC_SHIM = os.path.join(HERE, "nvrtc_shim.c")
CUBLAS_FORWARDER = os.path.join(HERE, "cublas_forwarder.c")
MARKERS = (b"gpuforge_nvrtc_shim_clamp", b"gpuforge_cublas_slots")
WIN_NVRTC = ("nvrtc64_130_0.dll", "nvrtc64_120_0.dll", "nvrtc64_112_0.dll", "nvrtc64_111_0.dll",
             "nvrtc64_110_0.dll")
WIN_CUBLAS = ("cublas64_13.dll", "cublas64_12.dll", "cublas64_11.dll")


def lib_dir(prefix, platform):
    """Where the environment's DLLs / shared libraries are (and where ours go)."""
    return os.path.join(prefix, "Library", "bin") if platform == "win-64" else os.path.join(prefix, "lib")


def find_cc(prefix, platform):
    """$CC, else the environment's gcc, else gcc on PATH; None when there is none."""
    if os.environ.get("CC"):
        return os.environ["CC"]
    if platform == "win-64":
        own = [os.path.join(prefix, "Library", "mingw-w64", "bin", "gcc.exe")]
    else:
        own = sorted(glob.glob(os.path.join(prefix, "bin", "x86_64-conda*-linux-gnu-gcc")))
    for cc in own:
        if os.path.isfile(cc):
            return cc
    return shutil.which("gcc")


def _ours(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return False
    return any(m in data for m in MARKERS)


def _present(folder, patterns):
    return [p for pat in patterns for p in sorted(glob.glob(os.path.join(folder, pat)))]


def plan(prefix, platform):
    """[(output file name, source)] this environment needs, and why, one line each."""
    folder = lib_dir(prefix, platform)
    wanted, why = [], []
    if platform == "win-64":
        nvrtc = [n for n in WIN_NVRTC if os.path.isfile(os.path.join(folder, n))]
        if not nvrtc:
            return [], ["no CUDA >= 11 NVRTC in {} ({}...): no shim (0.7.6 finds CUDA <= 9.1 "
                        "by itself)".format(folder, WIN_NVRTC[-1])]
        wanted = [("nvrtc64_91.dll", NVRTC_SHIM), ("cublas64_91.dll", CUBLAS_FORWARDER)]
        why.append("{} is there: nvrtc64_91.dll and cublas64_91.dll let libgpuarray 0.7.6 "
                   "find it".format(nvrtc[0]))
        return wanted, why
    for name, versioned, source in (("libnvrtc.so", ("libnvrtc.so.1[1-9]*",), NVRTC_SHIM),
                                    ("libcublas.so", ("libcublas.so.1[1-9]*",), CUBLAS_FORWARDER)):
        target = os.path.join(folder, name)
        found = _present(folder, versioned)
        if os.path.lexists(target) and not _ours(target):
            why.append("{} is the CUDA package's own: kept".format(name))
        elif not found:
            why.append("no {} in {}: no {}".format(versioned[0], folder, name))
        else:
            wanted.append((name, source))
            why.append("{} has no unversioned name: {} built".format(os.path.basename(found[0]), name))
    return wanted, why


def compile_one(cc, source, output, platform):
    cmd = [cc, "-shared", "-O2", "-o", output, source]
    if platform != "win-64":
        cmd[1:1] = ["-fPIC"]
        cmd += ["-ldl"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    if proc.returncode != 0:
        raise RuntimeError("{} failed: {}".format(" ".join(cmd), proc.stdout.strip()))


def build(prefix, platform, out=None, cc=None, say=print):
    """Build what plan() asks for into ``out`` (default: the environment's lib folder);
    return the paths written."""
    wanted, why = plan(prefix, platform)
    for line in why:
        say("theano-gpu-config: " + line)
    if not wanted:
        return []
    cc = cc or find_cc(prefix, platform)
    if cc is None:
        raise RuntimeError("no gcc to build {} (install m2w64-toolchain / gcc_linux-64, or set "
                           "CC)".format(", ".join(n for n, _ in wanted)))
    out = out or lib_dir(prefix, platform)
    if not os.path.isdir(out):
        os.makedirs(out)
    written = []
    for name, source in wanted:
        dest = os.path.join(out, name)
        tmp = dest + ".tmp{}".format(os.getpid())
        compile_one(cc, source, tmp, platform)
        os.replace(tmp, dest)
        written.append(dest)
        say("theano-gpu-config: built {} with {}".format(dest, cc))
    return written


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("prefix")
    ap.add_argument("--platform", default="win-64" if sys.platform == "win32" else "linux-64",
                    choices=("linux-64", "win-64"))
    ap.add_argument("--cc")
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    try:
        build(args.prefix, args.platform, args.out, args.cc)
    except (RuntimeError, OSError) as exc:
        print("theano-gpu-config: " + str(exc), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
