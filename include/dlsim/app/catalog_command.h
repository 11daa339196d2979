// `dlsim catalog list [KIND] | show NAME | import CONFIG.json` (docs/catalog.md): the hardware and model
// catalogs (embedded data plus --catalog files) as tables or JSON, and a catalog entry for a Hugging Face
// config.json. JSON keys are the YAML keys of docs/catalog.md, so units are in the key names.
//
//   int code = app::RunCatalogCommand({.verb = app::CatalogArgs::Verb::kShow, .name = "h100"}, {}, out, err);
#ifndef DLSIM_APP_CATALOG_COMMAND_H_
#define DLSIM_APP_CATALOG_COMMAND_H_

#include <ostream>
#include <string>

#include "dlsim/app/command.h"

namespace dlsim::app {

struct CatalogArgs {
  enum class Verb { kList, kShow, kImport };
  Verb verb = Verb::kList;
  std::string kind;  // list: gpus, nodes, networks, models, multimodals ("gpu" is "gpus"); empty: all
  std::string name;  // show: a name or alias; import: the entry's name (empty: the config's folder)
  std::string file;  // import: the config.json
  bool json = false;
};

// kExitOk; kExitUsage for an unknown kind or entry (with the closest name); kExitError for an unreadable
// catalog or config.
int RunCatalogCommand(const CatalogArgs& args, const CommonArgs& common, std::ostream& out,
                      std::ostream& err);

}  // namespace dlsim::app

#endif  // DLSIM_APP_CATALOG_COMMAND_H_
