// The `data:` section of a training scenario -> data::DataOptions (docs/data.md).
//
//   data:
//     lengths: {file: lengths/distca_wlbllm_hist.json}     # relative to the scenario's folder
//     # lengths: {distribution: lognormal, median: 1500, sigma: 1.6}
//     max_len: 32768
//     policy: wlb
//     seed: 7
//     steps: 20
//
//   io::MapReader data = root.Section("data");
//   data::DataOptions opts = io::ReadDataSection(data, io::FolderOf(path));
//   DLSIM_RETURN_IF_ERROR(data.document().status());
//
// Length files are read here (models never open files) and parsed with
// data::ParseLengthFile; the spec is then checked with data::MakeLengthSource.
#ifndef DLSIM_IO_DATA_SECTION_H_
#define DLSIM_IO_DATA_SECTION_H_

#include <string>
#include <string_view>

#include "dlsim/core/result.h"
#include "dlsim/data/data_options.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {

// Reads the mapping `data` (absent: the defaults). Every problem is recorded in the document,
// in the reader's "FILE:L:C: data.KEY: ..." form, and the default is kept for that key:
// unknown keys (also parameters that the chosen distribution does not take), wrong types,
// out-of-range values, both or neither of lengths.file / lengths.distribution, an unknown
// distribution or policy (with the allowed names), a length file that cannot be read or parsed.
// `base_dir` is the scenario file's folder ("" = the working directory); absolute paths are
// used as they are.
data::DataOptions ReadDataSection(const MapReader& data, const std::string& base_dir);

// Parses a YAML document and reads its top-level `data:` section (other top-level keys are
// ignored). Errors: kParse for malformed YAML, kInvalidArgument listing every recorded error.
Result<data::DataOptions> ParseDataSection(std::string_view text, std::string file_name,
                                           const std::string& base_dir);

// The `data:` section that ReadDataSection reads back into `o` (every key written; ends with a newline):
// the distribution's parameters, inline empirical values and weights as lists, or a length file as
// its absolute path and column, so the section still reads from another folder (plan --write-best).
std::string FormatDataSectionYaml(const data::DataOptions& o);

// The folder part of a path ("a/b/c.yaml" -> "a/b", "c.yaml" -> "").
std::string FolderOf(const std::string& path);

}  // namespace dlsim::io

#endif  // DLSIM_IO_DATA_SECTION_H_
