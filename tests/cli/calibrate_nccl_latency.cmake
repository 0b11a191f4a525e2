# simulate under --algo nccl with NCCL's latency table scaled (base and intra-node hops x1.5, network
# hops x3.75) on one server's 4 GPUs and on all 16 -> "measurements"; calibrate from NCCL's own table
# -> the same factors, and compare with the fitted file gives the measured times back.
# Usage: cmake -DRINGLAB=... -DWORKDIR=... -DOUT=... -P calibrate_nccl_latency.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/run_ringlab.cmake)
set(scenario scenarios/v100x4-ib100.json)
set(truth tests/data/calibration/nccl-latency-1.5-3.75.json)
run(model simulate ${scenario} --algo nccl --sizes 8 --calibration ${truth})
if(NOT model MATCHES "latencies calibrated \\(base x1\\.50, intra-node hops x1\\.50, network hops x3\\.75\\)")
  message(FATAL_ERROR "the model line does not say the latencies are calibrated:\n${model}")
endif()
run(ignored simulate ${scenario} --algo nccl --ranks 4 --sizes 8:64MiB:x8 --calibration ${truth}
    -f results -o ${OUT}/nccl-one-node.json)
run(ignored simulate ${scenario} --algo nccl --sizes 8:64MiB:x8 --calibration ${truth} -f results -o ${OUT}/nccl-four-nodes.json)
run(table calibrate ${scenario} ${OUT}/nccl-one-node.json ${OUT}/nccl-four-nodes.json --algo nccl -o ${OUT}/nccl-fitted.json)
foreach(pattern "NCCL's latency table: base x1\\.(4[7-9]|5[0-3])[0-9]*, intra-node hops x1\\.(4[7-9]|5[0-3])[0-9]*, network hops x3\\.(6[7-9]|7|8[0-3])"
                "held out, after +8 +0\\.[0-9] %")
  if(NOT table MATCHES "${pattern}")
    message(FATAL_ERROR "calibrate output does not match '${pattern}':\n${table}")
  endif()
endforeach()
run(ignored compare ${scenario} ${OUT}/nccl-four-nodes.json --algo nccl --calibration ${OUT}/nccl-fitted.json
    -o ${OUT}/nccl-after.txt)
file(READ ${OUT}/nccl-after.txt after)
if(NOT after MATCHES "median \\|error\\|: 0\\.[0-9] %")
  message(FATAL_ERROR "predictions with the fitted calibration do not match the measurements:\n${after}")
endif()
