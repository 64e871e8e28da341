# collbench rounds every sample to the float32 its file holds (as_recorded, harness/plan/point.h),
# so that its statistics are of exactly the stored values. GCC 12.2, Debian 12's, drops that
# rounding where it pairs two of them into one vector operation (float_round_trip_probe.cpp,
# which calls as_recorded itself, shows how): where the probe finds this compiler doing so, the
# straight-line (SLP) vectoriser that makes the pairs is turned off, and the probe must then pass.
include(CheckCXXSourceRuns)
file(READ "${CMAKE_CURRENT_LIST_DIR}/float_round_trip_probe.cpp" probe)
set(CMAKE_REQUIRED_INCLUDES "${PROJECT_SOURCE_DIR}")  # the probe rounds with as_recorded itself
set(CMAKE_REQUIRED_FLAGS "-O3")
check_cxx_source_runs("${probe}" COLLBENCH_VECTORISER_KEEPS_FLOAT_ROUNDING)
if(NOT COLLBENCH_VECTORISER_KEEPS_FLOAT_ROUNDING)
  set(CMAKE_REQUIRED_FLAGS "-O3 -fno-tree-slp-vectorize")
  check_cxx_source_runs("${probe}" COLLBENCH_FLOAT_ROUNDING_KEPT_WITHOUT_SLP)
  if(NOT COLLBENCH_FLOAT_ROUNDING_KEPT_WITHOUT_SLP)
    message(FATAL_ERROR "${CMAKE_CXX_COMPILER} drops a double's rounding to float even with "
                        "-fno-tree-slp-vectorize (cmake/float_round_trip_probe.cpp): collbench's "
                        "statistics would not be of the values its files hold")
  endif()
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fno-tree-slp-vectorize>)
  message(STATUS "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION} drops paired float "
                 "roundings when it vectorises them: building with -fno-tree-slp-vectorize")
endif()
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_INCLUDES)
