#!/usr/bin/env python3
"""Laravel Octane end to end: assembles a small Laravel 8 app around a laravel/octane checkout and
drives `php artisan octane:start --server=swoole` with real HTTP clients.

Usage:
  OCTANE_DIR=/path/to/octane-v1.5.6 python3 tests/frameworks/octane_check.py
  EXT_SO=/path/to/swoole.so ...   runs the same checks against another build (real Swoole)

Needs Debian's php-laravel-framework (`make deps-frameworks`). Octane's code is not part of this
repository: without OCTANE_DIR the check says it is skipped and exits 0. Prints one line per
check and a closing `N passed, N failed` line; exits non-zero when any check fails.
"""
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HOST = "127.0.0.1"

AUTOLOAD = r"""<?php
// vendor/autoload.php written by octane_check.py: Debian's Laravel, Octane and the app by PSR-4.
require_once '/usr/share/php/Illuminate/autoload.php';
require_once '/usr/share/php/Laravel/SerializableClosure/autoload.php';
spl_autoload_register(function ($class) {
    foreach (['Laravel\\Octane\\' => __DIR__.'/laravel/octane/src/', 'App\\' => dirname(__DIR__).'/app/'] as $prefix => $dir) {
        if (strncmp($class, $prefix, strlen($prefix)) === 0) {
            $file = $dir.str_replace('\\', '/', substr($class, strlen($prefix))).'.php';
            if (is_file($file)) {
                require $file;
            }
            return;
        }
    }
});
"""


