#!/usr/bin/env python3
"""Derive the engine CPU times data/serving/engine_host.csv marks "derived" from the published runs they rest on.

    python3 scripts/derive-engine-host.py build/tools/dlsim/dlsim

Each published run is a scenario in examples/serving/ with the engine's CPU time zeroed, so dlsim's times are
the GPU's alone; what the run measured beyond them is the engine's:
  vllm-0.5 step         13 ms per token under light load (vLLM v0.6.0 post, v0.5.3, Llama 3 8B, H100)
                        less dlsim's GPU time per token, less one request's output processing (103 us, #6913)
                        and its streaming (194 us, PR #8092: the run was served through the API server).
  vllm-0.5/0.6 stream   PR #8092: served 14.9 against offline 34.8 requests/s (1,000 prompts) over 197,521
                        streamed tokens (the token count of PR #8335's run of the same benchmark).
  vllm-v1 step          mean TPOT 2.73 ms (PR #17866, V1, Llama 3.2 1B, GPU assumed H100) less dlsim's.
  first-token path      mean TTFT 21.47 ms of the same run less dlsim's TTFT with that step (the wait for a
                        step boundary and the prefill step's own scheduling included).
Pass --gpu a100-sxm4-80gb to see what the unnamed GPU of PR #17866 changes (the sensitivity in docs/serving.md).
"""
import os
import sys

from dlsim_runs import ROOT, run_json

PER_REQUEST_V0_US = 103.0  # #6913: (3.4 - 0.2) ms / (32 - 1) requests
PER_REQUEST_V1_US = 1.1    # #46112: 0.287 ms at batch 256 / 256
STREAM_V0_US = (1000 / 14.9 - 1000 / 34.8) / 197521 * 1e6  # PR #8092, see above: 194.3


def run(dlsim, scenario, host=None, gpu=None):
    text = open(os.path.join(ROOT, scenario)).read()
    if host is not None:
        text = text.replace("engine_host: {step_ms: 0, per_request_us: 0, stream_us: 0, first_token_ms: 0}", host)
    if gpu is not None:
        text = text.replace("h100-sxm5-80gb", gpu)
    j = run_json(dlsim, "serve", text)
    return j["ttft_s"]["mean"], j["tpot_s"]["mean"]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    dlsim = sys.argv[1]
    gpu = sys.argv[sys.argv.index("--gpu") + 1] if "--gpu" in sys.argv else None
    _, tpot8b = run(dlsim, "examples/serving/vllm-0.5-light-load.yaml", gpu=gpu)
    v05_step_us = 13000.0 - tpot8b * 1e6 - PER_REQUEST_V0_US - round(STREAM_V0_US)
    _, tpot1b = run(dlsim, "examples/serving/vllm-v1-pr17866.yaml", gpu=gpu)
    v1_step_us = 2730.0 - tpot1b * 1e6 - PER_REQUEST_V1_US
    host = "engine_host: {step_ms: %.4f, per_request_us: %.1f, first_token_ms: 0}" % (v1_step_us / 1000,
                                                                                      PER_REQUEST_V1_US)
    ttft1b, _ = run(dlsim, "examples/serving/vllm-v1-pr17866.yaml", host=host, gpu=gpu)
    first_us = 21470.0 - ttft1b * 1e6
    print("# gpu %s: dlsim GPU-only TPOT Llama 3 8B %.3f ms, Llama 3.2 1B %.3f ms; 1B TTFT with the step %.3f ms"
          % (gpu or "h100-sxm5-80gb", tpot8b * 1e3, tpot1b * 1e3, ttft1b * 1e3))
    print("vllm-0.5,stream_us,%.1f" % STREAM_V0_US)
    print("vllm-0.5,step_us,%.0f" % v05_step_us)
    print("vllm-v1,step_us,%.0f" % v1_step_us)
    print("first_token_us,%.0f" % first_us)


if __name__ == "__main__":
    main()
