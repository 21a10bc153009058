/* Test driver for theano-gpu-config's shims, built for Linux (gcc) and Windows (mingw-w64,
   run under Wine). It calls them the way libgpuarray 0.7.6 does.
     harness nvrtc LIB ARCH   nvrtcCreateProgram + nvrtcCompileProgram({"-arch", ARCH}) of a
                              small kernel; prints the result and the PTX's .target line
     harness cublas LIB       a call before cublasCreate_v2, cublasCreate_v2, then
                              cublasSgemm_v2 with 14 distinct arguments (stack-passed ones
                              included); prints what the library returned */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
static void *open_lib(const char *n) { return (void *)LoadLibraryA(n); }
static void *sym(void *h, const char *n) { return (void *)GetProcAddress((HMODULE)h, n); }
#else
#include <dlfcn.h>
static void *open_lib(const char *n) { return dlopen(n, RTLD_NOW | RTLD_LOCAL); }
static void *sym(void *h, const char *n) { return dlsym(h, n); }
#endif

static const char *KERNEL =
    "extern \"C\" __global__ void k(float *a) { a[threadIdx.x] *= 2.0f; }\n";

static int nvrtc(void *lib, const char *arch) {
  int (*create)(void **, const char *, const char *, int, const char **, const char **) =
      (int (*)(void **, const char *, const char *, int, const char **, const char **))sym(lib, "nvrtcCreateProgram");
  int (*compile)(void *, int, const char **) = (int (*)(void *, int, const char **))sym(lib, "nvrtcCompileProgram");
  int (*size)(void *, size_t *) = (int (*)(void *, size_t *))sym(lib, "nvrtcGetPTXSize");
  int (*get)(void *, char *) = (int (*)(void *, char *))sym(lib, "nvrtcGetPTX");
  int (*logsize)(void *, size_t *) = (int (*)(void *, size_t *))sym(lib, "nvrtcGetProgramLogSize");
  int (*getlog)(void *, char *) = (int (*)(void *, char *))sym(lib, "nvrtcGetProgramLog");
  void *prog = NULL;
  const char *opts[2];
  size_t n = 0;
  char *text, *target;
  int r;
  if (!create || !compile || !size || !get || !logsize || !getlog) { printf("missing symbols\n"); return 2; }
  opts[0] = "-arch";
  opts[1] = arch;
  r = create(&prog, KERNEL, "k.cu", 0, NULL, NULL);
  if (r) { printf("create=%d\n", r); return 1; }
  r = compile(prog, 2, opts);
  printf("compile=%d\n", r);
  if (r) {
    if (!logsize(prog, &n) && n > 1 && (text = (char *)calloc(n + 1, 1)) && !getlog(prog, text))
      printf("log=%s\n", strtok(text, "\n"));
    return 1;
  }
  size(prog, &n);
  text = (char *)calloc(n + 1, 1);
  get(prog, text);
  target = strstr(text, ".target ");
  printf("%s\n", target ? strtok(target, "\n") : "no .target");
  return 0;
}

typedef int (*sgemm_t)(void *, int, int, int, int, int, const float *, const float *, int,
                       const float *, int, const float *, float *, int);

static int cublas(void *lib) {
  int (*create)(void **) = (int (*)(void **))sym(lib, "cublasCreate_v2");
  sgemm_t sgemm = (sgemm_t)sym(lib, "cublasSgemm_v2");
  float alpha = 1.5f, beta = 0.5f, a[1], b[1], c[1];
  void *handle = NULL;
  int r;
  if (!create || !sgemm) { printf("missing symbols\n"); return 2; }
  printf("before=%d\n", sgemm(NULL, 0, 0, 0, 0, 0, NULL, NULL, 0, NULL, 0, NULL, NULL, 0));
  r = create(&handle);
  printf("create=%d handle=%s\n", r, handle == (void *)0x5eed ? "ok" : "wrong");
  printf("sgemm=%d\n", sgemm(handle, 1, 2, 3, 4, 5, &alpha, a, 6, b, 7, &beta, c, 8));
  return 0;
}

int main(int argc, char **argv) {
  void *lib;
  if (argc < 3) { fprintf(stderr, "usage: harness nvrtc LIB ARCH | harness cublas LIB\n"); return 2; }
  if (!(lib = open_lib(argv[2]))) { printf("cannot load %s\n", argv[2]); return 2; }
  if (!strcmp(argv[1], "nvrtc") && argc == 4) return nvrtc(lib, argv[3]);
  if (!strcmp(argv[1], "cublas")) return cublas(lib);
  return 2;
}
