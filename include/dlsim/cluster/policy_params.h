// A cluster policy's own parameters: the `policy:` keys it reads, declared with their kind,
// default and accepted range next to the policy (its ParamSpec list, registered with it), and the
// values a scenario set (ParamSet). The scenario reader checks every key against its spec
// (io/cluster_scenario.cc, with file and line); a policy turns the set into its own typed struct
// (e.g. policies/goldminer.h: GoldMinerParams::From), so no shared struct carries a paper's fields.
//
//   const std::vector<ParamSpec> keys = {NumberKey("goldminer_worker_cores", 1, 0.001, 1e4, "...")};
//   ParamSet set;  set.Set("goldminer_worker_cores", 4.0);
//   double cores = set.Number(keys[0]);   // 4; without Set: the spec's default, 1
#ifndef DLSIM_CLUSTER_POLICY_PARAMS_H_
#define DLSIM_CLUSTER_POLICY_PARAMS_H_

#include <limits>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace dlsim::cluster {

using ParamValue = std::variant<bool, double, std::string, std::vector<double>>;

// One key: its default (whose alternative is the key's kind), and for numbers (each entry of a
// list) the accepted range lo..hi (lo excluded when lo_open), for text the accepted choices.
struct ParamSpec {
  std::string key;
  ParamValue fallback;
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false;
  std::vector<std::string> choices;  // text: the accepted values (empty: any)
  bool increasing = false;           // number lists: strictly increasing
  std::string doc;
};

ParamSpec FlagKey(std::string key, bool fallback, std::string doc);
ParamSpec NumberKey(std::string key, double fallback, double lo, double hi, std::string doc);
ParamSpec TextKey(std::string key, std::string fallback, std::vector<std::string> choices, std::string doc);
// A list of numbers, each in (0, hi], strictly increasing.
ParamSpec IncreasingListKey(std::string key, std::vector<double> fallback, double hi, std::string doc);

// Why `value` does not satisfy `spec` (wrong kind, out of range, not a choice, not increasing);
// nullopt when it does. The one rule every entry point applies.
std::optional<std::string> CheckParam(const ParamSpec& spec, const ParamValue& value);

// The values a scenario (or a test, a sweep, a reproduction) set, by key. Getters return the set
// value, or the spec's default when the key was not set; a getter of the wrong kind is a
// programming error and returns the default.
class ParamSet {
 public:
  void Set(const std::string& key, ParamValue value) { values_[key] = std::move(value); }
  bool Flag(const ParamSpec& spec) const;
  double Number(const ParamSpec& spec) const;
  std::string Text(const ParamSpec& spec) const;
  std::vector<double> Numbers(const ParamSpec& spec) const;

 private:
  template <typename T>
  T Get(const ParamSpec& spec) const;
  std::map<std::string, ParamValue> values_;
};

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_POLICY_PARAMS_H_
