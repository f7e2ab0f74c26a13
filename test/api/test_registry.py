"""The one pass registry: names, docs, lit coverage, and pipelines that resolve."""

import importlib
import sys
from pathlib import Path

import pytest

from symhlo.passes import get_all_passes, get_all_pipelines
from symhlo.passes.ir_util import new_context
from symhlo.passes.registry import validate_pipeline

ROOT = Path(__file__).resolve().parents[2]
PASSES = get_all_passes()


@pytest.mark.parametrize("name", sorted(PASSES))
def test_registry_key_is_the_pass_name(name):
    cls = PASSES[name]()
    assert cls.name == name
    assert cls.summary and not cls.summary.lower().startswith("run an example")


@pytest.mark.parametrize("name", sorted(PASSES))
def test_pass_module_is_named_after_the_pass(name):
    module = PASSES[name]().__module__
    assert module == "symhlo.passes." + name.removeprefix("symhlo-").replace("-", "_")


@pytest.mark.parametrize("name", sorted(PASSES))
def test_pass_module_documents_before_and_after_ir(name):
    module = sys.modules[PASSES[name]().__module__]
    assert module.__doc__ and name in module.__doc__
    assert "==>" in module.__doc__, f"{module.__name__} lacks a before ==> after example"


@pytest.mark.parametrize("name", sorted(PASSES))
def test_every_pass_has_lit_tests(name):
    tests = list((ROOT / "test" / name).glob("*.mlir"))
    assert tests, f"no lit tests in test/{name}/"
    assert any(f"--{name}" in t.read_text() for t in tests)


@pytest.mark.parametrize("name", sorted(get_all_pipelines()))
def test_every_pipeline_resolves(name):
    steps = validate_pipeline(f"builtin.module({name})", new_context())
    assert steps and any(s.symhlo_pass is not None for s in steps)
