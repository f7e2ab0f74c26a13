#!/usr/bin/env python3
"""Renders the README's "Models" table from a test/models run's report, and checks or rewrites
the README.

The report is the JSON-lines file that `SYMHLO_MODELS_REPORT=path.jsonl pytest test/models`
writes (test/models/models_harness.py: one line per compiled model, appended). Each row shows
what the run measured, nothing typed by hand: the model, its dynamic dims (name, range, where
they bind), the input shapes it ran at, the largest absolute error against eager PyTorch (and
relative to the output's largest magnitude), and the seconds for export + lowering and for the
IREE compile. A model reported twice (two runs appended) keeps its last line.

    SYMHLO_MODELS_REPORT=/tmp/models.jsonl pytest test/models
    python scripts/models_table.py /tmp/models.jsonl            # print the table
    python scripts/models_table.py /tmp/models.jsonl --write    # rewrite README.md between the markers
    python scripts/models_table.py /tmp/models.jsonl --check    # exit 1 (with a diff) if README differs

Rows are ordered by family (decoder LLM, generation, encoder, then any other, e.g. vision),
then by the order they appear in the report.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BEGIN, END = "<!-- models-table:begin -->", "<!-- models-table:end -->"
FAMILY_ORDER = ["decoder LLM", "generation", "encoder"]


def load(path: Path) -> list[dict]:
    """The report's rows, the last line per model name kept, in first-seen order."""
    rows: dict[str, dict] = {}
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise SystemExit(f"{path}:{n}: not JSON: {e}")
        rows[row["name"]] = row
    return list(rows.values())


def _sizes(row: dict) -> str:
    # one call = the shapes of its tensor inputs; inputs sharing a shape (ids + mask) shown once
    calls = []
    for call in row["sizes"]:
        seen = []
        for shape in call:
            s = "x".join(map(str, shape))
            if s not in seen:
                seen.append(s)
        calls.append(" + ".join(seen))
    return "; ".join(calls)


def _dims(row: dict) -> str:
    return "; ".join(d.split(":")[0] for d in row["dims"]) or "-"


def render(rows: list[dict]) -> str:
    order = {f: i for i, f in enumerate(FAMILY_ORDER)}
    rows = sorted(enumerate(rows), key=lambda ir: (order.get(ir[1].get("family", ""), len(order)),
                                                   ir[1].get("family", ""), ir[0]))
    out = ["| model | kind | dynamic dims | sizes run | max error (abs / rel) | export + compile s |",
           "|---|---|---|---|---|---|"]
    for _, r in rows:
        err = f"{r['max_abs_err']:.1e} / {r.get('max_rel_err', 0.0):.0e}"
        secs = f"{r['export_s']:.1f} + {r['iree_s']:.1f}"
        out.append(f"| {r['name']} | {r.get('family', '')} | {_dims(r)} | {_sizes(r)} | {err} | {secs} |")
    return "\n".join(out) + "\n"


def replace_between_markers(text: str, table: str) -> str:
    if BEGIN not in text or END not in text:
        raise SystemExit(f"README.md has no {BEGIN} / {END} markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{table}{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", type=Path, help="JSON lines written via SYMHLO_MODELS_REPORT")
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help="rewrite README.md between the markers")
    group.add_argument("--check", action="store_true", help="exit 1 if README.md's table differs")
    args = ap.parse_args(argv)
    table = render(load(args.report))
    if not (args.write or args.check):
        sys.stdout.write(table)
        return 0
    text = README.read_text()
    new = replace_between_markers(text, table)
    if args.check:
        if new != text:
            sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                                       "README.md", "generated"))
            return 1
        return 0
    README.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
