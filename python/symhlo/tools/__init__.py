"""Floor 4, tools: the command lines (symhlo, symhlo-opt), their input reading and diagnostics,
and the demo.

Imports any floor below. Kept free of imports itself: the in-tree symhlo-opt launcher imports
symhlo.tools.opt without torch.
"""
