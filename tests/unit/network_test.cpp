#include "topo/network.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

namespace collbench {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text << "\n";
}

// A sysfs tree laid out as the kernel does: an HDR port, a RoCE port, a port that is down,
// Ethernet, loopback, a bridge and an interface that is down.
class FakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("collbench-sysfs-" + std::to_string(::getpid()));
    const fs::path ib = root_ / "class" / "infiniband";
    write(ib / "mlx5_0/ports/1/state", "4: ACTIVE");
    write(ib / "mlx5_0/ports/1/link_layer", "InfiniBand");
    write(ib / "mlx5_0/ports/1/rate", "200 Gb/sec (4X HDR)");
    write(ib / "mlx5_1/ports/1/state", "4: ACTIVE");
    write(ib / "mlx5_1/ports/1/link_layer", "Ethernet");
    write(ib / "mlx5_1/ports/1/rate", "100 Gb/sec (4X EDR)");
    write(ib / "mlx5_2/ports/1/state", "1: DOWN");
    const fs::path net = root_ / "class" / "net";
    for (const auto& [name, type, state, speed] :
         {std::tuple{"eth0", "1", "up", "25000"}, {"lo", "772", "unknown", ""},
          {"br0", "1", "up", "10000"}, {"eth1", "1", "down", "1000"}, {"veth0", "1", "up", "-1"}}) {
      write(net / name / "type", type);
      write(net / name / "operstate", state);
      write(net / name / "speed", speed);
    }
    fs::create_directories(net / "br0" / "bridge");
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(FakeSysfs, FindsActivePortsAndUpInterfaces) {
  const auto devices = network_devices(root_);
  ASSERT_EQ(devices.size(), 4u);
  EXPECT_EQ(devices[0].name, "mlx5_0:1");
  EXPECT_EQ(devices[0].kind, "InfiniBand");
  EXPECT_EQ(devices[0].rate, "200 Gb/sec (4X HDR)");
  EXPECT_EQ(devices[1].kind, "RoCE");
  EXPECT_EQ(devices[2].name, "eth0");
  EXPECT_EQ(devices[2].rate, "25000 Mb/s");
  EXPECT_EQ(devices[3].name, "veth0");
  EXPECT_EQ(devices[3].rate, "");  // the kernel does not know a veth's speed
  EXPECT_EQ(describe(devices),
            "mlx5_0:1 InfiniBand 200 Gb/sec (4X HDR); mlx5_1:1 RoCE 100 Gb/sec (4X EDR); "
            "eth0 Ethernet 25000 Mb/s; veth0 Ethernet");
}

TEST(Network, AMissingSysfsGivesNothing) {
  EXPECT_TRUE(network_devices("/nonexistent").empty());
}

}  // namespace
}  // namespace collbench
