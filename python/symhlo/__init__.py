"""symhlo: PyTorch models with unbounded dynamic dims -> pure, portable StableHLO -> IREE."""
