# `topo export -f json` keeps a whole scenario: exporting the export gives the same bytes, and
# `simulate` on the export prints what it prints on the original (the scenario's name is written into
# the export, so even the header matches). The export is written next to a copy of scenarios/orders so
# that rank-order files named relative to the scenario resolve the same way.
# Usage: cmake -DRINGLAB=path -DNAME=scenario-stem -DWORKDIR=dir -DTMP=dir -P scenario_round_trip.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/run_ringlab.cmake)

set(dir ${TMP}/scenario_round_trip_${NAME})  # one directory per scenario: parallel tests stay apart
file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir})
file(COPY ${WORKDIR}/scenarios/orders DESTINATION ${dir})
set(original scenarios/${NAME}.json)
set(exported ${dir}/${NAME}.json)
set(again ${dir}/${NAME}.again.json)
run(ignored topo export ${original} -f json -o ${exported})
run(ignored topo export ${exported} -f json -o ${again})
file(READ ${exported} first)
file(READ ${again} second)
if(NOT first STREQUAL second)
  message(FATAL_ERROR "exporting the export changed it:\n--- first:\n${first}\n--- second:\n${second}")
endif()
foreach(section workload strategy train simulate)
  file(READ ${WORKDIR}/${original} source)
  if(source MATCHES "\"${section}\"[ \t\r\n]*:[ \t\r\n]*{[ \t\r\n]*[^} \t\r\n]" AND NOT first MATCHES "\"${section}\": {")
    message(FATAL_ERROR "the export dropped the \"${section}\" section")
  endif()
endforeach()
run(direct simulate ${original})
run(reloaded simulate ${exported})
# The rank-order file is the same file under another directory; its digest (kept) says it is the same order.
string(REGEX REPLACE "# rank order: [^\n(]*/orders/" "# rank order: orders/" direct "${direct}")
string(REGEX REPLACE "# rank order: [^\n(]*/orders/" "# rank order: orders/" reloaded "${reloaded}")
if(direct STREQUAL "" OR NOT direct STREQUAL reloaded)
  message(FATAL_ERROR "simulate differs on the export:\n--- original:\n${direct}\n--- export:\n${reloaded}")
endif()
message(STATUS "round trip OK: ${NAME}")
