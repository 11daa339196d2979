"""dlsim from Python: the simulators as functions that take a scenario and return its result.

    import dlsim
    r = dlsim.train("data/scenarios/llama3_8b_dp16_h100.yaml")   # a path,
    r = dlsim.train({"model": {"name": "llama3-8b"}, "hardware": {"node": "dgx-h100", "gpus": 8}})  # a dict,
    r = dlsim.train("model: {name: llama3-8b}\\nhardware: {gpus: 8}")                                 # or YAML text
    print(r["step_time_s"], r["feasible"])

A scenario is what the CLI reads (docs/scenario-format.md). A dict or a YAML string is parsed as it is
(no file is written, so a read-only working directory is fine); relative paths inside it resolve from the
current directory, and errors name it `<scenario>`. Results are the dicts `dlsim COMMAND --json` prints, from the same C++ code, so the keys
cannot drift. Bad input raises ScenarioError with the CLI's message (file, line, key, what was
expected); an infeasible configuration is a result with "feasible": False, not an exception.
"""

import json as _json
import os as _os

from . import _dlsim

__all__ = ["ScenarioError", "train", "serve", "plan", "cluster", "gnn", "catalog"]

_EXIT_OK, _EXIT_ERROR, _EXIT_USAGE, _EXIT_INFEASIBLE = 0, 1, 2, 3


class ScenarioError(ValueError):
    """A scenario (or a file it names, or a catalog) that dlsim cannot use; the message says why."""


def _looks_like_path(text):
    return "\n" not in text and (text.endswith((".yaml", ".yml", ".json")) or _os.path.exists(text))


_INLINE_NAME = "<scenario>"


def _source(scenario):
    """(file, text): a path as it is with no text, or a dict / YAML string as inline text named <scenario>."""
    if isinstance(scenario, _os.PathLike):
        scenario = _os.fspath(scenario)
    if isinstance(scenario, dict):
        try:
            return _INLINE_NAME, _json.dumps(scenario)  # JSON is YAML
        except (TypeError, ValueError) as e:  # a value JSON cannot hold (bytes, a set, a circular dict)
            raise TypeError("scenario: %s" % e) from None
    if isinstance(scenario, str) and _looks_like_path(scenario):
        return scenario, ""
    if isinstance(scenario, str):
        return _INLINE_NAME, scenario
    raise TypeError("a scenario is a dict, a YAML string or a path, not %s" % type(scenario).__name__)


def _result(outcome, command):
    code, out, err = outcome
    if code in (_EXIT_OK, _EXIT_INFEASIBLE) and out.strip():
        return _json.loads(out)
    message = err.strip() or ("dlsim %s: exit code %d" % (command, code))
    if message.startswith("dlsim %s: " % command):
        message = message[len("dlsim %s: " % command):]
    raise ScenarioError(message)


def _paths(value, name):
    """A list of file paths from one path or a sequence of them; a TypeError naming `name` for anything else."""
    if isinstance(value, (str, _os.PathLike)):
        value = [value]
    if isinstance(value, (bytes, dict)) or not hasattr(value, "__iter__"):
        raise TypeError("%s: a file path or a list of them, not %s" % (name, type(value).__name__))
    paths = []
    for v in value:
        if not isinstance(v, (str, _os.PathLike)):
            raise TypeError("%s: a file path or a list of them, not a list holding %s" % (name, type(v).__name__))
        paths.append(_os.fspath(v))
    for p in paths:
        if not p or "\0" in p:
            raise ScenarioError("%s: %r is not a file path" % (name, p))
    return paths


def _flag(value, name):
    if not isinstance(value, bool):
        raise TypeError("%s: True or False, not %r" % (name, value))
    return value


def _number(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("%s: a number, not %r" % (name, value))
    return float(value)


def _integer(value, name):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s: an integer, not %r" % (name, value))
    if not -2**31 <= value < 2**31:
        raise ValueError("%s: %d is out of range" % (name, value))
    return value


def _text(value, name):
    if not isinstance(value, str):
        raise TypeError("%s: a string, not %r" % (name, value))
    return value


def _run(command, scenario, catalogs, *args):
    file, text = _source(scenario)
    return _result(getattr(_dlsim, command)(file, text, _paths(catalogs, "catalogs"), *args), command)


def train(scenario, catalogs=(), calibration=(), compare_trace=None):
    """One training step: the dict of `dlsim train --json` (step_time_s, memory, mfu, ...).

    calibration: calibration files from `dlsim calibrate` (the CLI's --calibration), laid over the
    shipped constants in order. compare_trace: a profiled step (torch.profiler Kineto JSON, .gz too)
    to set beside dlsim's, category by category: the result's "compare_trace"."""
    trace = "" if compare_trace is None else _paths(compare_trace, "compare_trace")
    if len(trace) > 1:
        raise ScenarioError("compare_trace: one trace file, not %d" % len(trace))
    return _run("train", scenario, catalogs, _paths(calibration, "calibration"), trace[0] if trace else "")


def serve(scenario, catalogs=(), capacity=False, target=0.9, calibration=()):
    """A serving simulation (`dlsim serve --json`), or with capacity=True the SLO capacity search
    (calibration: files from `dlsim calibrate --serve`, their serving_engines laid over the engine profiles)."""
    return _run("serve", scenario, catalogs, _paths(calibration, "calibration"), _flag(capacity, "capacity"),
                _number(target, "target"))


def plan(scenario, catalogs=(), threads=0, top=0, calibration=()):
    """The parallel-layout search of `dlsim plan --json` (calibration: as for train)."""
    return _run("plan", scenario, catalogs, _paths(calibration, "calibration"), _integer(threads, "threads"),
                _integer(top, "top"))


def cluster(scenario, catalogs=(), records=False, compare="", policy=""):
    """A cluster simulation (`dlsim cluster --json`); compare="fifo,las" runs several policies."""
    return _run("cluster", scenario, catalogs, _flag(records, "records"), _text(compare, "compare"),
                _text(policy, "policy"))


def gnn(scenario, catalogs=(), compare=False):
    """A GNN training-data pipeline epoch (`dlsim gnn --json`); compare=True runs the compare: list."""
    return _run("gnn", scenario, catalogs, _flag(compare, "compare"))


def catalog(catalogs=()):
    """Canonical names of the catalog's GPUs, nodes, networks and models (plus `catalogs` files)."""
    try:
        return _dlsim.catalog(_paths(catalogs, "catalogs"))
    except ValueError as e:
        raise ScenarioError(str(e)) from None
