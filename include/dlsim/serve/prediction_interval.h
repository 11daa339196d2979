// The interval a predicted mean time per output token carries (docs/validation.md, "Prediction intervals"):
// the 10th-90th percentiles of measured / predicted mean TPOT over the published vLLM runs no constant was
// fitted on (data/calibration/intervals.yaml, regime `serving`, written by scripts/fit-intervals.py).
//   serving:  an engine profile and a GPU those runs used (the regime's `engines` and `gpus`; today vllm-0.5,
//             vllm-0.6 and vllm-0.14 on the A100 SXM 80GB, the H100 SXM and the L40S);
//   outside:  any other engine (vllm-v1, sglang, trtllm, the GPU alone) or GPU: serving's interval with its
//             log-width times PredictionIntervals::outside_widen, flagged.
// TTFT, ITL, end-to-end times and throughput carry none yet: the published runs that measure them out of fit
// (the serving-vllm-public-ttft, -itl and -throughput sets) are scored, not built into an interval.
//
//   r.tpot_interval = serve::TpotIntervalOf(options, r, catalogs.intervals);
#ifndef DLSIM_SERVE_PREDICTION_INTERVAL_H_
#define DLSIM_SERVE_PREDICTION_INTERVAL_H_

#include <optional>
#include <string>

#include "dlsim/cost/prediction_intervals.h"
#include "dlsim/serve/options.h"
#include "dlsim/serve/simulator.h"

namespace dlsim::serve {

// The interval of the mean TPOT of `r`, a run of scenario `o`; nullopt when the run is infeasible, no request
// has two output tokens, or the table has no `serving` regime.
std::optional<TpotInterval> TpotIntervalOf(const ServeOptions& o, const ServeResult& r,
                                           const cost::PredictionIntervals& table);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_PREDICTION_INTERVAL_H_
