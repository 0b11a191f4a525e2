# Fails when a source file includes upward in topology <- sim <- planner <- {cli, gui, validate},
# or when Qt, CUDA/NCCL, MPI or SimGrid appear outside the folders allowed to use them (MPI: validate/ and
# the sweep driver's cli/sweep*.cpp; SimGrid: sim/src/simgrid/simgrid_engine.cpp).
# Usage: cmake -DSOURCE_DIR=<repo> -P check_layering.cmake
set(failures "")
# forbid(dir pattern what [allowed]): no file under dir includes pattern, except files whose path
# relative to SOURCE_DIR matches the regex `allowed`.
function(forbid dir pattern what)
  file(GLOB_RECURSE files ${SOURCE_DIR}/${dir}/*.hpp ${SOURCE_DIR}/${dir}/*.h ${SOURCE_DIR}/${dir}/*.cpp
       ${SOURCE_DIR}/${dir}/*.cu)
  foreach(f ${files})
    file(RELATIVE_PATH rel ${SOURCE_DIR} ${f})
    if(ARGC GREATER 3 AND rel MATCHES "${ARGV3}")
      continue()
    endif()
    file(STRINGS ${f} lines REGEX "^[ \t]*#[ \t]*include")
    foreach(line ${lines})
      if(line MATCHES "#[ \t]*include[ \t]*[<\"](${pattern})")
        string(APPEND failures "  ${rel}: includes ${what}: ${line}\n")
      endif()
    endforeach()
  endforeach()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

set(qt "Q[A-Za-z]+>|QtWidgets/|QtCore/|QtGui/")
set(gpu "nccl\\.h|cuda_runtime|cuda\\.h")
forbid(topology "ringlab/(sim|planner)/" "a higher layer")
forbid(sim "ringlab/planner/" "a higher layer")
foreach(dir topology sim planner cli)
  forbid(${dir} "${qt}" "Qt")
  forbid(${dir} "${gpu}" "CUDA/NCCL")
endforeach()
foreach(dir topology sim planner gui)
  forbid(${dir} "mpi\\.h" "MPI")
endforeach()
forbid(cli "mpi\\.h" "MPI" "^cli/sweep[^/]*\\.cpp$")

# SimGrid (and its xbt) only in sim/src/simgrid/simgrid_engine.cpp, the one source of ringlab_simgrid: no
# public header and no other library exposes it.
set(simgrid "simgrid/|simgrid\\.h|xbt/|xbt\\.h")
foreach(dir topology sim/include planner cli gui validate)
  forbid(${dir} "${simgrid}" "SimGrid")
endforeach()
forbid(sim/src "${simgrid}" "SimGrid" "^sim/src/simgrid/simgrid_engine\\.cpp$")

if(failures)
  message(FATAL_ERROR "layering violations:\n${failures}")
endif()
message(STATUS "layering OK")
