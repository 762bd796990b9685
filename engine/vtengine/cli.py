"""The ``vtengine`` CLI (generate, score, bench, arms, export); the console script enters through vtengine.__main__.

Human output goes to stderr through rich (NO_COLOR honoured); ``--json PATH|-`` writes machine output.
Data (prompts, generated text, model paths, error messages) is printed as text, never parsed as rich
markup: the console parses none, and ``_say`` styles only the program's own literals. Ctrl-C ends any
command with ``interrupted: vtengine <command>`` and exit 130 (SIGTERM: 143). (vtengine may not import vtgate, whose
CLIs follow the same rules through vtgate.output and vtgate.cli.exits.)
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

import typer
from rich.console import Console
from rich.text import Text

from vtengine import __version__
from vtengine.exitcodes import ExitCode

console = Console(stderr=True, highlight=False, markup=False)
INTERRUPTED = 130  # 128 + SIGINT (SIGTERM: 143)
EXIT_GRACE_SECONDS = 5.0  # once the exit code is decided, the longest the interpreter may take to end


def _say(*parts: str | tuple[str, str]) -> None:
    """One line from parts: a str is data, printed as it is; (text, style) is a styled literal. Soft
    wrap: the terminal wraps a long line, rich never cuts it."""
    console.print(Text.assemble(*parts), soft_wrap=True)


def _show_version(value: bool) -> None:
    if value:
        print(f"vtengine {__version__}")
        raise typer.Exit(0)


app = typer.Typer(
    name="vtengine",
    help="A small Llama-architecture engine with a bit-exact default arm and opt-in kernel arms.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain click help: no rich markup parsed in help texts (an option's help naming [tool.vtgate] stays
    # whole) and no option name cut with an ellipsis at 80 columns.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_show_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """vtengine: the reference engine."""


class UsageError(Exception):
    """Bad input from the command line: printed plainly, exit 2."""


def _write_json(target: str | None, payload: dict[str, Any]) -> None:
    if target is None:
        return
    text = json.dumps(payload, indent=2, sort_keys=False) + "\n"
    if target == "-":
        sys.stdout.write(text)
        return
    try:
        Path(target).write_text(text)
    except OSError as error:
        raise UsageError(f"cannot write --json {target}: {error.strerror}") from None


def _knobs() -> Any:
    from vtengine.knobs import KnobError, Knobs

    try:
        return Knobs.from_env()
    except KnobError as error:
        raise UsageError(str(error)) from None


def _load(model: str, knobs: Any) -> Any:
    from vtengine.model import ModelError, load_model

    try:
        return load_model(model, knobs.cache_path)
    except (ModelError, OSError) as error:
        raise UsageError(f"cannot load model {model!r}: {error}") from None
    except ValueError as error:  # checkpoint errors are ValueErrors that name the tensor or key
        raise UsageError(f"cannot load model {model!r}: {error}") from None


def _live_progress(what: str, total: int, json_to_stdout: bool) -> Any:
    """A transient progress bar on stderr for a terminal only: none in a CI log (``CI`` set), when
    stderr is not a terminal, or when stdout carries ``--json -``. (vtgate has the same rule for its
    probe runs; vtengine imports no vtgate, so this is its own small copy.)"""
    import contextlib

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from vtengine.knobs import running_in_ci

    if json_to_stdout or running_in_ci() or not sys.stderr.isatty():
        return contextlib.nullcontext(None)
    progress = Progress(TextColumn(what), BarColumn(), MofNCompleteColumn(), console=console, transient=True)
    progress.add_task(what, total=total)
    return progress


def _positive(name: str, value: int) -> int:
    if value < 1:
        raise UsageError(f"{name} must be >= 1, got {value}")
    return value


@app.command()
def generate(
    prompt: str = typer.Option(..., "--prompt", help="Prompt text (byte-level tokens)."),
    tokens: int = typer.Option(32, "--tokens", help="Number of tokens to generate greedily."),
    model: str = typer.Option("vt-tiny", "--model", help="vt-tiny or a Llama checkpoint directory."),
    json_path: str | None = typer.Option(None, "--json", metavar="PATH", help="Write the observation JSON to PATH ('-' = stdout)."),
) -> int:
    """Greedy generation; the observation has tokens, margins, digests, counters and meta."""
    from vtengine import probes

    _positive("--tokens", tokens)
    knobs = _knobs()
    _load(model, knobs)
    try:
        observation = probes.generate(prompt, tokens, model)
    except ValueError as error:  # e.g. prompt + tokens longer than the model's context
        raise UsageError(str(error)) from None
    _say((prompt, "bold"), observation["text"])
    _say(f"{tokens} tokens · anchor {observation['metrics']['anchor']} · arms {observation['meta']['arms']}")
    _write_json(json_path, observation)
    return ExitCode.OK


@app.command()
def score(
    prompt: str | None = typer.Option(None, "--prompt", help="Prompt text."),
    reference: str | None = typer.Option(None, "--reference", help="Reference continuation to teacher-force."),
    ids: str | None = typer.Option(
        None, "--ids", help="Comma-separated token ids to score instead of text (any vocab size), e.g. 5,17,99."
    ),
    model: str = typer.Option("vt-tiny", "--model", help="vt-tiny or a Llama checkpoint directory."),
    eps: float = typer.Option(0.05, "--eps", help="Margins below eps count as near ties."),
    json_path: str | None = typer.Option(None, "--json", metavar="PATH", help="Write the observation JSON to PATH ('-' = stdout)."),
) -> int:
    """Teacher-forced scoring: argmax and top-1/top-2 margin at every position."""
    from vtengine import probes, tokenizer

    if ids is not None and (prompt is not None or reference is not None):
        raise UsageError("score takes text (--prompt and --reference) or token ids (--ids), not both")
    if ids is None and (prompt is None or reference is None):
        raise UsageError("score needs --prompt and --reference (text), or --ids (token ids)")
    knobs = _knobs()
    _load(model, knobs)
    try:
        if ids is not None:
            token_ids = _parse_ids(ids)
            observation = probes.score_ids(token_ids, model)
        else:
            assert prompt is not None and reference is not None  # checked above
            observation = probes.teacher_forced(prompt, reference, None, model)
            token_ids = tokenizer.encode(prompt) + tokenizer.encode(reference, bos=False)
    except ValueError as error:
        raise UsageError(str(error)) from None
    predicted = observation["tokens"][:-1]
    agree = sum(int(p == t) for p, t in zip(predicted, token_ids[1:], strict=True))
    near = sum(1 for m in observation["margins"] if m < eps)
    _say(f"{agree}/{len(predicted)} positions predict the next token; {near} margins below {eps}")
    _write_json(json_path, observation)
    return ExitCode.OK


def _parse_ids(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise UsageError(f"--ids {text!r}: give comma-separated integers, e.g. 5,17,99") from None


def _timed_run(engine: Any, ids: list[int], tokens: int, prefill: list[float], decode: list[float],
               decode_cpu: list[float]) -> None:
    """One timed prefill + greedy decode; appends tokens/s (wall, and per CPU second) to the lists."""
    import time

    from vtengine.profiler import clock

    seq = engine.kv.new_sequence()
    t0 = clock()
    logits = engine.forward([seq], [ids])[0]
    t1, c1 = clock(), time.process_time()
    for _ in range(tokens - 1):
        logits = engine.forward([seq], [[int(logits[-1].argmax())]])[0]
    t2, c2 = clock(), time.process_time()
    engine.kv.release(seq)
    prefill.append(len(ids) / (t1 - t0))
    decode.append((tokens - 1) / (t2 - t1))
    decode_cpu.append((tokens - 1) / max(c2 - c1, 1e-9))


@app.command()
def bench(
    prompt_tokens: int = typer.Option(16, "--prompt-tokens", help="Prompt length in tokens."),
    tokens: int = typer.Option(128, "--tokens", help="Greedy tokens to decode."),
    runs: int = typer.Option(3, "--runs", help="Timed runs (the median is reported)."),
    model: str = typer.Option("vt-tiny", "--model", help="vt-tiny or a Llama checkpoint directory."),
    json_path: str | None = typer.Option(None, "--json", metavar="PATH", help="Write the results JSON to PATH ('-' = stdout)."),
) -> int:
    """Prefill and decode tokens/s under the current knobs, with a stage profile."""
    import dataclasses
    import statistics

    from rich.table import Table

    from vtengine.engine import Engine
    from vtengine.profiler import Profiler

    _positive("--prompt-tokens", prompt_tokens)
    _positive("--tokens", tokens)
    _positive("--runs", runs)
    knobs = _knobs()
    weights = _load(model, knobs)
    context = weights.config.max_context
    # a timed run holds the prompt and tokens - 1 decoded positions; the warm-up, the prompt and 1
    if prompt_tokens + max(tokens, 2) - 1 > context:
        raise UsageError(f"--prompt-tokens {prompt_tokens} with --tokens {tokens} runs past the model's context "
                         f"{context}: give at most --tokens {max(context - prompt_tokens + 1, 0)} for this prompt"
                         + ("" if prompt_tokens < context else f" and --prompt-tokens below {context}"))
    ids = [(7 * i + 3) % min(256, weights.config.vocab_size) for i in range(prompt_tokens)]
    prefill: list[float] = []
    decode: list[float] = []
    decode_cpu: list[float] = []
    engine = Engine(weights, dataclasses.replace(knobs, profile=False))
    engine.generate(ids, 2)  # warm the dequant cache
    with _live_progress("timed runs", runs, json_path == "-") as progress:
        for _ in range(runs):
            _timed_run(engine, ids, tokens, prefill, decode, decode_cpu)
            if progress is not None:
                progress.advance(progress.task_ids[0])
    profiled = Engine(weights, dataclasses.replace(knobs, profile=True))
    profiled.generate(ids, tokens)
    prof: Profiler = profiled.prof  # type: ignore[assignment]
    result = {
        "schema": 1,
        "prompt_tokens": prompt_tokens,
        "tokens": tokens,
        "runs": runs,
        "prefill_tok_s": statistics.median(prefill),
        "decode_tok_s": statistics.median(decode),
        "decode_tok_s_per_cpu_second": statistics.median(decode_cpu),
        "arms": engine.arms,
        "knobs": knobs.as_env(),
        "profile": prof.table(),
    }
    _say(f"prefill {result['prefill_tok_s']:.0f} tok/s · decode {result['decode_tok_s']:.0f} tok/s "
         f"(median of {runs}) · arms {engine.arms}")
    table = Table("phase", "stage", "seconds", "calls", "share")
    for row in result["profile"]:
        table.add_row(row["phase"], row["stage"], f"{row['seconds']:.4f}", str(row["calls"]), f"{row['share']:.1%}")
    console.print(table)
    _write_json(json_path, result)
    return ExitCode.OK


@app.command()
def arms(
    json_path: str | None = typer.Option(None, "--json", metavar="PATH", help="Write the registry JSON to PATH ('-' = stdout)."),
) -> int:
    """The arm registry and what the current environment selects."""
    import dataclasses

    from rich.table import Column, Table

    from vtengine.armcheck import differs_here
    from vtengine.arms import ARMS, select_arms

    knobs = _knobs()
    selected = select_arms(knobs)
    # Knob names are what a user copies: never wrapped or cut with an ellipsis (no borders, so they fit 80 columns).
    table = Table(Column("kernel", no_wrap=True), Column("arm", no_wrap=True), Column("knob", no_wrap=True),
                  "default", "exact", "on", box=None, pad_edge=False)
    for a in ARMS:
        table.add_row(a.kernel, a.name, a.knob or "-", "yes" if a.default else "", "yes" if a.bit_exact_with_default else "no",
                      "<-" if selected[a.kernel] == a.name else "")
    console.print(table)
    _say("exact: bit-exact with the default arm; on: what the current environment selects")
    registry = []
    for a in ARMS:
        entry: dict[str, Any] = dataclasses.asdict(a)
        if a.host_dependent:  # measured, not promised: the host chooses this arm's order
            entry["differs_here"] = differs_here(a, knobs)
            verdict = "differs from" if entry["differs_here"] else "is bit-identical with"
            _say(f"{a.kernel}.{a.name}: its order is the host's; here it {verdict} the default")
        registry.append(entry)
    _write_json(json_path, {"schema": 1, "arms": registry, "selected": selected, "knobs": knobs.as_env()})
    return ExitCode.OK


@app.command()
def export(
    model: str = typer.Argument(..., help="The model to export (vt-tiny)."),
    directory: Path = typer.Argument(..., help="Output checkpoint directory."),
) -> int:
    """Write a model as a Llama-format checkpoint (config.json + model.safetensors, dequantized float32)."""
    from vtengine.checkpoint import save_checkpoint

    knobs = _knobs()
    weights = _load(model, knobs)
    try:
        save_checkpoint(directory, weights.config, weights.dequantized_tensors())
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot export to {directory}: {error}") from None
    _say(f"wrote {model} to {directory}")
    return ExitCode.OK


class _Interrupted(SystemExit):
    """The exit of a run a signal ended (exit code 130 or 143)."""


def _interrupted(label: str, code: int = INTERRUPTED) -> None:
    _say(("interrupted", "bold"), f": {label}")
    raise _Interrupted(code)


def _exit_now(code: int) -> None:
    """A second signal, or an interpreter that will not end: children killed, output flushed, exit."""
    import psutil

    with contextlib.suppress(Exception):
        for child in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.Error):
                child.kill()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def _end_interrupted(code: int) -> None:
    """End a program run a signal interrupted with ``code`` itself: atexit callbacks run, output flushed,
    then ``os._exit``. Left to the interpreter, the run could end killed by SIGINT instead: CPython marks
    a KeyboardInterrupt that passed through code run by ``exec`` (a dataclass built during a lazy import)
    as unhandled even though it was caught, and its ``Py_RunMain`` then re-sends SIGINT to the process
    after the exit code is decided (seen as -2 for about one signal in seven landing 0.25-0.30 s into
    ``vtengine bench``, on Python 3.10 to 3.13)."""
    import atexit

    with contextlib.suppress(Exception):
        atexit._run_exitfuncs()
    _exit_now(code)


def _arm_exit_watchdog(code: int) -> None:
    def watch() -> None:
        time.sleep(EXIT_GRACE_SECONDS)
        _exit_now(code)

    threading.Thread(target=watch, name="vtengine-exit-watchdog", daemon=True).start()


def main(argv: list[str] | None = None, noted: list[int] | None = None) -> None:
    """Run the app; every way out is a documented exit code. Ctrl-C and SIGTERM are noted by our own
    handler (which then raises KeyboardInterrupt, as Python's SIGINT handler does), so they end as 130
    and 143 whatever typer's version makes of the KeyboardInterrupt (Abort, or Exit(130)); a second
    signal exits at once. ``noted``: signals that arrived while the program was importing this module
    (:mod:`vtengine.__main__`); the first one ends the run at once. Run as the program (``argv`` None),
    a daemon watchdog ends the process ``EXIT_GRACE_SECONDS`` after the exit code is decided if the
    interpreter has not ended by then, and a run a signal ended exits through :func:`_end_interrupted`."""
    try:
        _main(argv, noted or [])
    except SystemExit as leaving:
        if argv is None:
            code = leaving.code if isinstance(leaving.code, int) else 0 if leaving.code is None else 1
            _arm_exit_watchdog(code)
            if isinstance(leaving, _Interrupted):
                _end_interrupted(code)
        raise


def _main(argv: list[str] | None, noted: list[int]) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    command = next((word for word in args if not word.startswith("-")), None)
    label = f"vtengine {command}" if command else "vtengine"
    seen: list[int] = []

    def code() -> int:
        return 128 + seen[0] if seen else INTERRUPTED

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if seen:
            _exit_now(code())
        seen.append(signum)
        raise KeyboardInterrupt

    handled = (signal.SIGINT, signal.SIGTERM)
    previous = {sig: signal.getsignal(sig) for sig in handled}
    for sig in handled:
        if previous[sig] is not signal.SIG_IGN:  # an ignored signal (nohup, a background job) stays ignored
            signal.signal(sig, on_signal)
    try:
        if noted:  # a signal during the program's imports
            seen.append(noted[0])
            _interrupted(label, code())
        result = app(args=args, standalone_mode=False, prog_name="vtengine")
    except typer.Exit as stop:
        if seen or stop.exit_code == INTERRUPTED:
            _interrupted(label, code())
        sys.exit(stop.exit_code)
    except UsageError as error:
        _say(("error", "bold red"), f": {error}")
        sys.exit(ExitCode.USAGE)
    except (typer.Abort, KeyboardInterrupt):
        _interrupted(label, code())
    except Exception as error:  # noqa: BLE001 - the last line of defence: say it, exit 2 or 3
        if seen:
            _interrupted(label, code())
        if hasattr(error, "show") and hasattr(error, "exit_code"):  # a click-style usage error
            error.show()
            sys.exit(ExitCode.USAGE)
        console.print_exception(show_locals=False)
        _say(("internal error", "bold red"), ": this is a bug in vtengine; the traceback is above")
        sys.exit(ExitCode.INTERNAL)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if seen or result == INTERRUPTED:  # swallowed, or turned by typer into Exit(130) and then a return value
        _interrupted(label, code())
    sys.exit(int(result) if isinstance(result, int) else ExitCode.OK)


if __name__ == "__main__":
    main()
