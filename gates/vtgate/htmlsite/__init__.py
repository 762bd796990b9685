"""``vtgate report --html``: one static, self-contained site (no server, no network, one folder that
works from ``file://``) built from the JSON reports that check, mutate (declared and ``--code``),
envdoc and vtbisect write, and from a history folder of earlier runs.

- ``markup``: HTML built as escaped text by construction (``Markup``, ``el``), the page frame;
- ``inputs``: reading the reports, telling their kinds apart, validating each against docs/schemas/;
- ``history``: one JSON per run in ``--history DIR``, keyed by commit and time;
- ``graph``: the commit graph of a bisection, read from git, laid out in lanes;
- ``svg``: the plots (interval, scatter, trend, the bisection graph) as SVG text;
- ``pages``: one function per page type;
- ``build``: the site: every page, its links, written into one folder.

vtgate imports neither vtbisect nor vtengine: a bisection is read as JSON data.
"""
