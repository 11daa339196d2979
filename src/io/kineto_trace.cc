// Kineto / Chrome trace JSON -> validate::ProfiledStep (io/kineto_trace.h).
#include "dlsim/io/kineto_trace.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "dlsim/core/strings.h"
#include "dlsim/io/gzip.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {
namespace {

using Json = nlohmann::json;
using validate::ProfiledStep;
using validate::TracedOp;

// A trace is tens of megabytes of JSON per step; it may be this many times the input-file limit.
constexpr int64_t kTraceLimitFactor = 16;

// Field `key` of `e` when it is a string, else "" (nlohmann's value() throws on a field of another type).
std::string Str(const Json& e, const char* key) {
  auto it = e.find(key);
  return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Event `i`'s numeric field `key`; an error naming the event when it is missing or not a number.
Result<double> Number(const Json& e, const char* key, size_t i, const std::string& file) {
  auto it = e.find(key);
  if (it == e.end() || !it->is_number())
    return Error::InvalidArgument(fmt::format("{}: traceEvents[{}] ('{}'): '{}' is {}", file, i,
                                              Str(e, "name"), key,
                                              it == e.end() ? "missing" : "not a number"));
  return it->get<double>();
}

int64_t ExternalId(const Json& e) {
  auto args = e.find("args");
  if (args == e.end() || !args->is_object()) return -1;
  auto id = args->find("External id");
  return id != args->end() && id->is_number_integer() ? id->get<int64_t>() : -1;
}

// The operator's recorded inputs: dims as integers, types and concrete values as strings.
void ReadInputs(const Json& args, TracedOp& op) {
  if (auto d = args.find("Input Dims"); d != args.end() && d->is_array())
    for (const Json& one : *d) {
      std::vector<int64_t> dims;
      if (one.is_array())
        for (const Json& x : one)
          if (x.is_number_integer()) dims.push_back(x.get<int64_t>());
      op.dims.push_back(std::move(dims));
    }
  auto strings = [&](const char* key, std::vector<std::string>& out) {
    if (auto t = args.find(key); t != args.end() && t->is_array())
      for (const Json& x : *t) out.push_back(x.is_string() ? x.get<std::string>() : std::string());
  };
  strings("Input type", op.types);
  strings("Concrete Inputs", op.concrete);
}

bool IsLaunch(const std::string& cat, const std::string& name) {
  if (cat != "cuda_runtime" && cat != "cuda_driver") return false;
  return name.find("Launch") != std::string::npos || name.find("Memset") != std::string::npos ||
         name.find("Memcpy") != std::string::npos;
}

bool IsGpuActivity(const std::string& cat) {
  return cat == "kernel" || cat == "gpu_memset" || cat == "gpu_memcpy";
}

// The GPU's busy time (the union of its [start, end) activity intervals, sorted here) and span (first start
// to last end). `iv` is not empty.
void MeasureGpu(std::vector<std::pair<double, double>>& iv, ProfiledStep& step) {
  std::sort(iv.begin(), iv.end());
  double lo = iv.front().first, hi = iv.front().second;
  for (const auto& [a, b] : iv) {
    if (a > hi) {
      step.gpu_busy_us += hi - lo;
      lo = a;
    }
    hi = std::max(hi, b);
  }
  step.gpu_busy_us += hi - lo;
  step.gpu_span_us = hi - iv.front().first;
}

struct Builder {
  ProfiledStep step;
  std::map<int64_t, size_t> op_of_id;  // External id -> index in step.ops
  std::vector<std::pair<double, double>> gpu;
  bool shapes = false;

  Status Add(const Json& e, size_t i);
  Status AddOp(const Json& e, size_t i);
  Status AddGpu(const Json& e, size_t i);
};

Status Builder::AddOp(const Json& e, size_t i) {
  DLSIM_ASSIGN_OR_RETURN(double ts, Number(e, "ts", i, step.file));
  TracedOp op;
  op.name = Str(e, "name");
  op.cpu_start_us = ts;
  if (auto t = e.find("tid"); t != e.end() && t->is_number_integer()) op.thread = t->get<int>();
  if (auto args = e.find("args"); args != e.end() && args->is_object()) {
    ReadInputs(*args, op);
    shapes = shapes || args->contains("Input Dims");
  }
  if (op.name == "aten::scaled_dot_product_attention" && op.concrete.size() > 5 && !step.causal)
    step.causal = op.concrete[5] == "True";
  const int64_t id = ExternalId(e);
  if (id >= 0) op_of_id[id] = step.ops.size();
  step.ops.push_back(std::move(op));
  return Status::Ok();
}

Status Builder::AddGpu(const Json& e, size_t i) {
  DLSIM_ASSIGN_OR_RETURN(double ts, Number(e, "ts", i, step.file));
  DLSIM_ASSIGN_OR_RETURN(double dur, Number(e, "dur", i, step.file));
  dur = std::max(0.0, dur);
  gpu.emplace_back(ts, ts + dur);
  ++step.kernels;
  auto it = op_of_id.find(ExternalId(e));
  if (it == op_of_id.end()) {
    step.unlinked_gpu_us += dur;
    return Status::Ok();
  }
  TracedOp& op = step.ops[it->second];
  if (op.kernels++ == 0) op.first_kernel = Str(e, "name");
  op.gpu_us += dur;
  return Status::Ok();
}

Status Builder::Add(const Json& e, size_t i) {
  if (!e.is_object() || Str(e, "ph") != "X") return Status::Ok();
  const std::string cat = Str(e, "cat");
  const std::string name = Str(e, "name");
  if (cat == "cpu_op") return AddOp(e, i);
  if (IsGpuActivity(cat)) return AddGpu(e, i);
  if (IsLaunch(cat, name)) {
    DLSIM_ASSIGN_OR_RETURN(double ts, Number(e, "ts", i, step.file));
    DLSIM_ASSIGN_OR_RETURN(double dur, Number(e, "dur", i, step.file));
    step.launches.push_back({ts, std::max(0.0, dur)});
  } else if (cat == "user_annotation" && name.rfind("Optimizer.step", 0) == 0 && !step.optimizer_start_us) {
    DLSIM_ASSIGN_OR_RETURN(double ts, Number(e, "ts", i, step.file));
    step.optimizer_start_us = ts;
  }
  return Status::Ok();
}

std::string DeviceName(const Json& j) {
  auto d = j.find("deviceProperties");
  if (d == j.end() || !d->is_array() || d->empty() || !(*d)[0].is_object()) return "";
  return Str((*d)[0], "name");
}

// Kineto writes operators before or after their kernels; joining needs every operator first.
Status AddAll(const Json& events, Builder& b) {
  for (size_t i = 0; i < events.size(); ++i)
    if (events[i].is_object() && Str(events[i], "cat") == "cpu_op")
      DLSIM_RETURN_IF_ERROR(b.Add(events[i], i));
  for (size_t i = 0; i < events.size(); ++i)
    if (!events[i].is_object() || Str(events[i], "cat") != "cpu_op")
      DLSIM_RETURN_IF_ERROR(b.Add(events[i], i));
  return Status::Ok();
}

}  // namespace

Result<ProfiledStep> ParseKinetoTrace(std::string_view text, const std::string& file_name) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    return Error::InvalidArgument(fmt::format("{}:{}: not valid JSON: {}", file_name,
                                              LineColumn(text, e.byte > 0 ? e.byte - 1 : 0), e.what()));
  } catch (const Json::exception& e) {  // a number out of range (1e400) has no position
    return Error::InvalidArgument(fmt::format("{}: not valid JSON: {}", file_name, e.what()));
  }
  if (!j.is_object() || !j.contains("traceEvents") || !j["traceEvents"].is_array())
    return Error::InvalidArgument(file_name +
                                  ": not a Kineto / Chrome trace: no 'traceEvents' list (export one step "
                                  "with torch.profiler's export_chrome_trace)");
  Builder b;
  b.step.file = file_name;
  b.step.device = DeviceName(j);
  DLSIM_RETURN_IF_ERROR(AddAll(j["traceEvents"], b));
  if (b.gpu.empty())
    return Error::InvalidArgument(
        file_name +
        ": the trace has no GPU kernels; profile with activities=[ProfilerActivity.CPU, "
        "ProfilerActivity.CUDA]");
  if (!b.shapes)
    return Error::InvalidArgument(file_name +
                                  ": its operators carry no input shapes; profile with record_shapes=True");
  MeasureGpu(b.gpu, b.step);
  std::erase_if(b.step.ops, [](const TracedOp& op) { return op.kernels == 0; });
  std::stable_sort(b.step.ops.begin(), b.step.ops.end(),
                   [](const TracedOp& x, const TracedOp& y) { return x.cpu_start_us < y.cpu_start_us; });
  std::sort(b.step.launches.begin(), b.step.launches.end(),
            [](const auto& x, const auto& y) { return x.start_us < y.start_us; });
  return std::move(b.step);
}

Result<ProfiledStep> ReadKinetoTrace(const std::string& path) {
  const int64_t limit = MaxInputFileBytes() * kTraceLimitFactor;
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadMaybeGzipped(path, limit));
  return ParseKinetoTrace(text, path);
}

}  // namespace dlsim::io
