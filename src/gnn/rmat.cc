#include "dlsim/gnn/rmat.h"

#include <numeric>
#include <string>

#include "dlsim/core/rng.h"

namespace dlsim::gnn {
namespace {

Status CheckRmat(const RmatOptions& o) {
  if (o.scale < 1 || o.scale > 30)
    return Error::InvalidArgument("rmat scale " + std::to_string(o.scale) + " is outside 1..30");
  if (o.edge_factor < 1 || o.edge_factor > 1024)
    return Error::InvalidArgument("rmat edge factor " + std::to_string(o.edge_factor) +
                                  " is outside 1..1024");
  const bool in_unit = o.a >= 0 && o.b >= 0 && o.c >= 0 && o.a <= 1 && o.b <= 1 && o.c <= 1;
  if (!in_unit || o.a + o.b + o.c > 1 + 1e-12)
    return Error::InvalidArgument("rmat probabilities a, b, c must lie in [0, 1] with a + b + c <= 1");
  return Status::Ok();
}

}  // namespace

Result<EdgeList> GenerateRmat(const RmatOptions& o) {
  DLSIM_RETURN_IF_ERROR(CheckRmat(o));
  const int64_t n = int64_t{1} << o.scale;
  const int64_t m = n * o.edge_factor;
  // Quadrant thresholds on a 16-bit draw: [0, ta) top-left, [ta, tb) top-right (column bit),
  // [tb, tc) bottom-left (row bit), [tc, 65536) bottom-right (both).
  const uint32_t ta = static_cast<uint32_t>(o.a * 65536.0);
  const uint32_t tb = static_cast<uint32_t>((o.a + o.b) * 65536.0);
  const uint32_t tc = static_cast<uint32_t>((o.a + o.b + o.c) * 65536.0);
  Rng rng = Rng(o.seed).Stream("gnn/rmat");
  EdgeList e;
  e.num_nodes = n;
  e.src.resize(static_cast<size_t>(m));
  e.dst.resize(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) {
    uint32_t row = 0, col = 0;
    uint64_t bits = 0;
    for (int level = 0; level < o.scale; ++level) {
      if (level % 4 == 0) bits = rng.NextU64();
      const uint32_t r = static_cast<uint32_t>(bits & 0xffff);
      bits >>= 16;
      // Branch-free (the quadrant is random, so a branch would mispredict half the time): the
      // column bit is set in [ta, tb) and [tc, 65536), the row bit from tb on.
      const uint32_t ge_a = r >= ta, ge_b = r >= tb, ge_c = r >= tc;
      const uint32_t row_bit = ge_b;
      const uint32_t col_bit = ge_a ^ ge_b ^ ge_c;
      row = (row << 1) | row_bit;
      col = (col << 1) | col_bit;
    }
    e.src[static_cast<size_t>(i)] = row;
    e.dst[static_cast<size_t>(i)] = col;
  }
  if (!o.permute) return e;
  std::vector<NodeId> label(static_cast<size_t>(n));
  std::iota(label.begin(), label.end(), NodeId{0});
  Rng perm = Rng(o.seed).Stream("gnn/rmat/permute");
  for (size_t i = label.size() - 1; i > 0; --i) std::swap(label[i], label[perm.NextBelow(i + 1)]);
  for (size_t i = 0; i < e.src.size(); ++i) {
    e.src[i] = label[e.src[i]];
    e.dst[i] = label[e.dst[i]];
  }
  return e;
}

}  // namespace dlsim::gnn
