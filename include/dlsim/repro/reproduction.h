// Reproductions of published systems: each entry runs the paper's workload and baseline
// through dlsim and sets our ratio beside the paper's claim.
//
//   repro::ReproRegistry reg("reproduction");
//   repro::RegisterReproductions(reg);            // every module adds its entries
//   auto r = (*reg.Create("select-n"))->Run(env);  // Result<ReproResult>
//
// A mismatch is a finding to explain in docs/reproductions.md, never a number to tune toward.
#ifndef DLSIM_REPRO_REPRODUCTION_H_
#define DLSIM_REPRO_REPRODUCTION_H_

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/registry.h"
#include "dlsim/core/result.h"
#include "dlsim/gnn/graph.h"
#include "dlsim/studies/multitask/options.h"

namespace dlsim::repro {

// What a reproduction may use: the catalogs and calibrations, loaded once by the command.
struct ReproEnv {
  using EdgeListReader = std::function<Result<gnn::EdgeList>(const std::string& path, int skip_lines)>;
  // Parses multi-task workloads from YAML text (io/multitask_workload.h against the catalogs); the
  // second argument names the text in messages.
  using MultitaskReader = std::function<Result<std::vector<multitask::MultitaskOptions>>(
      std::string_view yaml, const std::string& file_name)>;
  ReproEnv(const catalog::Catalogs* c, std::string dir = "", EdgeListReader reader = {},
           MultitaskReader multitask = {})  // NOLINT: {&catalogs}
      : catalogs(c),
        graphs_dir(std::move(dir)),
        read_edge_list(std::move(reader)),
        read_multitask(std::move(multitask)) {}

  const catalog::Catalogs* catalogs = nullptr;  // borrowed, not null
  // Edge-list files a graph reproduction adds to its built-in graphs (`dlsim repro NAME --graphs DIR`):
  // the folder (empty: built-in graphs only) and the reader the command injects (io's edge-list
  // parser; it skips `skip_lines` leading lines). Reproductions never open files themselves.
  std::string graphs_dir;
  EdgeListReader read_edge_list;
  // The multi-task workload reader the command injects (a reproduction's workload zoo is YAML that it
  // embeds; YAML is read in io, above this module). Empty: reproductions that need it fail.
  MultitaskReader read_multitask;
  // The real graphs shipped with dlsim (cnr-2000, ogbl-ddi: io/shipped_graphs.h), name and edges as
  // read (directed arcs), which the command injects; graph reproductions add points on them beside
  // R-MAT. Empty (as in unit tests): those points are left out.
  struct NamedEdgeList {
    std::string name;
    std::shared_ptr<const gnn::EdgeList> edges;
    bool directed = true;  // the file's edges are arcs (cnr-2000); false: each undirected pair once
  };
  using ShippedGraphsReader = std::function<Result<std::vector<NamedEdgeList>>()>;
  ShippedGraphsReader read_shipped_graphs;
};

// One point of a paper's figure or table beside ours at the same setting (a `points` table).
struct ReproPoint {
  std::string point;  // the setting, e.g. "qwen2.5-7b 256K"
  double paper = 0;   // the paper's value there (> 0)
  double ours = 0;    // ours at the same setting (<= 0: could not run there, and the row says why)
  std::string note;   // optional: e.g. "infeasible: out of memory"
};

struct ReproResult {
  std::string name;        // registry name, e.g. "select-n"
  std::string claim;       // the paper's claim in words
  double paper_ratio = 0;  // the headline number at the paper's operating point (e.g. 1.85 for 1.85x);
                           // 0: the paper states no number to compare (no verdict)
  double our_ratio = 0;    // ours at the same operating point, never a maximum over our own sweep
  // The operating point the headline is taken at, declared from the paper before running (e.g.
  // "Qwen2.5-7B, 256K context, 32 H100"). Empty: not yet declared, which the verdict says.
  std::string operating_point;
  // Where the verdict is off: the measured cause, in words (docs/reproductions.md has the numbers).
  std::string off_cause;
  // The paper's figure or table point for point (empty where the paper has none).
  std::vector<ReproPoint> points;
  std::string workload;  // what was simulated
  std::string baseline;  // what it is compared against
  std::string notes;     // choices made where the paper is silent, and findings
  // Extra rows (e.g. the ratio as an unknown setting varies): printed as a table and
  // included in JSON as "details".
  nlohmann::ordered_json details = nlohmann::ordered_json::array();
  // A measured pass beside the headline: rows comparing the model's prediction with a measurement
  // (e.g. kernel times measured on a lent GPU). Printed as a second table; in JSON as "measured"
  // (absent when empty).
  nlohmann::ordered_json measured = nlohmann::ordered_json::array();
  // The same comparison on the real graphs shipped with dlsim (ReproEnv::read_shipped_graphs), beside
  // a headline taken on a generated graph: printed as a third table; in JSON as "real_graphs" (absent
  // when empty).
  nlohmann::ordered_json real_graphs = nlohmann::ordered_json::array();
};

class Reproduction {
 public:
  virtual ~Reproduction() = default;
  virtual Result<ReproResult> Run(const ReproEnv& env) const = 0;
};

using ReproRegistry = Registry<Reproduction>;

// Registers every reproduction (src/repro/registry.cc lists them, one line per system).
void RegisterReproductions(ReproRegistry& reg);

}  // namespace dlsim::repro

#endif  // DLSIM_REPRO_REPRODUCTION_H_
