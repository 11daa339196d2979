// The software-stack profiles (see the header).
#include "dlsim/io/stack_profiles.h"

#include "dlsim/core/strings.h"
#include "dlsim/io/embedded.h"

namespace dlsim::io {

Result<Document> ParseStackProfiles() {
  return ParseYaml(embedded::StacksYaml(), "data/catalog/stacks.yaml");
}

std::vector<std::string> StackNames() {
  auto doc = ParseStackProfiles();
  if (!doc.ok()) return {};
  return doc->Root().Section("stacks").Keys();
}

Result<std::vector<StackSetting>> DescribeStack(const std::string& name) {
  DLSIM_ASSIGN_OR_RETURN(Document doc, ParseStackProfiles());
  const MapReader stacks = doc.Root().Section("stacks");
  if (!stacks.Has(name))
    return Error::NotFound("unknown stack '" + name + "'; allowed: " + Join(stacks.Keys(), ", "));
  const MapReader profile = stacks.Section(name);
  const MapReader sources = profile.Section("sources");
  std::vector<StackSetting> out;
  for (const char* section : {"training", "parallel", "framework"}) {
    const MapReader s = profile.Section(section);
    for (const std::string& key : s.Keys()) {
      const std::string path = std::string(section) + "." + key;
      std::optional<std::string> source = sources.Find<std::string>(path);
      if (!source || source->empty())
        return Error::Parse("data/catalog/stacks.yaml: stack " + name + ": " + path + " has no source");
      out.push_back({path, s.Get<std::string>(key, ""), *source});
    }
  }
  // calibration.<architecture>.<constant>, and calibration.<architecture>.attention_backends.<family>
  const MapReader cal = profile.Section("calibration");
  for (const std::string& arch : cal.Keys()) {
    const MapReader a = cal.Section(arch);
    for (const std::string& key : a.Keys()) {
      const MapReader nested = a.Section(key);
      for (const std::string& sub : nested.present() ? nested.Keys() : std::vector<std::string>{""}) {
        const std::string path = "calibration." + arch + "." + key + (sub.empty() ? "" : "." + sub);
        std::optional<std::string> source = sources.Find<std::string>(path);
        if (!source || source->empty())
          return Error::Parse("data/catalog/stacks.yaml: stack " + name + ": " + path + " has no source");
        out.push_back(
            {path, sub.empty() ? a.Get<std::string>(key, "") : nested.Get<std::string>(sub, ""), *source});
      }
    }
  }
  return out;
}

}  // namespace dlsim::io
