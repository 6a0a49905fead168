# Runs a QTest executable without some of its test functions:
#   cmake -DTEST=<exe> -DSKIP="fnA;fnB" -DREASON="..." -P RunQTestExcept.cmake
# (QTest can select functions but not exclude them: this lists them with -functions and runs
# the others.) Used by sanitizer builds for wall-clock tests that cannot pass at their speed.
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND ${TEST} -functions OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TEST} -functions failed (${rc})")
endif()
string(REGEX MATCHALL "[A-Za-z_][A-Za-z0-9_]*\\(\\)" fns "${out}")
set(run "")
foreach(f IN LISTS fns)
  string(REPLACE "()" "" f "${f}")
  if(NOT f IN_LIST SKIP)
    list(APPEND run ${f})
  endif()
endforeach()
message(STATUS "not run here: ${SKIP} (${REASON})")
execute_process(COMMAND ${TEST} ${run} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TEST} failed (${rc})")
endif()
