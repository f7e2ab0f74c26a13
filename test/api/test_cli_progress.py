"""The CLI reports progress: every stage with its time and a total with -v (and by default on a
terminal), nothing with -q or when stderr is not a terminal; every argument has help text."""

import argparse
import re

import pytest
import torch
from torch.export import Dim

import symhlo
import symhlo.tools.cli as cli


def _actions(parser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from ((f"{name} {opt}", a) for opt, a in _actions(sub))
        elif not isinstance(action, argparse._HelpAction):
            yield "/".join(action.option_strings) or action.dest, action


def test_every_argument_has_help_text():
    missing = [name for name, a in _actions(cli.build_parser())
               if not a.help or a.help == argparse.SUPPRESS]
    assert missing == []


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("progress")
    ep = torch.export.export(torch.nn.Linear(4, 3), (torch.randn(2, 4),),
                             dynamic_shapes=({0: Dim("batch", max=64)},))
    torch.export.save(ep, d / "m.pt2")
    symhlo.export(ep).save(d / "m.mlir")
    return d


STAGES = ["load", "import", "torch-backend", "stablehlo", "iree-input", "iree", "total"]


def _stages(err: str) -> list[str]:
    return re.findall(r"^\[symhlo\] (\S+) +\.\.\. +\d+\.\d\d s$", err, re.M)


def test_verbose_reports_every_stage_and_a_total(files, capsys):
    assert cli.main(["compile", str(files / "m.pt2"), "-o", str(files / "m.vmfb"), "-v"]) == 0
    err = capsys.readouterr().err
    assert _stages(err) == STAGES, err
    assert len(err.splitlines()) == len(STAGES), err   # nothing else (no warnings between)


def test_quiet_and_not_a_terminal_print_nothing(files, capsys, monkeypatch):
    assert cli.main(["compile", str(files / "m.mlir"), "-o", str(files / "q.vmfb"), "-q"]) == 0
    assert capsys.readouterr().err == ""
    assert cli.main(["export", str(files / "m.mlir"), "-o", str(files / "q.mlir")]) == 0
    assert capsys.readouterr().err == ""   # stderr is not a terminal here
    monkeypatch.setattr(cli, "on_terminal", lambda: True)
    assert cli.main(["compile", str(files / "m.mlir"), "-o", str(files / "t.vmfb")]) == 0
    assert _stages(capsys.readouterr().err) == ["load", "iree-input", "iree", "total"]
    assert cli.main(["compile", str(files / "m.mlir"), "-o", str(files / "t.vmfb"), "-q"]) == 0
    assert capsys.readouterr().err == ""
