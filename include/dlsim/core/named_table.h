// A table of named entries with aliases, shared by the hardware and model catalogs.
//
// T must have `std::string name` and `std::vector<std::string> aliases`. Lookups accept the
// canonical name or an alias, case-insensitively; unknown names give an error that suggests
// the closest known name (UnknownNameMessage).
//
//   NamedTable<GpuSpec> gpus("GPU");
//   DLSIM_RETURN_IF_ERROR(gpus.Add(spec));
//   auto g = gpus.Find("h100");                 // Result<const GpuSpec*>
//
// Not thread-safe for mutation; concurrent const use is safe. Pointers returned by Find stay
// valid until that entry is replaced.
#ifndef DLSIM_CORE_NAMED_TABLE_H_
#define DLSIM_CORE_NAMED_TABLE_H_

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/core/strings.h"

namespace dlsim {

template <typename T>
class NamedTable {
 public:
  // `kind` names the entries in messages ("GPU", "model").
  explicit NamedTable(std::string kind) : kind_(std::move(kind)) {}

  // Adds `entry`, or replaces the entry with the same canonical name (its old aliases are
  // dropped). Error (kInvalidArgument) when the name is empty or when the name or an alias is
  // already the name or alias of another entry.
  Status Add(T entry) {
    if (entry.name.empty()) return Error::InvalidArgument(kind_ + " entry without a name");
    const std::string name = Lower(entry.name);
    std::vector<std::string> keys = {name};
    for (const auto& a : entry.aliases) {
      std::string la = Lower(a);
      if (std::find(keys.begin(), keys.end(), la) == keys.end()) keys.push_back(la);
    }
    for (const auto& k : keys) {
      auto it = index_.find(k);
      if (it != index_.end() && it->second != name) {
        return Error::InvalidArgument(kind_ + " '" + entry.name + "': name or alias '" + k +
                                      "' is already used by '" + entries_.at(it->second).name + "'");
      }
    }
    if (auto old = entries_.find(name); old != entries_.end()) {
      for (const auto& a : old->second.aliases) index_.erase(Lower(a));
    }
    for (const auto& k : keys) index_[k] = name;
    entries_.insert_or_assign(name, std::move(entry));
    return Status::Ok();
  }

  // The entry, or nullptr when `name_or_alias` is unknown.
  const T* FindOrNull(std::string_view name_or_alias) const {
    auto it = index_.find(Lower(name_or_alias));
    return it == index_.end() ? nullptr : &entries_.at(it->second);
  }
  // The entry; error (kNotFound) "unknown <kind> 'x' (did you mean 'y'?); known: a, b" with
  // the suggestion drawn from names and aliases and the canonical names listed.
  Result<const T*> Find(std::string_view name_or_alias) const {
    if (const T* t = FindOrNull(name_or_alias)) return t;
    std::string msg = "unknown " + kind_ + " '" + std::string(name_or_alias) + "'";
    if (auto m = ClosestMatch(name_or_alias, NamesAndAliases())) msg += " (did you mean '" + *m + "'?)";
    return Error::NotFound(msg + "; known: " + Join(Names(), ", "));
  }

  // Canonical names, sorted.
  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : entries_) out.push_back(v.name);
    return out;
  }
  // Canonical names and aliases, sorted.
  std::vector<std::string> NamesAndAliases() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : entries_) {
      out.push_back(v.name);
      out.insert(out.end(), v.aliases.begin(), v.aliases.end());
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  // All entries, sorted by canonical name.
  std::vector<const T*> Entries() const {
    std::vector<const T*> out;
    for (const auto& [k, v] : entries_) out.push_back(&v);
    return out;
  }
  size_t size() const { return entries_.size(); }
  const std::string& kind() const { return kind_; }

 private:
  static std::string Lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  }

  std::string kind_;
  std::map<std::string, T> entries_;          // lower-case canonical name -> entry
  std::map<std::string, std::string> index_;  // lower-case name or alias -> entries_ key
};

}  // namespace dlsim

#endif  // DLSIM_CORE_NAMED_TABLE_H_
