#!/usr/bin/env python3
"""PyTorch's training step against epochcost's replay of the same step (`epochcost profile step`),
on this CPU, at 1 and 2 threads, with GNU OpenMP's default wait policy and with
OMP_WAIT_POLICY=passive (its idle threads sleep at once instead of spinning).

Usage: /usr/bin/python3 tools/validation/step_replay_study.py build/cli/epochcost [ROUNDS]

Each round measures every configuration once, PyTorch (tools/reference/torch_step.py, 50 steps
after 5 warm-up) then the replay (50 steps after 5), so that the VM's drift over the run reaches
both alike; the table gives, per configuration, the median over the rounds of each round's median
and mean step (ms), and the profile's sum of op means (what `predict --on local-cpu` adds up
before its per-op overhead). docs/accuracy.md, "The whole step replayed".
"""
import os
import re
import statistics
import subprocess
import sys

MODELS = ["mnist_mlp", "mnist_cnn", "cifar10_cnn", "imdb_fasttext", "imdb_bidirectional_lstm",
          "lstm_text_generation"]
CONFIGS = [(1, "default"), (2, "default"), (2, "passive")]


def env_for(policy):
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    if policy == "passive":
        env["OMP_WAIT_POLICY"] = "passive"
    return env


def torch_step(model, threads, policy):
    out = subprocess.run(["/usr/bin/python3", "tools/reference/torch_step.py",
                          "data/models/%s.json" % model, "--threads", str(threads),
                          "--steps", "50"], env=env_for(policy), capture_output=True, text=True,
                         check=True).stdout
    m = re.search(r"median_ms=([\d.]+) p10_ms=[\d.]+ p90_ms=[\d.]+ mean_ms=([\d.]+)", out)
    return float(m.group(1)), float(m.group(2))


def replay(epochcost, model, threads, policy):
    out = subprocess.run([epochcost, "profile", "step", model, "--threads", str(threads),
                          "--steps", "50"], env=env_for(policy), capture_output=True, text=True,
                         check=True).stdout
    row = out.splitlines()[3].split()
    profile_sum = float(row[6]) if row[6] != "-" else float("nan")
    return float(row[1]), float(row[4]), profile_sum


def main():
    epochcost = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    results = {}
    for r in range(rounds):
        for model in MODELS:
            for threads, policy in CONFIGS:
                t = torch_step(model, threads, policy)
                p = replay(epochcost, model, threads, policy)
                results.setdefault((model, threads, policy), []).append((t, p))
                print("round %d %s %d %s: torch median %.3f mean %.3f, replay median %.3f mean "
                      "%.3f (profile %.3f)" % (r + 1, model, threads, policy, t[0], t[1], p[0],
                                               p[1], p[2]), file=sys.stderr, flush=True)
    print("| model | threads | OpenMP wait | PyTorch median | PyTorch mean | replay median | "
          "replay mean | profile's op means |")
    print("|---|---|---|---|---|---|---|---|")
    for (model, threads, policy), runs in results.items():
        med = lambda k, i: statistics.median(x[k][i] for x in runs)
        print("| %s | %d | %s | %.2f | %.2f | %.2f | %.2f | %.2f |" %
              (model, threads, policy, med(0, 0), med(0, 1), med(1, 0), med(1, 1), med(1, 2)))


if __name__ == "__main__":
    main()
