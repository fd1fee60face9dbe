"""What the web desk's tests stand on: a private jackd (dummy backend), a real
`trellis run --web` on it, `trellis ctl` to check from outside, headless Chromium driven
by Selenium, and a small WebSocket client written from RFC 6455 for the bad-input tests.

Every process started here has a deadline that ends in SIGKILL."""

import base64
import os
import re
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
import uuid
from array import array
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TRELLIS = os.environ.get("TRELLIS", str(ROOT / ".build" / "debug" / "trellis"))


class Process:
    """A child process that is killed (SIGKILL, its whole group) at its deadline."""

    def __init__(self, arguments, deadline, env=None, **options):
        self.process = subprocess.Popen(arguments, env=env, start_new_session=True, **options)
        self.timer = threading.Timer(deadline, self.kill)
        self.timer.daemon = True
        self.timer.start()

    def kill(self):
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def stop(self, grace=5):
        """SIGINT, then SIGKILL if it has not ended within `grace` seconds."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGINT)
                self.process.wait(grace)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                self.kill()
                self.process.wait(5)
        self.timer.cancel()
        return self.process.returncode


def run(arguments, deadline=30, env=None, data=None):
    """Runs a command to its end or its deadline; returns (status, stdout, stderr)."""
    child = Process(arguments, deadline, env=env, stdin=subprocess.PIPE if data else subprocess.DEVNULL,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = child.process.communicate(data)
    child.timer.cancel()
    return child.process.returncode, out, err


class Jack:
    """A private jackd with the dummy backend, under a unique name."""

    def __init__(self, period=256):
        self.name = f"trellis-web-{uuid.uuid4().hex[:8]}"
        self.env = dict(os.environ, JACK_DEFAULT_SERVER=self.name, JACK_NO_AUDIO_RESERVATION="1")
        self.server = Process(["jackd", "--no-realtime", "-n", self.name, "-d", "dummy", "-r", "48000", "-p", str(period)],
                              600, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        until = time.monotonic() + 15
        while run(["jack_lsp", "-s", self.name], 5, env=self.env)[0] != 0:
            if time.monotonic() > until:
                raise RuntimeError(f"jackd {self.name} did not start")
            time.sleep(0.1)

    def stop(self):
        self.server.stop()


class Desk:
    """`trellis run SESSION --web 127.0.0.1:0` on a private jackd."""

    def __init__(self, session_text=None, session_path=None, folder=None, web="127.0.0.1:0"):
        self.folder = Path(folder or tempfile.mkdtemp(prefix="trellis-web-"))
        if session_text is not None:
            session_path = self.folder / "desk.yaml"
            session_path.write_text(session_text)
        self.session = Path(session_path)
        self.jack = Jack()
        self.socket = str(self.folder / "desk.sock")
        self.log = self.folder / "run.log"
        self.process = Process(
            [TRELLIS, "run", str(self.session), "--server", self.jack.name, "--client-name", "desk",
             "--control-socket", self.socket, "--web", web],
            900, env=self.jack.env, stdout=subprocess.DEVNULL, stderr=open(self.log, "wb"))
        until = time.monotonic() + 30
        self.url = None
        while self.url is None:
            match = re.search(r"web desk: (http://\S+)", self.log.read_text(errors="replace"))
            if match:
                self.url = match.group(1)
            elif self.process.process.poll() is not None or time.monotonic() > until:
                raise RuntimeError(f"trellis run did not serve the desk:\n{self.log.read_text(errors='replace')}")
            else:
                time.sleep(0.05)
        self.base = self.url.split("?")[0]
        self.port = int(re.search(r":(\d+)/", self.base).group(1))
        self.token = self.url.split("token=")[1]

    def cookie(self):
        """Logs in with the token, as the page's URL does; returns the cookie it sets."""
        import http.client

        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        connection.request("GET", "/?token=" + self.token)
        response = connection.getresponse()
        assert response.status == 303, f"the token login answered {response.status}"
        return response.getheader("Set-Cookie").split(";")[0]

    def ctl(self, *words, deadline=20):
        status, out, err = run([TRELLIS, "ctl", self.socket, *words], deadline, env=self.jack.env)
        return status, out.decode(errors="replace").strip(), err.decode(errors="replace").strip()

    def ok(self, *words):
        status, out, err = self.ctl(*words)
        assert status == 0 and out.startswith("ok"), f"ctl {' '.join(words)}: {out} {err}"
        return out[2:].strip()

    def tap_peak(self, bus, seconds=0.3):
        """The peak (dBFS) of what `tap stream` carries from the bus for `seconds`."""
        status, out, err = run([TRELLIS, "ctl", self.socket, "tap", "stream", bus, "for", str(seconds)], 20, env=self.jack.env)
        assert status == 0, err
        samples = array("f")
        samples.frombytes(out[: len(out) // 4 * 4])
        assert len(samples) > 0, "the tap carried nothing"
        # The first cycles may come from before a change; judge the second half.
        peak = max(abs(x) for x in samples[len(samples) // 2:])
        return 20 * __import__("math").log10(peak) if peak > 0 else -160.0

    def alive(self):
        """True when the session runs and answers on its socket, with cycles advancing."""
        if self.process.process.poll() is not None:
            return False
        first = re.search(r"cycles=(\d+)", self.ctl("status")[1])
        time.sleep(0.2)
        second = re.search(r"cycles=(\d+)", self.ctl("status")[1])
        return bool(first and second and int(second.group(1)) > int(first.group(1)))

    def stop(self):
        status = self.process.stop()
        self.jack.stop()
        return status


def browser(width=1280, height=800):
    """Headless Chromium, Debian's, through its chromedriver."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}"]:
        options.add_argument(argument)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    # A headless window is at least 500 px wide: a phone's width is emulated, as a device.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
    driver.set_page_load_timeout(20)
    driver.set_script_timeout(20)
    return driver


def open_desk(driver, desk):
    """Opens the URL with its token and waits until the page has the session's graph."""
    driver.get(desk.url)
    until = time.monotonic() + 20
    while "ready" not in (driver.find_element("tag name", "body").get_attribute("class") or ""):
        assert time.monotonic() < until, "the desk did not become ready"
        time.sleep(0.05)


def steady(action, seconds=5):
    """Runs a browser action again when the page replaced the element meanwhile (the desk
    redraws its lists when the session changes)."""
    from selenium.common.exceptions import StaleElementReferenceException

    until = time.monotonic() + seconds
    while True:
        try:
            return action()
        except StaleElementReferenceException:
            if time.monotonic() > until:
                raise
            time.sleep(0.05)


def wait_for(condition, seconds=5, step=0.02):
    until = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > until:
            return value
        time.sleep(step)


class WebSocket:
    """A WebSocket client from RFC 6455: enough to send good and bad frames on purpose."""

    def __init__(self, port, path="/ws", headers=None, timeout=5):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Upgrade: websocket", "Connection: Upgrade",
                 f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                break
            response += chunk
        head, _, self.buffer = response.partition(b"\r\n\r\n")
        self.status = int(head.split(b" ")[1]) if head else 0

    def send_frame(self, payload, opcode=1, fin=True, mask=True, length=None):
        header = bytes([(0x80 if fin else 0) | opcode])
        size = len(payload) if length is None else length
        bit = 0x80 if mask else 0
        if size < 126:
            header += bytes([bit | size])
        elif size < 1 << 16:
            header += bytes([bit | 126]) + struct.pack(">H", size)
        else:
            header += bytes([bit | 127]) + struct.pack(">Q", size)
        if mask:
            key = os.urandom(4)
            header += key
            payload = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + payload)

    def send(self, text):
        self.send_frame(text.encode())

    def receive(self, timeout=5):
        """The next text message, or None when the server closed the connection."""
        self.sock.settimeout(timeout)
        while True:
            while len(self.buffer) < 2:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return None
                self.buffer += chunk
            opcode, size = self.buffer[0] & 0x0F, self.buffer[1] & 0x7F
            offset = 2
            if size == 126:
                size, offset = struct.unpack(">H", self.buffer[2:4])[0], 4
            elif size == 127:
                size, offset = struct.unpack(">Q", self.buffer[2:10])[0], 10
            while len(self.buffer) < offset + size:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return None
                self.buffer += chunk
            payload, self.buffer = self.buffer[offset:offset + size], self.buffer[offset + size:]
            if opcode == 8:
                return None
            if opcode == 1:
                return payload.decode()

    def reply(self, timeout=5):
        """The next reply (a JSON line without "event"), past any events; None when the
        server closed the connection. A message may hold several lines."""
        import json

        pending = getattr(self, "pending", [])
        while True:
            while pending:
                line = pending.pop(0)
                if "event" not in json.loads(line):
                    self.pending = pending
                    return line
            message = self.receive(timeout)
            if message is None:
                return None
            pending = [line for line in message.split("\n") if line]

    def close(self):
        self.sock.close()
