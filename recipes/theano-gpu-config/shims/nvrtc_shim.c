/* NVRTC shim for the published, unpatched libgpuarray 0.7.6.
 *
 * Installed as nvrtc64_91.dll (Windows) or libnvrtc.so (Linux): the names 0.7.6 loads
 * (on Windows, after nvrtc64_<driver's CUDA>.dll fails, it tries 9.1 first; on Linux
 * it dlopens the unversioned name, which CUDA >= 12 runtime packages do not ship).
 * It loads the CUDA >= 11 NVRTC that is there and forwards every call to it, except
 * that nvrtcCompileProgram's "-arch compute_XY" becomes the newest architecture that
 * NVRTC supports and that is not newer than XY, capped at compute_90:
 *   - an Ampere/Ada/Hopper GPU with an NVRTC that lacks its arch gets older PTX, which
 *     the driver JIT-compiles for the GPU (NVIDIA's compatibility guides);
 *   - 0.7.6 truncates Blackwell's compute_100/compute_120 to "compute_10"/"compute_12"
 *     (an 11-byte buffer): anything below compute_30 is read as such a truncated
 *     three-digit arch. The true one is unknown here (10.0 or 12.0), so the shim asks
 *     for compute_90, which every NVRTC from 11.8 to 13.x accepts and which runs on any
 *     Blackwell GPU through the driver's JIT.
 * NVRTC >= 11.2 lists its architectures (nvrtcGetSupportedArchs); for an older one the
 * newest is known by its version (the table in newest_by_version).
 *
 * Which NVRTC: GPUFORGE_NVRTC (a path or name) if set; else, in the shim's own folder
 * (the environment's Library\bin or lib), then by the normal search, the newest of
 * CUDA 13, 12, 11.x. The environment's own NVRTC comes first on purpose: a system-wide
 * CUDA 13 on PATH would emit PTX that a CUDA 12 driver refuses.
 *
 * Build (theano-gpu-config's activation does this with the environment's gcc):
 *   x86_64-w64-mingw32-gcc -shared -O2 -o nvrtc64_91.dll nvrtc_shim.c
 *   gcc -shared -fPIC -O2 -o libnvrtc.so nvrtc_shim.c -ldl
 */
#ifndef _WIN32
#define _GNU_SOURCE /* dladdr */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#define EXPORT __declspec(dllexport)
#define SEP '\\'
static void *open_lib(const char *n) { return (void *)LoadLibraryA(n); }
static void *sym(void *h, const char *n) { return (void *)GetProcAddress((HMODULE)h, n); }
static const char *names[] = {"nvrtc64_130_0.dll", "nvrtc64_120_0.dll", "nvrtc64_112_0.dll",
                              "nvrtc64_111_0.dll", "nvrtc64_110_0.dll", NULL};
static int own_dir(char *buf, size_t size) {
  HMODULE self = NULL;
  DWORD n;
  if (!GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                          GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                          (LPCSTR)(void *)own_dir, &self))
    return 0;
  n = GetModuleFileNameA(self, buf, (DWORD)size);
  return n > 0 && n < size;
}
#else
#include <dlfcn.h>
#define EXPORT __attribute__((visibility("default")))
#define SEP '/'
static void *open_lib(const char *n) { return dlopen(n, RTLD_NOW | RTLD_LOCAL); }
static void *sym(void *h, const char *n) { return dlsym(h, n); }
static const char *names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2",
                              "libnvrtc.so.11.1", "libnvrtc.so.11.0", NULL};
static int own_dir(char *buf, size_t size) {
  Dl_info info;
  if (!dladdr((void *)own_dir, &info) || !info.dli_fname || strlen(info.dli_fname) >= size)
    return 0;
  strcpy(buf, info.dli_fname);
  return 1;
}
#endif

#define NVRTC_ERROR_INTERNAL_ERROR 11
#define ARCH_CAP 90

typedef int R;
typedef void *P;
static void *real;
static int tried;

static void *load_real(void) {
  char path[4096];
  const char *env = getenv("GPUFORGE_NVRTC");
  char *slash;
  int i;
  if (env && *env) {
    void *h = open_lib(env);
    if (!h) fprintf(stderr, "nvrtc shim: cannot load GPUFORGE_NVRTC=%s\n", env);
    return h;
  }
  if (own_dir(path, sizeof(path)) && (slash = strrchr(path, SEP)) != NULL) {
    for (i = 0; names[i]; i++) {
      void *h;
      if ((size_t)(slash - path) + 1 + strlen(names[i]) >= sizeof(path)) break;
      strcpy(slash + 1, names[i]);
      if ((h = open_lib(path)) != NULL) return h;
    }
  }
  for (i = 0; names[i]; i++) {
    void *h = open_lib(names[i]);
    if (h) return h;
  }
  fprintf(stderr, "nvrtc shim: no CUDA >= 11 NVRTC found (%s ... %s, or set GPUFORGE_NVRTC)\n",
          names[0], names[4]);
  return NULL;
}

