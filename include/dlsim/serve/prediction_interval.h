// The intervals a serving run's predicted figures carry (docs/validation.md, "Prediction intervals"): per
// figure the 10th-90th percentiles of measured / predicted over the published vLLM runs no constant was
// fitted on (data/calibration/intervals.yaml, written by scripts/fit-intervals.py), one regime per figure:
//   serving             the mean TPOT (the serving-vllm-public set's rows)
//   serving-ttft        the mean TTFT (serving-vllm-public-ttft)
//   serving-throughput  the request throughput, completed requests / the run's duration
//                       (serving-vllm-public-throughput)
// A run whose engine profile and GPU are among those of the rows behind a regime (its `engines` and `gpus`;
// today vllm-0.5, vllm-0.6 and vllm-0.14 on the A100 SXM 80GB, the H100 SXM and the L40S for TPOT) takes that
// regime's interval; any other engine (vllm-v1, sglang, trtllm, the GPU alone) or GPU takes it with its
// log-width times PredictionIntervals::outside_widen, flagged `outside`.
// ITL, end-to-end and queueing times carry none: the four published ITL rows (one source) are too few for a
// spread, and no public run out of fit reports the others.
//
//   serve::AttachIntervals(options, catalogs.intervals, r);
#ifndef DLSIM_SERVE_PREDICTION_INTERVAL_H_
#define DLSIM_SERVE_PREDICTION_INTERVAL_H_

#include <optional>
#include <string_view>

#include "dlsim/cost/prediction_intervals.h"
#include "dlsim/serve/options.h"
#include "dlsim/serve/simulator.h"

namespace dlsim::serve {

// The interval of `predicted` (a figure of a run of scenario `o`) from regime `regime` of `table`; nullopt
// when the table has no such regime or `predicted` is not a positive finite number.
std::optional<MetricInterval> IntervalOf(std::string_view regime, double predicted, const ServeOptions& o,
                                         const cost::PredictionIntervals& table);

// Sets r.tpot_interval, r.ttft_interval and r.throughput_interval of `r`, a run of scenario `o`; each is
// nullopt when the run is infeasible, has no such figure (no request with two output tokens: no TPOT; none
// completed: no TTFT or throughput) or the table lacks its regime. An open loop's throughput interval ends at
// the completed requests over the arrivals' span (no engine finishes them sooner than they arrive): a run
// well below its capacity gets [low x p, about p], not p x high.
void AttachIntervals(const ServeOptions& o, const cost::PredictionIntervals& table, ServeResult& r);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_PREDICTION_INTERVAL_H_
