"""Terminal tables that fit the terminal without cutting a number.

A table wider than the terminal is split into several, each repeating the key column
(the flow or link id), rather than letting rich squeeze columns until digits turn into
"…". Numbers never wrap; identifiers and other text fold onto a second line when
even a lone column is too wide.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from rich.table import Table
from rich.text import Text

#: Columns of free text (ids, paths) fold beyond this width instead of widening the
#: table.
MAX_TEXT_WIDTH = 28
#: What rich adds per column (one space of padding each side and a border) and once
#: per table (the closing border).
_PER_COLUMN, _PER_TABLE = 3, 1


@dataclass
class Column:
    """A column: its header and whether it holds numbers (right-aligned, never wrapped)
    or text (left-aligned, folded when too wide)."""

    header: str
    numeric: bool = True


def _cell_width(markup: str) -> int:
    return Text.from_markup(markup).cell_len


def _natural_width(column: Column, cells: list[str], whole_header: bool, key: bool) -> int:
    """The column's width with its header on one line, or broken between words (the
    key column's is capped by the caller)."""
    words = column.header.split()
    header = len(column.header) if whole_header else max((len(w) for w in words), default=0)
    width = max([header, *(_cell_width(c) for c in cells)])
    return width if column.numeric or key else min(width, MAX_TEXT_WIDTH)


def _table_width(widths: list[int]) -> int:
    return sum(widths) + _PER_COLUMN * len(widths) + _PER_TABLE


def fitted_tables(title: str, columns: list[Column], rows: list[list[str]], width: int) -> list[Table]:
    """``rows`` (cells as rich markup) under ``columns`` as one table, or as several of
    at most ``width`` cells, each with the first (key) column, when one does not fit."""
    widths = [_natural_width(c, [r[i] for r in rows], True, i == 0) for i, c in enumerate(columns)]
    if _table_width(widths) > width:
        widths = [_natural_width(c, [r[i] for r in rows], False, i == 0) for i, c in enumerate(columns)]
    key_width = min(widths[0], max(width // 2, 8))
    parts: list[list[int]] = [[]]
    used = key_width + 2 * _PER_COLUMN + _PER_TABLE
    for i in range(1, len(columns)):
        if parts[-1] and used + widths[i] + _PER_COLUMN > width:
            parts.append([])
            used = key_width + 2 * _PER_COLUMN + _PER_TABLE
        parts[-1].append(i)
        used += widths[i] + _PER_COLUMN
    tables = []
    for k, part in enumerate(parts):
        shown = title if k == 0 else f"{title} (continued)"
        table = Table(title=shown, title_justify="left")
        for i in [0, *part]:
            c = columns[i]
            w = key_width if i == 0 else widths[i]
            # Headers break between words (explicitly: a no-wrap column would not).
            header = textwrap.fill(c.header, width=w, break_long_words=False)
            if c.numeric:
                table.add_column(header, justify="right", no_wrap=True, min_width=w)
            else:
                table.add_column(header, justify="left", overflow="fold", min_width=w, max_width=w)
        for row in rows:
            table.add_row(*(row[i] for i in [0, *part]))
        tables.append(table)
    return tables
