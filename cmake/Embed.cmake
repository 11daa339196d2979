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

# dlsim_embed_binary(OUT_VAR SYMBOL FILE)
# The same contract as dlsim_embed for files too large to spell out as a C++ array (megabytes of
# data: the shipped real graphs): the generated source pulls FILE in with the assembler's
# `.incbin` (GCC and Clang on ELF targets), so it compiles in no time; it is rebuilt when FILE
# changes.
function(dlsim_embed_binary out_var symbol file)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_${symbol}.cc)
  set(begin "dlsim_embedded_${symbol}_begin")
  set(end "dlsim_embedded_${symbol}_end")
  file(WRITE ${out}.in
    "// Generated from ${file} by cmake/Embed.cmake (dlsim_embed_binary); do not edit.\n"
    "#include <string_view>\n"
    "__asm__(\".section .rodata\\n.balign 16\\n.globl ${begin}\\n.globl ${end}\\n.hidden ${begin}\\n.hidden ${end}\\n${begin}:\\n\"\n"
    "        \".incbin \\\"${file}\\\"\\n${end}:\\n.byte 0\\n.previous\\n\");\n"
    "extern \"C\" const char ${begin}[];\n"
    "extern \"C\" const char ${end}[];\n"
    "namespace dlsim::embedded {\n"
    "std::string_view ${symbol}() { return std::string_view(${begin}, static_cast<size_t>(${end} - ${begin})); }\n"
    "}  // namespace dlsim::embedded\n")
  configure_file(${out}.in ${out} COPYONLY)
  set_source_files_properties(${out} PROPERTIES OBJECT_DEPENDS ${file})
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()
