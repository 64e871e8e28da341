#include "backends/ucx/ucp_worker.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <ucp/api/ucp.h>

#include <algorithm>
#include <cstdio>
#include <regex>
#include <cstdlib>
#include <map>
#include <optional>
#include <vector>

#include "backends/communicator.h"
#include "backends/ucx/cuda_memory.h"

namespace collbench::ucx {
namespace {

void check(ucs_status_t status, const char* call) {
  if (status != UCS_OK) throw UcxError(fmt::format("{}: {}", call, ucs_status_string(status)));
}

// UCX's own reading of a setting, "" where it has none: what UCX_TLS and UCX_NET_DEVICES in the
// environment make of the defaults.
std::string config_value(ucp_config_t* config, const char* name) {
  char* text = nullptr;
  std::size_t length = 0;
  FILE* stream = open_memstream(&text, &length);
  if (!stream) return "";
  ucp_config_print(config, stream, nullptr, UCS_CONFIG_PRINT_CONFIG);
  std::fclose(stream);
  const std::string printed(text, length);
  std::free(text);
  const std::string key = fmt::format("UCX_{}=", name);
  const auto start = printed.find(key);
  if (start == std::string::npos) return "";
  const auto value = start + key.size();
  return printed.substr(value, printed.find('\n', value) - value);
}

class HostBuffer final : public MessageBuffer {
 public:
  HostBuffer(std::size_t bytes, std::byte fill) : data_(bytes, fill) {}
  std::span<std::byte> bytes() override { return data_; }

 private:
  std::vector<std::byte> data_;
};

// Empty when UCX and this process can move messages in `memory`; else why not.
std::string why_not(MessageMemory memory, ucp_context_h context) {
  if (memory == MessageMemory::host) return {};
  if (std::string why = why_no_cuda_memory(); !why.empty()) return why;
  ucp_context_attr_t attributes{};
  attributes.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES;
  check(ucp_context_query(context, &attributes), "ucp_context_query");
  if (!(attributes.memory_types & UCS_BIT(UCS_MEMORY_TYPE_CUDA)))
    return fmt::format("UCX {} here was built without CUDA and moves no GPU memory (Debian's "
                       "libucx is; point LD_LIBRARY_PATH at a UCX built --with-cuda)",
                       ucp_get_version_string());
  return {};
}

}  // namespace

std::string transports_of_lanes(const std::string& printed) {
  static const std::regex lane(R"(lane\[\d+\]:\s+\d+:([\w-]+/[^\s/]+?)(\.\d+)?\s)");
  std::vector<std::string> seen;
  for (auto it = std::sregex_iterator(printed.begin(), printed.end(), lane);
       it != std::sregex_iterator(); ++it)
    if (std::find(seen.begin(), seen.end(), (*it)[1].str()) == seen.end())
      seen.push_back((*it)[1].str());
  return fmt::format("{}", fmt::join(seen, ","));
}

struct UcpWorker::Impl {
  ucp_context_h context = nullptr;
  ucp_worker_h worker = nullptr;
  std::map<int, ucp_ep_h> endpoints;
  std::map<std::string, std::string> settings;
  MessageMemory memory = MessageMemory::host;
  // A transfer's requests; kept, so that the timed loop allocates nothing once it has grown.
  struct Posted {
    ucs_status_ptr_t request;
    bool receive;
  };
  std::vector<Posted> posted;

