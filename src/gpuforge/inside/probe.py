"""Facts about an interpreter and its environment (Python 2.7 and 3.6+, stdlib only).

    python probe.py [--self CMD] [--timeout SECONDS]

Run by the interpreter being diagnosed, from the user's working directory.
Prints ONE JSON object on a line starting with PROBE_MARK. It never crashes:
whatever fails becomes data. Imports of numpy, scipy, pygpu, torch, mxnet and
Theano run in child processes (in parallel), so a crashing or hanging import
is a fact too; Theano is not imported while another live process holds its
compile lock (the import would wait for it).

``--self CMD`` is how to start this interpreter again (a wrapper script, for
example a 32-bit Python run through its loader): the import children use it
instead of sys.executable.
"""
from __future__ import print_function

import json
import os
import platform
import re
import shlex
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback

if __package__:  # imported by gpuforge on the host
    from gpuforge.inside import proctree, theanorc_lines
else:  # run as a script by the interpreter being diagnosed: its siblings, whatever sys.path holds
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import proctree
    import theanorc_lines

PROBE_MARK = "GPUFORGE_PROBE "
MODULES = ("numpy", "scipy", "pygpu", "torch", "mxnet", "theano")
SHADOWABLE = ("torch", "theano", "numpy", "scipy", "pygpu", "mxnet")
THEANO_KEYS = ("device", "floatX", "cxx", "blas.ldflags", "base_compiledir", "compiledir",
               "gcc.cxxflags", "dnn.enabled", "dnn.base_path", "dnn.include_path",
               "dnn.library_path", "cuda.root", "optimizer_excluding", "init_gpu_device",
               "gpuarray.preallocate", "mode", "linker", "warn_float64")
WIN = sys.platform == "win32"
BZ2_EOS = 0x177245385090  # bzip2 end-of-stream magic (48 bits, not byte aligned)


def error_data(exc):
    tb = traceback.format_exc().strip().splitlines()
    return {"type": type(exc).__name__, "message": str(exc)[-2000:], "traceback": tb[-25:]}


def safe(fn, *args):
    """Call fn; an exception becomes {"probe_error": ...} instead of a crash."""
    try:
        return fn(*args)
    except Exception as exc:
        return {"probe_error": error_data(exc)}


DEADLINE = [None]  # the whole probe's end (time.time()), set by main: no child runs past it
HUNG = []  # the programs that did not finish in their time (reported as the facts' "hung")


def run(cmd, timeout=20):
    """(exit code, stdout+stderr text) of a command; (None, reason) if it cannot run or hangs.

    The child leads its own process group: past its time (``timeout``, and never past the
    probe's deadline) the group is killed, what it waited on is recorded in HUNG, and the
    same program is not started again by this probe."""
    program = os.path.realpath(cmd[0]) if os.path.isabs(cmd[0]) else cmd[0]
    if any(h["program"] == program for h in HUNG):
        return None, "not run: %s hung before in this probe" % cmd[0]
    if DEADLINE[0] is not None:
        timeout = max(0.5, min(timeout, DEADLINE[0] - time.time() - 2))
    out = tempfile.TemporaryFile()
    try:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, **proctree.group_kwargs())
    except (OSError, ValueError) as exc:
        out.close()
        return None, str(exc)
    deadline = time.time() + timeout
    while proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    hung = proc.poll() is None
    if hung:
        HUNG.append({"program": program, "command": " ".join(cmd)[:200], "seconds": round(timeout, 1),
                     "waiting_on": proctree.waiting_on(proc.pid)})
    proctree.kill_group(proc)  # whatever it left running too
    proc.wait()
    out.seek(0)
    text = out.read().decode("utf-8", "replace")
    out.close()
    if hung:
        return None, "did not finish in %.0f s (stopped): %s" % (timeout, text[-300:])
    return proc.returncode, text


# --- PATH -------------------------------------------------------------------

def which_all(name):
    """Every match of ``name`` on PATH, in order (PATHEXT on Windows)."""
    exts = [""]
    if WIN:
        exts = [e.lower() for e in os.environ.get("PATHEXT", ".EXE;.BAT;.CMD").split(";") if e]
        if os.path.splitext(name)[1]:
            exts = [""]
    found = []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if not folder:
            continue
        for ext in exts:
            path = os.path.join(folder, name + ext)
            if os.path.isfile(path) and os.access(path, os.X_OK) and path not in found:
                found.append(path)
    return found


