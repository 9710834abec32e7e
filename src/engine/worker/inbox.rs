//! The worker side of IPC: turns each message read from this process's
//! inbox (`ipc`) into a hook call (tasks, results, pipe messages) or a
//! registry call (`conns`: a `Send` or `Close` for a connection we own),
//! and answers `Server::command()`.

use std::rc::Rc;

use crate::engine::hooks::{Hooks, Outcome};
use crate::engine::ipc::{self, Kind, Msg};
use crate::engine::net::conns;

/// Hands a message to the right hook or connection (what every worker's
/// loop does with its inbox).
pub fn dispatch(hooks: &Rc<dyn Hooks>, m: Msg) -> Outcome {
    match m.kind {
        Kind::Task => {
            crate::engine::shared::stats::on_task_taken();
            let _busy = crate::engine::shared::stats::TaskBusy::enter();
            hooks.on_task(m.id, m.src, m.data, m.flags)
        }
        Kind::Finish => hooks.on_finish(m.id, m.src, m.data, m.flags),
        Kind::Send => {
            conns::send(m.id, m.data);
            Outcome::Done
        }
        Kind::Close => {
            conns::close_after(m.id, m.arg != 0, m.data);
            Outcome::Done
        }
        Kind::Pipe => hooks.on_pipe_message(m.src, m.data, m.flags),
        Kind::Command => {
            let result = ipc::run_command(m.arg >> 16, m.data).unwrap_or_default();
            let reply = Msg {
                kind: Kind::CommandReply,
                flags: 0,
                src: 0,
                id: m.id,
                arg: 0,
                data: result,
            };
            if let Err(e) = ipc::send((m.arg & 0xffff) as usize, reply) {
                crate::rlog!(Warning, "command result: {e}");
            }
            Outcome::Done
        }
        // A result nobody waits for any more (its command timed out).
        Kind::CommandReply => Outcome::Done,
        Kind::Respond => hooks.on_remote_response(m.id, m.data),
        // The worker loop hands these to `worker::dispatch` (it needs the
        // worker's context); nothing else reads a worker's inbox.
        Kind::Receive | Kind::Packet => Outcome::Done,
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;
    use std::time::Duration;

    use bytes::Bytes;

    use super::dispatch;
    use crate::engine::hooks::Hooks;
    use crate::engine::ipc::{self, Kind};
    use crate::engine::net::conns::{self, Cmd};
    use crate::engine::net::tcp::tests::{ctx, run, Rec};
    use crate::engine::shared::session;

    /// A `send()`/`close()` for a connection another worker owns travels as
    /// one `Send`/`Close` message with the bytes as given; the owner's inbox
    /// hands it to its registry, whose connection queue gets them.
    #[test]
    fn routed_send_and_close_reach_the_owner_queue() {
        let hooks = Rc::new(Rec::default());
        let ctx = ctx(&hooks);
        ipc::setup(1, 0, 0, std::env::temp_dir()).expect("ipc");
        ipc::enter(0);
        let peer = "127.0.0.1:4001".parse().expect("addr");
        // Worker 0 owns it; this test process is no worker (id -1).
        let fd = session::open(0, 0, 80, peer);
        run(false, async {
            assert!(conns::send(fd, Bytes::from_static(b"abc")));
            assert!(conns::close_after(fd, true, Bytes::from_static(b"last")));
            let want = |k: Kind| move |m: &ipc::Msg| m.kind == k && m.id == fd;
            let send = ipc::wait_blocking(want(Kind::Send), Duration::from_secs(2)).expect("Send");
            let close =
                ipc::wait_blocking(want(Kind::Close), Duration::from_secs(2)).expect("Close");
            assert_eq!(&send.data[..], b"abc");
            assert_eq!((close.arg, &close.data[..]), (1, &b"last"[..]));

            // In the owner: the messages become registry calls.
            let (guard, mut rx) = conns::register(fd, conns::Kind::Stream, 0, &ctx);
            let h: Rc<dyn Hooks> = hooks.clone();
            dispatch(&h, send);
            dispatch(&h, close);
            match rx.try_recv() {
                Ok(Cmd::Data(b)) => assert_eq!(&b[..], b"abc"),
                other => panic!("{other:?}"),
            }
            match rx.try_recv() {
                Ok(Cmd::Close { reset, last }) => {
                    assert!(reset);
                    assert_eq!(&last[..], b"last");
                }
                other => panic!("{other:?}"),
            }
            drop(guard);
            assert!(session::get(fd).is_none());
            // Gone: nothing is routed any more.
            assert!(!conns::send(fd, Bytes::from_static(b"x")));
        });
        ipc::teardown();
    }
}
