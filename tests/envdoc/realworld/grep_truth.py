"""Text-only ground truth for the real-tree measurement, independent of envdoc's parser: lines that
read env (environ get/[]/in/pop/setdefault, getenv, *_from_env helpers), writes left out, and
``prefix + "X"`` expanded by the nearest preceding ``prefix = "..."``; a call is followed over 4
lines. Prints ``name<TAB>file:line``. Its output was checked by hand (see README.md)."""

import pathlib
import re
import sys

NAME = re.compile(r"""(?:(\w*prefix)\s*\+\s*)?["']([A-Za-z][A-Za-z0-9_]{1,})["']""")
READ = re.compile(r"environ\.get\(|environ\[|in os\.environ|environ\.pop\(|environ\.setdefault\(|getenv\(|_from_env\(")
WRITE = re.compile(r"environ\[[^\]]+\]\s*=(?!=)")


def main(root: pathlib.Path) -> None:
    for path in sorted(root.rglob("*.py")):
        lines = path.read_text(errors="replace").splitlines()
        prefixes: dict[str, str] = {}
        for i, line in enumerate(lines):
            assigned = re.match(r"""\s*(\w*prefix)\s*=\s*["']([A-Z0-9_]+)["']""", line)
            if assigned:
                prefixes[assigned.group(1)] = assigned.group(2)
            if not READ.search(line) or WRITE.search(line) or line.lstrip().startswith(("#", ">>>", "...")):
                continue
            chunk, j = line, i
            while chunk.count("(") > chunk.count(")") and j < i + 4 and j + 1 < len(lines):
                j += 1
                chunk += lines[j]
            start = READ.search(chunk).start()
            for match in NAME.finditer(chunk, start):
                name = match.group(2)
                if match.group(1):
                    name = prefixes.get(match.group(1), "?") + name
                if name.isupper() or name == "systemdrive":
                    print(f"{name}\t{path.relative_to(root)}:{i + 1}")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
