#pragma once
// COLLBENCH_ORDERED_JSON(Type, member...) defines to_json for an ordered_json of Type's members,
// each under its own name, in the order listed: nlohmann 3.11.2's own macro for this writes
// nlohmann::json only, whose keys come out sorted. It expands the members as that macro does.
#include <nlohmann/json.hpp>

#define COLLBENCH_ORDERED_JSON(Type, ...)                                                     \
  inline void to_json(nlohmann::ordered_json& nlohmann_json_j, const Type& nlohmann_json_t) { \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))                  \
  }
