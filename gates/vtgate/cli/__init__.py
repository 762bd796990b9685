"""The ``vtgate`` command line: the typer app (``app``), the entry point (``main``), one module per
command (``commands/``), the exit-code mapping of every way out (``exits``), the check's reporters
(``report``: table, JSON, JUnit, GitHub) and the live progress bar (``progress``). Nothing below this
package is imported by the layers it drives: it is the top of vtgate."""
