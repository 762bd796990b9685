"""MarkupSafe issue #417: ``Markup.striptags()`` stopped collapsing the spaces left where a comment or a
tag was removed (2.1.4; fixed in 2.1.5 by #418). Imports the worktree's src/ with its built C speedups;
exit 0 good, 1 bad, 125 when the speedups cannot be imported (untestable)."""

import sys

sys.path.insert(0, "src")
try:
    import markupsafe
    from markupsafe import _speedups  # noqa: F401  (the build under test)
except ImportError as error:
    print(f"cannot import the build: {error}")
    sys.exit(125)
out = markupsafe.Markup("<em>Foo &amp; Bar <!-- inner comment -->\n </em>").striptags()
print(repr(out), markupsafe.escape.__module__)
sys.exit(0 if out == "Foo & Bar" else 1)
