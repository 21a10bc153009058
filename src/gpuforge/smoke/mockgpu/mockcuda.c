/* gpuforge's mock CUDA driver: a libcuda.so / nvcuda.dll with no GPU behind it.
 *
 * NOT A GPU. Nothing is executed: memory is host memory, cuLaunchKernel returns at once,
 * results computed through it are meaningless. It exists to run libgpuarray 0.7.6, NVIDIA's
 * real NVRTC and Theano's kernel compile path on a machine without a GPU, and to look at
 * what a real driver would be handed: the PTX of every module.
 *
 *   MOCK_CC=8.6       the device's compute capability (CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_*)
 *   MOCK_DRIVER=12060 what cuDriverGetVersion reports (1000 * major + 10 * minor)
 *   MOCK_LOG=FILE     append one line per event here (else stderr)
 *   MOCK_PTX_DIR=DIR  keep each PTX module handed to cuLinkAddData as DIR/mod<N>.ptx
 *
 * cuLinkAddData refuses PTX as a driver does (codes and texts: CUDA 13.0's cuda.h, enum
 * cudaError_enum): CUDA_ERROR_UNSUPPORTED_PTX_VERSION (222, "the provided PTX was compiled
 * with an unsupported toolchain") when the PTX ISA `.version` is newer than the driver's
 * CUDA release loads, and CUDA_ERROR_INVALID_PTX (218, "a PTX JIT compilation failed") when
 * its `.target sm_XY` is newer than the device, or when it holds a warp vote without `.sync`
 * (`vote.ballot.b32`) for `.target sm_70` or newer in PTX ISA 6.4 or later, which PTX forbids
 * (ptxas: "Instruction 'vote' without '.sync' is not supported on .target sm_70 and higher from
 * PTX ISA version 6.4"; an H100's driver refused Theano's GpuTopKOp so). PTX ISA per CUDA release: NVIDIA's PTX ISA
 * release history (docs.nvidia.com/cuda/parallel-thread-execution/#release-notes-ptx-release-history,
 * as NVIDIA's cuda-python encodes it in cuda/bindings/utils/_ptx_utils.py).
 *
 * NVRTC >= 12 opens the driver itself and asks for cuGetExportTable: exported, it answers
 * CUDA_ERROR_NOT_SUPPORTED (801) and NVRTC carries on without it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>

#ifdef _WIN32
#define EXPORT __declspec(dllexport)
#else
#define EXPORT __attribute__((visibility("default")))
#endif

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUevent, *CUstream, *CUlinkState;
typedef unsigned long long CUdeviceptr;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_INVALID_DEVICE 101
#define CUDA_ERROR_INVALID_PTX 218
#define CUDA_ERROR_UNSUPPORTED_PTX_VERSION 222
#define CUDA_ERROR_NOT_SUPPORTED 801

static void say(const char *fmt, ...) {
  const char *path = getenv("MOCK_LOG");
  FILE *out = path ? fopen(path, "a") : NULL;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(out ? out : stderr, fmt, ap);
  va_end(ap);
  fputc('\n', out ? out : stderr);
  if (out) fclose(out);
}

static int env_int(const char *name, int fallback) {
  const char *s = getenv(name);
  return s && *s ? atoi(s) : fallback;
}
static int cc_major(void) { const char *s = getenv("MOCK_CC"); return s ? atoi(s) : 8; }
static int cc_minor(void) {
  const char *s = getenv("MOCK_CC"), *d = s ? strchr(s, '.') : NULL;
  return d ? atoi(d + 1) : (s ? 0 : 6);
}
static int driver_version(void) { return env_int("MOCK_DRIVER", 12060); }

/* The newest PTX ISA (10 * major + minor) the driver's CUDA release loads. */
static int driver_ptx_isa(void) {
  static const int table[][2] = { /* {first CUDA release (1000 * M + 10 * m), PTX ISA} */
    {13010, 91}, {13000, 90}, {12090, 88}, {12080, 87}, {12070, 86}, {12050, 85}, {12040, 84},
    {12030, 83}, {12020, 82}, {12010, 81}, {12000, 80}, {11080, 78}, {11070, 77}, {11060, 76},
    {11050, 75}, {11040, 74}, {11030, 73}, {11020, 72}, {11010, 71}, {11000, 70}, {10020, 65},
    {10010, 64}, {10000, 63}, {9020, 62}, {9010, 61}, {9000, 60}, {8000, 50}, {0, 43}};
  int v = driver_version();
  for (unsigned i = 0; i < sizeof(table) / sizeof(table[0]); i++)
    if (v >= table[i][0]) return table[i][1];
  return 43;
}