def env_dir(path):
    """The environment a python/pip/conda file belongs to: its folder, less bin/Scripts."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.basename(folder).lower() in ("bin", "scripts", "condabin"):
        folder = os.path.dirname(folder)
    return folder


def script_python(path):
    """The interpreter a pip/conda script runs (its shebang), or None."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(512).decode("utf-8", "replace").splitlines()
    except (IOError, OSError):
        return None
    if not head or not head[0].startswith("#!"):
        return None
    first = head[0][2:].strip()
    if first in ("/bin/sh", "/bin/bash") and len(head) > 1 and head[1].startswith("'''exec'"):
        # pip's long-path launcher ("/abs/python"), or a relocatable one that starts the python
        # beside the script ("$(dirname "$0")/python3.7")
        beside = re.search(r'"\$\(dirname "\$0"\)/([^"]+)"', head[1])
        if beside:
            return os.path.join(os.path.dirname(os.path.abspath(path)), beside.group(1))
        m = re.search(r'"([^"]+)"', head[1])
        return m.group(1) if m else None
    words = first.split()
    if len(words) > 1 and os.path.basename(words[0]) == "env" and "python" in words[1]:
        found = which_all(words[1])  # `#!/usr/bin/env python3`: the first on PATH
        return found[0] if found else None
    if words and "python" in os.path.basename(words[0]):
        return words[0]
    return None


def tool_facts(name):
    paths = which_all(name)
    info = {"first": paths[0] if paths else None, "all": paths[:6]}
    if paths:
        runs = script_python(paths[0]) if not name.startswith("python") else paths[0]
        info["runs_python"] = runs
        info["env"] = env_dir(runs or paths[0])
    return info


def path_facts():
    tools = {}
    for name in ("python", "python3", "pip", "pip3", "conda"):
        tools[name] = tool_facts(name)
    return {"tools": tools, "conda_prefix": os.environ.get("CONDA_PREFIX"),
            "conda_exe": os.environ.get("CONDA_EXE"),
            "virtual_env": os.environ.get("VIRTUAL_ENV")}


# --- Theano's configuration, and where each value comes from ------------------

def parse_flags(text):
    """THEANO_FLAGS as Theano splits it (shlex on commas): {key: value}."""
    out = {}
    try:
        splitter = shlex.shlex(text, posix=True)
        splitter.whitespace = ","
        splitter.whitespace_split = True
        pairs = list(splitter)
    except ValueError:
        pairs = text.split(",")
    for pair in pairs:
        pair = pair.strip()
        if "=" in pair:
            key, value = pair.split("=", 1)
            out[key] = value
    return out


def parse_rc(path):
    """A config file as Theano's ConfigParser reads it, with line numbers: (settings, error)."""
    with open(path, "rb") as fh:
        return parse_rc_lines(fh.read().decode("utf-8", "replace").splitlines(), path)


def parse_rc_lines(lines, path, version=None):
    """(settings, error) of a config file's lines, by the rules of this interpreter's
    configparser (theanorc_lines): {key: {value, source, file, line, section, option}}, and
    None or the line configparser refuses."""
    reading = theanorc_lines.read_lines(lines, version or sys.version_info[:2])
    settings = {}
    for line in reading.options():
        key = line.option if line.section == "global" else line.section + "." + line.option
        settings[key] = {"value": line.value, "source": "%s:%d" % (path, line.number), "file": path,
                         "line": line.number, "section": line.section, "option": line.option}
    return settings, reading.error


def rc_files():
    files = [os.path.expanduser(s) for s in os.environ.get("THEANORC", "~/.theanorc").split(os.pathsep)]
    if os.environ.get("THEANORC") is None and WIN:
        files.append(os.path.expanduser("~/.theanorc.txt"))
    return files


def config_facts():
    """Explicit Theano settings: config files in order (later wins), THEANO_FLAGS last."""
    settings, files = {}, []
    for path in rc_files():
        entry = {"path": path, "exists": os.path.isfile(path)}
        if entry["exists"]:
            found, error = parse_rc(path)
            if error:
                error["path"] = path
                entry["error"] = error
            settings.update(found)
        files.append(entry)
    flags_text = os.environ.get("THEANO_FLAGS", "")
    for key, value in parse_flags(flags_text).items():
        settings[key.lower()] = {"value": value, "source": "THEANO_FLAGS", "key": key}
    return {"files": files, "theano_flags": flags_text, "settings": settings,
            "theanorc_env": os.environ.get("THEANORC")}


