// Private helpers shared by the catalog loaders (catalog_loader.cc, model_catalog_loader.cc).
#ifndef DLSIM_SRC_IO_CATALOG_ENTRIES_H_
#define DLSIM_SRC_IO_CATALOG_ENTRIES_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/io/yaml_reader.h"
#include "dlsim/model/model_spec.h"
#include "dlsim/model/multimodal.h"

namespace dlsim::io::internal {

// One entry read from a file, waiting to be added once the whole file type-checks.
template <typename Spec>
struct Pending {
  MapReader entry;
  Spec spec;
};

// A required key when the entry is new, an optional one (keeping `current`) when it overrides.
template <typename T>
T Field(const MapReader& e, std::string_view key, T current, bool required, Range range = Range::Any()) {
  if (required) return e.Require<T>(key, range).value_or(current);
  return e.Get<T>(key, current, range);
}

// Reads name, aliases and source of an entry. `*found` is the existing entry named by `name`
// (canonical or alias) or nullptr; the returned spec starts from it, renamed to its canonical
// name, or from a default-constructed Spec.
template <typename Spec>
Spec StartEntry(const MapReader& e, const Spec* found) {
  Spec spec = found ? *found : Spec{};
  std::optional<std::string> name = e.Require<std::string>("name");
  if (!found && name) spec.name = *name;
  if (auto aliases = e.FindList<std::string>("aliases")) spec.aliases = *aliases;
  spec.source = e.Get<std::string>("source", spec.source);
  return spec;
}

// Adds every pending entry with `add`; the first failure becomes "FILE:L:C: PATH: message" at
// the entry.
template <typename Spec, typename AddFn>
Status AddAll(std::vector<Pending<Spec>>& pending, AddFn add) {
  for (auto& p : pending) {
    Status st = add(p.spec);
    if (!st.ok()) {
      return Error::InvalidArgument(FormatError(p.entry.document().file_name(), p.entry.location(),
                                                p.entry.path(), st.error().message));
    }
  }
  return Status::Ok();
}

// The `models:` entries of `root`, read against `models` (models.cc).
std::vector<Pending<model::ModelSpec>> ReadModelEntries(const MapReader& root,
                                                        const model::ModelCatalog& models);
// The `multimodal_models:` entries of `root` (model_catalog_loader.cc). Their `llm:` names a model that
// must be in `models` once the document's `models:` entries are added: ResolveMultimodalLlms looks them up.
std::vector<Pending<model::MultimodalSpec>> ReadMultimodalEntries(const MapReader& root,
                                                                  const model::MultimodalCatalog& multimodal);
Status ResolveMultimodalLlms(std::vector<Pending<model::MultimodalSpec>>& pending,
                             const model::ModelCatalog& models);

}  // namespace dlsim::io::internal

#endif  // DLSIM_SRC_IO_CATALOG_ENTRIES_H_
