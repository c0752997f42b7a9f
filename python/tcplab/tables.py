"""Terminal tables that fit the terminal without cutting a number.

A table wider than the terminal is split into several, each repeating the key column
(the flow or link id), rather than squeezing columns until digits turn into "…".
Numbers never wrap; identifiers and other text fold onto a second line when even a
lone column is too wide.

Tables are drawn here, in rich's heavy-head box style, rather than by rich's Table:
the widths are already decided, and rich's general layout took 20 ms of every run's
summary (a tenth of the run). What rich still does is write the styled lines.
"""

from __future__ import annotations

import textwrap
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult

#: Columns of free text (ids, paths) fold beyond this width instead of widening the
#: table.
MAX_TEXT_WIDTH = 28
#: What the box adds per column (one space of padding each side and a border) and once
#: per table (the closing border).
_PER_COLUMN, _PER_TABLE = 3, 1


@dataclass
class Column:
    """A column: its header and whether it holds numbers (right-aligned, never wrapped)
    or text (left-aligned, folded when too wide)."""

    header: str
    numeric: bool = True


def _plain(markup: str) -> str:
    """The text a cell (rich markup, escaped by the caller) shows."""
    if "[" not in markup:
        return markup
    from rich.text import Text

    return Text.from_markup(markup).plain


def _cells(text: str) -> int:
    """Terminal cells ``text`` takes (wide East Asian characters take two)."""
    if text.isascii():
        return len(text)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _cell_width(markup: str) -> int:
    return _cells(_plain(markup))


def _natural_width(column: Column, cells: list[str], whole_header: bool, key: bool) -> int:
    """The column's width with its header on one line, or broken between words (the
    key column's is capped by the caller)."""
    words = column.header.split()
    header = len(column.header) if whole_header else max((len(w) for w in words), default=0)
    width = max([header, *(_cell_width(c) for c in cells)])
    return width if column.numeric or key else min(width, MAX_TEXT_WIDTH)


def _table_width(widths: list[int]) -> int:
    return sum(widths) + _PER_COLUMN * len(widths) + _PER_TABLE


def fitted_tables(title: str, columns: list[Column], rows: list[list[str]], width: int) -> list[BoxTable]:
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
        indices = [0, *part]
        tables.append(BoxTable(shown, [columns[i] for i in indices], [key_width if i == 0 else widths[i] for i in indices],
                               [[row[i] for i in indices] for row in rows]))
    return tables


class BoxTable:
    """One table with its column widths decided, drawn as rich draws a Table with its
    default (heavy head) box: a title line, bold headers broken between words and
    aligned to the bottom, numbers right-aligned, text left-aligned and folded at the
    column's width."""

    def __init__(self, title: str, columns: list[Column], widths: list[int], rows: list[list[str]]) -> None:
        self.title = title
        self.columns = columns
        self.widths = widths
        self.rows = rows

    def _header_lines(self) -> list[list[str]]:
        cells = [textwrap.fill(c.header, width=w, break_long_words=False).split("\n")
                 for c, w in zip(self.columns, self.widths, strict=True)]
        height = max(len(c) for c in cells)
        return [[""] * (height - len(c)) + c for c in cells]

    def _row_lines(self, row: list[str]) -> list[list[str]]:
        cells = []
        for column, width, markup in zip(self.columns, self.widths, row, strict=True):
            text = _plain(markup)
            if column.numeric or _cells(text) <= width:
                cells.append([text])
            else:  # fold: cut at the width, as many lines as it takes
                cells.append([text[i:i + width] for i in range(0, len(text), width)])
        height = max(len(c) for c in cells)
        return [c + [""] * (height - len(c)) for c in cells]

    def _line(self, cells: list[str], left: str, middle: str, right: str) -> str:
        padded = []
        for column, width, text in zip(self.columns, self.widths, cells, strict=True):
            gap = " " * max(width - _cells(text), 0)
            padded.append(f" {gap}{text} " if column.numeric else f" {text}{gap} ")
        return left + middle.join(padded) + right

    def _rule(self, left: str, fill: str, middle: str, right: str) -> str:
        return left + middle.join(fill * (w + 2) for w in self.widths) + right

    def lines(self) -> list[tuple[str, str]]:
        """The table as (text, rich style) lines."""
        out = [(self.title, "italic"), (self._rule("┏", "━", "┳", "┓"), "")]
        headers = self._header_lines()
        for k in range(len(headers[0])):
            out.append((self._line([h[k] for h in headers], "┃", "┃", "┃"), "bold"))
        out.append((self._rule("┡", "━", "╇", "┩"), ""))
        for row in self.rows:
            cells = self._row_lines(row)
            for k in range(len(cells[0])):
                out.append((self._line([c[k] for c in cells], "│", "│", "│"), ""))
        out.append((self._rule("└", "─", "┴", "┘"), ""))
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.segment import Segment
        from rich.style import Style

        for text, style in self.lines():
            if style == "bold":  # a header line: the box stays plain, the words bold
                for i, part in enumerate(text.split("┃")):
                    if i:
                        yield Segment("┃")
                    yield Segment(part, Style(bold=True))
            else:
                yield Segment(text, Style.parse(style) if style else None)
            yield Segment.line()
