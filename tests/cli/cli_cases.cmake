# kith_cli_cases(TABLE LABEL...): one CTest test for each case() of TABLE (a Python table of
# kith command lines and their expectations; the row: cli_case.py), run by run_case.py and
# labelled LABEL.... Adding a case is one row in the table: CMake re-reads it when it changes.
function(kith_cli_cases table)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  set(runner ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/run_case.py)
  execute_process(COMMAND ${Python3_EXECUTABLE} ${runner} ${table} --list
                  OUTPUT_VARIABLE names ERROR_VARIABLE why RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "${table}: ${why}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${table} ${runner} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/cli_case.py)
  string(STRIP "${names}" names)
  string(REPLACE "\n" ";" names "${names}")
  foreach(name IN LISTS names)
    add_test(NAME ${name} COMMAND Python3::Interpreter ${runner} ${table} ${name}
                                  --kith $<TARGET_FILE:kith> --source ${PROJECT_SOURCE_DIR})
    set_tests_properties(${name} PROPERTIES LABELS "${ARGN}")
  endforeach()
endfunction()
