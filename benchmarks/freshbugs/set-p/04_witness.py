"""04: data (the prompt, generated text, paths in error messages) is printed as text, never parsed as
rich markup. A prompt holding square brackets, as code or chat templates do: prints the exit code of
`vtengine generate` and whether stderr shows the prompt as typed."""
from _w import cli

for prompt in ("see [bold]this[/bold]", "a stray [/] is text"):
    run = cli("generate", "--prompt", prompt, "--tokens", "2")
    print(f"prompt {prompt!r}: exit {run.returncode}, shown as typed: {prompt in run.stderr}")
