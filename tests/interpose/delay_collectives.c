/* Test-only PMPI interposer (LD_PRELOAD): on one rank, makes MPI calls return late.
 *
 *   COLLBENCH_TEST_DELAY_RANK  the world rank to slow down
 *   COLLBENCH_TEST_DELAY_US    how long each affected call returns late, microseconds
 *   COLLBENCH_TEST_DELAY_FRACTION  instead, late by this fraction of the call's own duration
 *                              (0.1: the collectives take 10% longer, at every size)
 *   COLLBENCH_TEST_DELAY_EVERY delay only every Nth affected call (default 1: all)
 *   COLLBENCH_TEST_DELAY_WHAT  "data": MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block
 *                              of floats (the rank finishes a float sweep's collectives late: a
 *                              straggler; the control plane's int64 sums and double maxima
 *                              stay on time);
 *                              "bcast": MPI_Bcast (the rank learns rank 0's word late)
 *
 * A delay in microseconds sleeps, so ranks that share a core with it keep running; a fraction
 * spins, as sub-microsecond sleeps are not to be had. Built by the tests. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Read once: the environment is long under mpirun, and reading it on every call would cost
 * more than a small collective takes. */
struct settings {
  int rank;            /* -1: no rank is slowed */
  const char *what;
  long every;
  int by_fraction;
  double fraction;
  long us;
};

static const struct settings *settings(void) {
  static struct settings read;
  static int ready = 0;
  if (ready) return &read;
  const char *rank_text = getenv("COLLBENCH_TEST_DELAY_RANK");
  const char *every_text = getenv("COLLBENCH_TEST_DELAY_EVERY");
  const char *fraction_text = getenv("COLLBENCH_TEST_DELAY_FRACTION");
  const char *us_text = getenv("COLLBENCH_TEST_DELAY_US");
  read.rank = rank_text ? atoi(rank_text) : -1;
  read.what = getenv("COLLBENCH_TEST_DELAY_WHAT");
  read.every = every_text && atol(every_text) > 0 ? atol(every_text) : 1;
  read.by_fraction = fraction_text != NULL;
  read.fraction = fraction_text ? atof(fraction_text) : 0;
  read.us = us_text ? atol(us_text) : 0;
  ready = 1;
  return &read;
}

static int affected(const struct settings *chosen, const char *what) {
  static int rank = -2;
  if (chosen->rank < 0 || !chosen->what || strcmp(chosen->what, what) != 0) return 0;
  if (rank == -2) PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank == chosen->rank;
}

static double now_s(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec + now.tv_nsec * 1e-9;
}

/* `begun`: when the affected call started, on now_s(). */
static void delay(const char *what, double begun) {
  static long calls = 0;
  const struct settings *chosen = settings();
  if (!affected(chosen, what)) return;
  if (++calls % chosen->every != 0) return;
  if (chosen->by_fraction) {
    const double ended = now_s();
    const double until = ended + chosen->fraction * (ended - begun);
    while (now_s() < until) {
    }
    return;
  }
  const long us = chosen->us;
  struct timespec pause = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&pause, &pause) != 0) {
  }
}

int MPI_Allreduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  const double begun = now_s();
  const int result = PMPI_Allreduce(send, recv, count, type, op, comm);
  if (type == MPI_FLOAT) delay("data", begun);
  return result;
}

int MPI_Allgather(const void *send, int send_count, MPI_Datatype send_type, void *recv,
                  int recv_count, MPI_Datatype recv_type, MPI_Comm comm) {
  const double begun = now_s();
  const int result =
      PMPI_Allgather(send, send_count, send_type, recv, recv_count, recv_type, comm);
  if (send_type == MPI_FLOAT) delay("data", begun);
  return result;
}

int MPI_Reduce_scatter_block(const void *send, void *recv, int count, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
  const double begun = now_s();
  const int result = PMPI_Reduce_scatter_block(send, recv, count, type, op, comm);
  if (type == MPI_FLOAT) delay("data", begun);
  return result;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const double begun = now_s();
  const int result = PMPI_Bcast(buffer, count, type, root, comm);
  delay("bcast", begun);
  return result;
}