def setting(config, key):
    entry = config["settings"].get(key.lower())
    return entry["value"] if entry else None


# --- compile directory and its lock --------------------------------------------

def pid_alive(pid):
    # Windows: asked with OpenProcess, never os.kill(pid, 0): 0 is signal.CTRL_C_EVENT there, a
    # Ctrl+C sent to process group `pid` (CPython's os_kill_impl, GenerateConsoleCtrlEvent)
    if WIN:
        import ctypes
        handle = ctypes.windll.kernel32.OpenProcess(0x1000, False, pid)  # QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        code = ctypes.c_ulong()
        ctypes.windll.kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        ctypes.windll.kernel32.CloseHandle(handle)
        return code.value == 259  # STILL_ACTIVE
    try:
        os.kill(pid, 0)
    except OSError as exc:
        return exc.errno == 1  # EPERM: it exists, owned by someone else
    return True


def compiledir_facts(config, bits):
    base = setting(config, "base_compiledir")
    if not base:
        if WIN and os.environ.get("LOCALAPPDATA"):
            base = os.path.join(os.environ["LOCALAPPDATA"], "Theano")
        else:
            base = os.path.join(os.path.expanduser("~"), ".theano")
    base = os.path.expanduser(base)
    explicit = setting(config, "compiledir")
    suffix = "-%s-%d" % (platform.python_version(), bits)
    dirs = []
    if explicit:
        dirs = [os.path.expanduser(explicit)]
    elif os.path.isdir(base):
        dirs = sorted(os.path.join(base, d) for d in os.listdir(base)
                      if d.startswith("compiledir_") and d.endswith(suffix))
    locks = []
    for folder in dirs:
        lock_dir = os.path.join(folder, "lock_dir")
        if not os.path.isdir(lock_dir):
            continue
        lock = {"lock_dir": lock_dir, "owner": None, "pid": None, "host": None, "alive": None}
        try:
            with open(os.path.join(lock_dir, "lock")) as fh:
                owner = fh.readline().strip()
            lock["owner"] = owner
            parts = owner.split("_")
            lock["pid"] = int(parts[0])
            lock["host"] = parts[2] if len(parts) > 2 else None
            lock["age_seconds"] = time.time() - os.path.getmtime(os.path.join(lock_dir, "lock"))
        except (IOError, OSError, ValueError, IndexError):
            pass
        if lock["pid"] is not None and lock["host"] == socket.gethostname():
            lock["alive"] = pid_alive(lock["pid"])
        locks.append(lock)
    return {"base": base, "dirs": dirs, "locks": locks}


def lock_held(compiledir):
    return [lk for lk in compiledir["locks"] if lk["alive"] is not False and lk["pid"] != os.getpid()]


# --- compilers --------------------------------------------------------------

def compiler_facts(config):
    gxx = which_all("g++")
    info = {"gxx_on_path": gxx[0] if gxx else None, "gxx_all": gxx[:4],
            "cxx_setting": setting(config, "cxx"), "env_gxx": None, "off_path_gxx": None}
    candidates = [os.path.join(sys.prefix, "Library", "mingw-w64", "bin", "g++.exe")] if WIN else \
        [os.path.join(sys.prefix, "bin", "x86_64-conda-linux-gnu-g++"),
         os.path.join(sys.prefix, "bin", "x86_64-conda_cos6-linux-gnu-g++")]
    for path in candidates:
        if os.path.isfile(path):
            info["env_gxx"] = path
            break
    known = [info["env_gxx"]] + ([] if WIN else ["/usr/bin/g++", "/usr/local/bin/g++"])
    for path in known:
        if path and os.path.isfile(path):
            info["off_path_gxx"] = path
            break
    cxx = info["cxx_setting"] or (gxx[0] if gxx else None)
    if cxx:
        cxx = cxx.strip('"')
        resolved = cxx if os.path.isabs(cxx) else (which_all(cxx) or [None])[0]
        info["cxx_resolved"] = resolved
        if resolved:
            info["cxx_realpath"] = os.path.realpath(resolved)
            code, out = run([resolved, "-dumpversion"], timeout=10)
            info["cxx_version"] = out.strip() if code == 0 else None
    if gxx:
        info["gxx_on_path_realpath"] = os.path.realpath(gxx[0])
    return info


