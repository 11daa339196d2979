// A speed model from a throughput table: steps per second per job type, GPU type and GPU count,
// measured consolidated (one node) and unconsolidated (spread), as in Gavel's
// simulation_throughputs.json ({"v100": {"('ResNet-50 (batch size 64)', 4)": {"null": 3.1, ...}},
// "v100_unconsolidated": {...}}). Only the isolated ("null") throughput is used; co-location
// entries are ignored; a throughput of 0 means the configuration cannot run. A job spread over nodes uses the
// unconsolidated entry when the table has one, else the consolidated one.
#ifndef DLSIM_CLUSTER_THROUGHPUT_TABLE_H_
#define DLSIM_CLUSTER_THROUGHPUT_TABLE_H_

#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "dlsim/cluster/speed.h"

namespace dlsim::cluster {

struct ThroughputTable {
  // (job type, GPU type, GPUs, consolidated) -> steps per second.
  std::map<std::tuple<std::string, std::string, int, bool>, double> steps_per_s;
  std::vector<std::string> job_types;  // sorted, unique
};

// Parses Gavel's JSON. Errors: not JSON, a key that is not "('NAME', N)", a negative value.
Result<ThroughputTable> ParseGavelThroughputs(std::string_view text, const std::string& file_name);

// One job type's speeds.
class ThroughputSpeed final : public SpeedModel {
 public:
  ThroughputSpeed(std::shared_ptr<const ThroughputTable> table, std::string job_type)
      : table_(std::move(table)), job_type_(std::move(job_type)) {}
  Result<double> StepsPerSecond(const PlacementShape& shape, const ClusterSpec& spec) const override;
  std::vector<ShapeSpeed> Evaluated(const ClusterSpec& spec) const override { return {}; }

 private:
  std::shared_ptr<const ThroughputTable> table_;
  std::string job_type_;
};

// A speed book with one ThroughputSpeed per job type of the table.
void AddThroughputTable(std::shared_ptr<const ThroughputTable> table, SpeedBook& book);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_THROUGHPUT_TABLE_H_
