"""Screenshot what `inspect view` shows for an eval log, with headless Chromium.

    python scripts/inspect_view_screenshot.py LOG OUT.png                 # the log's first sample
    python scripts/inspect_view_screenshot.py LOG OUT.png --sample ID --tab scoring
    python scripts/inspect_view_screenshot.py --url URL OUT.png           # a viewer you started

With a LOG it starts `inspect view` on the log's folder itself (a free port), opens the sample's
page (`--tab`: the sample tab the URL opens; default none, i.e. what the viewer opens on), and
stops the viewer afterwards. Chromium's DevTools port is chosen free too, so two runs never
collide. The wait is adaptive: it polls the page's text until it holds what is asked for
(`--expect TEXT`, default the sample id) and has stopped changing, up to `--timeout` seconds.
It writes OUT (PNG) and OUT.txt (the page's text, to check what is on it). Needs `chromium`
(apt-get install chromium).
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
from pathlib import Path

import aiohttp

FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--hide-scrollbars", "--disable-extensions"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_http(url: str, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"{url} did not answer in time")


def first_sample(log: Path) -> str:
    from inspect_ai.log import read_eval_log

    samples = read_eval_log(str(log)).samples or []
    if not samples:
        raise SystemExit(f"{log}: the log has no samples")
    return str(samples[0].id)


def sample_url(port: int, log: Path, sample: str, epoch: int, tab: str | None) -> str:
    url = (f"http://127.0.0.1:{port}/#/logs/{urllib.parse.quote(log.name)}/samples/sample/"
           f"{urllib.parse.quote(sample)}/{epoch}")
    return f"{url}/{tab}" if tab else url


async def capture(devtools: int, url: str, out: Path, expect: str, timeout: float, width: int, height: int) -> str:
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as http:
        pages = None
        while pages is None:
            try:
                async with http.get(f"http://127.0.0.1:{devtools}/json") as response:
                    pages = [p for p in await response.json() if p.get("type") == "page"]
            except aiohttp.ClientError:
                if time.monotonic() > deadline:
                    raise SystemExit("chromium did not open its DevTools port") from None
                await asyncio.sleep(0.2)
        async with http.ws_connect(pages[0]["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            counter = 0

            async def call(method: str, **params):
                nonlocal counter
                counter += 1
                await ws.send_json({"id": counter, "method": method, "params": params})
                while True:
                    message = await ws.receive_json()
                    if message.get("id") == counter:
                        return message.get("result", {})

            async def page_text() -> str:
                result = await call("Runtime.evaluate", expression="document.body ? document.body.innerText : ''",
                                    returnByValue=True)
                return result.get("result", {}).get("value", "") or ""

            await call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
            await call("Page.enable")
            await call("Page.navigate", url=url)
            text, stable_since = "", time.monotonic()
            while time.monotonic() < deadline:  # until the text holds what is expected and stops changing
                await asyncio.sleep(0.25)
                now = await page_text()
                if now != text:
                    text, stable_since = now, time.monotonic()
                elif expect in text and time.monotonic() - stable_since >= 1.0:
                    break
            else:
                print(f"warning: after {timeout:g} s the page does not show {expect!r}; capturing anyway", file=sys.stderr)
            out.with_name(out.name + ".txt").write_text(text, encoding="utf-8")
            shot = await call("Page.captureScreenshot", format="png")
            out.write_bytes(base64.b64decode(shot["data"]))
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
    parser.add_argument("--expect", help="text the page must show before the capture (default: the sample id)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait at most (default: 60)")
    parser.add_argument("--size", default="1400x1000", help="window size WIDTHxHEIGHT (default: 1400x1000)")
    args = parser.parse_args()
    if bool(args.url) == bool(args.log):
        parser.error("give a LOG or --url URL")
    browser_path = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser_path is None:
        parser.error("no chromium on PATH (apt-get install chromium)")
    width, height = (int(n) for n in args.size.lower().split("x"))
    out = Path(args.out)
    deadline = time.monotonic() + args.timeout
    processes: list[subprocess.Popen] = []
    try:
        if args.log:
            log = Path(args.log).resolve()
            sample = args.sample or first_sample(log)
            port = free_port()
            processes.append(subprocess.Popen(
                [sys.executable, "-m", "inspect_ai", "view", "--log-dir", str(log.parent), "--port", str(port)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            wait_for_http(f"http://127.0.0.1:{port}/", deadline)
            url = (f"http://127.0.0.1:{port}/#/logs/{urllib.parse.quote(log.name)}/samples" if args.list
                   else sample_url(port, log, sample, args.epoch, args.tab))
            expect = args.expect or sample
        else:
            url, expect = args.url, args.expect or ""
        devtools = free_port()
        profile = tempfile.mkdtemp(prefix="inspect-view-shot-")
        processes.append(subprocess.Popen(
            [browser_path, *FLAGS, f"--remote-debugging-port={devtools}", f"--user-data-dir={profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        asyncio.run(capture(devtools, url, out, expect, max(deadline - time.monotonic(), 5.0), width, height))
        print(json.dumps({"url": url, "png": str(out), "text": str(out) + ".txt"}))
    finally:
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        if "profile" in locals():
            shutil.rmtree(profile, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
