"""Copy the front-end packages from node_modules into static/vendor/, ready to serve offline.

GC Design System's stylesheet imports its fonts from Google Fonts and its icons from a CDN;
the network is not there at run time (nor should a government service depend on it), so the
stylesheet is rewritten to use the fonts of @gcds-core/fonts, served from our own origin.
Run by `make` after `npm ci`: python -m jobgrant.service.web.vendor
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
NODE_MODULES = ROOT / "node_modules"
VENDOR = Path(__file__).parent / "static" / "vendor"
GOOGLE_FONTS_IMPORT = re.compile(r"@import\s+url\(['\"]?https://fonts\.googleapis\.com[^)]*\)\s*;?")
ICONS_CDN = re.compile(r"https://cdn\.design-system\.canada\.ca/@gcds-core/fonts@[^/]+/icons/")
LOCAL_FONTS = (
    '@import url("../gcds-fonts/lato/gcds-lato.css");'
    '@import url("../gcds-fonts/noto-sans/gcds-noto-sans.css");'
)


def vendor() -> None:
    if VENDOR.exists():
        shutil.rmtree(VENDOR)
    gcds = NODE_MODULES / "@gcds-core" / "components" / "dist" / "gcds"
    shutil.copytree(gcds, VENDOR / "gcds")
    shutil.copytree(NODE_MODULES / "@gcds-core" / "fonts" / "fonts", VENDOR / "gcds-fonts")
    (VENDOR / "htmx").mkdir(parents=True)
    shutil.copy2(
        NODE_MODULES / "htmx.org" / "dist" / "htmx.min.js", VENDOR / "htmx" / "htmx.min.js"
    )
    for font_css in (VENDOR / "gcds-fonts").rglob("*.css"):
        # the package's stylesheets carry a placeholder path to their own font files
        text = (
            font_css.read_text(encoding="utf-8")
            .replace("path/to/file/", "")
            .replace("<path-to-file>/", "")
        )
        font_css.write_text(text, encoding="utf-8")
    stylesheet = VENDOR / "gcds" / "gcds.css"
    css = stylesheet.read_text(encoding="utf-8")
    css = GOOGLE_FONTS_IMPORT.sub("", css)
    css = ICONS_CDN.sub("../gcds-fonts/icons/", css)
    stylesheet.write_text(LOCAL_FONTS + css, encoding="utf-8")
    remote = re.findall(r"https?://[^\s\"')]+", css)
    if remote:
        sys.exit(f"gcds.css still refers to remote files: {sorted(set(remote))}")


if __name__ == "__main__":
    vendor()
