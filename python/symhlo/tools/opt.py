"""symhlo-opt: the mlir-opt of symhlo (floor 4, tools): parse MLIR, run symhlo and upstream passes,
print the result.

    symhlo-opt IN.mlir --symhlo-shape-to-stablehlo --canonicalize -o OUT.mlir
    symhlo-opt - --pass-pipeline='builtin.module(symhlo-torch-to-stablehlo-pipeline)'
    symhlo-opt IN.mlir --symhlo-verify-pure-stablehlo --split-input-file --verify-diagnostics

Pipelines go through `symhlo.passes.registry.run_pipeline`, so symhlo passes mix freely with
torch-mlir's, StableHLO's and MLIR core passes. Every problem with the input or the pipeline is
reported as `file:line:col: error: message` (or one `symhlo-opt: error:` line) with exit code 1;
the tool never ends in a Python traceback. Set SYMHLO_DEBUG=1 to see one for internal errors.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Sequence

from .diagnostics import Diagnostic, diagnostic_at, from_mlir_diagnostic, one_line, \
    parse_expectations, verify_diagnostics
from .mlir_input import BYTECODE_MAGIC, Chunk, ParseFailure, parse_module, split_input

TOOL = "symhlo-opt"

# Options of the tool itself; every other `--name[=options]` names a pass or pipeline.
_TOOL_FLAGS = {
    "--split-input-file", "--verify-diagnostics", "--mlir-print-ir-after-all",
    "--allow-unregistered-dialect", "--list-passes", "--mlir-print-debuginfo", "--help",
}
_TOOL_OPTIONS_WITH_VALUE = {"--pass-pipeline", "-o"}


class UsageError(Exception):
    """A bad command line: printed as one `symhlo-opt: error:` line, exit code 1."""


# ---------------------------------------------------------------------------------------------
# Command line.


@dataclass
class Options:
    input: str = "-"
    output: str = "-"
    pass_pipeline: str | None = None
    pass_flags: list[tuple[str, str | None]] = field(default_factory=list)
    split_input_file: bool = False
    verify_diagnostics: bool = False
    print_ir_after_all: bool = False
    print_debuginfo: bool = False
    allow_unregistered_dialect: bool = False
    list_passes: bool = False


def _help_parser() -> argparse.ArgumentParser:
    from symhlo.passes.registry import get_all_passes, get_all_pipelines

    p = argparse.ArgumentParser(
        prog=TOOL, description="Run symhlo, torch-mlir, StableHLO and MLIR passes on an MLIR file.",
        epilog="Any other --<name>[=<options>] names an upstream pass (torch-mlir, StableHLO, "
               "MLIR core), e.g. --canonicalize, --cse, --convert-torch-to-stablehlo. Flags run "
               "in the order given.")
    p.add_argument("input", nargs="?", default="-", help="input file, or - for stdin (default)")
    p.add_argument("-o", metavar="OUT", default="-", help="output file (default: stdout)")
    p.add_argument("--pass-pipeline", metavar="PIPELINE", help="textual pipeline, 'builtin.module(...)'")
    p.add_argument("--split-input-file", action="store_true",
                   help="split the input on '// -----' and process each chunk on its own")
    p.add_argument("--verify-diagnostics", action="store_true",
                   help="check diagnostics against expected-* comments in the input")
    p.add_argument("--mlir-print-ir-after-all", action="store_true",
                   help="print the IR to stderr after each pipeline step")
    p.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    p.add_argument("--allow-unregistered-dialect", action="store_true",
                   help="accept ops of unregistered dialects")
    p.add_argument("--list-passes", action="store_true", help="list symhlo passes and pipelines")
    g = p.add_argument_group("symhlo passes")
    for name, load in sorted(get_all_passes().items()):
        g.add_argument(f"--{name}", action="store_true", help=load().summary)
    g = p.add_argument_group("symhlo pipelines")
    for name, (summary, _) in sorted(get_all_pipelines().items()):
        g.add_argument(f"--{name}", action="store_true", help=summary)
    return p


def parse_command_line(argv: Sequence[str]) -> Options:
    """Parses the command line; pass flags keep their order.

    Args:
      argv: the arguments after the program name. Single-dash long flags (`-split-input-file`)
        are accepted as in mlir-opt.
    Returns:
      The options.
    Raises:
      UsageError: for a missing option value, a second input file, or mixing --pass-pipeline
        with pass flags.
    """
    opts = Options()
    inputs: list[str] = []
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "-" or not arg.startswith("-"):
            inputs.append(arg)
            continue
        if arg == "--":
            inputs.extend(args[i:])
            break
        if arg == "-h":
            arg = "--help"
        elif arg.startswith("-o") and len(arg) > 2:
            arg = "-o=" + arg[2:].removeprefix("=")  # -oOUT, -o=OUT
        elif not arg.startswith("--") and arg != "-o":
            arg = "-" + arg  # mlir-opt also takes -split-input-file
        name, eq, value = arg.partition("=")
        if name in _TOOL_OPTIONS_WITH_VALUE:
            if not eq:
                if i >= len(args):
                    raise UsageError(f"option '{name}' requires a value")
                value = args[i]
                i += 1
            if name == "-o":
                opts.output = value
            else:
                opts.pass_pipeline = value
            continue
        if name in _TOOL_FLAGS:
            if eq:
                raise UsageError(f"option '{name}' takes no value")
            if name == "--help":
                _help_parser().print_help()
                raise SystemExit(0)
            setattr(opts, {"--mlir-print-ir-after-all": "print_ir_after_all",
                           "--mlir-print-debuginfo": "print_debuginfo"}.get(
                               name, name[2:].replace("-", "_")), True)
            continue
        pass_name = name[2:]
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", pass_name):
            raise UsageError(f"malformed option '{arg}'")
        opts.pass_flags.append((pass_name, value if eq else None))
    if len(inputs) > 1:
        raise UsageError(f"expected one input file, got {len(inputs)}: {' '.join(inputs)}")
    if inputs:
        opts.input = inputs[0]
    if opts.pass_pipeline is not None and opts.pass_flags:
        raise UsageError("'--pass-pipeline' cannot be combined with individual pass flags "
                         f"(got --{opts.pass_flags[0][0]})")
    return opts


def flags_to_pipeline(flags: list[tuple[str, str | None]], ctx) -> str:
    """Turns `--name[=options]` flags into one `builtin.module(...)` pipeline.

    Upstream passes anchored on another op (e.g. func.func) are nested in that op, like
    mlir-opt's implicit nesting; they are checked with PassManager.parse, which raises (rather
    than aborting the process) for a pass restricted to another op.

    Args:
      flags: (pass name, options text or None) in command-line order.
      ctx: the context the pipeline will run in.
    Returns:
      The pipeline text.
    Raises:
      UsageError: for a flag that names no pass.
    """
    from torch_mlir import ir
    from torch_mlir.passmanager import PassManager
    from symhlo.passes.registry import get_all_passes, get_all_pipelines

    ours = set(get_all_passes()) | set(get_all_pipelines())
    elements = []
    for name, options in flags:
        element = f"{name}{{{options}}}" if options else name
        if name in ours:
            elements.append(element)
            continue
        if name.startswith("symhlo-"):
            raise UsageError(f"unknown symhlo pass or pipeline '--{name}' (see --list-passes)")
        with ctx:
            try:
                PassManager.parse(f"builtin.module({element})")
            except (ValueError, ir.MLIRError) as e:
                anchor = re.search(r"restricted to '([\w.]+)'", str(e))
                if anchor is None:
                    if "does not refer to a registered pass" in str(e):
                        raise UsageError(f"unknown pass or option '--{name}' (see --help and "
                                         f"--list-passes)") from None
                    raise UsageError(f"invalid pass '--{name}{'=' + options if options else ''}': "
                                     f"{one_line(str(e))}") from None
                element = f"{anchor.group(1)}({element})"
        elements.append(element)
    return f"builtin.module({', '.join(elements)})"


def list_passes() -> str:
    """The symhlo passes and pipelines, one `  --name  summary` line each."""
    from symhlo.passes.registry import get_all_passes, get_all_pipelines

    rows = [("Passes:", None)]
    rows += [(name, load().summary) for name, load in sorted(get_all_passes().items())]
    rows += [("Pipelines:", None)]
    rows += [(name, summary) for name, (summary, _) in sorted(get_all_pipelines().items())]
    width = max(len(n) for n, s in rows if s is not None) + 2
    lines = [n if s is None else f"  --{n.ljust(width)}{s}" for n, s in rows]
    lines.append("Upstream passes (torch-mlir, StableHLO, MLIR core) are accepted by name too.")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# Driver.


def _read_input(path: str) -> tuple[str | bytes, str]:
    try:
        data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
    except OSError as e:
        raise UsageError(f"cannot open input file '{path}': {e.strerror}") from None
    name = "<stdin>" if path == "-" else path
    if data.startswith(BYTECODE_MAGIC):
        return data, name
    return data.decode("utf-8", errors="replace"), name


def _run_chunk(chunk_source: str | bytes, first_line: int, filename: str, pipeline: str | None,
               opts: Options, ctx, sink: list[Diagnostic]) -> str | None:
    """Parses and transforms one chunk; returns its printed module, or None when it failed."""
    from torch_mlir import ir
    from symhlo.passes.registry import PipelineError, run_pipeline

    try:
        module = parse_module(chunk_source, first_line, filename, ctx)
    except ParseFailure as e:
        sink.extend(e.diagnostics)
        return None
    if pipeline is not None:
        def dump(text: str) -> None:
            sys.stderr.write(text if text.endswith("\n") else text + "\n")
        try:
            run_pipeline(module, pipeline, print_ir_after_all=opts.print_ir_after_all,
                         printer=dump, repro=False)
        except PipelineError as e:
            if e.diagnostics:
                sink.extend(diagnostic_at(loc, msg, "error", filename) for loc, msg in e.diagnostics)
            else:
                sink.append(Diagnostic("error", e.message, filename))
            return None
        except Exception as e:  # a bug in a pass: report it as a diagnostic, keep other chunks going
            if os.environ.get("SYMHLO_DEBUG"):
                raise
            sink.append(Diagnostic("error", f"internal error in the pass pipeline: "
                                   f"{type(e).__name__}: {one_line(str(e))}", filename))
            return None
        # Python passes do not verify their output; mlir-opt verifies after every pass.
        with ctx:
            try:
                module.operation.verify()
            except ir.MLIRError as e:
                sink.extend(x for d in e.error_diagnostics
                            for x in from_mlir_diagnostic(d, filename))
                return None
    with ctx:
        return module.operation.get_asm(enable_debug_info=opts.print_debuginfo)


def run(opts: Options) -> int:
    """Runs symhlo-opt with parsed options.

    Args:
      opts: the options from `parse_command_line`.
    Returns:
      The exit code: 0 on success, 1 on any error or failed diagnostic check.
    Raises:
      UsageError: for a bad pipeline or an unreadable input.
    """
    from symhlo.passes.ir_util import new_context
    from symhlo.passes.registry import PipelineError, validate_pipeline

    if opts.list_passes:
        sys.stdout.write(list_passes())
        return 0
    ctx = new_context()
    ctx.allow_unregistered_dialects = opts.allow_unregistered_dialect
    pipeline = opts.pass_pipeline
    if pipeline is None and opts.pass_flags:
        pipeline = flags_to_pipeline(opts.pass_flags, ctx)
    if pipeline is not None:
        try:
            validate_pipeline(pipeline, ctx)
        except PipelineError as e:
            raise UsageError(one_line(e.message)) from None

    source, filename = _read_input(opts.input)
    sources = {filename: source.split("\n") if isinstance(source, str) else []}
    chunks = (split_input(source, opts.split_input_file) if isinstance(source, str)
              else [Chunk(source, 1)])

    # Diagnostics not captured as exceptions (warnings, remarks) reach this handler.
    current: list[Diagnostic] = []

    def handler(d) -> bool:
        current.extend(from_mlir_diagnostic(d, filename))
        return True

    ctx.attach_diagnostic_handler(handler)

    outputs: list[str] = []
    failed = False
    for chunk in chunks:
        current.clear()
        text = _run_chunk(chunk.text, chunk.first_line, filename, pipeline, opts, ctx, current)
        produced = list(current)
        if opts.verify_diagnostics:
            expected, bad = (parse_expectations(chunk.text, chunk.first_line, filename)
                             if isinstance(chunk.text, str) else ([], []))
            problems = bad + verify_diagnostics(expected, produced, filename)
        else:
            problems = produced
            if text is None and not produced:
                problems = [Diagnostic("error", "failed without a diagnostic", filename)]
        for d in problems:
            sys.stderr.write(d.render(sources) + "\n")
        if opts.verify_diagnostics:
            failed |= bool(problems)
        else:
            failed |= text is None or any(d.severity == "error" for d in produced)
        if text is not None:
            outputs.append(text)
    _write_output(opts.output, "// -----\n".join(outputs))
    return 1 if failed else 0


def _write_output(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        raise UsageError(f"cannot write output file '{path}': {e.strerror}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """The `symhlo-opt` entry point.

    Args:
      argv: the arguments after the program name (default: sys.argv[1:]).
    Returns:
      The process exit code (0 success, 1 failure); errors go to stderr, never as a traceback.
    """
    try:
        return run(parse_command_line(sys.argv[1:] if argv is None else argv))
    except UsageError as e:
        sys.stderr.write(f"{TOOL}: error: {e}\n")
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    except Exception as e:  # an internal error: one line, unless SYMHLO_DEBUG asks for the stack
        if os.environ.get("SYMHLO_DEBUG"):
            raise
        sys.stderr.write(f"{TOOL}: internal error: {type(e).__name__}: {one_line(str(e))}\n"
                         f"(set SYMHLO_DEBUG=1 for the Python traceback)\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
