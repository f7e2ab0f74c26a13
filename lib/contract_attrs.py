"""The contract's attribute names on @main and its size limits: the one owner of these facts.

Not a pass. python/symhlo's export writes the contract (`symhlo.symbols`: the Dim ranges of the
export call, narrowed by `inputs=`; `symhlo.arg_names` / `symhlo.arg_shapes` / `symhlo.relations`
/ `symhlo.signature`) onto the torch-dialect @main right after import, in torch's symbol names,
and renames them to the user's after the passes: the one channel a range travels on from the
export call to the call-time check. symhlo-torch-symbolic-to-shape adds `symhlo.result_shapes`
and the ranges of symbols no argument binds (data-dependent sizes; on torch IR without a contract
it records them all), symhlo-lower-shape-assertions writes `symhlo.shape_assertions`,
symhlo-lower-torch-runtime-asserts writes `symhlo.runtime_checks` (the messages of @main's last
results, 0-d checks only the data decides),
symhlo-fold-size-ranges and symhlo-insert-call-checks-for-iree read them (symhlo-prepare-for-iree
asks whether a function has them), and python/symhlo/contract
(write_contract, rename_contract, read_contract, the call-time checks) writes and reads them all: every one of
them imports the names from here, none spells them.

    func.func @main(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> attributes {
        symhlo.symbols = {m = [1, 9223372036854775807]},      // SYMBOLS: name -> [min, max]
        symhlo.arg_names = ["x"],                             // ARG_NAMES
        symhlo.arg_shapes = [["m", "4"]],                     // ARG_SHAPES: size expressions
        symhlo.result_shapes = [["m", "4"]],                  // RESULT_SHAPES
        symhlo.relations = [],                                // RELATIONS: "m <= n", ...
        symhlo.signature = {...},                             // SIGNATURE: call signature
        symhlo.shape_assertions = [...],                      // SHAPE_ASSERTIONS: foreign checks
        symhlo.runtime_checks = ["u0 <= m ..."]}              // RUNTIME_CHECKS: data checks

A symbol without a max has UNBOUNDED (i64's max) as its max; `is_unbounded` is the one test
for "no max" (it also reads the large finite spellings torch uses for infinity as unbounded).
MAX_DIM_SIZE is the largest size any axis may have at a call. `symbol_ranges` is the one reader
of `symhlo.symbols`' entries, `range_attr` the one writer.
"""

from torch_mlir import ir

SYMBOLS = "symhlo.symbols"
ARG_NAMES = "symhlo.arg_names"
ARG_SHAPES = "symhlo.arg_shapes"
RESULT_SHAPES = "symhlo.result_shapes"
RELATIONS = "symhlo.relations"
SIGNATURE = "symhlo.signature"
SHAPE_ASSERTIONS = "symhlo.shape_assertions"
RUNTIME_CHECKS = "symhlo.runtime_checks"

# The reflection entries symhlo-insert-call-checks-for-iree records on a .vmfb's @main: the tensor
# declaration (IREE's own names buffer views), the original @main's signature and contract
# attributes as MLIR text, and the checks it could not compile in (JSON list).
VMFB_DECLARATION = "symhlo.declaration"
VMFB_CONTRACT = "symhlo.contract"
VMFB_UNCHECKED = "symhlo.unchecked"
# The entry suffix of @main run in caller-given transient memory (symhlo-externalize-transients-
# for-iree); IREE names its size query `<entry>_transients_size`.
VMFB_TRANSIENTS_SUFFIX = "$transients"

# A function carrying either of these was exported by symhlo from torch.export.
CONTRACT_ATTRS = (SYMBOLS, ARG_SHAPES)

# The max written for a symbol that has none (an i64 attribute's largest value).
UNBOUNDED = 2**63 - 1
# Any max from here up means "no max": torch spells infinity as int_oo, sys.maxsize or
# sys.maxsize - 1, and no real size comes near it.
_UNBOUNDED_FROM = 2**62

# The largest size a call may have on any axis. The programs read sizes with
# stablehlo.get_dimension_size, which returns i32, so 2**31 would wrap to a negative size; size
# arithmetic itself is i64 (a product of two such sizes cannot overflow it).
MAX_DIM_SIZE = 2**31 - 1


def is_unbounded(bound: int | None) -> bool:
    """True when `bound` (a symbol's max, or the magnitude of a range's end) means "no bound"."""
    return bound is None or abs(bound) >= _UNBOUNDED_FROM


def symbol_ranges(func) -> dict[str, tuple[int, int | None]]:
    """`func`'s `symhlo.symbols` as {name: (min, max or None for no max)}; {} without it.

    Raises:
      ValueError, TypeError: the attribute is not a dictionary of [min, max] integer pairs.
    """
    if SYMBOLS not in func.attributes:
        return {}
    ranges = {}
    for named in ir.DictAttr(func.attributes[SYMBOLS]):
        lo, hi = (ir.IntegerAttr(x).value for x in ir.ArrayAttr(named.attr))
        ranges[named.name] = (lo, None if is_unbounded(hi) else hi)
    return ranges


def range_attr(lo: int, hi: int | None) -> ir.Attribute:
    """One `symhlo.symbols` entry, [min, max] as i64s: a max of None (or past i64) is UNBOUNDED.
    Needs an MLIR context."""
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.IntegerAttr.get(i64, lo),
                             ir.IntegerAttr.get(i64, UNBOUNDED if hi is None else min(hi, UNBOUNDED))])
