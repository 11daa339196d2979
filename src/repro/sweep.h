// The sweep every reproduction runs: points (settings the paper leaves open, or its table),
// one detail row per point with the ratio of ours over the baseline, a headline statistic of
// those ratios, and, inside a point, the fastest of several configurations. Private to
// src/repro.
//
//   internal::Sweep sweep;
//   for (const Point& p : kPoints) {
//     internal::Fastest<int> ours, base;
//     for (int cp : kCps) ours.Keep(RunOurs(p, cp), cp);   // ...
//     const double ratio = internal::Ratio(base.run.mean_s, ours.run.mean_s);
//     sweep.Add({{"point", p.name}, {"ratio", ratio}}, ratio);
//   }
//   out.our_ratio = sweep.ratios().max;       // or .Mean(), .GeoMean(), sweep.ratio(0)
//   out.details = sweep.TakeDetails();
//
// Values; not thread-safe.
#ifndef DLSIM_SRC_REPRO_SWEEP_H_
#define DLSIM_SRC_REPRO_SWEEP_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace dlsim::repro::internal {

// num / den, or 0 when den is not positive.
double Ratio(double num, double den);

// Statistics of a series of ratios. A ratio <= 0 marks a point where one side is infeasible
// or that was skipped: it is counted in `points` but in no statistic.
struct RatioStats {
  int points = 0;   // ratios added
  int counted = 0;  // of which positive
  double max = 0;   // largest positive ratio (0 when none)
  double sum = 0;   // of the positive ratios, in the order added
  double log_sum = 0;

  void Add(double ratio);
  int skipped() const { return points - counted; }
  double Mean() const;     // sum / counted, 0 when none is positive
  double GeoMean() const;  // exp(log_sum / counted), 0 when none is positive
};

// The detail rows of a sweep, in the order added, and the statistics of their ratios.
class Sweep {
 public:
  // Appends `row` (the caller writes the ratio into the row where its table wants it) and adds
  // `ratio` to ratios().
  void Add(nlohmann::ordered_json row, double ratio);
  // Appends a row that is shown but does not enter the headline (a control setting).
  void AddBeside(nlohmann::ordered_json row);

  const RatioStats& ratios() const { return ratios_; }
  // The ratio given to the i-th Add() call. Precondition: i < ratios().points.
  double ratio(size_t i) const { return added_[i]; }
  size_t rows() const { return details_.size(); }
  // The rows as a JSON array (ReproResult::details); leaves the sweep without rows.
  nlohmann::ordered_json TakeDetails();

 private:
  nlohmann::ordered_json details_ = nlohmann::ordered_json::array();
  std::vector<double> added_;
  RatioStats ratios_;
};

// The fastest feasible of several runs of one side of a comparison, with the configuration
// that gave it. Run is any type with `feasible` and `mean_s` (seconds; smaller is better); the
// first of equally fast runs is kept.
template <typename Run, typename Config>
struct Fastest {
  Run run{};        // value-initialised until found
  Config config{};  // value-initialised until found
  bool found = false;

  void Keep(const Run& r, Config c) {
    if (!r.feasible || (found && !(r.mean_s < run.mean_s))) return;
    run = r;
    config = std::move(c);
    found = true;
  }
};

}  // namespace dlsim::repro::internal

#endif  // DLSIM_SRC_REPRO_SWEEP_H_
