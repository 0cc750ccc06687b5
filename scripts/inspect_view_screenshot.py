"""Screenshot what `inspect view` shows for an eval log, with headless Chromium.

    python scripts/inspect_view_screenshot.py LOG OUT.png                 # the log's first sample
    python scripts/inspect_view_screenshot.py LOG OUT.png --sample ID --tab scoring
    python scripts/inspect_view_screenshot.py LOG OUT.png --list          # the log's sample list
    python scripts/inspect_view_screenshot.py LOGS OUT.png --log-list     # the folder's list of logs
    python scripts/inspect_view_screenshot.py --url URL OUT.png           # a viewer you started

With a LOG it starts `inspect view` on the log's folder itself (a free port), opens the sample's
page (`--tab`: the sample tab the URL opens; default none, i.e. what the viewer opens on), and
stops the viewer afterwards. Chromium's DevTools port is chosen free too, so two runs never
collide. The wait is adaptive: it polls the page's text until it holds what is asked for
(`--expect TEXT`, default the sample id; with `--log-list`, the name of the folder's first log) and has stopped changing, up to `--timeout` seconds.
It writes OUT (PNG) and OUT.txt (the page's text, to check what is on it). Needs `chromium`
(apt-get install chromium).

The pieces (`viewer`, `chromium`, `Page`) are also what the tests use to check how a review
renders (tests/test_viewer_render.py).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import aiohttp

FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--hide-scrollbars", "--disable-extensions", "--no-first-run"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def wait_for_http(url: str, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"{url} did not answer in time")


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


@contextmanager
def viewer(log_dir: Path, timeout: float = 60.0) -> Iterator[int]:
    """`inspect view` on a folder, on a free port (yielded), stopped afterwards."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "inspect_ai", "view", "--log-dir", str(log_dir), "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_http(f"http://127.0.0.1:{port}/", time.monotonic() + timeout)
        yield port
    finally:
        _stop(process)


@contextmanager
def chromium(width: int = 1400, height: int = 1000) -> Iterator[int]:
    """Headless Chromium with its DevTools on a free port (yielded), in a throwaway profile."""
    path = chromium_path()
    if path is None:
        raise SystemExit("no chromium on PATH (apt-get install chromium)")
    devtools = free_port()
    profile = tempfile.mkdtemp(prefix="inspect-view-shot-")
    process = subprocess.Popen(
        [path, *FLAGS, f"--remote-debugging-port={devtools}", f"--user-data-dir={profile}",
         f"--window-size={width},{height}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield devtools
    finally:
        _stop(process)
        shutil.rmtree(profile, ignore_errors=True)


def log_url(port: int, log: Path) -> str:
    return f"http://127.0.0.1:{port}/#/logs/{urllib.parse.quote(log.name)}"


def sample_url(port: int, log: Path, sample: str, epoch: int = 1, tab: str | None = None) -> str:
    url = f"{log_url(port, log)}/samples/sample/{urllib.parse.quote(sample)}/{epoch}"
    return f"{url}/{tab}" if tab else url


class Page:
    """One browser tab driven over the DevTools protocol: `async with Page(devtools) as page`."""

    def __init__(self, devtools: int, width: int = 1400, height: int = 1000, timeout: float = 60.0) -> None:
        self.devtools, self.width, self.height, self.timeout = devtools, width, height, timeout
        self.counter = 0

    async def __aenter__(self) -> Page:
        self.http = aiohttp.ClientSession()
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                async with self.http.put(f"http://127.0.0.1:{self.devtools}/json/new?about:blank") as response:
                    target = await response.json()
                break
            except aiohttp.ClientError:
                if time.monotonic() > deadline:
                    await self.http.close()
                    raise SystemExit("chromium did not open its DevTools port") from None
                await asyncio.sleep(0.2)
        self.target = target["id"]
        self.ws = await self.http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0)
        await self.call("Emulation.setDeviceMetricsOverride", width=self.width, height=self.height,
                        deviceScaleFactor=1, mobile=False)
        await self.call("Page.enable")
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.ws.close()
        async with self.http.get(f"http://127.0.0.1:{self.devtools}/json/close/{self.target}"):
            pass
        await self.http.close()

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.counter += 1
        await self.ws.send_json({"id": self.counter, "method": method, "params": params})
        while True:
            message = await self.ws.receive_json()
            if message.get("id") == self.counter:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    async def evaluate(self, expression: str, await_promise: bool = False) -> Any:
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                                 awaitPromise=await_promise)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    async def before_load(self, script: str) -> None:
        """Run `script` in every document this tab loads, before the page's own scripts."""
        await self.call("Page.addScriptToEvaluateOnNewDocument", source=script)

    async def text(self) -> str:
        return await self.evaluate("document.body ? document.body.innerText : ''") or ""

    async def settle(self, expect: str, timeout: float, quiet: float = 1.0) -> tuple[str, bool]:
        """Poll the page's text until it holds `expect` and has not changed for `quiet` seconds
        (or `timeout` passed): (the text, whether it settled)."""
        deadline = time.monotonic() + timeout
        text, stable_since = "", time.monotonic()
        while time.monotonic() < deadline:
            await asyncio.sleep(0.25)
            now = await self.text()
            if now != text:
                text, stable_since = now, time.monotonic()
            elif expect in text and time.monotonic() - stable_since >= quiet:
                return text, True
        return text, False

    async def goto(self, url: str, expect: str, timeout: float) -> tuple[str, bool]:
        await self.call("Page.navigate", url=url)
        return await self.settle(expect, timeout)

    async def screenshot(self, out: Path) -> None:
        shot = await self.call("Page.captureScreenshot", format="png")
        out.write_bytes(base64.b64decode(shot["data"]))


