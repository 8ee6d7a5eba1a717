"""The command line's synopsis, from the parser itself: the README and the docs print this.

``python docs/cli_synopsis.py`` prints the usage line of every ``treelearn`` command as
``treelearn COMMAND --help`` prints it (wrapped at 100 columns); ``--write`` puts it into
README.md and the user guide's command-line page (docs/guide/cli.md) between the
``<!-- cli-synopsis -->`` markers. ``tests/test_cli_synopsis.py`` fails when a copy differs
from the parser, and the docs' command-line reference is written from the parser at build
time, so none can drift from ``--help``.
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START, END = "<!-- cli-synopsis -->", "<!-- /cli-synopsis -->"
WIDTH = "100"  # argparse wraps usage at $COLUMNS - 2
#: the files that hold the synopsis between the markers
COPIES = ("README.md", os.path.join("docs", "guide", "cli.md"))


def commands() -> dict[str, argparse.ArgumentParser]:
    from treelearn.cli._main import build_parser

    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("treelearn's parser has no commands")


def synopsis() -> str:
    """Every command's usage, as its ``--help`` prints it (without ``usage: ``)."""
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        usages = [
            p.format_usage().removeprefix("usage: ").rstrip().replace("\n" + " " * 7, "\n")
            for p in commands().values()
        ]
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old
    return "\n".join(usages) + "\n"


def full_help() -> dict[str, str]:
    """Every command's whole ``--help`` text, for the docs' command-line page."""
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        return {name: p.format_help() for name, p in commands().items()}
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


def readme_block(text: str) -> str:
    """The synopsis a file's ``text`` (the README, the guide's page) holds between the markers."""
    _, _, rest = text.partition(START)
    block, _, _ = rest.partition(END)
    # a text block: no highlighting guessed (Pygments coloured "class", "all", "max")
    return block.strip().removeprefix("```text").removesuffix("```").strip() + "\n"


def write_copies() -> None:
    """Write the synopsis between the markers of every file in :data:`COPIES`."""
    for name in COPIES:
        path = os.path.join(ROOT, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        head, _, rest = text.partition(START)
        _, _, tail = rest.partition(END)
        new = f"{head}{START}\n```text\n{synopsis()}```\n{END}{tail}"
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_copies()
    else:
        print(synopsis(), end="")
