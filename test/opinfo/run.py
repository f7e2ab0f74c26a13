"""Runs the OpInfo differential suite with each op isolated, and writes its report.

    python test/opinfo/run.py                  # the whole database -> test/opinfo/report.{md,json}
    python test/opinfo/run.py --slice          # the fast slice (what `make test` runs)
    python test/opinfo/run.py --ops cumsum,tan # some ops, report to stdout only
    python test/opinfo/run.py --workers 1      # default 2 (the most this suite uses)

Ops run in worker processes (a pool of at most 2), each worker taking ops one at a time from its
share; a worker that dies (segfault, abort) or runs past the per-op timeout is killed, its op is
classed CRASH, and a fresh worker continues with the rest. See opinfo_harness.py for the classes.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
TIMEOUT_S = 300

# Every op the model suites (test/e2e, test/models) lean on, besides nn.functional.*.
SLICE_EXTRA = (
    "add", "sub", "mul", "div.no_rounding_mode", "matmul", "mm", "bmm", "addmm", "baddbmm",
    "softmax", "log_softmax", "cat", "stack", "reshape", "view", "transpose", "permute",
    "expand", "flatten", "unsqueeze", "squeeze", "split", "chunk", "narrow", "index_select",
    "gather", "where", "masked_fill", "clamp", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid",
    "pow", "mean", "sum", "amax", "max.reduction_with_dim", "argmax", "var", "cumsum", "tril",
    "triu", "arange", "zeros_like", "ones_like", "full_like", "repeat", "contiguous", "neg",
    "abs", "erf", "remainder", "tan", "double", "to", "float_power",
)


def slice_ops(all_keys) -> list[str]:
    """nn.functional.* plus SLICE_EXTRA, in database order."""
    extra = set(SLICE_EXTRA)
    return [k for k in all_keys if k.startswith("nn.functional.") or k in extra]


# -- worker --------------------------------------------------------------------------------------

def worker(keys: list[str], out_path: str) -> None:
    """Runs `keys` in order, appending `{"start": key}` then the result line for each."""
    sys.path.insert(0, str(HERE))
    import opinfo_harness as H

    ops = H.all_ops()
    with open(out_path, "a") as out:
        for key in keys:
            out.write(json.dumps({"start": key}) + "\n")
            out.flush()
            t0 = time.time()
            res = H.run_op(ops[key]) if key in ops else {"class": "CRASH", "detail": "unknown op"}
            res.update(op=key, seconds=round(time.time() - t0, 2))
            out.write(json.dumps(res) + "\n")
            out.flush()


# -- driver --------------------------------------------------------------------------------------

def _run_share(keys: list[str], results: dict, lock, timeout: float, log, progress) -> None:
    pending = list(keys)
    while pending:
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            path = f.name
        proc = subprocess.Popen([sys.executable, __file__, "--worker", path, ",".join(pending)],
                                stdout=log, stderr=log, start_new_session=True)
        current, started, pos = None, time.time(), 0
        while True:
            time.sleep(0.2)
            with open(path) as f:
                f.seek(pos)
                chunk = f.read()
            lines = chunk.split("\n")
            pos += len(chunk) - len(lines[-1])
            for line in lines[:-1]:
                rec = json.loads(line)
                if "start" in rec:
                    current, started = rec["start"], time.time()
                else:
                    with lock:
                        results[rec["op"]] = rec
                        progress(rec)
                    pending.remove(rec["op"])
                    current = None
            rc = proc.poll()
            if rc is not None and current is None and not pending:
                break
            timed_out = current is not None and time.time() - started > timeout
            if rc is not None or timed_out:
                if timed_out:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                victim = current or pending[0]
                why = (f"timeout after {timeout:.0f} s" if timed_out else
                       f"worker died with {'signal ' + str(-rc) if rc < 0 else 'exit code ' + str(rc)}")
                rec = {"op": victim, "class": "CRASH", "detail": why, "samples": [],
                       "seconds": round(time.time() - started, 2)}
                with lock:
                    results[victim] = rec
                    progress(rec)
                pending.remove(victim)
                break
        os.unlink(path)


def run(keys: list[str], workers: int = 2, timeout: float = TIMEOUT_S, log_path=None,
        verbose: bool = True) -> dict:
    """Runs `keys` in up to `workers` (max 2) isolated worker processes; returns op -> result."""
    workers = max(1, min(2, workers))
    results, lock = {}, threading.Lock()
    log = open(log_path or os.devnull, "a")
    total, t0 = len(keys), time.time()

    def progress(rec):
        if verbose:
            print(f"[{len(results)}/{total} {time.time() - t0:6.0f}s] {rec['class']:<11} "
                  f"{rec['op']}  {rec.get('detail', '')[:150]}", flush=True)

    shares = [keys[k::workers] for k in range(workers)]
    threads = [threading.Thread(target=_run_share, args=(s, results, lock, timeout, log, progress))
               for s in shares if s]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    log.close()
    return {k: results[k] for k in keys if k in results}


# -- report --------------------------------------------------------------------------------------

def group_of(rec: dict) -> str:
    """A refusal's group: the unsupported op, or the first words of its error."""
    import re

    refused = [s for s in rec.get("samples", []) if s.get("class") == "REFUSED"]
    s = refused[0] if refused else rec
    if s.get("aten_op"):
        return f"unsupported op '{s['aten_op']}'"
    d = s.get("detail", "")
    d = re.sub(r"'[^']*'|\d+|loc\([^)]*\)|<[^>]*>|\[[^\]]*\]", "_", d)
    return f"{s.get('error', '')}: {d[:90]}"


