"""The built documentation site, checked in headless Chromium (issue 42 item 9).

The index, a user-guide page, an API page and a gallery page load with no console error
and every image on them loads; every internal link of every page resolves (to a file of
the site and, with a fragment, to an element with that id); the search page finds
``chow_liu``. Uses ``docs/_build/html`` when it was built (``.ci/run`` and the README's
command build it there), else builds the site into a temporary folder.
"""

from __future__ import annotations

import glob
import html
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.parse

import pytest

pytestmark = pytest.mark.slow

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILT = os.path.join(ROOT, "docs", "_build", "html")
CHROMIUM = next(
    (shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)),
    None,
)
PAGES = [
    "index.html",
    "guide/classifiers.html",
    "api/generated/treelearn.chow_liu.html",
    "auto_examples/chow_liu_draw.html",
    # the tutorials with pictures, and an estimator's page (See Also, References)
    "auto_examples/clg_tree_penguins.html",
    "auto_examples/tutorial_gaussian_classifiers.html",
    "auto_examples/hidden_trees_binary.html",
    "api/generated/treelearn.TAN.html",
]

# put first in <head>: records every console error and uncaught error; after the load event
# (and the virtual time budget) writes them and each image's state into <pre id="check">
HARNESS = """<script>
window.__errors = [];
const __error = console.error.bind(console);
console.error = (...a) => { window.__errors.push(a.map(String).join(" ")); __error(...a); };
window.addEventListener("error", e => {
  window.__errors.push("error: " + (e.message || (e.target && (e.target.src || e.target.href))));
}, true);
window.addEventListener("load", () => setTimeout(() => {
  const images = Array.from(document.images).map(i => ({src: i.getAttribute("src"),
    ok: i.complete && i.naturalWidth > 0}));
  const pre = document.createElement("pre"); pre.id = "check";
  pre.textContent = JSON.stringify({errors: window.__errors, images: images});
  document.body.appendChild(pre);
}, 500));
</script>"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if os.path.isfile(os.path.join(BUILT, "index.html")):
        return BUILT
    pytest.importorskip("sphinx")
    pytest.importorskip("sphinx_gallery")
    out = str(tmp_path_factory.mktemp("site"))
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html"]
        + [os.path.join(ROOT, "docs"), out],
        capture_output=True,
        text=True,
        timeout=1200,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out


def dump_dom(url: str) -> str:
    done = subprocess.run(
        [CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox"]
        + ["--allow-file-access-from-files", "--virtual-time-budget=15000", "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert "<body" in done.stdout, done.stderr[-2000:]
    return done.stdout


needs_browser = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium not installed (apt-get install chromium)"
)


@needs_browser
@pytest.mark.parametrize("page", PAGES)
def test_page_loads_without_console_errors_and_its_images_load(site, page, tmp_path):
    path = os.path.join(site, page)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    # the harness goes into a copy beside the original, so relative links stay valid
    probe = os.path.join(os.path.dirname(path), "_probe_" + os.path.basename(path))
    with open(probe, "w", encoding="utf-8") as f:
        f.write(text.replace("<head>", "<head>" + HARNESS, 1))
    try:
        dom = dump_dom("file://" + probe)
    finally:
        os.remove(probe)
    found = re.search(r'<pre id="check">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    check = json.loads(html.unescape(found.group(1)))
    assert check["errors"] == [], check["errors"]
    broken = [i["src"] for i in check["images"] if not i["ok"]]
    assert broken == [], broken
    if page.startswith("auto_examples/"):
        assert any(i["src"].endswith(".png") for i in check["images"])  # the figure is there


@needs_browser
def test_search_finds_chow_liu(site):
    url = "file://" + os.path.join(site, "search.html") + "?q=chow_liu"
    dom = dump_dom(url)
    results = re.findall(r'<li[^>]*>\s*<a href="([^"]+)"', dom)
    assert any("treelearn.chow_liu" in href for href in results), results[:20]


def anchors(path: str) -> set[str]:
    with open(path, encoding="utf-8") as f:
        return set(re.findall(r'\sid="([^"]+)"', f.read()))


def test_every_internal_link_resolves(site):
    pages = glob.glob(os.path.join(site, "**", "*.html"), recursive=True)
    assert len(pages) > 100  # the reference alone has a page per public name
    broken = []
    ids: dict[str, set[str]] = {}
    for page in pages:
        with open(page, encoding="utf-8") as f:
            hrefs = re.findall(r'\shref="([^"]+)"', f.read())
        for href in hrefs:
            href = html.unescape(href)
            parts = urllib.parse.urlsplit(href)
            if parts.scheme or href.startswith("//") or href.startswith("mailto:"):
                continue  # the outside world: not checked offline
            target = page if not parts.path else os.path.join(os.path.dirname(page), parts.path)
            target = os.path.normpath(urllib.parse.unquote(target))
            if os.path.isdir(target):
                target = os.path.join(target, "index.html")
            if not os.path.exists(target):
                broken.append((os.path.relpath(page, site), href))
                continue
            if parts.fragment and target.endswith(".html"):
                if target not in ids:
                    ids[target] = anchors(target)
                if parts.fragment not in ids[target]:
                    broken.append((os.path.relpath(page, site), href))
    assert broken == [], broken[:20]
