"""IREE targets and the runtime side: loading a vmfb on a driver and calling it with arrays.

Transfers are explicit in both directions: inputs are copied into device buffers, and results are
read back through a mapping when the device buffer allows one, or else through a host staging
buffer filled by a queue copy. iree.runtime's own result transfer imports a numpy allocation into
the device, which Vulkan drivers such as Mesa's lavapipe refuse (host pointers must be 4096-byte
aligned); the staging copy works on every driver.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import threading

import numpy as np

from .errors import DeviceError, SymhloError

# target -> (iree-compile backend flags, iree.runtime driver)
TARGETS: dict[str, tuple[list[str], str]] = {
    # --iree-global-opt-data-tiling: data-tiled matmuls (bench/flags.py: ~0.75x the latency of a
    # dynamic GPT-2-width stack). Not --iree-opt-data-tiling: in IREE 3.13 it picks the
    # dispatch-creation path, which miscompiles dynamic attention (bench/repro/data_tiling_attention.py).
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


def check_program(stablehlo_text: str, target: str, target_arch: str | None = None) -> None:
    """Refuses programs a target is known to run wrongly (CompileError saying what to use instead)."""
    from .errors import CompileError

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
    decl = str(fn.reflection.get("iree.abi.declaration", ""))
    del fn, module  # the function must not outlive its module
    return decl


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


# glibc mallopt parameters (malloc.h) and glibc's default M_MMAP_MAX
_M_TRIM_THRESHOLD, _M_MMAP_MAX = -1, -4
_DEFAULT_MMAP_MAX = 65536
_HOST_HEAP_RETAINED = 1 << 30


class HostHeap:
    """Serves the large host blocks IREE allocates during a call from glibc's heap, kept for reuse.

    A module with `?` dims cannot have its transient buffers packed at compile time, so IREE 3.13
    sums them into one allocation per call (86 MB for attention over (4, 4, 512, 512) scores,
    against 35 MB for the static module, whose buffers share memory by lifetime). local-task
    serves queue allocations from a pool with a 64 MB range; a larger one goes to a pass-through
    pool that mallocs it, and glibc maps every block over 32 MB afresh and unmaps it on free. So
    each call took ~22,000 page faults: the same attention took 15.3 ms at 448 keys (66 MB, under
    the range) and 47.8 ms at 512. IREE's caching allocator does not see these allocations (they
    bypass the device allocator).

    So while a call runs (`with HOST_HEAP:`), glibc serves large blocks from its heap
    (M_MMAP_MAX = 0; restored to glibc's default when the last running call ends, so allocations
    outside calls, PyTorch's included, are mapped as before), and freed heap up to 1 GiB is kept
    (M_TRIM_THRESHOLD, set once). A reused block costs a memset (IREE zeroes what it allocates)
    instead of page faults: 30.6 -> 15.8 ms at 512 keys, static 6.5 ms. The process keeps its
    peak transient memory, as PyTorch's caching allocators do. Cost on small calls: two mallopt
    calls, 6 us on a 160 us call (a 16x16 Linear at batch 8, interleaved in one process).
    SYMHLO_HOST_MALLOC=system leaves glibc alone. Non-glibc platforms: nothing is set.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._active = 0
        self._mallopt = None
        self._ready = False

    def enabled(self) -> bool:
        """Whether calls run with the heap setting (glibc, and not opted out)."""
        if not self._ready:
            self._ready = True
            if os.environ.get("SYMHLO_HOST_MALLOC", "").lower() == "system":
                return False
            try:
                mallopt = ctypes.CDLL(None).mallopt
            except (OSError, AttributeError):  # not glibc (musl, macOS)
                return False
            if mallopt(_M_TRIM_THRESHOLD, _HOST_HEAP_RETAINED):
                self._mallopt = mallopt
        return self._mallopt is not None

    def __enter__(self):
        if self.enabled():
            with self._lock:
                self._active += 1
                if self._active == 1:
                    self._mallopt(_M_MMAP_MAX, 0)
        return self

    def __exit__(self, *exc):
        if self._mallopt is not None:
            with self._lock:
                self._active -= 1
                if self._active == 0:
                    self._mallopt(_M_MMAP_MAX, _DEFAULT_MMAP_MAX)
        return False


HOST_HEAP = HostHeap()
_NO_HEAP = contextlib.nullcontext()


def open_device(driver: str):
    """The (process-cached) IREE HAL device for `driver`; DeviceError naming what is missing."""
    import iree.runtime as rt

    available = sorted(rt.query_available_drivers())
    if driver not in available:
        raise DeviceError(f"IREE driver '{driver}' is not compiled into this iree-base-runtime "
                          f"(it has: {', '.join(available)})")
    try:
        return rt.get_device(driver)
    except Exception as e:
        cause = e.__cause__ or e  # get_device's own message is generic; its cause names the library
        reason = " ".join(str(cause).split())
        usable = [t for t in TARGETS if t != target_of_driver(driver) and _has_device(TARGETS[t][1])]
        raise DeviceError(
            f"no device for target '{target_of_driver(driver)}' (IREE driver '{driver}'): "
            f"{reason}. It needs {DRIVER_NEEDS.get(driver, 'its device driver')}. "
            f"Targets with a device here: {', '.join(usable) or 'none'}.") from None


def _has_device(driver: str) -> bool:
    import iree.runtime as rt

    try:
        return bool(rt.get_driver(driver).query_available_devices())
    except Exception:
        return False


def _bfloat16() -> np.dtype:
    import ml_dtypes  # iree-base-runtime's own dependency; numpy has no bfloat16

    return np.dtype(ml_dtypes.bfloat16)


def to_numpy(t) -> np.ndarray:
    """A CPU torch tensor -> a numpy array sharing its memory (bfloat16 via ml_dtypes' type;
    torch's `.numpy()` refuses bfloat16)."""
    import torch

    t = t.detach().cpu().contiguous()  # (np.ascontiguousarray would turn 0-d arrays into 1-d ones)
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(_bfloat16())
    return t.numpy()


def to_torch(a: np.ndarray):
    """A numpy array from the runtime -> a torch tensor sharing its memory (bfloat16 included)."""
    import torch

    if a.dtype == _bfloat16():
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def _element_type(dtype: np.dtype):
    import iree.runtime as rt

    T = rt.HalElementType
    table = {
        _bfloat16(): T.BFLOAT_16,
        np.dtype(np.float32): T.FLOAT_32, np.dtype(np.float64): T.FLOAT_64,
        np.dtype(np.float16): T.FLOAT_16, np.dtype(np.int64): T.SINT_64,
        np.dtype(np.int32): T.SINT_32, np.dtype(np.int16): T.SINT_16, np.dtype(np.int8): T.SINT_8,
        np.dtype(np.uint8): T.UINT_8, np.dtype(np.uint16): T.UINT_16,
        np.dtype(np.uint32): T.UINT_32, np.dtype(np.uint64): T.UINT_64,
        np.dtype(np.bool_): T.BOOL_8,
    }
    try:
        return table[np.dtype(dtype)]
    except KeyError:
        raise SymhloError(f"arrays of dtype {np.dtype(dtype)} cannot be passed to an IREE "
                          "module") from None


class Runtime:
    """An IREE context holding one vmfb on one driver; one per thread (IREE contexts are not shared).

    Args:
      vmfb: the compiled module.
      driver: an IREE driver name ("local-task", "vulkan", "cuda", "hip").
      function: the exported function to call.
    Raises:
      DeviceError: the driver or its device is missing, or the module was built for another target.
      SymhloError: the bytes are not an IREE module.
    """

    def __init__(self, vmfb: bytes, driver: str, function: str = "main"):
        import iree.runtime as rt

        self.driver = driver
        self.device = open_device(driver)
        self._host_heap = driver in ("local-task", "local-sync") and HOST_HEAP.enabled()
        self.instance = rt.VmInstance()
        try:
            self.module = rt.VmModule.copy_buffer(self.instance, vmfb)
        except Exception as e:
            raise SymhloError(f"not a valid IREE module (vmfb): {' '.join(str(e).split())}") from None
        hal = rt.create_hal_module(self.instance, self.device)
        try:
            self.ctx = rt.VmContext(self.instance, modules=[hal, self.module])
        except Exception as e:
            built = vmfb_targets(vmfb)
            asked = target_of_driver(driver)
            if built and asked not in built:
                raise DeviceError(
                    f"the module was built for target '{'/'.join(built)}', but it was asked to run "
                    f"on target '{asked}' (IREE driver '{driver}'); recompile it with "
                    f"target='{asked}' or run it on '{built[0]}'") from None
            raise DeviceError(f"the module cannot load on IREE driver '{driver}': "
                              f"{_first_line(e)}") from None
        self.function = self.module.lookup_function(function)
        if self.function is None:
            raise SymhloError(f"the module has no function '{function}' "
                              f"(it has: {', '.join(self.module.function_names)})")
        self.signature = str(self.function.reflection.get("iree.abi.declaration", ""))
        self._n_args, self._n_results = _arity(self.signature)

    def __call__(self, arrays: list[np.ndarray]) -> list[np.ndarray]:
        """Runs the function on host arrays; returns host arrays (copies, owned by numpy)."""
        import iree.runtime as rt

        if self._n_args is not None and len(arrays) != self._n_args:
            raise SymhloError(f"the module takes {self._n_args} arrays, got {len(arrays)} "
                              f"({self.signature})")
        args = rt.VmVariantList(len(arrays))
        for a in arrays:
            args.push_ref(self._to_device(np.require(a, requirements="C")))  # keeps 0-d arrays 0-d
        rets = rt.VmVariantList(self._n_results or 4)
        with HOST_HEAP if self._host_heap else _NO_HEAP:
            try:
                self.ctx.invoke(self.function, args, rets)
            except Exception as e:
                raise SymhloError(f"the module failed on IREE driver '{self.driver}': "
                                  f"{' '.join(str(e).split())}") from None
            return [self._to_host(rets, i) for i in range(len(rets))]

    # -- transfers -----------------------------------------------------------------------------

    def _to_device(self, a: np.ndarray):
        import iree.runtime as rt

        et = _element_type(a.dtype)
        if a.dtype == np.bool_:
            a = a.view(np.int8)
        return self.device.allocator.allocate_buffer_copy(
            memory_type=rt.MemoryType.DEVICE_LOCAL,
            allowed_usage=rt.BufferUsage.DEFAULT | rt.BufferUsage.MAPPING,
            device=self.device, buffer=a, element_type=et)

    def _to_host(self, rets, i: int) -> np.ndarray:
        import iree.runtime as rt

        try:
            bv = rets.get_as_object(i, rt.HalBufferView)
        except Exception:
            return np.asarray(rets.get_variant(i))
        shape = tuple(bv.shape)
        dtype = np.dtype(rt.HalElementType.map_to_dtype(bv.element_type))  # BOOL_8 -> bool
        if int(np.prod(shape)) == 0:
            return np.empty(shape, dtype=dtype)
        buf = bv.get_buffer()
        mappable = (buf.memory_type() & int(rt.MemoryType.HOST_VISIBLE)
                    and buf.allowed_usage() & int(rt.BufferUsage.MAPPING_SCOPED))
        if mappable:
            mapped = bv.map()
            return np.array(mapped.asarray(shape, dtype), copy=True)
        return self._staged_copy(buf, shape, dtype)

    def _staged_copy(self, source, shape, dtype) -> np.ndarray:
        """Device buffer -> a host-visible staging buffer (queue copy) -> a numpy copy."""
        import iree.runtime as rt

        size = source.byte_length()
        staging = self.device.allocator.allocate_buffer(
            memory_type=int(rt.MemoryType.HOST_LOCAL | rt.MemoryType.DEVICE_VISIBLE),
            allowed_usage=int(rt.BufferUsage.TRANSFER_TARGET | rt.BufferUsage.MAPPING_SCOPED),
            allocation_size=size)
        sem = self.device.create_semaphore(0)
        self.device.queue_copy(source, staging, wait_semaphores=rt.HalFence.create_at(sem, 0),
                               signal_semaphores=rt.HalFence.create_at(sem, 1))
        rt.HalFence.create_at(sem, 1).wait()
        mapped = staging.map()
        return np.array(mapped.asarray(shape, dtype), copy=True)


def _arity(signature: str) -> tuple[int | None, int | None]:
    """(number of arguments, number of results) from an IREE declaration; None where unknown."""
    m = re.match(r".*?@[\w$.-]+\((.*?)\)\s*(?:->\s*(.*))?$", signature.strip(), re.S)
    if not m:
        return None, None
    count = lambda part: len(re.findall(r"%\w+\s*:", part)) if part else 0  # noqa: E731
    return count(m.group(1)), count(m.group(2))


def _first_line(e: Exception) -> str:
    text = str(e).strip()
    return text.splitlines()[0][:400] if text else type(e).__name__
