#pragma once
// The file a measuring or predicting command writes (`run`, `links`, `predict`): --out and
// --force, declared once, with one default place for it.
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "harness/plan/output_file.h"

namespace collbench {

struct OutputOptions {
  std::string out;
  bool force = false;
};

// `what`: the file in words ("result file"); `suffix`: what its default name ends with.
void add_output_options(CLI::App& command, OutputOptions& options, std::string_view what,
                        std::string_view suffix);

OutputFile resolve_output(const OutputOptions& options, std::string_view suffix);

}  // namespace collbench
