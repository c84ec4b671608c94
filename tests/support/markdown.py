"""Reading the docs' Markdown back: a table's rows under a heading, for tests that hold a doc to the code."""

from __future__ import annotations


def markdown_table(heading: str, doc: str) -> list[dict[str, str]]:
    """The rows of the first Markdown table after ``heading`` in ``doc``, as {column: cell}."""
    lines = doc.split(f"\n{heading}\n", 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    header, _, *body = rows
    return [dict(zip(header, row, strict=True)) for row in body]