static const char *error_name(CUresult e) {
  switch (e) {
  case CUDA_SUCCESS: return "CUDA_SUCCESS";
  case CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
  case CUDA_ERROR_INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
  case CUDA_ERROR_INVALID_PTX: return "CUDA_ERROR_INVALID_PTX";
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION: return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
  case CUDA_ERROR_NOT_SUPPORTED: return "CUDA_ERROR_NOT_SUPPORTED";
  default: return "CUDA_ERROR_UNKNOWN";
  }
}
static const char *error_string(CUresult e) {
  switch (e) {
  case CUDA_SUCCESS: return "no error";
  case CUDA_ERROR_INVALID_VALUE: return "invalid argument";
  case CUDA_ERROR_INVALID_DEVICE: return "invalid device ordinal";
  case CUDA_ERROR_INVALID_PTX: return "a PTX JIT compilation failed";
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION: return "the provided PTX was compiled with an unsupported toolchain.";
  case CUDA_ERROR_NOT_SUPPORTED: return "operation not supported";
  default: return "unknown error";
  }
}

static int ctx_token, mod_token, fn_token, ev_token, st_token, modules;

EXPORT CUresult cuInit(unsigned flags) {
  (void)flags;
  say("mockcuda: cuInit (a mock driver, not a GPU): cc %d.%d, driver %d, PTX ISA <= %d.%d",
      cc_major(), cc_minor(), driver_version(), driver_ptx_isa() / 10, driver_ptx_isa() % 10);
  return CUDA_SUCCESS;
}
EXPORT CUresult cuDriverGetVersion(int *v) { *v = driver_version(); return CUDA_SUCCESS; }
EXPORT CUresult cuGetErrorName(CUresult e, const char **p) { *p = error_name(e); return CUDA_SUCCESS; }
EXPORT CUresult cuGetErrorString(CUresult e, const char **p) { *p = error_string(e); return CUDA_SUCCESS; }
EXPORT CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  *d = ordinal;
  return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
EXPORT CUresult cuDeviceGetCount(int *c) { *c = 1; return CUDA_SUCCESS; }
EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
  (void)d;
  snprintf(name, len, "gpuforge mock cc %d.%d (not a GPU)", cc_major(), cc_minor());
  return CUDA_SUCCESS;
}
EXPORT CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d) {
  (void)d;
  switch (attr) { /* CUdevice_attribute numbers of cuda.h */
  case 75: *v = cc_major(); break;                     /* COMPUTE_CAPABILITY_MAJOR */
  case 76: *v = cc_minor(); break;                     /* COMPUTE_CAPABILITY_MINOR */
  case 1: case 2: *v = 1024; break;                    /* MAX_THREADS_PER_BLOCK, MAX_BLOCK_DIM_X */
  case 3: *v = 1024; break;                            /* MAX_BLOCK_DIM_Y */
  case 4: *v = 64; break;                              /* MAX_BLOCK_DIM_Z */
  case 5: *v = 2147483647; break;                      /* MAX_GRID_DIM_X */
  case 6: case 7: *v = 65535; break;                   /* MAX_GRID_DIM_Y/Z */
  case 8: *v = 49152; break;                           /* MAX_SHARED_MEMORY_PER_BLOCK */
  case 10: *v = 32; break;                             /* WARP_SIZE */
  case 16: *v = 80; break;                             /* MULTIPROCESSOR_COUNT */
  case 39: *v = 2048; break;                           /* MAX_THREADS_PER_MULTIPROCESSOR */
  default: *v = 1;
  }
  return CUDA_SUCCESS;
}
EXPORT CUresult cuDeviceGetPCIBusId(char *b, int len, CUdevice d) { (void)d; snprintf(b, len, "0000:00:00.0"); return CUDA_SUCCESS; }
EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice d, unsigned *f, int *a) { (void)d; *f = 0; *a = 0; return CUDA_SUCCESS; }
EXPORT CUresult cuDevicePrimaryCtxSetFlags(CUdevice d, unsigned f) { (void)d; (void)f; return CUDA_SUCCESS; }
EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice d) { (void)d; return CUDA_SUCCESS; }
EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { (void)d; *c = &ctx_token; return CUDA_SUCCESS; }
EXPORT CUresult cuCtxGetDevice(CUdevice *d) { *d = 0; return CUDA_SUCCESS; }
EXPORT CUresult cuCtxPushCurrent_v2(CUcontext c) { (void)c; return CUDA_SUCCESS; }
EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *c) { if (c) *c = &ctx_token; return CUDA_SUCCESS; }

