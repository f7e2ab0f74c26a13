"""Floor 2, frontend: PyTorch (torch.export) -> pure StableHLO: export, the FX importer, the
refusals, and the ATen decompositions (decompositions/).

Imports floors 0-1 (errors, stages, contract) only.
"""
