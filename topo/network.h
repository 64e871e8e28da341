#pragma once
// The network devices a rank can use, from sysfs: InfiniBand and RoCE ports (with their rate)
// and the IP interfaces that are up, loopback and bridges left out.
#include <filesystem>
#include <string>
#include <vector>

namespace collbench {

struct NetworkDevice {
  std::string name;  // "mlx5_0:1" for an HCA port, the interface name otherwise
  std::string kind;  // InfiniBand, RoCE, Ethernet, IPoIB
  std::string rate;  // as the kernel says it: "200 Gb/sec (4X HDR)", "10000 Mb/s"; empty if unknown
};

// `sys` is the sysfs root, a parameter so that tests can lay out their own.
std::vector<NetworkDevice> network_devices(const std::filesystem::path& sys = "/sys");

// "mlx5_0:1 InfiniBand 200 Gb/sec (4X HDR); eth0 Ethernet 10000 Mb/s", for the topology record.
std::string describe(const std::vector<NetworkDevice>& devices);

}  // namespace collbench
