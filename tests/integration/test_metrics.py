# The OpenMetrics endpoint, blocking-call detection and request deadlines (issue 18), against real servers.
"""Run with: RSWOOLE_SO=/path/to/librswoole.so python3 -m unittest discover -s tests/integration -p 'test_metrics.py' -v

Each test starts tests/integration/servers/metrics_server.php on free 127.0.0.1 ports in its own process
group and stops it by pid (then its group) in tearDown. Scrapes are parsed with prometheus_client's
text parser (Debian's python3-prometheus-client, or PyPI's prometheus_client).
"""

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:  # Debian's package, under a pyenv python
    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        text_string_to_metric_families = None

from test_http import HOST, ROOT, free_port, port_open, so_path

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "servers", "metrics_server.php")


def blocking_line():
    with open(SCRIPT) as f:
        for n, line in enumerate(f, 1):
            if "// BLOCKING-LINE" in line:
                return n
    raise AssertionError("marker not found")


class Server:
    def __init__(self, settings, ini=()):
        self.port = free_port()
        self.mport = free_port()
        self.log = tempfile.NamedTemporaryFile(prefix="rsw_metrics_", suffix=".log", delete=False)
        php = os.environ.get("PHP_BINARY", "php")
        cmd = [php, "-n", "-d", "extension=" + so_path(), "-d", "display_errors=stderr"]
        for i in ini:
            cmd += ["-d", i]
        cmd += [SCRIPT, str(self.port), str(self.mport), json.dumps(settings)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True, cwd=ROOT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is None and port_open(self.port) and port_open(self.mport):
                # Every worker up (the metrics show them idle).
                if self.wait_workers(settings.get("worker_num", 1), 5):
                    return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("server did not start; log:\n" + self.read_log())

    def wait_workers(self, n, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                idle = [s for s in self.samples("rswoole_worker_state") if s.labels["state"] == "idle" and s.value == 1]
                if len(idle) >= n:
                    return True
            except OSError:
                pass
            time.sleep(0.05)
        return False

    def scrape(self):
        c = http.client.HTTPConnection(HOST, self.mport, timeout=3)
        c.request("GET", "/metrics")
        r = c.getresponse()
        body = r.read().decode()
        c.close()
        assert r.status == 200, r.status
        return {f.name: f for f in text_string_to_metric_families(body)}

    def samples(self, family, name=None):
        f = self.scrape().get(family)
        if f is None:
            return []
        return [s for s in f.samples if name is None or s.name == name]

    def value(self, family, name=None, **labels):
        total = 0.0
        for s in self.samples(family, name):
            if all(s.labels.get(k) == v for k, v in labels.items()):
                total += s.value
        return total

    def get(self, path, timeout=6):
        t0 = time.monotonic()
        c = http.client.HTTPConnection(HOST, self.port, timeout=timeout)
        try:
            c.request("GET", path)
            r = c.getresponse()
            r.read()
            return r.status, time.monotonic() - t0
        finally:
            c.close()

    def read_log(self):
        with open(self.log.name, errors="replace") as f:
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=8)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=5)
        self.log.close()
        os.unlink(self.log.name)