def counts(results: dict) -> Counter:
    c = Counter(r["class"] for r in results.values())
    return c


def write_report(results: dict, excluded: dict, seconds: float, workers: int, md: Path, js: Path):
    c = counts(results)
    exportable = sum(v for k, v in c.items() if k != "EXPORT_FAIL")
    pct = lambda n: f"{100 * n / exportable:.1f}%" if exportable else "-"  # noqa: E731
    samples = Counter(s["class"] for r in results.values() for s in r.get("samples", []))
    unlocated = sorted(k for k, r in results.items() if r["class"] == "REFUSED"
                       and any(s.get("class") == "REFUSED" and not s.get("located", False)
                               for s in r.get("samples", [])))
    js.write_text(json.dumps({"counts": dict(c), "sample_counts": dict(samples),
                              "exportable": exportable, "excluded": excluded,
                              "seconds": round(seconds), "workers": workers,
                              "results": results}, indent=1) + "\n")
    lines = [
        "# OpInfo differential report",
        "",
        "Generated by `make opinfo` (test/opinfo/run.py); do not edit by hand.",
        f"{len(results)} ops of torch's op_db (float32, CPU; {len(excluded)} random, "
        "uninitialized-memory or non-float32 ops excluded), up to 3 samples each, every axis of size "
        ">= 2 exported as `Dim.AUTO`, compared with eager at the sample and at a second size where "
        f"every dynamic symbol changes. Wall time {seconds / 60:.0f} min with {workers} worker(s).",
        "",
        "| class | ops | share of exportable |",
        "|---|---|---|",
    ]
    for k in ("PASS", "REFUSED", "WRONG", "CRASH"):
        lines.append(f"| {k} | {c.get(k, 0)} | {pct(c.get(k, 0))} |")
    lines += [f"| EXPORT_FAIL (torch.export's own; not counted) | {c.get('EXPORT_FAIL', 0)} | |",
              "", f"Samples: " + ", ".join(f"{k} {samples.get(k, 0)}" for k in CLASSES_ORDER) + ".",
              f"Refused ops whose message lacks a source location: {len(unlocated)}"
              + (f" ({', '.join(unlocated)})" if unlocated else "") + ".", ""]
    for cls in ("WRONG", "CRASH"):
        bad = [(k, r) for k, r in results.items() if r["class"] == cls]
        if bad:
            lines += [f"## {cls}", ""] + [f"- `{k}`: {r.get('detail', '')}" for k, r in bad] + [""]
    groups: dict[str, list[str]] = {}
    for k, r in results.items():
        if r["class"] == "REFUSED":
            groups.setdefault(group_of(r), []).append(k)
    lines += ["## REFUSED, grouped by reason", ""]
    for g, ks in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"- {g} ({len(ks)}): {', '.join(f'`{k}`' for k in ks)}")
    lines += ["", "## Every op", "", "| op | class | seconds | detail |", "|---|---|---|---|"]
    for k, r in results.items():
        detail = r.get("detail", "").replace("|", "\\|")[:160]
        lines.append(f"| `{k}` | {r['class']} | {r.get('seconds', '')} | {detail} |")
    md.write_text("\n".join(lines) + "\n")


CLASSES_ORDER = ("PASS", "REFUSED", "WRONG", "CRASH", "EXPORT_FAIL")


def main(argv=None) -> int:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[3].split(","), sys.argv[2])
        return 0
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--slice", action="store_true", help="only the fast slice")
    p.add_argument("--ops", help="comma-separated op keys")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--timeout", type=float, default=TIMEOUT_S)
    p.add_argument("--log", help="append the workers' stdout/stderr to this file")
    p.add_argument("--report", help="write REPORT.md and REPORT.json (default: test/opinfo/report "
                   "for a full run, none otherwise)")
    args = p.parse_args(argv)
    sys.path.insert(0, str(HERE))
    import opinfo_harness as H

    keys = list(H.all_ops())
    excluded = H.excluded_ops()
    if args.ops:
        keys = args.ops.split(",")
    elif args.slice:
        keys = slice_ops(keys)
    report = args.report or (None if (args.ops or args.slice) else str(HERE / "report"))
    t0 = time.time()
    results = run(keys, args.workers, args.timeout, log_path=args.log)
    seconds = time.time() - t0
    c = counts(results)
    print("counts:", dict(c), f"({seconds:.0f} s)")
    if report:
        write_report(results, excluded, seconds, args.workers, Path(report + ".md"),
                     Path(report + ".json"))
        print(f"report: {report}.md, {report}.json")
    return 1 if c.get("WRONG") or c.get("CRASH") else 0


if __name__ == "__main__":
    sys.exit(main())
