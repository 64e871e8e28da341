#include "registration.h"

#include <algorithm>

#include "memory.h"

namespace standin {

Registration* Registrations::add(const Registration& registration) {
  held_.push_back(std::make_unique<Registration>(registration));
  return held_.back().get();
}

std::unique_ptr<Registration> Registrations::take(const void* handle) {
  const auto found = std::find_if(held_.begin(), held_.end(),
                                  [&](const auto& held) { return held.get() == handle; });
  if (found == held_.end()) return nullptr;
  std::unique_ptr<Registration> taken = std::move(*found);
  held_.erase(found);
  return taken;
}

void Registrations::drop_all(const char* call) {
  for (const auto& held : held_) count_registration(held->address, -1, call);
  held_.clear();
}

// As NCCL finds a buffer's window: the one its first byte lies in.
bool Registrations::in_symmetric_window(const void* address) const {
  const auto* at = static_cast<const std::byte*>(address);
  return std::any_of(held_.begin(), held_.end(), [&](const auto& held) {
    return held->symmetric && at >= held->address && at < held->address + held->bytes;
  });
}

bool Registrations::registered(const void* address, std::size_t bytes) const {
  const auto* at = static_cast<const std::byte*>(address);
  return std::any_of(held_.begin(), held_.end(), [&](const auto& held) {
    return at >= held->address && at + bytes <= held->address + held->bytes;
  });
}

}  // namespace standin