struct link { char *image; size_t size; };

EXPORT CUresult cuLinkCreate(unsigned n, int *o, void **v, CUlinkState *s) {
  (void)n; (void)o; (void)v;
  *s = calloc(1, sizeof(struct link));
  return CUDA_SUCCESS;
}

/* "major.minor" after `key` in the PTX text as 10 * major + minor; -1 when absent. */
static int ptx_number(const char *ptx, size_t size, const char *key, char *shown, size_t shown_len) {
  const char *p = ptx, *end = ptx + size;
  size_t klen = strlen(key);
  for (; p + klen < end; p++) {
    if (strncmp(p, key, klen) == 0) {
      const char *q = p + klen;
      size_t n = 0;
      while (q + n < end && q[n] != '\n' && q[n] != '\r' && q[n] != ',' && q[n] != ' ' && n + 1 < shown_len) n++;
      memcpy(shown, q, n);
      shown[n] = 0;
      if (strchr(shown, '.')) return atoi(shown) * 10 + atoi(strchr(shown, '.') + 1);
      return atoi(shown);
    }
  }
  snprintf(shown, shown_len, "?");
  return -1;
}

/* A warp vote without `.sync` (vote.ballot.b32, vote.any.pred ...), not vote.sync.* */
static int vote_without_sync(const char *ptx, size_t size) {
  const char *p = ptx, *end = ptx + size;
  for (; p + 10 < end; p++)
    if (strncmp(p, "vote.", 5) == 0 && strncmp(p + 5, "sync", 4) != 0 && (p == ptx || p[-1] == ' ' || p[-1] == '\t'))
      return 1;
  return 0;
}

