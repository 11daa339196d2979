// The per-mini-batch stage pipeline of GNN training, timed: a tandem of single servers, one per
// stage (sampling, feature gathering, copy to the GPU, compute), each taking the batches in order.
//
//   gnn::StageTimes t = {{"sample", {a0, a1, ...}}, {"gather", {...}}, ...};   // per batch
//   gnn::PipelineTiming p = gnn::RunPipeline(t, /*pipelined=*/true, /*sink=*/nullptr);
//
// Batch b starts stage s when it has left stage s - 1 and stage s has finished batch b - 1:
//   finish[s][b] = max(finish[s - 1][b], finish[s][b - 1]) + t[s][b]
// (the exact event times of the discrete-event model of the tandem with unbounded buffers). With
// equal times per batch this is the closed form fill + (B - 1) * max_s t_s, fill = sum_s t_s.
// Unpipelined, the batches run their stages back to back: the sum of everything. A sink (may be null)
// gets a track per stage and a span per (stage, batch). Pure; thread-safe for distinct arguments.
#ifndef DLSIM_GNN_PIPELINE_H_
#define DLSIM_GNN_PIPELINE_H_

#include <string>
#include <vector>

#include "dlsim/core/units.h"
#include "dlsim/report/sink.h"

namespace dlsim::gnn {

struct Stage {
  std::string name;
  std::vector<Duration> per_batch;  // every stage has the same number of batches
};
using StageTimes = std::vector<Stage>;

struct PipelineTiming {
  Duration makespan;                // the epoch: the last batch leaves the last stage
  Duration fill;                    // the first batch's time through every stage
  std::vector<Duration> busy;       // per stage: the sum of its batch times
  std::vector<double> utilisation;  // busy / makespan
  size_t bottleneck = 0;            // the stage with the most busy time (first on ties)
};

// Precondition: at least one stage; equal batch counts. `process` names the sink's process.
PipelineTiming RunPipeline(const StageTimes& stages, bool pipelined, report::Sink* sink = nullptr,
                           int process = 0);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_PIPELINE_H_
