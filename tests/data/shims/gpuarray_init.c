/* Loads a libgpuarray build (libgpuarray.dll under Wine, libgpuarray.so on Linux) and opens
   a CUDA context the way pygpu.init("cuda0") does; prints gpucontext_init's result and
   libgpuarray's error text (without a driver: which library it could not load). */
#include <stdio.h>
#ifdef _WIN32
#include <windows.h>
static void *open_lib(const char *n) { return (void *)LoadLibraryA(n); }
static void *sym(void *h, const char *n) { return (void *)GetProcAddress((HMODULE)h, n); }
#else
#include <dlfcn.h>
static void *open_lib(const char *n) { return dlopen(n, RTLD_NOW | RTLD_LOCAL); }
static void *sym(void *h, const char *n) { return dlsym(h, n); }
#endif

int main(int argc, char **argv) {
  void *lib, *props = NULL, *ctx = NULL;
  int (*props_new)(void **);
  int (*init)(void **, const char *, void *);
  const char *(*error)(void *, int);
  int r;
  if (argc != 2 || !(lib = open_lib(argv[1]))) { printf("cannot load %s\n", argc > 1 ? argv[1] : "?"); return 2; }
  props_new = (int (*)(void **))sym(lib, "gpucontext_props_new");
  init = (int (*)(void **, const char *, void *))sym(lib, "gpucontext_init");
  error = (const char *(*)(void *, int))sym(lib, "gpucontext_error");
  if (!props_new || !init || !error) { printf("missing symbols\n"); return 2; }
  props_new(&props);
  r = init(&ctx, "cuda", props);
  printf("gpucontext_init=%d: %s\n", r, r ? error(NULL, r) : "ok");
  return 0;
}
