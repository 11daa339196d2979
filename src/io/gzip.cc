// gzip-compressed input files (gzip.h).
#include "dlsim/io/gzip.h"

#include <fmt/format.h>
#include <zlib.h>

#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {

bool IsGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

Result<std::string> Gunzip(std::string_view gz, const std::string& file_name, int64_t limit) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return Error::Internal("zlib: inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  std::string out;
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof(buf);
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - z.avail_out);
    if (static_cast<int64_t>(out.size()) > limit) {
      inflateEnd(&z);
      return Error::InvalidArgument(
          fmt::format("{}: decompresses to more than {} MiB, the limit for this input (set "
                      "DLSIM_MAX_INPUT_MIB to raise it)",
                      file_name, limit >> 20));
    }
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END)
    return Error::InvalidArgument(file_name + ": not a complete gzip file (" + (z.msg ? z.msg : "truncated") +
                                  ")");
  return out;
}

Result<std::string> ReadMaybeGzipped(const std::string& path, int64_t limit) {
  DLSIM_ASSIGN_OR_RETURN(std::string raw, ReadTextFile(path, limit));
  if (!IsGzip(raw)) return raw;
  return Gunzip(raw, path, limit);
}

}  // namespace dlsim::io
