/* gpuforge's mock cuBLAS: the 21 functions libgpuarray 0.7.6 loads (src/loaders/libcublas.fn),
 * as libcublas.so or cublas64_NN.dll. NOT cuBLAS: every call returns CUBLAS_STATUS_SUCCESS and
 * computes nothing; it lets libgpuarray (and Theano's init, which runs a GEMM) get past
 * cublasCreate on the mock driver. The first call of each function is logged (MOCK_LOG). */
#include <stdio.h>
#include <stdlib.h>

#ifdef _WIN32
#define EXPORT __declspec(dllexport)
#else
#define EXPORT __attribute__((visibility("default")))
#endif

static void say(const char *name) {
  const char *path = getenv("MOCK_LOG");
  FILE *out = path ? fopen(path, "a") : NULL;
  fprintf(out ? out : stderr, "mockcublas: %s (a mock: nothing computed)\n", name);
  if (out) fclose(out);
}

static int handle_token;
EXPORT int cublasCreate_v2(void **h) { say("cublasCreate_v2"); *h = &handle_token; return 0; }
EXPORT int cublasGetPointerMode_v2(void *h, int *mode) { (void)h; *mode = 0; return 0; }
#define NOOP(name) EXPORT int name(void) { static int once; if (!once++) say(#name); return 0; }
NOOP(cublasDestroy_v2)
NOOP(cublasSetStream_v2)
NOOP(cublasSetPointerMode_v2)
NOOP(cublasSetAtomicsMode)
NOOP(cublasSdot_v2)
NOOP(cublasDdot_v2)
NOOP(cublasSgemm_v2)
NOOP(cublasDgemm_v2)
NOOP(cublasSgemv_v2)
NOOP(cublasDgemv_v2)
NOOP(cublasSger_v2)
NOOP(cublasDger_v2)
NOOP(cublasSgemmEx)
NOOP(cublasGemmEx)
NOOP(cublasSgemmBatched)
NOOP(cublasDgemmBatched)
NOOP(cublasHgemmStridedBatched)
NOOP(cublasSgemmStridedBatched)
NOOP(cublasDgemmStridedBatched)
