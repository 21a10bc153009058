/* cuBLAS forwarder for the published, unpatched libgpuarray 0.7.6.
 *
 * Installed as cublas64_91.dll (Windows) or libcublas.so (Linux). On Windows 0.7.6 loads
 * cublas64_<major><minor>.dll of the NVRTC it found: through the NVRTC shim that is 9.1,
 * so cublas64_91.dll; CUDA >= 11 names the DLL cublas64_11/12/13.dll. On Linux it dlopens
 * libcublas.so, which CUDA >= 12 runtime packages (conda-forge libcublas, PyPI wheels)
 * do not ship: only libcublas.so.12/.13.
 *
 * Why a run-time forwarder and not a .def export forwarder ("cublasCreate_v2 =
 * cublas64_11.cublasCreate_v2"): a .def names one DLL at link time, so the CUDA 11.8 env
 * (cublas64_11.dll) and the Blackwell env (cublas64_12.dll) would need two builds, and a
 * missing target makes Windows refuse to load cublas64_91.dll itself with an error that
 * names neither DLL. This file finds the cuBLAS that is there when the first handle is
 * created (GPUFORGE_CUBLAS if set; else in its own folder, then by the normal search:
 * 13, 12, 11), says so on stderr if there is none, and serves Linux as well.
 *
 * How: each of the 21 functions 0.7.6 loads (src/loaders/libcublas.fn) is a one-instruction
 * stub, `jmp *slot(%rip)`, that leaves every argument register and the stack as the caller
 * set them, on both x86-64 calling conventions (Microsoft x64 and System V), so no
 * signature is restated here. cublasCreate_v2, which libgpuarray calls before any other
 * (gpublas_setup), fills the slots. Until then each slot points at not_initialized, which
 * returns CUBLAS_STATUS_NOT_INITIALIZED: every one of these functions returns a
 * cublasStatus_t (int) and the caller cleans up its own arguments on x86-64.
 *
 * Build (theano-gpu-config's activation does this with the environment's gcc):
 *   x86_64-w64-mingw32-gcc -shared -O2 -o cublas64_91.dll cublas_forwarder.c
 *   gcc -shared -fPIC -O2 -o libcublas.so cublas_forwarder.c -ldl
 */
#ifndef _WIN32
#define _GNU_SOURCE /* dladdr */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__x86_64__)
#error "the stubs are x86-64 assembly (Windows x64 and Linux x86-64 only)"
#endif

#ifdef _WIN32
#include <windows.h>
#define EXPORT __declspec(dllexport)
#define SEP '\\'
static void *open_lib(const char *n) { return (void *)LoadLibraryA(n); }
static void *sym(void *h, const char *n) { return (void *)GetProcAddress((HMODULE)h, n); }
static const char *libs[] = {"cublas64_13.dll", "cublas64_12.dll", "cublas64_11.dll", NULL};
static int own_path(char *buf, size_t size) {
  HMODULE self = NULL;
  DWORD n;
  if (!GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                          GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                          (LPCSTR)(void *)own_path, &self))
    return 0;
  n = GetModuleFileNameA(self, buf, (DWORD)size);
  return n > 0 && n < size;
}
/* PE: export the stub (the .drectve section is what __declspec(dllexport) emits). */
#define STUB_ASM(i, name)                                                          \
  ".globl " #name "\n.def " #name "; .scl 2; .type 32; .endef\n" #name ":\n"      \
  "  jmp *gpuforge_cublas_slots+8*" #i "(%rip)\n"                                 \
  ".section .drectve\n.ascii \" -export:" #name "\"\n.text\n"
