#include "device.h"

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace standin {
namespace {

std::vector<int> visible_devices() {
  const char* gpus = std::getenv("COLLBENCH_STANDIN_GPUS");
  const int installed = gpus ? std::atoi(gpus) : 8;
  std::vector<int> visible;
  const char* listed = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!listed) {
    for (int device = 0; device < installed; ++device) visible.push_back(device);
    return visible;
  }
  // As CUDA: the list up to its first entry that names no installed device.
  std::stringstream items(listed);
  for (std::string item; std::getline(items, item, ',');) {
    char* end = nullptr;
    const long device = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || device < 0 || device >= installed) break;
    visible.push_back(static_cast<int>(device));
  }
  return visible;
}

// Read once: the environment of a process does not change under CUDA either.
const std::vector<int>& visible() {
  static const std::vector<int> devices = visible_devices();
  return devices;
}

}  // namespace

int& current_device() {
  thread_local int device = 0;
  return device;
}

int device_count() { return static_cast<int>(visible().size()); }

bool valid_device(int device) { return device >= 0 && device < device_count(); }

int physical_device(int device) { return visible().at(static_cast<std::size_t>(device)); }

}  // namespace standin
