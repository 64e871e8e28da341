/* Test-only PMPI interposer (LD_PRELOAD): a fabric that drops collectives. Each collective of
 * floats (MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block, MPI_Alltoall, MPI_Bcast,
 * MPI_Reduce, MPI_Gather, MPI_Scatter, MPI_Sendrecv, MPI_Sendrecv_replace) whose count (per rank, as collbench's table shows it) is COLLBENCH_TEST_DROP_COUNT
 * returns MPI_SUCCESS at once and writes nothing; with COLLBENCH_TEST_DROP_FROM=K, from the
 * Kth such call on (the first K-1 pass: a fabric that stops writing mid-sweep). With
 * COLLBENCH_TEST_DROP_WHEN=unwatched only such a call whose output does not start with a NaN or
 * an infinity: collbench poisons a float collective's output so before each check
 * (collectives/pattern_rule.h, poison_bits), so its checks go through and every other call
 * (warm-ups, timed samples) is dropped. Each rank decides alone: meant for an out-of-place
 * allreduce, whose every rank's output is poisoned. The control plane (bytes, int64 sums,
 * double maxima) always passes. Built by the tests. */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static long matched; /* matching calls so far */

/* The settings, read once: a dropped call costs next to nothing, as a fabric's would. */
static struct {
  int read, count, unwatched;
  long from;
} drops;

/* Whether to drop this call, whose output starts at `output`. */
static int drop(int count, MPI_Datatype type, const void *output) {
  if (!drops.read) {
    const char *count_text = getenv("COLLBENCH_TEST_DROP_COUNT");
    const char *from = getenv("COLLBENCH_TEST_DROP_FROM");
    const char *when = getenv("COLLBENCH_TEST_DROP_WHEN");
    drops.count = count_text ? atoi(count_text) : -1;
    drops.from = from ? atol(from) : 1;
    drops.unwatched = when && strcmp(when, "unwatched") == 0;
    drops.read = 1;
  }
  if (type != MPI_FLOAT || count != drops.count || ++matched < drops.from) return 0;
  return !drops.unwatched || isfinite(*(const float *)output);
}

int MPI_Allreduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  if (drop(count, type, recv)) return MPI_SUCCESS;
  return PMPI_Allreduce(send, recv, count, type, op, comm);
}

int MPI_Allgather(const void *send, int send_count, MPI_Datatype send_type, void *recv,
                  int recv_count, MPI_Datatype recv_type, MPI_Comm comm) {
  if (drop(recv_count, recv_type, recv)) return MPI_SUCCESS;
  return PMPI_Allgather(send, send_count, send_type, recv, recv_count, recv_type, comm);
}

int MPI_Reduce_scatter_block(const void *send, void *recv, int count, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
  if (drop(count, type, recv)) return MPI_SUCCESS;
  return PMPI_Reduce_scatter_block(send, recv, count, type, op, comm);
}

int MPI_Alltoall(const void *send, int send_count, MPI_Datatype send_type, void *recv,
                 int recv_count, MPI_Datatype recv_type, MPI_Comm comm) {
  if (drop(recv_count, recv_type, recv)) return MPI_SUCCESS;
  return PMPI_Alltoall(send, send_count, send_type, recv, recv_count, recv_type, comm);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (drop(count, type, buffer)) return MPI_SUCCESS;
  return PMPI_Bcast(buffer, count, type, root, comm);
}

int MPI_Reduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm) {
  if (drop(count, type, recv)) return MPI_SUCCESS;
  return PMPI_Reduce(send, recv, count, type, op, root, comm);
}

int MPI_Gather(const void *send, int send_count, MPI_Datatype send_type, void *recv,
               int recv_count, MPI_Datatype recv_type, int root, MPI_Comm comm) {
  if (drop(send_count, send_type, recv)) return MPI_SUCCESS;
  return PMPI_Gather(send, send_count, send_type, recv, recv_count, recv_type, root, comm);
}

int MPI_Scatter(const void *send, int send_count, MPI_Datatype send_type, void *recv,
                int recv_count, MPI_Datatype recv_type, int root, MPI_Comm comm) {
  /* In place, the root's share stays in its input. */
  if (drop(send_count, send_type, recv == MPI_IN_PLACE ? send : recv)) return MPI_SUCCESS;
  return PMPI_Scatter(send, send_count, send_type, recv, recv_count, recv_type, root, comm);
}

int MPI_Sendrecv(const void *send, int send_count, MPI_Datatype send_type, int destination,
                 int send_tag, void *recv, int recv_count, MPI_Datatype recv_type, int source,
                 int recv_tag, MPI_Comm comm, MPI_Status *status) {
  if (drop(recv_count, recv_type, recv)) return MPI_SUCCESS;
  return PMPI_Sendrecv(send, send_count, send_type, destination, send_tag, recv, recv_count,
                       recv_type, source, recv_tag, comm, status);
}

int MPI_Sendrecv_replace(void *buffer, int count, MPI_Datatype type, int destination,
                         int send_tag, int source, int recv_tag, MPI_Comm comm,
                         MPI_Status *status) {
  if (drop(count, type, buffer)) return MPI_SUCCESS;
  return PMPI_Sendrecv_replace(buffer, count, type, destination, send_tag, source, recv_tag, comm,
                               status);
}