#else
#include <dlfcn.h>
#define EXPORT __attribute__((visibility("default")))
#define SEP '/'
static void *open_lib(const char *n) { return dlopen(n, RTLD_NOW | RTLD_LOCAL); }
static void *sym(void *h, const char *n) { return dlsym(h, n); }
static const char *libs[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", NULL};
static int own_path(char *buf, size_t size) {
  Dl_info info;
  if (!dladdr((void *)own_path, &info) || !info.dli_fname || strlen(info.dli_fname) >= size)
    return 0;
  strcpy(buf, info.dli_fname);
  return 1;
}
#define STUB_ASM(i, name)                                                          \
  ".globl " #name "\n.type " #name ", @function\n" #name ":\n"                   \
  "  jmp *gpuforge_cublas_slots+8*" #i "(%rip)\n.size " #name ", .-" #name "\n"
#endif

#define CUBLAS_STATUS_NOT_INITIALIZED 1

/* Slot 0 is cublasCreate_v2 itself (a C function below); 1..20 are the stubs. */
#define STUBS(X)                                                                   \
  X(1, cublasDestroy_v2) X(2, cublasSetStream_v2) X(3, cublasSetPointerMode_v2)     \
  X(4, cublasGetPointerMode_v2) X(5, cublasSetAtomicsMode) X(6, cublasSdot_v2)      \
  X(7, cublasDdot_v2) X(8, cublasSgemm_v2) X(9, cublasDgemm_v2) X(10, cublasSgemv_v2) \
  X(11, cublasDgemv_v2) X(12, cublasSger_v2) X(13, cublasDger_v2)                   \
  X(14, cublasSgemmEx) X(15, cublasGemmEx) X(16, cublasSgemmBatched)                \
  X(17, cublasDgemmBatched) X(18, cublasHgemmStridedBatched)                        \
  X(19, cublasSgemmStridedBatched) X(20, cublasDgemmStridedBatched)
#define NSLOTS 21
#define NAME_ENTRY(i, name) #name,
static const char *slot_names[NSLOTS] = {"cublasCreate_v2", STUBS(NAME_ENTRY)};

static int not_initialized(void) { return CUBLAS_STATUS_NOT_INITIALIZED; }

#ifdef _WIN32
#define SLOTS_ATTR __attribute__((used)) /* not exported: no dllexport */
#else
#define SLOTS_ATTR __attribute__((used, visibility("hidden")))
#endif
#define INIT_ENTRY(i, name) (void *)not_initialized,
SLOTS_ATTR void *gpuforge_cublas_slots[NSLOTS] = {
    (void *)not_initialized, STUBS(INIT_ENTRY)};

#define EMIT_STUB(i, name) STUB_ASM(i, name)
__asm__(".text\n" STUBS(EMIT_STUB));

static void *load_real(void) {
  char path[4096];
  const char *env = getenv("GPUFORGE_CUBLAS");
  char *slash;
  int i;
  if (env && *env) {
    void *h = open_lib(env);
    if (!h) fprintf(stderr, "cublas forwarder: cannot load GPUFORGE_CUBLAS=%s\n", env);
    return h;
  }
  if (own_path(path, sizeof(path)) && (slash = strrchr(path, SEP)) != NULL) {
    for (i = 0; libs[i]; i++) {
      void *h;
      if ((size_t)(slash - path) + 1 + strlen(libs[i]) >= sizeof(path)) break;
      strcpy(slash + 1, libs[i]);
      if ((h = open_lib(path)) != NULL) return h;
    }
  }
  for (i = 0; libs[i]; i++) {
    void *h = open_lib(libs[i]);
    if (h) return h;
  }
  fprintf(stderr, "cublas forwarder: no cuBLAS found (%s, %s or %s; or set GPUFORGE_CUBLAS)\n",
          libs[0], libs[1], libs[2]);
  return NULL;
}

EXPORT int cublasCreate_v2(void **handle) {
  static void *real;
  int i;
  if (!real) {
    if ((real = load_real()) == NULL) return CUBLAS_STATUS_NOT_INITIALIZED;
    for (i = 0; i < NSLOTS; i++) {
      void *f = sym(real, slot_names[i]);
      if (f) gpuforge_cublas_slots[i] = f;
    }
  }
  return ((int (*)(void **))gpuforge_cublas_slots[0])(handle);
}