def include_dirs(cxx):
    """The compiler's own #include <...> search list."""
    if not cxx:
        return []
    code, out = run([cxx, "-E", "-x", "c++", "-v", os.devnull], timeout=15)
    dirs, inside = [], False
    for line in out.splitlines():
        if line.startswith("#include <...> search starts here"):
            inside = True
        elif line.startswith("End of search list"):
            break
        elif inside:
            dirs.append(line.strip().split(" (")[0])
    return dirs


# --- CUDA ---------------------------------------------------------------------

def cuda_driver():
    """The driver's CUDA version (cuDriverGetVersion) and each GPU's compute capability
    (cuDeviceGetAttribute 75/76, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR of cuda.h)."""
    import ctypes
    names = ["nvcuda.dll"] if WIN else ["libcuda.so.1", "libcuda.so"]
    if sys.platform == "darwin":
        names = ["libcuda.dylib"]
    errors = []
    for name in names:
        try:
            lib = ctypes.CDLL(name)
        except OSError as exc:
            errors.append(str(exc))
            continue
        version = ctypes.c_int(0)
        init = lib.cuInit(0)
        rc = lib.cuDriverGetVersion(ctypes.byref(version))
        info = {"loaded": name, "cuInit": init,
                "version": "%d.%d" % (version.value // 1000, version.value % 1000 // 10) if rc == 0
                else None, "devices": []}
        count = ctypes.c_int(0)
        if init == 0 and lib.cuDeviceGetCount(ctypes.byref(count)) == 0:
            for ordinal in range(min(count.value, 16)):
                dev, major, minor = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0)
                buf = ctypes.create_string_buffer(256)
                if lib.cuDeviceGet(ctypes.byref(dev), ordinal) != 0:
                    continue
                lib.cuDeviceGetAttribute(ctypes.byref(major), 75, dev)
                lib.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev)
                lib.cuDeviceGetName(buf, 256, dev)
                info["devices"].append({"name": buf.value.decode("utf-8", "replace"),
                                        "cc": "%d.%d" % (major.value, minor.value)})
        return info
    return {"loaded": None, "errors": errors}


# NVRTC as libgpuarray 0.7.6 loads it (src/loaders/libnvrtc.c, src/gpuarray_buffer_cuda.c:172-188):
# Linux dlopen("libnvrtc.so"); Windows nvrtc64_<driver major><minor>.dll, then these
GPUARRAY_NVRTC_FALLBACK = ((9, 1), (9, 0), (8, 0), (7, 5), (7, 0))
MODERN_NVRTC_DLLS = ("nvrtc64_130_0.dll", "nvrtc64_120_0.dll", "nvrtc64_112_0.dll", "nvrtc64_111_0.dll",
                     "nvrtc64_110_0.dll", "nvrtc64_102_0.dll", "nvrtc64_101_0.dll", "nvrtc64_100_0.dll")


def library_dirs():
    """Where this environment's DLLs / shared libraries are (Windows: then PATH)."""
    if WIN:
        dirs = [os.path.join(sys.prefix, "Library", "bin"), sys.prefix]
        return dirs + [d for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    return [os.path.join(sys.prefix, "lib")] + \
        [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if d]


def find_file(name):
    for folder in library_dirs():
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    return None


def nvrtc_facts(driver_version):
    """The NVRTC libgpuarray 0.7.6 would load here: its version, the archs it accepts
    (nvrtcGetSupportedArchs, NVRTC >= 11.2) and whether it is theano-gpu-config's
    arch-rewriting shim (it exports gpuforge_nvrtc_shim_clamp)."""
    import ctypes
    if WIN:
        names = []
        if driver_version:
            major, minor = [int(x) for x in driver_version.split(".")[:2]]
            names.append("nvrtc64_%d%d.dll" % (major, minor))
            names += ["nvrtc64_%d%d.dll" % v for v in GPUARRAY_NVRTC_FALLBACK if v < (major, minor)]
        else:
            names += ["nvrtc64_%d%d.dll" % v for v in GPUARRAY_NVRTC_FALLBACK]
        candidates = [(n, find_file(n)) for n in names]
    else:
        names = ["libnvrtc.so"]
        candidates = [("libnvrtc.so", find_file("libnvrtc.so") or "libnvrtc.so")]
    info = {"tried": names, "loaded": None}
    present = [n for n in MODERN_NVRTC_DLLS if find_file(n)] if WIN else \
        sorted(set(f for d in library_dirs() if os.path.isdir(d) for f in os.listdir(d)
                   if re.match(r"^libnvrtc\.so\.\d+(\.\d+)?$", f)))
    info["present"] = present
    for name, path in candidates:
        if not path:
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            info.setdefault("errors", []).append("%s: %s" % (name, exc))
            continue
        info["loaded"], info["path"] = name, path
        major, minor = ctypes.c_int(0), ctypes.c_int(0)
        if lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)) == 0:
            info["version"] = "%d.%d" % (major.value, minor.value)
        count = ctypes.c_int(0)
        if hasattr(lib, "nvrtcGetSupportedArchs") and lib.nvrtcGetNumSupportedArchs(ctypes.byref(count)) == 0:
            archs = (ctypes.c_int * max(count.value, 1))()
            lib.nvrtcGetSupportedArchs(archs)
            info["archs"] = list(archs)[:count.value]
        info["shim"] = hasattr(lib, "gpuforge_nvrtc_shim_clamp")
        break
    return info


