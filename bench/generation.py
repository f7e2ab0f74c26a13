"""`make bench`, generation cell: greedy decoding tokens per second of a transformers causal LM
with its default config (cache on), symhlo.compile_generation against eager and inductor.

Columns (each generates the same tokens; the symhlo column is checked against eager's):

  symhlo          symhlo.compile_generation(lm).generate: one prefill module, one decode module
                  (batch and past length dynamic), the DynamicCache crossing the boundary
  eager-generate  lm.generate(ids, do_sample=False): transformers' own loop, eager
  eager           the same greedy loop as inductor, calling the eager model
  inductor        the same greedy loop, calling torch.compile(lm, dynamic=True) (compiled during
                  the warm-up run, not timed)

A cell is the median of `--repeats` whole generations after one warm-up, the columns called in
rotating order round by round; tokens/s counts the new tokens of every row (batch x new tokens /
seconds). Writes bench/results/generation.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")   # as bench/run.py: sane eager on a shared machine

import torch  # noqa: E402

HERE = Path(__file__).resolve().parent
warnings.filterwarnings("ignore")

MODELS = {
    "llama-d256": lambda t: t.LlamaForCausalLM(t.LlamaConfig(
        vocab_size=4096, hidden_size=256, intermediate_size=688, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024)),
    "gpt2-d256": lambda t: t.GPT2LMHeadModel(t.GPT2Config(
        vocab_size=4096, n_embd=256, n_layer=2, n_head=4, n_positions=1024)),
}
COLUMNS = ("symhlo", "eager-generate", "eager", "inductor")


def greedy(forward, ids: torch.Tensor, new: int) -> torch.Tensor:
    """Greedy decoding through `forward(ids[, past_key_values=])`: the loop compile_generation runs."""
    out = forward(ids)
    tokens = []
    for k in range(new):
        token = out.logits[:, -1].argmax(-1)
        tokens.append(token)
        if k < new - 1:
            out = forward(token[:, None], past_key_values=out.past_key_values)
    return torch.cat([ids, torch.stack(tokens, 1)], 1)


def measure(fns: dict, repeats: int) -> dict:
    """Seconds (median) and the tokens of each column: one warm-up call each (inductor compiles
    there), then `repeats` rounds calling every column once, in rotating order, so load from
    other processes lands on all of them alike. A column that fails gets its error text."""
    out, live = {}, []
    for col, fn in fns.items():
        try:
            out[col] = [[], fn()]
            live.append(col)
        except Exception as e:  # reported in the table, not fatal
            out[col] = f"failed: {type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''}"
    for r in range(repeats):
        for col in live[r % len(live):] + live[:r % len(live)]:
            t = time.perf_counter()
            fns[col]()
            out[col][0].append(time.perf_counter() - t)
    return {c: v if isinstance(v, str) else (statistics.median(v[0]), v[1]) for c, v in out.items()}


def bench_model(name: str, sizes, new: int, repeats: int, columns) -> list[str]:
    import transformers

    import symhlo

    torch.manual_seed(0)
    lm = MODELS[name](transformers).eval()
    lm.generation_config.eos_token_id = None         # every row generates `new` tokens
    t = time.perf_counter()
    gen = symhlo.compile_generation(lm, max_batch=16)
    compile_s = time.perf_counter() - t
    inductor = torch.compile(lm, dynamic=True) if "inductor" in columns else None
    fns = {
        "symhlo": lambda ids: gen.generate(ids, max_new_tokens=new),
        "eager-generate": lambda ids: lm.generate(ids, attention_mask=torch.ones_like(ids),
                                                  max_new_tokens=new, min_new_tokens=new,
                                                  do_sample=False),
        "eager": lambda ids: greedy(lm, ids, new),
        "inductor": lambda ids: greedy(inductor, ids, new),
    }
    rows = []
    for b, s in sizes:
        ids = torch.randint(0, lm.config.vocab_size, (b, s), generator=torch.Generator().manual_seed(s))
        with torch.no_grad():
            cells = measure({c: (lambda c=c: fns[c](ids)) for c in columns}, repeats)
        ref = cells["eager"][1] if isinstance(cells.get("eager"), tuple) else None
        wrong = ref is not None and isinstance(cells.get("symhlo"), tuple) and \
            not torch.equal(cells["symhlo"][1], ref)
        line = [f"{name}", f"{b}x{s} +{new}"]
        for col in columns:
            c = cells[col]
            line.append(c if isinstance(c, str) else f"{b * new / c[0]:.0f} tok/s ({c[0] * 1e3:.0f} ms)")
        if wrong:
            line[2] += " **wrong tokens**"
        rows.append("| " + " | ".join(line) + " |")
        print(rows[-1], flush=True)
    rows.append(f"| {name} | symhlo compile (prefill + decode) | {compile_s:.1f} s |" +
                " |" * (len(columns) - 1))
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated: " + ", ".join(MODELS))
    p.add_argument("--columns", default=",".join(COLUMNS), help="comma-separated: " + ", ".join(COLUMNS))
    p.add_argument("--new", type=int, default=32, help="new tokens per generation")
    p.add_argument("--repeats", type=int, default=3, help="timed generations per cell (median)")
    p.add_argument("--quick", action="store_true", help="one small size, 8 new tokens")
    p.add_argument("--out", default=str(HERE / "results" / "generation.md"), help="report path (.md)")
    a = p.parse_args(argv)
    columns = [c for c in a.columns.split(",") if c]
    sizes = [(1, 8)] if a.quick else [(1, 32), (4, 128)]
    new = 8 if a.quick else a.new
    header = ["| model | batch x prompt + new | " + " | ".join(columns) + " |",
              "|---|---|" + "---|" * len(columns)]
    print("\n".join(header), flush=True)
    rows = []
    for name in a.models.split(","):
        rows += bench_model(name, sizes, new, a.repeats, columns)
    load = os.getloadavg()
    text = "\n".join([
        "# Greedy generation: tokens per second",
        "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, torch {torch.__version__}, {torch.get_num_threads()} threads; "
        f"load average at the end {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (other processes "
        "share the cores: compare columns within a row, all measured alike). symhlo's tokens are "
        "compared with the eager loop's in every row (a mismatch is marked **wrong tokens**).",
        "",
        *header, *rows, ""])
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(text)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
