// Policy parameter specs and sets; see the header.
#include "dlsim/cluster/policy_params.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dlsim::cluster {
namespace {

std::string Choices(const std::vector<std::string>& choices) {
  std::string out;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (i > 0) out += i + 1 == choices.size() ? " or " : ", ";
    out += "'" + choices[i] + "'";
  }
  return out;
}

std::optional<std::string> CheckNumber(const ParamSpec& spec, double v) {
  const bool low = spec.lo_open ? !(v > spec.lo) : !(v >= spec.lo);
  if (std::isfinite(v) && !low && v <= spec.hi) return std::nullopt;
  return fmt::format("expected a number in {}{:g}, {:g}], found {:g}", spec.lo_open ? "(" : "[", spec.lo,
                     spec.hi, v);
}

std::optional<std::string> CheckList(const ParamSpec& spec, const std::vector<double>& v) {
  for (double x : v)
    if (auto e = CheckNumber(spec, x)) return e;
  if (!spec.increasing) return std::nullopt;
  for (size_t i = 1; i < v.size(); ++i)
    if (!(v[i] > v[i - 1]))
      return fmt::format("expected strictly increasing thresholds, found {:g} after {:g} (entry {} of {})",
                         v[i], v[i - 1], i + 1, v.size());
  return std::nullopt;
}

}  // namespace

ParamSpec FlagKey(std::string key, bool fallback, std::string doc) {
  return {.key = std::move(key), .fallback = fallback, .doc = std::move(doc)};
}

ParamSpec NumberKey(std::string key, double fallback, double lo, double hi, std::string doc) {
  return {.key = std::move(key), .fallback = fallback, .lo = lo, .hi = hi, .doc = std::move(doc)};
}

ParamSpec TextKey(std::string key, std::string fallback, std::vector<std::string> choices, std::string doc) {
  return {.key = std::move(key),
          .fallback = std::move(fallback),
          .choices = std::move(choices),
          .doc = std::move(doc)};
}

ParamSpec IncreasingListKey(std::string key, std::vector<double> fallback, double hi, std::string doc) {
  return {.key = std::move(key),
          .fallback = std::move(fallback),
          .lo = 0,
          .hi = hi,
          .lo_open = true,
          .increasing = true,
          .doc = std::move(doc)};
}

std::optional<std::string> CheckParam(const ParamSpec& spec, const ParamValue& value) {
  if (value.index() != spec.fallback.index()) return "`" + spec.key + "` has the wrong kind of value";
  if (const double* d = std::get_if<double>(&value)) return CheckNumber(spec, *d);
  if (const auto* l = std::get_if<std::vector<double>>(&value)) return CheckList(spec, *l);
  const std::string* t = std::get_if<std::string>(&value);
  if (t == nullptr || spec.choices.empty()) return std::nullopt;
  if (std::find(spec.choices.begin(), spec.choices.end(), *t) != spec.choices.end()) return std::nullopt;
  return "expected " + Choices(spec.choices) + ", found '" + *t + "'";
}

template <typename T>
T ParamSet::Get(const ParamSpec& spec) const {
  auto it = values_.find(spec.key);
  if (it != values_.end())
    if (const T* v = std::get_if<T>(&it->second)) return *v;
  const T* d = std::get_if<T>(&spec.fallback);
  return d ? *d : T{};
}

bool ParamSet::Flag(const ParamSpec& spec) const { return Get<bool>(spec); }
double ParamSet::Number(const ParamSpec& spec) const { return Get<double>(spec); }
std::string ParamSet::Text(const ParamSpec& spec) const { return Get<std::string>(spec); }
std::vector<double> ParamSet::Numbers(const ParamSpec& spec) const { return Get<std::vector<double>>(spec); }

}  // namespace dlsim::cluster