def nvidia_smi():
    paths = which_all("nvidia-smi")
    if not paths:
        return {"found": None}
    code, out = run([paths[0]], timeout=20)
    info = {"found": paths[0], "exit_code": code, "output_tail": out.strip().splitlines()[-3:]}
    m = re.search(r"Driver Version:\s*([\d.]+)", out)
    info["driver_version"] = m.group(1) if m else None
    m = re.search(r"CUDA Version:\s*([\d.]+)", out)
    info["cuda_version"] = m.group(1) if m else None
    # compute_cap: a query field of nvidia-smi since driver 510 (`nvidia-smi --help-query-gpu`)
    code, out = run([paths[0], "--query-gpu=name,compute_cap", "--format=csv,noheader"], timeout=20)
    info["gpus"] = []
    for line in out.strip().splitlines() if code == 0 else []:
        name, _, cc = line.rpartition(",")
        if re.match(r"^\s*\d+\.\d+\s*$", cc):
            info["gpus"].append({"name": name.strip(), "cc": cc.strip()})
    return info


def cuda_roots(config):
    roots = [setting(config, "cuda.root"), os.environ.get("CUDA_ROOT"), os.environ.get("CUDA_PATH"),
             os.environ.get("CUDA_HOME")]
    nvcc = which_all("nvcc")
    if nvcc:
        roots.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc[0]))))
    if not WIN:
        roots.append("/usr/local/cuda")
    out = []
    for root in roots:
        if root and os.path.isdir(root) and root not in out:
            out.append(root)
    return out


def nvcc_facts(config):
    candidates = which_all("nvcc") + [os.path.join(r, "bin", "nvcc.exe" if WIN else "nvcc")
                                      for r in cuda_roots(config)]
    for path in candidates:
        if os.path.isfile(path):
            code, out = run([path, "--version"], timeout=20)
            m = re.search(r"release ([\d.]+)", out)
            return {"path": path, "on_path": path in which_all("nvcc"),
                    "release": m.group(1) if m else None}
    return {"path": None}


def cudnn_facts(config):
    base = setting(config, "dnn.base_path")
    inc = [setting(config, "dnn.include_path")] + ([os.path.join(base, "include")] if base else [])
    libs = [setting(config, "dnn.library_path")] + \
        ([os.path.join(base, "lib", "x64" if WIN else "lib64")] if base else [])
    for root in cuda_roots(config):
        inc.append(os.path.join(root, "include"))
        libs += [os.path.join(root, "lib", "x64"), os.path.join(root, "lib64"), os.path.join(root, "lib")]
    inc += [os.path.join(sys.prefix, "Library", "include"), os.path.join(sys.prefix, "include")]
    if not WIN:
        inc += ["/usr/include", "/usr/include/x86_64-linux-gnu"]
        libs += ["/usr/lib/x86_64-linux-gnu", os.path.join(sys.prefix, "lib")]
    info = {"header": None, "version": None, "library": None}
    for folder in [d for d in inc if d]:
        for name in ("cudnn_version.h", "cudnn.h"):
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                with open(path, "rb") as fh:
                    text = fh.read().decode("utf-8", "replace")
                parts = [re.search(r"#define CUDNN_%s\s+(\d+)" % k, text)
                         for k in ("MAJOR", "MINOR", "PATCHLEVEL")]
                if all(parts):
                    info["version"] = ".".join(p.group(1) for p in parts)
                if name == "cudnn.h" or info["version"]:
                    info["header"] = info["header"] or path
        if info["header"]:
            break
    pattern = re.compile(r"^cudnn(64_\d+\.dll|\.lib|\.so(\.\d+)*)$")
    for folder in [d for d in libs if d] + (os.environ.get("PATH", "").split(os.pathsep) if WIN else []):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        hits = [n for n in names if pattern.match(n)]
        if hits:
            info["library"] = os.path.join(folder, hits[0])
            break
    return info


