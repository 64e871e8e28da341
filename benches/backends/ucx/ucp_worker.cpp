#include "benches/backends/ucx/ucp_worker.h"

#include <fmt/format.h>
#include <ucp/api/ucp.h>

#include <cstdio>
#include <cstdlib>
#include <map>

namespace collbench::ucx {
namespace {

void check(ucs_status_t status, const char* call) {
  if (status != UCS_OK) throw UcxError(fmt::format("{}: {}", call, ucs_status_string(status)));
}

}  // namespace

struct UcpWorker::Impl {
  ucp_context_h context = nullptr;
  ucp_worker_h worker = nullptr;
  std::map<int, ucp_ep_h> endpoints;

  ucp_ep_h endpoint(int peer, const char* call) const {
    const auto found = endpoints.find(peer);
    if (found == endpoints.end())
      throw UcxError(fmt::format("{}: peer {} is not connected", call, peer));
    return found->second;
  }

  // Progresses the worker until `request` (what a *_nbx call returned) is complete, as
  // `status_of` tells.
  template <typename StatusOf>
  void wait(ucs_status_ptr_t request, const char* call, StatusOf status_of) {
    if (request == nullptr) return;  // completed in place
    if (UCS_PTR_IS_ERR(request)) check(UCS_PTR_STATUS(request), call);
    ucs_status_t status;
    while ((status = status_of(request)) == UCS_INPROGRESS) ucp_worker_progress(worker);
    ucp_request_free(request);
    check(status, call);
  }
};

UcpWorker::UcpWorker() : impl_(std::make_unique<Impl>()) {
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_TAG;
  check(ucp_init(&params, nullptr, &impl_->context), "ucp_init");
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
  params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
  params.address = reinterpret_cast<const ucp_address_t*>(address.data());
  ucp_ep_h endpoint = nullptr;
  check(ucp_ep_create(impl_->worker, &params, &endpoint), "ucp_ep_create");
  impl_->endpoints.emplace(peer, endpoint);
}

void UcpWorker::send(int peer, std::span<const std::byte> message, std::uint64_t tag) {
  ucp_request_param_t params{};
  const ucp_ep_h endpoint = impl_->endpoint(peer, "ucp_tag_send_nbx");
  impl_->wait(ucp_tag_send_nbx(endpoint, message.data(), message.size(), tag, &params),
              "ucp_tag_send_nbx", ucp_request_check_status);
}

void UcpWorker::receive(std::span<std::byte> message, std::uint64_t tag) {
  ucp_tag_recv_info_t info{};
  ucp_request_param_t params{};
  params.op_attr_mask = UCP_OP_ATTR_FIELD_RECV_INFO;
  params.recv_info.tag_info = &info;
  const ucp_tag_t every_bit = ~ucp_tag_t{0};
  // Completed in place, the call fills `info`; completed later, the request test does.
  impl_->wait(ucp_tag_recv_nbx(impl_->worker, message.data(), message.size(), tag, every_bit,
                               &params),
              "ucp_tag_recv_nbx",
              [&info](ucs_status_ptr_t request) { return ucp_tag_recv_request_test(request, &info); });
  if (info.length != message.size())
    throw UcxError(fmt::format("ucp_tag_recv_nbx: {} bytes arrived, {} expected", info.length,
                               message.size()));
}

std::string UcpWorker::lanes(int peer) const {
  const ucp_ep_h endpoint = impl_->endpoint(peer, "ucp_ep_print_info");
  char* text = nullptr;
  std::size_t length = 0;
  FILE* stream = open_memstream(&text, &length);
  if (!stream) throw UcxError("ucp_ep_print_info: open_memstream failed");
  ucp_ep_print_info(endpoint, stream);
  std::fclose(stream);
  std::string printed(text, length);
  std::free(text);
  return printed;
}

std::string UcpWorker::version() { return ucp_get_version_string(); }

}  // namespace collbench::ucx
