"""A real server and a real headless browser for tests/web/test_web_browser.py.

The server is uvicorn on 127.0.0.1 and a free port, in a thread of the test process. The browser is Debian's
chromium (``apt-get install chromium``; ``.ci/run`` installs it) driven by Playwright, which never downloads a
browser of its own here. Without chromium the browser tests fail, unless ``BARNYARD_BROWSER_TESTS_OPTIONAL=1``
says they may be skipped (a machine without the package).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("BARNYARD_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).parent / "artifacts"
"""Screenshots of the browser tests (git-ignored)."""


def _missing(what: str) -> None:
    message = f'{what}; the browser tests need it (apt-get install -y chromium; pip install -e ".[web-test]")'
    if os.environ.get("BARNYARD_BROWSER_TESTS_OPTIONAL") == "1":
        pytest.skip(message + " - skipped because BARNYARD_BROWSER_TESTS_OPTIONAL=1")
    pytest.fail(message + " (set BARNYARD_BROWSER_TESTS_OPTIONAL=1 to skip them on a machine without it)")


class FailingPolicy:
    """A policy that raises on its first move (the page must show the error)."""

    name = "crash"

    def reset(self, seed=None):
        pass

    def act(self, decision):
        raise RuntimeError("this policy always fails")


def serve(app, **options):
    """Serve ``app`` with uvicorn on 127.0.0.1 and a free port, in a thread, with the settings ``serve`` uses
    (``options`` overrides them: ``training.play.web.serve.server_options``): a generator that yields the base URL
    and stops the server when resumed."""
    import uvicorn

    from training.play.web.serve import server_options

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, **server_options(**options)))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("uvicorn did not start")
        time.sleep(0.02)
    addresses = {s.getsockname()[0] for srv in server.servers for s in srv.sockets}
    assert addresses == {"127.0.0.1"}, f"the test server listens on {addresses}, not only on loopback"
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="session")
def server():
    """Base URL of the app served by uvicorn on 127.0.0.1 (checked) and a free port."""
    try:
        import uvicorn  # noqa: F401

        from training.play.web.app import create_app
    except ImportError as err:
        _missing(f"the web extra is not installed ({err})")
    app = create_app(extra_policies={"crash": lambda game, options, seat: FailingPolicy()}, warm=True)
    yield from serve(app)


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as err:
        _missing(f"Playwright is not installed ({err})")
    if not os.path.exists(CHROMIUM):
        _missing(f"chromium is not installed at {CHROMIUM}")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, request):
    """A fresh page (its own browser context); the test fails on any console error or uncaught exception."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None)
    page.on("pageerror", lambda err: errors.append(f"page error: {err}"))
    page.console_errors = errors
    yield page
    context.close()
    assert not errors, "browser console errors:\n" + "\n".join(errors)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
