# Writes OUT, the definition of git_revision() (harness/provenance/version.h), from the checkout
# at SOURCE_DIR, at every build: "-dirty" when the tree differs from its commit, "unknown" outside
# git. OUT is rewritten only when that changes, so an unchanged build recompiles nothing.
execute_process(COMMAND git rev-parse --short=12 HEAD
                WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE failed ERROR_QUIET)
if(failed OR NOT revision)
  set(revision unknown)
else()
  execute_process(COMMAND git diff --quiet HEAD --
                  WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE dirty ERROR_QUIET)
  if(dirty)
    string(APPEND revision "-dirty")
  endif()
endif()
set(text "#include \"harness/provenance/version.h\"

namespace collbench {

std::string_view git_revision() { return \"${revision}\"; }

}  // namespace collbench
")
if(EXISTS ${OUT})
  file(READ ${OUT} written)
endif()
if(NOT "${written}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
