"""The runtime side (floor 3, backend): loading a vmfb on a driver and calling it with arrays.

Transfers are explicit in both directions: inputs are copied into device buffers, and results are
read back through a mapping when the device buffer allows one, or else through a host staging
buffer filled by a queue copy. iree.runtime's own result transfer imports a numpy allocation into
the device, which Vulkan drivers such as Mesa's lavapipe refuse (host pointers must be 4096-byte
aligned); the staging copy works on every driver.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import weakref

import numpy as np
from symhlo.passes.contract_attrs import VMFB_TRANSIENTS_SUFFIX

from ..errors import DeviceError, SymhloError
from .host_heap import HOST_HEAP
from .targets import DRIVER_NEEDS, TARGETS, declaration, target_of_driver, vmfb_targets

_NO_HEAP = contextlib.nullcontext()


# Drivers whose device IREE keeps for the whole process (iree.runtime's device cache): the CPU
# ones, which cost nothing idle and which the per-thread transient storage below is made on.
_PROCESS_LIFETIME_DRIVERS = ("local-task", "local-sync")


def open_device(driver: str):
    """The IREE HAL device for `driver`; DeviceError naming what is missing. A CPU driver's
    comes from iree.runtime's process cache; any other driver's is a device of its own, closed
    when the last reference goes (see hold_device)."""
    import iree.runtime as rt

    available = sorted(rt.query_available_drivers())
    if driver not in available:
        raise DeviceError(f"IREE driver '{driver}' is not compiled into this iree-base-runtime "
                          f"(it has: {', '.join(available)})")
    try:
        return rt.get_device(driver, cache=driver in _PROCESS_LIFETIME_DRIVERS)
    except Exception as e:
        cause = e.__cause__ or e  # get_device's own message is generic; its cause names the library
        reason = " ".join(str(cause).split())
        usable = [t for t in TARGETS if t != target_of_driver(driver) and _has_device(TARGETS[t][1])]
        raise DeviceError(
            f"no device for target '{target_of_driver(driver)}' (IREE driver '{driver}'): "
            f"{reason}. It needs {DRIVER_NEEDS.get(driver, 'its device driver')}. "
            f"Targets with a device here: {', '.join(usable) or 'none'}.") from None


class _HeldDevice:
    """An opened device and the Runtimes using it: the last Runtime to go releases it."""

    __slots__ = ("device", "__weakref__")

    def __init__(self, device):
        self.device = device


_HELD_DEVICES: "weakref.WeakValueDictionary[str, _HeldDevice]" = weakref.WeakValueDictionary()
_HELD_LOCK = threading.Lock()


def hold_device(driver: str) -> _HeldDevice:
    """The device a Runtime on `driver` runs on, shared by every Runtime alive on it.

    A GPU device (vulkan, cuda, hip) lives while a Runtime holds it, not for the whole process
    as in iree.runtime's cache: on Mesa's lavapipe (the CPU Vulkan driver of CI machines and
    GPU-less hosts) an open IREE Vulkan device keeps two threads polling its semaphores, two
    cores busy for as long as it is open, though nothing runs. The CPU drivers stay in IREE's
    cache (an idle local-task device costs nothing).
    """
    if driver in _PROCESS_LIFETIME_DRIVERS:
        return _HeldDevice(open_device(driver))
    with _HELD_LOCK:
        held = _HELD_DEVICES.get(driver)
        if held is None:
            held = _HELD_DEVICES[driver] = _HeldDevice(open_device(driver))
        return held


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
        np.dtype(np.complex64): T.COMPLEX_64,
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
        self._held_device = hold_device(driver)
        self.device = self._held_device.device
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
        self.signature = declaration(self.function.reflection)
        self._n_args, self._n_results = _arity(self.signature)
        # The same entry with its transient memory passed in (symhlo-externalize-transients-for-
        # iree): one storage buffer per thread and driver, shared by every module the thread
        # calls (its calls never overlap), grown to the largest size a call asks for, instead of
        # an allocation per call that IREE zeroes (64 MB and more for attention at seq 512).
        # SYMHLO_EXTERNAL_TRANSIENTS=0 calls @main as other hosts do (an A/B of the lever).
        self._transients_size = self.module.lookup_function(
            function + VMFB_TRANSIENTS_SUFFIX + "_transients_size")
        self._with_transients = None \
            if os.environ.get("SYMHLO_EXTERNAL_TRANSIENTS") == "0" or self._transients_size is None \
            else self.module.lookup_function(function + VMFB_TRANSIENTS_SUFFIX)
        self._sizes: dict[tuple, int] = {}

    def __call__(self, arrays: list[np.ndarray]) -> list[np.ndarray]:
        """Runs the function on host arrays; returns host arrays (copies, owned by numpy)."""
        import iree.runtime as rt

        if self._n_args is not None and len(arrays) != self._n_args:
            raise SymhloError(f"the module takes {self._n_args} arrays, got {len(arrays)} "
                              f"({self.signature})")
        function = self._with_transients or self.function
        args = rt.VmVariantList(len(arrays) + (function is not self.function))
        for a in arrays:
            args.push_ref(self._to_device(np.require(a, requirements="C")))  # keeps 0-d arrays 0-d
        if function is not self.function:
            args.push_ref(self._transient_storage(args, arrays))
        rets = rt.VmVariantList(self._n_results or 4)
        with HOST_HEAP if self._host_heap else _NO_HEAP:
            self._invoke(function, args, rets)
            return [self._to_host(rets, i) for i in range(len(rets))]

    def _invoke(self, function, args, rets) -> None:
        """ctx.invoke, its failure as a SymhloError naming the driver."""
        try:
            self.ctx.invoke(function, args, rets)
        except Exception as e:
            raise SymhloError(f"the module failed on IREE driver '{self.driver}': "
                              f"{' '.join(str(e).split())}") from None

    def _transient_storage(self, args, arrays: list[np.ndarray]):
        """The calling thread's storage for this driver, holding at least the transient bytes
        this call needs (IREE's size query for these input shapes, remembered per shape), grown
        when a call needs more."""
        import iree.runtime as rt

        held = getattr(_STORAGE, "by_driver", None)
        if held is None:
            held = _STORAGE.by_driver = {}
        storage, capacity = held.get(self.driver, (None, 0))
        key = tuple((a.shape, a.dtype.str) for a in arrays)
        size = self._sizes.get(key)
        if size is None:
            query = rt.VmVariantList(len(arrays) + 1)
            for i in range(len(arrays)):
                query.push_ref(args.get_as_object(i, rt.HalBufferView))
            query.push_ref(storage if storage is not None else self._buffer(1))
            out = rt.VmVariantList(1)
            self._invoke(self._transients_size, query, out)
            size = self._sizes[key] = max(int(out.get_variant(0)), 1)
        if size > capacity:
            # Grown by at least half again, so that a call sequence of slowly growing sizes (a
            # decode loop's past length) reallocates a logarithmic number of times.
            size = max(size, capacity * 3 // 2)
            held[self.driver] = (None, 0)   # free the old one first
            storage = self._buffer(size)
            held[self.driver] = (storage, size)
        return storage

    def _buffer(self, size: int):
        """A device buffer of `size` bytes, as the i8 buffer view @main$transients takes."""
        import iree.runtime as rt

        buffer = self.device.allocator.allocate_buffer(
            memory_type=rt.MemoryType.DEVICE_LOCAL, allowed_usage=rt.BufferUsage.DEFAULT,
            allocation_size=size)
        return rt.HalBufferView(buffer, [size], rt.HalElementType.INT_8)

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


# Per thread: {driver: (storage buffer view, its bytes)} for @main$transients (Runtime.__call__).
_STORAGE = threading.local()


def transient_storage_bytes(driver: str = "local-task") -> int:
    """Bytes of transient storage the calling thread holds for `driver` (0: none yet)."""
    return getattr(_STORAGE, "by_driver", {}).get(driver, (None, 0))[1]


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