def first_sample(log: Path) -> str:
    from inspect_ai.log import read_eval_log

    samples = read_eval_log(str(log)).samples or []
    if not samples:
        raise SystemExit(f"{log}: the log has no samples")
    return str(samples[0].id)


async def capture(devtools: int, url: str, out: Path, expect: str, timeout: float, width: int, height: int) -> str:
    async with Page(devtools, width, height, timeout) as page:
        text, settled = await page.goto(url, expect, timeout)
        if not settled:
            print(f"warning: after {timeout:g} s the page does not show {expect!r}; capturing anyway", file=sys.stderr)
        out.with_name(out.name + ".txt").write_text(text, encoding="utf-8")
        await page.screenshot(out)
        return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", nargs="?", help="an .eval log (the viewer is started on its folder)")
    parser.add_argument("out", help="the PNG to write (the page text goes to OUT.txt)")
    parser.add_argument("--url", help="screenshot this URL of a viewer you started instead of a LOG")
    parser.add_argument("--sample", help="sample id (default: the log's first sample)")
    parser.add_argument("--epoch", type=int, default=1, help="epoch (default: 1)")
    parser.add_argument("--tab", help="sample tab to open (e.g. scoring, messages; default: the viewer's own)")
    parser.add_argument("--list", action="store_true", help="open the log's sample list instead of a sample")
    parser.add_argument("--log-list", action="store_true",
                        help="LOG is a folder (or a log in it): open the viewer's list of its logs")
    parser.add_argument("--expect", help="text the page must show before the capture (default: the sample id)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait at most (default: 60)")
    parser.add_argument("--size", default="1400x1000", help="window size WIDTHxHEIGHT (default: 1400x1000)")
    args = parser.parse_args()
    if bool(args.url) == bool(args.log):
        parser.error("give a LOG or --url URL")
    if chromium_path() is None:
        parser.error("no chromium on PATH (apt-get install chromium)")
    width, height = (int(n) for n in args.size.lower().split("x"))
    out = Path(args.out)
    deadline = time.monotonic() + args.timeout

    def shoot(url: str, expect: str) -> None:
        with chromium(width, height) as devtools:
            asyncio.run(capture(devtools, url, out, expect, max(deadline - time.monotonic(), 5.0), width, height))
        print(json.dumps({"url": url, "png": str(out), "text": str(out) + ".txt"}))

    if not args.log:
        shoot(args.url, args.expect or "")
        return 0
    log = Path(args.log).resolve()
    if args.log_list:
        folder = log if log.is_dir() else log.parent
        logs = sorted(folder.glob("*.eval"))
        if not logs:
            parser.error(f"{folder}: no .eval log in this folder")
        with viewer(folder, args.timeout) as port:
            shoot(f"http://127.0.0.1:{port}/#/logs/", args.expect or logs[0].name)
        return 0
    sample = args.sample or first_sample(log)
    with viewer(log.parent, args.timeout) as port:
        url = f"{log_url(port, log)}/samples" if args.list else sample_url(port, log, sample, args.epoch, args.tab)
        shoot(url, args.expect or sample)
    return 0


if __name__ == "__main__":
    sys.exit(main())
