# Process-model tests (BASE and PROCESS modes): graceful reload under load, max_request, max_worker_memory, kill -9, daemonize, stats().
"""Run with: RSWOOLE_SO=/path/to/librswoole.so python3 -m unittest discover -s tests/integration -p 'test_process.py' -v

Every server is tests/integration/servers/process_server.php on a free 127.0.0.1 port, in its own process
group, stopped by pid in tearDown (the daemonized one by the pid in its pid_file). Every wait is bounded.
The load client never retries a request: any exception or non-200 answer is a failure.
"""

import http.client
import json
import os
import signal
import socket
import tempfile
import threading
import time
import unittest

from test_http import HOST, ROOT, ServerProcess, free_port, port_open, so_path

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "servers", "process_server.php")

HANDLER = """<?php
return function ($req, $resp, $server) {
    $resp->end('%s ' . getmypid());
};
"""

LEAKY_HANDLER = """<?php
return function ($req, $resp, $server) {
    // Leaks 4 MiB per request on purpose.
    $GLOBALS['leak'][] = str_repeat(chr(65 + count($GLOBALS['leak'] ?? []) %% 26), 4 << 20);
    $resp->end('%s ' . getmypid());
};
"""

STATS_HANDLER = """<?php
return function ($req, $resp, $server) {
    if ($req->server['request_uri'] === '/stats') {
        $resp->header('Content-Type', 'application/json');
        $resp->end(json_encode($server->stats()));
        return;
    }
    $resp->end(str_repeat('x', (int) ($req->get['n'] ?? 10)));
};
"""


