# Runs one scenario command and compares its standard output with a checked-in golden file.
# Usage: cmake -DCOMMAND="ringlab;topo;describe;x.json" -DEXPECTED=path -DWORKDIR=dir -P run_golden.cmake
# With the environment variable RINGLAB_UPDATE_GOLDENS=1 the golden file is rewritten instead (review
# the diff before committing).
execute_process(COMMAND ${COMMAND} WORKING_DIRECTORY ${WORKDIR}
                OUTPUT_VARIABLE actual ERROR_VARIABLE errors RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "command failed with exit code ${rc}:\n${errors}")
endif()
if("$ENV{RINGLAB_UPDATE_GOLDENS}" STREQUAL "1")
  file(WRITE ${EXPECTED} "${actual}")
  message(STATUS "rewrote ${EXPECTED}")
  return()
endif()
if(NOT EXISTS ${EXPECTED})
  message(FATAL_ERROR "no golden file ${EXPECTED}; run with RINGLAB_UPDATE_GOLDENS=1 to create it")
endif()
file(READ ${EXPECTED} expected)
if(NOT actual STREQUAL expected)
  string(RANDOM LENGTH 8 tag)
  set(actual_file ${CMAKE_CURRENT_BINARY_DIR}/golden-actual-${tag}.txt)
  file(WRITE ${actual_file} "${actual}")
  execute_process(COMMAND diff -u ${EXPECTED} ${actual_file} OUTPUT_VARIABLE diff)
  message(FATAL_ERROR "output differs from ${EXPECTED}:\n${diff}")
endif()
