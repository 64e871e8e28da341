#pragma once
// The acceptance specs collbench ships (ci/acceptance), found by name: `check --spec h100-hgx`.
#include <filesystem>
#include <string>
#include <vector>

namespace collbench {

// Where the shipped specs are: beside an installed binary (<prefix>/share/collbench/acceptance),
// else in the source tree it was built from.
std::filesystem::path shipped_specs_folder();

// The stems of the shipped specs' .toml files, sorted.
std::vector<std::string> shipped_spec_names();

// `spec` itself where it names a file; else the shipped spec of that name. Throws UsageError
// naming the shipped specs when it is neither.
std::filesystem::path resolve_spec(const std::string& spec);

}  // namespace collbench
