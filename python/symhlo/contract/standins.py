"""Stand-in pytree containers for types a file names that this process has not registered
(floor 1, contract).

A treespec (torch.export's in/out specs in a .pt2, the out_spec a saved .symhlo keeps) names each
container by its serialized type name, e.g. `transformers.modeling_outputs.CausalLMOutputWithPast`;
torch's loader fails on a name no imported module registered ("Deserializing ... in pytree is
not registered"). symhlo never imports a module because a file names it (that runs its code):
an unknown name gets a dict subclass of the same class name, flattened by its keys, the context
transformers' ModelOutput and other dataclass-like outputs serialize (a context that is not a list
of keys, such as a KV cache's, keys the leaves by position: "0", "1", ...). `symhlo.load` imports
the class's module instead (contract.containers); stand-ins serve tools that need the tensors only. Where the real library is
imported, its own registration wins and results come back as its class.
"""

from __future__ import annotations

import json
import re
from typing import Iterable

_NAME = re.compile(r"[A-Za-z_][\w.]*")


class StandIn(dict):
    """Base of the stand-in containers; `serialized_name` is the type name the file used."""

    serialized_name = ""


def register_standins(names: Iterable[str]) -> list[str]:
    """Registers a StandIn subclass for each well-formed name torch's pytree does not know.

    Returns:
      the names registered now.
    """
    import torch.utils._pytree as pytree

    done = []
    for name in sorted(set(names)):
        if not _NAME.fullmatch(name) or name in pytree.SERIALIZED_TYPE_TO_PYTHON_TYPE:
            continue
        cls = type(name.rsplit(".", 1)[-1], (StandIn,),
                   {"__module__": __name__, "serialized_name": name})
        pytree.register_pytree_node(
            cls, lambda d: (list(d.values()), list(d.keys())), _unflatten_standin(cls),
            serialized_type_name=name,
            to_dumpable_context=json.dumps, from_dumpable_context=_keys_loads)
        done.append(name)
    return done


def _keys_loads(text: str):
    """A stand-in's context: the saved keys when they are a list (ModelOutput's field names),
    else None (another container's context, e.g. a cache's layer kinds)."""
    context = json.loads(text)
    return context if isinstance(context, list) else None


def _unflatten_standin(cls):
    def unflatten(values, keys):
        values = list(values)
        if keys is None or len(keys) != len(values):
            keys = [str(k) for k in range(len(values))]
        return cls(zip(keys, values))
    return unflatten


def spec_type_names(node) -> set[str]:
    """The container type names in a treespec's JSON form (pytree.treespec_dumps' [1])."""
    out: set[str] = set()
    if isinstance(node, dict):
        if isinstance(node.get("type"), str):
            out.add(node["type"])
        for child in node.get("children_spec") or []:
            out |= spec_type_names(child)
    return out
