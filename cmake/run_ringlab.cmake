# run(OUT args...): runs ${RINGLAB} with args in ${WORKDIR} and stores its standard output in OUT;
# a non-zero exit fails the calling test with ringlab's standard error. Shared by the -P test scripts.
function(run out)
  execute_process(COMMAND ${RINGLAB} ${ARGN} WORKING_DIRECTORY ${WORKDIR}
                  OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ringlab ${ARGN} exited ${rc}:\n${stderr}")
  endif()
  set(${out} "${stdout}" PARENT_SCOPE)
endfunction()
