"""Target and device errors: an unknown target or arch, a missing driver, and a module built for
another target each raise a symhlo error naming what was asked and what exists."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap

import pytest
import torch
from torch.export import Dim

import symhlo
from symhlo.backend.compiler import CompiledModule, compile_to_vmfb

from gpu_harness import GPU_CHECK, ROOT

# Every device hidden: no CUDA/HIP device is visible and the Vulkan loader finds no driver, so the
# missing-device paths run the same way on a GPU machine as in CI.
NO_DEVICES = {"CUDA_VISIBLE_DEVICES": "", "HIP_VISIBLE_DEVICES": "", "ROCR_VISIBLE_DEVICES": "",
              "VK_ICD_FILENAMES": "/nonexistent/icd.json", "VK_DRIVER_FILES": "/nonexistent/icd.json"}


class Scale(torch.nn.Module):
    def forward(self, x):
        return x * 2 + x.shape[0]


@pytest.fixture(scope="module")
def prog():
    return symhlo.export(Scale(), (torch.randn(4, 3),), dynamic_shapes=({0: Dim("b", min=2, max=64)},))


@pytest.fixture(scope="module")
def vmfbs(prog):
    return {t: compile_to_vmfb(prog.text, t) for t in ("cpu", "vulkan", "cuda")}


def test_unknown_target_lists_valid_ones(prog):
    with pytest.raises(symhlo.DeviceError,
                       match=r"^unknown target 'metal' \(valid: cpu, vulkan, cuda, rocm\)$"):
        symhlo.compile(prog, target="metal")


def test_unknown_target_fails_before_export():
    calls = []

    class Spy(torch.nn.Module):
        def forward(self, x):
            calls.append(1)
            return x

    with pytest.raises(symhlo.DeviceError, match=r"unknown target 'gpu'"):
        symhlo.compile(Spy(), (torch.randn(2, 2),), target="gpu")
    with pytest.raises(symhlo.DeviceError, match=r"CUDA arch 'sm_100' is not supported"):
        symhlo.compile(Spy(), (torch.randn(2, 2),), target="cuda", target_arch="sm_100")
    assert not calls, "the model was traced before the target was checked"


def test_unsupported_cuda_arch_names_the_alternatives(prog):
    with pytest.raises(symhlo.DeviceError,
                       match=r"CUDA arch 'sm_100' is not supported by iree-base-compiler 3\.13 "
                             r"\(it has: sm_60, .*sm_80, .*sm_90, sm_90a, sm_120.*\); sm_80 PTX "
                             r"runs on any newer GPU through the CUDA driver's PTX JIT"):
        compile_to_vmfb(prog.text, "cuda", "sm_100")


def test_unknown_rocm_arch_is_iree_s_error(prog):
    with pytest.raises(symhlo.CompileError,
                       match=r"(?s)iree-compile failed for target 'rocm'.*Unknown ROCM target 'gfx9999'"):
        compile_to_vmfb(prog.text, "rocm", "gfx9999")


@pytest.mark.parametrize("built,asked", [("cpu", "vulkan"), ("vulkan", "cpu"), ("cuda", "vulkan"),
                                         ("vulkan", "cuda")])
def test_module_built_for_another_target(prog, vmfbs, built, asked):
    with pytest.raises(symhlo.DeviceError,
                       match=rf"^the module was built for target '{built}', but it was asked to run "
                             rf"on target '{asked}' \(IREE driver '\S+'\); recompile it with "
                             rf"target='{asked}' or run it on '{built}'$"):
        CompiledModule(vmfbs[built], prog.symbols, target=asked)


def test_saved_module_with_edited_target_is_refused(prog, vmfbs, tmp_path):
    import json
    import struct

    from symhlo.backend.compiler import _header_digest

    cm = CompiledModule(vmfbs["cuda"], prog.symbols, target="cuda", out_spec=prog.out_spec)
    path = tmp_path / "m.symhlo"
    cm.save(path)
    data = path.read_bytes()
    # A header edited in place fails its own checksum...
    path.write_bytes(data.replace(b'"target": "cuda"', b'"target": "rocm"', 1))
    with pytest.raises(symhlo.SymhloError, match=r"header fails its sha256 check"):
        symhlo.load(path)
    # ...and a re-sealed one that claims another target is refused by what the vmfb holds.
    magic = CompiledModule.MAGIC
    (n,) = struct.unpack("<Q", data[len(magic):len(magic) + 8])
    start = len(magic) + 8
    header = json.loads(data[start:start + n])
    header["target"] = "rocm"
    header["header_sha256"] = _header_digest(header)
    blob = json.dumps(header).encode()
    path.write_bytes(magic + struct.pack("<Q", len(blob)) + blob + data[start + n:])
    with pytest.raises(symhlo.DeviceError, match=r"built for target 'cuda'.*target 'rocm'"):
        symhlo.load(path)


def test_not_a_vmfb(prog):
    with pytest.raises(symhlo.SymhloError, match=r"not a valid IREE module \(vmfb\)"):
        CompiledModule(b"\x00" * 64, prog.symbols, target="vulkan")


def _run_without_devices(code: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, **NO_DEVICES}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], env=env,
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def test_missing_devices_name_the_driver(prog, vmfbs, tmp_path):
    # a CUDA module compiles and saves without a GPU; calling it is what needs the device
    path = tmp_path / "cuda.symhlo"
    CompiledModule(vmfbs["cuda"], prog.symbols, target="cuda", out_spec=prog.out_spec).save(path)
    r = _run_without_devices("""
        import json, sys, torch, symhlo
        from symhlo.backend.runtime import open_device
        out = {}
        for d in ("cuda", "hip", "vulkan"):
            try:
                open_device(d)
                out[d] = None
            except symhlo.DeviceError as e:
                out[d] = str(e)
        cm = symhlo.load(sys.argv[1])
        try:
            cm(torch.randn(3, 3))
            out["call"] = None
        except symhlo.DeviceError as e:
            out["call"] = str(e)
        print(json.dumps(out))
    """, str(path))
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    here = r"Targets with a device here: cpu\.$"
    assert out["cuda"] and out["cuda"].startswith("no device for target 'cuda' (IREE driver 'cuda'): ")
    assert out["cuda"].endswith("It needs an NVIDIA GPU with its driver (libcuda.so). "
                                "Targets with a device here: cpu.")
    assert out["hip"] and out["hip"].startswith("no device for target 'rocm' (IREE driver 'hip'): ")
    assert "It needs an AMD GPU with ROCm (libamdhip64.so)." in out["hip"]
    assert out["vulkan"] and out["vulkan"].startswith(
        "no device for target 'vulkan' (IREE driver 'vulkan'): ")
    assert "mesa-vulkan-drivers libvulkan1" in out["vulkan"]
    for d in ("cuda", "hip", "vulkan"):
        assert re.search(here, out[d]), out[d]
    assert out["call"] == out["cuda"]


def test_gpu_check_without_cuda_exits_2():
    r = _run_without_devices(f"import runpy, sys; sys.argv = [{str(GPU_CHECK)!r}]; "
                             f"runpy.run_path({str(GPU_CHECK)!r}, run_name='__main__')")
    assert r.returncode == 2, (r.returncode, r.stdout[-1000:], r.stderr[-2000:])
    assert r.stderr.strip().startswith("gpu-check: error: no device for target 'cuda' "
                                       "(IREE driver 'cuda'): "), r.stderr[-2000:]
    assert "NVIDIA GPU" in r.stderr
    assert r.stdout == ""
