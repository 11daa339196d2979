// The decision tree of compression options: generate every path, prune by the three rules, expand the
// device choices (include/dlsim/studies/compress/option_tree.h).
#include "dlsim/studies/compress/option_tree.h"

#include <array>
#include <utility>

namespace dlsim::compress {
namespace {

enum class Transition { kNone, kCompress, kDecompress, kDecompressCompress };
constexpr std::array<Transition, 4> kTransitions = {Transition::kNone, Transition::kCompress,
                                                    Transition::kDecompress, Transition::kDecompressCompress};
constexpr std::array<Routine, 7> kRoutines = {
    Routine::kAllReduce, Routine::kReduceScatter, Routine::kReduce, Routine::kAllGather,
    Routine::kBroadcast, Routine::kAllToAll,      Routine::kGather};

// A scheme shape: the phases' scopes and roles, and the (first, second) step pairs.
struct Shape {
  bool hierarchical;
  std::vector<std::pair<Scope, StepRole>> phases;
  std::vector<std::pair<int, int>> pairs;
};

std::vector<Shape> Shapes() {
  using S = Scope;
  using R = StepRole;
  return {
      {false, {{S::kFlat, R::kIndivisible}}, {}},
      {false, {{S::kFlat, R::kFirst}, {S::kFlat, R::kSecond}}, {{0, 1}}},
      {true, {{S::kIntra, R::kFirst}, {S::kInter, R::kIndivisible}, {S::kIntra, R::kSecond}}, {{0, 2}}},
      {true,
       {{S::kIntra, R::kFirst}, {S::kInter, R::kFirst}, {S::kInter, R::kSecond}, {S::kIntra, R::kSecond}},
       {{0, 3}, {1, 2}}},
  };
}

bool Rule2Steps(const Shape& s, const std::vector<Routine>& r) {
  for (size_t i = 0; i < r.size(); ++i) {
    const Routine x = r[i];
    switch (s.phases[i].second) {
      case StepRole::kIndivisible:
        if (x != Routine::kAllReduce && x != Routine::kAllGather) return false;
        break;
      case StepRole::kFirst:
        if (x != Routine::kReduceScatter && x != Routine::kReduce && x != Routine::kAllToAll &&
            x != Routine::kGather)
          return false;
        break;
      case StepRole::kSecond:
        if (x != Routine::kAllGather && x != Routine::kBroadcast) return false;
        break;
    }
  }
  return true;
}

bool Rule3Pairs(const Shape& s, const std::vector<Routine>& r) {
  for (auto [a, b] : s.pairs) {
    const bool scatter_like = r[a] == Routine::kReduceScatter || r[a] == Routine::kAllToAll;
    if (r[b] != (scatter_like ? Routine::kAllGather : Routine::kBroadcast)) return false;
  }
  return true;
}

bool FitsData(Routine x, StepRole role, bool compressed) {
  switch (x) {
    case Routine::kAllReduce:
    case Routine::kReduceScatter:
    case Routine::kReduce:
      return !compressed;
    case Routine::kAllToAll:
    case Routine::kGather:
      return compressed;
    case Routine::kAllGather:
      return compressed || role == StepRole::kSecond;  // an indivisible all-gather is for compressed data
    case Routine::kBroadcast:
      return true;
  }
  return false;
}

// Compressed data received by this phase must be aggregated (decompressed) before it moves on.
bool Aggregates(StepRole role, bool compressed) { return compressed && role != StepRole::kSecond; }

// Rule 1 on one path; on success, appends the operations (devices GPU) to `ops`.
bool Rule1Connections(const Shape& s, const std::vector<Routine>& r, const std::vector<Transition>& t,
                      std::vector<Op>& ops) {
  bool compressed = false, must_decompress = false;
  for (size_t b = 0; b <= r.size(); ++b) {
    const Transition x = t[b];
    const bool decompress = x == Transition::kDecompress || x == Transition::kDecompressCompress;
    if (must_decompress && !decompress) return false;  // aggregation needs the data decompressed
    if (!must_decompress && x == Transition::kDecompressCompress) return false;  // a pointless round trip
    if (x == Transition::kCompress && compressed) return false;
    if (decompress && !compressed) return false;
    if (decompress) ops.push_back({.kind = OpKind::kDecompress});
    if (x == Transition::kCompress || x == Transition::kDecompressCompress)
      ops.push_back({.kind = OpKind::kCompress});
    if (x == Transition::kCompress || x == Transition::kDecompressCompress) compressed = true;
    if (x == Transition::kDecompress) compressed = false;
    if (b == r.size()) break;
    const auto [scope, role] = s.phases[b];
    if (!FitsData(r[b], role, compressed)) return false;
    ops.push_back(
        {.kind = OpKind::kComm, .routine = r[b], .scope = scope, .role = role, .compressed = compressed});
    must_decompress = Aggregates(role, compressed);
  }
  return !compressed;
}

// Every device assignment of the compression operations of `base`.
void ExpandDevices(const Option& base, std::vector<Option>& out) {
  std::vector<size_t> slots;
  for (size_t i = 0; i < base.ops.size(); ++i)
    if (base.ops[i].kind != OpKind::kComm) slots.push_back(i);
  for (unsigned mask = 0; mask < (1u << slots.size()); ++mask) {
    Option o = base;
    for (size_t k = 0; k < slots.size(); ++k)
      o.ops[slots[k]].device = (mask >> k) & 1u ? Device::kCpu : Device::kGpu;
    out.push_back(std::move(o));
  }
}

// Calls f(index vector) for every vector of `n` digits in [0, base).
template <typename F>
void ForEachDigits(size_t n, size_t base, F f) {
  std::vector<size_t> d(n, 0);
  while (true) {
    f(d);
    size_t i = 0;
    while (i < n && ++d[i] == base) d[i++] = 0;
    if (i == n) return;
  }
}

void EnumerateShape(const Shape& s, OptionTree& tree) {
  const size_t p = s.phases.size();
  ForEachDigits(p, kRoutines.size(), [&](const std::vector<size_t>& rd) {
    std::vector<Routine> r(p);
    for (size_t i = 0; i < p; ++i) r[i] = kRoutines[rd[i]];
    const bool r2 = Rule2Steps(s, r), r3 = r2 && Rule3Pairs(s, r);
    ForEachDigits(p + 1, kTransitions.size(), [&](const std::vector<size_t>& td) {
      ++tree.raw_paths;
      if (!r2) return;
      ++tree.after_rule2;
      if (!r3) return;
      ++tree.after_rule3;
      std::vector<Transition> t(p + 1);
      for (size_t i = 0; i <= p; ++i) t[i] = kTransitions[td[i]];
      Option o;
      o.hierarchical = s.hierarchical;
      if (!Rule1Connections(s, r, t, o.ops)) return;
      ++tree.after_rule1;
      ExpandDevices(o, tree.options);
    });
  });
}

bool SameComm(const Option& a, const Option& b) {
  if (a.ops.size() != b.ops.size() || a.hierarchical != b.hierarchical) return false;
  for (size_t i = 0; i < a.ops.size(); ++i) {
    const Op &x = a.ops[i], &y = b.ops[i];
    if (x.kind != y.kind || x.routine != y.routine || x.scope != y.scope || x.role != y.role ||
        x.compressed != y.compressed)
      return false;
  }
  return true;
}

const char* KindLabel(const Op& op) { return op.kind == OpKind::kCompress ? "comp" : "decomp"; }

}  // namespace

const char* RoutineName(Routine r) {
  switch (r) {
    case Routine::kAllReduce:
      return "AR";
    case Routine::kReduceScatter:
      return "RS";
    case Routine::kReduce:
      return "Reduce";
    case Routine::kAllGather:
      return "AG";
    case Routine::kBroadcast:
      return "Bcast";
    case Routine::kAllToAll:
      return "A2A";
    case Routine::kGather:
      return "Gather";
  }
  return "?";
}

bool Option::Compresses() const {
  for (const Op& op : ops)
    if (op.kind == OpKind::kCompress) return true;
  return false;
}

bool Option::UsesCpu() const {
  for (const Op& op : ops)
    if (op.kind != OpKind::kComm && op.device == Device::kCpu) return true;
  return false;
}

std::string Option::Label() const {
  std::string s = hierarchical ? "hier:" : "flat:";
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    s += i == 0 ? " " : " | ";
    if (op.kind == OpKind::kComm) {
      s += RoutineName(op.routine);
      if (op.compressed) s += "*";
      if (op.scope == Scope::kIntra) s += "@intra";
      if (op.scope == Scope::kInter) s += "@inter";
    } else {
      s += std::string(op.device == Device::kGpu ? "gpu-" : "cpu-") + KindLabel(op);
    }
  }
  return s;
}

OptionTree EnumerateOptions() {
  OptionTree tree;
  for (const Shape& s : Shapes()) EnumerateShape(s, tree);
  return tree;
}

int CpuCounterpart(const OptionTree& tree, int option) {
  const Option& o = tree.options[option];
  if (!o.Compresses()) return -1;
  Option want = o;
  for (Op& op : want.ops)
    if (op.kind != OpKind::kComm) op.device = Device::kCpu;
  for (size_t i = 0; i < tree.options.size(); ++i) {
    const Option& c = tree.options[i];
    if (static_cast<int>(i) == option || !SameComm(c, want)) continue;
    bool all_cpu = true;
    for (const Op& op : c.ops)
      if (op.kind != OpKind::kComm && op.device != Device::kCpu) all_cpu = false;
    if (all_cpu) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace dlsim::compress
