# `ringlab schedule` then `ringlab simulate --schedule` gives the row `simulate` gives for the same
# settings (size, type, root, time, algbw, busbw to the printed digit; the channel column may differ:
# a schedule counts a double binary tree's two trees as two channels), and writing the schedule twice
# gives the same bytes.
# Usage: cmake -DRINGLAB=path -DSCENARIO=relative.json -DARGS="a;b" -DNAME=unique -DWORKDIR=dir -DTMP=dir -P schedule_round_trip.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/run_ringlab.cmake)

set(file_a ${TMP}/${NAME}_a.schedule.json)  # NAME keeps parallel tests apart
set(file_b ${TMP}/${NAME}_b.schedule.json)
run(ignored schedule ${SCENARIO} ${ARGS} -o ${file_a})
run(ignored schedule ${SCENARIO} ${ARGS} -o ${file_b})
file(SHA256 ${file_a} hash_a)
file(SHA256 ${file_b} hash_b)
if(NOT hash_a STREQUAL hash_b)
  message(FATAL_ERROR "two schedule runs wrote different bytes")
endif()
run(direct simulate ${SCENARIO} ${ARGS} -f csv)
run(replayed simulate ${SCENARIO} --schedule ${file_a} -f csv)
# CSV columns: size_B,count,type,redop,root,algorithm,protocol,channels,ranks,time_us,algbw_GBps,busbw_GBps
string(REGEX REPLACE "^[^\n]*\n([^,]*,[^,]*,[^,]*,[^,]*,[^,]*),[^,]*,[^,]*,[^,]*,([^\n]*).*" "\\1,\\2" direct_row "${direct}")
string(REGEX REPLACE "^[^\n]*\n([^,]*,[^,]*,[^,]*,[^,]*,[^,]*),[^,]*,[^,]*,[^,]*,([^\n]*).*" "\\1,\\2" replayed_row "${replayed}")
if(direct_row STREQUAL "" OR NOT direct_row STREQUAL replayed_row)
  message(FATAL_ERROR "replayed schedule differs:\n simulate:${direct_row}\n replayed:${replayed_row}")
endif()
message(STATUS "round trip OK:${direct_row}")
