#pragma once
// The validation pattern on host memory: the inputs to write and the check of the results.
#include <cstddef>
#include <cstdint>
#include <span>

#include "collectives/pattern_rule.h"

namespace collbench {

// Writes poison_bits() over the rule's poisoned_count() elements of `result`.
void fill_poison(const PatternRule& rule, std::span<std::byte> result);

// Writes this rank's input_count() input elements into `send`.
void fill_input(const PatternRule& rule, std::span<std::byte> send);

// Counts the elements of this rank's result_count() results that differ from the exact answer.
std::uint64_t count_wrong(const PatternRule& rule, std::span<const std::byte> result);

}  // namespace collbench