  ucp_ep_h endpoint(int peer, const char* call) const {
    const auto found = endpoints.find(peer);
    if (found == endpoints.end())
      throw UcxError(fmt::format("{}: peer {} is not connected", call, peer));
    return found->second;
  }
};

UcpWorker::UcpWorker(MessageMemory memory) : impl_(std::make_unique<Impl>()) {
  impl_->memory = memory;
  ucp_config_t* config = nullptr;
  check(ucp_config_read(nullptr, nullptr, &config), "ucp_config_read");
  for (const char* name : {"TLS", "NET_DEVICES"})
    impl_->settings[fmt::format("ucx_{}", name)] = config_value(config, name);
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_TAG;
  const ucs_status_t initialised = ucp_init(&params, config, &impl_->context);
  ucp_config_release(config);
  check(initialised, "ucp_init");
  if (const std::string why = why_not(memory, impl_->context); !why.empty()) {
    ucp_cleanup(impl_->context);
    throw BackendUnavailable(fmt::format("--memory {}: {}", name(memory), why));
  }
  ucp_worker_params_t worker_params{};
  worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  worker_params.thread_mode = UCS_THREAD_MODE_SINGLE;
  const ucs_status_t status = ucp_worker_create(impl_->context, &worker_params, &impl_->worker);
  if (status != UCS_OK) ucp_cleanup(impl_->context);
  check(status, "ucp_worker_create");
}

UcpWorker::~UcpWorker() {
  for (const auto& [peer, endpoint] : impl_->endpoints) {
    ucp_request_param_t close{};
    close.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    close.flags = UCP_EP_CLOSE_FLAG_FORCE;  // the peer may be gone: do not wait for it
    ucs_status_ptr_t request = ucp_ep_close_nbx(endpoint, &close);
    if (request != nullptr && !UCS_PTR_IS_ERR(request)) {
      while (ucp_request_check_status(request) == UCS_INPROGRESS)
        ucp_worker_progress(impl_->worker);
      ucp_request_free(request);
    }
  }
  ucp_worker_destroy(impl_->worker);
  ucp_cleanup(impl_->context);
}

std::vector<std::byte> UcpWorker::address() const {
  ucp_address_t* address = nullptr;
  std::size_t length = 0;
  check(ucp_worker_get_address(impl_->worker, &address, &length), "ucp_worker_get_address");
  const auto* bytes = reinterpret_cast<const std::byte*>(address);
  std::vector<std::byte> copy(bytes, bytes + length);
  ucp_worker_release_address(impl_->worker, address);
  return copy;
}

void UcpWorker::connect(int peer, std::span<const std::byte> address) {
  if (impl_->endpoints.contains(peer))
    throw UcxError(fmt::format("ucp_ep_create: peer {} is already connected", peer));
  ucp_ep_params_t params{};
  // No peer error handling: UCX 1.13 would give up shared memory for it (tcp/lo between two
  // workers of one host), and links must measure the transports applications get. A peer that
  // dies is the watchdog's, and the launcher's, to report.
  params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
  params.address = reinterpret_cast<const ucp_address_t*>(address.data());
  ucp_ep_h endpoint = nullptr;
  check(ucp_ep_create(impl_->worker, &params, &endpoint), "ucp_ep_create");
  impl_->endpoints.emplace(peer, endpoint);
}

void UcpWorker::transfer(int peer, std::span<const std::byte> out, int sends,
                         std::span<std::byte> in, int receives, std::uint64_t tag) {
  const ucp_ep_h endpoint = sends > 0 ? impl_->endpoint(peer, "ucp_tag_send_nbx") : nullptr;
  std::vector<Impl::Posted>& posted = impl_->posted;
  posted.clear();
  ucs_status_t failed = UCS_OK;
  const char* failed_call = "";
  const auto fail = [&](ucs_status_t status, const char* call) {
    if (failed == UCS_OK) failed = status, failed_call = call;
  };
  std::optional<std::size_t> wrong_length;
  // Receives first, so that the window's messages find them waiting.
  for (int i = 0; i < receives; ++i) {
    // Always a request, whose test tells the length: UCX 1.13 leaves recv_info unfilled when a
    // receive matches an unexpected eager message in place.
    ucp_request_param_t params{};
    params.op_attr_mask = UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
    const ucs_status_ptr_t request =
        ucp_tag_recv_nbx(impl_->worker, in.data(), in.size(), tag, ~ucp_tag_t{0}, &params);
    if (UCS_PTR_IS_ERR(request)) fail(UCS_PTR_STATUS(request), "ucp_tag_recv_nbx");
    else posted.push_back({request, true});
  }
  for (int i = 0; i < sends; ++i) {
    ucp_request_param_t params{};
    const ucs_status_ptr_t request =
        ucp_tag_send_nbx(endpoint, out.data(), out.size(), tag, &params);
    if (UCS_PTR_IS_ERR(request)) fail(UCS_PTR_STATUS(request), "ucp_tag_send_nbx");
    else if (request != nullptr) posted.push_back({request, false});
  }
  // Every posted request is waited for, also after an error, so that none is left to complete
  // into a buffer the caller has moved on from.
  for (const Impl::Posted& each : posted) {
    ucp_tag_recv_info_t info{};
    const auto status_of = [&] {
      return each.receive ? ucp_tag_recv_request_test(each.request, &info)
                          : ucp_request_check_status(each.request);
    };
    ucs_status_t status;
    while ((status = status_of()) == UCS_INPROGRESS) ucp_worker_progress(impl_->worker);
    ucp_request_free(each.request);
    if (status != UCS_OK) fail(status, each.receive ? "ucp_tag_recv_nbx" : "ucp_tag_send_nbx");
    else if (each.receive && info.length != in.size()) wrong_length = info.length;
  }
  check(failed, failed_call);
  if (wrong_length)
    throw UcxError(fmt::format("ucp_tag_recv_nbx: {} bytes arrived, {} expected", *wrong_length,
                               in.size()));
}

std::string UcpWorker::transports(int peer) const {
  const ucp_ep_h endpoint = impl_->endpoint(peer, "ucp_ep_print_info");
  char* text = nullptr;
  std::size_t length = 0;
  FILE* stream = open_memstream(&text, &length);
  if (!stream) throw UcxError("ucp_ep_print_info: open_memstream failed");
  ucp_ep_print_info(endpoint, stream);
  std::fclose(stream);
  const std::string printed(text, length);
  std::free(text);
  return transports_of_lanes(printed);
}

std::unique_ptr<MessageBuffer> UcpWorker::allocate(std::size_t bytes, std::byte fill) {
  if (impl_->memory == MessageMemory::cuda) return cuda_buffer(bytes, fill);
  return std::make_unique<HostBuffer>(bytes, fill);
}

std::string UcpWorker::version() const { return ucp_get_version_string(); }

std::map<std::string, std::string> UcpWorker::provenance() const { return impl_->settings; }

}  // namespace collbench::ucx
