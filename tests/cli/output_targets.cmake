# -o writes through symbolic links to their target (the link stays a link), creates the target of a
# dangling link, writes devices (/dev/null, /dev/stdout) in place instead of replacing them, keeps a
# file's permissions, and leaves no temporary file behind.
# Usage: cmake -DRINGLAB=path -DWORKDIR=dir -DTMP=dir -P output_targets.cmake
function(run)
  execute_process(COMMAND ${RINGLAB} ${ARGN} WORKING_DIRECTORY ${WORKDIR}
                  OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ringlab ${ARGN} exited ${rc}:\n${stderr}")
  endif()
  set(stdout "${stdout}" PARENT_SCOPE)
endfunction()
function(expect what)  # expect(message <if condition...>)
  if(NOT (${ARGN}))
    message(FATAL_ERROR "${what}")
  endif()
endfunction()

set(dir ${TMP}/output_targets)
file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir}/real)
file(WRITE ${dir}/real/report.txt "old\n")
file(CHMOD ${dir}/real/report.txt PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ)
file(CREATE_LINK real/report.txt ${dir}/link.txt SYMBOLIC)      # relative link
file(CREATE_LINK ${dir}/link.txt ${dir}/link-to-link.txt SYMBOLIC)  # a chain of two
file(CREATE_LINK real/new.txt ${dir}/dangling.txt SYMBOLIC)     # target does not exist yet

run(topo describe -o ${dir}/link-to-link.txt)
expect("link.txt was replaced by a regular file" IS_SYMLINK ${dir}/link.txt)
expect("link-to-link.txt was replaced by a regular file" IS_SYMLINK ${dir}/link-to-link.txt)
file(READ ${dir}/real/report.txt content)
expect("the link's target was not written: ${content}" content MATCHES "16 GPUs")
execute_process(COMMAND stat -c %a ${dir}/real/report.txt OUTPUT_VARIABLE mode OUTPUT_STRIP_TRAILING_WHITESPACE)
expect("the target's permissions changed to ${mode}" mode STREQUAL 640)

run(topo describe -o ${dir}/dangling.txt)
expect("dangling.txt was replaced by a regular file" IS_SYMLINK ${dir}/dangling.txt)
file(READ ${dir}/real/new.txt content)
expect("the dangling link's target was not created" content MATCHES "16 GPUs")

run(topo describe -o /dev/null)
expect("/dev/null is gone" NOT IS_SYMLINK /dev/null AND EXISTS /dev/null)
file(SIZE /dev/null size)
expect("/dev/null became a regular file of ${size} bytes" size EQUAL 0)
run(topo describe -o /dev/stdout)
expect("/dev/stdout is no longer a link" IS_SYMLINK /dev/stdout)
expect("-o /dev/stdout printed nothing" stdout MATCHES "16 GPUs")

# The reported case: standard output redirected to a regular file, -o /dev/stdout (as root, a rename
# would have replaced the /dev/stdout link with a plain file).
execute_process(COMMAND ${RINGLAB} topo describe -o /dev/stdout WORKING_DIRECTORY ${WORKDIR}
                OUTPUT_FILE ${dir}/redirected.txt RESULT_VARIABLE rc)
expect("-o /dev/stdout into a file exited ${rc}" rc EQUAL 0)
expect("/dev/stdout is no longer a link after a redirected run" IS_SYMLINK /dev/stdout)
file(READ ${dir}/redirected.txt content)
expect("the redirected file did not get the report" content MATCHES "16 GPUs")

file(GLOB temps ${dir}/*.tmp* ${dir}/real/*.tmp*)
expect("temporary files left behind: ${temps}" NOT temps)
message(STATUS "output targets OK")
