"""`import dlsim`: the results are exactly the CLI's --json, every input form works, bad input raises
ScenarioError with the CLI's located message. Run by CTest (python_tests) from the repository root
with PYTHONPATH=build/python and DLSIM_BINARY set."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import dlsim

SCENARIOS = os.path.join(os.getcwd(), "data", "scenarios")
TRAIN = os.path.join(SCENARIOS, "llama3_8b_dp16_h100.yaml")


def cli_json(*args):
    out = subprocess.run([os.environ["DLSIM_BINARY"], *args, "--json"], capture_output=True, text=True, check=False)
    return json.loads(out.stdout)


class TrainTest(unittest.TestCase):
    def test_path_gives_exactly_the_cli_json(self):
        self.assertEqual(dlsim.train(TRAIN), cli_json("train", TRAIN))

    def test_dict_and_yaml_text_give_the_same_result_as_the_file(self):
        scenario = {
            "model": {"name": "llama3-8b"},
            "hardware": {"node": "dgx-h100", "gpus": 16},
            "training": {"seq_len": 4096, "global_batch": 32, "micro_batch": 1},
            "parallel": {"tp": 1, "zero": 1, "recompute": "selective"},
        }
        from_file = dlsim.train(TRAIN)
        self.assertEqual(dlsim.train(scenario)["step_time_s"], from_file["step_time_s"])
        text = "model: {name: llama3-8b}\nhardware: {node: dgx-h100, gpus: 16}\n" \
               "training: {seq_len: 4096, global_batch: 32, micro_batch: 1}\n" \
               "parallel: {tp: 1, zero: 1, recompute: selective}\n"
        self.assertEqual(dlsim.train(text)["step_time_s"], from_file["step_time_s"])
        self.assertGreater(from_file["step_time_s"], 0)
        self.assertEqual([f for f in os.listdir(".") if f.startswith(".dlsim-scenario-")], [])

    def test_inline_scenarios_write_no_file(self):
        # Parsed from text: nothing appears in the working directory (which may be read-only). An empty folder of
        # its own, so that other tests writing beside the repository (pip_install runs at the same time) cannot
        # change what is listed.
        home = os.getcwd()
        with tempfile.TemporaryDirectory() as cwd:
            os.chdir(cwd)
            try:
                dlsim.train({"model": {"name": "llama3-8b"}, "hardware": {"node": "dgx-h100", "gpus": 8}})
                dlsim.train("model: {name: llama3-8b}\nhardware: {node: dgx-h100, gpus: 8}\n")
                self.assertEqual(os.listdir("."), [])
            finally:
                os.chdir(home)

    def test_bad_input_raises_with_the_location(self):
        with self.assertRaises(dlsim.ScenarioError) as e:
            dlsim.train({"model": {"name": "llama3-8b"}, "parallel": {"tp": 0}})
        self.assertIn("<scenario>:", str(e.exception))
        self.assertIn("parallel.tp", str(e.exception))
        with self.assertRaises(dlsim.ScenarioError):
            dlsim.train("no/such/file.yaml")
        with self.assertRaises(TypeError):
            dlsim.train(42)

    def test_arguments_get_the_flags_checks(self):
        """The Python keywords reach the commands without the command-line parser: the same rules (issue 35)."""
        plan = os.path.join(SCENARIOS, "plan_nemo_llama2-7b_8gpu.yaml")
        for kwargs, word in [({"threads": -1}, "threads: -1 is not in 0..4096"),
                             ({"threads": 10**6}, "threads: 1000000 is not in 0..4096"),
                             ({"top": -5}, "top: -5 is not in 0..100000")]:
            with self.assertRaises(dlsim.ScenarioError) as e:
                dlsim.plan(plan, **kwargs)
            self.assertIn(word, str(e.exception))
        serve = os.path.join(SCENARIOS, "serve_llama2_7b_a100_vllm.yaml")
        for target in (float("nan"), -1, 0, 1.5):
            with self.assertRaises(dlsim.ScenarioError) as e:
                dlsim.serve(serve, capacity=True, target=target)
            self.assertIn("target:", str(e.exception))
        cluster = os.path.join(SCENARIOS, "cluster_philly_las.yaml")
        for compare in (",,,", "fifo,"):
            with self.assertRaises(dlsim.ScenarioError) as e:
                dlsim.cluster(cluster, compare=compare)
            self.assertIn("has an empty item", str(e.exception))

    def test_compare_trace_is_the_clis(self):
        traces = os.path.join(os.getcwd(), "tests", "data", "traces")
        scenario = os.path.join(traces, "llama-3.2-1b_amp_2x2048.yaml")
        trace = os.path.join(traces, "llama-3.2-1b_amp_2x2048.trimmed.json.gz")
        r = dlsim.train(scenario, compare_trace=trace)
        self.assertEqual(r, cli_json("train", scenario, "--compare-trace", trace))
        self.assertEqual([row["category"] for row in r["compare_trace"]["rows"]][-1], "step")
        for bad, word in [("", "is not a file path"), ([trace, trace], "one trace file"),
                          (os.path.join(traces, "llama-3.2-1b.json"), "no 'traceEvents' list")]:
            with self.assertRaises(dlsim.ScenarioError) as e:
                dlsim.train(scenario, compare_trace=bad)
            self.assertIn(word, str(e.exception))

    def test_infeasible_is_a_result(self):
        r = dlsim.train({"model": {"name": "llama3.1-405b"}, "hardware": {"node": "dgx-h100", "gpus": 8}})
        self.assertFalse(r["feasible"])
        self.assertTrue(r["reason"])


class OtherCommandsTest(unittest.TestCase):
    def test_serve_gnn_cluster_match_the_cli(self):
        serve = os.path.join(SCENARIOS, "serve_llama2_7b_a100_vllm.yaml")
        self.assertEqual(dlsim.serve(serve), cli_json("serve", serve))
        gnn = os.path.join(SCENARIOS, "gnn_small.yaml")
        self.assertEqual(dlsim.gnn(gnn), cli_json("gnn", gnn))
        cluster = os.path.join(SCENARIOS, "cluster_gavel_synthetic.yaml")
        self.assertEqual(dlsim.cluster(cluster), cli_json("cluster", cluster))

    def test_serve_takes_a_serving_engine_calibration(self):
        scenario = ("model: {name: llama3-8b}\nhardware: {gpu: h100-sxm5-80gb}\nengine: vllm-0.5\n"
                    "workload: {rate: 2, requests: 50}\n")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "engine.yaml")
            with open(path, "w") as f:
                f.write("serving_engines:\n  vllm-0.5: {step_us: 1, per_request_us: 0, first_token_us: 0, stream_us: 0}\n")
            profile = dlsim.serve(scenario)
            calibrated = dlsim.serve(scenario, calibration=path)
        self.assertLess(calibrated["tpot_s"]["mean"], profile["tpot_s"]["mean"] - 0.005)
        self.assertLess(calibrated["engine_cpu_s"], 0.01 * profile["engine_cpu_s"])

    def test_catalog_lists_every_kind(self):
        c = dlsim.catalog()
        self.assertIn("h100-sxm5-80gb", c["gpus"])
        self.assertIn("dgx-h100", c["nodes"])
        self.assertIn("llama3.1-8b", c["models"])
        self.assertTrue(c["networks"])
        with self.assertRaises(dlsim.ScenarioError):
            dlsim.catalog(["no/such/catalog.yaml"])


if __name__ == "__main__":
    unittest.main()


class InterruptTest(unittest.TestCase):
    """Ctrl-C stops a long run (issue 35: it ran on, not even a signal stopped it): KeyboardInterrupt, and the
    next call runs normally."""

    def test_ctrl_c_raises_keyboard_interrupt_and_the_next_run_works(self):
        long_run = ("model: {name: llama2-7b}\nhardware: {gpu: a100-sxm4-80gb}\n"
                    "workload: {rate: 400.0, requests: 2000000, prompt_tokens: {distribution: fixed, value: 600}, "
                    "output_tokens: {distribution: fixed, value: 200}}\n"
                    "scheduler: {name: vllm}\n")
        short_run = long_run.replace("2000000", "20")
        code = ("import dlsim, sys, time\n"
                "print('started', flush=True)\n"
                "t = time.time()\n"
                "try:\n"
                f"    dlsim.serve({long_run!r})\n"
                "    print('finished: not interrupted')\n"
                "except KeyboardInterrupt:\n"
                "    print(f'interrupted after {time.time() - t:.1f} s')\n"
                f"    r = dlsim.serve({short_run!r})\n"
                "    print('next run', r['requests_completed'])\n")
        p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ))
        self.assertEqual(p.stdout.readline().strip(), "started")
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("interrupted after", out, err)
        self.assertIn("next run 20", out)
