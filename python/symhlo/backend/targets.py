"""IREE targets (floor 3, backend): the iree-compile flags and runtime driver of each symhlo target,
GPU arch tables, and the checks that a program or a vmfb fits a target, all without a device.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from symhlo.passes.contract_attrs import VMFB_CONTRACT, VMFB_DECLARATION, VMFB_UNCHECKED
from symhlo.passes.ir_util import new_context

from ..contract.attributes import main_func, read_contract
from ..errors import CompileError, DeviceError, SymhloError

# target -> (iree-compile backend flags, iree.runtime driver)
TARGETS: dict[str, tuple[list[str], str]] = {
    # --iree-global-opt-data-tiling: data-tiled matmuls (bench/flags.py: ~0.75x the latency of a
    # dynamic GPT-2-width stack). Not --iree-opt-data-tiling: in IREE 3.13 it picks the
    # dispatch-creation path, which miscompiles dynamic attention (bench/repro/data_tiling_attention.py).
    # (Peeled vector loops are a per-module choice: symhlo.backend.compiler.vector_peel_flags.)
    "cpu": (["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
             "--iree-llvmcpu-target-cpu=host", "--iree-global-opt-data-tiling"], "local-task"),
    "vulkan": (["--iree-hal-target-device=vulkan"], "vulkan"),
    "cuda": (["--iree-hal-target-device=cuda"], "cuda"),
    "rocm": (["--iree-hal-target-device=hip"], "hip"),
}
# sm_80 PTX runs on Ampere and every newer GPU through the CUDA driver's PTX JIT.
DEFAULT_ARCH = {"cuda": "sm_80", "rocm": "gfx942"}
ARCH_FLAG = {"cuda": "--iree-cuda-target", "rocm": "--iree-rocm-target",
             "vulkan": "--iree-vulkan-target", "cpu": "--iree-llvmcpu-target-cpu"}

# iree-base-compiler 3.13 knows CUDA sm_60..sm_89 and sm_120/121 (and names such as `a100`,
# `rtx4090`), but has no description for Hopper: `--iree-cuda-target=sm_90` fails with "missing
# GPU target". For Hopper symhlo hands iree-compile a whole device target instead: IREE's own sm_80
# description (everything in it, mma.sync included, exists on sm_90) with the arch and PTX version
# changed, so the PTX says `.target sm_90` and ptxas/the driver optimise for Hopper. Codegen is the
# sm_80 one (no wgmma/TMA); the driver's PTX JIT would give the same kernels from an sm_80 build.
_CUDA_SM80_DEVICE = (
    '#hal.device.target<"cuda", [#hal.executable.target<"cuda", "cuda-nvptx-fb", '
    '{iree_codegen.target_info = #iree_gpu.target<arch = "sm_80", features = "+ptx76", '
    'wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, '
    'subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, '
    '<NV_MMA_SYNC_F16_16x8x16_F16>, <NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_WMMA_F32_16x16x16_F16>, '
    '<NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], '
    'max_workgroup_sizes = [1024, 1024, 1024], max_thread_count_per_workgroup = 1024, '
    'max_workgroup_memory_bytes = 166912, max_workgroup_counts = [2147483647, 65535, 65535]>>}>]>')
_CUDA_DERIVED = {"sm_90": "+ptx80", "sm_90a": "+ptx80"}
_CUDA_ALIASES = {"hopper": "sm_90", "h100": "sm_90", "h200": "sm_90", "gh200": "sm_90"}
# sm_N values iree-base-compiler 3.13 accepts as --iree-cuda-target (probed).
CUDA_ARCHS = ("sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87",
              "sm_89", "sm_90", "sm_90a", "sm_120", "sm_121")


# IREE's default Vulkan target (vp_android_baseline_2022: fp32/int32 compute, 32-bit storage) runs on
# any Vulkan 1.1 device, but it reads and writes f16 buffers as if they held f32 (measured with
# iree-run-module on lavapipe: 1 2 3 comes back as 0 2 0 2.25 ...). Programs with f16 tensors need a
# target with 16-bit storage: a GPU arch (`ampere`, `rdna3`, `valhall4`, ...) or "lavapipe", the
# baseline plus the 8/16/64-bit compute and storage that Mesa's lavapipe has (no subgroup ops).
_VULKAN_LAVAPIPE_DEVICE = (
    '#hal.device.target<"vulkan", [#hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb", '
    '{iree_codegen.target_info = #iree_gpu.target<arch = "lavapipe", features = "spirv:v1.3,cap:Shader", '
    'wgp = <compute = fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = none, '
    'subgroup_size_choices = [64], max_workgroup_sizes = [128, 128, 64], '
    'max_thread_count_per_workgroup = 128, max_workgroup_memory_bytes = 16384, '
    'max_workgroup_counts = [65535, 65535, 65535]>>}>]>')
_F16 = re.compile(r"tensor<(?:[^<>]*x)?f16>")
# The same baseline stores 8- and 16-bit integers (bool is i8 in a buffer) packed in 32-bit words.
# A module input or output of n bytes, n not a multiple of 4, then loses its last partial word:
# lavapipe (robust buffer access) reads it as zeros and drops the writes to it, so a bool/int8
# input or output of shape (7, 5) comes back wrong at [6, 2:5] (measured: 28 of 45 bool outputs,
# 43 of 45 int8 inputs wrong at batch 2/7/33). Inside the module IREE's allocations are padded.
_VULKAN_NARROW_INTS = {"i1": "bool", "i8": "int8", "ui8": "uint8", "i16": "int16",
                       "ui16": "uint16"}


def check_program(stablehlo_text: str, target: str, target_arch: str | None = None,
                  boundary: Iterable[str] = ()) -> None:
    """Refuses programs a target is known to run wrongly (CompileError saying what to use instead).

    `boundary`: the element types of the tensors the module takes and returns ("i1", "f32", ...).
    """
    narrow = sorted({_VULKAN_NARROW_INTS[t] for t in boundary if t in _VULKAN_NARROW_INTS})
    if target == "vulkan" and not target_arch and narrow:
        raise CompileError(
            f"the program takes or returns {'/'.join(narrow)} tensors, which IREE's default Vulkan "
            "target (vp_android_baseline_2022, 32-bit storage only) packs into 32-bit words: "
            "elements in the last partial word of such a buffer are read as zeros and written "
            "nowhere, giving wrong results; pass target_arch='lavapipe' (Mesa's CPU Vulkan) or "
            "your GPU's Vulkan arch ('ampere', 'rdna3', 'valhall4', ...), or pass and return "
            "int32 tensors")
    if target == "vulkan" and not target_arch and _F16.search(stablehlo_text):
        raise CompileError(
            "the program has f16 tensors, which IREE's default Vulkan target "
            "(vp_android_baseline_2022, 32-bit storage only) reads and writes as f32, giving wrong "
            "results; pass target_arch='lavapipe' (Mesa's CPU Vulkan) or your GPU's Vulkan arch "
            "('ampere', 'rdna3', 'valhall4', ...)")


def cuda_device_target(arch: str) -> str:
    """The `#hal.device.target` symhlo passes for a CUDA arch IREE 3.13 has no description of."""
    return (_CUDA_SM80_DEVICE.replace('arch = "sm_80"', f'arch = "{arch}"')
            .replace('features = "+ptx76"', f'features = "{_CUDA_DERIVED[arch]}"'))


def target_flags(target: str, target_arch: str | None = None) -> list[str]:
    """iree-compile flags for a symhlo target and optional arch (DeviceError on unknown ones).

    Args:
      target: "cpu", "vulkan", "cuda" or "rocm".
      target_arch: e.g. "sm_80" (CUDA default), "sm_90", "gfx942" (ROCm default), "lavapipe" or
        "rdna3" (Vulkan; default IREE's portable baseline), "znver4" (CPU; default "host").
    """
    if target not in TARGETS:
        raise DeviceError(f"unknown target '{target}' (valid: {', '.join(TARGETS)})")
    flags = list(TARGETS[target][0])
    arch = target_arch or DEFAULT_ARCH.get(target)
    if not arch:
        return flags
    if target == "cuda":
        arch = _CUDA_ALIASES.get(arch.lower(), arch)
        if re.fullmatch(r"sm_\d+a?", arch) and arch not in CUDA_ARCHS:
            raise DeviceError(
                f"CUDA arch '{arch}' is not supported by iree-base-compiler 3.13 (it has: "
                f"{', '.join(CUDA_ARCHS)}); sm_80 PTX runs on any newer GPU through the CUDA "
                "driver's PTX JIT")
        if arch in _CUDA_DERIVED:
            return [f"--iree-hal-target-device={cuda_device_target(arch)}"]
    if target == "vulkan" and arch == "lavapipe":
        return [f"--iree-hal-target-device={_VULKAN_LAVAPIPE_DEVICE}"]
    flags = [f for f in flags if not f.startswith(ARCH_FLAG[target])]
    return flags + [f"{ARCH_FLAG[target]}={arch}"]

# What each driver needs on the machine, for DeviceError messages.
DRIVER_NEEDS = {
    "local-task": "nothing beyond iree-base-runtime",
    "vulkan": "a Vulkan driver and loader (Debian: mesa-vulkan-drivers libvulkan1 for the lavapipe "
              "CPU implementation, or a GPU vendor's Vulkan driver)",
    "cuda": "an NVIDIA GPU with its driver (libcuda.so)",
    "hip": "an AMD GPU with ROCm (libamdhip64.so)",
}

# Executable formats inside a vmfb -> the symhlo target that emits them.
_FORMAT_TARGET = (
    (re.compile(rb"embedded-elf-[a-z0-9_]+|system-elf-[a-z0-9_]+|vmvx-bytecode-fb"), "cpu"),
    (re.compile(rb"vulkan-spirv-fb"), "vulkan"),
    (re.compile(rb"cuda-nvptx-fb"), "cuda"),
    (re.compile(rb"rocm-hsaco-fb"), "rocm"),
)


def target_of_driver(driver: str) -> str:
    """The symhlo target name whose modules run on IREE driver `driver`."""
    for target, (_, drv) in TARGETS.items():
        if drv == driver:
            return target
    return "cpu" if driver.startswith("local") else driver


def vmfb_targets(vmfb: bytes) -> list[str]:
    """The symhlo targets a vmfb holds executables for (read from its executable format names).

    Returns [] for a module without dispatches (it loads on any driver).
    """
    return [t for pattern, t in _FORMAT_TARGET if pattern.search(vmfb)]


def declaration(reflection) -> str:
    """The tensor declaration of a function from its reflection: symhlo's own (the module's @main
    takes buffer views to check its contract, symhlo-insert-call-checks-for-iree) or IREE's."""
    return str(reflection.get(VMFB_DECLARATION) or reflection.get("iree.abi.declaration", ""))


