"""Floor 1, contract: what a program promises its callers (symbolic dims and their ranges and
relations, the call signature, symhlo.Input, shape assertions) and how it is written onto @main.

Imports only errors and stages (floor 0) and symhlo.passes; every floor above reads it.
"""
