// dlsim catalog list [KIND] | show NAME | import CONFIG.json [--json]: the hardware and model catalogs.
// Argument parsing only; the command is app::RunCatalogCommand.
#include <iostream>
#include <memory>

#include "commands.h"
#include "dlsim/app/catalog_command.h"

namespace dlsim::cli {

void AddCatalogCommands(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand("catalog", "Show the hardware and model catalogs (docs/catalog.md)");
  cmd->require_subcommand(1);
  cmd->fallthrough();  // `dlsim catalog list --catalog FILE` works too
  auto run = [&global](std::shared_ptr<app::CatalogArgs> a) {
    return [&global, a] { Exit(app::RunCatalogCommand(*a, global, CommandOut(), std::cerr)); };
  };

  auto list_args = std::make_shared<app::CatalogArgs>();
  auto* list = cmd->add_subcommand("list", "Tables of GPUs, nodes, networks and models with key numbers");
  list->add_option("kind", list_args->kind,
                   "Restrict to one kind: gpus, nodes, networks, models or multimodal");
  list->add_flag("--json", list_args->json, "Print JSON (keys as in the catalog YAML) instead of tables");
  list->fallthrough();
  list->callback(run(list_args));

  auto show_args =
      std::make_shared<app::CatalogArgs>(app::CatalogArgs{.verb = app::CatalogArgs::Verb::kShow});
  auto* show = cmd->add_subcommand("show", "All fields of one GPU, node, network or model, with units");
  show->add_option("name", show_args->name, "Canonical name or alias, e.g. h100-sxm5-80gb, h100, dgx-h100")
      ->required();
  show->add_flag("--json", show_args->json, "Print JSON (keys as in the catalog YAML)");
  show->fallthrough();
  show->callback(run(show_args));

  auto import_args =
      std::make_shared<app::CatalogArgs>(app::CatalogArgs{.verb = app::CatalogArgs::Verb::kImport});
  auto* import =
      cmd->add_subcommand("import", "Print a catalog entry for a Hugging Face config.json (docs/catalog.md)");
  import
      ->add_option("file", import_args->file,
                   "config.json of a Llama, Mistral, Qwen2/3, GPT-2, OPT or BERT model")
      ->required();
  import->add_option("--name", import_args->name, "Catalog name (default: the config's folder)");
  import->callback(run(import_args));
}

}  // namespace dlsim::cli
