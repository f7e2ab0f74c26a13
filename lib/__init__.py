"""symhlo's compiler: passes, rewrite patterns, pipelines and the pass registry.

This package (installed as ``symhlo.passes``) imports MLIR bindings only: never torch, never
iree.runtime, so every .mlir lit test runs without a model or a device.
"""

from .registry import get_all_passes, get_all_pipelines, run_pipeline, PipelineError

__all__ = ["get_all_passes", "get_all_pipelines", "run_pipeline", "PipelineError"]
