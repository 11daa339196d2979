// Registry of named policies: name -> description -> factory.
//
// Every swappable algorithm (pipeline schedule, data policy, collective algorithm, serving
// scheduler, ...) has one. Builtins are registered by an explicit call (no static
// constructors); a Simulation or the CLI owns its registry instance.
//
//   dlsim::Registry<PipelineSchedule> reg("pipeline-schedule");
//   reg.Register("1f1b", "One forward, one backward (PipeDream-Flush)",
//                [] { return std::make_unique<OneFOneB>(); });
//   auto s = reg.Create("1f1b");   // Result<std::unique_ptr<PipelineSchedule>>
//
// Builtins (names fixed in the code, not user input) use RegisterBuiltin(), whose duplicate is a
// programming error that aborts; Register() is for names that come from outside.
//
// Unknown names are errors that list what exists and suggest the closest match.
// Not thread-safe for registration; Create() is const and safe once populated.
#ifndef DLSIM_CORE_REGISTRY_H_
#define DLSIM_CORE_REGISTRY_H_

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/core/strings.h"

namespace dlsim {

template <typename Interface, typename... Args>
class Registry {
 public:
  using Factory = std::function<std::unique_ptr<Interface>(Args...)>;
  struct Entry {
    std::string name;
    std::string description;
    Factory factory;
  };

  explicit Registry(std::string kind) : kind_(std::move(kind)) {}

  // Returns an error if `name` is already registered.
  Status Register(std::string name, std::string description, Factory factory) {
    if (entries_.count(name)) return Error::InvalidArgument(kind_ + " '" + name + "' is registered twice");
    entries_.emplace(name, Entry{name, std::move(description), std::move(factory)});
    return Status::Ok();
  }

  // Register() for a builtin entry. A name registered twice is a bug in the code that
  // registers builtins, not bad input: it prints the error to stderr and aborts.
  void RegisterBuiltin(std::string name, std::string description, Factory factory) {
    const Status s = Register(std::move(name), std::move(description), std::move(factory));
    if (s.ok()) return;
    std::fprintf(stderr, "dlsim: builtin registration failed: %s\n", s.error().message.c_str());
    std::abort();
  }

  Result<std::unique_ptr<Interface>> Create(const std::string& name, Args... args) const {
    auto it = entries_.find(name);
    if (it == entries_.end()) return Error::NotFound(UnknownNameMessage(kind_, name, Names()));
    return it->second.factory(std::forward<Args>(args)...);
  }

  bool Contains(const std::string& name) const { return entries_.count(name) > 0; }
  const std::string& kind() const { return kind_; }
  // Sorted by name.
  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    for (const auto& [n, e] : entries_) out.push_back(n);
    return out;
  }
  std::vector<const Entry*> Entries() const {
    std::vector<const Entry*> out;
    for (const auto& [n, e] : entries_) out.push_back(&e);
    return out;
  }

 private:
  std::string kind_;
  std::map<std::string, Entry> entries_;
};

}  // namespace dlsim

#endif  // DLSIM_CORE_REGISTRY_H_
