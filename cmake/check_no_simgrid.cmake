# Fails when BINARY's dynamic section lists libsimgrid (readelf -d), or when readelf cannot read it.
# Usage: cmake -DBINARY=<path> -P check_no_simgrid.cmake
execute_process(COMMAND readelf -d ${BINARY} OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf -d ${BINARY} failed (${rc})")
endif()
if(NOT dynamic MATCHES "NEEDED")
  message(FATAL_ERROR "readelf -d ${BINARY} lists no NEEDED libraries: not a dynamic executable?")
endif()
if(dynamic MATCHES "libsimgrid")
  message(FATAL_ERROR "${BINARY} links libsimgrid:\n${dynamic}")
endif()
message(STATUS "${BINARY} does not link SimGrid")
