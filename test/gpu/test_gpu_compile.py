"""CUDA and ROCm builds without a GPU: every suite model compiles to a vmfb for sm_80, sm_90 and
gfx942 with its dynamic dims intact. Running them is scripts/gpu_check.py's job on a real GPU."""

from __future__ import annotations

import re

import pytest
import torch
from torch.export import Dim

import iree.compiler as ic

import symhlo
from symhlo.backend.compiler import compile_to_vmfb
from symhlo.backend.targets import _CUDA_SM80_DEVICE, target_flags, vmfb_signature, vmfb_targets

from gpu_harness import SUITE, exported, main_signature, vmfb_signature_types
from test_vulkan_models import ControlFlow

BUILDS = [("cuda", "sm_80"), ("cuda", "sm_90"), ("rocm", "gfx942")]


@pytest.mark.parametrize("target,arch", BUILDS, ids=[f"{t}-{a}" for t, a in BUILDS])
@pytest.mark.parametrize("name", [c.name for c in SUITE])
def test_gpu_build_keeps_dynamic_dims(name, target, arch):
    _, prog = exported(name)
    vmfb = compile_to_vmfb(prog.text, target, arch)
    assert vmfb_targets(vmfb) == [target]
    args_t, results_t = main_signature(prog.text)
    vm_args, vm_results = vmfb_signature_types(vmfb_signature(vmfb))
    assert (vm_args, vm_results) == (args_t, results_t)
    assert any("?" in t for t in vm_args + vm_results)
    if target == "cuda":
        # IREE embeds PTX: its .target line is the arch the driver JIT-compiles from
        targets = set(re.findall(rb"\.target (sm_\w+)", vmfb))
        assert targets == {arch.encode()}, targets
    else:
        assert arch.encode() in vmfb


def test_cuda_sm90_uses_iree_sm80_description():
    # the Hopper device target is IREE 3.13's sm_80 description with arch/PTX changed; if a new
    # IREE changes its sm_80 description, this says so before a GPU run does
    src = ("func.func @main(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {\n"
           "  %0 = stablehlo.add %a, %a : tensor<?x4xf32>\n  return %0 : tensor<?x4xf32>\n}\n")
    text = ic.compile_str(src, input_type="stablehlo", extra_args=target_flags("cuda", "sm_80") + [
        "--compile-to=executable-sources"]).decode()
    assert _CUDA_SM80_DEVICE in text
    assert target_flags("cuda", "hopper") == target_flags("cuda", "sm_90")
    assert 'arch = "sm_90a", features = "+ptx80"' in target_flags("cuda", "sm_90a")[0]


def test_default_arches():
    assert target_flags("cuda")[-1] == "--iree-cuda-target=sm_80"
    assert target_flags("rocm")[-1] == "--iree-rocm-target=gfx942"
    assert target_flags("vulkan") == ["--iree-hal-target-device=vulkan"]
    assert target_flags("vulkan", "rdna3")[-1] == "--iree-vulkan-target=rdna3"


def test_control_flow_builds_for_cuda_and_rocm():
    """stablehlo.while / stablehlo.if over `?` dims (test_vulkan_models.ControlFlow) compile for
    CUDA and ROCm with their dynamic dims kept (not run here: no GPU)."""
    prog = symhlo.export(ControlFlow(), (torch.randn(6, 4),), dynamic_shapes=({0: Dim("b", max=64)},))
    assert "stablehlo.while" in prog.text and '"stablehlo.if"' in prog.text
    args_t, results_t = main_signature(prog.text)
    for target, arch in (("cuda", "sm_80"), ("rocm", "gfx942")):
        vmfb = compile_to_vmfb(prog.text, target, arch)
        assert vmfb_targets(vmfb) == [target]
        assert vmfb_signature_types(vmfb_signature(vmfb)) == (args_t, results_t)
