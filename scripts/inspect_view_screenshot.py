"""Screenshot a sample in `inspect view` with headless Chromium (the browser check of issue 11).

    inspect eval tasks/ds_review.py -T document=fixtures/ds/causal-without-method.md --log-dir /tmp/shot
    inspect view --log-dir /tmp/shot --port 7599 &
    python scripts/inspect_view_screenshot.py \
        "http://127.0.0.1:7599/#/logs/<log file>/samples/sample/causal-without-method/1/messages" out.png

Chromium's one-shot `--screenshot` fires before the viewer has fetched the log, so this drives
Chromium over the DevTools protocol (aiohttp, an Inspect dependency): open the page, wait, save
the page text to OUT.txt and a screenshot to OUT. Needs `chromium` (apt-get install chromium).
"""

from __future__ import annotations

import asyncio
import base64
import subprocess
import sys

import aiohttp

FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PORT = 9333


async def capture(url: str, out: str, wait: float) -> None:
    async with aiohttp.ClientSession() as http:
        pages = None
        for _ in range(50):
            try:
                async with http.get(f"http://127.0.0.1:{PORT}/json") as response:
                    pages = await response.json()
                break
            except aiohttp.ClientError:
                await asyncio.sleep(0.2)
        if pages is None:
            raise SystemExit("chromium did not open its DevTools port")
        page = next(p for p in pages if p["type"] == "page")
        async with http.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            counter = 0

            async def call(method: str, **params):
                nonlocal counter
                counter += 1
                await ws.send_json({"id": counter, "method": method, "params": params})
                while True:
                    message = await ws.receive_json()
                    if message.get("id") == counter:
                        return message.get("result", {})

            await call("Page.enable")
            await call("Page.navigate", url=url)
            await asyncio.sleep(wait)
            text = await call("Runtime.evaluate", expression="document.body.innerText", returnByValue=True)
            with open(out + ".txt", "w", encoding="utf-8") as f:
                f.write(text.get("result", {}).get("value", ""))
            shot = await call("Page.captureScreenshot", format="png")
            with open(out, "wb") as f:
                f.write(base64.b64decode(shot["data"]))


def main() -> None:
    url, out = sys.argv[1], sys.argv[2]
    wait = float(sys.argv[3]) if len(sys.argv) > 3 else 12.0
    browser = subprocess.Popen(
        ["chromium", *FLAGS, f"--remote-debugging-port={PORT}", "--window-size=1400,1800", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        asyncio.run(capture(url, out, wait))
    finally:
        browser.terminate()
        browser.wait(5)


if __name__ == "__main__":
    main()
