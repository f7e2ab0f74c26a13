"""IREE targets and the runtime side: loading a vmfb on a driver and calling it with arrays."""

from __future__ import annotations

import numpy as np

from .errors import DeviceError, SymhloError

# target -> (iree-compile backend flags, iree.runtime driver)
TARGETS: dict[str, tuple[list[str], str]] = {
    "cpu": (["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
             "--iree-llvmcpu-target-cpu=host"], "local-task"),
    "vulkan": (["--iree-hal-target-device=vulkan"], "vulkan"),
    "cuda": (["--iree-hal-target-device=cuda"], "cuda"),
    "rocm": (["--iree-hal-target-device=hip"], "hip"),
}
DEFAULT_ARCH = {"cuda": "sm_80", "rocm": "gfx942"}
ARCH_FLAG = {"cuda": "--iree-cuda-target", "rocm": "--iree-rocm-target",
             "cpu": "--iree-llvmcpu-target-cpu"}

_TORCH_TO_NP = {
    "float32": np.float32, "float64": np.float64, "float16": np.float16, "int64": np.int64,
    "int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "bool": np.bool_,
}


class Runtime:
    """An IREE runtime context holding one vmfb; one per thread (IREE contexts are not shared)."""

    def __init__(self, vmfb: bytes, driver: str):
        import iree.runtime as rt

        try:
            self.config = rt.Config(driver)
        except Exception as e:
            raise DeviceError(f"IREE driver '{driver}' is not available here "
                              f"(available: {', '.join(rt.query_available_drivers())}): {e}") from None
        self.ctx = rt.SystemContext(config=self.config)
        try:
            vm_module = rt.VmModule.copy_buffer(self.ctx.instance, vmfb)
        except Exception as e:
            raise SymhloError(f"not a valid IREE module for driver '{driver}': {e}") from None
        try:
            self.ctx.add_vm_module(vm_module)
        except Exception as e:
            raise DeviceError(f"the module cannot load on driver '{driver}' (built for another "
                              f"target?): {e}") from None
        self.main = self.ctx.modules.module["main"]

    def __call__(self, arrays: list[np.ndarray]) -> list[np.ndarray]:
        results = self.main(*arrays)
        if not isinstance(results, (tuple, list)):
            results = [results]
        return [np.array(r.to_host() if hasattr(r, "to_host") else r, copy=True) for r in results]


