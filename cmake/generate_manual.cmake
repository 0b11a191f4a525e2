# Writes ringlab.1, ringlab.bash and _ringlab into OUT_DIR by running BINARY's hidden --man and
# --completion options (cli/manual.cpp). Fails the build if the binary fails.
foreach(spec "ringlab.1;--man" "ringlab.bash;--completion;bash" "_ringlab;--completion;zsh")
  list(POP_FRONT spec file)
  execute_process(COMMAND ${BINARY} ${spec} OUTPUT_FILE ${OUT_DIR}/${file}.tmp RESULT_VARIABLE rc
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${BINARY} ${spec} failed (${rc}): ${err}")
  endif()
  file(RENAME ${OUT_DIR}/${file}.tmp ${OUT_DIR}/${file})
endforeach()
