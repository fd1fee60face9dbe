"""Bad input at the web desk's door: malformed and oversized frames, a thousand
connections, a page that never reads, a client that sends its headers slowly, a JSON
bomb, and random requests. After each the session plays on (its cycles advance) and
answers `trellis ctl`."""

import http.client
import json
import random
import socket
import time

import pytest

from rig import Desk, WebSocket, wait_for

SESSION = """version: 1
defaults: { sample-rate: 48000, block-size: 256 }
nodes:
  tone1: { unit: tone, parameters: { freq: 440, amp: 0.25 } }
  trim: { unit: gain }
  out: output
connections:
  - tone1 -> trim -> out
"""


@pytest.fixture(scope="module")
def desk():
    desk = Desk(SESSION)
    yield desk
    assert desk.alive(), "the session stopped playing or answering"
    desk.stop()


def page(desk):
    client = WebSocket(desk.port, headers={"Cookie": desk.cookie()})
    assert client.status == 101
    return client


def test_bye_is_answered_and_then_the_page_is_closed(desk):
    client = page(desk)
    client.send(json.dumps({"id": 1, "command": "bye"}))
    assert json.loads(client.reply(10))["result"] == "bye"
    assert client.receive(10) is None
    client.close()


def test_an_oversized_message_closes_that_page_only(desk):
    client = page(desk)
    client.send("x" * (64 * 1024 + 1))
    assert client.receive(10) is None
    client.close()
    assert desk.alive()


def test_malformed_frames_close_that_page_only(desk):
    closing = [
        lambda c: c.send_frame(b"\xff\xfe not utf-8"),  # text that is not UTF-8
        lambda c: c.send_frame(b"abc", opcode=3),  # a reserved opcode
        lambda c: c.send_frame(b"\x00\x01", opcode=2),  # binary: the desk speaks text
        lambda c: c.send_frame(b"", length=1 << 40),  # a length over the limit
    ]
    for send in closing:
        client = page(desk)
        send(client)
        try:
            assert client.receive(10) is None
        except ConnectionResetError:
            pass
        client.close()
    rng = random.Random(1)
    for _ in range(20):
        client = page(desk)
        client.sock.sendall(bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 2048))))
        try:
            reply = client.receive(10)
            assert reply is None or "ok" in json.loads(reply)
        except (socket.timeout, ConnectionResetError, ValueError):
            pass
        client.close()
    assert desk.alive()


def test_a_json_bomb_is_answered_with_an_error(desk):
    client = page(desk)
    client.send("[" * 30000 + "]" * 30000)
    reply = client.reply(10)
    assert reply is not None and json.loads(reply)["error"]["code"] == "SYNTAX"
    client.send(json.dumps({"id": 2, "command": "status"}))
    assert json.loads(client.reply(10))["ok"]
    client.close()
    assert desk.alive()


def test_a_page_that_never_reads_is_closed_and_costs_nothing_else(desk):
    client = page(desk)
    client.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.send(json.dumps({"id": "w", "command": "watch meters=tone1,trim rate=100 events=parameter"}))
    # Flood it with replies too, and never read.
    for index in range(200):
        client.send(json.dumps({"id": index, "command": "describe"}))
    started = time.monotonic()
    assert desk.alive()
    status, out, _ = desk.ctl("set", "trim", "gain", "-3")
    assert status == 0 and time.monotonic() - started < 5
    closed = wait_for(lambda: _closed(client), 30, 0.5)
    assert closed, "a page that never reads was kept open"
    desk.ok("set", "trim", "gain", "0")


def _closed(client):
    return _socket_closed(client.sock)


def _socket_closed(sock):
    try:
        sock.settimeout(0.1)
        while True:
            chunk = sock.recv(1 << 20)
            if not chunk:
                return True
    except socket.timeout:
        return False
    except OSError:
        return True


def test_a_thousand_connections_leave_the_session_answering(desk):
    held = []
    try:
        for _ in range(1000):
            try:
                held.append(socket.create_connection(("127.0.0.1", desk.port), timeout=2))
            except OSError:
                break
        assert len(held) >= 500
        assert desk.alive()
        assert desk.ok("get", "trim", "gain")
    finally:
        for sock in held:
            sock.close()
    # The desk serves again once they are gone.
    assert wait_for(lambda: _status(desk) == 401, 20, 0.5)


def _other_address():
    """An IPv4 address of this machine that is not loopback, as a peer elsewhere would be."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # no packet is sent: only the route is looked up
        return probe.getsockname()[0]
    finally:
        probe.close()


def test_one_other_host_holds_at_most_32_connections_and_loopback_is_served():
    address = _other_address()
    assert not address.startswith("127."), f"this machine has no address but loopback ({address})"
    network = Desk(SESSION, web="0.0.0.0:0")
    held = []
    try:
        for _ in range(40):
            held.append(socket.create_connection((address, network.port), timeout=2))
        time.sleep(0.5)
        closed = [sock for sock in held if _socket_closed(sock)]
        assert len(closed) == 8, f"{len(closed)} of 40 connections from {address} were closed at once"
        # Loopback is not that host: the page is answered.
        assert _status(network) == 401
        assert network.ok("get", "trim", "gain")
    finally:
        for sock in held:
            sock.close()
        network.stop()


def _status(desk):
    try:
        connection = http.client.HTTPConnection("127.0.0.1", desk.port, timeout=2)
        connection.request("GET", "/")
        return connection.getresponse().status
    except OSError:
        return None


def test_a_client_sending_its_headers_slowly_is_closed(desk):
    sock = socket.create_connection(("127.0.0.1", desk.port), timeout=2)
    sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    started = time.monotonic()
    closed = False
    while time.monotonic() - started < 30:
        try:
            sock.sendall(b"X-Slow: a\r\n")
        except OSError:
            closed = True
            break
        if _closed(Held(sock)):
            closed = True
            break
        time.sleep(1)
    assert closed, "a slow-headers client was kept open for 30 s"
    assert desk.alive()


class Held:
    """A plain socket where `_closed` expects a client."""

    def __init__(self, sock):
        self.sock = sock


def test_random_requests_are_answered_or_refused(desk):
    client = page(desk)
    words = ["set", "get", "add", "remove", "connect", "watch", "params", "units", "describe", "takes", "trim", "gain",
             "tone1", "-6", "1e309", "nan", '"', ";", "{", "lv2:", "x" * 300, "\u00e9", "undo", "preset", "record"]
    rng = random.Random(37)
    for index in range(300):
        kind = rng.random()
        if kind < 0.6:
            line = json.dumps({"id": index, "command": " ".join(rng.choice(words) for _ in range(rng.randint(0, 6)))})
        elif kind < 0.8:
            line = json.dumps({"id": index, "command": rng.choice(words), "args": [rng.choice([1, -1.5, "x", None, [], {}]) for _ in range(3)]})
        else:
            good = json.dumps({"id": index, "command": "status"})
            cut = rng.randint(0, len(good))
            line = good[:cut] + rng.choice(["", "}", "\"", "\\u0000", "]"]) + good[cut:]
        client.send(line)
        reply = client.reply(10)
        assert reply is not None, f"no reply to {line!r}"
        assert json.loads(reply)["id"] in (index, None)
    client.close()
    assert desk.alive()