@unittest.skipIf(text_string_to_metric_families is None, "prometheus_client is not installed")
class MetricsTest(unittest.TestCase):
    def start(self, settings, ini=()):
        s = Server(settings, ini)
        self.addCleanup(s.stop)
        return s

    def counts_under_load(self, mode):
        s = self.start({"worker_num": 2, "task_worker_num": 1, "_mode": mode,
                        "metrics_buckets": [0.001, 0.01, 0.1, 1]})
        threads, per, errors = 4, 100, []
        # The start-up probes (port_open) connected: count from when they are all counted and closed
        # (in PROCESS mode the worker counts a connection after the master handed it over).
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and (s.value("rswoole_accepts") < 1 or s.value("rswoole_connections") > 0):
            time.sleep(0.05)
        time.sleep(0.2)
        accepts0 = s.value("rswoole_accepts")

        def client():
            c = http.client.HTTPConnection(HOST, s.port, timeout=5)
            try:
                for _ in range(per):
                    c.request("GET", "/x")
                    r = c.getresponse()
                    r.read()
                    if r.status != 200:
                        errors.append(r.status)
            except Exception as e:  # noqa: BLE001 - any failure fails the test
                errors.append(repr(e))
            finally:
                c.close()

        ts = [threading.Thread(target=client) for _ in range(threads)]
        for t in ts:
            t.start()
        scrapes = 0
        while any(t.is_alive() for t in ts):
            fams = s.scrape()  # parses while load runs
            self.assertIn("rswoole_requests", fams)
            scrapes += 1
            time.sleep(0.02)
        for t in ts:
            t.join()
        self.assertEqual(errors, [])
        self.assertGreater(scrapes, 0)
        n = threads * per
        self.assertEqual(s.value("rswoole_requests"), n)
        self.assertEqual(s.value("rswoole_responses"), n)
        self.assertEqual(s.value("rswoole_worker_requests"), n)
        self.assertEqual(s.value("rswoole_accepts") - accepts0, threads)
        self.assertEqual(s.value("rswoole_connections"), 0)
        self.assertEqual(s.value("rswoole_request_duration_seconds", "rswoole_request_duration_seconds_count"), n)
        self.assertEqual(s.value("rswoole_request_duration_seconds", "rswoole_request_duration_seconds_bucket",
                                 le="+Inf"), n)
        les = [x.labels["le"] for x in s.samples("rswoole_request_duration_seconds",
                                                 "rswoole_request_duration_seconds_bucket")]
        self.assertEqual(les, ["0.001", "0.01", "0.1", "1.0", "+Inf"])
        # Each request line is "GET /x HTTP/1.1" plus a few headers: > 30 bytes each way.
        self.assertGreater(s.value("rswoole_received_bytes"), 30 * n)
        self.assertGreater(s.value("rswoole_sent_bytes"), 30 * n)
        self.assertEqual(s.value("rswoole_table_rows", table="0"), 3)
        self.assertEqual(s.value("rswoole_table_size", table="0"), 64)
        self.assertEqual(s.value("rswoole_task_queue_depth"), 0)
        rss = [x.value for x in s.samples("rswoole_worker_rss_bytes")]
        self.assertTrue(rss and all(v > 1 << 20 for v in rss), rss)

    def test_counts_under_load_base(self):
        self.counts_under_load("base")

    def test_counts_under_load_process(self):
        self.counts_under_load("process")

    def test_spinning_worker_is_busy_with_growing_lag(self):
        s = self.start({"worker_num": 1})
        sock = socket.create_connection((HOST, s.port))
        self.addCleanup(sock.close)
        sock.sendall(b"GET /spin HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(1.5)
        busy1 = s.value("rswoole_worker_state", state="busy")
        lag1 = s.value("rswoole_worker_loop_lag_seconds")
        time.sleep(1.5)
        busy2 = s.value("rswoole_worker_state", state="busy")
        lag2 = s.value("rswoole_worker_loop_lag_seconds")
        self.assertEqual((busy1, busy2), (1, 1))
        self.assertGreater(lag1, 0.2)
        self.assertGreater(lag2, lag1 + 1.0)
        self.assertEqual(s.value("rswoole_worker_inflight_requests"), 1)

    def test_blocking_usleep_logs_the_handler_line(self):
        s = self.start({"worker_num": 1}, ini=["swoole.blocking_detection=On", "swoole.blocking_threshold=100000"])
        status, took = s.get("/usleep")
        self.assertEqual(status, 200)
        self.assertGreaterEqual(took, 0.3)
        line = blocking_line()
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and "PHP stack" not in s.read_log():
            time.sleep(0.05)
        log = s.read_log()
        self.assertRegex(log, r"event loop has been blocked for \d+ ms")
        self.assertIn("metrics_server.php:%d {closure}()" % line, log)
        self.assertGreaterEqual(s.value("rswoole_blocked"), 1)
        self.assertGreaterEqual(s.value("rswoole_worker_blocked"), 1)
        # A quick request blocks nothing.
        before = s.value("rswoole_blocked")
        self.assertEqual(s.get("/x")[0], 200)
        time.sleep(0.3)
        self.assertEqual(s.value("rswoole_blocked"), before)

    def deadlines(self, mode):
        s = self.start({"worker_num": 2, "_mode": mode, "request_timeout": 1})
        for path in ["/co", "/block", "/spin"]:
            status, took = s.get(path)
            self.assertEqual(status, 504, path)
            self.assertGreater(took, 0.9, path)
            self.assertLess(took, 2.5, path)
            self.assertTrue(s.wait_workers(2, 5), path)
            if path == "/co":
                # Its coroutine was woken at the deadline, not 3 s later: it went on and added a row.
                deadline = time.monotonic() + 0.8
                while time.monotonic() < deadline and s.value("rswoole_table_rows") < 4:
                    time.sleep(0.05)
                self.assertEqual(s.value("rswoole_table_rows"), 4)
        self.assertEqual(s.value("rswoole_request_timeouts"), 3)
        # The two handlers running PHP were interrupted: their workers were replaced.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and s.value("rswoole_worker_restarts") < 2:
            time.sleep(0.05)  # the old worker is reaped after its replacement is up
        self.assertEqual(s.value("rswoole_worker_restarts"), 2)
        # One or two worker ids, each last replaced for request_timeout.
        self.assertGreaterEqual(s.value("rswoole_worker_last_restart", reason="request_timeout"), 1)
        self.assertEqual(s.get("/x")[0], 200)
        self.assertIn("Maximum execution time of 1 second exceeded (request_timeout)", s.read_log())

    def test_other_requests_of_an_interrupted_worker_are_answered(self):
        s = self.start({"worker_num": 1, "request_timeout": 1})
        results = {}

        def req(path, delay):
            time.sleep(delay)
            try:
                results[path] = s.get(path, timeout=6)
            except Exception as e:  # noqa: BLE001
                results[path] = (repr(e), 0)

        ts = [threading.Thread(target=req, args=a) for a in [("/co", 0), ("/spin", 0.3), ("/x", 0.6)]]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        # /co passed its deadline while /spin held the loop: 504. /spin was interrupted for it: 503
        # as the worker is replaced. /x connected while the loop was stuck: still queued on the
        # listening socket, the replacement serves it (200); never dropped.
        self.assertEqual(results["/co"][0], 504, results)
        self.assertEqual(results["/spin"][0], 503, results)
        self.assertIn(results["/x"][0], (200, 503), results)
        for path, (status, took) in results.items():
            self.assertLess(took, 2.5, (path, results))
        self.assertTrue(s.wait_workers(1, 5))
        self.assertEqual(s.get("/x")[0], 200)

    def test_deadlines_base(self):
        self.deadlines("base")

    def test_deadlines_process(self):
        self.deadlines("process")


if __name__ == "__main__":
    unittest.main()
