# simulate with a known calibration -> "measurements"; calibrate from the pure model -> the same factors,
# and the error on the held-out sizes falls below 1 %. Then simulate with the fitted file gives the
# measured times back. Usage: cmake -DRINGLAB=... -DWORKDIR=... -DOUT=... -P calibrate_round_trip.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/run_ringlab.cmake)
set(scenario scenarios/two-racks-40g.json)
run(ignored simulate ${scenario} --algo ring --sizes 4KiB:256MiB:x4 --calibration tests/data/calibration/ethernet-0.8-1.5.json
    -f results -o ${OUT}/synthetic.json)
run(table calibrate ${scenario} ${OUT}/synthetic.json --algo ring -o ${OUT}/fitted.json)
foreach(pattern "ethernet: bandwidth x0\\.8[0-9]*, latency x1\\.(49|50)" "held out, after +4 +0\\.[0-9] %")
  if(NOT table MATCHES "${pattern}")
    message(FATAL_ERROR "calibrate output does not match '${pattern}':\n${table}")
  endif()
endforeach()
run(ignored compare ${scenario} ${OUT}/synthetic.json --algo ring --calibration ${OUT}/fitted.json -o ${OUT}/after.txt)
file(READ ${OUT}/after.txt after)
if(NOT after MATCHES "median \\|error\\|: 0\\.[0-9] %")
  message(FATAL_ERROR "predictions with the fitted calibration do not match the measurements:\n${after}")
endif()
