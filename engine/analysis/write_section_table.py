"""Regenerate ``suit_sections.bin`` (see ``section_table``): run it as a module."""

from __future__ import annotations

from importlib import resources

from engine.analysis.section_table import FILE, build


def main() -> None:
    data = build()
    with resources.as_file(resources.files("engine.analysis") / FILE) as target:
        target.write_bytes(data)
    print(f"wrote {target} ({len(data)} bytes)")


if __name__ == "__main__":
    main()
