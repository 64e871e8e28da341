/* Test-only CUDA runtime interposer (LD_PRELOAD), for the stand-in or a real runtime: counts
 * this process's cudaGraphLaunch calls and, at exit, appends the count as a line to
 * COLLBENCH_TEST_COUNT_FILE (one line per process that launched a graph). Built by
 * tests/CMakeLists.txt. */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static long launches;

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  ++launches;
  cudaError_t (*real)(cudaGraphExec_t, cudaStream_t) = dlsym(RTLD_NEXT, "cudaGraphLaunch");
  return real(exec, stream);
}

__attribute__((destructor)) static void write_count(void) {
  const char *path = getenv("COLLBENCH_TEST_COUNT_FILE");
  if (!launches || !path) return;
  FILE *out = fopen(path, "a");
  if (!out) return;
  fprintf(out, "%ld\n", launches);
  fclose(out);
}