def free_port():
    s = socket.socket()
    s.bind((HOST, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def port_open(port):
    try:
        socket.create_connection((HOST, port), timeout=0.5).close()
        return True
    except OSError:
        return False


def request(port, method, path, body=None, headers=None, timeout=10):
    c = http.client.HTTPConnection(HOST, port, timeout=timeout)
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, r.getheaders(), data


def multipart(field, filename, content):
    boundary = "rswOctaneBoundary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{filename}\"\r\n"
            f"Content-Type: application/octet-stream\r\n\r\n").encode() + content + f"\r\n--{boundary}--\r\n".encode()
    return body, {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def assemble(octane_dir, tmp):
    app = os.path.join(tmp, "app")
    shutil.copytree(os.path.join(HERE, "laravel"), app)
    for d in ["storage/app", "storage/logs", "storage/framework/cache/data", "storage/framework/views",
              "bootstrap/cache", "resources/views", "vendor/laravel"]:
        os.makedirs(os.path.join(app, d), exist_ok=True)
    os.symlink(os.path.abspath(octane_dir), os.path.join(app, "vendor/laravel/octane"))
    with open(os.path.join(app, "vendor/autoload.php"), "w") as f:
        f.write(AUTOLOAD)
    # Octane's own config file, with the server and a short watchdog for the 408 check.
    with open(os.path.join(octane_dir, "config/octane.php")) as f:
        cfg = f.read()
    cfg = cfg.replace("env('OCTANE_SERVER', 'roadrunner')", "'swoole'")
    cfg = cfg.replace("'max_execution_time' => 30", "'max_execution_time' => 2")
    with open(os.path.join(app, "config/octane.php"), "w") as f:
        f.write(cfg)
    return app


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, fn):
        try:
            detail = fn()
            self.passed += 1
            print(f"PASS {name}" + (f": {detail}" if detail else ""), flush=True)
        except Exception as e:  # noqa: BLE001 - every failure is reported, the run goes on
            self.failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def main():
    octane_dir = os.environ.get("OCTANE_DIR")
    if not octane_dir:
        print("octane_check: skipped: OCTANE_DIR is not set (a laravel/octane v1.5.6 checkout)")
        return 0
    if not os.path.exists("/usr/share/php/Illuminate/autoload.php"):
        print("octane_check: php-laravel-framework is missing: run `make deps-frameworks`")
        return 1
    so = os.environ.get("EXT_SO") or os.environ.get("RSWOOLE_SO") or os.path.join(ROOT, "target/release/librswoole.so")
    php = os.environ.get("PHP_BINARY", shutil.which("php") or "php")
    tmp = tempfile.mkdtemp(prefix="rsw_octane_")
    app = assemble(octane_dir, tmp)
    ini = os.path.join(tmp, "ini")
    os.makedirs(ini)
    with open(os.path.join(ini, "99-swoole.ini"), "w") as f:
        f.write(f"extension={so}\n" + os.environ.get("OCTANE_EXTRA_INI", ""))
    env = dict(os.environ)
    env["PHP_INI_SCAN_DIR"] = "/etc/php/8.2/cli/conf.d:" + ini
    env["OCTANE_TICK_FILE"] = os.path.join(tmp, "ticks.log")
    port = free_port()
    log = open(os.path.join(tmp, "octane.out"), "w")
    artisan = [php, os.path.join(app, "artisan")]
    server = subprocess.Popen(artisan + ["octane:start", "--server=swoole", f"--host={HOST}", f"--port={port}",
                                         "--workers=2", "--task-workers=2", "--max-requests=40"],
                              cwd=app, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                              start_new_session=True)
    c = Checks()
    try:
        deadline = time.time() + 20
        while time.time() < deadline and not port_open(port) and server.poll() is None:
            time.sleep(0.2)
        c.check("server starts", lambda: expect(port_open(port), "port never opened"))
        if not port_open(port):
            return finish(c, tmp, server, log)

        def text(path, want):
            st, _, body = request(port, "GET", path)
            expect(st == 200 and body.decode() == want, f"{st} {body[:200]!r}")

        def js(method, path, body=None, headers=None, status=200):
            st, hs, data = request(port, method, path, body, headers)
            expect(st == status, f"status {st}: {data[:300]!r}")
            return json.loads(data), hs

        c.check("GET / text", lambda: text("/", "hello from laravel"))
        c.check("GET /json", lambda: expect(js("GET", "/json")[0] == {"ok": True, "n": 42}, "body"))
        c.check("query string", lambda: expect(js("GET", "/query?x=1&y[]=a&y[]=b")[0]
                                               == {"x": "1", "all": {"x": "1", "y": ["a", "b"]}}, "body"))
        form = urllib.parse.urlencode([("name", "ann"), ("tags[]", "a"), ("tags[]", "b")])
        c.check("POST form", lambda: expect(js("POST", "/form", form, {"Content-Type": "application/x-www-form-urlencoded"})[0]
                                            == {"name": "ann", "tags": ["a", "b"]}, "body"))

        def cookies():
            st, hs, _ = request(port, "GET", "/cookie/set")
            set_cookie = [v for k, v in hs if k.lower() == "set-cookie" and v.startswith("flavour=")]
            expect(st == 200 and set_cookie, f"no flavour cookie in {hs}")
            jar = set_cookie[0].split(";")[0]
            got, _ = js("GET", "/cookie/get", headers={"Cookie": jar})
            expect(got == {"flavour": "oat"}, f"cookie read back as {got}")
        c.check("cookies (encrypted, set and read back)", cookies)

        def upload():
            content = os.urandom(50000)
            body, hs = multipart("doc", "report.bin", content)
            got, _ = js("POST", "/upload", body, hs)
            expect(got == {"name": "report.bin", "size": 50000, "stored": 50000}, f"{got}")
        c.check("upload stored with UploadedFile::storeAs", upload)

        def stream():
            st, hs, body = request(port, "GET", "/stream")
            expect(st == 200 and body == b"a\nb\nc\n", f"{st} {body!r}")
        c.check("streamed response", stream)

        def download():
            st, hs, body = request(port, "GET", "/download")
            disp = dict((k.lower(), v) for k, v in hs).get("content-disposition", "")
            expect(st == 200 and body == b"static file\n" and "file.txt" in disp, f"{st} {disp} {body!r}")
        c.check("download (sendfile)", download)

        def fail():
            st, _, body = request(port, "GET", "/fail")
            expect(st == 500, f"status {st}")
            text("/", "hello from laravel")
        c.check("exception answered 500, next request served", fail)

        def table():
            js("GET", "/table/a/alpha")
            seen = [js("GET", "/table/a")[0] for _ in range(12)]
            expect(all(s["row"] == {"name": "alpha", "votes": 1} for s in seen), f"{seen}")
            pids = {s["pid"] for s in seen}
            expect(len(pids) >= 2, f"every read reached one worker ({pids}): nothing shown to be shared")
        c.check("Octane::table() shared by the workers", table)

        def cache():
            js("GET", "/cache/put/v42")
            seen = [js("GET", "/cache/get")[0] for _ in range(12)]
            expect([s["v"] for s in seen] == ["v42"] * 12, f"{seen}")
            expect(len({s["pid"] for s in seen}) >= 2, f"every read reached one worker: {seen}")
        c.check("octane cache store shared by the workers", cache)

        def concurrently():
            got, _ = js("GET", "/concurrently")
            expect(got["a"] != got["worker"] and got["ms"] < 550, f"{got}")
            return f"{got['ms']} ms for two 300 ms tasks"
        c.check("Octane::concurrently() through task workers", concurrently)

        def ticks():
            time.sleep(2.5)
            with open(env["OCTANE_TICK_FILE"]) as f:
                n = len(f.read().split())
            expect(n >= 2, f"{n} ticks")
            return f"{n} ticks"
        c.check("Octane::tick() every second", ticks)

        def watchdog():
            t = time.time()
            st, _, body = request(port, "GET", "/slow/6", timeout=15)
            took = time.time() - t
            expect(st == 408 and took < 5, f"status {st} after {took:.1f}s")
            text("/", "hello from laravel")
            return f"408 after {took:.1f}s"
        c.check("max_execution_time watchdog answers 408 and the worker is replaced", watchdog)

        def max_requests():
            pids = set()
            # Each of the 2 workers gets every other connection, 100 in all: more than its limit
            # (40 plus up to Swoole's default grace of 20), so both are replaced at least once.
            for _ in range(200):
                pids.add(js("GET", "/pid")[0]["pid"])
            expect(len(pids) > 2, f"{len(pids)} worker pids for 200 requests with --max-requests=40")
            return f"{len(pids)} worker pids"
        c.check("--max-requests recycles workers", max_requests)

        def artisan_cmd(*args):
            return subprocess.run(artisan + list(args), cwd=app, env=env, capture_output=True, text=True, timeout=30)

        def status():
            r = artisan_cmd("octane:status", "--server=swoole")
            expect(r.returncode == 0 and "running" in r.stdout.lower(), f"{r.returncode} {r.stdout} {r.stderr}")
        c.check("octane:status", status)

        def reload():
            before = {js("GET", "/pid")[0]["pid"] for _ in range(10)}
            r = artisan_cmd("octane:reload", "--server=swoole")
            expect(r.returncode == 0, f"{r.returncode} {r.stdout} {r.stderr}")
            time.sleep(1.5)
            after = {js("GET", "/pid")[0]["pid"] for _ in range(10)}
            expect(not (before & after), f"same workers after reload: {before} {after}")
        c.check("octane:reload replaces the workers", reload)

        def stop():
            r = artisan_cmd("octane:stop", "--server=swoole")
            expect(r.returncode == 0, f"{r.returncode} {r.stdout} {r.stderr}")
            deadline = time.time() + 10
            while time.time() < deadline and port_open(port):
                time.sleep(0.2)
            expect(not port_open(port), "still listening")
        c.check("octane:stop", stop)
        return finish(c, tmp, server, log)
    except BaseException:
        finish(c, tmp, server, log)
        raise


def finish(c, tmp, server, log):
    try:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        try:
            os.killpg(server.pid, signal.SIGKILL)
        except OSError:
            pass
    log.close()
    if c.failed:
        with open(os.path.join(tmp, "octane.out")) as f:
            print("---- octane:start output (last 40 lines) ----")
            print("".join(f.readlines()[-40:]))
        applog = os.path.join(tmp, "app/storage/logs/laravel.log")
        if os.path.exists(applog):
            with open(applog) as f:
                print("---- laravel.log (last 30 lines) ----")
                print("".join(f.readlines()[-30:]))
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"\noctane: {c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
