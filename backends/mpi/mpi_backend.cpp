#include "mpi_backend.h"

#include <mpi.h>

#include <string>

#include "mpi_communicator.h"

namespace collbench {
namespace {

class MpiBackend final : public Backend {
 public:
  MpiBackend() {
    // Only this thread calls MPI (the watchdog and a host load never do), and asking for more
    // than MPI_THREAD_SINGLE costs every call: Open MPI 4.1 then turns on its locks and atomics
    // (ompi_mpi_init: opal_set_using_threads once the level is not SINGLE). Measured on 2 ranks
    // of one host, osu_allreduce at 8 B-256 B read 0.47-0.62 us at SINGLE, its MPI_Init's, and
    // 0.58-0.85 us at FUNNELED (OMPI_MPI_THREAD_LEVEL=1), what collbench read at FUNNELED.
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    world_ = std::make_unique<mpi::MpiCommunicator>(MPI_COMM_WORLD);
  }
  ~MpiBackend() override {
    world_.reset();
    MPI_Finalize();
  }
  MpiBackend(const MpiBackend&) = delete;
  MpiBackend& operator=(const MpiBackend&) = delete;

  std::string name() const override { return "mpi"; }

  std::string version() const override {
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(text, &length);
    std::string version(text, length);
    while (!version.empty() && (version.back() == '\n' || version.back() == '\0'))
      version.pop_back();
    return version;
  }

  Communicator& world() override { return *world_; }


 private:
  void abort_job(int exit_code) override { MPI_Abort(MPI_COMM_WORLD, exit_code); }

  std::unique_ptr<mpi::MpiCommunicator> world_;
};

}  // namespace

std::unique_ptr<Backend> make_mpi_backend() { return std::make_unique<MpiBackend>(); }

void finalize_mpi_if_started() {
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Finalize();
}

}  // namespace collbench
