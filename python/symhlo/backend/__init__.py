"""Floor 3, backend: StableHLO -> IREE modules and calls: compile / load and the file format,
targets, the runtime, the host heap, and the torch.compile backend.

Imports floors 0-2 (errors, stages, contract, frontend) only.
"""
