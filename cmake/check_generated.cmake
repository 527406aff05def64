# Run as a script: fail unless the output of GEN equals the file DOC (generated docs are
# current). Regenerate with: GEN > DOC
execute_process(COMMAND ${GEN} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${GEN} failed (${rc})")
endif()
file(READ ${DOC} doc)
if(NOT out STREQUAL doc)
  message(FATAL_ERROR "${DOC} is out of date: regenerate it with\n  ${GEN} > ${DOC}")
endif()
message(STATUS "1 passed, 0 failed")
