# Called by dlsim_embed: writes OUT defining dlsim::embedded::SYMBOL() from FILE.
file(READ ${FILE} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
file(WRITE ${OUT} "// Generated from ${FILE} by cmake/EmbedScript.cmake; do not edit.\n#include <string_view>\nnamespace dlsim::embedded {\nnamespace {\nconst unsigned char kData[] = {\n${hex}0x00};\n}  // namespace\nstd::string_view ${SYMBOL}() { return std::string_view(reinterpret_cast<const char*>(kData), sizeof(kData) - 1); }\n}  // namespace dlsim::embedded\n")
