/* Test-only PMPI interposer (LD_PRELOAD): on one rank, makes MPI calls return late.
 *
 *   COLLBENCH_TEST_DELAY_RANK  the world rank to slow down
 *   COLLBENCH_TEST_DELAY_US    how long each affected call returns late, microseconds
 *   COLLBENCH_TEST_DELAY_EVERY delay only every Nth affected call (default 1: all)
 *   COLLBENCH_TEST_DELAY_WHAT  "data": MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block
 *                              (the rank finishes its collectives late: a straggler);
 *                              "bcast": MPI_Bcast (the rank learns rank 0's word late)
 *
 * The delay sleeps, so ranks that share a core with it keep running. Built by the tests. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int affected(const char *what) {
  const char *rank_text = getenv("COLLBENCH_TEST_DELAY_RANK");
  const char *chosen = getenv("COLLBENCH_TEST_DELAY_WHAT");
  if (!rank_text || !chosen || strcmp(chosen, what) != 0) return 0;
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank == atoi(rank_text);
}

static void delay(const char *what) {
  static long calls = 0;
  if (!affected(what)) return;
  const char *every_text = getenv("COLLBENCH_TEST_DELAY_EVERY");
  const long every = every_text ? atol(every_text) : 1;
  if (++calls % (every > 0 ? every : 1) != 0) return;
  const char *us_text = getenv("COLLBENCH_TEST_DELAY_US");
  const long us = us_text ? atol(us_text) : 0;
  struct timespec pause = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&pause, &pause) != 0) {
  }
}

int MPI_Allreduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  const int result = PMPI_Allreduce(send, recv, count, type, op, comm);
  delay("data");
  return result;
}

int MPI_Allgather(const void *send, int send_count, MPI_Datatype send_type, void *recv,
                  int recv_count, MPI_Datatype recv_type, MPI_Comm comm) {
  const int result =
      PMPI_Allgather(send, send_count, send_type, recv, recv_count, recv_type, comm);
  delay("data");
  return result;
}

int MPI_Reduce_scatter_block(const void *send, void *recv, int count, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
  const int result = PMPI_Reduce_scatter_block(send, recv, count, type, op, comm);
  delay("data");
  return result;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const int result = PMPI_Bcast(buffer, count, type, root, comm);
  delay("bcast");
  return result;
}