def vmfb_signature(vmfb: bytes, function: str = "main") -> str:
    """The declaration IREE records for `function` in a vmfb, read without any device, e.g.
    `sync func @main(%input0: tensor<?x32xf32>) -> (%output0: tensor<?x16xf32>)`."""
    import iree.runtime as rt

    instance = rt.VmInstance()
    module = rt.VmModule.copy_buffer(instance, vmfb)
    fn = module.lookup_function(function)
    if fn is None:
        raise SymhloError(f"the module has no function '{function}' "
                          f"(it has: {', '.join(module.function_names)})")
    decl = declaration(fn.reflection)
    del fn, module  # the function must not outlive its module
    return decl


def vmfb_unchecked(vmfb: bytes, function: str = "main") -> list[str]:
    """The parts of the contract that symhlo-insert-call-checks-for-iree could not compile into
    the vmfb (its reflection's list): a host other than symhlo's runtime does not check them."""
    import json

    import iree.runtime as rt

    instance = rt.VmInstance()   # must outlive the module
    module = rt.VmModule.copy_buffer(instance, vmfb)
    fn = module.lookup_function(function)
    text = str(fn.reflection.get(VMFB_UNCHECKED, "")) if fn is not None else ""
    del fn, module, instance
    return list(json.loads(text)) if text else []


