"""The exporter under abuse: concurrent scrapes, malformed and oversized
requests, clients that never finish a request and clients that close in
the middle of a response, all at once, for a few seconds. Prints
tapcheck-style lines (ok/fail/note TAB name TAB why): the process keeps
answering and its periods (samples + missed) keep growing at the
interval's rate while it goes on.

    http_abuse.py PORT INTERVAL_NS SECONDS
"""
import re
import socket
import sys
import threading
import time

port, interval_ns, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
lines = []


def say(status, name, why=""):
    lines.append("%s\t%s\t%s" % (status, name, why))


def check(name, cond, why=""):
    say("ok" if cond else "fail", name, "" if cond else why)


def scrape(timeout=5):
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
    head, _, body = data.partition(b"\r\n\r\n")
    return head.decode("latin-1"), body.decode("utf-8", "replace")


def periods(body):
    total = 0
    for name in ("jitterlab_samples_total", "jitterlab_missed_periods_total"):
        vals = re.findall(r"^%s\{[^}]*\} (\S+)$" % name, body, re.M)
        total += sum(float(v) for v in vals)
    return total


stop = time.monotonic() + seconds
counts = {"scrape_ok": 0, "scrape_err": 0, "slow": 0, "malformed": 0, "oversized": 0, "cut": 0}
lock = threading.Lock()


def bump(k):
    with lock:
        counts[k] += 1


def scraper():
    while time.monotonic() < stop:
        try:
            head, body = scrape()
            bump("scrape_ok" if head.startswith("HTTP/1.1 200") and "jitterlab_samples_total" in body else "scrape_err")
        except OSError:
            bump("scrape_err")  # refused by the connection limits: allowed


def slow_client():
    """Sends half a request line, then nothing, until the server gives up."""
    while time.monotonic() < stop:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.sendall(b"GET /metr")
            bump("slow")
            end = min(stop, time.monotonic() + 3)
            while time.monotonic() < end:
                time.sleep(0.2)
            s.close()
        except OSError:
            time.sleep(0.1)


BAD = [
    b"\x00\xff\xfe garbage \x01\x02\r\n\r\n",
    b"GET / HTTP/9.9\r\n\r\n",
    b"BREW /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /metrics HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
    b"GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"\r\n\r\n\r\n",
    b"GET " + b"/a" * 50000 + b" HTTP/1.1\r\n\r\n",
]


def malformed():
    k = 0
    while time.monotonic() < stop:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
                s.sendall(BAD[k % len(BAD)])
                try:
                    s.recv(4096)
                except OSError:
                    pass
            bump("malformed")
        except OSError:
            pass
        k += 1


def oversized():
    while time.monotonic() < stop:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
                s.sendall(b"GET /metrics HTTP/1.1\r\nX-Big: " + b"a" * 300000 + b"\r\n\r\n")
                try:
                    s.recv(4096)
                except OSError:
                    pass
            bump("oversized")
        except OSError:
            pass


def cut_mid_response():
    while time.monotonic() < stop:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            s.recv(100)
            # a reset, not a polite close
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.close()
            bump("cut")
        except OSError:
            pass


try:
    _, body0 = scrape()
    p0, t0 = periods(body0), time.monotonic()
except OSError as e:
    say("fail", "exporter answers before the abuse", str(e))
    print("\n".join(lines))
    sys.exit(0)
threads = [threading.Thread(target=f) for f in [scraper] * 8 + [slow_client] * 20 + [malformed] * 2 + [oversized] + [cut_mid_response] * 2]
for t in threads:
    t.start()
mid = []
while time.monotonic() < stop:
    time.sleep(1)
for t in threads:
    t.join()
time.sleep(0.3)
try:
    head, body1 = scrape()
    p1, t1 = periods(body1), time.monotonic()
except OSError as e:
    say("fail", "exporter answers after the abuse", str(e))
    print("\n".join(lines))
    sys.exit(0)
say("note", "abuse: %s" % counts)
check("concurrent scrapes answered during the abuse", counts["scrape_ok"] > 0, str(counts))
check("slow, malformed, oversized and cut clients were all tried",
      all(counts[k] > 0 for k in ("slow", "malformed", "oversized", "cut")), str(counts))
check("exporter answers 200 after the abuse", head.startswith("HTTP/1.1 200"), head[:80])
want = (t1 - t0) * 1e9 / interval_ns
got = p1 - p0
say("note", "periods during the abuse: %d over %.2f s (interval rate: %d)" % (got, t1 - t0, want))
# samples + missed counts planned periods exactly; the published copy lags
# by one drain pass (0.1 s) at either end
check("the run's periods grew at the interval rate during the abuse (within 0.25 s)",
      abs(got - want) <= 0.25e9 / interval_ns, "%d vs %d" % (got, want))
print("\n".join(lines))
