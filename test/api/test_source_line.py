"""errors.source_line: the one reader of the user's source line that refusals name, for an FX
node's stack_trace (refusals.node_source_line), the node being decomposed
(decompositions.views.current_source_line) and the traceback torch quotes in a retrace error."""

from types import SimpleNamespace

from symhlo.errors import source_line
from symhlo.frontend.refusals import node_source_line

TRACE = '''  File "/home/u/model.py", line 40, in forward
    return self.block(x)
  File "/home/u/block.py", line 12, in forward
    y = torch.nonzero(x)
  File "<eval_with_key>.3", line 5, in forward
    nonzero = torch.ops.aten.nonzero.default(x)
'''


def test_innermost_user_frame_skipping_dynamo_graph_code():
    assert source_line(TRACE) == "/home/u/block.py:12 in forward"
    assert source_line(TRACE, code=True) == "/home/u/block.py:12 in forward: y = torch.nonzero(x)"


def test_fx_node_and_torch_error_text_read_the_same_way():
    node = SimpleNamespace(meta={"stack_trace": TRACE})
    assert node_source_line(node, code=True) == source_line(TRACE, code=True)
    quoted = 'Original traceback:\n  File "m.py", line 7\n    y = x.resize_as_(z)'
    assert source_line(quoted) == "m.py:7"


def test_no_frame_gives_the_default():
    assert source_line(None) == "unknown source line"
    assert source_line("no traceback here", default="?") == "?"
    assert node_source_line(SimpleNamespace(meta={}), "here") == "here"


def test_failed_retrace_names_the_op_node_and_line():
    """An exception from torch's retrace while decomposing (its message quotes the FX node and
    the user's traceback) becomes UnsupportedOpError naming the op, the node and the line; any
    other exception is passed through unchanged."""
    from symhlo.errors import UnsupportedOpError
    from symhlo.frontend.importer import _decomposition_failure

    text = ("0 INTERNAL ASSERT FAILED at python_arg_parser.cpp:659\n"
            "While executing %resize_as_ : [num_users=1] = call_function[target=torch.ops.aten."
            "resize_as_.default](args = (%clone, %y), kwargs = {})\n"
            "Original traceback:\n"
            '  File "/home/u/model.py", line 12, in forward\n'
            "    return torch.resize_as_(x.clone(), y)\n")
    e = _decomposition_failure(RuntimeError(text))
    assert isinstance(e, UnsupportedOpError)
    assert str(e).startswith("unsupported op 'aten.resize_as_.default' (FX node 'resize_as_') at "
                             "/home/u/model.py:12 in forward: torch failed to retrace it")
    other = ValueError("no node named here")
    assert _decomposition_failure(other) is other