def wait_until(cond, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return bool(cond())


def pid_alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


class Load:
    """`conns` threads, each with one keep-alive http.client connection, sending GETs back to back."""

    def __init__(self, port, conns=20, path="/"):
        self.port, self.path = port, path
        self.stop_ev = threading.Event()
        self.lock = threading.Lock()
        self.ok = 0
        self.failures = []  # (time, error, pid of the last answer on that connection)
        self.answers = []  # (time, body) for every answer
        self.threads = [threading.Thread(target=self.run, daemon=True) for _ in range(conns)]

    def start(self):
        for t in self.threads:
            t.start()
        return self

    def run(self):
        conn = http.client.HTTPConnection(HOST, self.port, timeout=5)
        last_pid = None
        while not self.stop_ev.is_set():
            try:
                conn.request("GET", self.path)
                r = conn.getresponse()
                body = r.read().decode()
                if r.status != 200:
                    raise RuntimeError("status %d" % r.status)
                last_pid = int(body.split()[-1])
                with self.lock:
                    self.ok += 1
                    self.answers.append((time.monotonic(), body))
            except Exception as e:  # no retry: a failure is a failure
                with self.lock:
                    self.failures.append((time.monotonic(), repr(e), last_pid))
                conn.close()
                conn = http.client.HTTPConnection(HOST, self.port, timeout=5)
        conn.close()

    def stop(self):
        self.stop_ev.set()
        for t in self.threads:
            t.join(10)


class ProcessTestBase(unittest.TestCase):
    MODE = "base"

    def start_server(self, settings, handler_src, start_timeout=10.0):
        self.tmp = tempfile.mkdtemp(prefix="rsw_proc_")
        self.handler = os.path.join(self.tmp, "handler.php")
        self.events_file = os.path.join(self.tmp, "events.log")
        self.write_handler(handler_src)
        open(self.events_file, "w").close()
        settings = dict({"log_level": 2, "_mode": self.MODE}, **settings)
        self.server = ServerProcess(SCRIPT, [json.dumps(settings), self.handler, self.events_file],
                                    start_timeout=start_timeout)
        self.addCleanup(self.cleanup)
        n = settings.get("worker_num", 1)
        self.assertTrue(wait_until(lambda: len(self.events("workerStart")) >= n, 10), self.server.read_log())
        return self.server

    def write_handler(self, src):
        tmp = self.handler + ".tmp"
        with open(tmp, "w") as f:
            f.write(src)
        os.rename(tmp, self.handler)  # atomic: a worker never includes half a file

    def cleanup(self):
        self.server.cleanup()
        for name in os.listdir(self.tmp):
            os.unlink(os.path.join(self.tmp, name))
        os.rmdir(self.tmp)

    def events(self, kind=None):
        with open(self.events_file) as f:
            rows = [line.split() for line in f if line.strip()]
        return [r for r in rows if kind is None or r[0] == kind]

    def worker_pids(self):
        return {int(r[1]) for r in self.events("workerStart")}

    def manager_pid(self):
        """The process that supervises the workers: the master in BASE mode, its child in PROCESS mode."""
        return int(self.events("managerStart")[0][1])


class ReloadTest(ProcessTestBase):
    def test_reload_twice_under_load_zero_failures(self):
        srv = self.start_server({"worker_num": 2, "max_wait_time": 3, "_tick": True}, HANDLER % "v1")
        load = Load(srv.port, conns=20).start()
        t0 = time.monotonic()
        try:
            time.sleep(1.5)
            first_gen = self.worker_pids()
            self.write_handler(HANDLER % "v2")
            os.kill(srv.proc.pid, signal.SIGUSR1)
            self.assertTrue(wait_until(lambda: len(self.events("afterReload")) >= 1, 6), srv.read_log())
            t_reload1 = time.monotonic()
            second_gen = self.worker_pids() - first_gen
            time.sleep(max(0.0, 3.5 - (time.monotonic() - t0)))
            self.write_handler(HANDLER % "v3")
            t_sig2 = time.monotonic()
            os.kill(srv.proc.pid, signal.SIGUSR1)
            self.assertTrue(wait_until(lambda: len(self.events("afterReload")) >= 2, 6), srv.read_log())
            t_reload2 = time.monotonic()
            time.sleep(max(0.5, 6.0 - (time.monotonic() - t0)))
        finally:
            load.stop()
        log = srv.read_log()
        self.assertEqual(load.failures, [], log)
        self.assertGreater(load.ok, 500)
        if os.environ.get("RSW_VERBOSE"):
            print("\n  %d requests, %d failures, reload 1 took %.2fs, reload 2 took %.2fs"
                  % (load.ok, len(load.failures), t_reload1 - t0 - 1.5, t_reload2 - t_sig2))
        # Answers that started after each reload ended come from the new code only.
        after1 = {b.split()[0] for t, b in load.answers if t_reload1 + 0.05 < t < t_sig2}
        after2 = {b.split()[0] for t, b in load.answers if t > t_reload2 + 0.05}
        self.assertTrue(after1 <= {"v2", "v3"} and "v2" in after1, after1)
        self.assertEqual(after2, {"v3"})
        self.assertEqual(len(second_gen), 2, self.events())
        self.assertEqual(len(self.events("beforeReload")), 2)
        # Every worker that was replaced ran workerStop and workerExit (its
        # timer, "_tick", makes workerExit certain; read
        # once they are gone: the last may log just before it exits).
        old = first_gen | second_gen
        self.assertEqual(len(old), 4)
        self.assertTrue(wait_until(lambda: not any(pid_alive(p) for p in old), 3))
        stopped = {int(r[1]) for r in self.events("workerStop")}
        exited = {int(r[1]) for r in self.events("workerExit")}
        self.assertTrue(old <= stopped and old <= exited, (old, stopped, exited))
        self.assertEqual(self.events("workerError"), [])
        # Reload events run in the manager (the master itself in BASE mode).
        manager = str(self.manager_pid())
        if self.MODE == "base":
            self.assertEqual(manager, str(srv.proc.pid))
        else:
            self.assertNotEqual(manager, str(srv.proc.pid))
        self.assertEqual({r[1] for r in self.events("beforeReload") + self.events("afterReload")}, {manager})

    def test_reload_from_a_worker_and_sigusr2(self):
        src = """<?php
return function ($req, $resp, $server) {
    if ($req->server['request_uri'] === '/reload') {
        $resp->end(var_export($server->reload(), true) . ' ' . getmypid());
        return;
    }
    $resp->end('%s ' . getmypid());
};
"""
        srv = self.start_server({"worker_num": 1}, src % "v1")
        os.kill(srv.proc.pid, signal.SIGUSR2)  # task workers only: there are none, nothing happens
        time.sleep(0.3)
        self.assertEqual(self.events("beforeReload"), [])
        self.write_handler(src % "v2")
        c = http.client.HTTPConnection(HOST, srv.port, timeout=5)
        c.request("GET", "/reload")
        self.assertTrue(c.getresponse().read().decode().startswith("true "))
        c.close()
        self.assertTrue(wait_until(lambda: len(self.events("afterReload")) == 1, 6), srv.read_log())
        c = http.client.HTTPConnection(HOST, srv.port, timeout=5)
        c.request("GET", "/")
        self.assertTrue(c.getresponse().read().decode().startswith("v2 "))
        c.close()
        self.assertIn("no task workers to reload", srv.read_log())


class RecycleTest(ProcessTestBase):
    def test_max_request_recycles_under_load(self):
        srv = self.start_server({"worker_num": 2, "max_request": 100, "_tick": True}, HANDLER % "v1")
        load = Load(srv.port, conns=20).start()
        try:
            time.sleep(3.0)
        finally:
            load.stop()
        log = srv.read_log()
        self.assertEqual(load.failures, [], log)
        pids = self.worker_pids()
        # Each worker serves 100..150 requests (max_request_grace defaults to 50), plus what it
        # answers on its keep-alive connections while its replacement starts (under this load
        # 10-50 more).
        self.assertGreaterEqual(len(pids), load.ok // 200, (load.ok, len(pids)))
        self.assertGreater(len(pids), 4)
        self.assertTrue(wait_until(lambda: len({p for p in pids if pid_alive(p)}) == 2, 5))
        gone = {p for p in pids if not pid_alive(p)}
        # Read the events after the workers are gone: the last one may have
        # logged workerStop/workerExit just before exiting.
        stopped = {int(r[1]) for r in self.events("workerStop")}
        exited = {int(r[1]) for r in self.events("workerExit")}
        self.assertTrue(gone <= stopped and gone <= exited, (gone, stopped, exited))
        self.assertIn("max_request reached", log)
        self.assertEqual(self.events("workerError"), [])

    def test_max_worker_memory_recycles_a_leaking_worker(self):
        srv = self.start_server({"worker_num": 1, "max_worker_memory": "64M"}, LEAKY_HANDLER % "v1")
        first = self.worker_pids()
        pids_seen = set()
        for _ in range(40):
            c = http.client.HTTPConnection(HOST, srv.port, timeout=5)
            c.request("GET", "/")
            r = c.getresponse()
            self.assertEqual(r.status, 200)
            pids_seen.add(int(r.read().decode().split()[1]))
            c.close()
        log = srv.read_log()
        self.assertIn("max_worker_memory exceeded", log)
        self.assertGreaterEqual(len(pids_seen), 2, log)
        self.assertGreater(len(self.worker_pids() - first), 0)
        self.assertEqual(self.events("workerError"), [])


class CrashTest(ProcessTestBase):
    def test_kill9_worker_is_replaced_and_others_unaffected(self):
        srv = self.start_server({"worker_num": 2}, HANDLER % "v1")
        load = Load(srv.port, conns=20).start()
        try:
            time.sleep(1.0)
            victim = sorted(self.worker_pids())[0]
            victim_id = [r[2] for r in self.events("workerStart") if int(r[1]) == victim][0]
            os.kill(victim, signal.SIGKILL)
            t_kill = time.monotonic()
            self.assertTrue(wait_until(lambda: len(self.events("workerStart")) >= 3, 1.0), srv.read_log())
            replaced_in = time.monotonic() - t_kill
            time.sleep(1.5)
        finally:
            load.stop()
        # Only connections the dead worker owned may fail; the other worker's never do.
        others = [f for f in load.failures if f[2] != victim]
        self.assertEqual(others, [], load.failures)
        self.assertLess(replaced_in, 1.0)
        new = [r for r in self.events("workerStart") if int(r[1]) != victim and r[2] == victim_id]
        self.assertTrue(new)
        errs = self.events("workerError")
        self.assertEqual(len(errs), 1, errs)
        # workerError (in the manager): its pid, worker id, worker pid, exit code, signal
        self.assertEqual(errs[0][1:], [str(self.manager_pid()), victim_id, str(victim), "0", "9"])
        self.assertIn("abnormal exit, status=0, signal=9", srv.read_log())
        # The server keeps serving after the crash.
        t_after = time.monotonic() - 0.5
        self.assertTrue(any(t > t_after for t, _ in load.answers))


class ShutdownTest(ProcessTestBase):
    def test_before_shutdown_then_shutdown_and_exit_zero(self):
        srv = self.start_server({"worker_num": 2}, HANDLER % "v1")
        code = srv.stop()
        self.assertEqual(code, 0, srv.read_log())
        kinds = [r[0] for r in self.events()]
        self.assertIn("beforeShutdown", kinds)
        self.assertLess(kinds.index("beforeShutdown"), kinds.index("workerStop"))
        self.assertEqual(kinds[-1], "shutdown")

    def test_second_sigterm_forces_exit(self):
        src = """<?php
return function ($req, $resp, $server) {
    // 20 s in PHP, whatever signals arrive (a bare sleep() returns at the SIGTERM, and the idle
    // connection then goes back to the master, so the worker would exit at once).
    $end = microtime(true) + 20;
    while (($left = $end - microtime(true)) > 0) {
        usleep((int) (min($left, 0.1) * 1e6));
    }
    $resp->end('late');
};
"""
        srv = self.start_server({"worker_num": 1, "max_wait_time": 30}, src)
        s = socket.create_connection((HOST, srv.port), timeout=5)
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(0.3)
        os.kill(srv.proc.pid, signal.SIGTERM)
        time.sleep(0.3)
        self.assertIsNone(srv.proc.poll())
        t = time.monotonic()
        os.kill(srv.proc.pid, signal.SIGTERM)
        srv.proc.wait(timeout=5)
        self.assertLess(time.monotonic() - t, 3)
        s.close()
        self.assertIn("second stop signal", srv.read_log())

    def test_daemonize_pid_file_then_sigterm_leaves_nothing(self):
        tmp = tempfile.mkdtemp(prefix="rsw_daemon_")
        self.tmp = tmp
        self.handler = os.path.join(tmp, "handler.php")
        self.events_file = os.path.join(tmp, "events.log")
        pid_file = os.path.join(tmp, "server.pid")
        log_file = os.path.join(tmp, "server.log")
        self.write_handler(HANDLER % "d1")
        open(self.events_file, "w").close()
        port = free_port()
        settings = {"worker_num": 2, "daemonize": True, "pid_file": pid_file, "log_file": log_file,
                    "_mode": self.MODE}
        php = os.environ.get("PHP_BINARY", "php")
        import subprocess
        pids = []

        def kill_all():
            for p in pids:
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
            for name in os.listdir(tmp):
                os.unlink(os.path.join(tmp, name))
            os.rmdir(tmp)
        self.addCleanup(kill_all)
        proc = subprocess.run([php, "-n", "-d", "extension=" + so_path(), SCRIPT, str(port), json.dumps(settings),
                               self.handler, self.events_file], stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=10, cwd=ROOT)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        # The file appears before its content is written: wait for a whole line.
        def pid_written():
            try:
                with open(pid_file) as f:
                    return f.read().endswith("\n")
            except OSError:
                return False
        self.assertTrue(wait_until(pid_written, 5))
        with open(pid_file) as f:
            master = int(f.read().strip())
        pids.append(master)
        self.assertTrue(wait_until(lambda: len(self.events("workerStart")) >= 2, 5))
        pids.extend(self.worker_pids())
        pids.append(self.manager_pid())
        self.assertTrue(port_open(port))
        c = http.client.HTTPConnection(HOST, port, timeout=5)
        c.request("GET", "/")
        self.assertTrue(c.getresponse().read().decode().startswith("d1 "))
        c.close()
        # The daemon is in its own session, detached from ours.
        self.assertNotEqual(os.getsid(master), os.getsid(0))
        os.kill(master, signal.SIGTERM)
        self.assertTrue(wait_until(lambda: not any(pid_alive(p) for p in pids), 8))
        self.assertFalse(os.path.exists(pid_file))
        self.assertFalse(port_open(port))
        self.assertEqual(self.events()[-1][0], "shutdown")


class StatsTest(ProcessTestBase):
    @staticmethod
    def read_response(f):
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            ch = f.read(1)
            if not ch:
                raise ConnectionError("closed")
            head += ch
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        body = f.read(length)
        return head + body, body

    def test_stats_match_the_traffic_sent(self):
        srv = self.start_server({"worker_num": 1}, STATS_HANDLER)
        # Let the readiness probe's connection be counted and closed first.
        time.sleep(0.3)
        sc = socket.create_connection((HOST, srv.port), timeout=5)
        sf = sc.makefile("rb")
        stats_req = b"GET /stats HTTP/1.1\r\nHost: x\r\n\r\n"
        sc.sendall(stats_req)
        raw1, body1 = self.read_response(sf)
        s1 = json.loads(body1)
        sent = recv = 0
        n_conns, n_reqs = 5, 10
        for i in range(n_conns):
            c = socket.create_connection((HOST, srv.port), timeout=5)
            f = c.makefile("rb")
            for j in range(n_reqs):
                req = ("GET /data?n=%d HTTP/1.1\r\nHost: x\r\n\r\n" % (100 * i + j)).encode()
                c.sendall(req)
                sent += len(req)
                raw, body = self.read_response(f)
                self.assertEqual(len(body), 100 * i + j)
                recv += len(raw)
            f.close()
            c.close()
        time.sleep(0.3)  # the server sees the five closes
        sc.sendall(stats_req)
        raw2, body2 = self.read_response(sf)
        s2 = json.loads(body2)
        sf.close()
        sc.close()
        for key in ["start_time", "connection_num", "abort_count", "accept_count", "close_count", "worker_num",
                    "task_worker_num", "idle_worker_num", "request_count", "dispatch_count",
                    "total_recv_bytes", "total_send_bytes", "worker_request_count", "worker_dispatch_count",
                    "coroutine_num", "workers"]:
            self.assertIn(key, s2)
        # Swoole lists the task counters only with task workers.
        self.assertNotIn("tasking_num", s2)
        d = {k: s2[k] - s1[k] for k in s2 if isinstance(s2[k], int)}
        self.assertEqual(d["request_count"], n_conns * n_reqs + 1)
        self.assertEqual(d["dispatch_count"], n_conns * n_reqs + 1)
        self.assertEqual(d["worker_request_count"], n_conns * n_reqs + 1)
        self.assertEqual(d["accept_count"], n_conns)
        self.assertEqual(d["close_count"], n_conns)
        self.assertEqual(d["abort_count"], 0)
        self.assertEqual(s2["connection_num"], 1)
        self.assertEqual(d["total_recv_bytes"], sent + len(stats_req))
        self.assertEqual(d["total_send_bytes"], recv + len(raw1))
        self.assertEqual(s2["worker_num"], 1)
        self.assertLessEqual(abs(s2["start_time"] - time.time()), 30)
        self.assertEqual(len(s2["workers"]), 1)
        w = s2["workers"][0]
        self.assertEqual(w["worker_id"], 0)
        self.assertEqual(w["request_count"], s2["worker_request_count"])
        self.assertGreater(w["rss"], 1 << 20)


# The same tests in SWOOLE_PROCESS mode: the master accepts on its reactor
# threads and hands connections to the workers; a manager process runs them.
class ProcessModeReloadTest(ReloadTest):
    MODE = "process"


class ProcessModeRecycleTest(RecycleTest):
    MODE = "process"


class ProcessModeCrashTest(CrashTest):
    MODE = "process"


class ProcessModeShutdownTest(ShutdownTest):
    MODE = "process"


class ProcessModeStatsTest(StatsTest):
    MODE = "process"


if __name__ == "__main__":
    unittest.main()
