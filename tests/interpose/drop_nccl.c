/* Test-only NCCL interposer (LD_PRELOAD), drop_collectives.c's twin for NCCL, real or the
 * stand-in: each collective of floats (ncclAllReduce, ncclAllGather, ncclReduceScatter,
 * ncclAlltoAll, ncclBroadcast, ncclReduce, ncclGather, ncclScatter) and each ncclSend and
 * ncclRecv of floats (a sendrecv's; the control plane's are bytes) whose count (per rank, as collbench's table shows it)
 * is COLLBENCH_TEST_DROP_COUNT returns ncclSuccess at once, enqueueing nothing; with
 * COLLBENCH_TEST_DROP_FROM=K, from the Kth such call on. The control plane (bytes, int64
 * sums, double maxima) always passes. Built by tests/CMakeLists.txt. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <nccl.h>
#include <stdlib.h>

static long matched; /* matching calls so far */

/* The settings, read once: a dropped call costs next to nothing, as a fabric's would. */
static struct {
  int read;
  long long count;
  long from;
} drops;

static int drop(size_t count, ncclDataType_t type) {
  if (!drops.read) {
    const char *count_text = getenv("COLLBENCH_TEST_DROP_COUNT");
    const char *from = getenv("COLLBENCH_TEST_DROP_FROM");
    drops.count = count_text ? atoll(count_text) : -1;
    drops.from = from ? atol(from) : 1;
    drops.read = 1;
  }
  return type == ncclFloat32 && (long long)count == drops.count && ++matched >= drops.from;
}

/* The library's own definition of `name`: the next after this one in the search order. */
static void *next(const char *name) { return dlsym(RTLD_NEXT, name); }

ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, ncclDataType_t type,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  if (drop(count, type)) return ncclSuccess;
  ncclResult_t (*real)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                       cudaStream_t) = next("ncclAllReduce");
  return real(send, recv, count, type, op, comm, stream);
}

ncclResult_t ncclAllGather(const void *send, void *recv, size_t count, ncclDataType_t type,
                           ncclComm_t comm, cudaStream_t stream) {
  if (drop(count, type)) return ncclSuccess;
  ncclResult_t (*real)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t) =
      next("ncclAllGather");
  return real(send, recv, count, type, comm, stream);
}

ncclResult_t ncclReduceScatter(const void *send, void *recv, size_t count, ncclDataType_t type,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  if (drop(count, type)) return ncclSuccess;
  ncclResult_t (*real)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                       cudaStream_t) = next("ncclReduceScatter");
  return real(send, recv, count, type, op, comm, stream);
}

ncclResult_t ncclAlltoAll(const void *send, void *recv, size_t count, ncclDataType_t type,
                          ncclComm_t comm, cudaStream_t stream) {
  if (drop(count, type)) return ncclSuccess;
  ncclResult_t (*real)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t) =
      next("ncclAlltoAll");
  return real(send, recv, count, type, comm, stream);
}

ncclResult_t ncclBroadcast(const void *send, void *recv, size_t count, ncclDataType_t type,
                           int root, ncclComm_t comm, cudaStream_t stream) {
  if (drop(count, type)) return ncclSuccess;
  ncclResult_t (*real)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t,
                       cudaStream_t) = next("ncclBroadcast");
  return real(send, recv, count, type, root, comm, stream);
}

ncclResult_t ncclReduce(const void *send, void *recv, size_t count, ncclDataType_t type,
                        ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream) {
  if (drop(count, type)) return ncclSuccess;
  ncclResult_t (*real)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, int,
                       ncclComm_t, cudaStream_t) = next("ncclReduce");
  return real(send, recv, count, type, op, root, comm, stream);
}

ncclResult_t ncclGather(const void *send, void *recv, size_t count, ncclDataType_t type, int root,
                        ncclComm_t comm, cudaStream_t stream) {
  if (drop(count, type)) return ncclSuccess;
  ncclResult_t (*real)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t,
                       cudaStream_t) = next("ncclGather");
  return real(send, recv, count, type, root, comm, stream);
}

ncclResult_t ncclScatter(const void *send, void *recv, size_t count, ncclDataType_t type, int root,
                         ncclComm_t comm, cudaStream_t stream) {
  if (drop(count, type)) return ncclSuccess;
  ncclResult_t (*real)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t,
                       cudaStream_t) = next("ncclScatter");
  return real(send, recv, count, type, root, comm, stream);
}

ncclResult_t ncclSend(const void *send, size_t count, ncclDataType_t type, int peer,
                      ncclComm_t comm, cudaStream_t stream) {
  if (drop(count, type)) return ncclSuccess;
  ncclResult_t (*real)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) =
      next("ncclSend");
  return real(send, count, type, peer, comm, stream);
}

ncclResult_t ncclRecv(void *recv, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  if (drop(count, type)) return ncclSuccess;
  ncclResult_t (*real)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) =
      next("ncclRecv");
  return real(recv, count, type, peer, comm, stream);
}
