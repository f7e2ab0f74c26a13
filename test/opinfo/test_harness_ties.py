"""The harness's tie rule: an index output may differ from eager's only where both pick equal values.

Eager's topk / kthvalue / median / unstable sort choose among equal elements in an order libstdc++
decides (partial_sort, nth_element, quickselect), and the harness's second size repeats the
sample's values, so it always has ties. These checks pin what the relaxed comparison accepts.
"""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import opinfo_harness as H  # noqa: E402

X = torch.tensor([[3.0, 1.0, 3.0, float("nan"), 2.0, 1.0]])


def test_ties_in_another_order_are_the_same_selection():
    eager = torch.tensor([[3, 2, 0]])            # topk(X, 3): NaN, then the two 3s
    ours = torch.tensor([[3, 0, 2]])
    assert H.compare((X[:, [3, 0, 2]], ours), (X[:, [3, 2, 0]], eager), (X, 1, True)) is None


def test_another_of_equal_elements_is_the_same_selection():
    eager, ours = torch.tensor([1]), torch.tensor([5])   # kthvalue(X, 1, 1): either 1.0
    assert H.compare((torch.tensor([1.0]), ours), (torch.tensor([1.0]), eager), (X, 1, False)) is None


def test_indices_of_other_values_differ():
    eager, ours = torch.tensor([[3, 2, 0]]), torch.tensor([[3, 2, 4]])
    assert "differ" in H.compare((X[:, [3, 2, 0]], ours), (X[:, [3, 2, 0]], eager), (X, 1, True))


def test_an_element_named_twice_differs():
    eager, ours = torch.tensor([[0, 2]]), torch.tensor([[0, 0]])
    assert "differ" in H.compare((X[:, [0, 2]], ours), (X[:, [0, 2]], eager), (X, 1, True))


def test_without_a_selection_indices_compare_exactly():
    assert "differ" in H.compare((torch.tensor([5]),), (torch.tensor([1]),))
