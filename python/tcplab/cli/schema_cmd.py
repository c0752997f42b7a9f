"""``tcplab schema``: the JSON Schema of scenario files, for editors and other tools.

Editors with a TOML language server (taplo, Even Better TOML) complete keys, show the
help text and flag typos with it; a first line ``#:schema ./tcplab.schema.json`` in a
scenario points them at it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..output import OutputError, replace_file
from .app import app, escape, fail, out_console


@app.command()
def schema(
    out: Annotated[Path | None, typer.Option("--out", metavar="FILE", help="Write the schema to FILE instead of printing it.")] = None,
) -> None:
    """Print the JSON Schema of scenario files (every table, key, unit, default and help text)."""
    from ..scenario import format

    text = json.dumps(format.schema(), indent=2, ensure_ascii=False) + "\n"
    if out is None:
        typer.echo(text, nl=False)
        return
    try:
        replace_file(out, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    except OutputError as e:
        fail(str(e), 2)
    out_console.print(f"Wrote the scenario schema to {escape(str(out))}")
