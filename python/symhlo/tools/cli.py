"""The `symhlo` command line: export, compile, run, demo, gpu-check.

On floor 4 (tools): it imports every floor below. Every failure prints `error: ...` (with
`file:line:col:` where there is a location) on stderr and exits with code 1; a Python traceback
never reaches the user.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import warnings
from pathlib import Path

from ..backend.compiler import compile as symhlo_compile, compile_to_vmfb, load
from ..backend.runtime import Runtime
from ..backend.targets import TARGETS, vmfb_contract, vmfb_unchecked
from ..contract.standins import register_standins
from ..errors import SymhloError
from ..frontend.export import export, program_from_mlir
from ..stages import StageTimer, on_terminal
from .demo import main as demo_main
from .mlir_input import ParseFailure, check_source_limits, read_bytecode_isolated


class CliError(Exception):
    """A user-facing error: printed as `symhlo: error: <message>`, exit code 1."""


# What each command reads and writes, by extension: a file of another kind is refused before any
# work (`export -o m.vmfb` would write MLIR text into a file named like an IREE module).
MODEL_KINDS = {".pt2": "torch.export archive", ".mlir": "StableHLO text",
               ".mlirbc": "StableHLO portable artifact"}
EXPORT_KINDS = {".mlir": "StableHLO text", ".mlirbc": "StableHLO portable artifact (VHLO)"}
COMPILE_KINDS = {".vmfb": "IREE module", ".symhlo": "IREE module with symhlo's call contract"}
ARRAY_KINDS = {".npy": "numpy array"}
_ELSEWHERE = {".vmfb": "symhlo compile", ".symhlo": "symhlo compile", ".mlir": "symhlo export",
              ".mlirbc": "symhlo export"}


def check_kind(path: str, kinds: dict[str, str], what: str, command: str) -> str:
    """`path`'s extension if it is one of `kinds`; otherwise a CliError naming the kinds
    `command` takes for `what` (and the command that writes the kind given, if any)."""
    ext = Path(path).suffix.lower()
    if ext in kinds:
        return ext
    takes = " or ".join(f"{k} ({v})" for k, v in kinds.items())
    got = f"'{ext}'" if ext else "no extension"
    hint = ""
    if ext in _ELSEWHERE and _ELSEWHERE[ext] != command:
        hint = f"; {_ELSEWHERE[ext]} writes {ext}"
    raise CliError(f"{command}: error: {what} '{path}' has {got}; {command} takes {takes}{hint}")


def _check_pt2_pickles(path: str) -> None:
    """Refuses a .pt2 that torch.export.load would unpickle without restriction.

    torch 2.13's loader unpickles the archive's sample inputs with torch.load(weights_only=True)
    and, when that fails, again with weights_only=False (running whatever the pickle says);
    weights and constants marked `use_pickle` load with weights_only=False, custom and opaque
    constants with torch's TorchScript unpickler or pickle.loads, and archives without
    `archive_version` go through a legacy loader. symhlo reads only archives in which every
    pickle loads under weights_only=True and no constant needs the other unpicklers.
    """
    import io
    import json
    import zipfile

    import torch
    from torch.export.pt2_archive import constants as k

    def refuse(why: str) -> CliError:
        return CliError(f"{path}: error: {why}; torch.export.load could run code from it. "
                        "If you trust the file, load it yourself (torch.export.load) and pass the "
                        "ExportedProgram to symhlo.export / symhlo.compile")

    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        raise CliError(f"{path}: error: not a torch.export archive (.pt2): {e}") from None
    with z:
        names = {n.split("/", 1)[1] if "/" in n else n: n for n in z.namelist()}
        if k.ARCHIVE_VERSION_PATH not in names:
            raise refuse("not a current torch.export archive (no archive_version: torch's legacy "
                         "loader unpickles it)")
        pickles = [n for n in names if n.startswith(k.SAMPLE_INPUTS_DIR)
                   or (n.startswith((k.WEIGHTS_DIR, k.CONSTANTS_DIR)) and n.endswith(".pt"))]
        try:
            for folder in (k.WEIGHTS_DIR, k.CONSTANTS_DIR):
                for n in [n for n in names if n.startswith(folder) and n.endswith("_config.json")]:
                    for fqn, meta in json.loads(z.read(names[n]))["config"].items():
                        entry = str(meta.get("path_name", ""))
                        if entry.startswith((k.CUSTOM_OBJ_FILENAME_PREFIX, k.OPAQUE_OBJ_FILENAME_PREFIX)):
                            raise refuse(f"constant '{fqn}' is a pickled Python/TorchScript object")
                        if meta.get("use_pickle"):
                            pickles.append(folder + entry)
            for n in pickles:
                if n in names:
                    try:
                        torch.load(io.BytesIO(z.read(names[n])), weights_only=True)
                    except Exception as e:
                        raise refuse(f"'{n}' is a pickle that torch.load(weights_only=True) refuses "
                                     f"({type(e).__name__}: {str(e).strip().splitlines()[0][:200]})"
                                     ) from None
        except (ValueError, KeyError, TypeError, AttributeError, zipfile.BadZipFile, OSError) as e:
            raise CliError(f"{path}: error: not a torch.export archive (.pt2): malformed "
                           f"{type(e).__name__}: {e}") from None


def _register_standin_pytree_types(path: str) -> None:
    """Stand-ins (symhlo.contract.standins) for the container types the archive's treespecs name
    that this process has not registered: torch.export.load fails on them otherwise (every
    transformers model's .pt2: "Deserializing ...CausalLMOutputWithPast in pytree is not
    registered"). The type names are read as text from the archive's program JSON."""
    import re
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            texts = [z.read(n).decode("utf-8", "replace") for n in z.namelist()
                     if n.endswith(".json") and "/models/" in "/" + n]
    except (zipfile.BadZipFile, OSError, ValueError):
        return
    register_standins(m for t in texts for m in re.findall(r'\\"type\\": \\"([\w.]+)\\"', t))


def _load_pt2(path: str):
    import torch

    p = Path(path)
    if not p.is_file():
        raise CliError(f"{path}: error: no such file")
    _check_pt2_pickles(str(p))
    _register_standin_pytree_types(str(p))
    try:
        return torch.export.load(str(p))
    except Exception as e:
        raise CliError(f"{path}: error: not a torch.export archive (.pt2): "
                       f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}") from None


def _read_mlir(path: str) -> str:
    p = Path(path)
    if not p.is_file():
        raise CliError(f"{path}: error: no such file")
    data = p.read_bytes()
    if data.startswith(b"ML\xefR"):
        try:  # in a child process: MLIR's bytecode reader can hang or crash on a crafted file
            data = read_bytecode_isolated(data, path, portable=True, locations=False).encode()
        except ParseFailure as e:
            why = "; ".join(d.message for d in e.diagnostics if d.severity == "error") or "unknown"
            raise CliError(f"{path}: error: unreadable MLIR bytecode: {why}") from None
    try:
        text = data.decode()
    except UnicodeDecodeError:
        raise CliError(f"{path}: error: not MLIR text or bytecode") from None
    _parse_check(text, path)
    return text


def _parse_check(text: str, path: str) -> None:
    """Parses `text`; raises CliError with `path:line:col: error: ...` when it is malformed."""
    from torch_mlir import ir
    from symhlo.passes.ir_util import new_context

    problems = check_source_limits(text, path)  # inputs that would crash the parser
    if problems:
        raise CliError("\n".join(f"{d.file}:{d.line}:{d.col}: error: {d.message}" for d in problems))
    try:
        ir.Module.parse(text, new_context())
    except ir.MLIRError as e:
        lines = []
        for d in e.error_diagnostics:
            loc = re.sub(r'^loc\("[^"]*":(\d+):(\d+)\)$', rf"{path}:\1:\2", str(d.location))
            lines.append(f"{loc}: error: {d.message}")
        raise CliError("\n".join(lines) or f"{path}: error: {e}") from None


def _progress(a) -> bool:
    """Whether to report each stage: -v always, -q never, by default when stderr is a terminal."""
    if a.quiet:
        return False
    return a.verbose or on_terminal()


def _program(path: str, timer: StageTimer):
    """A .pt2 or .mlir/.mlirbc file -> StableHLOProgram."""
    with timer.step("load"):
        if path.endswith(".pt2"):
            ep = _load_pt2(path)
        else:
            return program_from_mlir(_read_mlir(path))
    return export(ep, verbose=timer.verbose)


def _total(timer: StageTimer, start: float) -> None:
    if timer.verbose:
        print(f"[symhlo] {'total':<14} ... {time.perf_counter() - start:7.2f} s", file=sys.stderr,
              flush=True)


def cmd_export(a) -> int:
    check_kind(a.model, MODEL_KINDS, "input", "symhlo export")
    if a.output:
        check_kind(a.output, EXPORT_KINDS, "output", "symhlo export")
    start, timer = time.perf_counter(), StageTimer(_progress(a))
    prog = _program(a.model, timer)
    if a.dims:
        print(prog.symbols.table())
    if a.output:
        prog.save(a.output)
    elif not a.dims:
        sys.stdout.write(prog.text)
    _total(timer, start)
    return 0


def cmd_compile(a) -> int:
    check_kind(a.input, MODEL_KINDS, "input", "symhlo compile")
    check_kind(a.output, COMPILE_KINDS, "output", "symhlo compile")
    start, timer = time.perf_counter(), StageTimer(_progress(a))
    prog = _program(a.input, timer)
    flags = list(a.iree_flag or [])
    if a.output.endswith(".vmfb"):
        vmfb = compile_to_vmfb(prog.text, a.target, a.target_arch, flags, timer)
        unchecked = vmfb_unchecked(vmfb)
        if unchecked and not a.allow_unchecked:
            raise CliError(f"{a.output}: error: the shape checks for {'; '.join(unchecked)} cannot be "
                           "compiled into the .vmfb, so another IREE host would run calls that break "
                           "them; write OUT.symhlo (symhlo run and symhlo.load check them), or pass "
                           "--allow-unchecked to write the .vmfb anyway")
        Path(a.output).write_bytes(vmfb)
    else:
        cm = symhlo_compile(prog, target=a.target, target_arch=a.target_arch,
                            options={"iree_flags": flags}, verbose=timer.verbose)
        cm.save(a.output)
    _total(timer, start)
    return 0


def _read_input(spec: str):
    import numpy as np

    if not spec.startswith("@"):
        raise CliError(f"--input expects @FILE.npy, got '{spec}'")
    path = spec[1:]
    check_kind(path, ARRAY_KINDS, "--input", "symhlo run")
    try:
        return np.load(path, allow_pickle=False)
    except Exception as e:
        raise CliError(f"{path}: error: cannot read a .npy array: {e}") from None


def cmd_run(a) -> int:
    import numpy as np

    check_kind(a.module, COMPILE_KINDS, "module", "symhlo run")
    for spec in a.output or []:
        check_kind(spec.lstrip("@"), ARRAY_KINDS, "--output", "symhlo run")
    arrays = [_read_input(s) for s in a.input or []]
    if a.module.endswith(".vmfb"):
        if not Path(a.module).is_file():
            raise CliError(f"{a.module}: error: no such file")
        vmfb = Path(a.module).read_bytes()
        rt = Runtime(vmfb, TARGETS[a.target][1])
        contract = vmfb_contract(vmfb)
        if contract is not None:  # symhlo's message before IREE's own checks (which name no rule)
            contract.check([x.shape for x in arrays], [str(x.dtype) for x in arrays])
        outs = rt(arrays)
    else:
        import torch
        cm = load(a.module, containers="standin")  # prints tensors: no classes to import
        res = cm.call_tensors(*[torch.from_numpy(x) for x in arrays])  # --input per tensor input
        import torch.utils._pytree as pytree

        outs = [t.numpy() for t in pytree.tree_leaves(res)]
    for i, o in enumerate(outs):
        if a.output and i < len(a.output):
            np.save(a.output[i].lstrip("@"), o)
        print(f"result[{i}]: {o.dtype}{list(o.shape)}")
        with np.printoptions(threshold=20, edgeitems=3, precision=5):
            print(o)
    return 0


def cmd_demo(a) -> int:
    return demo_main()


def cmd_gpu_check(a) -> int:
    return _gpu_check(a.rest)


def _gpu_check(argv: list[str]) -> int:
    root = Path(__file__).resolve().parents[3]
    sys.path.insert(0, str(root / "scripts"))
    try:
        import gpu_check
    except ImportError:
        raise CliError("gpu-check needs scripts/gpu_check.py from a source checkout") from None
    return gpu_check.main(argv)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error exits 1 like every other symhlo error (argparse's is 2)."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="symhlo", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=_Parser)

    targets = ", ".join(sorted(TARGETS))

    def progress_flags(parser) -> None:
        loud = parser.add_mutually_exclusive_group()
        loud.add_argument("-v", "--verbose", action="store_true",
                          help="print every stage (load, export, import, torch-backend, stablehlo, "
                               "iree-input, iree) with its time, and the total, also when stderr "
                               "is not a terminal (on a terminal that is the default)")
        loud.add_argument("-q", "--quiet", action="store_true",
                          help="print nothing but errors (no progress, even on a terminal)")

    e = sub.add_parser("export", help="MODEL.pt2 -> pure StableHLO (.mlir text or .mlirbc VHLO)")
    e.add_argument("model", metavar="MODEL",
                   help="MODEL.pt2 (torch.export.save's archive), or StableHLO as .mlir / .mlirbc")
    e.add_argument("-o", "--output", metavar="OUT",
                   help="OUT.mlir (StableHLO text) or OUT.mlirbc (portable artifact); "
                        "default: the text on stdout")
    e.add_argument("--dims", action="store_true", help="print the symbolic dims table")
    progress_flags(e)
    e.set_defaults(fn=cmd_export)

    c = sub.add_parser("compile", help="MODEL.pt2 | IN.mlir -> OUT.vmfb (or OUT.symhlo)")
    c.add_argument("input", metavar="MODEL",
                   help="MODEL.pt2 (torch.export.save's archive), or StableHLO as .mlir / .mlirbc")
    c.add_argument("--target", default="cpu", choices=sorted(TARGETS), metavar="TARGET",
                   help=f"the device to compile for: {targets} (default: cpu)")
    c.add_argument("--target-arch", default=None, metavar="ARCH",
                   help="the GPU architecture, e.g. sm_80 (cuda), gfx942 (rocm); default per target")
    c.add_argument("--iree-flag", action="append", metavar="FLAG",
                   help="extra iree-compile flag, e.g. --iree-flag=--iree-opt-level=O2 (repeatable)")
    c.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="OUT.vmfb (an IREE module with the shape checks compiled in, for any IREE "
                        "host) or OUT.symhlo (for symhlo.load and symhlo run: the IREE module with "
                        "its call signature and output structure)")
    c.add_argument("--allow-unchecked", action="store_true",
                   help="write OUT.vmfb even when part of the shape contract cannot be compiled "
                        "into it (a size expression outside the checked grammar); without this, "
                        "such a .vmfb is refused")
    progress_flags(c)
    c.set_defaults(fn=cmd_compile)

    r = sub.add_parser("run", help="run OUT.vmfb or a saved OUT.symhlo on .npy inputs")
    r.add_argument("module", metavar="MODULE", help="OUT.vmfb or OUT.symhlo from symhlo compile")
    r.add_argument("--input", action="append", metavar="@FILE.npy",
                   help="one tensor input (repeat per input, in order)")
    r.add_argument("--output", action="append", metavar="@FILE.npy",
                   help="save a result (repeat per result, in order)")
    r.add_argument("--target", default="cpu", choices=sorted(TARGETS), metavar="TARGET",
                   help=f"the device to run on: {targets} (default: cpu)")
    r.set_defaults(fn=cmd_run)

    d = sub.add_parser("demo", help="the seed model and a transformer block on IREE")
    d.set_defaults(fn=cmd_demo)

    g = sub.add_parser("gpu-check", help="compile and run the GPU suite on CUDA (needs a GPU)")
    g.add_argument("rest", nargs=argparse.REMAINDER, metavar="...",
                   help="gpu-check's own flags: --target cuda|rocm|vulkan, --target-arch ARCH, "
                        "--quick (see symhlo gpu-check --help)")
    g.set_defaults(fn=cmd_gpu_check)
    return p


def main(argv: list[str] | None = None) -> int:
    warnings.filterwarnings("ignore")
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["gpu-check"]:  # its own flags (--target-arch ...) pass through untouched
            return _gpu_check(argv[1:]) or 0
        args = build_parser().parse_args(argv)
        return args.fn(args) or 0
    except CliError as e:
        print(str(e) if ": error:" in str(e) else f"symhlo: error: {e}", file=sys.stderr)
    except SymhloError as e:
        print(f"symhlo: error: {e}", file=sys.stderr)
    except KeyboardInterrupt:
        print("symhlo: interrupted", file=sys.stderr)
    except OSError as e:  # an output path that cannot be written, a file that vanished
        where = f"{e.filename}: " if e.filename else "symhlo: "
        print(f"{where}error: {e.strerror or e}", file=sys.stderr)
    except Exception as e:  # last line of defence: no traceback for users
        print(f"symhlo: internal error: {type(e).__name__}: {e}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
