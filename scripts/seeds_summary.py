#!/usr/bin/env python3
"""Writes docs/SEEDS.md's table of verdicts from the reports in docs/seeds/.

Each report (one per CPU and backend, not bounds.md) ends with a table of
claims: paper, claim, the paper's figure, ours, verdict. This puts them side
by side, one column per report, between SEEDS.md's two markers, so that the
summary is always the saved runs' own. scripts/seeds.sh runs it after the
benchmark; it needs nothing beyond Python's standard library.

Usage: seeds_summary.py [ROOT] (the repository, by default this script's)."""
import pathlib
import sys

BEGIN = "<!-- verdicts: written by scripts/seeds_summary.py from docs/seeds/ -->"
END = "<!-- end of verdicts -->"


def claims(report):
    """The report's claims table: (paper, claim, paper's figure) -> (ours, verdict)."""
    text = report.read_text()
    section = text[text.index("## Claims and verdicts"):]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or len(cells) != 5 or cells[0] == "paper":
            continue
        verdict = cells[4] if cells[4] in ("holds", "does not hold") else "differs"
        rows[tuple(cells[:3])] = f"{cells[3]}: {verdict}"
    return rows


def main():
    root = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent
    reports = sorted(p for p in (root / "docs/seeds").glob("*.md") if p.name != "bounds.md")
    tables = [(p, claims(p)) for p in reports]
    keys = []
    for _, rows in tables:
        keys += [k for k in rows if k not in keys]
    head = "| paper | claim | paper's figure | " + " | ".join(f"[{p.stem}](seeds/{p.name})" for p, _ in tables) + " |"
    lines = [head, "|---|---|---|" + "---|" * len(tables)]
    for key in keys:
        ours = [rows.get(key, "-") for _, rows in tables]
        lines.append("| " + " | ".join(list(key) + ours) + " |")
    seeds = root / "docs/SEEDS.md"
    text = seeds.read_text()
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    seeds.write_text(text[:start] + "\n" + "\n".join(lines) + "\n" + text[end:])
    print(f"seeds_summary.py: {len(keys)} claims from {len(tables)} reports into {seeds}")


if __name__ == "__main__":
    main()
