"""`.pt2` files of models whose outputs are library containers (transformers' ModelOutput),
through the CLI in a process that never imports that library: `torch.export.save` here ->
`symhlo compile M.pt2` and `symhlo run` in a child process -> numbers equal to eager.

torch.export.load rebuilds the output treespec by the container's serialized name and failed
("Deserializing transformers.modeling_outputs.CausalLMOutputWithPast in pytree is not
registered"): the CLI refused every transformers model's .pt2. It now gives unknown names a
stand-in container instead of importing modules a file names.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import torch
from torch.export import Dim
from transformers.modeling_outputs import BaseModelOutput


class Encoderish(torch.nn.Module):
    def forward(self, input_ids, attention_mask):
        h = torch.nn.functional.one_hot(input_ids, 16).float() * attention_mask[..., None]
        return BaseModelOutput(last_hidden_state=h.cumsum(1) * 0.5)


def _cli(*argv: str) -> subprocess.CompletedProcess:
    code = ("import sys\nfrom symhlo.tools.cli import main\nrc = main(sys.argv[1:])\n"
            "assert 'transformers' not in sys.modules, 'the CLI imported transformers'\n"
            "sys.exit(rc)")
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                          timeout=600)


def test_model_output_pt2_through_the_cli(tmp_path):
    m = Encoderish()
    ids = torch.randint(0, 16, (2, 5))
    mask = torch.ones(2, 5, dtype=torch.int64)
    b, s = Dim("batch", min=1, max=8), Dim("seq", min=2, max=32)
    ep = torch.export.export(m, (), kwargs={"input_ids": ids, "attention_mask": mask},
                             dynamic_shapes={"input_ids": {0: b, 1: s}, "attention_mask": {0: b, 1: s}})
    torch.export.save(ep, tmp_path / "m.pt2")
    r = _cli("compile", str(tmp_path / "m.pt2"), "-o", str(tmp_path / "m.symhlo"))
    assert r.returncode == 0, r.stderr
    for n, length in ((1, 2), (3, 9), (8, 32)):
        ids = torch.randint(0, 16, (n, length))
        mask = (torch.rand(n, length) > 0.3).long()
        np.save(tmp_path / "ids.npy", ids.numpy())
        np.save(tmp_path / "mask.npy", mask.numpy())
        r = _cli("run", str(tmp_path / "m.symhlo"), "--input", f"@{tmp_path / 'ids.npy'}",
                 "--input", f"@{tmp_path / 'mask.npy'}", "--output", f"@{tmp_path / 'out.npy'}")
        assert r.returncode == 0, r.stderr
        expected = m(input_ids=ids, attention_mask=mask).last_hidden_state
        np.testing.assert_allclose(np.load(tmp_path / "out.npy"), expected.numpy(), rtol=1e-6, atol=1e-6)
