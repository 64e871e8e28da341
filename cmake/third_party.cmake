# The libraries collbench builds against: found installed first (Debian 12's packages, a cluster's
# modules, a container's), else fetched at the version Debian 12 ships, pinned by commit, and built
# into collbench (static, so the binary needs none of them on the nodes). Offline, point
# FETCHCONTENT_SOURCE_DIR_<NAME> at a copy of the source instead (docs/running.md, "Without the
# packages").
include(FetchContent)

# What the fetched projects would install stays out of collbench's install; their tests are off.
set(FMT_INSTALL OFF)
set(JSON_Install OFF)
set(CLI11_INSTALL OFF)
set(INSTALL_GTEST OFF)
set(BUILD_GMOCK OFF)
set(BENCHMARK_ENABLE_INSTALL OFF)
set(BENCHMARK_ENABLE_TESTING OFF)
set(BENCHMARK_ENABLE_GTEST_TESTS OFF)
set(BENCHMARK_ENABLE_WERROR OFF)

# find_package(PACKAGE ARGN), else fetch NAME from REPOSITORY at COMMIT and add it to the build,
# compiled one file at a time (their sources are not written for a unity build) and
# position-independent (the stand-in's shared libraries link fmt too).
function(collbench_find_or_fetch package name repository commit)
  find_package(${package} ${ARGN} QUIET)
  if(${package}_FOUND)
    return()
  endif()
  message(STATUS "${package}: not installed; building ${repository} at ${commit}")
  FetchContent_Declare(${name} GIT_REPOSITORY ${repository} GIT_TAG ${commit})
  set(CMAKE_UNITY_BUILD OFF)
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  FetchContent_MakeAvailable(${name})
endfunction()

collbench_find_or_fetch(CLI11 cli11 https://github.com/CLIUtils/CLI11.git
                        70f8072f9dd2292fd0b9f9e5f58e279f60483ed3)  # v2.1.2
collbench_find_or_fetch(fmt fmt https://github.com/fmtlib/fmt.git
                        a33701196adfad74917046096bf5a2aa0ab0bb50)  # 9.1.0
collbench_find_or_fetch(nlohmann_json json https://github.com/nlohmann/json.git
                        bc889afb4c5bf1c0d8ee29ef35eaaf4c8bef8a5d)  # v3.11.2
if(COLLBENCH_BUILD_TESTS)
  collbench_find_or_fetch(GTest googletest https://github.com/google/googletest.git
                          58d77fa8070e8cec2dc1ed015d66b454c8d78850)  # release-1.12.1
endif()
if(COLLBENCH_BUILD_MICRO)
  collbench_find_or_fetch(benchmark benchmark https://github.com/google/benchmark.git
                          d572f4777349d43653b21d6c2fc63020ab326db2)  # v1.7.1
endif()

# toml++ header-only (Debian's libtomlplusplus-dev also ships a shared library, which the
# binary must not need on the cluster's nodes): its headers only, found or fetched.
find_path(TOMLPLUSPLUS_INCLUDE_DIR toml++/toml.h)
if(NOT TOMLPLUSPLUS_INCLUDE_DIR)
  message(STATUS "toml++: not installed; using marzer/tomlplusplus at v3.3.0's headers")
  FetchContent_Declare(tomlplusplus GIT_REPOSITORY https://github.com/marzer/tomlplusplus.git
                       GIT_TAG c635f218c0aefc801d9748841930365e54fe3089)  # v3.3.0
  FetchContent_Populate(tomlplusplus)
  set(TOMLPLUSPLUS_INCLUDE_DIR "${tomlplusplus_SOURCE_DIR}/include" CACHE PATH "toml++" FORCE)
endif()
