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

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/registry.h"
#include "dlsim/core/result.h"

namespace dlsim::repro {

// What a reproduction may use: the catalogs and calibrations, loaded once by the command.
struct ReproEnv {
  const catalog::Catalogs* catalogs = nullptr;  // borrowed, not null
};

struct ReproResult {
  std::string name;        // registry name, e.g. "select-n"
  std::string claim;       // the paper's claim in words
  double paper_ratio = 0;  // the headline number (e.g. 1.85 for "up to 1.85x")
  double our_ratio = 0;
  std::string workload;  // what was simulated
  std::string baseline;  // what it is compared against
  std::string notes;     // choices made where the paper is silent, and findings
  // Extra rows (e.g. the ratio as an unknown setting varies): printed as a table and
  // included in JSON as "details".
  nlohmann::ordered_json details = nlohmann::ordered_json::array();
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
