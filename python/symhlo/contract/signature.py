"""The call signature of an exported program (floor 1, contract): how a call's `(args, kwargs)`
bind to @main's tensor arguments, the leaf names, and the pytree specs read from files.

`Signature` is stored on @main as `symhlo.signature` (symhlo.contract.attributes writes and reads
it); `treespec_loads` reads a spec from a file without importing anything the file names.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from ..errors import ShapeError, UnsupportedOpError
from .containers import resolve_type_names
from .standins import spec_type_names

# -- the call signature --------------------------------------------------------------------------

_JSON_SCALARS = (bool, int, float, str, type(None))


@dataclass
class Signature:
    """How a call's `(args, kwargs)` map onto the program's tensor arguments.

    Attributes:
      arg_names: the forward's parameter names in torch.export's order: the positional ones
        given at export, then the keyword ones.
      num_positional: how many of arg_names were passed positionally at export.
      leaves: one entry per leaf of the flattened `(args, kwargs)`: {"name": "z[0]", "tensor": k}
        (feeds @main argument k) or {"name": "k", "value": 3} (a constant of the program) or
        {"name": "cfg", "repr": "..."} (a constant compared by repr).
      in_spec, out_spec: torch pytree specs as `treespec_dumps` text (None when not serializable).
    """

    arg_names: list[str]
    num_positional: int
    leaves: list[dict]
    in_spec: str | None = None
    out_spec: str | None = None
    _spec: Any = field(default=None, repr=False, compare=False)
    _plain: bool | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict:
        # A spec that did not serialize is left out, not stored as None: None becomes a UnitAttr,
        # which VHLO cannot hold (a program returning torch.return_types.sort had no artifact).
        specs = {k: v for k, v in (("in_spec", self.in_spec), ("out_spec", self.out_spec))
                 if v is not None}
        return {"arg_names": self.arg_names, "num_positional": self.num_positional,
                "leaves": self.leaves, **specs}

    @classmethod
    def from_json(cls, data: dict) -> "Signature":
        """Reads a signature from file data (validated; treespecs are loaded without imports)."""
        if not isinstance(data, dict):
            raise ValueError("the signature is not a JSON object")
        names = data.get("arg_names")
        npos = data.get("num_positional")
        leaves = data.get("leaves")
        if not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
            raise ValueError("signature arg_names must be a list of strings")
        if not (isinstance(npos, int) and 0 <= npos <= len(names)):
            raise ValueError("signature num_positional is out of range")
        if not isinstance(leaves, list):
            raise ValueError("signature leaves must be a list")
        for leaf in leaves:
            if not (isinstance(leaf, dict) and isinstance(leaf.get("name"), str)
                    and (isinstance(leaf.get("tensor"), int) and not isinstance(leaf["tensor"], bool)
                         or ("value" in leaf and isinstance(leaf["value"], _JSON_SCALARS))
                         or isinstance(leaf.get("repr"), str))):
                raise ValueError(f"malformed signature leaf {str(leaf)[:80]}")
        tensors = sorted(leaf["tensor"] for leaf in leaves if "tensor" in leaf)
        if tensors != list(range(len(tensors))):
            raise ValueError(f"signature leaves must feed arguments 0..{len(tensors) - 1} once each, "
                             f"got {tensors[:8]}")
        for key in ("in_spec", "out_spec"):
            if data.get(key) is not None and not isinstance(data[key], str):
                raise ValueError(f"signature {key} must be a string")
        sig = cls(names, npos, leaves, data.get("in_spec"), data.get("out_spec"))
        if sig.in_spec is not None:
            sig._spec = treespec_loads(sig.in_spec)
        return sig

    @property
    def num_tensors(self) -> int:
        return sum(1 for leaf in self.leaves if "tensor" in leaf)

    @property
    def plain(self) -> bool:
        """True when the call is `f(t0, t1, ...)`: positional tensors only, nothing nested."""
        if self._plain is None:
            self._plain = (self.num_positional == len(self.arg_names) == len(self.leaves)
                           and all(leaf.get("tensor") == k for k, leaf in enumerate(self.leaves)))
        return self._plain

    def spec(self):
        if self._spec is None and self.in_spec is not None:
            self._spec = treespec_loads(self.in_spec)
        return self._spec

    def describe(self) -> str:
        pos = self.arg_names[:self.num_positional]
        kw = self.arg_names[self.num_positional:]
        return "(" + ", ".join(pos + ([f"*, {', '.join(kw)}"] if kw else [])) + ")"

    def bind(self, args: tuple, kwargs: dict) -> list:
        """Binds a call as the model's forward would; returns the tensors for @main, in order.

        Positional parameters may be passed by name, keyword ones only by name; non-tensor
        leaves must equal the values the program was exported with.

        Raises:
          ShapeError: missing, extra or misnamed arguments, a different nesting, a tensor where a
          constant was exported or the reverse, or a constant with another value (named).
        """
        import torch
        import torch.utils._pytree as pytree

        if not kwargs and self.plain and len(args) == len(self.leaves) and \
                all(isinstance(a, torch.Tensor) for a in args):
            return list(args)
        npos = self.num_positional
        pos_names, kw_names = self.arg_names[:npos], self.arg_names[npos:]
        if len(args) > npos:
            raise ShapeError(f"the program takes {npos} positional argument(s) "
                             f"{self.describe()}, got {len(args)}")
        kwargs = dict(kwargs)
        pos = list(args)
        for name in pos_names[len(args):]:
            if name not in kwargs:
                raise ShapeError(f"missing argument '{name}' (the program takes {self.describe()})")
            pos.append(kwargs.pop(name))
        for name in pos_names[:len(args)]:
            if name in kwargs:
                raise ShapeError(f"argument '{name}' given both by position and by name")
        extra = [k for k in kwargs if k not in kw_names]
        if extra:
            raise ShapeError(f"unexpected argument '{extra[0]}' (the program takes {self.describe()})")
        missing = [k for k in kw_names if k not in kwargs]
        if missing:
            raise ShapeError(f"missing keyword argument '{missing[0]}' (the program takes "
                             f"{self.describe()})")
        tree = (tuple(pos), {k: kwargs[k] for k in kw_names})
        flat, spec = pytree.tree_flatten(tree)
        want = self.spec()
        if (want is not None and spec != want) or len(flat) != len(self.leaves):
            where = spec_difference(spec, want, self.arg_names) if want is not None else None
            raise ShapeError("the call's arguments are nested differently from the exported ones"
                             + (f" ({where})" if where else "") +
                             f": got {spec}, expected {want if want is not None else self.describe()}")
        tensors: list = [None] * self.num_tensors
        for leaf, value in zip(self.leaves, flat):
            name = leaf["name"]
            if "tensor" in leaf:
                if not isinstance(value, torch.Tensor):
                    raise ShapeError(f"{name}: expected a tensor, got {type(value).__name__} {value!r:.80}")
                tensors[leaf["tensor"]] = value
                continue
            if isinstance(value, torch.Tensor):
                raise ShapeError(f"{name}: got a tensor, but the program was exported with the "
                                 f"constant {name} = {_show(leaf)}")
            if not _same_constant(leaf, value):
                raise ShapeError(
                    f"{name}: the program was exported with {name} = {_show(leaf)}, got "
                    f"{value!r:.80}; non-tensor arguments are compiled in as constants, so "
                    f"export (and compile) again with the new value")
        return tensors


def spec_difference(got, want, arg_names: list[str]) -> str | None:
    """Where two `(args, kwargs)` treespecs first differ, in the call's terms: `past_key_values:
    a DynamicCache with ('kv',), the program was exported with ('kv', 'kv')`."""

    def name(t) -> str:
        return getattr(t, "__name__", str(t))

    def walk(g, w, path: str) -> str | None:
        if g.type is not w.type:
            return f"{path}: a {name(g.type)}, the program takes a {name(w.type)}"
        if g.context != w.context:
            return (f"{path}: a {name(g.type)} with {g.context!r}, the program was exported with "
                    f"{w.context!r}")
        if g.num_children != w.num_children:
            return (f"{path}: a {name(g.type)} of {g.num_children} items, the program was exported "
                    f"with {w.num_children}")
        keys = w.context if isinstance(w.context, (list, tuple)) and \
            len(w.context) == w.num_children and w.type is dict else range(w.num_children)
        for key, gc, wc in zip(keys, g.children(), w.children()):
            found = walk(gc, wc, f"{path}[{key!r}]")
            if found:
                return found
        return None

    if got.num_children != 2 or want.num_children != 2:
        return walk(got, want, "input")
    args_g, args_w = got.child(0), want.child(0)
    for k, (gc, wc) in enumerate(zip(args_g.children(), args_w.children())):
        found = walk(gc, wc, arg_names[k] if k < len(arg_names) else f"args[{k}]")
        if found:
            return found
    kw_g, kw_w = got.child(1), want.child(1)
    if kw_g.context == kw_w.context:
        for key, gc, wc in zip(kw_w.context, kw_g.children(), kw_w.children()):
            found = walk(gc, wc, str(key))
            if found:
                return found
    return None


def _show(leaf: dict) -> str:
    return repr(leaf["value"]) if "value" in leaf else leaf["repr"]


def _same_constant(leaf: dict, value) -> bool:
    if "value" not in leaf:
        return repr(value) == leaf["repr"]
    want = leaf["value"]
    if type(want) is not type(value):
        # JSON keeps 3.0 as a float and True as a bool; an int given for a float is not the same
        # constant to torch.export either (its guards compare types).
        return False
    if isinstance(want, float) and math.isnan(want):
        return math.isnan(value)
    return want == value


def leaf_names(in_spec, arg_names: list[str]) -> list[str]:
    """`x`, `z[0]`, `cfg['a']` for each leaf of an `(args, kwargs)` spec."""
    import torch.utils._pytree as pytree

    dummy = pytree.tree_unflatten(list(range(in_spec.num_leaves)), in_spec)
    out = []
    for path, _ in pytree.tree_flatten_with_path(dummy)[0]:
        if len(path) >= 2 and isinstance(path[0], pytree.SequenceKey):
            top = path[1]
            if path[0].idx == 0 and isinstance(top, pytree.SequenceKey):
                head = arg_names[top.idx] if top.idx < len(arg_names) else f"args[{top.idx}]"
            elif isinstance(top, pytree.MappingKey):
                head = str(top.key)
            else:
                head = pytree.keystr(path[:2])
            out.append(head + pytree.keystr(path[2:]))
        else:
            out.append(pytree.keystr(path) or "input")
    return out


def signature_of(ep) -> Signature:
    """The call signature of an ExportedProgram.

    Raises:
      UnsupportedOpError: a non-tensor input is dynamic (a SymInt/SymFloat/SymBool input).
    """
    import torch.utils._pytree as pytree
    from torch.export.graph_signature import (ConstantArgument, InputKind, TensorArgument)

    in_spec = ep.call_spec.in_spec
    mcg = ep.module_call_graph[0].signature if ep.module_call_graph else None
    forward_names = list(getattr(mcg, "forward_arg_names", None) or [])
    args_spec, kwargs_spec = ((in_spec.child(0), in_spec.child(1)) if in_spec is not None
                              and in_spec.num_children == 2 else (None, None))
    npos = args_spec.num_children if args_spec is not None else 0
    kw = list(kwargs_spec.context) if kwargs_spec is not None else []
    if len(forward_names) != npos + len(kw):
        forward_names = [f"arg{k}" for k in range(npos)] + kw
    user = [s for s in ep.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    names = leaf_names(in_spec, forward_names) if in_spec is not None else [s.arg.name for s in user]
    if len(names) != len(user):
        names = [s.arg.name for s in user]
    leaves, k = [], 0
    for name, s in zip(names, user):
        if isinstance(s.arg, TensorArgument):
            leaves.append({"name": name, "tensor": k})
            k += 1
        elif isinstance(s.arg, ConstantArgument):
            v = s.arg.value
            if isinstance(v, _JSON_SCALARS) and not (isinstance(v, int) and abs(v) >= 2**63):
                leaves.append({"name": name, "value": v})
            else:
                leaves.append({"name": name, "repr": repr(v)})
        else:
            raise UnsupportedOpError(
                f"argument '{name}' is a dynamic {type(s.arg).__name__.replace('Argument', '')} "
                "input; symhlo compiles non-tensor arguments as constants (a call with another "
                f"value raises ShapeError): export it static (None in dynamic_shapes for '{name}') "
                "or pass it as a 0-d tensor")

    def dumps(spec):
        if spec is None:
            return None
        try:
            return pytree.treespec_dumps(spec)
        except Exception:  # a container type without a serialized name: kept in memory only
            return None

    sig = Signature(forward_names, npos, leaves, dumps(in_spec), dumps(ep.call_spec.out_spec))
    sig._spec = in_spec
    return sig


# -- pytree specs from files -----------------------------------------------------------------------

def treespec_loads(text: str, *, strict: bool = False):
    """pytree.treespec_loads for a header from a file: refuses `__enum__` contexts, for which torch
    imports the module the file names (running its top-level code) before building the spec.

    Args:
      strict: the container classes the spec names are imported from their (installed) modules,
        or refused naming class and module (symhlo.load); without it, a class this process does
        not know gets a dict stand-in and nothing is imported (contract.containers).
    """
    import torch.utils._pytree as pytree

    def has_enum(x) -> bool:
        if isinstance(x, dict):
            return "__enum__" in x or any(has_enum(v) for v in x.values())
        return isinstance(x, list) and any(has_enum(v) for v in x)

    def check(node) -> None:
        if not isinstance(node, dict):
            return
        ctx = node.get("context")
        if isinstance(ctx, str):
            try:
                ctx = json.loads(ctx)
            except ValueError:
                ctx = None
        if has_enum(ctx):
            raise ValueError("the output spec names a Python enum to import")
        for child in node.get("children_spec") or []:
            check(child)

    doc = json.loads(text)
    if not (isinstance(doc, list) and len(doc) == 2):
        raise ValueError("malformed output spec")
    check(doc[1])
    resolve_type_names(spec_type_names(doc[1]), strict=strict)
    return pytree.treespec_loads(text)
