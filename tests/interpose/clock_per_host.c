/* Test-only interposer (LD_PRELOAD) for clock synchronisation on one kernel: each host of the
 * virtual cluster (a UTS namespace) reads its hostname as its boot id, so collbench takes each
 * for a clock of its own and measures it against rank 0's by ping-pong, as on separate machines
 * (the true offset is zero). It also counts each rank's MPI_Send and MPI_Recv by peer, and
 * writes them at MPI_Finalize to COLLBENCH_TEST_COUNT_FILE.<world rank> as "send PEER N" and
 * "recv PEER N" lines. Built by the tests. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { kMostPeers = 1024 };
static long sends[kMostPeers], receives[kMostPeers];

static FILE *hostname_as_boot_id(const char *path, const char *mode, const char *real) {
  static char id[256];
  if (strcmp(path, "/proc/sys/kernel/random/boot_id") == 0 &&
      gethostname(id, sizeof id - 2) == 0) {
    strcat(id, "\n");
    /* A real descriptor: the C++ stream reads through it, which fmemopen's FILE lacks. */
    const int fd = memfd_create("boot_id", 0);
    if (fd < 0 || write(fd, id, strlen(id)) != (ssize_t)strlen(id) || lseek(fd, 0, SEEK_SET) != 0)
      return NULL;
    return fdopen(fd, "r");
  }
  typedef FILE *(*Open)(const char *, const char *);
  const Open open = (Open)dlsym(RTLD_NEXT, real);
  return open(path, mode);
}

FILE *fopen(const char *path, const char *mode) { return hostname_as_boot_id(path, mode, "fopen"); }
FILE *fopen64(const char *path, const char *mode) {
  return hostname_as_boot_id(path, mode, "fopen64");
}

int MPI_Send(const void *data, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm) {
  if (peer >= 0 && peer < kMostPeers) ++sends[peer];
  return PMPI_Send(data, count, type, peer, tag, comm);
}

int MPI_Recv(void *data, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
             MPI_Status *status) {
  if (peer >= 0 && peer < kMostPeers) ++receives[peer];
  return PMPI_Recv(data, count, type, peer, tag, comm, status);
}

int MPI_Finalize(void) {
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *path = getenv("COLLBENCH_TEST_COUNT_FILE");
  if (path) {
    char name[4096];
    snprintf(name, sizeof name, "%s.%d", path, rank);
    FILE *out = fopen(name, "w");
    if (out) {
      for (int peer = 0; peer < kMostPeers; ++peer) {
        if (sends[peer]) fprintf(out, "send %d %ld\n", peer, sends[peer]);
        if (receives[peer]) fprintf(out, "recv %d %ld\n", peer, receives[peer]);
      }
      fclose(out);
    }
  }
  return PMPI_Finalize();
}
