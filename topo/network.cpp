#include "network.h"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>

namespace collbench {
namespace {

namespace fs = std::filesystem;

std::string first_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

std::vector<fs::path> entries(const fs::path& folder) {
  std::vector<fs::path> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) found.push_back(entry.path());
  std::sort(found.begin(), found.end());
  return found;
}

constexpr const char* kEthernetType = "1";     // ARPHRD_ETHER
constexpr const char* kInfinibandType = "32";  // ARPHRD_INFINIBAND: IP over InfiniBand

}  // namespace

std::vector<NetworkDevice> network_devices(const fs::path& sys) {
  std::vector<NetworkDevice> devices;
  for (const auto& hca : entries(sys / "class" / "infiniband"))
    for (const auto& port : entries(hca / "ports")) {
      if (first_line(port / "state").find("ACTIVE") == std::string::npos) continue;
      const bool roce = first_line(port / "link_layer") == "Ethernet";
      devices.push_back({fmt::format("{}:{}", hca.filename().string(), port.filename().string()),
                         roce ? "RoCE" : "InfiniBand", first_line(port / "rate")});
    }
  for (const auto& interface : entries(sys / "class" / "net")) {
    const std::string type = first_line(interface / "type");
    if (first_line(interface / "operstate") != "up" || fs::exists(interface / "bridge")) continue;
    if (type != kEthernetType && type != kInfinibandType) continue;  // loopback, tunnels
    const std::string speed = first_line(interface / "speed");
    const bool known = !speed.empty() && speed[0] != '-';
    devices.push_back({interface.filename().string(), type == kEthernetType ? "Ethernet" : "IPoIB",
                       known ? speed + " Mb/s" : ""});
  }
  return devices;
}

std::string describe(const std::vector<NetworkDevice>& devices) {
  std::string text;
  for (const auto& device : devices) {
    if (!text.empty()) text += "; ";
    text += device.rate.empty() ? fmt::format("{} {}", device.name, device.kind)
                                : fmt::format("{} {} {}", device.name, device.kind, device.rate);
  }
  return text;
}

}  // namespace collbench
