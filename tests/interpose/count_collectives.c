/* Test-only PMPI interposer (LD_PRELOAD): counts, on world rank 0, the collectives the job
 * calls on any communicator (MPI_Gather, MPI_Allreduce, MPI_Bcast), and writes them at
 * MPI_Finalize to COLLBENCH_TEST_COUNT_FILE as "gather N\nallreduce N\nbcast N\n". Built by the
 * tests. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long gathers, allreduces, bcasts;

int MPI_Gather(const void *send, int send_count, MPI_Datatype send_type, void *recv,
               int recv_count, MPI_Datatype recv_type, int root, MPI_Comm comm) {
  ++gathers;
  return PMPI_Gather(send, send_count, send_type, recv, recv_count, recv_type, root, comm);
}

int MPI_Allreduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  ++allreduces;
  return PMPI_Allreduce(send, recv, count, type, op, comm);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  ++bcasts;
  return PMPI_Bcast(buffer, count, type, root, comm);
}

int MPI_Finalize(void) {
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *path = getenv("COLLBENCH_TEST_COUNT_FILE");
  if (rank == 0 && path) {
    FILE *out = fopen(path, "w");
    if (out) {
      fprintf(out, "gather %ld\nallreduce %ld\nbcast %ld\n", gathers, allreduces, bcasts);
      fclose(out);
    }
  }
  return PMPI_Finalize();
}
