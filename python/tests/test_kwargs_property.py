"""A property test over random keyword arguments of the Python API (issue 35): whatever a caller passes, each
call returns a result whose numbers are all finite, or raises ScenarioError, TypeError or ValueError naming what
is wrong; it never crashes the interpreter, raises anything else, or runs away. The draws are seeded, so a failure
names the call that reproduces it."""
import math
import os
import random
import time
import unittest

import dlsim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIOS = os.path.join(ROOT, "data", "scenarios")

# Values a caller might pass by mistake or on purpose: wrong types, edges, non-finite numbers.
VALUES = [0, 1, -1, 2, 7, 2**31, 10**12, 0.5, -0.5, 1e-9, float("nan"), float("inf"), -float("inf"), "", "x",
          "fifo", "fifo,las", "las,,fifo", "sjf,tiresias", None, True, False, [], ["a"], {}, b"raw", 3 + 4j]

# Small scenarios per function (each runs in well under a second), as paths and as dicts.
BASES = {
    "train": [os.path.join(SCENARIOS, "default_train.yaml"),
              {"model": {"name": "llama3-8b"}, "hardware": {"gpu": "h100", "gpus": 8}}],
    "serve": [{"model": {"name": "llama2-7b"}, "workload": {"requests": 40, "rate": 4}}],
    "plan": [os.path.join(SCENARIOS, "plan_nemo_llama2-7b_8gpu.yaml")],
    "cluster": [os.path.join(SCENARIOS, "cluster_training_jobs.yaml")],
    "gnn": [os.path.join(SCENARIOS, "gnn_small.yaml")],
}

KEYWORDS = {
    "train": ["catalogs", "calibration", "compare_trace"],
    "serve": ["catalogs", "capacity", "target", "calibration"],
    "plan": ["catalogs", "threads", "top", "calibration"],
    "cluster": ["catalogs", "records", "compare", "policy"],
    "gnn": ["catalogs", "compare"],
}

# Keys a dict scenario may have a random value put under (a wrong type or an edge value of a real key).
DICT_KEYS = {
    "train": [("training", "seq_len"), ("training", "global_batch"), ("parallel", "tp"), ("hardware", "gpus")],
    "serve": [("workload", "rate"), ("workload", "requests"), ("hardware", "tp"), ("slo", "ttft_s")],
}

ALLOWED = (dlsim.ScenarioError, TypeError, ValueError)
SLOW_S = 60  # a call past this ran away (each base scenario takes well under a second)


def finite_everywhere(value, path="result"):
    """The path of the first non-finite number in a JSON-like value, or None."""
    if isinstance(value, float):
        return None if math.isfinite(value) else path
    if isinstance(value, dict):
        for k, v in value.items():
            bad = finite_everywhere(v, "%s[%r]" % (path, k))
            if bad:
                return bad
    if isinstance(value, list):
        for i, v in enumerate(value):
            bad = finite_everywhere(v, "%s[%d]" % (path, i))
            if bad:
                return bad
    return None


def draw(rng, command):
    """One call: a base scenario (a dict one perhaps with one key replaced) and 0-2 random keywords."""
    base = rng.choice(BASES[command])
    if isinstance(base, dict) and command in DICT_KEYS and rng.random() < 0.5:
        base = {k: dict(v) for k, v in base.items()}
        section, key = rng.choice(DICT_KEYS[command])
        base.setdefault(section, {})[key] = rng.choice(VALUES)
    kwargs = {k: rng.choice(VALUES) for k in rng.sample(KEYWORDS[command], rng.randint(0, 2))}
    if "catalogs" in kwargs and rng.random() < 0.7:
        kwargs.pop("catalogs")  # a catalog path that exists is rare; keep most calls reaching the run
    return base, kwargs


class KwargsPropertyTest(unittest.TestCase):
    def test_random_keywords_give_a_result_or_a_named_error(self):
        rng = random.Random(35)
        for i in range(200):
            command = rng.choice(sorted(BASES))
            scenario, kwargs = draw(rng, command)
            call = "dlsim.%s(%r, **%r)" % (command, scenario, kwargs)
            start = time.monotonic()
            try:
                result = getattr(dlsim, command)(scenario, **kwargs)
            except ALLOWED as e:
                message = str(e).strip()
                self.assertTrue(message, "an empty message from " + call)
                if not isinstance(e, dlsim.ScenarioError):  # a wrong argument: the message names it
                    named = [k for k in list(kwargs) + ["scenario"] if k in message]
                    self.assertTrue(named, "%s: the message does not name the argument: %s" % (call, message))
                continue
            finally:
                self.assertLess(time.monotonic() - start, SLOW_S, "ran away: " + call)
            self.assertIsInstance(result, (dict, list), call)
            bad = finite_everywhere(result)
            self.assertIsNone(bad, "%s gave a non-finite number at %s" % (call, bad))


if __name__ == "__main__":
    unittest.main()
