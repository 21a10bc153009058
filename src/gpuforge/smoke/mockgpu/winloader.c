/* A harness that replays libgpuarray 0.7.6's Windows loader order (tag v0.7.6, f036aef):
 * it is NOT libgpuarray, only the part of it that decides which DLLs load and which -arch
 * NVRTC is given, rewritten step by step so that it runs under Wine with the mock driver:
 *
 *   1. nvcuda.dll, cuInit, cuDriverGetVersion -> major = v / 1000, minor = v / 10 % 10
 *      (src/gpuarray_buffer_cuda.c:160-171)
 *   2. nvrtc64_<major><minor>.dll, then {9.1, 9.0, 8.0, 7.5, 7.0} below the driver's version;
 *      the error reported is the last one (gpuarray_buffer_cuda.c:172-188, loaders/libnvrtc.c:36)
 *   3. cublas64_<major><minor>.dll with the (major, minor) NVRTC was found with; none: no BLAS,
 *      and pygpu.blas.gemm (Theano's start-up) fails: the harness reports the load error
 *      (gpuarray_buffer_cuda.c:550, loaders/libcublas.c:50)
 *   4. detect_arch: snprintf(bin_id, strlen("compute_") + 3, "compute_%d%d", cc) -- which cuts
 *      cc 10.0/12.0 to "compute_10"/"compute_12" (gpuarray_buffer_cuda.c:1084-1098)
 *   5. nvrtcCompileProgram(prog, 2, {"-arch", bin_id}), then the PTX to cuLinkCreate /
 *      cuLinkAddData(CU_JIT_INPUT_PTX) / cuLinkComplete (gpuarray_buffer_cuda.c:1104-1206)
 *   6. cublasCreate_v2 (gpublas_setup)
 * Error texts are 0.7.6's ("Could not load \"%s\": %s" with FormatMessage's text,
 * loaders/dyn_load.c:32-40; "%s: %s" with nvrtcGetErrorString). Prints "RESULT ok" or
 * "RESULT fail <the error>". Results through the mock driver are meaningless. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

static char error_msg[1024];

static HMODULE load(const char *name) {
  HMODULE h = LoadLibraryA(name);
  if (!h) {
    char buf[512];
    DWORD err = GetLastError();
    DWORD len = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, err, 0,
                               buf, sizeof(buf), NULL);
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) buf[--len] = 0;
    if (len == 0) snprintf(error_msg, sizeof(error_msg), "Could not load \"%s\": error code %lX", name, err);
    else snprintf(error_msg, sizeof(error_msg), "Could not load \"%s\": %s", name, buf);
    printf("winloader: %s\n", error_msg);
  } else {
    char path[MAX_PATH];
    GetModuleFileNameA(h, path, sizeof(path));
    printf("winloader: loaded %s (%s)\n", name, path);
  }
  return h;
}

static int fail(const char *what) {
  size_t n = strlen(what);
  while (n && (what[n - 1] == '\n' || what[n - 1] == '\r')) n--;
  printf("RESULT fail %.*s\n", (int)n, what);
  return 1;
}

#define SYM(lib, type, name) type name = (type)(void *)GetProcAddress(lib, #name)
typedef int (*f_u)(unsigned);
typedef int (*f_pi)(int *);
typedef int (*f_attr)(int *, int, int);
typedef int (*f_retain)(void **, int);
typedef int (*f_lcreate)(unsigned, void *, void *, void **);
typedef int (*f_ladd)(void *, int, void *, size_t, const char *, unsigned, void *, void *);
typedef int (*f_lcomplete)(void *, void **, size_t *);
typedef int (*f_errname)(int, const char **);
typedef int (*f_create)(void **, const char *, const char *, int, const char **, const char **);
typedef int (*f_compile)(void *, int, const char **);
typedef int (*f_size)(void *, size_t *);
typedef int (*f_str)(void *, char *);
typedef const char *(*f_errstr)(int);
typedef int (*f_ver)(int *, int *);
typedef int (*f_handle)(void **);

int main(void) {
  HMODULE cuda, nvrtc = NULL, cublas;
  int version = 0, major, minor, cc_major = 0, cc_minor = 0, dev = 0, r;
  char libname[64], bin_id[64];
  void *ctx, *prog, *link, *cubin, *handle;
  size_t size, cubin_size;
  const char *opts[2];
  const char *src = "extern \"C\" __global__ void gpuforge_add1(float *a, unsigned n) {\n"
                    "  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "  if (i < n) a[i] += 1.0f;\n}\n";

  setvbuf(stdout, NULL, _IONBF, 0);
  if (!(cuda = load("nvcuda.dll"))) return fail(error_msg);
  SYM(cuda, f_u, cuInit);
  SYM(cuda, f_pi, cuDriverGetVersion);
  SYM(cuda, f_attr, cuDeviceGetAttribute);
  SYM(cuda, f_retain, cuDevicePrimaryCtxRetain);
  SYM(cuda, f_lcreate, cuLinkCreate);
  SYM(cuda, f_ladd, cuLinkAddData);
  SYM(cuda, f_lcomplete, cuLinkComplete);
  SYM(cuda, f_errname, cuGetErrorName);
  if (cuInit(0) != 0) return fail("cuInit failed");
  cuDriverGetVersion(&version);
  major = version / 1000;
  minor = (version / 10) % 10;
  printf("winloader: driver reports CUDA %d.%d (%d)\n", major, minor, version);

  snprintf(libname, sizeof(libname), "nvrtc64_%d%d.dll", major, minor);
  nvrtc = load(libname);
  if (!nvrtc) {
    int versions[][2] = {{9, 1}, {9, 0}, {8, 0}, {7, 5}, {7, 0}};
    int n = sizeof(versions) / sizeof(versions[0]), i = 0;
    while (i < n && (versions[i][0] > major || (versions[i][0] == major && versions[i][1] >= minor))) i++;
    while (!nvrtc && i < n) {
      major = versions[i][0];
      minor = versions[i][1];
      snprintf(libname, sizeof(libname), "nvrtc64_%d%d.dll", major, minor);
      nvrtc = load(libname);
      i++;
    }
  }
  if (!nvrtc) return fail(error_msg);

  cuDeviceGetAttribute(&cc_major, 75, dev);
  cuDeviceGetAttribute(&cc_minor, 76, dev);
  cuDevicePrimaryCtxRetain(&ctx, dev);
  snprintf(libname, sizeof(libname), "cublas64_%d%d.dll", major, minor);
  cublas = load(libname);
  /* 0.7.6 goes on without BLAS; pygpu.blas.gemm, which Theano's start-up runs, then fails */
  if (!cublas) return fail(error_msg);

  r = snprintf(bin_id, strlen("compute_") + 3, "compute_%d%d", cc_major, cc_minor);
  printf("winloader: device cc %d.%d -> detect_arch \"%s\" (snprintf returned %d)\n", cc_major, cc_minor, bin_id, r);

  {
    SYM(nvrtc, f_create, nvrtcCreateProgram);
    SYM(nvrtc, f_compile, nvrtcCompileProgram);
    SYM(nvrtc, f_size, nvrtcGetPTXSize);
    SYM(nvrtc, f_str, nvrtcGetPTX);
    SYM(nvrtc, f_size, nvrtcGetProgramLogSize);
    SYM(nvrtc, f_str, nvrtcGetProgramLog);
    SYM(nvrtc, f_errstr, nvrtcGetErrorString);
    SYM(nvrtc, f_ver, nvrtcVersion);
    int nv_major = 0, nv_minor = 0;
    char *ptx, *log;
    if (nvrtcVersion) nvrtcVersion(&nv_major, &nv_minor);
    printf("winloader: NVRTC %d.%d\n", nv_major, nv_minor);
    nvrtcCreateProgram(&prog, src, NULL, 0, NULL, NULL);
    opts[0] = "-arch";
    opts[1] = bin_id;
    r = nvrtcCompileProgram(prog, 2, opts);
    nvrtcGetProgramLogSize(prog, &size);
    log = malloc(size + 1);
    nvrtcGetProgramLog(prog, log);
    log[size] = 0;
    if (size > 1) printf("winloader: NVRTC log: %s\n", log);
    if (r != 0) {
      snprintf(error_msg, sizeof(error_msg), "nvrtcCompileProgram: %s", nvrtcGetErrorString(r));
      return fail(error_msg);
    }
    nvrtcGetPTXSize(prog, &size);
    ptx = malloc(size);
    nvrtcGetPTX(prog, ptx);
    cuLinkCreate(0, NULL, NULL, &link);
    r = cuLinkAddData(link, 1 /* CU_JIT_INPUT_PTX */, ptx, size, "kernel", 0, NULL, NULL);
    if (r != 0) {
      const char *name = "?";
      cuGetErrorName(r, &name);
      snprintf(error_msg, sizeof(error_msg), "cuLinkAddData: %s", name);
      return fail(error_msg);
    }
    cuLinkComplete(link, &cubin, &cubin_size);
  }
  {
    SYM(cublas, f_handle, cublasCreate_v2);
    if (!cublasCreate_v2) return fail("cublas64: no cublasCreate_v2");
    r = cublasCreate_v2(&handle);
    printf("winloader: cublasCreate_v2 -> %d\n", r);
    if (r != 0) return fail("cublasCreate: (cublas) Library not initialized");
  }
  printf("RESULT ok\n");
  return 0;
}
