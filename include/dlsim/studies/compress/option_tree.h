// Espresso's decision-tree abstraction (EuroSys'23 section 4.2): every way one gradient tensor can be
// synchronised, as a sequence of operations.
//
// Four dimensions: compress or not; GPU or CPU for each compression / decompression; the communication
// scheme (flat or hierarchical, indivisible or divisible, and the collective of each step, Table 2); where
// compression and decompression happen between the steps. EnumerateOptions() generates every sequence of
// 1-4 communication phases with every collective and every transition between them, then applies the
// paper's three pruning rules (each counted):
//   rule 1 (valid connections): a collective must fit the data (all-reduce, reduce-scatter and reduce
//          only on uncompressed data, all-to-all and gather only on compressed data); compress only
//          uncompressed data, decompress only compressed data; compressed data that must be aggregated
//          (after an indivisible all-gather or a first divisible step) is decompressed next, and
//          decompress-then-recompress happens only there; the tensor ends uncompressed;
//   rule 2 (steps): an indivisible scheme is all-reduce or all-gather, a first step is reduce-scatter,
//          reduce, all-to-all or gather, a second step is all-gather or broadcast; hierarchical
//          intra-machine communication uses divisible schemes only (section 4.2.1);
//   rule 3 (pairing): reduce-scatter and all-to-all pair with all-gather, reduce and gather with broadcast.
// Device choices (GPU/CPU per compression operation) multiply the surviving paths.
//
//   compress::OptionTree tree = compress::EnumerateOptions();
//   for (const compress::Option& o : tree.options) std::cout << o.Label() << "\n";
#ifndef DLSIM_STUDIES_COMPRESS_OPTION_TREE_H_
#define DLSIM_STUDIES_COMPRESS_OPTION_TREE_H_

#include <string>
#include <vector>

#include "dlsim/net/collective.h"

namespace dlsim::compress {

enum class Scope { kFlat, kIntra, kInter };  // all GPUs; inside one machine; across machines
enum class OpKind { kComm, kCompress, kDecompress };
enum class Device { kGpu, kCpu };
enum class StepRole { kIndivisible, kFirst, kSecond };  // position of a phase in its scheme

// Gather and reduce are not collectives of net::Collective; they are priced as their ring equivalents
// (docs/reproductions.md, ByteComp): reduce as a broadcast of the buffer, gather as an all-gather.
enum class Routine { kAllReduce, kReduceScatter, kReduce, kAllGather, kBroadcast, kAllToAll, kGather };
const char* RoutineName(Routine r);

struct Op {
  OpKind kind = OpKind::kComm;
  // kComm:
  Routine routine = Routine::kAllReduce;
  Scope scope = Scope::kFlat;
  StepRole role = StepRole::kIndivisible;
  bool compressed = false;  // the data on the wire is compressed
  // kCompress / kDecompress:
  Device device = Device::kGpu;
};

struct Option {
  std::vector<Op> ops;
  bool hierarchical = false;
  bool Compresses() const;    // any compression operation
  bool UsesCpu() const;       // any operation on the CPU
  std::string Label() const;  // e.g. "hier: RS | gpu-comp | AG* | gpu-decomp | AG"
};

struct OptionTree {
  std::vector<Option> options;  // survivors, device choices expanded, in a fixed order
  long long raw_paths = 0;      // phase sequences x collectives x transitions, before pruning
  long long after_rule2 = 0, after_rule3 = 0, after_rule1 = 0;  // paths left after each rule
};

OptionTree EnumerateOptions();

// The option with every compression operation moved to the CPU, or -1 when `o` does not compress or is
// already all-CPU. Index into `tree.options`.
int CpuCounterpart(const OptionTree& tree, int option);

}  // namespace dlsim::compress

#endif  // DLSIM_STUDIES_COMPRESS_OPTION_TREE_H_
