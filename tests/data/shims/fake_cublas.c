/* A stand-in cuBLAS for the forwarder's test (the real one is 400+ MB): cublasCreate_v2
   hands out a known handle, cublasSgemm_v2 returns 0 only when all 14 arguments arrive as
   the harness passed them (the forwarder's stubs must not touch registers or stack). */
#ifdef _WIN32
#define EXPORT __declspec(dllexport)
#else
#define EXPORT __attribute__((visibility("default")))
#endif
EXPORT int cublasCreate_v2(void **h) { *h = (void *)0x5eed; return 0; }
EXPORT int cublasSgemm_v2(void *h, int ta, int tb, int m, int n, int k, const float *alpha,
                          const float *A, int lda, const float *B, int ldb, const float *beta,
                          float *C, int ldc) {
  int bad = 0;
  bad |= h != (void *)0x5eed;
  bad |= ta != 1 || tb != 2 || m != 3 || n != 4 || k != 5 || lda != 6 || ldb != 7 || ldc != 8;
  bad |= *alpha != 1.5f || *beta != 0.5f || !A || !B || !C;
  return bad ? 99 : 0;
}
