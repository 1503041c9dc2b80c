# epochcost_embed_files(OUT_VAR FUNCTION GLOB...): generates a C++ source that defines
# `FUNCTION()` returning every file matching the globs as {stem, text}, rebuilt when they change,
# and sets OUT_VAR to its path. data/ is compiled into the binary this way.
function(epochcost_embed_files out_var function)
  file(GLOB files CONFIGURE_DEPENDS ${ARGN})
  set(cpp ${CMAKE_CURRENT_BINARY_DIR}/${function}.cpp)
  # The list of embedded files, rewritten only when it changes: removing or adding a file then
  # regenerates the source even though no remaining input is newer.
  set(list_file ${CMAKE_CURRENT_BINARY_DIR}/${function}.files)
  file(CONFIGURE OUTPUT ${list_file} CONTENT "${files}")
  string(REPLACE ";" "\\;" globs "${ARGN}")
  add_custom_command(
    OUTPUT ${cpp}
    COMMAND ${CMAKE_COMMAND} -DOUT=${cpp} -DFUNCTION=${function} "-DGLOB=${globs}"
            -P ${PROJECT_SOURCE_DIR}/scripts/embed_files.cmake
    DEPENDS ${files} ${list_file} ${PROJECT_SOURCE_DIR}/scripts/embed_files.cmake
    COMMENT "Embedding ${function}")
  set(${out_var} ${cpp} PARENT_SCOPE)
endfunction()
