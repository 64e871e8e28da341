#include "harness/cli/output_options.h"

#include <fmt/format.h>

#include "harness/provenance/clock.h"

namespace collbench {

void add_output_options(CLI::App& command, OutputOptions& o, std::string_view what,
                        std::string_view suffix) {
  command.add_option("--out", o.out,
                     fmt::format("{} (default results/<UTC time>-{}.h5)", what, suffix));
  command.add_flag("--force", o.force, fmt::format("overwrite an existing {}", what));
}

OutputFile resolve_output(const OutputOptions& o, std::string_view suffix) {
  if (!o.out.empty()) return {.path = o.out, .default_path = false, .force = o.force};
  return {.path = std::filesystem::path("results") /
                  fmt::format("{}-{}.h5", utc_timestamp_for_filename(), suffix),
          .default_path = true,
          .force = o.force};
}

}  // namespace collbench
