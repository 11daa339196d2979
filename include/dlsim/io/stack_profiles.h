// Software-stack profiles (data/catalog/stacks.yaml, embedded): `training.stack: NAME` in a
// training scenario sets the defaults of the stack's production recipes (distributed optimizer,
// overlapped gradient reduce and parameter gather, TP communication overlap, sequence
// parallelism, recomputation, fused attention, gradient reduction dtype) before the scenario's
// own keys are read, so explicit keys override them.
//
//   auto doc = ParseStackProfiles();                    // Result<Document>
//   MapReader profile = doc->Root().Section("stacks").Section("nemo-24.07");
//   std::vector<StackSetting> s = *DescribeStack("nemo-24.07");   // key, value, source
//
// Pure functions of the embedded file; thread-safe.
#ifndef DLSIM_IO_STACK_PROFILES_H_
#define DLSIM_IO_STACK_PROFILES_H_

#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {

// One setting of a profile: "parallel.zero", "1", and where the value comes from.
struct StackSetting {
  std::string key;
  std::string value;
  std::string source;
};

// The embedded stacks file, parsed.
Result<Document> ParseStackProfiles();

// The profile names, in file order.
std::vector<std::string> StackNames();

// The settings of profile `name` with their sources. Errors: an unknown name (the message lists
// the known ones) or a setting without a source.
Result<std::vector<StackSetting>> DescribeStack(const std::string& name);

}  // namespace dlsim::io

#endif  // DLSIM_IO_STACK_PROFILES_H_
