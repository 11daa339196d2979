"""What the derive-*.py scripts share: running dlsim on a scenario text and reading its JSON.

    from dlsim_runs import ROOT, run_json, async_tp_scenario
"""
import json
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The AsyncTP post's Llama 3 70B run on the Grand Teton H100s (scripts/derive-async-tp.py and
# scripts/derive-sustained-fraction.py), written at local batch 4.
ASYNC_TP_SCENARIO = "examples/training/async-tp-llama3-70b-64xh100.yaml"


def run_json(dlsim, command, scenario_text, catalog_text=None):
    """dlsim COMMAND on the scenario text (with a --catalog overlay when given) with --json, parsed."""
    paths = []
    try:
        for text in ([catalog_text] if catalog_text is not None else []) + [scenario_text]:
            with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
                f.write(text)
            paths.append(f.name)
        args = [dlsim] + (["--catalog", paths[0]] if catalog_text is not None else [])
        out = subprocess.run(args + [command, paths[-1], "--json"], check=True, capture_output=True, text=True)
    finally:
        for p in paths:
            os.unlink(p)
    return json.loads(out.stdout)


def async_tp_scenario(batch):
    """The AsyncTP post's run at local `batch` (8 FSDP ranks: global batch 8 x batch)."""
    text = open(os.path.join(ROOT, ASYNC_TP_SCENARIO)).read()
    text = text.replace("global_batch: 32 ", "global_batch: %d " % (8 * batch))
    return text.replace("micro_batch: 4", "micro_batch: %d" % batch)
