"""Rewrites one marked section of BENCHMARKS.md; shared by the bench scripts."""
import pathlib
import re

BENCHMARKS = pathlib.Path(__file__).resolve().parent.parent / "BENCHMARKS.md"


def replace_section(tag, body):
    """Puts `body` between the lines `<!-- TAG -->` and `<!-- /TAG -->`, replacing what was there."""
    text = BENCHMARKS.read_text()
    pattern = re.compile(rf"(<!-- {tag} -->\n)(?:.*?\n)?(<!-- /{tag} -->)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"BENCHMARKS.md has no <!-- {tag} --> section")
    BENCHMARKS.write_text(pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text))


def read_section(tag):
    """What stands between `<!-- TAG -->` and `<!-- /TAG -->` now ('' when the section is empty)."""
    m = re.search(rf"<!-- {tag} -->\n(.*?)<!-- /{tag} -->", BENCHMARKS.read_text(), re.S)
    if not m:
        raise SystemExit(f"BENCHMARKS.md has no <!-- {tag} --> section")
    return m.group(1)
