#include "dlsim/plan/evaluation.h"

#include <cstring>

namespace dlsim::plan {
namespace {

template <typename T>
void Put(const T& v, std::string* out) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

void PutString(const std::string& s, std::string* out) {
  Put(static_cast<uint32_t>(s.size()), out);
  out->append(s);
}

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  template <typename T>
  bool Get(T* v) {
    if (b_.size() - pos_ < sizeof(T)) return false;
    std::memcpy(v, b_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool GetString(std::string* s) {
    uint32_t n = 0;
    if (!Get(&n) || b_.size() - pos_ < n) return false;
    s->assign(b_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  bool done() const { return pos_ == b_.size(); }

 private:
  std::string_view b_;
  size_t pos_ = 0;
};

double* BreakdownFields(train::Breakdown& b, size_t i) {
  double* fields[] = {&b.compute_s,   &b.recompute_s, &b.tp_comm_s,      &b.cp_comm_s,   &b.pp_bubble_s,
                      &b.dp_comm_s,   &b.optimizer_s, &b.param_gather_s, &b.ep_comm_s,   &b.gemm_s,
                      &b.attention_s, &b.memory_s,    &b.host_wait_s,    &b.contention_s};
  return fields[i];
}
constexpr size_t kBreakdownFields = 14;

}  // namespace

void EncodeEvaluation(const Evaluation& e, std::string* out) {
  Put(static_cast<uint8_t>(e.feasible), out);
  PutString(e.reason, out);
  for (double v : {e.step_time_s, e.tokens_per_s_per_gpu, e.mfu, e.peak_memory_bytes}) Put(v, out);
  Put(static_cast<int32_t>(e.micro_batches), out);
  train::Breakdown b = e.breakdown;
  for (size_t i = 0; i < kBreakdownFields; ++i) Put(*BreakdownFields(b, i), out);
  PutString(e.bottleneck, out);
}

bool Evaluation::operator==(const Evaluation& other) const {
  std::string a, b;
  EncodeEvaluation(*this, &a);
  EncodeEvaluation(other, &b);
  return a == b;
}

Result<std::vector<Evaluation>> DecodeEvaluations(std::string_view bytes) {
  std::vector<Evaluation> out;
  Reader r(bytes);
  while (!r.done()) {
    Evaluation e;
    uint8_t feasible = 0;
    int32_t mbs = 0;
    bool ok = r.Get(&feasible) && r.GetString(&e.reason) && r.Get(&e.step_time_s) &&
              r.Get(&e.tokens_per_s_per_gpu) && r.Get(&e.mfu) && r.Get(&e.peak_memory_bytes) && r.Get(&mbs);
    for (size_t i = 0; ok && i < kBreakdownFields; ++i) ok = r.Get(BreakdownFields(e.breakdown, i));
    ok = ok && r.GetString(&e.bottleneck);
    if (!ok) return Error::Parse("truncated evaluation record " + std::to_string(out.size()));
    e.feasible = feasible != 0;
    e.micro_batches = mbs;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace dlsim::plan
