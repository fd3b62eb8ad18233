# Writes OUT (a header defining MV_GIT_REVISION) from `git describe` of SRC; run at
# every build, it rewrites OUT only when the revision changed.
execute_process(COMMAND git describe --always --dirty --abbrev=12 WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  set(rev unknown)
endif()
set(text "#define MV_GIT_REVISION \"${rev}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
