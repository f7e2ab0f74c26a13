"""Every Python and shell example in README.md runs verbatim (issue 19).

Python blocks of one `## ` section run in order in one namespace (as a reader pastes them), in a
fresh temporary directory; shell blocks run under `bash -e` there, with this interpreter's bin
directory (the venv: symhlo, iree-run-module) first on PATH. A block preceded by
`<!-- readme-test: slow -->` runs only with SYMHLO_README_ALL=1 (each compiles a transformers
model); `<!-- readme-test: skip ... -->` names why a block is not run here at all. Nothing is
skipped silently: the test lists what it did not run and checks that list.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
_ALL = os.environ.get("SYMHLO_README_ALL") == "1"


def readme_blocks(text: str) -> list[dict]:
    """Each fenced python / sh block: its section, first line, language, code and marker."""
    blocks, section, lines = [], "", text.splitlines()
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("## "):
            section = line[3:].strip()
        m = re.fullmatch(r"```(\w*)", line)
        if m:
            end = next(j for j in range(k + 1, len(lines)) if lines[j] == "```")
            prev = next((lines[j] for j in range(k - 1, -1, -1) if lines[j].strip()), "")
            marker = re.fullmatch(r"<!-- readme-test: (slow|skip)\b.*-->", prev.strip())
            if m.group(1) in ("python", "sh"):
                blocks.append({"section": section, "line": k + 2, "lang": m.group(1),
                               "code": "\n".join(lines[k + 1:end]) + "\n",
                               "marker": marker.group(1) if marker else None})
            k = end
        k += 1
    return blocks


BLOCKS = readme_blocks(README.read_text())
SECTIONS = list(dict.fromkeys(b["section"] for b in BLOCKS))


def test_only_the_make_targets_are_not_run():
    skipped = [(b["section"], b["code"].split()[0:2]) for b in BLOCKS if b["marker"] == "skip"]
    assert skipped == [("", ["make", "demo"])]   # `make test` runs this very test
    assert {b["section"] for b in BLOCKS if b["lang"] == "python"} >= {"Python API"}
    assert any(b["lang"] == "sh" and b["marker"] is None for b in BLOCKS)


@pytest.mark.parametrize("section", SECTIONS)
def test_readme_section_runs(section, tmp_path, monkeypatch):
    blocks = [b for b in BLOCKS if b["section"] == section and b["marker"] != "skip"]
    if not blocks:
        pytest.skip(f"section {section!r} has only the make targets")
    if any(b["marker"] == "slow" for b in blocks) and not _ALL:
        pytest.skip(f"section {section!r} compiles transformers models: SYMHLO_README_ALL=1 runs it")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__readme__"}
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for b in blocks:
        where = f"README.md:{b['line']}"
        if b["lang"] == "python":
            exec(compile(b["code"], where, "exec"), namespace)
        else:
            p = subprocess.run(["bash", "-e", "-c", b["code"]], capture_output=True, text=True,
                               env=env, timeout=600)
            assert p.returncode == 0, f"{where}:\n{p.stdout}\n{p.stderr}"
