"""Crash-isolated batch runner: many symhlo-opt / symhlo CLI invocations in one worker process.

A worker process calls the tool's `main(argv)` once per case (stdout/stderr captured per case) and
streams one JSON line per finished case to a results file. The worker starting up costs ~0.5 s
(symhlo-opt) or ~4 s (symhlo, which imports torch), a case costs milliseconds, so batching is what
keeps a few hundred cases fast. A case that kills the worker (SIGSEGV, SIGABRT from an LLVM ERROR)
or hangs it is found exactly, since the worker writes a `start` line before each case: the parent
re-runs that case alone in a fresh worker (to confirm it is not the previous cases' doing) and goes
on with the rest in a new worker.

    python harness.py worker {opt|cli} CASES.json RESULTS.jsonl

Classification of one case (`Outcome.kind`):
  ok        exit code 0
  error     exit code 1 and at least one `error:` line on stderr (the polite failure)
  silent    exit code 1 without an `error:` line
  internal  stderr says `internal error` (an exception in symhlo code caught by main())
  escaped   main() raised: the user would have seen a Python traceback
  badexit   any other exit code
  crash     the worker died from a signal or exited in the middle of the case
  hang      the case did not finish in time
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
if not os.path.exists(PYTHON):
    PYTHON = sys.executable
OPT_LAUNCHER = os.path.join(ROOT, "tools", "symhlo-opt")


@dataclass
class Outcome:
    id: str
    kind: str
    rc: int | None = None
    stdout: str = ""
    stderr: str = ""
    detail: str = ""
    argv: list = field(default_factory=list)

    def brief(self) -> str:
        err = self.stderr.strip().splitlines()
        return f"[{self.kind}] {self.id} rc={self.rc} argv={self.argv}: " + \
               (self.detail or (err[0] if err else ""))[:300]


def classify(rc: int, out: str, err: str) -> str:
    if "Traceback (most recent call last)" in err:
        return "escaped"
    if "internal error" in err:
        return "internal"
    if rc == 0:
        return "ok"
    if rc == 1:
        return "error" if "error:" in err else "silent"
    return "badexit"


# ---------------------------------------------------------------------------------------------
# Worker side.


def _tool_main(tool: str):
    if tool == "opt":
        import runpy

        return runpy.run_path(OPT_LAUNCHER, run_name="symhlo_opt_launcher")["main"]
    from symhlo.tools.cli import main

    return main


def _clip(text: str, n: int = 3000) -> str:
    return text if len(text) <= 2 * n else text[:n] + "\n...\n" + text[-n:]


def worker(tool: str, cases_path: str, results_path: str) -> int:
    main = _tool_main(tool)
    cases = json.load(open(cases_path))
    fd = os.open(results_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def emit(rec: dict) -> None:
        os.write(fd, (json.dumps(rec) + "\n").encode())

    for case in cases:
        emit({"start": case["id"]})
        out, err = io.StringIO(), io.StringIO()
        detail = ""
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(case["argv"])
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except BaseException:  # noqa: BLE001 - what the user would see as a traceback
                rc = -1000
                detail = traceback.format_exc()
        text_err = err.getvalue()
        kind = "escaped" if rc == -1000 else classify(rc, out.getvalue(), text_err)
        emit({"id": case["id"], "kind": kind, "rc": rc, "stdout": _clip(out.getvalue()),
              "stderr": _clip(text_err), "detail": _clip(detail)})
    os.close(fd)
    return 0


# ---------------------------------------------------------------------------------------------
# Parent side.


def _spawn(tool: str, cases: list[dict], per_case_s: float, startup_s: float,
           env_extra: dict | None = None) -> tuple[list[dict], int | None, str]:
    """Runs one worker; returns (records incl. start markers, returncode or None when a case
    hung, the worker's own stderr). A case hangs when it runs longer than `per_case_s`."""
    with tempfile.TemporaryDirectory(prefix="symhlo-harness-") as d:
        cpath, rpath = os.path.join(d, "cases.json"), os.path.join(d, "results.jsonl")
        epath = os.path.join(d, "stderr.txt")
        json.dump(cases, open(cpath, "w"))
        env = dict(os.environ, PYTHONNOUSERSITE="1", PYTHONFAULTHANDLER="1", **(env_extra or {}))
        env.pop("SYMHLO_DEBUG", None)
        with open(epath, "wb") as err:
            proc = subprocess.Popen([PYTHON, os.path.abspath(__file__), "worker", tool, cpath, rpath],
                                    stdout=subprocess.DEVNULL, stderr=err, cwd=d, env=env,
                                    start_new_session=True)
            deadline = time.monotonic() + startup_s + per_case_s
            seen = 0
            rc: int | None = None
            while True:
                rc = proc.poll()
                if rc is not None:
                    break
                size = os.path.getsize(rpath) if os.path.exists(rpath) else 0
                if size != seen:  # progress: each case gets per_case_s from its start
                    seen = size
                    deadline = time.monotonic() + per_case_s
                if time.monotonic() > deadline:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    rc = None
                    break
                time.sleep(0.05)
        recs = []
        if os.path.exists(rpath):
            for line in open(rpath):
                try:
                    recs.append(json.loads(line))
                except json.JSONDecodeError:
                    break  # a torn last line: the worker died while writing it
        return recs, rc, open(epath, "rb").read().decode(errors="replace")


def run_batch(tool: str, cases: list[dict], per_case_s: float = 60.0, startup_s: float = 120.0,
              confirm: bool = True, env: dict | None = None) -> list[Outcome]:
    """Runs `cases` ({"id", "argv"}) through `tool` ("opt" or "cli"), isolating crashes and hangs.

    Args:
      per_case_s: a case running longer is a hang (the worker is killed, the rest go on).
      startup_s: extra time for the worker's imports.
      env: extra environment variables for the worker.
    Returns:
      one Outcome per case, in order.
    """
    by_id = {c["id"]: c for c in cases}
    done: dict[str, Outcome] = {}
    todo = list(cases)
    while todo:
        recs, rc, perr = _spawn(tool, todo, per_case_s, startup_s, env)
        started = None
        for r in recs:
            if "start" in r:
                started = r["start"]
                continue
            done[r["id"]] = Outcome(r["id"], r["kind"], r["rc"], r["stdout"], r["stderr"], r["detail"],
                                    by_id[r["id"]]["argv"])
            started = None
        if started is None and rc == 0 and all(c["id"] in done for c in todo):
            break
        if started is None:
            # The worker died before its first case (or between cases): a harness problem.
            raise RuntimeError(f"harness worker failed (rc={rc}) outside any case:\n{perr[-3000:]}")
        kind = "hang" if rc is None else "crash"
        detail = f"worker {'timed out' if rc is None else f'exited with {rc}'}: {perr.strip()[-1500:]}"
        if confirm and len(todo) > 1:
            # Alone in a fresh worker: does the case crash by itself?
            alone = run_batch(tool, [by_id[started]], per_case_s, startup_s, confirm=False, env=env)[0]
            if alone.kind not in ("crash", "hang"):
                kind = "crash" if rc is not None else "hang"
                detail = (f"state-dependent: {detail} (alone the case gives '{alone.kind}'; "
                          f"the cases before it in the batch: {[c['id'] for c in todo[:5]]}...)")
        done[started] = Outcome(started, kind, rc, "", perr[-4000:], detail, by_id[started]["argv"])
        todo = [c for c in todo if c["id"] not in done]
    return [done[c["id"]] for c in cases]


def run_one(argv: list[str], *, stdin: bytes | None = None, timeout: float = 300.0,
            cwd: str | None = None) -> subprocess.CompletedProcess:
    """Runs one real process (argv[0] resolved in .venv/bin when it is a console script)."""
    exe = argv[0]
    cand = os.path.join(ROOT, ".venv", "bin", exe)
    if os.path.exists(cand):
        argv = [cand] + list(argv[1:])
    env = dict(os.environ, PYTHONNOUSERSITE="1")
    env.pop("SYMHLO_DEBUG", None)
    return subprocess.run(argv, input=stdin, capture_output=True, timeout=timeout, cwd=cwd, env=env)


def assert_polite_failure(p: subprocess.CompletedProcess | Outcome, *, where: str | None = None) -> str:
    """Exit code 1, an `error:` line, no traceback, no signal; returns stderr as text.

    Args:
      where: a regex the stderr must match (e.g. r"^f\\.mlir:3:7: error:").
    """
    import re

    if isinstance(p, Outcome):
        rc, err = p.rc, p.stderr
        assert p.kind == "error", p.brief()
    else:
        rc = p.returncode
        err = p.stderr.decode(errors="replace") if isinstance(p.stderr, bytes) else p.stderr
    assert rc is not None and rc >= 0, f"killed by signal {-rc if rc else rc}:\n{err}"
    assert rc == 1, f"exit code {rc}, expected 1:\n{err}"
    assert "Traceback" not in err, err
    assert "internal error" not in err, err
    assert "error:" in err, f"no 'error:' line:\n{err}"
    if where is not None:
        assert re.search(where, err, re.M), f"stderr does not match {where!r}:\n{err}"
    return err


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "worker":
        sys.exit(worker(sys.argv[2], sys.argv[3], sys.argv[4]))
    sys.exit("usage: harness.py worker {opt|cli} CASES.json RESULTS.jsonl")
