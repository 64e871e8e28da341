#include "harness/cli/size_options.h"

#include <stdexcept>

#include "harness/cli/option_values.h"

namespace collbench {

void add_size_options(CLI::App& command, SizeOptions& o, SizeSteps steps) {
  command.add_option("-b,--minbytes", o.min_bytes, "smallest size (K, M, G = 1024^n)")
      ->capture_default_str();
  command.add_option("-e,--maxbytes", o.max_bytes, "largest size")->capture_default_str();
  command.add_option("-f,--stepfactor", o.step_factor, "multiplicative size step")
      ->capture_default_str();
  if (steps == SizeSteps::either)
    command.add_option("-i,--stepbytes", o.step_bytes, "additive size step (instead of -f)");
}

SizeSweep resolve_sizes(const SizeOptions& o) {
  SizeSweep sweep;
  sweep.spec.min_bytes = size_option(o.min_bytes, "-b/--minbytes");
  sweep.spec.max_bytes = size_option(o.max_bytes, "-e/--maxbytes");
  sweep.spec.step_factor = o.step_factor;
  if (o.step_bytes) sweep.spec.step_bytes = size_option(*o.step_bytes, "-i/--stepbytes");
  try {
    sweep.sizes = sweep_sizes(sweep.spec);
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
  return sweep;
}

}  // namespace collbench