EXPORT CUresult cuLinkAddData(CUlinkState s, int type, void *data, size_t size, const char *name,
                              unsigned n, int *o, void **v) {
  struct link *l = s;
  char version[32], target[32];
  int isa, sm, dev = cc_major() * 10 + cc_minor(), drv_isa = driver_ptx_isa();
  const char *dir = getenv("MOCK_PTX_DIR");
  CUresult verdict = CUDA_SUCCESS;
  (void)type; (void)name; (void)n; (void)o; (void)v;
  isa = ptx_number(data, size, ".version ", version, sizeof(version));
  sm = ptx_number(data, size, ".target sm_", target, sizeof(target));
  modules++;
  if (isa > drv_isa) verdict = CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
  else if (sm > dev) verdict = CUDA_ERROR_INVALID_PTX;
  else if (sm >= 70 && isa >= 64 && vote_without_sync(data, size)) verdict = CUDA_ERROR_INVALID_PTX;
  if (dir) {
    char path[4096];
    FILE *f;
    snprintf(path, sizeof(path), "%s/mod%03d.ptx", dir, modules);
    f = fopen(path, "wb");
    if (f) { fwrite(data, 1, size && ((char *)data)[size - 1] == 0 ? size - 1 : size, f); fclose(f); }
  }
  say("mockcuda: cuLinkAddData module %d: PTX .version %s .target sm_%s for mock cc %d.%d, driver %d: %s",
      modules, version, target, cc_major(), cc_minor(), driver_version(),
      verdict == CUDA_SUCCESS ? "accepted (a real driver would JIT it; this mock does not)" : error_name(verdict));
  if (verdict != CUDA_SUCCESS) return verdict;
  l->image = malloc(size);
  memcpy(l->image, data, size);
  l->size = size;
  return CUDA_SUCCESS;
}
EXPORT CUresult cuLinkComplete(CUlinkState s, void **out, size_t *sz) {
  struct link *l = s;
  *out = l->image; *sz = l->size;
  return CUDA_SUCCESS;
}
EXPORT CUresult cuLinkDestroy(CUlinkState s) { struct link *l = s; free(l->image); free(l); return CUDA_SUCCESS; }
EXPORT CUresult cuModuleLoadData(CUmodule *m, const void *i) { (void)i; *m = &mod_token; return CUDA_SUCCESS; }
EXPORT CUresult cuModuleLoadDataEx(CUmodule *m, const void *i, unsigned n, int *o, void **v) {
  (void)i; (void)n; (void)o; (void)v; *m = &mod_token; return CUDA_SUCCESS;
}
EXPORT CUresult cuModuleUnload(CUmodule m) { (void)m; return CUDA_SUCCESS; }
EXPORT CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) { (void)m; (void)name; *f = &fn_token; return CUDA_SUCCESS; }
EXPORT CUresult cuMemGetInfo_v2(size_t *f, size_t *t) { *f = (size_t)8 << 30; *t = (size_t)16 << 30; return CUDA_SUCCESS; }
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { *p = (CUdeviceptr)(size_t)calloc(1, n ? n : 1); return CUDA_SUCCESS; }
EXPORT CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)(size_t)p); return CUDA_SUCCESS; }
EXPORT CUresult cuMemAllocHost_v2(void **p, size_t n) { *p = malloc(n ? n : 1); return CUDA_SUCCESS; }
EXPORT CUresult cuMemFreeHost(void *p) { free(p); return CUDA_SUCCESS; }
#define DPTR(x) ((void *)(size_t)(x))
EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream st) { (void)st; memcpy(DPTR(d), s, n); return CUDA_SUCCESS; }
EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) { memcpy(DPTR(d), s, n); return CUDA_SUCCESS; }
EXPORT CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream st) { (void)st; memcpy(d, DPTR(s), n); return CUDA_SUCCESS; }
EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) { (void)st; memmove(DPTR(d), DPTR(s), n); return CUDA_SUCCESS; }
EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n, CUstream st) {
  (void)dc; (void)sc; (void)st; memmove(DPTR(d), DPTR(s), n); return CUDA_SUCCESS;
}
EXPORT CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char c, size_t n, CUstream st) { (void)st; memset(DPTR(d), c, n); return CUDA_SUCCESS; }
EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned sh, CUstream s, void **p, void **x) {
  static int once;
  (void)f; (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)sh; (void)s; (void)p; (void)x;
  if (!once++) say("mockcuda: cuLaunchKernel: nothing runs (a mock driver; results are meaningless)");
  return CUDA_SUCCESS;
}
EXPORT CUresult cuFuncGetAttribute(int *v, int a, CUfunction f) { (void)f; *v = a == 0 ? 1024 : (a == 4 ? 16 : 0); return CUDA_SUCCESS; }
EXPORT CUresult cuEventCreate(CUevent *e, unsigned f) { (void)f; *e = &ev_token; return CUDA_SUCCESS; }
EXPORT CUresult cuEventRecord(CUevent e, CUstream s) { (void)e; (void)s; return CUDA_SUCCESS; }
EXPORT CUresult cuEventSynchronize(CUevent e) { (void)e; return CUDA_SUCCESS; }
EXPORT CUresult cuEventDestroy_v2(CUevent e) { (void)e; return CUDA_SUCCESS; }
EXPORT CUresult cuStreamCreate(CUstream *s, unsigned f) { (void)f; *s = &st_token; return CUDA_SUCCESS; }
EXPORT CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned f) { (void)s; (void)e; (void)f; return CUDA_SUCCESS; }
EXPORT CUresult cuStreamSynchronize(CUstream s) { (void)s; return CUDA_SUCCESS; }
EXPORT CUresult cuStreamDestroy_v2(CUstream s) { (void)s; return CUDA_SUCCESS; }
EXPORT CUresult cuIpcGetMemHandle(void *h, CUdeviceptr p) { (void)h; (void)p; return CUDA_ERROR_NOT_SUPPORTED; }
EXPORT CUresult cuIpcOpenMemHandle(CUdeviceptr *p, char h[64], unsigned f) { (void)p; (void)h; (void)f; return CUDA_ERROR_NOT_SUPPORTED; }
EXPORT CUresult cuIpcCloseMemHandle(CUdeviceptr p) { (void)p; return CUDA_ERROR_NOT_SUPPORTED; }
EXPORT CUresult cuGetExportTable(const void **table, const void *id) { (void)id; if (table) *table = NULL; return CUDA_ERROR_NOT_SUPPORTED; }
