# dlsim_embed(OUT_VAR SYMBOL FILE)
# Generates a C++ source defining `std::string_view dlsim::embedded::SYMBOL()` that returns
# the bytes of FILE, so data such as the hardware catalog ships inside the binary.
set(DLSIM_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/EmbedScript.cmake)
function(dlsim_embed out_var symbol file)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_${symbol}.cc)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DSYMBOL=${symbol} -DFILE=${file} -P ${DLSIM_EMBED_SCRIPT}
    DEPENDS ${file} ${DLSIM_EMBED_SCRIPT}
    COMMENT "Embedding ${symbol}")
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()
