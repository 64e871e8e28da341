#pragma once
#include <string>
#include <vector>

namespace collbench {

// `collbench plot FILE.h5 [options]`: the figures and the HTML report are Python (plots/,
// matplotlib and h5py); this hands its arguments to plots/collbench_plot.py and returns its
// exit code. COLLBENCH_PLOTS names another plots folder, COLLBENCH_PYTHON another interpreter.
int plot_command(const std::vector<std::string>& arguments);

}  // namespace collbench
