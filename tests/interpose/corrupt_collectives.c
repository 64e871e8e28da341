/* Test-only PMPI interposer (LD_PRELOAD): a fabric that damages data. On the job's last rank,
 * flips one byte of every collective's result (MPI_Bcast, MPI_Allreduce, MPI_Allgather,
 * MPI_Reduce_scatter_block, MPI_Alltoall, MPI_Scatter, MPI_Sendrecv, MPI_Sendrecv_replace, and
 * MPI_Gather where that rank is the root), and of MPI_Reduce's on its root, whichever rank that
 * is (and of a float MPI_Gather's); with
 * COLLBENCH_TEST_CORRUPT_WHAT=float, of the float collectives' only: what a float sweep
 * measures, while the control plane (MPI_Bcast, MPI_Gather, int64 sums) stays whole; with
 * COLLBENCH_TEST_CORRUPT_WHAT=max, of the control plane's double maxima only. Built by the
 * tests. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static int only(const char *kind) {
  const char *what = getenv("COLLBENCH_TEST_CORRUPT_WHAT");
  return what && strcmp(what, kind) == 0;
}

/* Every collective, when no kind is named. */
static int everything(void) { return !only("float") && !only("max"); }

static int last_rank(void) {
  int rank = 0, size = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  return rank == size - 1;
}

static void flip_here(void *buffer, int count) {
  if (count > 0 && buffer) ((unsigned char *)buffer)[0] ^= 0x5A;
}

static void flip(void *buffer, int count) {
  if (last_rank()) flip_here(buffer, count);
}

static void flip_typed(void *buffer, int count, MPI_Datatype type) {
  if (everything() || (only("float") && type == MPI_FLOAT)) flip(buffer, count);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const int result = PMPI_Bcast(buffer, count, type, root, comm);
  flip_typed(buffer, count, type);
  return result;
}

int MPI_Alltoall(const void *send, int send_count, MPI_Datatype send_type, void *recv,
                 int recv_count, MPI_Datatype recv_type, MPI_Comm comm) {
  const int result =
      PMPI_Alltoall(send, send_count, send_type, recv, recv_count, recv_type, comm);
  flip_typed(recv, recv_count, recv_type);
  return result;
}

int MPI_Reduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm) {
  const int result = PMPI_Reduce(send, recv, count, type, op, root, comm);
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (rank == root && (everything() || (only("float") && type == MPI_FLOAT)))
    flip_here(recv, count);
  return result;
}

int MPI_Allreduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  const int result = PMPI_Allreduce(send, recv, count, type, op, comm);
  if (only("max") && type == MPI_DOUBLE && op == MPI_MAX) flip(recv, count);
  flip_typed(recv, count, type);
  return result;
}

int MPI_Allgather(const void *send, int send_count, MPI_Datatype send_type, void *recv,
                  int recv_count, MPI_Datatype recv_type, MPI_Comm comm) {
  const int result =
      PMPI_Allgather(send, send_count, send_type, recv, recv_count, recv_type, comm);
  flip_typed(recv, recv_count, recv_type);
  return result;
}

int MPI_Reduce_scatter_block(const void *send, void *recv, int count, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
  const int result = PMPI_Reduce_scatter_block(send, recv, count, type, op, comm);
  flip_typed(recv, count, type);
  return result;
}

int MPI_Gather(const void *send, int send_count, MPI_Datatype send_type, void *recv,
               int recv_count, MPI_Datatype recv_type, int root, MPI_Comm comm) {
  const int result =
      PMPI_Gather(send, send_count, send_type, recv, recv_count, recv_type, root, comm);
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (rank == root && everything()) flip(recv, recv_count);
  if (rank == root && only("float") && recv_type == MPI_FLOAT) flip_here(recv, recv_count);
  return result;
}

int MPI_Scatter(const void *send, int send_count, MPI_Datatype send_type, void *recv,
                int recv_count, MPI_Datatype recv_type, int root, MPI_Comm comm) {
  const int result =
      PMPI_Scatter(send, send_count, send_type, recv, recv_count, recv_type, root, comm);
  if (recv != MPI_IN_PLACE) flip_typed(recv, recv_count, recv_type);
  return result;
}

int MPI_Sendrecv(const void *send, int send_count, MPI_Datatype send_type, int destination,
                 int send_tag, void *recv, int recv_count, MPI_Datatype recv_type, int source,
                 int recv_tag, MPI_Comm comm, MPI_Status *status) {
  const int result = PMPI_Sendrecv(send, send_count, send_type, destination, send_tag, recv,
                                   recv_count, recv_type, source, recv_tag, comm, status);
  flip_typed(recv, recv_count, recv_type);
  return result;
}

int MPI_Sendrecv_replace(void *buffer, int count, MPI_Datatype type, int destination,
                         int send_tag, int source, int recv_tag, MPI_Comm comm,
                         MPI_Status *status) {
  const int result = PMPI_Sendrecv_replace(buffer, count, type, destination, send_tag, source,
                                           recv_tag, comm, status);
  flip_typed(buffer, count, type);
  return result;
}
