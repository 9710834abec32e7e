//! Engine tests without PHP: a worker serving real TCP clients through a
//! plain-Rust `Hooks`, covering keep-alive, pipelining, HEAD, 100-continue,
//! chunked bodies, 413, 400, a vanished client and an unanswered request.

use std::cell::RefCell;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::rc::Rc;
use std::time::Duration;

use bytes::Bytes;
use rswoole::engine::config::ServerConfig;
use rswoole::engine::hooks::{Hooks, Outcome};
use rswoole::engine::http::{HttpRequest, Responder};
use rswoole::engine::net::listener::bind_tcp;
use rswoole::engine::worker;

#[derive(Default)]
struct Echo {
    events: RefCell<Vec<String>>,
}

impl Hooks for Echo {
    fn on_worker_start(&self, id: usize) -> Outcome {
        self.events.borrow_mut().push(format!("start{id}"));
        Outcome::Done
    }
    fn on_worker_stop(&self, id: usize) {
        self.events.borrow_mut().push(format!("stop{id}"));
    }
    fn on_request(&self, req: HttpRequest, resp: Responder) -> Outcome {
        if req.path() == "/forget" {
            return Outcome::Done; // never answers: the engine must send 500
        }
        if req.path() == "/chunks" {
            resp.write(Bytes::from_static(b"ab")).expect("write");
            resp.write(Bytes::from_static(b"cd")).expect("write");
            resp.end(Bytes::new()).expect("end");
            return Outcome::Done;
        }
        let body = format!("{} {} {}", req.method, req.path(), req.body.len());
        resp.header("X-Seen", req.protocol.as_bytes(), true)
            .expect("header");
        resp.end(Bytes::from(body)).expect("end");
        Outcome::Done
    }
}

/// Runs a worker on a free port while `client` talks to it; returns what
/// the client returned and the hooks' event log.
fn with_worker<T: Send + 'static>(
    cfg: ServerConfig,
    client: impl FnOnce(u16) -> T + Send + 'static,
) -> (T, Vec<String>) {
    let listener = bind_tcp("127.0.0.1", 0, false, 64).expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let th = std::thread::spawn(move || {
        let out = client(port);
        let _ = tx.send(());
        out
    });
    let hooks = Rc::new(Echo::default());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("rt");
    let local = tokio::task::LocalSet::new();
    let code = local.block_on(
        &rt,
        worker::serve(0, listener, Rc::new(cfg), hooks.clone(), async {
            let _ = rx.await;
        }),
    );
    assert_eq!(code, 0);
    let out = th.join().expect("client thread");
    let events = hooks.events.borrow().clone();
    (out, events)
}

fn roundtrip(port: u16, raw: &[u8]) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    s.write_all(raw).expect("write");
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn keep_alive_pipelining_and_lifecycle() {
    let (out, events) = with_worker(ServerConfig::default(), |port| {
        roundtrip(
            port,
            b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        )
    });
    let a = out.find("GET /a 0").expect("first response");
    let b = out.find("GET /b 0").expect("second response");
    assert!(a < b, "responses in request order: {out}");
    assert!(out.contains("Connection: keep-alive"), "{out}");
    assert!(out.contains("Connection: close"), "{out}");
    assert!(out.contains("Server: swoole-http-server"), "{out}");
    assert!(out.contains("Content-Type: text/html"), "{out}");
    assert!(out.contains("Date: "), "{out}");
    assert_eq!(events, vec!["start0".to_string(), "stop0".to_string()]);
}

#[test]
fn http10_closes_and_head_has_no_body() {
    let (out, _) = with_worker(ServerConfig::default(), |port| {
        let a = roundtrip(port, b"GET /x HTTP/1.0\r\n\r\n");
        let b = roundtrip(
            port,
            b"HEAD /h HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        );
        (a, b)
    });
    assert!(out.0.starts_with("HTTP/1.0 200"), "{}", out.0);
    assert!(out.0.ends_with("GET /x 0"), "{}", out.0);
    assert!(out.1.contains("Content-Length: 9"), "{}", out.1);
    assert!(
        out.1.ends_with("\r\n\r\n"),
        "HEAD must have no body: {}",
        out.1
    );
}

#[test]
fn bodies_chunked_continue_and_limits() {
    let cfg = ServerConfig {
        package_max_length: 1024,
        ..Default::default()
    };
    let (out, _) = with_worker(cfg, |port| {
        let chunked = roundtrip(
            port,
            b"POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
        );
        let cont = roundtrip(
            port,
            b"POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\nConnection: close\r\n\r\nxyz",
        );
        let big = roundtrip(
            port,
            b"POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n",
        );
        let mut big_chunked =
            b"POST /bc HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        for _ in 0..3 {
            big_chunked.extend_from_slice(b"200\r\n");
            big_chunked.extend_from_slice(&[b'z'; 512]);
            big_chunked.extend_from_slice(b"\r\n");
        }
        let big_chunked = roundtrip(port, &big_chunked);
        let bad = roundtrip(port, b"GARBAGE\r\n\r\n");
        let huge_head = {
            let mut r = b"GET / HTTP/1.1\r\nX-Big: ".to_vec();
            r.extend(std::iter::repeat_n(b'a', 100 * 1024));
            r.extend_from_slice(b"\r\n\r\n");
            roundtrip(port, &r)
        };
        // A client that goes away mid-body must not hurt the next one.
        {
            let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
            s.write_all(b"POST /v HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nhalf")
                .expect("w");
        }
        let after = roundtrip(
            port,
            b"GET /after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        );
        let forgot = roundtrip(
            port,
            b"GET /forget HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        );
        let chunks = roundtrip(
            port,
            b"GET /chunks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        );
        (
            chunked,
            cont,
            big,
            big_chunked,
            bad,
            huge_head,
            after,
            forgot,
            chunks,
        )
    });
    assert!(out.0.ends_with("POST /c 5"), "{}", out.0);
    assert!(
        out.1
            .starts_with("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200"),
        "{}",
        out.1
    );
    assert!(out.2.starts_with("HTTP/1.1 413"), "{}", out.2);
    assert!(out.3.starts_with("HTTP/1.1 413"), "{}", out.3);
    assert!(out.4.starts_with("HTTP/1.1 400"), "{}", out.4);
    assert!(out.5.starts_with("HTTP/1.1 431"), "{}", out.5);
    assert!(out.6.ends_with("GET /after 0"), "{}", out.6);
    assert!(out.7.starts_with("HTTP/1.1 500"), "{}", out.7);
    assert!(out.8.contains("Transfer-Encoding: chunked"), "{}", out.8);
    assert!(
        out.8.contains("2\r\nab\r\n2\r\ncd\r\n0\r\n\r\n"),
        "{}",
        out.8
    );
}