static void *get(const char *name) {
  if (!tried) {
    tried = 1;
    real = load_real();
  }
  return real ? sym(real, name) : NULL;
}

#define FWD(name, params, args) \
  EXPORT R name params { \
    R (*f) params = (R (*) params)get(#name); \
    return f ? f args : NVRTC_ERROR_INTERNAL_ERROR; \
  }

FWD(nvrtcCreateProgram, (P *p, const char *s, const char *n, int k, const char **h, const char **i),
    (p, s, n, k, h, i))
FWD(nvrtcDestroyProgram, (P *p), (p))
FWD(nvrtcGetProgramLog, (P p, char *l), (p, l))
FWD(nvrtcGetProgramLogSize, (P p, size_t *s), (p, s))
FWD(nvrtcGetPTX, (P p, char *x), (p, x))
FWD(nvrtcGetPTXSize, (P p, size_t *s), (p, s))
FWD(nvrtcVersion, (int *a, int *b), (a, b))
FWD(nvrtcGetNumSupportedArchs, (int *n), (n))
FWD(nvrtcGetSupportedArchs, (int *a), (a))

EXPORT const char *nvrtcGetErrorString(R r) {
  const char *(*f)(R) = (const char *(*)(R))get("nvrtcGetErrorString");
  return f ? f(r) : "NVRTC_ERROR_INTERNAL_ERROR (nvrtc shim: no NVRTC loaded)";
}

/* The newest arch of an NVRTC without nvrtcGetSupportedArchs (before 11.2). */
static int newest_by_version(void) {
  int M = 0, m = 0;
  R (*ver)(int *, int *) = (R (*)(int *, int *))get("nvrtcVersion");
  if (!ver || ver(&M, &m)) return 0;
  if (M < 9) return 62;
  if (M == 9) return 70;
  if (M == 10) return 75;
  if (M == 11 && m == 0) return 80;
  if (M == 11 && m < 8) return 86;
  return ARCH_CAP;
}

/* The arch to ask for instead of compute_<want>; 0: none the NVRTC supports. */
static int clamp(int want) {
  int n = 0, best = 0, i, *archs;
  R (*num)(int *) = (R (*)(int *))get("nvrtcGetNumSupportedArchs");
  R (*list)(int *) = (R (*)(int *))get("nvrtcGetSupportedArchs");
  if (want < 30) want = 1000; /* "compute_10"/"compute_12": a truncated three-digit arch */
  if (want > ARCH_CAP) want = ARCH_CAP;
  if (!num || !list || num(&n) || n <= 0) {
    int newest = newest_by_version();
    return newest && newest < want ? newest : want;
  }
  archs = (int *)calloc((size_t)n, sizeof(int));
  if (!archs) return want;
  if (!list(archs))
    for (i = 0; i < n; i++)
      if (archs[i] <= want && archs[i] > best) best = archs[i];
  free(archs);
  return best;
}

/* Exported for whoever needs to know this is the shim (theano-gpu-config, gpuforge doctor). */
EXPORT int gpuforge_nvrtc_shim_clamp(int want) { return clamp(want); }

EXPORT R nvrtcCompileProgram(P p, int n, const char **opts) {
  R (*f)(P, int, const char **) = (R (*)(P, int, const char **))get("nvrtcCompileProgram");
  const char **o;
  char buf[64];
  int i, arch_next = 0;
  R r;
  if (!f) return NVRTC_ERROR_INTERNAL_ERROR;
  o = (const char **)calloc((size_t)n + 1, sizeof(char *));
  if (!o) return NVRTC_ERROR_INTERNAL_ERROR;
  for (i = 0; i < n; i++) {
    const char *v = NULL;
    o[i] = opts[i];
    if (arch_next) v = opts[i];
    else if (!strncmp(opts[i], "-arch=", 6)) v = opts[i] + 6;
    else if (!strncmp(opts[i], "--gpu-architecture=", 19)) v = opts[i] + 19;
    arch_next = !strcmp(opts[i], "-arch") || !strcmp(opts[i], "--gpu-architecture");
    if (v && !strncmp(v, "compute_", 8)) {
      int want = atoi(v + 8), got = clamp(want);
      if (got == 0) {
        fprintf(stderr, "nvrtc shim: this NVRTC supports no architecture up to %s "
                        "(CUDA 13 dropped compute_50-72: use an env with CUDA <= 12)\n", v);
      } else if (got != want) {
        snprintf(buf, sizeof(buf), "%.*scompute_%d", (int)(v - opts[i]), opts[i], got);
        o[i] = buf;
      }
    }
  }
  r = f(p, n, o);
  free(o);
  return r;
}
