//! Engine tests of a worker's end of life without PHP: a worker that reaches
//! `max_request` with no master to ask drains by itself; while draining, an
//! idle keep-alive connection still gets its next request answered (with
//! `Connection: close`) instead of being cut.

use std::cell::RefCell;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::rc::Rc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use rswoole::engine::config::ServerConfig;
use rswoole::engine::hooks::{Hooks, Outcome};
use rswoole::engine::http::{HttpRequest, Responder};
use rswoole::engine::net::listener::bind_tcp;
use rswoole::engine::worker;

#[derive(Default)]
struct Count {
    events: RefCell<Vec<String>>,
}

impl Hooks for Count {
    fn on_worker_stop(&self, _id: usize) {
        self.events.borrow_mut().push("stop".into());
    }
    fn on_worker_exit(&self, _id: usize) {
        self.events.borrow_mut().push("exit".into());
    }
    fn on_request(&self, req: HttpRequest, resp: Responder) -> Outcome {
        resp.end(Bytes::from(req.path().to_string())).expect("end");
        Outcome::Done
    }
}

/// Reads one response with a Content-Length body: (head, body).
fn read_response(r: &mut BufReader<TcpStream>) -> Option<(String, String)> {
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        head.push_str(&line);
        if line == "\r\n" {
            break;
        }
    }
    let len = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    r.read_exact(&mut body).ok()?;
    Some((head, String::from_utf8_lossy(&body).into_owned()))
}

#[test]
fn max_request_without_a_master_drains_and_answers_the_idle_connection_once_more() {
    let listener = bind_tcp("127.0.0.1", 0, false, 64).expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let client = std::thread::spawn(move || {
        let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
        let mut w = s.try_clone().expect("clone");
        let mut r = BufReader::new(s);
        let mut out = Vec::new();
        for path in ["/1", "/2", "/3"] {
            w.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
                .expect("write");
            out.push(read_response(&mut r).expect("response"));
        }
        // The worker is draining now; this connection sat idle for 100 ms.
        std::thread::sleep(Duration::from_millis(100));
        w.write_all(b"GET /4 HTTP/1.1\r\nHost: x\r\n\r\n")
            .expect("write");
        out.push(read_response(&mut r).expect("fourth response"));
        let mut rest = Vec::new();
        let eof = r.read_to_end(&mut rest).is_ok() && rest.is_empty();
        (out, eof)
    });
    let hooks = Rc::new(Count::default());
    let cfg = ServerConfig {
        max_request: 3,
        max_request_grace: Some(0),
        ..ServerConfig::default()
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("rt");
    let local = tokio::task::LocalSet::new();
    let started = Instant::now();
    let code = local.block_on(
        &rt,
        worker::serve(
            0,
            listener,
            Rc::new(cfg),
            hooks.clone(),
            std::future::pending::<()>(),
        ),
    );
    assert_eq!(code, 0);
    assert!(started.elapsed() < Duration::from_secs(3));
    let (out, eof) = client.join().expect("client");
    assert_eq!(out.len(), 4);
    for (i, (head, body)) in out.iter().enumerate() {
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert_eq!(body, &format!("/{}", i + 1));
    }
    assert!(out[1].0.contains("Connection: keep-alive"), "{}", out[1].0);
    assert!(out[3].0.contains("Connection: close"), "{}", out[3].0);
    assert!(eof, "the connection closes after the last answer");
    // As Swoole: `workerExit` (work was left: the idle connection) before `workerStop`.
    assert_eq!(*hooks.events.borrow(), vec!["exit", "stop"]);
}
