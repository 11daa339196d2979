# dlsim_embed(TARGET_VAR NAME SYMBOL FILES...)
# Generates a C++ source that defines `std::string_view SYMBOL()` in namespace dlsim::embedded
# returning the concatenation of FILES (each preceded by a "# file: <name>" line), so data
# such as the hardware catalog ships inside the binary.
set(DLSIM_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/EmbedScript.cmake)
function(dlsim_embed out_var symbol)
  set(files ${ARGN})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_${symbol}.cc)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DSYMBOL=${symbol} "-DFILES=${files}" -P ${DLSIM_EMBED_SCRIPT}
    DEPENDS ${files} ${DLSIM_EMBED_SCRIPT}
    COMMENT "Embedding ${symbol}")
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()
