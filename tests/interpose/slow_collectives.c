/* Test-only PMPI interposer (LD_PRELOAD): a slower collective library. Every MPI_Allreduce
 * takes COLLBENCH_TEST_SLOWDOWN (a fraction: 0.5 is half as long again) longer than it did: the
 * rank spins after the call for that share of the call's own duration, as slower code would.
 * Allgather and reduce-scatter are left alone. Built by the tests. */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

static double seconds_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

static double slowdown(void) {
  static double fraction = -1;
  if (fraction < 0) {
    const char *text = getenv("COLLBENCH_TEST_SLOWDOWN");
    fraction = text ? atof(text) : 0;
  }
  return fraction;
}

int MPI_Allreduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  const double start = seconds_now();
  const int result = PMPI_Allreduce(send, recv, count, type, op, comm);
  const double until = start + (seconds_now() - start) * (1 + slowdown());
  while (seconds_now() < until) {
  }
  return result;
}
