#!/usr/bin/env python3
"""PNGs of a running desk as a reviewer sees it at 1280x800: the login, the queue, the top
order's page and the audit trail, drawn by headless Chromium through chromedriver (WebDriver
over HTTP, no library). Test tooling, never in the product's path.

    scripts/desk-screenshots.py http://127.0.0.1:8080 USER PASSWORD OUT_DIR

Needs chromium and chromium-driver: scripts/install-deps.sh --test-tools."""
import base64, json, os, shutil, socket, subprocess, sys, tempfile, time, urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Driver:
    def __init__(self):
        exe = shutil.which("chromedriver")
        if exe is None:
            sys.exit("chromedriver is not installed: scripts/install-deps.sh --test-tools")
        self.port = free_port()
        self.proc = subprocess.Popen([exe, f"--port={self.port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.profile = tempfile.mkdtemp()
        for _ in range(100):
            try:
                self.call("GET", "/status")
                break
            except OSError:
                time.sleep(0.1)
        args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,800", "--hide-scrollbars", f"--user-data-dir={self.profile}"]
        caps = {"capabilities": {"alwaysMatch": {"goog:chromeOptions": {"args": args}}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]
        # --window-size is the window, frame included: the page gets exactly 1280x800 this way.
        self.s("POST", "/goog/cdp/execute", {"cmd": "Emulation.setDeviceMetricsOverride", "params": {
            "width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False}})

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read())["value"]

    def s(self, method, path, body=None):
        return self.call(method, f"/session/{self.session}{path}", body)

    def find(self, css):
        e = self.s("POST", "/element", {"using": "css selector", "value": css})
        return next(iter(e.values()))

    def shot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.s("GET", "/screenshot")))
        print(path)

    def close(self):
        try:
            self.s("DELETE", "")
        finally:
            self.proc.terminate()
            shutil.rmtree(self.profile, ignore_errors=True)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    base, user, password, out = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    d = Driver()
    try:
        d.s("POST", "/url", {"url": base + "/login"})
        d.shot(os.path.join(out, "desk-login.png"))
        d.s("POST", f"/element/{d.find('input[name=username]')}/value", {"text": user})
        d.s("POST", f"/element/{d.find('input[name=password]')}/value", {"text": password})
        d.s("POST", f"/element/{d.find('form button, form input[type=submit]')}/click", {})
        time.sleep(0.5)
        d.s("POST", "/url", {"url": base + "/queue"})
        d.shot(os.path.join(out, "desk-queue.png"))
        d.s("POST", f"/element/{d.find('tbody a')}/click", {})
        time.sleep(0.5)
        d.shot(os.path.join(out, "desk-order.png"))
        d.s("POST", "/url", {"url": base + "/audit"})
        d.shot(os.path.join(out, "desk-audit.png"))
    finally:
        d.close()


main()