# --- the working directory, conda's package cache --------------------------------

def shadow_facts():
    cwd = os.getcwd()
    found = {}
    for name in SHADOWABLE:
        for candidate in (name + ".py", os.path.join(name, "__init__.py")):
            if os.path.isfile(os.path.join(cwd, candidate)):
                found[name] = os.path.join(cwd, candidate)
                break
    return {"cwd": cwd, "shadows": found}


def installs_facts(name="theano"):
    """Every copy of ``name`` on sys.path: package folders and install records (dist-info,
    egg-info, eggs). Two of either is two installs side by side (pip over conda, user site)."""
    packages, records = [], []
    for entry in sys.path:
        folder = os.path.abspath(entry or os.getcwd())
        if not os.path.isdir(folder):
            continue
        if os.path.isfile(os.path.join(folder, name, "__init__.py")):
            packages.append(os.path.join(folder, name))
        try:
            items = sorted(os.listdir(folder))
        except OSError:
            continue
        for item in items:
            low = item.lower()
            if low.startswith(name + "-") and low.endswith((".dist-info", ".egg-info", ".egg")):
                records.append(os.path.join(folder, item))
    return {"packages": sorted(set(packages)), "records": sorted(set(records))}


def bz2_complete(path):
    """True when a .tar.bz2 ends with bzip2's end-of-stream marker (a cut download does not)."""
    size = os.path.getsize(path)
    if size < 14:
        return False
    with open(path, "rb") as fh:
        fh.seek(size - 11)
        tail = int(bytes_hex(fh.read(11)), 16)
    # end marker (48 bits) + combined CRC (32 bits) + 0..7 padding bits
    return any((tail >> (32 + pad)) & 0xFFFFFFFFFFFF == BZ2_EOS for pad in range(8))


def bytes_hex(data):
    import binascii
    return binascii.hexlify(data)


def conda_file_ok(path):
    """(ok, reason) for a .conda file: a zip whose members are all there."""
    import zipfile
    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
            if not any(n.startswith("info-") for n in names):
                return False, "no info- member"
            size = os.path.getsize(path)
            for item in zf.infolist():
                if item.header_offset + item.compress_size > size:
                    return False, "member %s is cut short" % item.filename
    except (zipfile.BadZipfile, IOError, OSError) as exc:
        return False, "%s: %s" % (type(exc).__name__, exc)
    return True, None


def pkgs_dirs():
    dirs = [d for d in os.environ.get("CONDA_PKGS_DIRS", "").split(",") if d.strip()]
    roots = [sys.prefix, os.environ.get("CONDA_PREFIX")]
    conda_exe = os.environ.get("CONDA_EXE")
    if conda_exe:
        roots.append(env_dir(conda_exe))
    for root in roots:
        if not root:
            continue
        if os.path.basename(os.path.dirname(root)) == "envs":
            root = os.path.dirname(os.path.dirname(root))
        dirs.append(os.path.join(root, "pkgs"))
    dirs.append(os.path.join(os.path.expanduser("~"), ".conda", "pkgs"))
    out = []
    for d in dirs:
        d = os.path.abspath(os.path.expanduser(d.strip()))
        if os.path.isdir(d) and d not in out:
            out.append(d)
    return out


def conda_pkgs_facts():
    corrupt, checked = [], 0
    dirs = pkgs_dirs()
    for folder in dirs:
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if name.endswith(".tar.bz2"):
                checked += 1
                if not bz2_complete(path):
                    corrupt.append({"path": path, "reason": "no bzip2 end-of-stream marker: the "
                                    "download was cut short"})
            elif name.endswith(".conda"):
                checked += 1
                ok, reason = conda_file_ok(path)
                if not ok:
                    corrupt.append({"path": path, "reason": reason})
    return {"pkgs_dirs": dirs, "checked": checked, "corrupt": corrupt}


# --- imports, in child processes ---------------------------------------------------

