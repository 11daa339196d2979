// gzip-compressed input files: told by their magic bytes (1f 8b), whatever the file name, and
// decompressed with zlib within a size limit.
//
//   Result<std::string> text = io::ReadMaybeGzipped("edges.csv.gz", io::MaxInputFileBytes() * 16);
//
// Errors (kInvalidArgument, naming the file): a truncated or corrupt stream ("not a complete gzip
// file (...)"), or more than `limit` bytes out ("decompresses to more than N MiB ... set
// DLSIM_MAX_INPUT_MIB to raise it"). Reading errors are io::ReadTextFile's. Thread-safe.
#ifndef DLSIM_IO_GZIP_H_
#define DLSIM_IO_GZIP_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "dlsim/core/result.h"

namespace dlsim::io {

// True when `bytes` starts with gzip's magic bytes.
bool IsGzip(std::string_view bytes);
// gzip bytes -> their contents, refusing more than `limit` bytes out. Errors name `file_name`.
Result<std::string> Gunzip(std::string_view gz, const std::string& file_name, int64_t limit);
// Reads `path` (a regular file of at most `limit` bytes) and, when it is gzip, decompresses it
// (at most `limit` bytes out); otherwise returns it as it is.
Result<std::string> ReadMaybeGzipped(const std::string& path, int64_t limit);

}  // namespace dlsim::io

#endif  // DLSIM_IO_GZIP_H_
