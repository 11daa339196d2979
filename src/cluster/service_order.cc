#include "service_order.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace dlsim::cluster {

void ServiceOrder::Add(int j, int64_t held_milli, double base, int64_t arrival_ns, int64_t id) {
  const Entry e{base, arrival_ns, id, j};
  classes_[held_milli].insert(e);
  where_[j] = {held_milli, e};
}

void ServiceOrder::Remove(int j) {
  const auto& [held, e] = where_[j];
  auto c = classes_.find(held);
  assert(c != classes_.end() && c->second.count(e) == 1);
  c->second.erase(e);
  if (c->second.empty()) classes_.erase(c);
}

ServiceTail::ServiceTail(const ServiceOrder& order, double now_s, KeyFn key, NeedFn need)
    : now_s_(now_s), key_(std::move(key)), need_(std::move(need)), cum_{0} {
  cursors_.reserve(order.classes_.size());
  for (const auto& [held, set] : order.classes_) {
    cursors_.push_back({set.rbegin(), set.rend(), static_cast<double>(held) / 1000.0, {}});
    Refill(cursors_.back());
  }
}

// Takes the next run from the class's end: jobs whose bases are within the tolerance of the
// previous one's, ordered by their keys now (see the header on rounding).
void ServiceTail::Refill(Cursor& c) {
  c.run.clear();
  double low = 0;
  while (c.at != c.end) {
    const double base = c.at->base;
    const double slack = kBaseTolerance * (1 + std::abs(base) + std::abs(low) + 2 * c.gpus * now_s_);
    if (!c.run.empty() && low - base > slack) break;
    c.run.push_back(key_(c.at->job));
    low = base;
    ++c.at;
  }
  std::sort(c.run.begin(), c.run.end());
}

bool ServiceTail::Extend() {
  Cursor* worst = nullptr;
  for (Cursor& c : cursors_)
    if (!c.run.empty() && (!worst || c.run.back() > worst->run.back())) worst = &c;
  if (!worst) return false;
  keys_.push_back(worst->run.back());
  worst->run.pop_back();
  if (worst->run.empty()) Refill(*worst);
  cum_.push_back(cum_.back() + need_(std::get<3>(keys_.back())));
  return true;
}

int64_t ServiceTail::DemandAfter(const RankKey& x, int64_t cap) {
  if (cap <= 0) return 0;
  while (cum_.back() < cap && (keys_.empty() || keys_.back() > x) && Extend()) {
  }
  const size_t after =
      std::partition_point(keys_.begin(), keys_.end(), [&](const RankKey& k) { return k > x; }) -
      keys_.begin();
  return cum_[after];
}

std::pair<RankKey, int64_t> ServiceTail::Preempted(int64_t deficit) {
  assert(deficit > 0);
  while (cum_.back() < deficit && Extend()) {
  }
  assert(cum_.back() >= deficit);
  // The largest k with cum_[k] < deficit: the k-th worst-ranked job (0-based) is the one.
  const size_t k = std::partition_point(cum_.begin(), cum_.end(), [&](int64_t c) { return c < deficit; }) -
                   cum_.begin() - 1;
  return {keys_[k], cum_[k + 1] - cum_[k]};
}

}  // namespace dlsim::cluster
