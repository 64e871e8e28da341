#include "point_to_point.h"

namespace collbench {

std::string_view name(MessageMemory memory) {
  return memory == MessageMemory::cuda ? "cuda" : "host";
}

std::optional<MessageMemory> parse_message_memory(std::string_view text) {
  for (MessageMemory memory : {MessageMemory::host, MessageMemory::cuda})
    if (name(memory) == text) return memory;
  return std::nullopt;
}

}  // namespace collbench
