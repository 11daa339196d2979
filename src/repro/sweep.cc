#include "sweep.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace dlsim::repro::internal {

double Ratio(double num, double den) { return den > 0 ? num / den : 0.0; }

void RatioStats::Add(double ratio) {
  ++points;
  if (!(ratio > 0)) return;
  ++counted;
  max = std::max(max, ratio);
  sum += ratio;
  log_sum += std::log(ratio);
}

double RatioStats::Mean() const { return counted > 0 ? sum / counted : 0.0; }

double RatioStats::GeoMean() const { return counted > 0 ? std::exp(log_sum / counted) : 0.0; }

void Sweep::Add(nlohmann::ordered_json row, double ratio) {
  details_.push_back(std::move(row));
  added_.push_back(ratio);
  ratios_.Add(ratio);
}

void Sweep::AddBeside(nlohmann::ordered_json row) { details_.push_back(std::move(row)); }

nlohmann::ordered_json Sweep::TakeDetails() {
  nlohmann::ordered_json out = std::move(details_);
  details_ = nlohmann::ordered_json::array();
  return out;
}

}  // namespace dlsim::repro::internal