def recorded_main(vmfb: bytes, function: str = "main"):
    """The module holding the `func.func @main` declaration, with its contract attributes, that a
    vmfb records in the function's reflection (symhlo-insert-call-checks-for-iree), or None for a
    module without one. Read @main with main_func while the module is alive.

    Raises:
      SymhloError: the bytes are not an IREE module, or its recorded contract does not parse.
    """
    import iree.runtime as rt
    from torch_mlir import ir

    try:
        instance = rt.VmInstance()   # must outlive the module
        module = rt.VmModule.copy_buffer(instance, vmfb)
        fn = module.lookup_function(function)
        text = str(fn.reflection.get(VMFB_CONTRACT, "")) if fn is not None else ""
        del fn, module, instance
    except Exception as e:
        raise SymhloError(f"not a valid IREE module (vmfb): {' '.join(str(e).split())}") from None
    if not text:
        return None
    try:
        parsed = ir.Module.parse(text, new_context())
    except ir.MLIRError as e:
        raise SymhloError(f"the module's recorded contract does not parse: {e}") from None
    if main_func(parsed) is None:
        raise SymhloError("the module's recorded contract has no @main")
    return parsed


def vmfb_contract(vmfb: bytes, function: str = "main"):
    """The call contract compiled into a vmfb (see recorded_main) as a SymbolTable, or None for a
    module without one.

    Raises:
      SymhloError: the bytes are not an IREE module, or its recorded contract is malformed.
    """
    parsed = recorded_main(vmfb, function)
    return None if parsed is None else read_contract(main_func(parsed))


def check_vmfb(vmfb: bytes, target: str) -> str:
    """Checks, without a device, that `vmfb` is an IREE module built for `target`; returns its
    main declaration (see vmfb_signature).

    Raises:
      SymhloError: the bytes are not an IREE module.
      DeviceError: its executables are for another target (both are named).
    """
    try:
        signature = vmfb_signature(vmfb)
    except SymhloError:
        raise
    except Exception as e:
        raise SymhloError(f"not a valid IREE module (vmfb): {' '.join(str(e).split())}") from None
    built = vmfb_targets(vmfb)
    if built and target not in built:
        raise DeviceError(
            f"the module was built for target '{'/'.join(built)}', but it was asked to run on "
            f"target '{target}' (IREE driver '{TARGETS[target][1]}'); recompile it with "
            f"target='{target}' or run it on '{built[0]}'")
    return signature