def import_child(name, with_cwd):
    """Import one module the way a script in the working directory would; print its facts."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    if with_cwd:
        sys.path.insert(0, os.getcwd())
    info = {"name": name}
    start = time.time()
    try:
        module = __import__(name)
        info["file"] = getattr(module, "__file__", None)
        info["version"] = str(getattr(module, "__version__", None))
        if name == "pygpu":
            import pygpu.gpuarray
            info["api_version"] = list(pygpu.gpuarray.api_version())
            info["get_include"] = pygpu.get_include()
        elif name == "numpy":
            info["get_include"] = module.get_include()
        elif name == "theano":
            info["config"] = {}
            for key in THEANO_KEYS:
                try:
                    value = module.config
                    for part in key.split("."):
                        value = getattr(value, part)
                    info["config"][key] = str(value)
                except Exception:
                    pass
            try:
                import theano.gpuarray
                info["pygpu_activated"] = bool(theano.gpuarray.pygpu_activated)
            except Exception as exc:
                info["gpuarray_error"] = error_data(exc)
        elif name == "torch":
            info["cuda_build"] = getattr(getattr(module, "version", None), "cuda", None)
    except BaseException as exc:  # SystemExit from a broken package is data too
        info["error"] = error_data(exc)
    info["seconds"] = time.time() - start
    sys.stdout.flush()
    sys.stderr.flush()
    sys.stdout.write("\n" + PROBE_MARK + json.dumps(info, default=repr) + "\n")
    sys.stdout.flush()


def found_module(name):
    """Where ``name`` would be imported from (without importing it), or None."""
    saved = list(sys.path)
    sys.path.insert(0, os.getcwd())
    try:
        if sys.version_info[0] >= 3:
            import importlib.machinery
            spec = importlib.machinery.PathFinder.find_spec(name, sys.path)
            return (spec.origin or (list(spec.submodule_search_locations or []) or [None])[0]) \
                if spec else None
        import imp
        return imp.find_module(name, sys.path)[1]
    except Exception:
        return None
    finally:
        sys.path[:] = saved


def import_facts(self_cmd, skip, timeout, shadows):
    """Start one child per module at once; collect what each printed.

    A module shadowed by a file in the working directory is not imported (that
    would run the user's file), and then no child imports from the working
    directory.
    """
    children = {}
    results = {}
    for name, path in shadows.items():
        skip[name] = "not imported: shadowed by %s" % path
    with_cwd = "1" if not shadows else "0"
    for name in MODULES:
        results[name] = {"found": found_module(name)}
        if name in skip:
            results[name]["skipped"] = skip[name]
            continue
        if results[name]["found"] is None:
            results[name]["error"] = {"type": "ModuleNotFoundError",
                                      "message": "No module named '%s'" % name, "traceback": []}
            continue
        out = tempfile.TemporaryFile()
        try:
            proc = subprocess.Popen(self_cmd + [os.path.abspath(__file__), "--import", name, with_cwd],
                                    stdout=out, stderr=subprocess.STDOUT, **proctree.group_kwargs())
        except (OSError, ValueError) as exc:
            results[name]["error"] = {"type": type(exc).__name__, "message": str(exc), "traceback": []}
            out.close()
            continue
        children[name] = (proc, out)
    deadline = time.time() + timeout
    while any(p.poll() is None for p, _ in children.values()) and time.time() < deadline:
        time.sleep(0.02)
    for name, (proc, out) in children.items():
        if proc.poll() is None:
            results[name]["timed_out"] = timeout
            results[name]["waiting_on"] = proctree.waiting_on(proc.pid)
        proctree.kill_group(proc)  # a timed-out import, and whatever an import left running
        proc.wait()
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
        out.close()
        log, _, payload = text.rpartition("\n" + PROBE_MARK)
        if not payload and text.startswith(PROBE_MARK):
            log, payload = "", text[len(PROBE_MARK):]
        try:
            results[name].update(json.loads(payload.splitlines()[0]))
        except (ValueError, IndexError):
            log = text
            results[name]["error"] = {"type": "crash", "message": "the import ended without a report "
                                      "(exit code %s)" % proc.returncode, "traceback": []}
        results[name]["exit_code"] = proc.returncode
        results[name]["log"] = log.strip()[-6000:]
    return results


def header_facts(imports, config, compiler):
    """Where Theano would find gpuarray/array.h when compiling GPU ops (FACTS.md)."""
    pygpu = imports.get("pygpu", {})
    if not pygpu.get("get_include") or not compiler.get("cxx_resolved"):
        return {"checked": False}  # no pygpu, or no compiler to compile GPU ops with
    dirs = [pygpu["get_include"], imports.get("numpy", {}).get("get_include"),
            os.path.join(sys.exec_prefix, "include")]
    if WIN:
        dirs.append(os.path.join(sys.exec_prefix, "Library", "include"))
    flags = setting(config, "gcc.cxxflags") or ""
    dirs += re.findall(r"-I\s*(\S+)", flags)
    for var in ("CPATH", "CPLUS_INCLUDE_PATH"):
        dirs += [d for d in os.environ.get(var, "").split(os.pathsep) if d]
    dirs += include_dirs(compiler.get("cxx_resolved"))
    for folder in [d for d in dirs if d]:
        if os.path.isfile(os.path.join(folder, "gpuarray", "array.h")):
            return {"checked": True, "found": os.path.join(folder, "gpuarray", "array.h")}
    return {"checked": True, "found": None, "searched": [d for d in dirs if d]}


def probe(self_cmd, timeout):
    """The facts; the imports end ``timeout`` seconds after the probe started, at the latest."""
    start = time.time()
    bits = struct.calcsize("P") * 8
    facts = {"probe_version": 1, "python": {
        "executable": sys.executable, "version": platform.python_version(), "bits": bits,
        "implementation": platform.python_implementation(), "prefix": sys.prefix,
        "base_prefix": getattr(sys, "base_prefix", getattr(sys, "real_prefix", sys.prefix)),
        "exec_prefix": sys.exec_prefix},
        "platform": {"system": platform.system(), "sys_platform": sys.platform,
                     "machine": platform.machine(), "release": platform.release(),
                     "hostname": socket.gethostname()}}
    facts["path"] = safe(path_facts)
    if WIN:  # the folders Windows gives a user: Theano's compiledir and g++'s temp files live there
        facts["windows"] = dict((name.lower(), os.environ.get(name)) for name in
                                ("USERPROFILE", "TEMP", "TMP", "LOCALAPPDATA", "APPDATA"))
    config = safe(config_facts)
    facts["config"] = config
    if "probe_error" in config:
        config = {"settings": {}, "files": []}
    facts["compiledir"] = safe(compiledir_facts, config, bits)
    held = lock_held(facts["compiledir"]) if "locks" in facts["compiledir"] else []
    skip = {}
    if held:
        skip["theano"] = "not imported: the compile lock %s is held by process %s" % (
            held[0]["lock_dir"], held[0]["pid"])
    facts["compiler"] = safe(compiler_facts, config)
    facts["cwd"] = safe(shadow_facts)
    facts["installs"] = {"theano": safe(installs_facts, "theano")}
    facts["conda_pkgs"] = safe(conda_pkgs_facts)
    facts["cuda"] = {"driver": safe(cuda_driver), "nvidia_smi": safe(nvidia_smi),
                     "nvcc": safe(nvcc_facts, config), "cudnn": safe(cudnn_facts, config)}
    driver_version = facts["cuda"]["driver"].get("version") or facts["cuda"]["nvidia_smi"].get("cuda_version")
    facts["cuda"]["nvrtc"] = safe(nvrtc_facts, driver_version)
    shadows = facts["cwd"].get("shadows", {}) if isinstance(facts["cwd"], dict) else {}
    facts["imports"] = safe(import_facts, self_cmd, skip, max(0.1, timeout - (time.time() - start)),
                            shadows)
    if "probe_error" not in facts["imports"] and "probe_error" not in facts["compiler"]:
        facts["gpuarray_header"] = safe(header_facts, facts["imports"], config, facts["compiler"])
    facts["hung"] = HUNG
    facts["seconds"] = time.time() - start
    return facts


def main(argv):
    args = list(argv)
    if args[:1] == ["--import"]:
        import_child(args[1], args[2:3] == ["1"])
        return 0
    self_cmd, timeout, deadline = [sys.executable], 180.0, None
    while args:
        arg = args.pop(0)
        if arg == "--self" and args:
            self_cmd = [args.pop(0)]
        elif arg == "--timeout" and args:
            timeout = float(args.pop(0))
        elif arg == "--deadline" and args:  # the host's clock: the whole probe ends by then
            deadline = float(args.pop(0))
    if deadline is not None:
        timeout = max(0.1, min(timeout, deadline - time.time()))
    DEADLINE[0] = time.time() + timeout
    try:
        facts = probe(self_cmd, timeout)
    except BaseException as exc:  # never crash: the host reads this
        facts = {"probe_error": error_data(exc)}
    sys.stdout.write("\n" + PROBE_MARK + json.dumps(facts, default=repr) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
