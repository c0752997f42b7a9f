"""``tcplab examples``: the scenarios bundled with the package (python/tcplab/examples,
also ``scenarios/`` in a checkout), listed or copied out to start from."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from .app import app, escape, fail, out_console


def example_files() -> list[Path]:
    """The bundled scenario files, by name."""
    root = Path(str(resources.files("tcplab") / "examples"))
    return sorted(root.glob("*.toml"))


def _summary(path: Path) -> str:
    """The first sentence of the file's opening comment (what the scenario shows)."""
    lines = []
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        text = line.lstrip("# ").rstrip()
        if not text:
            break
        lines.append(text)
    text = " ".join(lines)
    end = text.find(". ")
    return text if end < 0 else text[:end + 1]


@app.command()
def examples(
    copy: Annotated[Path | None, typer.Option("--copy", metavar="DIR", help="Copy the example scenarios into DIR (created if needed).")] = None,
) -> None:
    """List the example scenarios that come with tcplab, or copy them to start from."""
    files = example_files()
    if copy is None:
        for f in files:
            out_console.print(f"[bold]{escape(f.name)}[/]: {escape(_summary(f))}", highlight=False)
        out_console.print("Run one with: tcplab run <file>; copy them out with: tcplab examples --copy DIR")
        return
    clashes = [f.name for f in files if (copy / f.name).exists()]
    if clashes:
        fail(f"{copy}: already holds {', '.join(clashes)}; nothing copied (choose another directory)", 2)
    try:
        copy.mkdir(parents=True, exist_ok=True)
        for f in files:
            shutil.copyfile(f, copy / f.name)
    except OSError as e:
        fail(f"{copy}: cannot copy the examples ({e.strerror})", 2)
    out_console.print(f"Copied {len(files)} example scenarios to {escape(str(copy))}")
